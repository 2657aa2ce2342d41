"""Memory over a long session: many navigations, then a console flood; flat is the target.

Each side loads a page, navigates it :data:`NAVIGATIONS` times (to a fresh URL each time,
waiting for the load event) and then logs ``console_messages`` messages it receives one by
one. The resident memory of the client process and of Chrome (its whole process group,
summed) is read after the set-up, after 100 navigations, after all of them and after the
flood; the client's peak is its high-water mark.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.cases.clients import cdpkit_load, cdpkit_page, raw_page
from benchmarks.common import peak_rss_mb, reset_peak_rss, rss_mb

EVENT_TIMEOUT = 120.0
NAVIGATIONS = 1_000
QUICK_NAVIGATIONS = 120
EARLY = 100  # navigations before the second reading: warm-up, caches filled


def _chrome_rss_mb() -> float:
    """Memory of the Chrome process groups this process started, summed: PSS (shared
    pages split between the processes sharing them), RSS where PSS cannot be read."""
    me = os.getpid()
    groups = set()
    processes = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
            with open(f"/proc/{entry}/comm") as comm:
                name = comm.read().strip()
        except OSError:
            continue  # exited meanwhile
        ppid, pgrp = int(fields[1]), int(fields[2])
        processes.append((entry, pgrp, int(fields[21]) * os.sysconf("SC_PAGE_SIZE")))
        if ppid == me and "chrom" in name:
            groups.add(pgrp)
    return sum(_pss_bytes(pid, rss) for pid, pgrp, rss in processes if pgrp in groups) / 1e6


def _pss_bytes(pid: str, rss: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss


async def _measure(ctx: Ctx, navigate: Callable[[str], Awaitable[None]],
                   flood: Callable[[int], Awaitable[int]]) -> dict[str, float]:
    readings: dict[str, float] = {}

    def read(label: str) -> None:
        readings[f"py_{label}_mb"] = rss_mb()
        readings[f"chrome_{label}_mb"] = _chrome_rss_mb()

    reset_peak_rss()
    read("start")
    total = QUICK_NAVIGATIONS if ctx.quick else NAVIGATIONS
    for index in range(total):
        await navigate(f"{ctx.base_url}/console?n={index}")
        if index + 1 == min(EARLY, total):
            read("early")
    read("navigated")
    received = await flood(ctx.sizes.console_messages)
    if received != ctx.sizes.console_messages:
        raise RuntimeError(f"received {received} of {ctx.sizes.console_messages} events")
    read("flood")
    readings["py_peak_mb"] = peak_rss_mb()
    for side in ("py", "chrome"):
        readings[f"{side}_growth_mb"] = (readings[f"{side}_navigated_mb"]
                                         - readings[f"{side}_early_mb"])
        readings[f"{side}_flood_growth_mb"] = (readings[f"{side}_flood_mb"]
                                               - readings[f"{side}_navigated_mb"])
    return readings


async def _raw(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx, "/console") as (client, session):

        async def navigate(url: str) -> None:
            await client.load(session, url)

        async def flood(count: int) -> int:
            received = 0
            done = asyncio.get_running_loop().create_future()

            def on_event(event: dict[str, Any]) -> None:
                nonlocal received
                if event.get("method") == "Runtime.consoleAPICalled":
                    received += 1
                    if received == count and not done.done():
                        done.set_result(None)

            client.on_event = on_event
            await client.send("Runtime.enable", None, session)
            await client.send("Runtime.evaluate", {"expression": f"flood({count})"}, session)
            await asyncio.wait([done], timeout=EVENT_TIMEOUT)
            return received

        return await _measure(ctx, navigate, flood)


async def _cdpkit(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    async with cdpkit_page(ctx, "/console") as page:

        async def navigate(url: str) -> None:
            await cdpkit_load(page, url)

        async def flood(count: int) -> int:
            received = 0
            async with page.listen(cdp.runtime.ConsoleAPICalled) as events:
                await page.send(cdp.runtime.enable())
                await page.send(cdp.runtime.evaluate(f"flood({count})"))
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(EVENT_TIMEOUT):
                        async for _ in events:
                            received += 1
                            if received == count:
                                break
            return received

        return await _measure(ctx, navigate, flood)


_FLAT = Target(abs_max=10)  # MB: what a long session may grow by, allocator noise included


def _metrics() -> tuple[Metric, ...]:
    metrics = []
    for side, name in (("py", "RSS of the client process"),
                       ("chrome", "memory (PSS) of Chrome's process group")):
        metrics += [
            Metric(f"{side}_start_mb", f"{name} after set-up (MB)"),
            Metric(f"{side}_early_mb", f"{name} after {EARLY} navigations (MB)"),
            Metric(f"{side}_navigated_mb", f"{name} after {NAVIGATIONS:,} navigations (MB)"),
            Metric(f"{side}_flood_mb", f"{name} after the console flood (MB)"),
            Metric(f"{side}_growth_mb", f"{name}, growth from {EARLY} to {NAVIGATIONS:,} "
                   "navigations (MB)", _FLAT if side == "py" else None),
            Metric(f"{side}_flood_growth_mb", f"{name}, growth over the flood (MB)",
                   _FLAT if side == "py" else None),
        ]
    metrics.append(Metric("py_peak_mb", "peak RSS of the client process (MB)"))
    return tuple(metrics)


MEMORY = Case(
    name="memory",
    metrics=_metrics(),
    sides={"raw": _raw, "cdpkit": _cdpkit},
    transports=("port", "pipe"),
    timeout=900.0,  # 1,000 navigations on a loaded machine take minutes
    notes=(f"memory: one page navigated {NAVIGATIONS:,} times (a fresh URL each, until "
           "its load event), then a flood of `console_messages` console events received one "
           "by one; RSS read after the set-up, after 100 navigations, after all and after "
           "the flood. Chrome's figure sums its whole process group. Growth targets apply "
           "to the client process: Chrome's own memory is Chrome's.",),
)

CASES = (MEMORY,)
