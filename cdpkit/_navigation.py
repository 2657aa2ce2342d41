"""The navigation primitive under ``Page``: load a URL and wait for a lifecycle stage,
following the page through renderer swaps.

``Browser.new_page(url=...)`` needs it and sits below the tools, so it lives here;
``cdpkit.tools.navigation`` builds ``navigate``, the history moves and the waits on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

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
    """

    url: str
    status: int | None
    title: str
    pending: tuple[str, ...] = ()


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


async def load(page: Page, url: str, *, wait_until: str = "load", timeout: float = 30) -> NavigationResult:
    """Load ``url`` in ``page`` and wait for ``wait_until``: what ``tools.navigate`` does
    (see it for the arguments and errors), for the core's own use."""
    check_wait_until(wait_until)
    return await _navigate(page, url, {"url": url}, wait_until, timeout)


async def _navigate(
    page: Page,
    url: str,
    params: dict[str, Any],
    wait_until: str,
    timeout: float,
) -> NavigationResult:
    lifecycle = LIFECYCLE_EVENTS.get(wait_until)
    answered = False
    requests = InFlight()
    try:
        async with asyncio.timeout(timeout), page.listen(
            "Page.lifecycleEvent",
            "Page.frameNavigated",
            "Page.navigatedWithinDocument",
            raw=True,
        ) as events, requests.following(page, wait_until == "usable"):
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
                landed_at = await current_result(page)
                return dataclasses.replace(landed_at, pending=() if loaded else requests.urls())
            if lifecycle is None:
                committed = await _wait_commit(events, frame_id, loader_id)
                return await current_result(page, url=committed)
            # By the lifecycle event the history has the new entry: it gives the URL.
            await _wait_lifecycle(events, frame_id, loader_id, lifecycle)
            return await current_result(page)
    except TimeoutError:
        if not answered:
            # No response yet: stop it, or it would abort the next navigation to the
            # same URL (net::ERR_ABORTED at once) and could still replace the page later.
            with contextlib.suppress(CDPError):
                await page.call("Page.stopLoading", timeout=_STOP_TIMEOUT)
        raise timed_out(
            f"the navigation to {url} to reach {STAGES[wait_until]}", timeout, "navigate"
        ) from None


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
            else:
                self.requests.pop(request_id, None)
            self.last_change = time.monotonic()

    def urls(self) -> tuple[str, ...]:
        return tuple(self.requests.values())


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
