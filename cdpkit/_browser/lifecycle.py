"""Waiting for a document's lifecycle under a navigation: its lifecycle events, the
requests it has in flight (and which of them the parser waits on), and the page's commands
asked again while it swaps renderer processes.

:mod:`cdpkit._browser.navigation` starts navigations and waits with these; the script gate
(:mod:`cdpkit._browser.script_gate`) sorts paused scripts with :func:`blocks_parser`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from .._model import RawEvent
from ..errors import CDPError, ProtocolError, TargetClosedError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from ..page import Page
    from ..session import EventStream

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


async def wait_lifecycle(
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
                if _browsers_own(params):
                    continue
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


def _browsers_own(params: dict[str, Any]) -> bool:
    """Whether a request is the browser's own, not the page's loading: the page's icon,
    which Chrome fetches itself (resource type "Other", no initiator in the page), also
    after the next navigation has begun, and never reports ended when it is abandoned."""
    return params.get("type") == "Other" and params.get("initiator", {}).get("type") == "other"


# Network.requestWillBeSent's renderBlockingBehavior of a classic <script src> without
# async or defer, in the head or in the body, whether the parser met it in the page or in
# what a script wrote (document.write: ad and tag-manager code; its initiator is then
# "script", not "parser"): the parser waits for it. Chrome says "PotentiallyBlocking" for
# async scripts, "NonBlocking" for defer, module, async-written and inserted ones. It says
# "Blocking" too for an explicit blocking="render" script (rare), which Chrome does not tell
# apart: it keeps the page from rendering all the same, so it counts.
_PARSER_BLOCKING = frozenset({"Blocking", "InBodyParserBlocking"})


def blocks_parser(params: dict[str, Any]) -> bool:
    """Whether a ``Network.requestWillBeSent`` is of a script the parser waits for."""
    return params.get("type") == "Script" and params.get("renderBlockingBehavior") in _PARSER_BLOCKING


# The classic <script src> the document's parser waits on (met by the parser or written by
# document.write, not loaded yet) while it is still parsing, each with how long it has
# waited: since the scripts before it loaded (the parser got there then), or since the
# document's response began. A page whose event loop is busy may not answer: the caller
# bounds the call.
_PARSER_WAITS_JS = r"""(() => {
  if (document.readyState !== 'loading') return [];
  const loaded = new Map(performance.getEntriesByType('resource').map((entry) => [entry.name, entry.responseEnd]));
  const response = performance.getEntriesByType('navigation')[0];
  let since = response ? response.responseStart : 0;
  const waits = [];
  for (const script of document.scripts) {
    const type = script.type.trim().toLowerCase();
    const classic = !type || /^(text|application)\/(x-)?(java|ecma)script$|^text\/jscript$/.test(type);
    if (!script.src || script.async || script.defer || !classic) continue;
    if (loaded.has(script.src)) since = Math.max(since, loaded.get(script.src));
    else waits.push([script.src, (performance.now() - since) / 1000]);
  }
  return waits;
})()"""
_PARSER_WAITS_LOOKUP = 2.0  # at most this for the page to say what its parser waits on


async def parser_waits(page: Page, frame_id: str, loader_id: str) -> tuple[tuple[str, float], ...]:
    """The scripts the parser of the navigation's document (``loader_id``) waits on: (URL,
    seconds waited); none when it has not committed yet, is parsed, or does not answer in
    :data:`_PARSER_WAITS_LOOKUP` seconds. Looked up when a navigation times out: nothing
    follows the page's requests for it before."""
    with contextlib.suppress(TimeoutError, CDPError):
        async with asyncio.timeout(_PARSER_WAITS_LOOKUP):
            if not await _committed(page, frame_id, loader_id):
                return ()
            reply = await send_retrying(
                page, "Runtime.evaluate", {"expression": _PARSER_WAITS_JS, "returnByValue": True}
            )
            value = reply.get("result", {}).get("value")
            if isinstance(value, list):
                return tuple((str(url), float(waited)) for url, waited in value)
    return ()


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
    reached = asyncio.ensure_future(wait_lifecycle(events, frame_id, loader_id, name))
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
