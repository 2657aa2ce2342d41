"""Navigation tools: load a URL, move through history, reload, and wait for the page."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from .. import cdp
from .._browser.lifecycle import InFlight, send_retrying, wait_usable
from .._browser.navigation import (
    LIFECYCLE_EVENTS,
    STAGES,
    NavigationResult,
    WaitUntil,
    check_script_timeout,
    check_wait_until,
    current_result,
    load,
    page_set_up,
    timed_out,
    timed_out_loading,
    usable_result,
    with_given_up,
)
from .._browser.script_gate import NavigationGate, forget_stall, giving_up_scripts
from ..errors import WaitTimeoutError
from ..page import Page
from ._recording import recorded
from ._scripts import Script, evaluate

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

if TYPE_CHECKING:
    from ..cdp.page import FrameNavigatedJSON, LifecycleEventJSON, NavigatedWithinDocumentJSON

# The events the waits read raw, by wire name.
_FRAME_NAVIGATED = cdp.page.FrameNavigated.method
_WITHIN_DOCUMENT = cdp.page.NavigatedWithinDocument.method
_LIFECYCLE_EVENT = cdp.page.LifecycleEvent.method
_REQUEST_SENT = cdp.network.RequestWillBeSent.method


@recorded
async def navigate(
    page: Page,
    url: str,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
    script_timeout: float | None = None,
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
            (no network activity for 500 ms), ``"commit"`` (the new document replaced
            the old one; its content may still be arriving) or ``"usable"``: the document
            is parsed (DOMContentLoaded) and then either its load event comes or no
            request starts or ends for 500 ms, whichever is first; the requests still in
            flight then are listed in the result's ``pending``. A tracker or image that never
            answers then does not hold the navigation until ``timeout``, nor does a
            parser-blocking script that never answers: once the document has committed, 5 s
            with requests in flight but none starting, ending or receiving data ends the wait
            with what was parsed so far. A main document that never answers still times out.
            When it returns before the page rendered anything, the result's
            ``nothing_rendered`` says why (``"nothing rendered yet: the parser waits on
            <script src=URL> for 5 s"``), and so does the first line of
            :func:`~cdpkit.tools.snapshot` until the page renders.
        timeout: Seconds for the whole navigation.
        script_timeout: Give up a parser-blocking script (a ``<script src>`` without
            ``async``, ``defer`` or ``type=module``) that has not loaded after this many
            seconds: the parser goes on as if it had failed to load, the page's later
            scripts run, and the result's ``given_up`` lists it. ``None`` (the default):
            wait for such scripts as a browser does. With it, script requests pause before
            they are sent and a parser-blocking one is fetched by the browser for the page
            (its cookies, cache and proxy), until it and the scripts it started end.

    Returns:
        The final URL, HTTP status and title (and with ``"usable"``, what is still
        loading; with ``script_timeout``, what was given up).

    Raises:
        NavigationError: The page did not load: DNS failure, refused connection, invalid
            URL... (``error_text`` is Chrome's ``net::ERR_*``). An HTTP error status is
            not an error: it is reported in ``status``.
        WaitTimeoutError: Not ready within ``timeout`` (the message names the URL, the
            stage it waited for and the ``timeout=`` to raise); also a ``TimeoutError``.
            A navigation still waiting for the server's response is stopped (the page
            stays where it was); one that has a response keeps loading.
    """
    return await load(page, url, wait_until=wait_until, timeout=timeout, script_timeout=script_timeout)


async def _history_move(
    page: Page, step: int, wait_until: str, timeout: float, function: str, script_timeout: float | None
) -> NavigationResult | None:
    try:
        async with asyncio.timeout(timeout):
            command = cdp.page.get_navigation_history()
            # Parsed here: send_retrying is the raw call that survives a renderer swap.
            history = command.parse(await send_retrying(page, command.method, command.params))
    except TimeoutError:
        raise timed_out("the page's history", timeout, function) from None
    target = history.current_index + step
    if not 0 <= target < len(history.entries):
        return None
    entry = history.entries[target]
    return await _wait_navigation(
        page,
        lambda: page.send(cdp.page.navigate_to_history_entry(entry.id)),
        wait_until,
        timeout,
        what=f"the history navigation to {entry.url}",
        function=function,
        script_timeout=script_timeout,
    )


async def _wait_navigation(
    page: Page,
    start: Callable[[], Awaitable[Any]],
    wait_until: str,
    timeout: float,
    what: str,
    function: str,
    script_timeout: float | None = None,
) -> NavigationResult:
    """Run ``start`` and wait until the main frame's next document reaches ``wait_until``.

    Handles a new document (lifecycle events of its loader), a same-document move
    (pushState, #hash) and a restore from the back/forward cache (no load event at all).
    """
    usable = wait_until == "usable"
    lifecycle = LIFECYCLE_EVENTS.get(wait_until)
    main_frame = page.target_id  # a page's main frame id is its target id
    landed: str | None = None
    requests = InFlight()
    loaded: bool | None = None  # with "usable": whether the load event came
    loader_id: str | None = None
    gate: NavigationGate | None = None
    forget_stall(page)  # a new document: what the old one waited on is moot
    try:
        # Raw events read through their generated JSON shapes: the fast path. Only a few
        # keys are read, a newer Chrome's changes elsewhere in these events cannot break
        # the wait, and no model schema is built on a process's first navigation.
        async with asyncio.timeout(timeout), page.listen(
            cdp.page.FrameNavigated,
            cdp.page.NavigatedWithinDocument,
            cdp.page.LifecycleEvent,
            raw=True,
        ) as events, requests.following(page, usable), giving_up_scripts(page, script_timeout) as gate:
            await page_set_up(page)  # or its first commit may go unreported
            await start()
            async for event in events:
                method = event.method
                if method == _WITHIN_DOCUMENT:
                    moved = cast("NavigatedWithinDocumentJSON", event.params)
                    if moved["frameId"] == main_frame:
                        landed = moved.get("url") or None
                        break
                elif method == _FRAME_NAVIGATED:
                    navigated = cast("FrameNavigatedJSON", event.params)
                    frame = navigated["frame"]
                    if frame["id"] != main_frame:
                        continue
                    if navigated.get("type") == "BackForwardCacheRestore" or wait_until == "commit":
                        landed = frame["url"] + frame.get("urlFragment", "")
                        break
                    loader_id = frame["loaderId"]
                    if usable:  # committed: parsed or stalled, then loaded or quiet
                        loaded = await wait_usable(page, events, main_frame, loader_id, requests)
                        break
                elif method == _LIFECYCLE_EVENT and loader_id is not None:
                    stage = cast("LifecycleEventJSON", event.params)
                    if stage["loaderId"] == loader_id and stage["name"] == lifecycle:
                        break
            if loaded is not None:
                return await usable_result(page, landed, loaded, requests, gate)
            return with_given_up(await current_result(page, url=landed), gate)
    except TimeoutError:
        document = (main_frame, loader_id) if loader_id is not None else None
        awaited = f"{what} to reach {STAGES[wait_until]}"
        raise await timed_out_loading(page, awaited, timeout, document, gate, script_timeout, function) from None


@recorded
async def go_back(
    page: Page,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult | None:
    """Go one step back in the page's history and wait as :func:`navigate` does (with
    ``script_timeout`` as there).

    Returns:
        Where it landed, or ``None`` if there is no earlier page (nothing happens).
    """
    check_wait_until(wait_until)
    check_script_timeout(script_timeout)
    return await _history_move(page, -1, wait_until, timeout, "go_back", script_timeout)


@recorded
async def go_forward(
    page: Page,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult | None:
    """Go one step forward in the page's history (waiting as :func:`navigate` does);
    ``None`` if there is no later page."""
    check_wait_until(wait_until)
    check_script_timeout(script_timeout)
    return await _history_move(page, 1, wait_until, timeout, "go_forward", script_timeout)


@recorded
async def reload(
    page: Page,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult:
    """Reload the page and wait as :func:`navigate` does (with ``script_timeout`` as there)."""
    check_wait_until(wait_until)
    check_script_timeout(script_timeout)
    return await _wait_navigation(
        page,
        lambda: page.send(cdp.page.reload()),
        wait_until,
        timeout,
        what=f"the reload of {page.url}",
        function="reload",
        script_timeout=script_timeout,
    )


@recorded
async def wait(page: Page, ms: float) -> None:
    """Wait ``ms`` milliseconds (the page keeps running)."""
    if ms < 0:
        raise ValueError(f"ms must be >= 0, got {ms}")
    await asyncio.sleep(ms / 1000)


_POLL_INTERVAL = 0.1
_WAIT_CHECK = Script("wait_check", uses=("find",))


@recorded
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
        selector: An element matching this CSS selector is in the document or an open
            shadow root (the finder every tool uses).
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
            while True:
                if await evaluate(page, _WAIT_CHECK, selector, text, text_gone, selector=selector):
                    return
                await asyncio.sleep(_POLL_INTERVAL)
    except TimeoutError:
        raise WaitTimeoutError(what, timeout) from None


async def wait_for_network_idle(page: Page, idle_time: float = 0.5) -> None:
    """Return once no request of the page has been in flight for ``idle_time`` seconds.

    Requests are counted from the moment this is called; cancel it to give up.
    """
    in_flight: set[str] = set()
    # Raw events: only the request id is read (building RequestWillBeSent's model costs
    # tens of ms on first use, and a page can send thousands).
    async with page.listen(
        cdp.network.RequestWillBeSent,
        cdp.network.LoadingFinished,
        cdp.network.LoadingFailed,
        raw=True,
    ) as events, page.enabled("Network"):
        while True:
            try:
                async with asyncio.timeout(idle_time if not in_flight else None):
                    event = await anext(events)
            except TimeoutError:
                return
            request_id = str(event.params.get("requestId"))
            if event.method == _REQUEST_SENT:
                in_flight.add(request_id)
            else:
                in_flight.discard(request_id)
