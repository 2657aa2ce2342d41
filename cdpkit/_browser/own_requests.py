"""The requests cdpkit makes itself, not through the browser (the download fallback,
``browse``'s tier 1 and its ``robots.txt``, ``scrape``'s media probe): one client for all
of them (:func:`client`, httpx), one way to make one (:func:`fetch`) and one answer
(:class:`Fetched`). They go where the browser's requests go, and only where the caller
allows.

* **Where they go**: through the browser's proxy (:class:`~cdpkit.Proxy`, HTTP or SOCKS:
  the same server, credentials and bypass list, loopback included unless a rule names it,
  as :meth:`~cdpkit.Proxy.bypass_list` tells Chrome), so they never leave from the user's
  own address when the browser does not (:func:`bypasses`).
* **Where they may go**: a caller that limits what may be reached (the MCP server's URL
  policy) installs a check with :func:`checked_by`; every hop of every such request (the
  first, each redirect target) is put to it once, before it is sent, and a refused hop
  raises :class:`RequestRefused` instead of being requested. A redirect out of http(s)
  (``file:``, ``data:``...) is refused the same way (:class:`UnsafeRedirect`), as Chrome
  refuses it.

httpx loads with the first client, not with this module (the MCP server and
``import cdpkit`` import the check without it).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import fnmatch
import functools
import importlib.util
import ipaddress
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .settings import Proxy

if TYPE_CHECKING:
    import httpx

__all__ = [
    "Fetched",
    "Refusal",
    "RequestRefused",
    "TooLarge",
    "UnsafeRedirect",
    "bypasses",
    "check",
    "checked_by",
    "client",
    "current_refusal",
    "fetch",
]

Refusal = Callable[[str], "str | None"]
"""Why a URL may not be requested (the words read on after "... is blocked: "), or
``None`` if it may."""

_refusal: contextvars.ContextVar[Refusal | None] = contextvars.ContextVar(
    "cdpkit_own_request_refusal", default=None
)


class RequestRefused(ValueError):
    """A request cdpkit was about to make itself (or a redirect it was about to follow)
    is refused by the check installed with :func:`checked_by`; nothing was sent.

    Attributes:
        url: The refused URL.
        reason: Why (the check's words).
    """

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url} is blocked: {reason}")
        self.url = url
        self.reason = reason


class UnsafeRedirect(RequestRefused):
    """A redirect to a URL that is not ``http(s)`` (``data:``, ``javascript:``,
    ``file:``...), refused before it is followed, as Chrome refuses it
    (``net::ERR_UNSAFE_REDIRECT``).

    Attributes:
        scheme: The target's scheme, without its colon.
    """

    def __init__(self, url: str, scheme: str) -> None:
        super().__init__(
            url, f"a redirect to a {scheme}: URL, which cdpkit does not follow (only http and https)"
        )
        self.scheme = scheme


class TooLarge(ValueError):
    """The body is over the ``max_bytes`` given to :func:`fetch` (it was not kept)."""

    def __init__(self, url: str, max_bytes: int) -> None:
        super().__init__(f"{url}: the body is over {max_bytes} bytes")
        self.max_bytes = max_bytes


@contextlib.contextmanager
def checked_by(refusal: Refusal | None) -> Iterator[None]:
    """Within the block (and the tasks it starts), put every request cdpkit makes itself
    to ``refusal`` first, each redirect hop included."""
    token = _refusal.set(refusal)
    try:
        yield
    finally:
        _refusal.reset(token)


def current_refusal() -> Refusal | None:
    """The check in force here (to hand to a worker thread, which does not inherit it)."""
    return _refusal.get()


def check(url: str, refusal: Refusal | None = None) -> None:
    """Raise :class:`RequestRefused` if ``url`` may not be requested (by ``refusal``, else
    the check in force).

    Raises:
        RequestRefused: The check refuses it.
    """
    refusal = refusal if refusal is not None else _refusal.get()
    if refusal is None:
        return
    reason = refusal(url)
    if reason is not None:
        raise RequestRefused(url, reason)


# -- the proxy --------------------------------------------------------------------------------

_LOOPBACK_NAMES = ("localhost", "localhost.", "loopback")


def _is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith((".localhost", ".localhost.")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_link_local


def _rule_matches(rule: str, scheme: str, host: str, port: int) -> bool:
    """Whether one rule of Chrome's proxy bypass grammar names this URL's host."""
    if rule == "<local>":
        return "." not in host and ":" not in host
    with contextlib.suppress(ValueError):
        if "/" in rule and "://" not in rule:
            return ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(rule, strict=False)
    rule_scheme = None
    if "://" in rule:
        rule_scheme, _, rule = rule.partition("://")
    if rule_scheme is not None and rule_scheme.lower() != scheme:
        return False
    rule_host, rule_port = rule, None
    if rule.startswith("["):
        rule_host, _, rest = rule[1:].partition("]")
        rule_port = rest.removeprefix(":") or None
    elif rule.count(":") == 1:
        rule_host, _, rule_port = rule.partition(":")
    if rule_port is not None and rule_port != str(port):
        return False
    rule_host = rule_host.lower()
    if rule_host.startswith("."):
        rule_host = "*" + rule_host
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(rule_host) == ipaddress.ip_address(host.strip("[]"))
    return fnmatch.fnmatchcase(host.strip("[]"), rule_host)


def bypasses(proxy: Proxy, url: str) -> bool:
    """Whether Chrome, given ``proxy`` (its :meth:`~cdpkit.Proxy.bypass_list`), reaches
    ``url`` directly rather than through the proxy."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme, 0)
    except ValueError:
        port = 0
    rules = [rule.strip() for rule in proxy.bypass_list().split(";") if rule.strip()]
    # As Chrome reads the list: loopback is bypassed implicitly unless "<-loopback>" is
    # in it, and a later rule overrides an earlier one ("<-loopback>" last, as
    # bypass_list() puts it, sends loopback through the proxy whatever came before).
    loopback = _is_loopback(host)
    bypass = loopback and "<-loopback>" not in rules
    for rule in rules:
        if rule == "<-loopback>":
            bypass = bypass and not loopback
        elif _rule_matches(rule, scheme, host, port):
            bypass = True
    return bypass



# -- the one client ---------------------------------------------------------------------------


def client(
    proxy: Proxy | None,
    *,
    headers: Mapping[str, str] | None = None,
    retries: int = 0,
    max_redirects: int = 20,
) -> httpx.AsyncClient:
    """The client for requests cdpkit makes itself: through ``proxy`` (HTTP or SOCKS) as
    Chrome would send them, its bypass list read as Chrome reads it (none: straight to
    the server); redirects followed, each hop put to the check in force
    (:func:`checked_by`) before it is sent, a redirect out of http(s) refused.

    Args:
        headers: Sent with every request (the user agent, the language...).
        retries: Connection retries.
        max_redirects: Redirects followed before :class:`httpx.TooManyRedirects`.

    Raises:
        ValueError: A SOCKS proxy without httpx's SOCKS support installed.
    """
    import httpx

    routed = _httpx_proxy(proxy) if proxy is not None else None
    mounts: dict[str, httpx.AsyncBaseTransport | None] = {}
    if routed is None:
        # A plain http:// URL without a proxy never speaks TLS: its transport needs no
        # verified context, so the first page of `cdpkit tui` / `browse` does not wait
        # for certifi's bundle to load (50-250 ms); https:// builds it on its first request.
        mounts["http://"] = httpx.AsyncHTTPTransport(retries=retries, verify=False)
    return httpx.AsyncClient(
        follow_redirects=True,
        max_redirects=max_redirects,
        transport=_deferred_transport()(retries, routed, proxy),
        mounts=mounts,
        headers=headers,
        event_hooks={"request": [_check_hop], "response": [_refuse_unsafe_redirect]},
    )


async def _check_hop(request: httpx.Request) -> None:
    """Each hop (the first request, each redirect), before it is sent."""
    check(str(request.url))


async def _refuse_unsafe_redirect(response: httpx.Response) -> None:
    """Raise :class:`UnsafeRedirect` for a redirect whose ``Location`` leaves http(s)."""
    location = response.headers.get("location") if response.is_redirect else None
    if location is None:
        return
    from .._core.urls import read_url

    # As a browser reads it (the URL standard), relative to the response's own URL.
    target = read_url(location, str(response.url))
    scheme = target.partition(":")[0].lower() if ":" in target else response.url.scheme
    if scheme not in ("http", "https"):
        raise UnsafeRedirect(target, scheme)


def _httpx_proxy(proxy: Proxy) -> httpx.Proxy:
    """``proxy`` for httpx: Basic credentials sent with each request (httpx does not
    answer a 407 itself; an empty password too, as Chrome answers), loopback included as
    Chrome's side does.

    Raises:
        ValueError: A SOCKS proxy without httpx's SOCKS support (``socksio``) installed.
    """
    import httpx

    if proxy.server.lower().startswith("socks") and importlib.util.find_spec("socksio") is None:
        raise ValueError(
            f"proxy {proxy.server}: cdpkit's own requests need SOCKS support for it: "
            "pip install 'cdpkit-browser[socks]'"
        )
    auth = (proxy.username, proxy.password or "") if proxy.username is not None else None
    return httpx.Proxy(proxy.server, auth=auth)


@functools.cache
def _deferred_transport() -> Callable[
    [int, httpx.Proxy | None, Proxy | None], httpx.AsyncBaseTransport
]:
    """The transport class, made on first use: httpx loads with the first client."""
    import httpx

    class DeferredTransport(httpx.AsyncBaseTransport):
        """httpx's transport with certificate verification, built on its first request;
        with a proxy, the hosts its bypass list names (as Chrome reads it) are reached
        directly."""

        def __init__(self, retries: int, proxy: httpx.Proxy | None, rules: Proxy | None) -> None:
            self._retries = retries
            self._proxy = proxy
            self._rules = rules if proxy is not None else None
            self._transport: httpx.AsyncHTTPTransport | None = None
            self._direct: httpx.AsyncHTTPTransport | None = None

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if self._rules is not None and bypasses(self._rules, str(request.url)):
                if self._direct is None:
                    self._direct = httpx.AsyncHTTPTransport(retries=self._retries)
                return await self._direct.handle_async_request(request)
            if self._transport is None:
                self._transport = httpx.AsyncHTTPTransport(retries=self._retries, proxy=self._proxy)
            return await self._transport.handle_async_request(request)

        async def aclose(self) -> None:
            for transport in (self._transport, self._direct):
                if transport is not None:
                    await transport.aclose()

    return DeferredTransport


# -- one request ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fetched:
    """What a request cdpkit made itself was answered: where it ended (after redirects),
    the status, the headers (lower-case names; a repeated one joined with commas, each
    line in ``header_lines``) and the body (empty when it was not read: refused by
    ``read``, or handed to ``into``; see :func:`fetch`)."""

    url: str
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes = b""
    header_lines: tuple[tuple[str, str], ...] = ()  # as received, e.g. each Set-Cookie

    @property
    def content_type(self) -> str:
        """The ``Content-Type`` header as sent (``""`` without one)."""
        return self.headers.get("content-type", "")

    @property
    def mime_type(self) -> str:
        """The MIME type alone, lower case (``text/html``)."""
        return self.content_type.split(";", 1)[0].strip().lower()


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    timeout: float,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    follow_redirects: bool = True,
    max_bytes: int | None = None,
    read: Callable[[Fetched], bool] | None = None,
    into: Callable[[bytes], Awaitable[None]] | None = None,
    chunk_size: int | None = None,
) -> Fetched:
    """GET ``url`` (or ``method`` it, without a body) with ``client`` (one of
    :func:`client`'s: each hop checked).

    Args:
        timeout: Seconds for each step (connecting, each read); the caller bounds the whole.
        headers: More request headers (a ``Referer``, the page's cookies).
        follow_redirects: ``False``: a redirect is the answer, its ``Location`` neither
            checked nor requested (one out of http(s) still raises :class:`UnsafeRedirect`).
        max_bytes: The largest body read (declared or received).
        read: Given the answer without its body, whether to read the body (``None``:
            always); it may raise instead.
        into: Where the body goes, chunk by chunk (of ``chunk_size`` bytes), instead of
            :attr:`Fetched.body`.

    Raises:
        RequestRefused: A hop the check refuses, or a redirect out of http(s)
            (:class:`UnsafeRedirect`): nothing was requested from there.
        TooLarge: The body is over ``max_bytes``.
        httpx.HTTPError: It could not be fetched (or the body was cut short).
    """
    import httpx

    request = client.build_request(method, url, timeout=httpx.Timeout(timeout), headers=headers)
    response = await client.send(request, stream=True, follow_redirects=follow_redirects)
    try:
        answer = Fetched(
            url,
            str(response.url),
            response.status_code,
            {name.lower(): value for name, value in response.headers.items()},
            header_lines=tuple(response.headers.multi_items()),
        )
        if read is not None and not read(answer):
            return answer
        declared = answer.headers.get("content-length", "")
        if max_bytes is not None and declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge(url, max_bytes)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes(chunk_size):
            size += len(chunk)
            if max_bytes is not None and size > max_bytes:
                raise TooLarge(url, max_bytes)
            if into is not None:
                await into(chunk)
            else:
                chunks.append(chunk)
    finally:
        await response.aclose()
    return dataclasses.replace(answer, body=b"".join(chunks))
