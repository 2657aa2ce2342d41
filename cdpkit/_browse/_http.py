"""Tier 1: fetching over HTTP, no browser, with cdpkit's own client
(:mod:`cdpkit._browser.own_requests`: the proxy, each hop checked). One client per session (its
cookie jar is the session's), an honest user agent, redirects and retries as configured,
every failure as a :class:`BrowseError` of the ``network`` family; and ``robots.txt``.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.parse
import urllib.robotparser
from collections.abc import Callable, Mapping

import httpx

from .._browser import own_requests
from .._browser.config import EngineConfig
from .._browser.page_setup import request_headers
from .._browser.settings import BrowserSettings, Proxy
from ._result import BrowseError

__all__ = ["MAX_BODY_BYTES", "Fetched", "RobotsCache", "fetch", "make_client", "network_error", "robots_token", "user_agent"]

MAX_BODY_BYTES = 64 * 1024 * 1024  # larger resources are for `cdpkit download`
ROBOTS_TOKEN = "cdpkit"  # the product token robots.txt groups are matched against
_ROBOTS_TIMEOUT = 5.0  # for the whole file, as the page's timeout is for the whole page
# Google reads the first 500 KiB of a robots.txt and ignores the rest; RFC 9309 asks
# crawlers to parse at least that much.
MAX_ROBOTS_BYTES = 500 * 1024


def user_agent() -> str:
    """cdpkit's own user agent: who fetches, and with what (``cdpkit/0.1.0 (+...)
    python-httpx/0.28``)."""
    from .. import __version__

    return f"{ROBOTS_TOKEN}/{__version__} (+https://pypi.org/project/cdpkit/) python-httpx/{httpx.__version__}"


Fetched = own_requests.Fetched
"""A tier-1 response: where it ended, its status and headers, and the body (the answer of
every request cdpkit makes itself)."""


def make_client(config: EngineConfig, settings: BrowserSettings | None = None) -> httpx.AsyncClient:
    """A client for one session (``client.cookies`` is its jar): cdpkit's own client
    (:func:`cdpkit._browser.own_requests.client`: the proxy, each hop checked) with the identity of
    ``settings`` (the session's: its user agent already picked from a rotation), else
    cdpkit's honest one; the language (the settings', else ``[network] accept_language``),
    extra headers, ``DNT``, the redirect limit and connection retries.

    Raises:
        ValueError: A SOCKS proxy without httpx's SOCKS support installed.
    """
    identity = request_headers(
        settings, user_agent=user_agent(), accept_language=config.network.accept_language
    )
    headers = {
        "User-Agent": identity.pop("User-Agent"),
        "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        **identity,
    }
    proxy: Proxy | None = settings.proxy if settings is not None else None
    return own_requests.client(
        proxy, headers=headers, retries=config.network.retries, max_redirects=config.network.max_redirects
    )


def robots_token(agent: str | None) -> str:
    """The product token robots.txt groups are matched against: the user agent's first
    product (``Mozilla/5.0 (...)`` -> ``Mozilla``), cdpkit's own without one."""
    if not agent:
        return ROBOTS_TOKEN
    token = agent.strip().split("/", 1)[0].split(" ", 1)[0]
    return token or ROBOTS_TOKEN


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    timeout: float,
    *,
    max_bytes: int = MAX_BODY_BYTES,
    headers: Mapping[str, str] | None = None,
    accept: Callable[[str], str | None] | None = None,
) -> Fetched:
    """GET ``url`` within ``timeout`` seconds (connecting, redirects and body together).

    Args:
        max_bytes: The largest body read.
        headers: More request headers (a ``Referer``).
        accept: Given a successful response's MIME type, why its body is not wanted
            (``None``: it is): the body is then not read.

    Raises:
        BrowseError: ``network.*`` when it could not be fetched (``dns``, ``refused``,
            ``timeout``, ``tls``, ``reset``, ``redirects``, ``proxy``), ``processing.too_large``
            for a body over ``max_bytes`` (64 MiB), ``processing.type`` for a type
            ``accept`` refuses.
    """
    def wanted(answer: Fetched) -> bool:
        refused = accept(answer.mime_type) if accept is not None and answer.status < 400 else None
        if refused is not None:
            raise BrowseError(url, "processing.type", refused, recoverable=False)
        return True

    try:
        async with asyncio.timeout(timeout):
            return await own_requests.fetch(
                client, url, timeout, headers=headers, max_bytes=max_bytes, read=wanted
            )
    except TimeoutError:
        raise network_error(url, "network.timeout", timeout=timeout) from None
    except httpx.HTTPError as exc:
        raise _from_httpx(url, exc, timeout) from None
    except own_requests.TooLarge:
        raise _too_large(url, max_bytes) from None
    except own_requests.UnsafeRedirect as exc:
        raise BrowseError(url, "network.redirect",
                          f"it redirects to a {exc.scheme}: URL, which cdpkit does not follow (only "
                          "http and https; browsers refuse it too: net::ERR_UNSAFE_REDIRECT)",
                          recoverable=False, suggestion="the page cannot be fetched: its server sends "
                          "visitors elsewhere than to a web page") from None
    except own_requests.RequestRefused as exc:
        how = "is" if exc.url == url else f"was redirected to {exc.url}, which is"
        raise BrowseError(url, "network.blocked", f"it {how} blocked: {exc.reason}; nothing was requested from there",
                          recoverable=False, suggestion="browse an allowed URL") from None


def _too_large(url: str, max_bytes: int) -> BrowseError:
    return BrowseError(
        url,
        "processing.too_large",
        f"the resource is over {max_bytes // (1024 * 1024)} MiB",
        recoverable=False,
        suggestion="use cdpkit download to save it",
    )


def network_error(url: str, code: str, *, detail: str = "", timeout: float = 0.0) -> BrowseError:
    """The :class:`BrowseError` for a network failure of this code, with its advice."""
    host = urllib.parse.urlsplit(url).netloc or url
    words = {
        "network.dns": (f"the host name {host} could not be resolved", False, "check the URL's host name"),
        "network.refused": (f"{host} refused the connection", True, "is the server running on that port?"),
        "network.timeout": (
            f"no complete answer within {timeout:g} s",
            True,
            "raise timeout= (or --timeout) if the site is just slow",
        ),
        "network.tls": (f"the TLS connection to {host} failed", False, "check the certificate, or use http://"),
        "network.reset": (f"{host} closed the connection", True, "try again"),
        "network.redirects": ("too many redirects", False, "raise [network] max_redirects in the config"),
        "network.proxy": (
            "the proxy refused to forward the request",
            False,
            "check the proxy's address and credentials (--proxy, [browser] proxy)",
        ),
    }
    message, recoverable, suggestion = words.get(code, ("the request failed", True, "try again"))
    if detail:
        message = f"{message} ({detail})"
    return BrowseError(url, code, message, recoverable=recoverable, suggestion=suggestion)


def http_error(url: str, status: int, *, challenge: bool = False) -> BrowseError:
    """The :class:`BrowseError` ``http.<status>`` for an error status, with its advice."""
    if challenge:
        return BrowseError(
            url, f"http.{status}", f"HTTP {status}: the site shows a bot challenge that was not passed",
            recoverable=True, suggestion="allow the browser tiers (max_tier=3), or try again later",
            status=status,
        )  # fmt: skip
    advice: dict[int, tuple[str, bool, str]] = {
        401: ("needs authentication", False, "log in within a session (session=...) first"),
        403: ("access is forbidden", False, "log in within a session first, or the site refuses automated clients"),
        404: ("not found", False, "check the URL"),
        407: ("the proxy did not accept the credentials", False,
              "check the proxy's username and password (--proxy, [browser] proxy)"),
        410: ("gone: removed for good", False, "look for the content elsewhere"),
        429: ("too many requests", True, "wait a while before trying again"),
    }
    what, recoverable, suggestion = advice.get(
        status,
        ("the server failed", True, "try again later")
        if status >= 500
        else ("the server refused the request", False, "check the URL"),
    )
    return BrowseError(
        url, f"http.{status}", f"HTTP {status}: {what}", recoverable=recoverable, suggestion=suggestion, status=status
    )


def _from_httpx(url: str, exc: httpx.HTTPError, timeout: float) -> BrowseError:
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if isinstance(exc, httpx.TimeoutException):
        return network_error(url, "network.timeout", timeout=timeout)
    if isinstance(exc, httpx.ProxyError):  # httpx's words name the proxy's answer, not its password
        return network_error(url, "network.proxy", detail=text)
    if isinstance(exc, httpx.TooManyRedirects):
        return network_error(url, "network.redirects", detail=text)
    if isinstance(exc, httpx.DecodingError):
        return BrowseError(url, "processing.encoding", f"the response body could not be decoded ({text})",
                           recoverable=False, suggestion="the server sent a broken compressed body")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return BrowseError(url, "network.url", f"not a URL cdpkit can fetch ({text})", recoverable=False,
                           suggestion="give an http:// or https:// URL")
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered:
        return network_error(url, "network.tls", detail=text)
    if isinstance(exc, httpx.ConnectError):
        if any(word in lowered for word in ("name or service", "nodename", "getaddrinfo", "name resolution",
                                             "no address associated")):
            return network_error(url, "network.dns", detail=text)
        if "refused" in lowered or "errno 111" in lowered:
            return network_error(url, "network.refused")
        return network_error(url, "network.refused", detail=text)
    return network_error(url, "network.reset", detail=text)


class RobotsCache:
    """``robots.txt`` of each origin, fetched once per engine, checked for the user
    agent's product token (then ``*``)."""

    def __init__(self) -> None:
        self._parsers: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        self._lock = asyncio.Lock()

    async def check(
        self, client: httpx.AsyncClient, url: str, token: str = ROBOTS_TOKEN, timeout: float = _ROBOTS_TIMEOUT
    ) -> None:
        """Raise when ``robots.txt`` disallows ``url`` for ``token`` (the user agent's
        product token, see :func:`robots_token`). A missing or unreadable ``robots.txt``
        allows everything. It is read within 5 s (or ``timeout``, when shorter), its
        first 500 KiB only, as Google does: an endless one costs neither time nor memory.

        Raises:
            BrowseError: ``http.robots``, naming the rule (not recoverable).
        """
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return
        origin = f"{parts.scheme}://{parts.netloc}"
        async with self._lock:
            if origin not in self._parsers:
                budget = min(_ROBOTS_TIMEOUT, timeout)
                try:
                    self._parsers[origin] = await _read_robots(client, origin, budget)
                except TimeoutError:
                    # Unreadable in time: allows everything; asked again next time only
                    # if it was the caller's shorter budget that ran out.
                    if budget >= _ROBOTS_TIMEOUT:
                        self._parsers[origin] = None
        parser = self._parsers.get(origin)
        if parser is None or parser.can_fetch(token, url):
            return
        rule = _matching_rule(parser, url, token)
        raise BrowseError(
            url,
            "http.robots",
            f"{origin}/robots.txt disallows it for {token} ({rule})",
            recoverable=False,
            suggestion="to fetch it anyway: respect_robots_txt=False (CLI: drop --respect-robots; config: [privacy] respect_robots_txt = false)",
        )


async def _read_robots(
    client: httpx.AsyncClient, origin: str, timeout: float
) -> urllib.robotparser.RobotFileParser | None:
    """The parsed ``robots.txt`` of ``origin`` (its first :data:`MAX_ROBOTS_BYTES`),
    ``None`` when there is none to obey.

    Raises:
        TimeoutError: Not read within ``timeout`` seconds (connecting, redirects, body).
    """
    url = f"{origin}/robots.txt"
    body = bytearray()
    cut = False
    try:
        async with asyncio.timeout(timeout):
            async with client.stream("GET", url, timeout=httpx.Timeout(timeout)) as response:
                if response.status_code >= 400:
                    return None
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_ROBOTS_BYTES:
                        cut = True
                        break
    except (httpx.HTTPError, own_requests.RequestRefused):  # refused: never requested
        return None
    lines = body[:MAX_ROBOTS_BYTES].decode("utf-8", errors="replace").splitlines()
    if cut and lines:
        lines.pop()  # the line the limit cut in two
    parser = urllib.robotparser.RobotFileParser(url)
    parser.parse(lines)
    return parser


def _matching_rule(parser: urllib.robotparser.RobotFileParser, url: str, token: str) -> str:
    """The ``Disallow:`` line of the group that applies to ``token``, for the message."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.quote(parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    entries = list(getattr(parser, "entries", []))
    default = getattr(parser, "default_entry", None)
    if default is not None:
        entries.append(default)
    for entry in entries:
        if entry.applies_to(token):
            for line in entry.rulelines:
                if line.applies_to(path):
                    agents = ", ".join(entry.useragents)
                    return f"User-agent: {agents}; {'Allow' if line.allowance else 'Disallow'}: {line.path}"
    return "Disallow"
