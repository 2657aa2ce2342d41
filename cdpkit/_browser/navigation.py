"""The navigation primitive under ``Page``: load a URL and wait for a lifecycle stage,
following the page through renderer swaps.

``Browser.new_page(url=...)`` needs it and sits below the tools, so it lives here;
``cdpkit.tools.navigation`` builds ``navigate``, the history moves and the waits on it.
The waiting itself is :mod:`cdpkit._browser.lifecycle`; giving up parser-blocking scripts and
the words for a page that shows nothing yet, :mod:`cdpkit._browser.script_gate`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .._core.urls import ONLY_IN_THE_DEFAULT_CONTEXT, browser_page
from .._model import RawEvent
from ..errors import CDPError, NavigationError, ProtocolError, TargetClosedError, WaitTimeoutError
from .lifecycle import InFlight, parser_waits, send_retrying, wait_lifecycle, wait_usable
from .script_gate import NavigationGate, Stall, forget_stall, giving_up_scripts, stall_words

if TYPE_CHECKING:
    from ..page import Page
    from ..session import EventStream

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

_SAME_DOCUMENT_WAIT = 2.0  # at most this for a fragment move to be reported
_FRAME_NAVIGATED_WAIT = 0.5  # at most this for frameNavigated after a commit
_STOP_TIMEOUT = 2.0  # for Page.stopLoading after a timeout


def timed_out(what: str, timeout: float, function: str) -> WaitTimeoutError:
    return WaitTimeoutError(
        f"{what}; pass a larger timeout= to {function}() if the page is just slow", timeout
    )


class ParserWaitTimeoutError(WaitTimeoutError):
    """A navigation did not reach its stage in time while its document's parser waited on
    scripts (a ``WaitTimeoutError`` whose message names them).

    Attributes:
        stage: What was awaited, in words, without the scripts.
        parser_waits: Each script the parser waited on then: (URL, seconds it had waited).
        script_timeout: The navigation's ``script_timeout``.
    """

    def __init__(
        self,
        stage: str,
        timeout: float,
        function: str,
        parser_waits: tuple[tuple[str, float], ...],
        script_timeout: float | None,
    ) -> None:
        if script_timeout is None:
            remedy = "a script_timeout gives such scripts up"
        else:
            remedy = f"each is given up after {script_timeout:g} s: script_timeout"
        what = f"{stage}; {parser_wait_words(parser_waits)} ({remedy})"
        super().__init__(f"{what}; pass a larger timeout= to {function}() if the page is just slow", timeout)
        self.stage = stage
        self.parser_waits = parser_waits
        self.script_timeout = script_timeout


def parser_wait_words(waits: tuple[tuple[str, float], ...]) -> str:
    """``"the parser waits on <script src=URL> for N s"`` (each script, comma-separated)."""
    return "the parser waits on " + ", ".join(f"<script src={url}> for {waited:.0f} s" for url, waited in waits)


async def timed_out_loading(
    page: Page,
    stage: str,
    timeout: float,
    document: tuple[str, str] | None,
    gate: NavigationGate | None,
    script_timeout: float | None,
    function: str = "navigate",
) -> WaitTimeoutError:
    """The error of a navigation (by ``function``) that timed out; naming the scripts its
    parser waits on when it does (``document``: its frame and loader, once known)."""
    if document is not None:
        given_up = set(gate.given_up()) if gate is not None else set()
        waits = tuple(wait for wait in await parser_waits(page, *document) if wait[0] not in given_up)
        if waits:
            return ParserWaitTimeoutError(stage, timeout, function, waits, script_timeout)
    return timed_out(stage, timeout, function)


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
    if page.context is not None and browser_page(url):
        raise NavigationError(url, ONLY_IN_THE_DEFAULT_CONTEXT)
    lifecycle = LIFECYCLE_EVENTS.get(wait_until)
    answered = False
    document: tuple[str, str] | None = None  # (frame, loader) of the new document
    gate: NavigationGate | None = None
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
            document = frame_id, str(loader_id)
            if wait_until == "usable":
                loaded = await wait_usable(page, events, frame_id, loader_id, requests)
                return await usable_result(page, None, loaded, requests, gate)
            if lifecycle is None:
                committed = await _wait_commit(events, frame_id, loader_id)
                return await current_result(page, url=committed)
            # By the lifecycle event the history has the new entry: it gives the URL.
            await wait_lifecycle(events, frame_id, loader_id, lifecycle)
            return with_given_up(await current_result(page), gate)
    except TimeoutError:
        if not answered:
            # No response yet: stop it, or it would abort the next navigation to the
            # same URL (net::ERR_ABORTED at once) and could still replace the page later.
            with contextlib.suppress(CDPError):
                await page.call("Page.stopLoading", timeout=_STOP_TIMEOUT)
        stage = f"the navigation to {url} to reach {STAGES[wait_until]}"
        raise await timed_out_loading(page, stage, timeout, document, gate, script_timeout) from None


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
