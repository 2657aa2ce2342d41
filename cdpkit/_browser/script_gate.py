"""Parser-blocking scripts: giving them up after ``script_timeout`` (the page's
:class:`ScriptGate`), and saying in words what a page that shows nothing yet waits on
(:class:`Stall`, read by the snapshots).

:mod:`cdpkit._browser.navigation` holds the gate during a navigation and records the stall.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import ipaddress
import json
import socket
import time
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import cdp
from .._core.secrets import get_logger
from ..errors import CDPError
from . import own_requests
from .lifecycle import blocks_parser, send_retrying

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx

    from ..page import Page
    from .settings import Proxy

log = get_logger("cdpkit")


# -- pages that render nothing: why, in words ----------------------------------------------------


@dataclass(slots=True)
class Stall:
    """What a page that had rendered nothing when its navigation returned waits on (kept
    on the page as ``page._stall`` until it renders or navigates, for the snapshots)."""

    scripts: tuple[tuple[str, float], ...]  # (URL, when it was sent: monotonic)
    script_timeout: float | None  # when they are given up, if they are
    origin: float | None = None  # the document's performance.timeOrigin


# Whether the document shows anything (text or a visible replaced element or control),
# its identity, and which of the given script URLs have finished loading.
_RENDER_STATE_JS = """((urls) => {
  const body = document.body;
  const shown = !!body && (body.innerText.trim().length > 0 || !!body.querySelector(
    'img,svg,video,canvas,iframe,embed,object,input,button,select,textarea'));
  const done = new Set(performance.getEntriesByType('resource').map((entry) => entry.name));
  return [shown, performance.timeOrigin, urls.filter((url) => !done.has(url))];
})(%s)"""


def forget_stall(page: Page) -> None:
    """Drop what the page's document waited on: a new one is coming."""
    page._stall = None


async def stall_words(page: Page) -> str:
    """``"nothing rendered yet: the parser waits on <script src=URL> for N s"`` while the
    page's document has rendered nothing since its navigation said so; ``""`` once it has
    (the record is then dropped), or when there is no such record."""
    stall = page._stall
    if stall is None:
        return ""
    urls = [url for url, _ in stall.scripts]
    reply = await send_retrying(
        page, "Runtime.evaluate", {"expression": _RENDER_STATE_JS % json.dumps(urls), "returnByValue": True}
    )
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 3:
        return ""
    shown, origin, waiting = value
    if stall.origin is None:
        stall.origin = origin
    if shown or origin != stall.origin:
        page._stall = None
        return ""
    now = time.monotonic()
    scripts = [(url, sent) for url, sent in stall.scripts if url in waiting]
    if not scripts:
        return "nothing rendered yet: the page is still loading"
    waits = ", ".join(f"<script src={url}> for {now - sent:.0f} s" for url, sent in scripts)
    words = f"nothing rendered yet: the parser waits on {waits}"
    if stall.script_timeout is not None:
        return f"{words} (each is given up after {stall.script_timeout:g} s: script_timeout)"
    return f"{words} (it renders once they load; a script_timeout gives such scripts up)"


# -- giving up parser-blocking scripts (script_timeout) ------------------------------------------

# Pauses every script request before it is sent (the gate then decides).
_SCRIPTS = cdp.fetch.RequestPattern(url_pattern="*", resource_type="Script", request_stage="Request")
_SORT_WAIT = 1.0  # at most this for a paused script's requestWillBeSent
_CONNECTIONS_PER_HOST = 6  # as Chrome opens at most (HTTP/1.1)
_NO_ADDRESS = -1  # the address space of a host that does not resolve or cannot be reached
# Said by the answer of its encoded body or its connection: the body fulfilled is decoded.
_DROPPED_HEADERS = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
)
# Of a paused request's headers, those the client sets itself (the connection, the encodings
# it decodes) or must not pass on (the proxy's credentials: the client answers its proxy
# itself, and through a tunnel they would reach the site).
_NOT_FORWARDED = frozenset({
    "accept-encoding", "connection", "content-length", "host", "keep-alive",
    "proxy-authorization", "proxy-connection", "transfer-encoding",
})  # fmt: skip
# Sec-Fetch-Site, nearest first: a redirect chain says its farthest hop; "" is not known
# without the public suffix list (cdn.example.com from www.example.com): not sent.
_SITES = ("same-origin", "same-site", "", "cross-site")
_UNKNOWN_SITE, _CROSS_SITE = 2, 3
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(slots=True)
class _Script:
    """A script request of the page, seen while the gate is held (by its network id)."""

    blocks_parser: bool
    document_url: str  # of the document that asked for it: its initiator's origin
    space: int  # that document's IP address space (see _space)
    url: str = ""  # as the page asked for it (set at its first pause)
    deadline: float = 0.0  # when it is given up (monotonic), counted from its first pause
    site: int = 0  # the farthest Sec-Fetch-Site of its hops so far (an index in _SITES)


class ScriptGate:
    """Gives up the page's parser-blocking scripts that have not loaded after
    ``timeout`` seconds (``page._script_gate``, made on first use).

    A request cannot be failed once it is sent (Chrome refuses ``Fetch.failRequest`` for a
    request continued and waiting for its response), so while the gate is held, script
    requests pause before they are sent (``Fetch``, through :meth:`Page.fetch_enable`, so
    the patterns of the page's proxy credentials and of other tools combine): the others
    are continued at once. Each hop of a parser-blocking one (its CORS preflight, each
    redirect) is sent by cdpkit's own client (:mod:`cdpkit._browser.own_requests`: the
    page's proxy, the caller's URL check) as the page would send it: its method, URL and
    the headers Chrome paused it with (user agent, extra headers, Referer, Origin, the
    cookies Chrome would send), and the paused request is fulfilled with the answer's
    status, headers and body (Chrome checks CORS, stores cookies, follows a redirect:
    its next hop pauses again), or failed as ``TimedOut`` once ``timeout`` has passed
    since the script's first pause (the parser moves on as if it had failed to load).
    A hop cdpkit may not send (the caller's URL check refuses it) or Chrome might refuse
    (a more private address than the page's: Local Network Access; not http(s)) is
    continued instead: Chrome decides, as without the gate, and it is not given up.
    Without a ``script_timeout`` nothing of this runs: no ``Fetch`` at all.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.timeout: float | None = None  # while held
        self.given_up_urls: list[str] = []
        self._users = 0
        self._scripts: dict[str, _Script] = {}  # by network id
        self._preflights: dict[str, str] = {}  # network id of a CORS preflight -> its request's
        self._spaces: dict[str, int] = {}  # loader id of a document -> its address space
        self._unsorted: dict[str, dict[str, Any]] = {}  # paused before its requestWillBeSent
        self._answering: set[asyncio.Task[None]] = set()
        self._network: contextlib.AsyncExitStack | None = None
        self._winding: asyncio.Future[None] | None = None
        self._refusal: own_requests.Refusal | None = None  # the holders' URL check
        # One client while held: the scripts of a load share its connections (kept alive,
        # as Chrome keeps its own), and it is made once, not once a script.
        self._client: httpx.AsyncClient | None = None
        # At most Chrome's six connections to a host at once (a server listening with a
        # short backlog, as Python's http.server does, drops more and they wait 1 s).
        self._per_host: collections.defaultdict[str, asyncio.Semaphore] = collections.defaultdict(
            lambda: asyncio.Semaphore(_CONNECTIONS_PER_HOST)
        )
        # Each host's address space, looked up once a load; _NO_ADDRESS for a host it
        # could not reach (no name, no route): its next scripts fail at once, as Chrome's
        # host cache fails a name it could not resolve, instead of waiting out the same
        # lookup again (seconds on a network that drops them).
        self._host_spaces: dict[str, int] = {}
        # Chrome adds Accept-Language after the pause unless the page's identity sets it:
        # as it sent it with the page's last navigation.
        self._accept_language: str | None = None
        page._on("Network.requestWillBeSent", self._request_sent)
        page._on("Network.requestWillBeSentExtraInfo", self._headers_sent)
        page._on("Network.responseReceived", self._response_received)
        page._on("Fetch.requestPaused", self._request_paused)

    @property
    def held(self) -> bool:
        return self.timeout is not None

    def in_page_order(self, urls: list[str]) -> tuple[str, ...]:
        """``urls`` (of given-up scripts) in the order the page asked for them: scripts
        that run out of time together are listed as the page lists them."""
        asked = {script.url: n for n, script in enumerate(self._scripts.values()) if script.url}
        return tuple(sorted(urls, key=lambda url: asked.get(url, len(asked))))

    def patterns(self) -> list[cdp.fetch.RequestPattern]:
        """What the gate needs paused while held (:meth:`Page.fetch_enable` adds it)."""
        return [_SCRIPTS] if self.held else []

    def takes(self, params: dict[str, Any]) -> bool:
        """Whether a ``Fetch.requestPaused`` is the gate's to answer."""
        return (
            self.held
            and params.get("resourceType") == "Script"
            and "responseStatusCode" not in params
            and "responseErrorReason" not in params
        )

    async def hold(self, timeout: float) -> None:
        self._users += 1
        # Bound to the calling task (the MCP session's URL policy): checked here, as the
        # gate's requests are made from the connection's reader.
        refusal = own_requests.current_refusal()
        if self._winding is not None:  # the last holder's Fetch is being let go
            await asyncio.shield(self._winding)
        if self.timeout is not None and self._network is not None:
            self.timeout = min(self.timeout, timeout)  # the strictest holder wins
            self._refusal = _either(self._refusal, refusal)
            return
        self.timeout = timeout
        self._refusal = refusal
        network = contextlib.AsyncExitStack()
        # Which requests block the parser comes with Network.requestWillBeSent, sent
        # before the request pauses.
        await network.enter_async_context(self.page.enabled("Network"))
        self._network = network
        await self.page.send(self.page.fetch_enable())

    def release(self) -> None:
        """One holder less; the last one's release lets the scripts being waited for end
        (each within the timeout) before ``Fetch`` is let go."""
        self._users -= 1
        if self._users == 0:
            self.page.browser._background(self._wind_down())

    async def _wind_down(self) -> None:
        while self._answering:
            await asyncio.wait(set(self._answering))
        if self._users or self._network is None:
            return  # held again meanwhile
        network, self._network = self._network, None
        client, self._client = self._client, None
        self._per_host.clear()
        self._host_spaces.clear()
        if client is not None:
            await client.aclose()
        self.timeout = None
        self._refusal = None
        self._scripts.clear()
        self._preflights.clear()
        self._spaces.clear()
        self._winding = winding = asyncio.get_running_loop().create_future()
        try:
            await self.page.fetch_release()
            if not self.page.closed:
                with contextlib.suppress(CDPError):
                    await network.aclose()
        finally:
            self._winding = None
            winding.set_result(None)

    def _request_sent(self, params: dict[str, Any]) -> None:
        if not self.held:
            return
        network_id = str(params.get("requestId"))
        initiator = params.get("initiator") or {}
        if initiator.get("type") == "preflight":  # sent before its request's own event
            self._preflights[network_id] = str(initiator.get("requestId"))
        elif params.get("type") == "Script" and network_id not in self._scripts:  # not a redirect
            space = self._spaces.get(str(params.get("loaderId")), 0)  # unknown: public
            self._scripts[network_id] = _Script(blocks_parser(params), str(params.get("documentURL") or ""), space)
        else:
            return
        for waiting in [key for key in self._unsorted if self._script_of(key) is not None]:
            self._answer(self._unsorted.pop(waiting))

    def _headers_sent(self, params: dict[str, Any]) -> None:
        headers = {str(name).lower(): str(value) for name, value in (params.get("headers") or {}).items()}
        # A navigation's: a page can set a fetch()'s Accept-Language, never a navigation's.
        if headers.get("sec-fetch-mode") == "navigate" and "accept-language" in headers:
            self._accept_language = headers["accept-language"]

    def _response_received(self, params: dict[str, Any]) -> None:
        if self.held and params.get("type") == "Document":
            address = str((params.get("response") or {}).get("remoteIPAddress") or "")
            self._spaces[str(params.get("loaderId"))] = _space(address)

    def _script_of(self, network_id: str) -> _Script | None:
        return self._scripts.get(self._preflights.get(network_id, network_id))

    def _request_paused(self, params: dict[str, Any]) -> None:
        if not self.takes(params):
            return
        network_id = str(params.get("networkId"))
        if self._script_of(network_id) is not None:
            self._answer(params)
            return
        # Its Network.requestWillBeSent (which says whether it blocks the parser) usually
        # came first, but not always: it is waited for, a moment at most.
        self._unsorted[network_id] = params
        asyncio.get_running_loop().call_later(_SORT_WAIT, self._unsorted_for_long, network_id)

    def _unsorted_for_long(self, network_id: str) -> None:
        paused = self._unsorted.pop(network_id, None)
        if paused is not None:
            self._continue(paused)

    def _continue(self, params: dict[str, Any]) -> None:
        request_id = cdp.fetch.RequestId(str(params["requestId"]))
        self.page.browser._background(self.page._quietly(cdp.fetch.continue_request(request_id)))

    def _answer(self, params: dict[str, Any]) -> None:
        script = self._script_of(str(params.get("networkId")))
        if script is None or not script.blocks_parser:
            self._continue(params)
            return
        if not script.url:  # its first hop: the time it has starts now
            script.url = str(params["request"]["url"])
            script.deadline = time.monotonic() + (self.timeout or 0)
        task = asyncio.ensure_future(self._fetch_or_give_up(params, script))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _fetch_or_give_up(self, params: dict[str, Any], script: _Script) -> None:
        page = self.page
        request_id = cdp.fetch.RequestId(str(params["requestId"]))
        try:
            client = self._client = self._client or _client_keeping_no_cookies(page)
        except ValueError as exc:  # a SOCKS proxy without httpx's SOCKS support
            log.warning("script_timeout cannot fetch %s (%s): the page loads it itself", script.url, exc)
            self._continue(params)
            return
        remaining = script.deadline - time.monotonic()
        fetching = asyncio.ensure_future(self._fetch(client, params["request"], script, remaining))
        try:
            done, _ = await asyncio.wait({fetching}, timeout=max(remaining, 0.0))
            if not done:
                self.given_up_urls.append(script.url)
                await page.send(cdp.fetch.fail_request(request_id, "TimedOut"))
                return
            try:
                answer = fetching.result()
            except Exception:  # never left paused: the parser would wait on it for good
                log.exception("script_timeout could not fetch %s", script.url)
                answer = "Failed"
            if answer is None:  # Chrome's own rules decide: it sends it (not given up)
                self._continue(params)
                return
            if isinstance(answer, str):  # it failed to load: so it does for the page
                await page.send(cdp.fetch.fail_request(request_id, cdp.network.ErrorReason(answer)))
                return
            await page.call("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": answer.status,
                "responseHeaders": [
                    {"name": name, "value": value}
                    for name, value in answer.header_lines if name.lower() not in _DROPPED_HEADERS
                ],
                "body": base64.b64encode(answer.body).decode(),
            })  # fmt: skip
        except CDPError:
            pass  # the request or the page is gone
        finally:
            if not fetching.done():  # given up, or the gate's task cancelled: its connection closes
                fetching.cancel()
                await asyncio.gather(fetching, return_exceptions=True)

    async def _fetch(
        self, client: httpx.AsyncClient, request: dict[str, Any], script: _Script, remaining: float
    ) -> own_requests.Fetched | str | None:
        """One hop of the script, sent as the page would send it (not following a
        redirect: Chrome does), or the ``Fetch`` error reason it fails with; ``None``
        when cdpkit may not send it (the caller's URL check refuses it) or Chrome may
        refuse to (a more private address than the page's: Local Network Access), so
        Chrome decides, as without the gate. A host that cannot be reached (no name, no
        route) fails the script at once: the page's parser moves on."""
        import httpx

        url = str(request["url"])
        parts = urllib.parse.urlsplit(url)
        host = f"{parts.scheme}://{parts.netloc}"
        space = self._host_spaces.get(host)
        if space is None:
            space = await _address_space(url)
            if space == _NO_ADDRESS and _proxy_of(self.page) is not None:
                space = 0  # the proxy resolves it
            self._host_spaces[host] = space
        if space == _NO_ADDRESS:
            return "Failed"
        if space > script.space:
            return None
        try:
            async with self._per_host[host]:
                with own_requests.checked_by(self._refusal):
                    return await own_requests.fetch(
                        client, url, max(remaining, 1.0), method=str(request.get("method") or "GET"),
                        headers=self._headers(request, script), follow_redirects=False,
                    )  # fmt: skip
        except own_requests.UnsafeRedirect:  # to data:, file:...: Chrome refuses it too
            return "Failed"
        except own_requests.RequestRefused:  # nothing was sent
            return None
        except httpx.ConnectError:
            self._host_spaces[host] = _NO_ADDRESS
            return "Failed"
        except httpx.HTTPError:
            return "Failed"

    def _headers(self, request: dict[str, Any], script: _Script) -> dict[str, str]:
        """The headers of the page's request as Chrome sends it: those it paused with
        (identity, Referer, Origin, cookies), and those it adds after the pause."""
        headers = {
            str(name): str(value)
            for name, value in (request.get("headers") or {}).items()
            if str(name).lower() not in _NOT_FORWARDED
        }
        has = {name.lower(): value for name, value in headers.items()}
        origin = has.get("origin", "")
        initiator = origin if origin not in ("", "null") else script.document_url
        script.site = max(script.site, _site(initiator, str(request["url"])))
        added = {
            "User-Agent": self.page.browser.version.user_agent,
            "Accept-Language": self._accept_language,
            "Sec-Fetch-Site": _SITES[script.site] or None,
            "Sec-Fetch-Mode": "cors" if origin or request.get("method") == "OPTIONS" else "no-cors",
            "Sec-Fetch-Dest": "script",
        }
        headers.update({name: value for name, value in added.items() if value and name.lower() not in has})
        return headers


def _site(initiator: str, url: str) -> int:
    """Where ``url`` is from the document at ``initiator``, as ``Sec-Fetch-Site`` says it
    (an index in :data:`_SITES`)."""
    ours, theirs = urllib.parse.urlsplit(initiator), urllib.parse.urlsplit(url)
    if ours.scheme not in ("http", "https"):
        return _UNKNOWN_SITE  # about:srcdoc, a data: document...
    if ours.scheme != theirs.scheme:
        return _CROSS_SITE
    host, other = (ours.hostname or "").rstrip("."), (theirs.hostname or "").rstrip(".")
    try:
        same_port = (ours.port or _DEFAULT_PORTS[ours.scheme]) == (theirs.port or _DEFAULT_PORTS[theirs.scheme])
    except ValueError:
        return _UNKNOWN_SITE
    if host == other:
        return 0 if same_port else 1
    if _is_address(host) or _is_address(other) or host.split(".")[-2:] != other.split(".")[-2:]:
        return _CROSS_SITE  # different registrable domains, whatever the public suffixes
    return _UNKNOWN_SITE


def _space(address: str) -> int:
    """The IP address space of ``address``, as Chrome's Local Network Access ranks them:
    0 public (or not an address), 1 local (private, link-local), 2 loopback."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return 0
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return 2
    return 0 if ip.is_global else 1


async def _address_space(url: str) -> int:
    """The most private address space ``url``'s host reaches (resolved here;
    :data:`_NO_ADDRESS` for a name that does not resolve here); 3 for a URL that is not
    http(s), which only Chrome loads."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").rstrip(".").lower()
    if parts.scheme not in ("http", "https"):
        return 3
    if host == "localhost" or host.endswith(".localhost"):
        return 2
    if _is_address(host):
        return _space(host)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return _NO_ADDRESS
    return max((_space(str(info[4][0])) for info in found), default=_NO_ADDRESS)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _either(first: own_requests.Refusal | None, second: own_requests.Refusal | None) -> own_requests.Refusal | None:
    """A URL check refusing what either refuses."""
    if first is None or second is None or first is second:
        return first or second
    return lambda url: first(url) or second(url)


def _client_keeping_no_cookies(page: Page) -> httpx.AsyncClient:
    """cdpkit's client for the page's proxy, with a cookie jar that keeps nothing: each
    request carries only the cookies Chrome paused it with, and what a response sets
    reaches Chrome alone (in the fulfilled headers), never a later request of the gate."""
    import http.cookiejar

    import httpx

    client = own_requests.client(_proxy_of(page))
    client.cookies = httpx.Cookies(
        http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    )
    return client


def _proxy_of(page: Page) -> Proxy | None:
    """The proxy the page's requests go through (its context's, else the browser's), as
    :func:`cdpkit.tools._fetching.page_proxy` reads it."""
    settings = (page.context.settings if page.context is not None else None) or page.browser.settings
    return settings.proxy if settings is not None else None


class _NoGate:
    """The gate of a navigation without ``script_timeout``: nothing is given up."""

    timeout = None

    def given_up(self) -> tuple[str, ...]:
        return ()


class _HeldGate:
    """A navigation's hold on the page's :class:`ScriptGate`."""

    def __init__(self, gate: ScriptGate) -> None:
        self.gate = gate
        self.timeout = gate.timeout
        self._first = len(gate.given_up_urls)

    def given_up(self) -> tuple[str, ...]:
        """The scripts given up since the navigation started."""
        return self.gate.in_page_order(self.gate.given_up_urls[self._first :])


NavigationGate = _NoGate | _HeldGate


@contextlib.asynccontextmanager
async def giving_up_scripts(page: Page, script_timeout: float | None) -> AsyncIterator[NavigationGate]:
    """Give up the page's parser-blocking scripts after ``script_timeout`` seconds during
    the block (and for the scripts it started, until they end); nothing when ``None``."""
    if script_timeout is None:
        yield _NoGate()
        return
    gate = page._script_gate
    if gate is None:
        gate = page._script_gate = ScriptGate(page)
    try:
        await gate.hold(script_timeout)
        yield _HeldGate(gate)
    finally:
        gate.release()
