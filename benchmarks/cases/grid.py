"""Selenium Grid: calls through the grid's CDP proxy, and a crawl with a pool on the grid.

The baseline ("raw" column) is cdpkit on a local Chrome in the same run; the "cdpkit"
column is the same work on a real Selenium Grid 4 started on this machine (untimed set-up).
Needs Java, ChromeDriver and `.venv/selenium/selenium-server.jar` (scripts/setup.sh).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric
from benchmarks.cases.calls import _per_call_us
from benchmarks.common import CDPKIT_ARGS, now

JAR = Path(__file__).resolve().parents[2] / ".venv" / "selenium" / "selenium-server.jar"
NODE_ARGS = ["--no-sandbox"] if os.geteuid() == 0 else []
CRAWL_PAGES = 200
CRAWL_PAGES_QUICK = 20
POOL_SIZE = 4
# The crawl queues every page at once: the last callers wait for most of the crawl.
QUEUE_TIMEOUT = 600


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def run_grid(nodes: int, sessions_per_node: int) -> Iterator[str]:
    """A grid on 127.0.0.1: standalone for ``nodes == 0``, else a hub with ``nodes`` nodes."""
    if shutil.which("java") is None or not JAR.is_file():
        raise SystemExit("Selenium Grid needs Java and the server jar: run scripts/setup.sh")
    logs = Path(tempfile.mkdtemp(prefix="cdpkit-bench-grid-"))
    processes: list[subprocess.Popen[bytes]] = []

    def start(name: str, *args: str) -> None:
        with open(logs / f"{name}.log", "wb") as log:
            # In the measuring process's group: a harness that stops it stops the grid too.
            processes.append(subprocess.Popen(["java", "-jar", str(JAR), *args], stdout=log,
                                              stderr=subprocess.STDOUT))

    port = _free_port()
    # More sessions than CPUs needs --override-max-sessions (this machine may have 2).
    common = ["--host", "127.0.0.1", "--selenium-manager", "false",
              "--override-max-sessions", "true"]
    if nodes == 0:
        start("standalone", "standalone", "--port", str(port), "--max-sessions",
              str(sessions_per_node), *common)
    else:
        publish, subscribe = _free_port(), _free_port()
        bus = ["--publish-events", f"tcp://127.0.0.1:{publish}",
               "--subscribe-events", f"tcp://127.0.0.1:{subscribe}"]
        start("hub", "hub", "--host", "127.0.0.1", "--port", str(port), *bus)
        for n in range(nodes):
            start(f"node{n}", "node", "--port", str(_free_port()), "--max-sessions",
                  str(sessions_per_node), *bus, *common)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(f"{url}/status", timeout=2) as response:
                    status = json.loads(response.read())["value"]
                if status["ready"] and len(status["nodes"]) >= max(nodes, 1):
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"the grid did not start; logs in {logs}")
            time.sleep(0.2)
        yield url
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(logs, ignore_errors=True)


@contextlib.asynccontextmanager
async def _grid_page(ctx: Ctx) -> AsyncIterator[Any]:
    import cdpkit

    with run_grid(0, 1) as url:
        async with cdpkit.grid(url, args=[*NODE_ARGS, *CDPKIT_ARGS]) as browser:
            page = await browser.new_page()
            await asyncio.sleep(ctx.sizes.settle_seconds)
            yield page


@contextlib.asynccontextmanager
async def _local_page(ctx: Ctx) -> AsyncIterator[Any]:
    import cdpkit

    async with cdpkit.launch(executable_path=ctx.chrome, args=CDPKIT_ARGS) as browser:
        page = await browser.new_page()
        await asyncio.sleep(ctx.sizes.settle_seconds)
        yield page


async def _calls(page: Any, ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp

    figures = await _per_call_us(lambda: page.send(cdp.runtime.evaluate("1")), ctx)
    calls = ctx.sizes.pipelined_calls
    start = now()
    await asyncio.gather(*(page.send(cdp.runtime.evaluate("1")) for _ in range(calls)))
    figures["per_s"] = calls / (now() - start)
    return figures


async def _local_calls(ctx: Ctx) -> dict[str, float]:
    async with _local_page(ctx) as page:
        return await _calls(page, ctx)


async def _grid_calls(ctx: Ctx) -> dict[str, float]:
    async with _grid_page(ctx) as page:
        return await _calls(page, ctx)


async def _crawl(pool: Any, ctx: Ctx) -> float:
    """Pages per second: every page of the crawl loaded and its text read, through ``pool``."""
    from cdpkit import tools

    pages = CRAWL_PAGES_QUICK if ctx.quick else CRAWL_PAGES

    async def visit(i: int) -> int:
        async with pool.page() as page:
            await tools.navigate(page, f"{ctx.base_url}/article?n={i}")
            return len(str(await tools.evaluate(page, "document.body.innerText")))

    await asyncio.gather(*(visit(-1 - i) for i in range(POOL_SIZE)))  # warm every worker
    start = now()
    sizes = await asyncio.gather(*(visit(i) for i in range(pages)))
    elapsed = now() - start
    assert all(sizes), "a page came back empty"
    return pages / elapsed


async def _local_crawl(ctx: Ctx) -> dict[str, float]:
    import cdpkit

    async with cdpkit.pool(size=POOL_SIZE, queue_timeout=QUEUE_TIMEOUT, executable_path=ctx.chrome, args=CDPKIT_ARGS) as pool:
        return {"pages_per_s": await _crawl(pool, ctx)}


async def _grid_crawl(ctx: Ctx) -> dict[str, float]:
    import cdpkit

    figures = {}
    options = {"args": [*NODE_ARGS, *CDPKIT_ARGS]}
    for nodes, key in ((2, "pages_per_s"), (1, "pages_per_s_one_node")):
        # The same POOL_SIZE sessions in all: on two nodes of two, or one node of four.
        with run_grid(nodes, POOL_SIZE // nodes) as url:
            async with cdpkit.pool(size=POOL_SIZE, queue_timeout=QUEUE_TIMEOUT, grid=url, grid_options=options) as pool:
                figures[key] = await _crawl(pool, ctx)
    return figures


GRID_CALLS = Case(
    name="grid_calls",
    metrics=(Metric("us", "round trip through the grid vs local Chrome (µs/call)"),
             Metric("per_s", "pipelined evaluates through the grid vs local (calls/s)")),
    sides={"raw": _local_calls, "cdpkit": _grid_calls},
    needs=(*CORE_API, "grid"),
    notes=("grid_calls: the \"raw\" column is cdpkit on a local Chrome, the \"cdpkit\" column "
           "the same calls through a standalone Selenium Grid 4's CDP proxy (se:cdp), same "
           "machine.",),
)

GRID_CRAWL = Case(
    name="grid_crawl",
    metrics=(Metric("pages_per_s", "crawl, pool(size=4): grid hub + 2 nodes vs local (pages/s)"),
             Metric("pages_per_s_one_node", "crawl, pool(size=4) on a grid of 1 node (pages/s)")),
    sides={"raw": _local_crawl, "cdpkit": _grid_crawl},
    needs=(*CORE_API, "pool", "grid", "tools.navigate"),
    timeout=900.0,  # two grids started and crawled, 200 pages each
    notes=(f"grid_crawl: {CRAWL_PAGES} article pages, each loaded and its text read, with "
           f"pool(size={POOL_SIZE}); local (\"raw\" column) vs leased from a hub with two "
           "nodes of two sessions, and from one node of four; all on this machine, so the "
           "second node adds no CPU here.",),
)

CASES = (GRID_CALLS, GRID_CRAWL)
