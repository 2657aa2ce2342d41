"""Import time, first use of the bindings, and launch to ready."""

from __future__ import annotations

from benchmarks import raw_client
from benchmarks.cases.base import Case, Ctx, Metric, Script, Target
from benchmarks.common import CDPKIT_ARGS, now

# Runs in `python -c` before anything else is imported; prints the one JSON line.
_TIMED_IMPORT = """\
import time
t0 = time.perf_counter()
{body}
ms = (time.perf_counter() - t0) * 1e3
print('{{"metrics": {{"ms": %r}}}}' % ms)
"""


def _import_deps(ctx: Ctx) -> str:
    # The same modules `import cdpkit` brings in, in the same order, minus cdpkit itself.
    body = f"for name in {list(ctx.deps)!r}:\n    try:\n        __import__(name)\n" \
           "    except Exception:\n        pass"
    return _TIMED_IMPORT.format(body=body)


IMPORT = Case(
    name="import",
    metrics=(Metric("ms", "import time (ms)", Target(ratio_max=1.2)),),
    sides={
        "raw": Script(_import_deps),
        # `import cdpkit` loads its parts on first use: time what a program needs to launch.
        "cdpkit": Script(lambda ctx: _TIMED_IMPORT.format(body="import cdpkit\ncdpkit.launch")),
        "playwright": Script(lambda ctx: _TIMED_IMPORT.format(body="import playwright.async_api")),
    },
    transports=("",),
    needs=(),
    repeat=4,
    notes=("import: `import cdpkit` then `cdpkit.launch` (cdpkit loads its parts on first use); "
           "the raw column imports, alone, every module those load "
           "outside cdpkit (listed in the JSON as `import_deps`).",),
)

FIRST_USE = Case(
    name="first-use",
    metrics=(Metric("ms", "first use of cdp.page + cdp.runtime (ms)", Target(abs_max=50)),),
    # After what the import row times (`import cdpkit` + `cdpkit.launch`): the core is
    # loaded by then, so this is what the two domains' bindings add.
    sides={"cdpkit": Script(lambda ctx: "import cdpkit\ncdpkit.launch\n" + _TIMED_IMPORT.format(
        body="from cdpkit import cdp\ncdp.page.navigate('about:blank')\n"
             "cdp.runtime.evaluate('1')\ncdp.runtime.ConsoleAPICalled"))},
    transports=("",),
    needs=("cdp.page", "cdp.runtime"),
    repeat=4,
    notes=("first use: after `import cdpkit` and `cdpkit.launch` (what the import row "
           "times), load cdp.page and cdp.runtime, build one command "
           "of each and touch one event class.",),
)


async def _raw_launch(ctx: Ctx) -> dict[str, float]:
    start = now()
    async with raw_client.launch(ctx.chrome, ctx.chrome_flags, pipe=ctx.pipe) as client:
        await client.send("Browser.getVersion")
        return {"ms": (now() - start) * 1e3}


async def _cdpkit_launch(ctx: Ctx) -> dict[str, float]:
    from cdpkit import launch  # loaded before the clock starts, as a program's import does

    start = now()
    async with launch(executable_path=ctx.chrome, pipe=ctx.pipe, args=CDPKIT_ARGS):
        return {"ms": (now() - start) * 1e3}  # launch() answered Browser.getVersion


async def _playwright_launch(ctx: Ctx) -> dict[str, float]:
    from playwright.async_api import async_playwright

    # The driver start-up is part of what a Playwright user waits for; launch() returns
    # after Chrome answered the driver.
    start = now()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=ctx.chrome,
                                                   args=list(ctx.chrome_flags))
        ms = (now() - start) * 1e3
        await browser.close()
        return {"ms": ms}


LAUNCH = Case(
    name="launch",
    metrics=(Metric("ms", "launch to ready (ms)", Target(ratio_max=1.1)),),
    sides={"raw": _raw_launch, "cdpkit": _cdpkit_launch, "playwright": _playwright_launch},
    transports=("port", "pipe"),
    notes=("launch: from spawning Chrome to the answer of a first command.",),
)

async def _cdpkit_launch_watchdog(ctx: Ctx, *, watchdog: bool) -> dict[str, float]:
    import cdpkit
    from cdpkit import launcher

    launcher._watchdog_enabled = watchdog
    launch = cdpkit.launch  # loaded before the clock starts
    start = now()
    async with launch(executable_path=ctx.chrome, pipe=ctx.pipe, args=CDPKIT_ARGS):
        return {"ms": (now() - start) * 1e3}


async def _without_watchdog(ctx: Ctx) -> dict[str, float]:
    return await _cdpkit_launch_watchdog(ctx, watchdog=False)


async def _with_watchdog(ctx: Ctx) -> dict[str, float]:
    return await _cdpkit_launch_watchdog(ctx, watchdog=True)


# Both columns are cdpkit: "raw" launches without the owner-death watchdog, "cdpkit" with it,
# so the ratio is what the mechanism costs a launch.
LAUNCH_WATCHDOG = Case(
    name="launch-watchdog",
    metrics=(Metric("ms", "launch to ready with the owner-death watchdog (ms)",
                    Target(ratio_max=1.05)),),
    sides={"raw": _without_watchdog, "cdpkit": _with_watchdog},
    transports=("port", "pipe"),
    notes=("launch-watchdog: both columns are cdpkit.launch(); the raw column with the "
           "owner-death watchdog switched off, the cdpkit column with it (the default), so "
           "cdpkit/raw is what the mechanism costs a launch.",),
)

CASES = (IMPORT, FIRST_USE, LAUNCH, LAUNCH_WATCHDOG)
