"""Command round trips: sequential and pipelined ``Runtime.evaluate("1")`` on a page."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.cases.clients import cdpkit_page, playwright_page, raw_page
from benchmarks.common import now

_EVALUATE = {"expression": "1"}
BLOCKS = 10


async def _per_call_us(call: Callable[[], Awaitable[object]], ctx: Ctx) -> dict[str, float]:
    """Time sequential calls after a warm-up, in blocks; the median block's µs per call.

    A burst of noise from elsewhere on the machine spoils one block, not the figure.
    """
    for _ in range(ctx.sizes.warmup_calls):
        await call()
    block = max(1, ctx.sizes.sequential_calls // BLOCKS)
    times = []
    cpu = []
    for _ in range(BLOCKS):
        start, cpu_start = now(), time.process_time()
        for _ in range(block):
            await call()
        times.append((now() - start) / block * 1e6)
        cpu.append((time.process_time() - cpu_start) / block * 1e6)
    return {"us": statistics.median(times), "cpu_us": statistics.median(cpu)}


def _pipelined(calls: int, start: float, cpu_start: float) -> dict[str, float]:
    return {"per_s": calls / (now() - start),
            "cpu_us": (time.process_time() - cpu_start) / calls * 1e6}


async def _raw_sequential(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx) as (client, session):
        return await _per_call_us(
            lambda: client.send("Runtime.evaluate", _EVALUATE, session), ctx)


async def _cdpkit_sequential(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    async with cdpkit_page(ctx) as page:
        return await _per_call_us(lambda: page.send(cdp.runtime.evaluate("1")), ctx)


async def _playwright_sequential(ctx: Ctx) -> dict[str, float]:
    async with playwright_page(ctx) as page:
        return await _per_call_us(lambda: page.evaluate("1"), ctx)


async def _raw_pipelined(ctx: Ctx) -> dict[str, float]:
    calls = ctx.sizes.pipelined_calls
    async with raw_page(ctx) as (client, session):
        for _ in range(ctx.sizes.warmup_calls):
            await client.send("Runtime.evaluate", _EVALUATE, session)
        start, cpu_start = now(), time.process_time()
        await asyncio.gather(*(client.send("Runtime.evaluate", _EVALUATE, session)
                               for _ in range(calls)))
        return _pipelined(calls, start, cpu_start)


async def _cdpkit_pipelined(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    calls = ctx.sizes.pipelined_calls
    async with cdpkit_page(ctx) as page:
        for _ in range(ctx.sizes.warmup_calls):
            await page.send(cdp.runtime.evaluate("1"))
        start, cpu_start = now(), time.process_time()
        await asyncio.gather(*(page.send(cdp.runtime.evaluate("1")) for _ in range(calls)))
        return _pipelined(calls, start, cpu_start)


async def _playwright_pipelined(ctx: Ctx) -> dict[str, float]:
    calls = ctx.sizes.pipelined_calls
    async with playwright_page(ctx) as page:
        for _ in range(ctx.sizes.warmup_calls):
            await page.evaluate("1")
        start, cpu_start = now(), time.process_time()
        await asyncio.gather(*(page.evaluate("1") for _ in range(calls)))
        return _pipelined(calls, start, cpu_start)


SEQUENTIAL = Case(
    name="roundtrip",
    metrics=(Metric("us", "sequential evaluate round trip (µs/call)", Target(ratio_max=1.15)),
             Metric("cpu_us", "sequential round trip, client CPU (µs/call)")),
    sides={"raw": _raw_sequential, "cdpkit": _cdpkit_sequential,
           "playwright": _playwright_sequential},
    transports=("port", "pipe"),
    notes=("round trip: `Runtime.evaluate(\"1\")` on a page session, one at a time after a "
           f"warm-up, timed in {BLOCKS} blocks (the median block counts); cdpkit builds a typed "
           "command and parses the typed result each call.",),
)

PIPELINED = Case(
    name="pipelined",
    metrics=(Metric("per_s", "pipelined evaluates (calls/s)", Target(ratio_min=0.85)),
             Metric("cpu_us", "pipelined evaluates, client CPU (µs/call)")),
    sides={"raw": _raw_pipelined, "cdpkit": _cdpkit_pipelined,
           "playwright": _playwright_pipelined},
    transports=("port", "pipe"),
    notes=("pipelined: all evaluates sent at once with asyncio.gather.",
           "client CPU: the client process's CPU time (user + system) over the same calls, "
           "divided by their number: what the client itself costs, which a loaded machine "
           "barely moves, where wall-clock figures also count time spent waiting for a core "
           "and for Chrome.",),
)

CASES = (SEQUENTIAL, PIPELINED)
