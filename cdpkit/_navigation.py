"""The navigation primitive under ``Page``: load a URL and wait for a lifecycle stage,
following the page through renderer swaps.

``Browser.new_page(url=...)`` needs it and sits below the tools, so it lives here;
``cdpkit.tools.navigation`` builds ``navigate``, the history moves and the waits on it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import cdp
from ._model import RawEvent
from .errors import CDPError, NavigationError, ProtocolError, TargetClosedError, WaitTimeoutError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from .page import Page
    from .session import EventStream

WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit", "usable"]

# Page.lifecycleEvent names for each wait_until; "commit" waits for nothing more.
LIFECYCLE_EVENTS = {"load": "load", "domcontentloaded": "DOMContentLoaded", "networkidle": "networkIdle"}

_STATUS_JS = "performance.getEntriesByType('navigation')[0]?.responseStatus ?? null"


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """Where a navigation ended.

    Attributes:
        url: The final URL, after redirects.
        status: The HTTP status of the document (a 404 page is a result, not an error);
            ``None`` for URLs without one (``about:``, ``data:``, same-document moves).
        title: The document's title.
        pending: With ``wait_until="usable"`` when it returned before the load event:
            the URLs of the page's requests still in flight (a tracker that never
            answers, an image still loading...); empty otherwise.
        nothing_rendered: Why the page shows nothing yet, in words, when it returned
            before the page rendered anything (``"nothing rendered yet: the parser waits on
            <script src=URL> for 5 s"``); empty when the page shows something.
        given_up: With ``script_timeout``: the parser-blocking scripts given up during the
            navigation (the page went on as if they had failed to load).
    """

    url: str
    status: int | None
    title: str
    pending: tuple[str, ...] = ()
    nothing_rendered: str = ""
    given_up: tuple[str, ...] = ()


def check_wait_until(wait_until: str) -> None:
    if wait_until not in STAGES:
        raise ValueError(
            f"wait_until must be one of load, domcontentloaded, networkidle, commit, usable; "
            f"got {wait_until!r}"
        )


# What each wait_until waits for, in timeout messages.
STAGES = {
    "load": "its load event",
    "domcontentloaded": "DOMContentLoaded",
    "networkidle": "network idle",
    "commit": "the new document to commit",
    "usable": "DOMContentLoaded",
}

# wait_until="usable": after DOMContentLoaded, the load event or this long without a
# request starting or ending, whichever comes first.
_USABLE_QUIET = 0.5
# ...and before it, once the document committed: this long with requests in flight but
# none starting, ending or receiving data means the parser waits on a script from a host
# that never answers; what it parsed so far is the page.
_PARSE_STALL = 5.0
# How often a stalled-looking navigation asks whether its document committed yet.
_COMMIT_CHECK = 0.5

# Errors Chrome answers while a page swaps renderer processes (a cross-site navigation):
# the page is fine, the command reached the old or not yet ready renderer; asking again
# a moment later works.
_SWAPPING = (
    "Not attached to an active page",
    "Cannot find context with specified id",
    "Execution context was destroyed",
    "Inspected target navigated or closed",
    "Cannot find default execution context",
)
_SWAP_RETRY = 0.05  # seconds between attempts
_SAME_DOCUMENT_WAIT = 2.0  # at most this for a fragment move to be reported
_FRAME_NAVIGATED_WAIT = 0.5  # at most this for frameNavigated after a commit
_STOP_TIMEOUT = 2.0  # for Page.stopLoading after a timeout


def timed_out(what: str, timeout: float, function: str) -> WaitTimeoutError:
    return WaitTimeoutError(
        f"{what}; pass a larger timeout= to {function}() if the page is just slow", timeout
    )


async def page_set_up(page: Page) -> None:
    """Wait until the page's own setup (``Page.enable``, lifecycle events...) is answered.

    Start a navigation only after it. Chrome answers ``Page.navigate`` in the browser
    process, and the page's renderer enables the domains when it gets to it: a tab that
    existed before cdpkit attached (the one a browser starts with) is not paused, so its
    renderer can commit the new document before it enables the ``Page`` domain, and that
    commit is reported by neither ``Page.frameNavigated`` nor a ``commit`` lifecycle event.
    Pages cdpkit opens are already set up: this returns at once for them.
    """
    # Shielded: a navigation that times out must not cancel the page's setup.
    await asyncio.shield(page._ready)


async def load(
    page: Page,
    url: str,
    *,
    wait_until: str = "load",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult:
    """Load ``url`` in ``page`` and wait for ``wait_until``: what ``tools.navigate`` does
    (see it for the arguments and errors), for the core's own use."""
    check_wait_until(wait_until)
    check_script_timeout(script_timeout)
    return await _navigate(page, url, {"url": url}, wait_until, timeout, script_timeout)


def check_script_timeout(script_timeout: float | None) -> None:
    if script_timeout is not None and not script_timeout > 0:
        raise ValueError(f"script_timeout must be a positive number of seconds, got {script_timeout!r}")


async def _navigate(
    page: Page,
    url: str,
    params: dict[str, Any],
    wait_until: str,
    timeout: float,
    script_timeout: float | None,
) -> NavigationResult:
    lifecycle = LIFECYCLE_EVENTS.get(wait_until)
    answered = False
    requests = InFlight()
    forget_stall(page)  # a new document: what the old one waited on is moot
    try:
        async with asyncio.timeout(timeout), page.listen(
            "Page.lifecycleEvent",
            "Page.frameNavigated",
            "Page.navigatedWithinDocument",
            raw=True,
        ) as events, requests.following(page, wait_until == "usable"), giving_up_scripts(
            page, script_timeout
        ) as gate:
            await page_set_up(page)
            try:
                result = await page.call("Page.navigate", params, timeout=timeout)
            except ProtocolError as exc:
                if "invalid URL" in exc.message:
                    raise NavigationError(url, "net::ERR_INVALID_URL") from None
                raise
            answered = True
            error_text = result.get("errorText")
            if error_text:
                raise NavigationError(url, error_text)
            frame_id = str(result.get("frameId") or page.target_id)
            loader_id = result.get("loaderId")
            if loader_id is None:  # a same-document move: #fragment
                landed = await _wait_same_document(events, frame_id)
                return await current_result(page, url=landed)
            if wait_until == "usable":
                loaded = await wait_usable(page, events, frame_id, loader_id, requests)
                return await usable_result(page, None, loaded, requests, gate)
            if lifecycle is None:
                committed = await _wait_commit(events, frame_id, loader_id)
                return await current_result(page, url=committed)
            # By the lifecycle event the history has the new entry: it gives the URL.
            await _wait_lifecycle(events, frame_id, loader_id, lifecycle)
            return with_given_up(await current_result(page), gate)
    except TimeoutError:
        if not answered:
            # No response yet: stop it, or it would abort the next navigation to the
            # same URL (net::ERR_ABORTED at once) and could still replace the page later.
            with contextlib.suppress(CDPError):
                await page.call("Page.stopLoading", timeout=_STOP_TIMEOUT)
        raise timed_out(
            f"the navigation to {url} to reach {STAGES[wait_until]}", timeout, "navigate"
        ) from None


def with_given_up(result: NavigationResult, gate: NavigationGate) -> NavigationResult:
    given_up = gate.given_up()
    return dataclasses.replace(result, given_up=given_up) if given_up else result


async def usable_result(
    page: Page, url: str | None, loaded: bool, requests: InFlight, gate: NavigationGate
) -> NavigationResult:
    """The result of a ``wait_until="usable"`` navigation: where it landed, what is still
    loading, and, when the page shows nothing yet, why (remembered for the snapshots)."""
    landed_at = await current_result(page, url=url)
    given_up = gate.given_up()
    if loaded:
        return dataclasses.replace(landed_at, given_up=given_up)
    page._stall = Stall(requests.blocking(), gate.timeout)
    return dataclasses.replace(
        landed_at, pending=requests.urls(), nothing_rendered=await stall_words(page), given_up=given_up
    )


async def _wait_same_document(events: EventStream[RawEvent], frame_id: str) -> str | None:
    """The URL the frame moved to within its document, or ``None`` if Chrome did not say
    so in time (the history then tells)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_SAME_DOCUMENT_WAIT):
            async for event in events:
                params = event.params
                if (
                    event.method == "Page.navigatedWithinDocument"
                    and params.get("frameId") == frame_id
                ):
                    return str(params.get("url", "")) or None
    return None


def _navigated_url(event: RawEvent, frame_id: str, loader_id: str) -> str | None:
    """The URL of ``event`` if it is the ``Page.frameNavigated`` of that document."""
    if event.method != "Page.frameNavigated":
        return None
    frame = event.params.get("frame", {})
    if frame.get("id") != frame_id or frame.get("loaderId") != loader_id:
        return None
    return str(frame.get("url", "")) + str(frame.get("urlFragment", ""))


async def _wait_commit(
    events: EventStream[RawEvent], frame_id: str, loader_id: str
) -> str | None:
    """Wait until the frame's new document (``loader_id``) is committed: its URL from
    ``Page.frameNavigated``, or ``None`` when Chrome reported the commit only as a
    lifecycle event (the first navigation of a new tab sends no ``frameNavigated``)."""
    async for event in events:
        url = _navigated_url(event, frame_id, loader_id)
        if url is not None:
            return url
        params = event.params
        if (
            event.method == "Page.lifecycleEvent"
            and params.get("name") == "commit"
            and params.get("frameId") == frame_id
            and params.get("loaderId") == loader_id
        ):
            break
    else:
        raise TargetClosedError("The page closed during the navigation")
    # Committed. A frameNavigated, when Chrome sends one, follows at once, and its URL is
    # surer than the history's, which may lag behind the renderer.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_FRAME_NAVIGATED_WAIT):
            async for event in events:
                url = _navigated_url(event, frame_id, loader_id)
                if url is not None:
                    return url
    return None


async def _wait_lifecycle(
    events: EventStream[RawEvent], frame_id: str, loader_id: str, name: str
) -> None:
    async for event in events:
        params = event.params
        if (
            params.get("name") == name
            and params.get("loaderId") == loader_id
            and params.get("frameId") == frame_id
        ):
            return
    raise TargetClosedError("The page closed during the navigation")


class InFlight:
    """The page's requests in flight (id -> URL) and when one last started or ended."""

    def __init__(self) -> None:
        self.requests: dict[str, str] = {}
        self.last_change = time.monotonic()
        self.last_data = self.last_change  # ...or received data
        self.parser_blocking: dict[str, float] = {}  # id -> when it was sent (monotonic)

    @contextlib.asynccontextmanager
    async def following(self, page: Page, follow: bool) -> AsyncIterator[None]:
        """Follow the page's requests during the block (nothing when not ``follow``)."""
        if not follow:
            yield
            return
        async with page.listen(
            "Network.requestWillBeSent",
            "Network.loadingFinished",
            "Network.loadingFailed",
            "Network.dataReceived",
            raw=True,
        ) as events, page.enabled("Network"):
            reader = asyncio.create_task(self._read(events))
            try:
                yield
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader

    async def _read(self, events: EventStream[RawEvent]) -> None:
        async for event in events:
            params = event.params
            request_id = str(params.get("requestId"))
            self.last_data = time.monotonic()
            if event.method == "Network.dataReceived":
                continue
            if event.method == "Network.requestWillBeSent":
                # A redirect sends it again with the same id: the new URL replaces it.
                self.requests[request_id] = str(params.get("request", {}).get("url", ""))
                if blocks_parser(params):
                    self.parser_blocking.setdefault(request_id, self.last_data)
            else:
                self.requests.pop(request_id, None)
            self.last_change = time.monotonic()

    def urls(self) -> tuple[str, ...]:
        return tuple(self.requests.values())

    def blocking(self) -> tuple[tuple[str, float], ...]:
        """The parser-blocking scripts still in flight: (URL, when it was sent)."""
        return tuple(
            (self.requests[request_id], sent)
            for request_id, sent in self.parser_blocking.items()
            if request_id in self.requests
        )


# Network.requestWillBeSent's renderBlockingBehavior of a classic <script src> without
# async or defer, in the head or in the body: the parser waits for it.
_PARSER_BLOCKING = frozenset({"Blocking", "InBodyParserBlocking"})


def blocks_parser(params: dict[str, Any]) -> bool:
    """Whether a ``Network.requestWillBeSent`` is of a script the parser waits for."""
    return (
        params.get("type") == "Script"
        and params.get("initiator", {}).get("type") == "parser"
        and params.get("renderBlockingBehavior") in _PARSER_BLOCKING
    )


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
_READ_CHUNK = 1 << 20  # bytes per IO.read of a script fetched for the page
_LATE_ANSWER = 60.0  # how long a given-up fetch's answer is still awaited, to close its stream
# Hop-by-hop or describing the encoded body: the body fulfilled is the decoded one.
_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


class ScriptGate:
    """Gives up the page's parser-blocking scripts that have not loaded after
    ``timeout`` seconds (``page._script_gate``, made on first use).

    An in-flight request cannot be failed after it was sent, so while the gate is held,
    script requests pause before they are sent (``Fetch``, through
    :meth:`Page.fetch_enable`, so the patterns of the page's proxy credentials and of
    other tools combine): the others are continued at once, and a parser-blocking one is
    fetched by the browser itself (``Network.loadNetworkResource``: its cookies, cache
    and proxy) and fulfilled with what came, or failed as ``TimedOut`` after ``timeout``
    (the parser moves on as if it had failed to load). Without a ``script_timeout``
    nothing of this runs: no ``Fetch`` at all.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.timeout: float | None = None  # while held
        self.given_up_urls: list[str] = []
        self._users = 0
        self._sent: dict[str, bool] = {}  # network id of a script -> whether it blocks the parser
        self._unsorted: dict[str, dict[str, Any]] = {}  # paused before its requestWillBeSent
        self._answering: set[asyncio.Task[None]] = set()
        self._network: contextlib.AsyncExitStack | None = None
        self._winding: asyncio.Future[None] | None = None
        page._on("Network.requestWillBeSent", self._request_sent)
        page._on("Fetch.requestPaused", self._request_paused)

    @property
    def held(self) -> bool:
        return self.timeout is not None

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
        if self._winding is not None:  # the last holder's Fetch is being let go
            await asyncio.shield(self._winding)
        if self.timeout is not None and self._network is not None:
            self.timeout = min(self.timeout, timeout)  # the strictest holder wins
            return
        self.timeout = timeout
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
        self.timeout = None
        self._sent.clear()
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
        if not self.held or params.get("type") != "Script":
            return
        network_id = str(params.get("requestId"))
        self._sent[network_id] = blocks_parser(params)
        paused = self._unsorted.pop(network_id, None)
        if paused is not None:
            self._answer(paused, self._sent[network_id])

    def _request_paused(self, params: dict[str, Any]) -> None:
        if not self.takes(params):
            return
        network_id = str(params.get("networkId"))
        if network_id in self._sent:
            self._answer(params, self._sent[network_id])
            return
        # Its Network.requestWillBeSent (which says whether it blocks the parser) usually
        # came first, but not always: it is waited for, a moment at most.
        self._unsorted[network_id] = params
        asyncio.get_running_loop().call_later(_SORT_WAIT, self._unsorted_for_long, network_id)

    def _unsorted_for_long(self, network_id: str) -> None:
        paused = self._unsorted.pop(network_id, None)
        if paused is not None:
            self._answer(paused, False)

    def _answer(self, params: dict[str, Any], parser_blocking: bool) -> None:
        if not parser_blocking:
            request_id = cdp.fetch.RequestId(str(params["requestId"]))
            self.page.browser._background(self.page._quietly(cdp.fetch.continue_request(request_id)))
            return
        task = asyncio.ensure_future(self._fetch_or_give_up(params, self.timeout or 0))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _fetch_or_give_up(self, params: dict[str, Any], timeout: float) -> None:
        page = self.page
        request_id, url = str(params["requestId"]), str(params["request"]["url"])
        options = {"disableCache": False, "includeCredentials": True}
        asked = asyncio.ensure_future(page.call(
            "Network.loadNetworkResource",
            {"frameId": params.get("frameId") or page.target_id, "url": url, "options": options},
            timeout=timeout + _LATE_ANSWER,
        ))  # fmt: skip
        fetched = asyncio.ensure_future(self._read(asked))
        try:
            done, _ = await asyncio.wait({fetched}, timeout=timeout)
            if not done:
                fetched.cancel()
                asked.add_done_callback(self._close_late)
                self.given_up_urls.append(url)
                await page.send(cdp.fetch.fail_request(cdp.fetch.RequestId(request_id), "TimedOut"))
                return
            answer = fetched.result()
            if answer is None:  # it failed to load: so it does for the page
                await page.send(cdp.fetch.fail_request(cdp.fetch.RequestId(request_id), "Failed"))
                return
            status, headers, body = answer
            await page.call("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": status, "responseHeaders": headers,
                "body": base64.b64encode(body).decode(),
            })  # fmt: skip
        except CDPError:
            pass  # the request or the page is gone
        except Exception:
            fetched.cancel()
            raise

    async def _read(self, asked: asyncio.Future[Any]) -> tuple[int, list[dict[str, str]], bytes] | None:
        resource = (await asyncio.shield(asked)).get("resource", {})
        stream = resource.get("stream")
        status = resource.get("httpStatusCode")
        if not resource.get("success") or stream is None or not status:
            if stream is not None:
                await self.page.call("IO.close", {"handle": stream})
            return None
        chunks: list[bytes] = []
        try:
            while True:
                chunk = await self.page.call("IO.read", {"handle": stream, "size": _READ_CHUNK})
                data = chunk.get("data", "")
                chunks.append(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode())
                if chunk.get("eof"):
                    break
        finally:
            with contextlib.suppress(CDPError):
                await self.page.call("IO.close", {"handle": stream})
        headers = [
            {"name": name, "value": line}
            for name, value in (resource.get("headers") or {}).items()
            if name.lower() not in _DROPPED_HEADERS
            for line in str(value).split("\n")
        ]
        return int(status), headers, b"".join(chunks)

    def _close_late(self, asked: asyncio.Future[Any]) -> None:
        """A given-up script's answer came after all: close its stream."""
        if asked.cancelled() or asked.exception() is not None:
            return
        stream = asked.result().get("resource", {}).get("stream")
        if stream is not None and not self.page.closed:
            self.page.browser._background(self._close_stream(stream))

    async def _close_stream(self, stream: str) -> None:
        with contextlib.suppress(CDPError):
            await self.page.call("IO.close", {"handle": stream})


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
        return tuple(self.gate.given_up_urls[self._first :])


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


async def wait_usable(
    page: Page,
    events: EventStream[RawEvent],
    frame_id: str,
    loader_id: str,
    requests: InFlight,
) -> bool:
    """Wait until the document is usable (``wait_until="usable"``): parsed or its parser
    stalled, then loaded or the network quiet. ``True`` when its load event came; else the
    requests still in flight are what the caller reports as pending. ``requests`` must
    follow the page from before the navigation started.

    The parser has stalled when the document committed, requests are in flight, and none
    started, ended or received data for :data:`_PARSE_STALL` seconds (a parser-blocking
    script from a host that never answers must not turn a readable page into a timeout).
    """

    async def parse_stalls_in() -> float:
        stall_in = requests.last_data + _PARSE_STALL - time.monotonic()
        if stall_in <= 0 and requests.requests and await _committed(page, frame_id, loader_id):
            return 0
        return max(stall_in, _COMMIT_CHECK)

    parsed = await _lifecycle_or(events, frame_id, loader_id, "DOMContentLoaded", parse_stalls_in)
    return parsed and await _wait_load_or_quiet(events, frame_id, loader_id, requests)


async def _committed(page: Page, frame_id: str, loader_id: str) -> bool:
    """Whether the frame shows the navigation's document (``loader_id``) yet."""
    tree = await send_retrying(page, "Page.getFrameTree")  # (mid-swap, asked again)
    frame = tree.get("frameTree", {}).get("frame", {})
    return bool(frame.get("id") == frame_id and frame.get("loaderId") == loader_id)


async def _wait_load_or_quiet(
    events: EventStream[RawEvent], frame_id: str, loader_id: str, requests: InFlight
) -> bool:
    """Wait for the document's load event (``True``), or until no request has started or
    ended for :data:`_USABLE_QUIET` seconds (``False``: what is left is then reported as
    pending; after the load event, what runs is the page's own business, the browser's
    favicon fetch included, not part of loading it)."""

    async def wait_more() -> float:
        return requests.last_change + _USABLE_QUIET - time.monotonic()

    return await _lifecycle_or(events, frame_id, loader_id, "load", wait_more)


async def _lifecycle_or(
    events: EventStream[RawEvent],
    frame_id: str,
    loader_id: str,
    name: str,
    wait_more: Callable[[], Awaitable[float]],
) -> bool:
    """Wait for the document's lifecycle event ``name`` (``True``), or until ``wait_more``
    gives 0 or less (``False``); else it gives the seconds until it is asked again."""
    reached = asyncio.ensure_future(_wait_lifecycle(events, frame_id, loader_id, name))
    try:
        while (left := await wait_more()) > 0:
            done, _ = await asyncio.wait({reached}, timeout=left)
            if done:
                reached.result()  # a closed page raises here
                return True
        return False
    finally:
        reached.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reached


def _is_swapping(error: ProtocolError) -> bool:
    return any(text in error.message for text in _SWAPPING)


async def send_retrying(page: Page, method: str, params: dict[str, Any] | None = None) -> Any:
    """``page.call`` that asks again while the page is between renderer processes (the
    caller's deadline bounds it)."""
    while True:
        try:
            return await page.call(method, params)
        except ProtocolError as exc:
            if not _is_swapping(exc):
                raise
        await asyncio.sleep(_SWAP_RETRY)


async def current_result(page: Page, *, url: str | None = None) -> NavigationResult:
    """Where the page is now; ``url``: the URL already known from the navigation's own
    events (the history may lag a moment behind them)."""
    history, status = await asyncio.gather(
        send_retrying(page, "Page.getNavigationHistory"),
        send_retrying(page, "Runtime.evaluate", {"expression": _STATUS_JS, "returnByValue": True}),
    )
    entry = history["entries"][history["currentIndex"]]
    value = status.get("result", {}).get("value")
    return NavigationResult(
        url=url or entry.get("url", ""),
        status=value if isinstance(value, int) and value > 0 else None,
        title=entry.get("title", ""),
    )
