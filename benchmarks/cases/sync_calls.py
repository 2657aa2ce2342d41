"""The cost of cdpkit.sync: ``Runtime.evaluate("1")`` round trips and pipelined calls
through the blocking twins, against the same calls through the async API (the raw column
here). Both sides launch the same Chrome with the same flags."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.cases.calls import BLOCKS, _cdpkit_pipelined, _cdpkit_sequential, _pipelined
from benchmarks.common import CDPKIT_ARGS, now

# Threads sending at once through one sync page: what a sync program pipelines with.
THREADS = 8


def _per_call_us_blocking(call: Callable[[], object], ctx: Ctx) -> dict[str, float]:
    """As calls._per_call_us, for a blocking call."""
    import statistics

    for _ in range(ctx.sizes.warmup_calls):
        call()
    block = max(1, ctx.sizes.sequential_calls // BLOCKS)
    times, cpu = [], []
    for _ in range(BLOCKS):
        start, cpu_start = now(), time.process_time()
        for _ in range(block):
            call()
        times.append((now() - start) / block * 1e6)
        cpu.append((time.process_time() - cpu_start) / block * 1e6)
    return {"us": statistics.median(times), "cpu_us": statistics.median(cpu)}


def _sync_page(ctx: Ctx) -> tuple[object, object]:
    import cdpkit.sync as sync
    from cdpkit import cdp

    browser = sync.launch(executable_path=ctx.chrome, pipe=ctx.pipe, args=CDPKIT_ARGS)
    page = browser.new_page()
    page.send(cdp.page.enable())
    time.sleep(ctx.sizes.settle_seconds)
    return browser, page


def _sync_sequential_blocking(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    browser, page = _sync_page(ctx)
    try:
        return _per_call_us_blocking(lambda: page.send(cdp.runtime.evaluate("1")), ctx)  # type: ignore[attr-defined]
    finally:
        browser.close()  # type: ignore[attr-defined]


def _sync_pipelined_blocking(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    calls = ctx.sizes.pipelined_calls
    browser, page = _sync_page(ctx)
    try:
        for _ in range(ctx.sizes.warmup_calls):
            page.send(cdp.runtime.evaluate("1"))  # type: ignore[attr-defined]

        def share(count: int) -> None:
            for _ in range(count):
                page.send(cdp.runtime.evaluate("1"))  # type: ignore[attr-defined]

        shares = [calls // THREADS + (1 if n < calls % THREADS else 0) for n in range(THREADS)]
        with concurrent.futures.ThreadPoolExecutor(THREADS) as threads:
            start, cpu_start = now(), time.process_time()
            list(threads.map(share, shares))
            return _pipelined(calls, start, cpu_start)
    finally:
        browser.close()  # type: ignore[attr-defined]


# The worker runs every side as a coroutine: the blocking sides run in a thread of their
# own, so that the sync API's loop thread and the caller are what a plain script has.
async def _sync_sequential(ctx: Ctx) -> dict[str, float]:
    return await asyncio.to_thread(_sync_sequential_blocking, ctx)


async def _sync_pipelined(ctx: Ctx) -> dict[str, float]:
    return await asyncio.to_thread(_sync_pipelined_blocking, ctx)


SYNC_ROUNDTRIP = Case(
    name="sync-roundtrip",
    metrics=(
        Metric("us", "sync evaluate round trip (µs/call), raw = async API", Target(ratio_max=1.3)),
        Metric("cpu_us", "sync round trip, client CPU (µs/call)"),
    ),
    sides={"raw": _cdpkit_sequential, "cdpkit": _sync_sequential},
    transports=("port",),
    needs=("launch", "sync", "cdp.page", "cdp.runtime"),
    notes=(
        'sync-roundtrip: `page.send(cdp.runtime.evaluate("1"))` through cdpkit.sync (the '
        "cdpkit column) against the same call awaited through the async API (the raw "
        "column), one at a time, timed as `roundtrip` is.",
    ),
)

SYNC_PIPELINED = Case(
    name="sync-pipelined",
    metrics=(
        Metric("per_s", "sync pipelined evaluates (calls/s), raw = async API"),
        Metric("cpu_us", "sync pipelined evaluates, client CPU (µs/call)"),
    ),
    sides={"raw": _cdpkit_pipelined, "cdpkit": _sync_pipelined},
    transports=("port",),
    needs=("launch", "sync", "cdp.page", "cdp.runtime"),
    notes=(
        f"sync-pipelined: {THREADS} threads sending through one sync page at once (a sync "
        "program's way to pipeline) against asyncio.gather of every call on the async API.",
    ),
)

CASES = (SYNC_ROUNDTRIP, SYNC_PIPELINED)
