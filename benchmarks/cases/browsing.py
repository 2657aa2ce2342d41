"""Work on pages: navigation, full-page screenshot, accessibility snapshot, console flood."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import statistics
import struct
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target
from benchmarks.cases.clients import cdpkit_load, cdpkit_page, playwright_page, raw_page
from benchmarks.common import now

EVENT_TIMEOUT = 60.0


async def _median_ms(action: Callable[[int], Awaitable[Any]], warmups: int,
                     repeats: int) -> float:
    """Median time of ``action(i)`` after ``warmups`` untimed calls, in ms."""
    for i in range(warmups):
        await action(-1 - i)
    times = []
    for i in range(repeats):
        start = now()
        await action(i)
        times.append((now() - start) * 1e3)
    return statistics.median(times)


# Navigation: each load gets its own query string so nothing comes from a cache.

async def _raw_navigation(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx, "/blank") as (client, session):
        return {"ms": await _median_ms(
            lambda i: client.load(session, f"{ctx.base_url}/article?n={i}"),
            1, ctx.sizes.navigations)}


async def _cdpkit_navigation(ctx: Ctx) -> dict[str, float]:
    async with cdpkit_page(ctx, "/blank") as page:
        return {"ms": await _median_ms(
            lambda i: cdpkit_load(page, f"{ctx.base_url}/article?n={i}"),
            1, ctx.sizes.navigations)}


async def _playwright_navigation(ctx: Ctx) -> dict[str, float]:
    async with playwright_page(ctx, "/blank") as page:
        return {"ms": await _median_ms(
            lambda i: page.goto(f"{ctx.base_url}/article?n={i}", wait_until="load"),
            1, ctx.sizes.navigations)}


NAVIGATION = Case(
    name="navigation",
    metrics=(Metric("ms", "navigation to the article, until load (ms)"),),
    sides={"raw": _raw_navigation, "cdpkit": _cdpkit_navigation,
           "playwright": _playwright_navigation},
    notes=("navigation: Page.navigate until Page.loadEventFired; cdpkit through `page.expect` "
           "+ `page.send`, the core API (tools.navigate does more: status and title).",),
)


# Full-page screenshot of the tall page: one warm-up, then the median of two.

def _png_height(png: bytes) -> int:
    if not png.startswith(b"\x89PNG"):
        raise ValueError("not a PNG")
    return int(struct.unpack(">I", png[20:24])[0])


async def _raw_screenshot(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx, "/tall") as (client, session):
        heights = []

        async def shoot(_: int) -> None:
            metrics = await client.send("Page.getLayoutMetrics", None, session)
            size = metrics["cssContentSize"]
            shot = await client.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                         "scale": 1}}, session)
            heights.append(_png_height(base64.b64decode(shot["data"])))

        ms = await _median_ms(shoot, 1, 2)
        return {"ms": ms, "height_px": min(heights)}


async def _cdpkit_screenshot(ctx: Ctx) -> dict[str, float]:
    from cdpkit import tools

    async with cdpkit_page(ctx, "/tall") as page:
        heights = []

        async def shoot(_: int) -> None:
            heights.append(_png_height(await tools.screenshot(page, full_page=True)))

        ms = await _median_ms(shoot, 1, 2)
        return {"ms": ms, "height_px": min(heights)}


async def _playwright_screenshot(ctx: Ctx) -> dict[str, float]:
    async with playwright_page(ctx, "/tall") as page:
        heights = []

        async def shoot(_: int) -> None:
            heights.append(_png_height(await page.screenshot(full_page=True)))

        ms = await _median_ms(shoot, 1, 2)
        return {"ms": ms, "height_px": min(heights)}


SCREENSHOT = Case(
    name="screenshot",
    metrics=(Metric("ms", "full-page screenshot of the tall page (ms)", Target(ratio_max=1.1)),
             Metric("height_px", "screenshot height (px)",
                    Target(abs_min="tall_px", every_run=True))),
    sides={"raw": _raw_screenshot, "cdpkit": _cdpkit_screenshot,
           "playwright": _playwright_screenshot},
    transports=("port", "pipe"),
    needs=(*CORE_API, "tools.screenshot"),
    notes=("screenshot: raw is Page.getLayoutMetrics + Page.captureScreenshot "
           "(captureBeyondViewport, clip to the content size) + base64 decode; cdpkit is "
           "`tools.screenshot(page, full_page=True)`.",),
)


# Accessibility snapshot of the 5,000-element page: one warm-up, then the median of two.

async def _raw_snapshot(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx, "/elements") as (client, session):
        counts = []

        async def snap(_: int) -> None:
            tree = await client.send("Accessibility.getFullAXTree", None, session)
            counts.append(len(tree["nodes"]))

        return {"ms": await _median_ms(snap, 1, 2), "nodes": min(counts)}


async def _cdpkit_snapshot(ctx: Ctx) -> dict[str, float]:
    from cdpkit import tools

    async with cdpkit_page(ctx, "/elements") as page:
        counts = []

        async def snap(_: int) -> None:
            counts.append(len((await tools.snapshot(page)).nodes))

        return {"ms": await _median_ms(snap, 1, 2), "nodes": min(counts)}


async def _playwright_snapshot(ctx: Ctx) -> dict[str, float]:
    async with playwright_page(ctx, "/elements") as page:
        counts = []

        async def snap(_: int) -> None:
            counts.append((await page.locator("body").aria_snapshot()).count("\n") + 1)

        return {"ms": await _median_ms(snap, 1, 2), "nodes": min(counts)}


SNAPSHOT = Case(
    name="snapshot",
    metrics=(Metric("ms", "accessibility snapshot of the element page (ms)",
                    Target(ratio_max=0.6)),),
    sides={"raw": _raw_snapshot, "cdpkit": _cdpkit_snapshot,
           "playwright": _playwright_snapshot},
    needs=(*CORE_API, "tools.snapshot"),
    notes=("snapshot: raw is the Accessibility.getFullAXTree round trip and JSON parse only; "
           "cdpkit is `tools.snapshot(page)`: the outline computed in the page (the default "
           "engine; roles, names, states, values and boxes of every node, the outline text "
           "and its stable indices; `engine=\"chrome\"` builds it from that same tree plus a "
           "DOMSnapshot.captureSnapshot for the boxes); "
           "Playwright is `locator('body').aria_snapshot()`.",),
)


# Console flood: Runtime.enable, then flood(N) logs N messages; time until the N-th event.
# One untimed flood, then the median of FLOODS (as navigation takes the median of its loads):
# a single 0.6 s flood on two cores swings by a third from one launch to the next.
FLOODS = 3


async def _median_flood(flood: Callable[[], Awaitable[int]]) -> dict[str, float]:
    """Run ``flood`` (it returns the events it received) once untimed, then ``FLOODS``
    times: the median time and client CPU, and the fewest events any flood received."""
    await flood()
    times, cpus, received = [], [], []
    for _ in range(FLOODS):
        start, cpu = now(), time.process_time()
        received.append(await flood())
        times.append((now() - start) * 1e3)
        cpus.append((time.process_time() - cpu) * 1e3)
    return {"ms": statistics.median(times), "received": min(received),
            "cpu_ms": statistics.median(cpus)}


async def _raw_console(ctx: Ctx) -> dict[str, float]:
    expected = ctx.sizes.console_messages
    async with raw_page(ctx, "/console") as (client, session):
        received = 0
        all_received = asyncio.get_running_loop().create_future()

        def on_event(event: dict[str, Any]) -> None:
            nonlocal received
            if event.get("method") == "Runtime.consoleAPICalled":
                received += 1
                if received == expected:
                    all_received.set_result(None)

        async def flood() -> int:
            nonlocal received, all_received
            received, all_received = 0, asyncio.get_running_loop().create_future()
            await client.send("Runtime.evaluate", {"expression": f"flood({expected})"}, session)
            await asyncio.wait([all_received], timeout=EVENT_TIMEOUT)
            return received

        client.on_event = on_event
        await client.send("Runtime.enable", None, session)
        return await _median_flood(flood)


async def _cdpkit_console(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    expected = ctx.sizes.console_messages
    async with cdpkit_page(ctx, "/console") as page, page.listen(
        cdp.runtime.ConsoleAPICalled
    ) as events:

        async def flood() -> int:
            received = 0
            await page.send(cdp.runtime.evaluate(f"flood({expected})"))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(EVENT_TIMEOUT):
                    async for _ in events:
                        received += 1
                        if received == expected:
                            break
            return received

        await page.send(cdp.runtime.enable())
        return await _median_flood(flood)


async def _playwright_console(ctx: Ctx) -> dict[str, float]:
    expected = ctx.sizes.console_messages
    async with playwright_page(ctx, "/console") as page:
        received = 0
        all_received = asyncio.get_running_loop().create_future()

        def on_console(_: Any) -> None:
            nonlocal received
            received += 1
            if received == expected:
                all_received.set_result(None)

        async def flood() -> int:
            nonlocal received, all_received
            received, all_received = 0, asyncio.get_running_loop().create_future()
            await page.evaluate(f"flood({expected})")
            await asyncio.wait([all_received], timeout=EVENT_TIMEOUT)
            return received

        page.on("console", on_console)
        return await _median_flood(flood)


CONSOLE = Case(
    name="console",
    metrics=(Metric("ms", "console flood, until the last event (ms)", Target(ratio_max=1.2)),
             Metric("received", "console events received",
                    Target(abs_min="console_messages", every_run=True)),
             Metric("cpu_ms", "console flood: the client's CPU time (ms)")),
    sides={"raw": _raw_console, "cdpkit": _cdpkit_console, "playwright": _playwright_console},
    transports=("port", "pipe"),
    notes=("console: time from sending `flood(N)` until the N-th Runtime.consoleAPICalled "
           "reached the caller (cdpkit: through `page.listen`); each run floods once "
           f"untimed, then {FLOODS} times, and gives the median.",),
)

CASES = (NAVIGATION, SCREENSHOT, SNAPSHOT, CONSOLE)
