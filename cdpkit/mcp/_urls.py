"""Where the MCP server lets an agent take the browser: the URL policy of
``--allow-file-urls``, ``--allowed-origins`` and ``--blocked-origins``.

Nothing here touches a browser: :class:`UrlPolicy` answers "may a tool load, read or
download this URL?" with ``None`` or the reason it may not, and :mod:`cdpkit.mcp._tools`
applies it before and after each tool call.

What is allowed by default, and why:

* ``http:`` and ``https:`` URLs, unless the origin lists say otherwise: that is the web
  the agent is there to browse.
* ``about:blank`` (and ``about:srcdoc``): empty documents.
* ``data:`` URLs: their content is whatever the agent wrote into the URL; they cannot
  read the disk or another origin's data (their origin is opaque), so they reveal
  nothing the agent did not already have. playwright-mcp allows them too.
* Chrome's own error page (``chrome-error://``), shown after a failed navigation: it
  says only what failed.

Refused unless the person running the server passes ``--allow-file-urls``: ``file:``
URLs (the local disk) and the browser's own pages (``chrome:``, ``chrome-untrusted:``,
``chrome-extension:``, ``devtools:``, other ``about:`` pages, which are ``chrome:``
pages under another name): they show local files, history, settings, extensions.
``view-source:``, ``blob:`` and ``filesystem:`` URLs are judged by the URL they wrap.
``javascript:`` URLs are always refused: they run code (that is ``browser_execute_js``,
offered only with ``--allow-js``). Any other scheme is refused: it is not a web page.

Every URL is judged as the browser will read it (:func:`read_url`, the WHATWG URL
parser of ``ada-url``, the one Node uses): leading and trailing C0 controls and spaces
stripped, tabs and newlines removed anywhere, the scheme lowercased, the host
percent-decoded, IDNA-mapped and IPv4 numbers in any notation written as dotted
decimal, backslashes read as slashes. So ``"\\x01javascript:..."``, ``"java\\tscript:..."``
or ``"http://0x7f.1/"`` are judged as ``javascript:...`` and ``http://127.0.0.1/``, and
the tools pass that normalised URL on: the browser loads exactly what was judged.

The origin lists compare hosts as the addresses they reach (:func:`host_address`): an
IPv4 address embedded in IPv6 is that address, and every spelling of this machine
(``localhost``, ``127.0.0.0/8``, ``[::1]``, ``0.0.0.0``, ``[::]``) is one, so
``--blocked-origins http://127.0.0.1:8080`` also stops ``http://0.0.0.0:8080`` and
``http://[::ffff:127.0.0.1]:8080``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Iterable

from .._core.urls import BROWSER_PAGE_SCHEMES, THIS_MACHINE, canonical_host, host_address, read_url
from .._core.urls import origin as url_origin

__all__ = [
    "OriginPattern",
    "UrlBlockedError",
    "UrlPolicy",
    "host_address",
    "read_url",
    "split_origin_list",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_WRAPPING_SCHEMES = frozenset({"view-source", "blob", "filesystem"})
_KNOWN_SCHEMES = (
    BROWSER_PAGE_SCHEMES
    | _WRAPPING_SCHEMES
    | set(_DEFAULT_PORTS)
    | {"about", "data", "file", "javascript", "chrome-error"}
)
_HOST_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$")


class UrlBlockedError(ValueError):
    """A tool was asked to load, read or download a URL the server does not allow. The
    message names the URL, the reason and the option that would allow it."""


def split_origin_list(values: str | Iterable[str] | None) -> list[str]:
    """The entries of ``--allowed-origins`` / ``--blocked-origins``: separated by ``;``
    (as in playwright-mcp) or ``,``, from one string or several (a repeated option);
    blanks dropped."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    entries: list[str] = []
    for value in values:
        entries += [part.strip() for part in re.split(r"[;,]", value) if part.strip()]
    return entries


def _normalize_host(host: str, entry: str) -> str:
    host = host.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            raise ValueError(f"Invalid IPv6 address in origin {entry!r}") from None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"Invalid host in origin {entry!r}") from None
    labels = host.split(".")
    if not host or not all(_HOST_LABEL.match(label) for label in labels):
        raise ValueError(f"Invalid host {host!r} in origin {entry!r}")
    return canonical_host(host)


@dataclasses.dataclass(frozen=True, slots=True)
class OriginPattern:
    """One entry of an origin list, as written and as parsed.

    The forms (those of playwright-mcp, plus subdomain wildcards):

    * ``https://example.com`` — exactly that origin: scheme, host and port (the scheme's
      default port when none is written: ``https://example.com`` is not
      ``https://example.com:8443``).
    * ``http://localhost:*`` — that scheme and host on any port.
    * ``example.com`` — that host over http or https, on any port;
      ``example.com:8080`` on that port only.
    * ``*.example.com`` — any subdomain of example.com (not example.com itself), in any
      of the forms above (``https://*.example.com``).
    * ``*`` — every host.

    Attributes:
        text: The entry as written (used in error messages).
        scheme: ``"http"`` or ``"https"``; ``None`` for both.
        host: Lowercase host (IPv6 in brackets, IDN as punycode); ``"*"`` for any host.
        subdomains: The host was written ``*.host``: match its subdomains.
        port: The port; ``None`` for any port.
    """

    text: str
    scheme: str | None
    host: str
    subdomains: bool
    port: int | None

    @classmethod
    def parse(cls, entry: str) -> OriginPattern:
        """Parse one entry.

        Raises:
            ValueError: Not one of the forms (the message shows the forms).
        """
        text = entry.strip()
        scheme: str | None = None
        rest = text
        if "://" in text:
            scheme, _, rest = text.partition("://")
            scheme = scheme.lower()
            if scheme not in _DEFAULT_PORTS:
                raise ValueError(
                    f"Origin {entry!r}: only http and https origins can be listed "
                    f"(file URLs are governed by --allow-file-urls)"
                )
            if rest.endswith("/"):
                rest = rest[:-1]
        if "/" in rest or "?" in rest or "#" in rest or "@" in rest:
            raise ValueError(
                f"Origin {entry!r} has a path: an origin is a scheme, host and port, like "
                f"https://example.com or http://localhost:8080 (or a bare host: example.com)"
            )
        if text == "*":
            return cls(text, None, "*", False, None)
        host, port_text = rest, ""
        if rest.startswith("["):
            close = rest.find("]")
            host, port_text = rest[: close + 1], rest[close + 1 :]
            if port_text and not port_text.startswith(":"):
                raise ValueError(f"Invalid origin {entry!r}")
            port_text = port_text[1:]
        elif ":" in rest:
            host, _, port_text = rest.partition(":")
        port: int | None
        if port_text == "*":
            port = None
        elif port_text:
            if not port_text.isdigit() or not 0 < int(port_text) < 65536:
                raise ValueError(f"Invalid port {port_text!r} in origin {entry!r}")
            port = int(port_text)
        else:
            port = _DEFAULT_PORTS[scheme] if scheme is not None else None
        subdomains = host.startswith("*.")
        if subdomains:
            host = host[2:]
        if host == "*":
            return cls(text, scheme, "*", False, port)
        return cls(text, scheme, _normalize_host(host, entry), subdomains, port)

    def matches(self, scheme: str, host: str, port: int) -> bool:
        """Whether the origin ``scheme://host:port`` (host as :func:`read_url`
        writes it) is one of this pattern's. Hosts are compared as addresses
        (:func:`host_address`): ``127.0.0.1`` also matches ``0.0.0.0``,
        ``[::ffff:7f00:1]`` and ``localhost``, in a blocked list as in an allowed one."""
        if self.scheme is not None and scheme != self.scheme:
            return False
        if self.port is not None and port != self.port:
            return False
        if self.host == "*":
            return True
        address = host_address(self.host)
        if self.subdomains and address != THIS_MACHINE:
            return host.endswith("." + self.host)
        return host_address(host) == address


def _origin_text(scheme: str, host: str, port: int) -> str:
    default = _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}" if port == default else f"{scheme}://{host}:{port}"


@dataclasses.dataclass(frozen=True, slots=True)
class UrlPolicy:
    """Which URLs the MCP server's tools may load, read and download.

    Attributes:
        allow_file_urls: Allow ``file:`` URLs and the browser's own pages
            (``chrome://...``); refused by default.
        allowed_origins: When not empty, only http(s) URLs of these origins are allowed.
        blocked_origins: http(s) URLs of these origins are refused; a blocked origin is
            refused even when it is also allowed.
    """

    allow_file_urls: bool = False
    allowed_origins: tuple[OriginPattern, ...] = ()
    blocked_origins: tuple[OriginPattern, ...] = ()

    @classmethod
    def from_options(
        cls,
        *,
        allow_file_urls: bool = False,
        allowed_origins: str | Iterable[str] | None = None,
        blocked_origins: str | Iterable[str] | None = None,
    ) -> UrlPolicy:
        """The policy of the command-line options (lists as :func:`split_origin_list`
        reads them).

        Raises:
            ValueError: An entry of a list is not an origin (the message says which and
                shows the forms).
        """
        allowed = split_origin_list(allowed_origins)
        blocked = split_origin_list(blocked_origins)
        return cls(
            allow_file_urls=allow_file_urls,
            allowed_origins=tuple(OriginPattern.parse(entry) for entry in allowed),
            blocked_origins=tuple(OriginPattern.parse(entry) for entry in blocked),
        )

    @property
    def restricts(self) -> bool:
        """Whether any origin list is set (file URLs aside)."""
        return bool(self.allowed_origins or self.blocked_origins)

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be loaded or read, or ``None`` if it may.

        The reason reads on after "... is blocked: " and names the option that would
        allow the URL, e.g. ``"file URLs are not allowed (start the server with
        --allow-file-urls to allow them)"``.
        """
        url = read_url(url)
        if not url:
            return None  # a tab that has loaded nothing yet
        scheme, colon, rest = url.partition(":")
        scheme = scheme.lower()
        host_and_port = rest[:1].isdigit() and scheme not in _KNOWN_SCHEMES
        if not colon or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme) or host_and_port:
            # Not a URL ("example.com", "localhost:8080"): the tool says it is invalid,
            # and where the tab ends is checked after it anyway.
            return None
        if scheme in _DEFAULT_PORTS:
            return self._origin_refusal(url)
        if scheme in _WRAPPING_SCHEMES:
            if rest.startswith("null/"):
                return None  # a blob of an opaque origin (a data: page): nothing local
            return self.refusal(rest) if rest else None
        if scheme == "about":
            if rest.split("#")[0].split("?")[0] in ("blank", "srcdoc"):
                return None
            return self._local_refusal("the browser's own pages (about:, chrome:) are")
        if scheme == "data" or scheme == "chrome-error":
            return None
        if scheme == "file":
            return self._local_refusal("file URLs are")
        if scheme in BROWSER_PAGE_SCHEMES:
            return self._local_refusal(f"the browser's own pages ({scheme}:) are")
        if scheme == "javascript":
            return (
                "javascript: URLs run code in the page; that is browser_execute_js, which "
                "the server offers only when started with --allow-js"
            )
        return f"{scheme}: URLs are not web pages; only http, https and data URLs are allowed"

    def _local_refusal(self, what: str) -> str | None:
        if self.allow_file_urls:
            return None
        return f"{what} not allowed (start the server with --allow-file-urls to allow them)"

    def _origin_refusal(self, url: str) -> str | None:
        origin = url_origin(url)
        if origin is None:
            return "it has no host" if self.restricts else None
        text = _origin_text(*origin)
        for pattern in self.blocked_origins:
            if pattern.matches(*origin):
                blocked = f" ({pattern.text})" if pattern.text != text else ""
                return f"origin {text} is in --blocked-origins{blocked}"
        if self.allowed_origins and not any(p.matches(*origin) for p in self.allowed_origins):
            return f"origin {text} is not in --allowed-origins"
        return None

    def check(self, url: str, what: str = "Navigation to") -> None:
        """Raise if ``url`` is not allowed.

        Args:
            url: The URL.
            what: The start of the message: ``"Navigation to"``, ``"Download of"``...

        Raises:
            UrlBlockedError: ``"{what} {url} is blocked: {reason}"``.
        """
        reason = self.refusal(url)
        if reason is not None:
            raise UrlBlockedError(f"{what} {_shorten(url)} is blocked: {reason}")

    def describe(self, *, file_urls: bool = True) -> str:
        """One paragraph for the model: what this server refuses (without the refusal of
        ``file:`` URLs when ``file_urls`` is false)."""
        parts = []
        if file_urls and not self.allow_file_urls:
            parts.append("file: URLs and the browser's own pages (chrome:, about:) are refused")
        if self.allowed_origins:
            listed = ", ".join(p.text for p in self.allowed_origins)
            parts.append(f"only these web origins are allowed: {listed}")
        if self.blocked_origins:
            listed = ", ".join(p.text for p in self.blocked_origins)
            parts.append(f"these origins are blocked: {listed}")
        return "On this server " + "; ".join(parts) + "." if parts else ""


def _shorten(url: str, limit: int = 200) -> str:
    # A data: URL can be megabytes long; the message needs only its start.
    return url if len(url) <= limit else url[:limit] + "..."
