"""The light path: ``cdpkit.browse`` at tier 1 against ``tools.scrape`` of the same page
(``browse_tier1``), and the quality of its main-content extraction against trafilatura's
on a saved corpus (``browse_quality``).

The "raw" column is the page-level tool people used before ``browse`` existed:
``tools.scrape(page, url)`` on a page of an already launched Chrome (the launch is not
timed, so the comparison is the fair one for scrape). The "cdpkit" column is
``engine.browse(url)`` on an engine already open (its HTTP client warm), which should
stay at tier 1 on the static article: no browser at all. Both also report how many
Chrome browsers the measuring process started (scrape: its one browser; browse at tier 1:
none, checked on every run).
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target
from benchmarks.cases.clients import cdpkit_page
from benchmarks.common import now


def browsers_started() -> int:
    """Live Chrome browsers descended from this process: their main processes (with a
    ``--remote-debugging-*`` flag, no ``--type=``, and not a child of another one)."""
    parents: dict[int, int] = {}
    browsers: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] in "ZX":
            continue
        parents[int(entry.name)] = int(fields[1])
        # Renderers rewrite their command line into one string with --type=; zygotes
        # repeat the browser's whole command line but are children of a browser.
        if ("chrom" in cmdline.split("\0")[0].lower() and "--remote-debugging-" in cmdline
                and "--type=" not in cmdline):
            browsers.append(int(entry.name))
    me = os.getpid()
    browsers = [pid for pid in browsers if parents.get(pid) not in browsers]

    def descends(pid: int) -> bool:
        seen = set()
        while pid in parents and pid not in seen:
            seen.add(pid)
            pid = parents[pid]
            if pid == me:
                return True
        return False

    return sum(1 for pid in browsers if descends(pid))


async def _timed(action: Any, ctx: Ctx) -> tuple[float, list[Any]]:
    """Median ms of ``action(i)`` over the navigations count, after one warm-up; the
    results of the timed calls."""
    await action(-1)
    times, results = [], []
    for i in range(ctx.sizes.navigations):
        start = now()
        results.append(await action(i))
        times.append((now() - start) * 1e3)
    return statistics.median(times), results


async def _scrape(ctx: Ctx) -> dict[str, float]:
    from cdpkit import tools

    async with cdpkit_page(ctx) as page:
        ms, results = await _timed(
            lambda i: tools.scrape(page, f"{ctx.base_url}/article?n={i}"), ctx)
        chars = min(len(result.content or "") for result in results)
        return {"ms": ms, "chars": chars, "chrome_processes": browsers_started()}


async def _browse(ctx: Ctx) -> dict[str, float]:
    import cdpkit

    async with cdpkit.engine() as engine:
        ms, results = await _timed(
            lambda i: engine.browse(f"{ctx.base_url}/article?n={i}"), ctx)
        # Counted while the engine is still open: a browser it launched would be alive.
        started = browsers_started()
        return {"ms": ms, "chars": min(len(result.content) for result in results),
                "chrome_processes": started}


BROWSE_TIER1 = Case(
    name="browse_tier1",
    metrics=(
        Metric("ms", "browse (tier 1) vs tools.scrape of the article (ms)",
               Target(ratio_max=0.1)),
        Metric("chars", "content of the article (characters)"),
        Metric("chrome_processes", "Chrome browsers started (browse at tier 1 must start none)",
               Target(abs_max=1, every_run=True)),
    ),
    sides={"raw": _scrape, "cdpkit": _browse},
    needs=(*CORE_API, "engine", "tools.scrape"),
    notes=("browse_tier1: the \"raw\" column is `tools.scrape(page, url)` of the article on a "
           "page of a launched Chrome (launch not timed); the \"cdpkit\" column is "
           "`engine.browse(url)` on an open engine, which fetches over HTTP and parses without "
           "a browser (tier 1). Target: at least 10x faster (ratio <= 0.1x), and no Chrome "
           "browser started on any run (counted among the worker's descendants while its "
           "engine is open).",),
)



# Main-content quality on the saved corpus (benchmarks/quality.py): F1 against the content
# Mozilla Readability's tests expect, cdpkit's extraction vs trafilatura's on the same pages.

def _corpus_figures(side: str) -> dict[str, float]:
    from benchmarks.quality import CORPUS, measure

    if not CORPUS.is_dir():
        raise SystemExit(f"the quality corpus is missing: {CORPUS}")
    summary = measure(CORPUS)["summary"]
    assert isinstance(summary, dict)
    suffix = "_trafilatura" if side == "raw" else ""
    return {"f1": float(summary[f"f1{suffix}_mean"]),
            "f1_median": float(summary[f"f1{suffix}_median"])}


async def _trafilatura_quality(ctx: Ctx) -> dict[str, float]:
    return _corpus_figures("raw")


async def _browse_quality(ctx: Ctx) -> dict[str, float]:
    return _corpus_figures("cdpkit")


BROWSE_QUALITY = Case(
    name="browse_quality",
    metrics=(
        Metric("f1", "main content, word F1 vs Readability's expected (mean)",
               Target(ratio_min=1.0)),
        Metric("f1_median", "main content, word F1 vs Readability's expected (median)"),
    ),
    sides={"raw": _trafilatura_quality, "cdpkit": _browse_quality},
    transports=("",),  # no browser
    needs=("engine",),
    notes=("browse_quality: the \"raw\" column is `trafilatura.extract` with its defaults, the "
           "\"cdpkit\" column `extract_html(readability=True)`, on the 65 saved pages of "
           "`../shared/corpus/readability-dev/` (see `python -m benchmarks.quality` for the "
           "per-page figures and median tokens). Target: F1 at least trafilatura's.",),
)

CASES = (BROWSE_TIER1, BROWSE_QUALITY)
