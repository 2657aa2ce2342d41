"""Performance: record a Chrome trace that the DevTools Performance panel opens, and the Web
Vitals measured in it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .. import cdp
from .._model import RawEvent
from ..errors import CDPError
from ..page import Page
from ..session import EventStream
from .navigation import reload as reload_page

if TYPE_CHECKING:
    from ..cdp.tracing import TracingCompleteJSON

__all__ = ["LongTask", "PerformanceReport", "performance_trace"]

# The categories the DevTools Performance panel records (screenshots left out: they make
# the file ten times larger).
DEVTOOLS_CATEGORIES = (
    "-*",
    "blink.console",
    "blink.user_timing",
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-devtools.timeline.invalidationTracking",
    "disabled-by-default-v8.cpu_profiler",
    "latencyInfo",
    "loading",
    "toplevel",
    "v8",
    "v8.execute",
)

_CHUNK = 1 << 20
_END_TIMEOUT = 30.0
# Events that name the script a task ran, innermost first in preference.
_SCRIPT_EVENTS = ("FunctionCall", "EvaluateScript", "v8.compile", "TimerFire", "EventDispatch",
                  "FireAnimationFrame", "ParseHTML")  # fmt: skip


@dataclass(frozen=True, slots=True)
class LongTask:
    """One task of the page's main thread.

    Attributes:
        duration_ms: How long it ran.
        start_ms: When it started, in ms after the navigation started (after the
            trace started when there was no navigation).
        url: The script it ran, when the trace names one.
        function: The function (or ``EvaluateScript``, ``ParseHTML``... the kind of
            work) when known.
    """

    duration_ms: float
    start_ms: float
    url: str | None
    function: str | None


@dataclass(frozen=True, slots=True)
class PerformanceReport:
    """What :func:`performance_trace` measured (times in milliseconds from the start of
    the navigation; ``None`` when the trace holds no such measure).

    Attributes:
        path: The trace file (absolute).
        lcp_ms: Largest Contentful Paint.
        cls: Cumulative Layout Shift (the largest session window, as Chrome counts it).
        inp_ms: Interaction to Next Paint: the slowest interaction (needs input during
            the trace, so ``None`` after a plain reload).
        ttfb_ms: Time to First Byte of the document.
        fcp_ms: First Contentful Paint.
        long_tasks: The five longest main-thread tasks, longest first.
        event_count: How many trace events were recorded.
    """

    path: str
    lcp_ms: float | None
    cls: float | None
    inp_ms: float | None
    ttfb_ms: float | None
    fcp_ms: float | None
    long_tasks: list[LongTask]
    event_count: int


async def performance_trace(
    page: Page,
    path: str | os.PathLike[str],
    *,
    reload: bool = True,
    categories: list[str] | None = None,
    duration: float = 1.0,
    timeout: float = 30,
) -> PerformanceReport:
    """Record a performance trace of the page and measure its Web Vitals.

    The trace is Chrome's own (the ``Tracing`` domain, streamed to ``path`` with
    ``IO.read``): a ``{"traceEvents": [...], "metadata": {...}}`` JSON file with the
    categories the DevTools Performance panel records, so that panel ("Load profile")
    and https://ui.perfetto.dev open it. The file appears only complete.

    The vitals are read from the trace events, as DevTools reads them: LCP from the last
    ``largestContentfulPaint::Candidate``, FCP from ``firstContentfulPaint``, CLS from
    the ``LayoutShift`` events (the largest session window: shifts less than 1 s apart,
    at most 5 s long, none after input), INP from ``EventTiming`` (the slowest
    interaction), TTFB from the document's ``ResourceReceiveResponse`` timing; the long
    tasks are the main thread's longest ``RunTask`` events, named by the script work
    inside them (``FunctionCall``, ``EvaluateScript``...).

    Args:
        page: The page.
        path: The trace file to write (its directory must exist); ``.json`` is usual.
        reload: Reload the page under trace (the usual way to measure loading). With
            ``False``, the trace covers ``duration`` seconds of what the page does now
            (interact with it meanwhile from another task to measure INP).
        categories: Trace categories instead of the DevTools set (e.g. add
            ``"disabled-by-default-devtools.screenshot"`` for a filmstrip).
        duration: Seconds to keep recording after the reload's load event (with
            ``reload=False``: after the start), for late paints and layout shifts.
        timeout: Seconds for the reload to reach its load event.

    Returns:
        The trace's path, LCP, CLS, INP, TTFB, FCP (``None`` for what the trace lacks)
        and the five longest main-thread tasks.

    Raises:
        OSError: ``path`` could not be written.
        NavigationError, WaitTimeoutError: The reload failed or did not load in time;
            tracing is stopped all the same and the trace recorded until then is
            written to ``path`` (the exception's note says so).
    """
    destination = Path(path).resolve()
    partial = destination.with_name(f".{destination.name}.part")
    config = cdp.tracing.TraceConfig(
        included_categories=list(categories or DEVTOOLS_CATEGORIES), excluded_categories=["*"]
    )
    saved = False
    try:
        async with page.listen(cdp.tracing.TracingComplete, raw=True) as completed:
            await page.send(
                cdp.tracing.start(
                    trace_config=config, transfer_mode="ReturnAsStream", stream_format="json"
                )
            )
            try:
                if reload:
                    await reload_page(page, timeout=timeout)
                await asyncio.sleep(duration)
            finally:
                await _end_trace(page, completed, partial)  # also when the reload failed
                saved = True
        trace = json.loads(partial.read_text(encoding="utf-8"))
        os.replace(partial, destination)
    except Exception as exc:
        if saved:
            os.replace(partial, destination)
            exc.add_note(f"The trace recorded until then is in {destination}")
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    report = _measure(events, page.target_id)
    ttfb = report.pop("ttfb_ms")
    if ttfb is None and reload:
        ttfb = await _ttfb_from_page(page)
    return PerformanceReport(path=str(destination), ttfb_ms=ttfb, event_count=len(events), **report)


async def _end_trace(page: Page, completed: EventStream[RawEvent], partial: Path) -> None:
    """Stop tracing and write the trace Chrome hands over to ``partial``."""
    with contextlib.suppress(CDPError):
        await page.send(cdp.tracing.end())
    try:
        async with asyncio.timeout(_END_TIMEOUT):
            done = cast("TracingCompleteJSON", (await anext(completed)).params)
    except TimeoutError:
        raise TimeoutError(
            f"Chrome did not hand over the trace within {_END_TIMEOUT:g} s of Tracing.end"
        ) from None
    handle = done.get("stream")
    if handle is None:
        raise CDPError("Chrome ended the trace without a stream to read it from")
    try:
        await _save_stream(page, handle, partial)
    finally:
        with contextlib.suppress(CDPError):
            await page.send(cdp.io.close(handle))


async def _save_stream(page: Page, handle: str, partial: Path) -> None:
    """Write the stream ``handle`` to ``partial``, chunk by chunk."""
    with partial.open("wb") as file:
        while True:
            chunk = await page.send_json(cdp.io.read(cdp.io.StreamHandle(handle), size=_CHUNK))
            data = chunk["data"]
            file.write(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode("utf-8"))
            if chunk["eof"]:
                return


async def _ttfb_from_page(page: Page) -> float | None:
    expression = "(performance.getEntriesByType('navigation')[0] || {}).responseStart || null"
    with contextlib.suppress(CDPError):
        got = await page.send_json(cdp.runtime.evaluate(expression, return_by_value=True))
        value = got["result"].get("value")
        if isinstance(value, int | float) and value > 0:
            return round(float(value), 3)
    return None


def _measure(events: list[dict[str, Any]], main_frame: str) -> dict[str, Any]:
    """The vitals and long tasks in trace ``events`` of the page whose main frame is
    ``main_frame`` (in ms, relative to its last navigation's start)."""
    navigation = None
    for event in events:
        data = event.get("args", {}).get("data", {})
        if (
            event.get("name") == "navigationStart"
            and event.get("args", {}).get("frame") == main_frame
            and data.get("isLoadingMainFrame")
            and data.get("documentLoaderURL")
        ):
            navigation = event
    main_thread = _main_thread(events, main_frame, navigation)
    start = navigation["ts"] if navigation is not None else min(
        (e["ts"] for e in events if e.get("ph") != "M" and e.get("ts")), default=0
    )
    navigation_id = navigation["args"]["data"].get("navigationId") if navigation else None

    def of_this_load(event: dict[str, Any]) -> bool:
        args = event.get("args", {})
        if args.get("frame") != main_frame:
            return False
        return navigation_id is None or args.get("data", {}).get("navigationId") == navigation_id

    def since_start(ts: float) -> float:
        return round((ts - start) / 1000, 3)

    fcp = lcp = None
    for event in events:
        name = event.get("name")
        if name == "firstContentfulPaint" and of_this_load(event) and fcp is None:
            fcp = since_start(event["ts"])
        elif name == "largestContentfulPaint::Candidate" and of_this_load(event):
            lcp = since_start(event["ts"])  # the last candidate is the LCP
        elif name == "largestContentfulPaint::Invalidate" and of_this_load(event):
            lcp = None
    return {
        "fcp_ms": fcp,
        "lcp_ms": lcp,
        "cls": _cls(events, main_frame, start),
        "inp_ms": _inp(events, main_thread),
        "ttfb_ms": _ttfb(events, navigation),
        "long_tasks": _long_tasks(events, main_thread, start),
    }


def _main_thread(
    events: list[dict[str, Any]], main_frame: str, navigation: dict[str, Any] | None
) -> tuple[int, int] | None:
    """(pid, tid) of the renderer main thread that runs the page's main frame."""
    if navigation is not None:
        return navigation["pid"], navigation["tid"]
    pids = {
        frame.get("processId")
        for event in events
        if event.get("name") == "TracingStartedInBrowser"
        for frame in event.get("args", {}).get("data", {}).get("frames", [])
        if frame.get("frame") == main_frame
    }
    for event in events:
        if (
            event.get("ph") == "M"
            and event.get("name") == "thread_name"
            and event.get("args", {}).get("name") == "CrRendererMain"
            and event.get("pid") in pids
        ):
            return event["pid"], event["tid"]
    return None


def _cls(events: list[dict[str, Any]], main_frame: str, start: float) -> float | None:
    """The largest session window of layout shifts (gaps under 1 s, at most 5 s long)."""
    shifts = []
    for event in events:
        if event.get("name") != "LayoutShift" or event.get("ts", 0) < start:
            continue
        args = event.get("args", {})
        data = args.get("data", {})
        if args.get("frame") != main_frame or data.get("had_recent_input"):
            continue
        shifts.append((event["ts"], float(data.get("weighted_score_delta", data.get("score", 0)))))
    if not shifts:
        return 0.0 if start else None
    best = window = 0.0
    window_start = previous = None
    for ts, score in sorted(shifts):
        if previous is None or window_start is None or ts - previous > 1_000_000 or ts - window_start > 5_000_000:
            window, window_start = 0.0, ts
        window += score
        previous = ts
        best = max(best, window)
    return round(best, 4)


def _inp(events: list[dict[str, Any]], main_thread: tuple[int, int] | None) -> float | None:
    """The slowest interaction's duration (``EventTiming`` events with an interaction id)."""
    durations: dict[int, float] = {}
    for event in events:
        if event.get("name") != "EventTiming" or event.get("ph") not in ("b", "X"):
            continue
        if main_thread is not None and event.get("pid") != main_thread[0]:
            continue
        data = event.get("args", {}).get("data", {})
        interaction = data.get("interactionId") or 0
        duration = data.get("duration")
        if interaction and isinstance(duration, int | float):
            durations[interaction] = max(durations.get(interaction, 0.0), float(duration))
    if not durations:
        return None
    ordered = sorted(durations.values(), reverse=True)
    # Like Chrome: one outlier ignored per 50 interactions.
    return round(ordered[min(len(ordered) // 50, len(ordered) - 1)], 3)


def _ttfb(events: list[dict[str, Any]], navigation: dict[str, Any] | None) -> float | None:
    if navigation is None:
        return None
    url = navigation["args"]["data"]["documentLoaderURL"]
    request_ids = {
        event["args"]["data"].get("requestId")
        for event in events
        if event.get("name") == "ResourceSendRequest"
        and event.get("args", {}).get("data", {}).get("url") == url
    }
    for event in events:
        data = event.get("args", {}).get("data", {})
        if event.get("name") == "ResourceReceiveResponse" and data.get("requestId") in request_ids:
            timing = data.get("timing")
            if not timing:
                continue
            headers = timing.get("receiveHeadersStart", timing.get("receiveHeadersEnd", -1))
            if headers < 0:
                continue
            first_byte = float(timing["requestTime"]) * 1e6 + float(headers) * 1000
            return round((first_byte - float(navigation["ts"])) / 1000, 3)
    return None


def _long_tasks(
    events: list[dict[str, Any]], main_thread: tuple[int, int] | None, start: float
) -> list[LongTask]:
    if main_thread is None:
        return []
    pid, tid = main_thread
    on_thread = [e for e in events if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X"]
    tasks = sorted(
        (e for e in on_thread if e.get("name") == "RunTask" and e.get("dur")),
        key=lambda e: e["dur"],
        reverse=True,
    )[:5]
    inner = [e for e in on_thread if e.get("name") in _SCRIPT_EVENTS]
    found = []
    for task in tasks:
        begin, end = task["ts"], task["ts"] + task["dur"]
        work = [e for e in inner if begin <= e["ts"] < end]
        url = function = None
        for event in sorted(work, key=lambda e: _SCRIPT_EVENTS.index(e["name"])):
            data = event.get("args", {}).get("data", {}) or event.get("args", {}).get("beginData", {})
            url = url or data.get("url") or None
            function = function or data.get("functionName") or None
            if url and function:
                break
        if work and function is None:
            function = sorted(work, key=lambda e: _SCRIPT_EVENTS.index(e["name"]))[0]["name"]
        found.append(
            LongTask(round(task["dur"] / 1000, 3), round((begin - start) / 1000, 3), url, function)
        )
    return found
