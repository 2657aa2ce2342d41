"""Navigation tools: load a URL, move through history, reload, and wait for the page."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from .._model import RawEvent
from ..errors import NavigationError, ProtocolError, WaitTimeoutError
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

    Args:
        page: The page.
        url: An absolute URL.
        wait_until: ``"load"`` (the load event), ``"domcontentloaded"``, ``"networkidle"``
            (no network activity for 500 ms) or ``"commit"`` (the response started).
        timeout: Seconds for the whole navigation.

    Returns:
        The final URL, HTTP status and title.

    Raises:
        NavigationError: The page did not load: DNS failure, refused connection, invalid
            URL... (``error_text`` is Chrome's ``net::ERR_*``). An HTTP error status is
            not an error: it is reported in ``status``.
        WaitTimeoutError: Not ready within ``timeout``.
    """
    _check_wait_until(wait_until)
    return await _navigate(page, url, {"url": url}, wait_until, timeout)


async def _navigate(
    page: Page,
    url: str,
    params: dict[str, Any],
    wait_until: str,
    timeout: float,
) -> NavigationResult:
    lifecycle = _LIFECYCLE.get(wait_until)
    async with page.listen("Page.lifecycleEvent", raw=True) as events:
        try:
            result = await page.call("Page.navigate", params, timeout=timeout)
        except ProtocolError as exc:
            if "invalid URL" in exc.message:
                raise NavigationError(url, "net::ERR_INVALID_URL") from None
            raise
        error_text = result.get("errorText")
        if error_text:
            raise NavigationError(url, error_text)
        loader_id = result.get("loaderId")
        if lifecycle is not None and loader_id is not None:
            frame_id = str(result.get("frameId") or page.target_id)
            await _wait_lifecycle(events, frame_id, loader_id, lifecycle, url, timeout)
    return await _current(page)


async def _wait_lifecycle(
    events: EventStream[RawEvent], frame_id: str, loader_id: str, name: str, url: str, timeout: float
) -> None:
    try:
        async with asyncio.timeout(timeout):
            async for event in events:
                params = event.params
                if (
                    params.get("name") == name
                    and params.get("loaderId") == loader_id
                    and params.get("frameId") == frame_id
                ):
                    return
    except TimeoutError:
        raise WaitTimeoutError(f"the {name} event of {url}", timeout) from None


async def _current(page: Page) -> NavigationResult:
    history, status = await asyncio.gather(
        page.call("Page.getNavigationHistory"),
        page.call("Runtime.evaluate", {"expression": _STATUS_JS, "returnByValue": True}),
    )
    entry = history["entries"][history["currentIndex"]]
    value = status.get("result", {}).get("value")
    return NavigationResult(
        url=entry.get("url", ""),
        status=value if isinstance(value, int) and value > 0 else None,
        title=entry.get("title", ""),
    )


async def _history_move(
    page: Page, step: int, wait_until: str, timeout: float
) -> NavigationResult | None:
    history = await page.call("Page.getNavigationHistory")
    target = history["currentIndex"] + step
    if not 0 <= target < len(history["entries"]):
        return None
    entry_id = history["entries"][target]["id"]
    return await _wait_navigation(
        page,
        lambda: page.call("Page.navigateToHistoryEntry", {"entryId": entry_id}),
        wait_until,
        timeout,
        what="the history navigation",
    )


async def _wait_navigation(
    page: Page,
    start: Callable[[], Awaitable[Any]],
    wait_until: str,
    timeout: float,
    what: str,
) -> NavigationResult:
    """Run ``start`` and wait until the main frame's next document reaches ``wait_until``.

    Handles a new document (lifecycle events of its loader), a same-document move
    (pushState, #hash) and a restore from the back/forward cache (no load event at all).
    """
    lifecycle = _LIFECYCLE.get(wait_until)
    main_frame = page.target_id  # a page's main frame id is its target id
    async with page.listen(
        "Page.frameNavigated", "Page.navigatedWithinDocument", "Page.lifecycleEvent", raw=True
    ) as events:
        await start()
        loader_id: str | None = None
        try:
            async with asyncio.timeout(timeout):
                async for event in events:
                    params = event.params
                    if event.method == "Page.navigatedWithinDocument":
                        if params.get("frameId") == main_frame:
                            break
                    elif event.method == "Page.frameNavigated":
                        frame = params.get("frame", {})
                        if frame.get("id") != main_frame:
                            continue
                        if params.get("type") == "BackForwardCacheRestore" or lifecycle is None:
                            break
                        loader_id = frame.get("loaderId")
                    elif (
                        loader_id is not None
                        and params.get("loaderId") == loader_id
                        and params.get("name") == lifecycle
                    ):
                        break
        except TimeoutError:
            raise WaitTimeoutError(f"{what} to reach {wait_until}", timeout) from None
    return await _current(page)


async def go_back(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult | None:
    """Go one step back in the page's history and wait as :func:`navigate` does.

    Returns:
        Where it landed, or ``None`` if there is no earlier page (nothing happens).
    """
    _check_wait_until(wait_until)
    return await _history_move(page, -1, wait_until, timeout)


async def go_forward(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult | None:
    """Go one step forward in the page's history; ``None`` if there is no later page."""
    _check_wait_until(wait_until)
    return await _history_move(page, 1, wait_until, timeout)


async def reload(
    page: Page, *, wait_until: WaitUntil = "load", timeout: float = 30
) -> NavigationResult:
    """Reload the page and wait as :func:`navigate` does."""
    _check_wait_until(wait_until)
    return await _wait_navigation(
        page, lambda: page.call("Page.reload"), wait_until, timeout, what="the reload"
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
