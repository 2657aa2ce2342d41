"""Navigation tools: load a URL, move through history, reload, and wait for the page."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from .._model import RawEvent
from ..errors import CDPError, NavigationError, ProtocolError, TargetClosedError, WaitTimeoutError
from ..page import Page
from ..session import EventStream

__all__ = [
    "NavigationResult",
    "WaitUntil",
    "go_back",
    "go_forward",
    "navigate",
    "reload",
    "wait",
    "wait_for",
]

WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit"]

# Page.lifecycleEvent names for each wait_until; "commit" waits for nothing more.
_LIFECYCLE = {"load": "load", "domcontentloaded": "DOMContentLoaded", "networkidle": "networkIdle"}

_STATUS_JS = "performance.getEntriesByType('navigation')[0]?.responseStatus ?? null"


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """Where a navigation ended.

    Attributes:
        url: The final URL, after redirects.
        status: The HTTP status of the document (a 404 page is a result, not an error);
            ``None`` for URLs without one (``about:``, ``data:``, same-document moves).
        title: The document's title.
    """

    url: str
    status: int | None
    title: str


def _check_wait_until(wait_until: str) -> None:
    if wait_until != "commit" and wait_until not in _LIFECYCLE:
        raise ValueError(
            f"wait_until must be one of load, domcontentloaded, networkidle, commit; "
            f"got {wait_until!r}"
        )


async def navigate(
    page: Page,
    url: str,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
) -> NavigationResult:
    """Load ``url`` in the page and wait until it is ready.

    A URL that differs from the current one only by its ``#fragment`` is a same-document
    navigation: it returns once the page is there (the result's ``url`` has the new
    fragment). A navigation that moves the page to another renderer process (another
    site) is followed through the swap.

    Args:
        page: The page.
        url: An absolute URL.
        wait_until: ``"load"`` (the load event), ``"domcontentloaded"``, ``"networkidle"``
            (no network activity for 500 ms) or ``"commit"`` (the new document replaced
            the old one; its content may still be arriving).
        timeout: Seconds for the whole navigation.

    Returns:
        The final URL, HTTP status and title.

    Raises:
        NavigationError: The page did not load: DNS failure, refused connection, invalid
            URL... (``error_text`` is Chrome's ``net::ERR_*``). An HTTP error status is
            not an error: it is reported in ``status``.
        WaitTimeoutError: Not ready within ``timeout`` (the message names the URL, the
            stage it waited for and the ``timeout=`` to raise); also a ``TimeoutError``.
            A navigation still waiting for the server's response is stopped (the page
            stays where it was); one that has a response keeps loading.
    """
    _check_wait_until(wait_until)
    return await _navigate(page, url, {"url": url}, wait_until, timeout)


# What each wait_until waits for, in timeout messages.
_STAGE = {
    "load": "its load event",
    "domcontentloaded": "DOMContentLoaded",
    "networkidle": "network idle",
    "commit": "the new document to commit",
}

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


def _timed_out(what: str, timeout: float, function: str) -> WaitTimeoutError:
    return WaitTimeoutError(
        f"{what}; pass a larger timeout= to {function}() if the page is just slow", timeout
    )


async def _navigate(
    page: Page,
    url: str,
    params: dict[str, Any],
    wait_until: str,
    timeout: float,
) -> NavigationResult:
    lifecycle = _LIFECYCLE.get(wait_until)
    answered = False
    try:
        async with asyncio.timeout(timeout), page.listen(
            "Page.lifecycleEvent",
            "Page.frameNavigated",
            "Page.navigatedWithinDocument",
            raw=True,
        ) as events:
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
                return await _current(page, url=landed)
            if lifecycle is None:
                committed = await _wait_commit(events, frame_id, loader_id)
                return await _current(page, url=committed)
            # By the lifecycle event the history has the new entry: it gives the URL.
            await _wait_lifecycle(events, frame_id, loader_id, lifecycle)
            return await _current(page)
    except TimeoutError:
        if not answered:
            # No response yet: stop it, or it would abort the next navigation to the
            # same URL (net::ERR_ABORTED at once) and could still replace the page later.
            with contextlib.suppress(CDPError):
                await page.call("Page.stopLoading", timeout=_STOP_TIMEOUT)
        raise _timed_out(
            f"the navigation to {url} to reach {_STAGE[wait_until]}", timeout, "navigate"
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


def _is_swapping(error: ProtocolError) -> bool:
    return any(text in error.message for text in _SWAPPING)


async def _retrying(page: Page, method: str, params: dict[str, Any] | None = None) -> Any:
    """``page.call`` that asks again while the page is between renderer processes (the
    caller's deadline bounds it)."""
    while True:
        try:
            return await page.call(method, params)
        except ProtocolError as exc:
            if not _is_swapping(exc):
                raise
        await asyncio.sleep(_SWAP_RETRY)


async def _current(page: Page, *, url: str | None = None) -> NavigationResult:
    """Where the page is now; ``url``: the URL already known from the navigation's own
    events (the history may lag a moment behind them)."""
    history, status = await asyncio.gather(
        _retrying(page, "Page.getNavigationHistory"),
        _retrying(page, "Runtime.evaluate", {"expression": _STATUS_JS, "returnByValue": True}),
    )
    entry = history["entries"][history["currentIndex"]]
    value = status.get("result", {}).get("value")
    return NavigationResult(
        url=url or entry.get("url", ""),
        status=value if isinstance(value, int) and value > 0 else None,
        title=entry.get("title", ""),
    )


async def _history_move(
    page: Page, step: int, wait_until: str, timeout: float, function: str
) -> NavigationResult | None:
    try:
        async with asyncio.timeout(timeout):
            history = await _retrying(page, "Page.getNavigationHistory")
    except TimeoutError:
        raise _timed_out("the page's history", timeout, function) from None
    target = history["currentIndex"] + step
    if not 0 <= target < len(history["entries"]):
        return None
    entry = history["entries"][target]
    return await _wait_navigation(
        page,
        lambda: page.call("Page.navigateToHistoryEntry", {"entryId": entry["id"]}),
        wait_until,
        timeout,
        what=f"the history navigation to {entry.get('url', '')}",
        function=function,
    )


async def _wait_navigation(
    page: Page,
    start: Callable[[], Awaitable[Any]],
    wait_until: str,
    timeout: float,
    what: str,
    function: str,
) -> NavigationResult:
    """Run ``start`` and wait until the main frame's next document reaches ``wait_until``.

    Handles a new document (lifecycle events of its loader), a same-document move
    (pushState, #hash) and a restore from the back/forward cache (no load event at all).
    """
    lifecycle = _LIFECYCLE.get(wait_until)
    main_frame = page.target_id  # a page's main frame id is its target id
    landed: str | None = None
    try:
        async with asyncio.timeout(timeout), page.listen(
            "Page.frameNavigated", "Page.navigatedWithinDocument", "Page.lifecycleEvent", raw=True
        ) as events:
            await start()
            loader_id: str | None = None
            async for event in events:
                params = event.params
                if event.method == "Page.navigatedWithinDocument":
                    if params.get("frameId") == main_frame:
                        landed = str(params.get("url", "")) or None
                        break
                elif event.method == "Page.frameNavigated":
                    frame = params.get("frame", {})
                    if frame.get("id") != main_frame:
                        continue
                    if params.get("type") == "BackForwardCacheRestore" or lifecycle is None:
                        landed = str(frame.get("url", "")) + str(frame.get("urlFragment", ""))
                        break
                    loader_id = frame.get("loaderId")
                elif (
                    loader_id is not None
                    and params.get("loaderId") == loader_id
                    and params.get("name") == lifecycle
                ):
                    break
            return await _current(page, url=landed)
    except TimeoutError:
        raise _timed_out(f"{what} to reach {_STAGE[wait_until]}", timeout, function) from None


async def go_back(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult | None:
    """Go one step back in the page's history and wait as :func:`navigate` does.

    Returns:
        Where it landed, or ``None`` if there is no earlier page (nothing happens).
    """
    _check_wait_until(wait_until)
    return await _history_move(page, -1, wait_until, timeout, "go_back")


async def go_forward(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult | None:
    """Go one step forward in the page's history; ``None`` if there is no later page."""
    _check_wait_until(wait_until)
    return await _history_move(page, 1, wait_until, timeout, "go_forward")


async def reload(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult:
    """Reload the page and wait as :func:`navigate` does."""
    _check_wait_until(wait_until)
    return await _wait_navigation(
        page,
        lambda: page.call("Page.reload"),
        wait_until,
        timeout,
        what=f"the reload of {page.url}",
        function="reload",
    )


async def wait(page: Page, ms: float) -> None:
    """Wait ``ms`` milliseconds (the page keeps running)."""
    if ms < 0:
        raise ValueError(f"ms must be >= 0, got {ms}")
    await asyncio.sleep(ms / 1000)


_POLL_INTERVAL = 0.1


async def wait_for(
    page: Page,
    *,
    selector: str | None = None,
    text: str | None = None,
    text_gone: str | None = None,
    network_idle: bool = False,
    timeout: float = 30,
) -> None:
    """Wait until one condition holds on the page.

    Args:
        selector: An element matching this CSS selector is in the document.
        text: This text is visible on the page.
        text_gone: This text is no longer visible on the page.
        network_idle: No network request in flight for 500 ms.
        timeout: Seconds to wait.

    Raises:
        ValueError: Not exactly one condition given, or an invalid selector.
        WaitTimeoutError: The condition did not hold within ``timeout`` (names it).
    """
    conditions = [
        (selector is not None, f"selector {selector!r}"),
        (text is not None, f"text {text!r}"),
        (text_gone is not None, f"text {text_gone!r} to disappear"),
        (network_idle, "network idle"),
    ]
    given = [what for present, what in conditions if present]
    if len(given) != 1:
        raise ValueError("Provide one of: selector, text, text_gone, or network_idle=True")
    what = given[0]
    try:
        async with asyncio.timeout(timeout):
            if network_idle:
                await wait_for_network_idle(page)
                return
            if selector is not None:
                check = f"!!document.querySelector({json.dumps(selector)})"
            elif text is not None:
                check = f"(document.body?.innerText ?? '').includes({json.dumps(text)})"
            else:
                check = f"!(document.body?.innerText ?? '').includes({json.dumps(text_gone)})"
            while True:
                result = await page.call(
                    "Runtime.evaluate", {"expression": check, "returnByValue": True}
                )
                details = result.get("exceptionDetails")
                if details and selector is not None:
                    raise ValueError(f"Invalid CSS selector: {selector!r}")
                if result.get("result", {}).get("value") is True:
                    return
                await asyncio.sleep(_POLL_INTERVAL)
    except TimeoutError:
        raise WaitTimeoutError(what, timeout) from None


async def wait_for_network_idle(page: Page, idle_time: float = 0.5) -> None:
    """Return once no request of the page has been in flight for ``idle_time`` seconds.

    Requests are counted from the moment this is called; cancel it to give up.
    """
    in_flight: set[str] = set()
    async with page.listen("Network.*", raw=True) as events, page.enabled("Network"):
        while True:
            try:
                async with asyncio.timeout(idle_time if not in_flight else None):
                    event = await anext(events)
            except TimeoutError:
                return
            params = event.params
            request_id = params.get("requestId")
            if not isinstance(request_id, str):
                continue
            if event.method == "Network.requestWillBeSent":
                in_flight.add(request_id)
            elif event.method in ("Network.loadingFinished", "Network.loadingFailed"):
                in_flight.discard(request_id)
