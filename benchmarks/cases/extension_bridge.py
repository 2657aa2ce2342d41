"""The cost of the extension bridge: the same browser (headless Chromium with the shipped
extension loaded and the native host installed, as a person's browser runs, plus a
debugging port for the comparison) driven by cdpkit through its own debugging port (the
raw column) and through ``connect("extension")`` (the cdpkit column). Each side starts
that browser afresh with the same command line; the bridge is started by the browser."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.cases.browsing import _median_ms
from benchmarks.cases.calls import _per_call_us, _pipelined
from benchmarks.common import now


async def _wait_for(read: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError, IndexError):  # half written
            found = read()
            if found:
                return found
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no {what} within {timeout} s")


@contextlib.asynccontextmanager
async def _persons_browser(ctx: Ctx) -> AsyncIterator[str]:
    """The browser; yields its own debugging endpoint (``http://127.0.0.1:PORT``), with
    this process's runtime folder pointed where its bridge publishes itself."""
    from cdpkit._bridge import EXTENSION_DIR, install

    folder = Path(tempfile.mkdtemp(prefix="cdpkit-bench-bridge-"))
    runtime, profile = folder / "runtime", folder / "profile"
    runtime.mkdir(mode=0o700)
    profile.mkdir()
    previous = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    install(["chromium"], profile)
    flags = [flag for flag in ctx.chrome_flags if flag != "--disable-extensions"]
    process = subprocess.Popen(  # noqa: ASYNC220 (started once, before anything is timed)
        [ctx.chrome, *flags, f"--user-data-dir={profile}", f"--load-extension={EXTENSION_DIR}",
         "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    bridge = runtime / "cdpkit" / "bridge.json"
    try:
        port = await _wait_for(lambda: int((profile / "DevToolsActivePort").read_text().split()[0]),
                               30, "debugging port")  # fmt: skip
        await _wait_for(lambda: json.loads(bridge.read_text())["port"], 30, "bridge")
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(OSError, ValueError, KeyError):
            os.kill(int(json.loads(bridge.read_text())["pid"]), signal.SIGTERM)
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        if process.poll() is None:
            process.kill()
        if previous is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = previous
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.asynccontextmanager
async def _page(ctx: Ctx, through_bridge: bool, path: str = "/blank") -> AsyncIterator[Any]:
    import cdpkit
    from cdpkit import cdp, tools

    async with contextlib.AsyncExitStack() as stack:
        endpoint = await stack.enter_async_context(_persons_browser(ctx))
        browser = await stack.enter_async_context(
            cdpkit.connect("extension" if through_bridge else endpoint)
        )
        page = await browser.new_page()
        await tools.navigate(page, ctx.base_url + path)
        await page.send(cdp.page.enable())
        await asyncio.sleep(ctx.sizes.settle_seconds)
        yield page


def _roundtrip(through_bridge: bool) -> Callable[[Ctx], Awaitable[dict[str, float]]]:
    async def side(ctx: Ctx) -> dict[str, float]:
        from cdpkit import cdp

        async with _page(ctx, through_bridge) as page:
            return await _per_call_us(lambda: page.send(cdp.runtime.evaluate("1")), ctx)

    return side


def _pipelined_side(through_bridge: bool) -> Callable[[Ctx], Awaitable[dict[str, float]]]:
    async def side(ctx: Ctx) -> dict[str, float]:
        from cdpkit import cdp

        calls = ctx.sizes.pipelined_calls
        async with _page(ctx, through_bridge) as page:
            for _ in range(ctx.sizes.warmup_calls):
                await page.send(cdp.runtime.evaluate("1"))
            start, cpu_start = now(), time.process_time()
            await asyncio.gather(*(page.send(cdp.runtime.evaluate("1")) for _ in range(calls)))
            return _pipelined(calls, start, cpu_start)

    return side


def _snapshot(through_bridge: bool) -> Callable[[Ctx], Awaitable[dict[str, float]]]:
    async def side(ctx: Ctx) -> dict[str, float]:
        from cdpkit import tools

        async with _page(ctx, through_bridge, "/elements") as page:
            counts: list[int] = []

            async def snap(_: int) -> None:
                counts.append(len((await tools.snapshot(page)).nodes))

            return {"ms": await _median_ms(snap, 1, 2), "nodes": min(counts)}

    return side


_NEEDS = ("connect", "tools.snapshot", "tools.navigate", "cdp.page", "cdp.runtime")

BRIDGE_ROUNDTRIP = Case(
    name="bridge-roundtrip",
    metrics=(
        Metric("us", "evaluate round trip through the extension (µs/call), raw = its port",
               Target(ratio_max=3.0)),
        Metric("cpu_us", "bridge round trip, client CPU (µs/call)"),
    ),
    sides={"raw": _roundtrip(False), "cdpkit": _roundtrip(True)},
    transports=("port",),
    needs=_NEEDS,
    notes=(
        "bridge-roundtrip: `page.send(cdp.runtime.evaluate(\"1\"))` one at a time through "
        "connect(\"extension\") (client -> bridge -> extension worker -> chrome.debugger) "
        "against the same call over the same kind of browser's own debugging port. Where "
        "its time goes (CPU per process; chrome.debugger.sendCommand alone costs as much as "
        "a whole call over the port): docs/extension.md, Speed.",
    ),
)

BRIDGE_PIPELINED = Case(
    name="bridge-pipelined",
    metrics=(
        Metric("per_s", "pipelined evaluates through the extension (calls/s), raw = its port"),
        Metric("cpu_us", "bridge pipelined evaluates, client CPU (µs/call)"),
    ),
    sides={"raw": _pipelined_side(False), "cdpkit": _pipelined_side(True)},
    transports=("port",),
    needs=_NEEDS,
    notes=("bridge-pipelined: asyncio.gather of every call, through the bridge and direct.",),
)

BRIDGE_SNAPSHOT = Case(
    name="bridge-snapshot",
    metrics=(
        Metric("ms", "snapshot of the element page through the extension (ms), raw = its port",
               Target(ratio_max=1.5)),
    ),
    sides={"raw": _snapshot(False), "cdpkit": _snapshot(True)},
    transports=("port",),
    needs=_NEEDS,
    notes=("bridge-snapshot: `tools.snapshot` of the 5,000-element page, through the bridge "
           "and direct.",),
)

CASES = (BRIDGE_ROUNDTRIP, BRIDGE_PIPELINED, BRIDGE_SNAPSHOT)
