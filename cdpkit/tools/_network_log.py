"""What the ``Network`` domain says about a page's requests, folded into one entry per request.

Shared by :mod:`cdpkit.tools.network` (the requests since the last navigation) and
:mod:`cdpkit.tools.har` (every request of a recording, with the page loads). Events are
read raw, through the generated JSON shapes (``cdp.network.*JSON``): a page can make
thousands of requests and no model is built for any of them.

Headers are folded in through :func:`cdpkit._core.secrets.mask_headers`: a credentials header
(``Authorization``, ``Proxy-Authorization``: Chrome reports the proxy's Basic credentials
with each request) keeps its scheme only, so no surface reading the log can show one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from .._core.secrets import get_logger, mask_header_text, mask_headers
from .._model import RawEvent
from ..errors import ConnectionClosedError
from ..page import Page
from ..session import EventStream

if TYPE_CHECKING:
    from ..cdp.network import (
        LoadingFailedJSON,
        LoadingFinishedJSON,
        RequestWillBeSentExtraInfoJSON,
        RequestWillBeSentJSON,
        ResponseJSON,
        ResponseReceivedExtraInfoJSON,
        ResponseReceivedJSON,
    )
    from ..cdp.page import FrameNavigatedJSON

_logger = get_logger("cdpkit")

MAX_ENTRIES = 5_000

# The events an entry is built from, and the page events that mark loads. By wire name:
# the event classes would load the network domain's events when this module is imported.
EVENTS = (
    "Network.requestWillBeSent",
    "Network.requestWillBeSentExtraInfo",
    "Network.responseReceived",
    "Network.responseReceivedExtraInfo",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Network.requestServedFromCache",
    "Page.frameNavigated",
    "Page.domContentEventFired",
    "Page.loadEventFired",
)


@dataclass(slots=True)
class Entry:
    """One request as the events told it so far (raw JSON pieces, read when asked)."""

    id: str
    sent: RequestWillBeSentJSON
    response: ResponseJSON | None = None
    request_extra: RequestWillBeSentExtraInfoJSON | None = None
    response_extra: ResponseReceivedExtraInfoJSON | None = None
    resource_type: str = "Other"
    end: float | None = None  # monotonic seconds, when it finished or failed
    encoded_size: float | None = None
    body_size: float | None = None
    failed: str | None = None
    from_cache: bool = False
    redirected: bool = False  # the response is a redirect; the body is gone with it

    @property
    def finished(self) -> bool:
        return self.end is not None


@dataclass(slots=True)
class PageLoad:
    """One main-frame navigation: its document's loader, URL, and load times."""

    loader_id: str
    url: str
    started: float  # monotonic seconds of the navigation's document request
    wall_time: float  # seconds since the epoch, same moment
    title: str = ""
    content_loaded: float | None = None  # monotonic seconds
    loaded: float | None = None


@dataclass(slots=True)
class NetworkLog:
    """Entries by request id, oldest first, at most ``limit`` of them.

    With ``per_navigation``, a main-frame navigation forgets everything before it except
    the new document's own request (and its redirects); otherwise every load is kept in
    :attr:`loads`.
    """

    main_frame: str
    per_navigation: bool = True
    limit: int = MAX_ENTRIES
    entries: OrderedDict[str, Entry] = field(default_factory=OrderedDict)
    loads: list[PageLoad] = field(default_factory=list)
    dropped: int = 0  # entries forgotten to stay within the limit
    on_finished: Callable[[Entry], None] | None = None  # called when a request has loaded
    _redirects: dict[str, int] = field(default_factory=dict)
    # Extra info that came before its request's requestWillBeSent (Chrome sends them from
    # another process, in either order), by request id; bounded like the entries.
    _early: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)

    def feed(self, method: str, params: dict[str, Any]) -> None:
        """Fold one event in. An event of a shape this code does not expect (a newer
        Chrome) is skipped with a warning, never allowed to stop the recording."""
        handler = _HANDLERS.get(method)
        if handler is None:
            return
        try:
            handler(self, _masked(params))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            _logger.warning("Network log: skipped a %s event it could not read (%r)", method, exc)

    def _add(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        while len(self.entries) > self.limit:
            self.entries.popitem(last=False)
            self.dropped += 1

    def _sent(self, params: dict[str, Any]) -> None:
        sent = cast("RequestWillBeSentJSON", params)
        request_id = str(sent["requestId"])
        previous = self.entries.get(request_id)
        redirect = sent.get("redirectResponse")
        if previous is not None and redirect is not None:
            # The same id goes on after a redirect: the finished hop keeps its own id.
            hop = self._redirects[request_id] = self._redirects.get(request_id, 0) + 1
            del self.entries[request_id]
            previous.id = f"{request_id}.redirect{hop}"
            previous.response = redirect
            previous.end = float(sent["timestamp"])
            previous.encoded_size = float(redirect.get("encodedDataLength", 0))
            previous.redirected = True
            self._add(previous)
        entry = Entry(request_id, sent, resource_type=str(sent.get("type", "Other")))
        early = self._early.pop(request_id, None)
        if early is not None:
            entry.request_extra = early.get("request")
            entry.response_extra = early.get("response")
        main_document = sent.get("type") == "Document" and sent.get("frameId") == self.main_frame
        if main_document and request_id == sent["loaderId"] and not self.per_navigation:
            self._begin_load(str(sent["loaderId"]), sent["request"]["url"], sent)
        self._add(entry)

    def _begin_load(self, loader_id: str, url: str, sent: RequestWillBeSentJSON) -> None:
        self.loads.append(PageLoad(loader_id, url, float(sent["timestamp"]), float(sent["wallTime"])))

    def _navigated(self, params: dict[str, Any]) -> None:
        frame = cast("FrameNavigatedJSON", params)["frame"]
        if frame["id"] != self.main_frame or frame.get("parentId"):
            return
        loader_id = str(frame["loaderId"])
        if self.per_navigation:
            kept = [entry for entry in self.entries.values() if entry.sent["loaderId"] == loader_id]
            kept = [entry for entry in kept if entry.resource_type == "Document"]
            self.entries.clear()
            self.dropped = 0
            for entry in kept:
                self.entries[entry.id] = entry

    def _page_timing(self, name: str, params: dict[str, Any]) -> None:
        if not self.loads:
            return
        load = self.loads[-1]
        stamp = float(params.get("timestamp", 0))
        if name == "content" and load.content_loaded is None:
            load.content_loaded = stamp
        elif name == "load" and load.loaded is None:
            load.loaded = stamp

    def _response(self, params: dict[str, Any]) -> None:
        received = cast("ResponseReceivedJSON", params)
        entry = self.entries.get(str(received["requestId"]))
        if entry is not None:
            entry.response = received["response"]
            entry.resource_type = str(received.get("type", entry.resource_type))
            response = received["response"]
            if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
                entry.from_cache = True

    def _keep_early(self, request_id: str, kind: str, extra: Any) -> None:
        self._early.setdefault(request_id, {})[kind] = extra
        while len(self._early) > self.limit:
            self._early.popitem(last=False)

    def _request_extra(self, params: dict[str, Any]) -> None:
        extra = cast("RequestWillBeSentExtraInfoJSON", params)
        request_id = str(extra["requestId"])
        entry = self.entries.get(request_id)
        if entry is None or entry.request_extra is not None:
            # Before its request, or for the next hop of a redirect (same id).
            self._keep_early(request_id, "request", extra)
        else:
            entry.request_extra = extra

    def _response_extra(self, params: dict[str, Any]) -> None:
        extra = cast("ResponseReceivedExtraInfoJSON", params)
        request_id = str(extra["requestId"])
        entry = self.entries.get(request_id)
        if 300 <= int(extra.get("statusCode", 0)) < 400:
            # A redirect's extra info can come after the next hop's request: it belongs to
            # the earliest hop still without one, not to the request that went on.
            for hop in range(1, self._redirects.get(request_id, 0) + 1):
                earlier = self.entries.get(f"{request_id}.redirect{hop}")
                if earlier is not None and earlier.response_extra is None:
                    earlier.response_extra = extra
                    return
        if entry is None or entry.response_extra is not None:
            self._keep_early(request_id, "response", extra)
        else:
            entry.response_extra = extra

    def _finished(self, params: dict[str, Any]) -> None:
        done = cast("LoadingFinishedJSON", params)
        entry = self.entries.get(str(done["requestId"]))
        if entry is not None:
            entry.end = float(done["timestamp"])
            entry.encoded_size = float(done["encodedDataLength"])
            body = done.get("encodedBodyLength")
            entry.body_size = float(body) if body is not None else None
            if self.on_finished is not None:
                self.on_finished(entry)

    def _failed(self, params: dict[str, Any]) -> None:
        failure = cast("LoadingFailedJSON", params)
        entry = self.entries.get(str(failure["requestId"]))
        if entry is not None:
            entry.end = float(failure["timestamp"])
            reason = failure.get("blockedReason")
            text = failure["errorText"] or "failed"
            entry.failed = f"{text} (blocked: {reason})" if reason else text
            if failure.get("canceled"):
                entry.failed += " (canceled)"
            entry.resource_type = str(failure.get("type", entry.resource_type))

    def _from_cache(self, params: dict[str, Any]) -> None:
        entry = self.entries.get(str(params.get("requestId", "")))
        if entry is not None:
            entry.from_cache = True


def _masked(params: dict[str, Any]) -> dict[str, Any]:
    """An event's parameters with every header it carries masked (copies: other listeners
    of the same event see it as Chrome sent it). Request events carry ``request.headers``,
    extra info ``headers``, responses ``headers`` and, on old Chromes, ``requestHeaders``
    and ``requestHeadersText``."""
    masked = dict(params)
    if isinstance(masked.get("headers"), dict):
        masked["headers"] = mask_headers(masked["headers"])
    for key in ("request", "response", "redirectResponse"):
        part = masked.get(key)
        if not isinstance(part, dict):
            continue
        part = masked[key] = dict(part)
        for name in ("headers", "requestHeaders"):
            if isinstance(part.get(name), dict):
                part[name] = mask_headers(part[name])
        if isinstance(part.get("requestHeadersText"), str):
            part["requestHeadersText"] = mask_header_text(part["requestHeadersText"])
    return masked


_HANDLERS: dict[str, Any] = {
    "Network.requestWillBeSent": NetworkLog._sent,
    "Network.requestWillBeSentExtraInfo": NetworkLog._request_extra,
    "Network.responseReceived": NetworkLog._response,
    "Network.responseReceivedExtraInfo": NetworkLog._response_extra,
    "Network.loadingFinished": NetworkLog._finished,
    "Network.loadingFailed": NetworkLog._failed,
    "Network.requestServedFromCache": NetworkLog._from_cache,
    "Page.frameNavigated": NetworkLog._navigated,
    "Page.domContentEventFired": lambda log, params: log._page_timing("content", params),
    "Page.loadEventFired": lambda log, params: log._page_timing("load", params),
}


async def drain(stream: EventStream[RawEvent], log: NetworkLog) -> None:
    """Fold in every event ``stream`` holds now, without waiting for more."""
    while len(stream):
        event = await anext(stream)  # returns at once: the event is buffered
        log.feed(event.method, event.params)


async def follow(stream: EventStream[RawEvent], log: NetworkLog) -> None:
    """Fold in events as they come, until the stream ends (unsubscribed or page closed)."""
    with contextlib.suppress(ConnectionClosedError):
        async for event in stream:
            log.feed(event.method, event.params)


@contextlib.asynccontextmanager
async def recording(page: Page, log: NetworkLog) -> AsyncIterator[EventStream[RawEvent]]:
    """Record ``page``'s requests into ``log`` for the block (``Network`` enabled for it).

    The stream is subscribed before ``Network.enable`` is sent, so nothing after that is
    missed; a task folds events in as they come and the block's end folds in the rest.
    """
    async with page.listen(*EVENTS, raw=True) as stream, page.enabled("Network"):
        task = asyncio.ensure_future(follow(stream, log))
        try:
            yield stream
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await drain(stream, log)
