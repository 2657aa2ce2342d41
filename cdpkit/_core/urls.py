"""Every URL a person or an agent gives cdpkit, read once, as the browser will read it.

Chrome parses URLs by the WHATWG URL standard; so does everything here (``ada-url``, the
parser Node uses): leading and trailing C0 controls and spaces stripped, tabs and
newlines removed anywhere, the scheme lowercased, backslashes read as slashes in special
schemes (``http:\\\\host\\page`` is ``http://host/page``), a missing ``//`` supplied
(``http:host`` is ``http://host/``), the host percent-decoded, IDNA-mapped and IPv4
numbers in any notation written as dotted decimal. A policy decided on another parser's
reading is decided on a different URL; so every surface reads here:

* :func:`read_url`: a URL as given (an agent's, a page's, a redirect's), as the browser
  reads it; what is judged is what is loaded.
* :func:`url_to_open`: what a person typed where a page is expected (the command line,
  the REPL, the terminal browser): a local file, a bare host (``example.com/page``) or a
  URL, checked and read as above.
* :func:`origin`, :func:`canonical_host` and :func:`host_address`: how policies compare
  where a URL goes (the MCP server's origin lists, browse's own requests).
* :func:`browser_page`: whether a URL is one of the browser's own pages (``chrome:``...),
  which the MCP server refuses by default and which open only in the default context.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from pathlib import Path

import ada_url

__all__ = [
    "BROWSER_PAGE_SCHEMES",
    "HOST_PORT_RE",
    "ONLY_IN_THE_DEFAULT_CONTEXT",
    "THIS_MACHINE",
    "InvalidUrlError",
    "browser_page",
    "canonical_host",
    "host_address",
    "origin",
    "parse_url",
    "read_url",
    "url_to_open",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}
# The schemes of the browser's own pages (settings, history, extensions, DevTools), in
# Chrome and the browsers built on it.
BROWSER_PAGE_SCHEMES = frozenset({
    "chrome", "chrome-untrusted", "chrome-extension", "chrome-search", "chrome-native",
    "devtools", "edge", "brave", "opera", "vivaldi", "isolated-app",
})  # fmt: skip
HOST_PORT_RE = re.compile(r"^[^/:]+:\d+(/|$)")  # localhost:8000/x has no scheme


class InvalidUrlError(ValueError):
    """What a person gave is no URL a page can be loaded from; the message says why."""


# What the URL standard strips from both ends of a URL (C0 controls and space) and
# removes everywhere (tab, newline, carriage return) before parsing it.
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")


def read_url(url: str, base: str | None = None) -> str:
    """``url`` as the browser will read it: parsed by the WHATWG URL standard (which
    Chrome follows) and written back (``"\\x01JavaScript:x"`` -> ``"javascript:x"``,
    ``"HTTP://0x7f.1"`` -> ``"http://127.0.0.1/"``), relative to ``base`` when given. Text
    that is no URL (``"example.com"`` without a base, a relative path) comes back cleaned
    of what the standard strips, otherwise as given: the browser cannot load it either.

    Judge this, and hand the browser this: the URL judged is the URL loaded."""
    try:
        return parse_url(url, base)
    except InvalidUrlError:
        return _TAB_OR_NEWLINE.sub("", url.strip(_C0_AND_SPACE))


def parse_url(url: str, base: str | None = None) -> str:
    """:func:`read_url` for text that must be a URL.

    Raises:
        InvalidUrlError: The URL standard (so Chrome) reads no URL in it.
    """
    cleaned = _TAB_OR_NEWLINE.sub("", url.strip(_C0_AND_SPACE))
    try:
        return str((ada_url.URL(cleaned, base) if base else ada_url.URL(cleaned)).href)
    except ValueError:
        raise InvalidUrlError(f"Invalid URL: {url!r}") from None


def origin(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s) URL, with the host as Chrome will read it
    (see :func:`read_url`); ``None`` if it has no host or does not parse."""
    try:
        parsed = ada_url.URL(_TAB_OR_NEWLINE.sub("", url.strip(_C0_AND_SPACE)))
    except ValueError:
        return None
    scheme = str(parsed.protocol).rstrip(":").lower()
    if scheme not in _DEFAULT_PORTS:
        return None
    host = canonical_host(str(parsed.hostname).removeprefix("[").removesuffix("]"))
    if not host:
        return None
    port = str(parsed.port)
    return scheme, host, int(port) if port else _DEFAULT_PORTS[scheme]


# Some of the browser's own pages (chrome://settings, history, extensions) opened in a
# context other than the default end the whole of a headless Chrome, every context's pages
# with it (Chromium 156): the navigation and the daemon's relay refuse them there.
ONLY_IN_THE_DEFAULT_CONTEXT = (
    "the browser's own pages (chrome:, devtools:...) open only in the browser's default "
    "context: in another one some of them end the whole browser, every context's pages "
    "with it"
)


def browser_page(url: str) -> bool:
    """Whether ``url``, read as the browser reads it, is one of the browser's own pages
    (a scheme of :data:`BROWSER_PAGE_SCHEMES`), also when ``view-source:`` wraps it."""
    scheme, _, rest = read_url(url).partition(":")
    if scheme.lower() == "view-source":
        return browser_page(rest)
    return scheme.lower() in BROWSER_PAGE_SCHEMES


def canonical_host(host: str) -> str:
    """``host`` as the browser canonicalizes it: percent-decoded, lowercase, without a
    trailing dot, IDN as punycode, IPv4 in any notation (``0x7f.1``, ``2130706433``) as
    dotted decimal, IPv6 compressed in brackets."""
    host = urllib.parse.unquote(host).strip().lower().rstrip(".")
    if ":" in host:
        try:
            return f"[{ipaddress.IPv6Address(host).compressed}]"
        except ValueError:
            return f"[{host}]"
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return host
    return _ipv4(host) or host


# What every spelling of the machine the browser runs on compares as (see host_address).
THIS_MACHINE = "localhost"
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def host_address(host: str) -> str:
    """The address ``host`` reaches, as the origin lists compare hosts: the one place a
    policy decides whether two hosts are the same.

    ``host`` is a URL host as :func:`read_url` writes it (IPv4 dotted, IPv6 in
    brackets, names lowercase punycode); an origin list's entries are read the same way.

    * An IPv4 address embedded in IPv6 is that IPv4 address: IPv4-mapped
      (``[::ffff:127.0.0.1]``, ``[::ffff:7f00:1]``), IPv4-compatible (``[::7f00:1]``) and
      NAT64 (``[64:ff9b::7f00:1]``) all reach it.
    * Every spelling of this machine is one: ``localhost`` and ``*.localhost`` (Chrome
      resolves them itself), ``127.0.0.0/8``, ``[::1]``, and ``0.0.0.0`` (``0``), ``0.0.0.0/8``
      and ``[::]``, which connect to the local host. So blocking ``http://127.0.0.1:8080``
      blocks ``http://0.0.0.0:8080`` and ``http://localhost:8080``, the same server; and
      allowing it allows them (an allowed list compares the same way, so it never refuses
      a spelling of an address it allows).
    * Any other IPv4 address is its dotted decimal form, IPv6 its compressed form in
      brackets, a name itself. Names are not resolved: a DNS name that points at a
      blocked address is not caught (``--allowed-origins`` contains by name).
    """
    name = host.removeprefix("[").removesuffix("]")
    if ":" in name:
        try:
            ipv6 = ipaddress.IPv6Address(name)
        except ValueError:
            return host
        embedded = ipv6.ipv4_mapped
        if embedded is None and (int(ipv6) >> 32 == 0 or ipv6 in _NAT64) and int(ipv6) > 1:
            embedded = ipaddress.IPv4Address(int(ipv6) & 0xFFFFFFFF)
        if embedded is None:
            local = ipv6.is_loopback or ipv6.is_unspecified
            return THIS_MACHINE if local else f"[{ipv6.compressed}]"
        ipv4 = embedded
    elif name == "localhost" or name.endswith(".localhost"):
        return THIS_MACHINE
    else:
        try:
            ipv4 = ipaddress.IPv4Address(name)
        except ValueError:
            return name
    return THIS_MACHINE if ipv4.is_loopback or ipv4 in _THIS_NETWORK else str(ipv4)


def _ipv4(host: str) -> str | None:
    """The dotted-decimal form of an IPv4 address written in any notation the URL
    standard accepts (decimal, octal ``0177``, hex ``0x7f``, 1 to 4 parts), or ``None``."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        try:
            if part.startswith(("0x", "0X")):
                numbers.append(int(part[2:] or "0", 16))
            elif part.startswith("0") and len(part) > 1:
                numbers.append(int(part[1:], 8))
            else:
                numbers.append(int(part, 10))
        except ValueError:
            return None
    *leading, last = numbers
    if any(n > 255 for n in leading) or last >= 256 ** (5 - len(numbers)):
        return None
    value = sum(n << (8 * (3 - i)) for i, n in enumerate(leading)) + last
    return str(ipaddress.IPv4Address(value))


# -- what a person typed where a page is expected ---------------------------------------------


_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# A bare name ending like these is a file, not a host: none of them is a top-level domain.
_FILE_SUFFIXES = (
    ".html", ".htm", ".xhtml", ".svg", ".xml", ".json", ".txt", ".pdf",
    ".png", ".jpg", ".jpeg", ".gif", ".webp",
)  # fmt: skip
_PAGE_SCHEMES = ("http", "https", "file", "about", "data", "chrome", "view-source")
# Why a scheme cannot be loaded, in words (others get a generic reason).
_UNSUPPORTED_SCHEMES = {
    "javascript": "a javascript: URL runs code in the current page instead of loading one; "
    "use `cdpkit eval URL EXPR`",
    "ftp": "Chrome no longer loads ftp: URLs",
    "ws": "a WebSocket URL is not a page",
    "wss": "a WebSocket URL is not a page",
    "mailto": "a mailto: URL opens a mail program, not a page",
}


def _looks_like_a_path(text: str) -> bool:
    """Whether a person's argument names a local file rather than a host."""
    if text.startswith(("/", "./", "../", "~", ".\\", "..\\")) or text in (".", ".."):
        return True
    if _SCHEME_RE.match(text) and not HOST_PORT_RE.match(text):
        return False
    first, slash, _ = text.partition("/")
    if slash and Path(first).is_dir():
        return True  # docs/missing.html, with a local docs/
    # A file name (page.html), or a path under a name no host has (pages/page.html).
    hostless = "." not in first and ":" not in first and first != "localhost"
    return text.lower().endswith(_FILE_SUFFIXES) and (not slash or hostless)


def url_to_open(value: str) -> str:
    """The URL to load for what a person typed where a page is expected.

    An existing local file becomes a ``file://`` URL; a bare host (``example.com/path``)
    gets ``https://`` (``http://`` for this machine: ``localhost``, ``127.0.0.1``, ``[::1]``);
    then the URL is read as the browser reads it (:func:`read_url`), so
    ``http:\\\\host\\page``, ``http:host/page`` and ``HTTP://host`` open what Chrome
    would open, and the MCP server and the tools take the same text the same way.

    Raises:
        InvalidUrlError: Empty, no URL, a local path or ``file://`` URL that does not
            exist, or a scheme a page cannot be loaded from.
    """
    text = _TAB_OR_NEWLINE.sub("", value.strip(_C0_AND_SPACE))
    if not text:
        raise InvalidUrlError("Invalid URL: empty")
    path = Path(text).expanduser()
    if path.is_file():
        return path.resolve().as_uri()
    if _looks_like_a_path(text):
        if path.is_dir():
            raise InvalidUrlError(f"{value} is a directory, not a file to open")
        raise InvalidUrlError(f"No such file: {value}")
    if not _SCHEME_RE.match(text) or HOST_PORT_RE.match(text):
        host = re.split(r"[/:?#\\]", text, maxsplit=1)[0]
        local = host_address(canonical_host(host)) == THIS_MACHINE or text.startswith("[")
        text = ("http://" if local else "https://") + text
    try:
        parsed = ada_url.URL(text)
    except ValueError:
        raise InvalidUrlError(f"Invalid URL: {value!r}") from None
    scheme = str(parsed.protocol).rstrip(":")
    if scheme in _DEFAULT_PORTS and not str(parsed.hostname):
        raise InvalidUrlError(f"Invalid URL: {value!r}")
    if scheme == "file":
        local_path = Path(urllib.parse.unquote(str(parsed.pathname)))
        if str(parsed.hostname) in ("", "localhost") and not local_path.exists():
            raise InvalidUrlError(f"No such file: {local_path}")
    elif scheme not in _PAGE_SCHEMES:
        reason = _UNSUPPORTED_SCHEMES.get(scheme, "cdpkit loads http(s), file, data and about URLs")
        raise InvalidUrlError(f"Invalid URL {value!r}: unsupported scheme {scheme}: ({reason})")
    return str(parsed.href)
