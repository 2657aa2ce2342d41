"""Scrape's smart wait on saved real pages: today's wait against the one before it.

Each page of ``../shared/corpus/readability-dev/*/source.html`` (read from there at run
time; ``--corpus DIR`` for another folder) is served on 127.0.0.1 and scraped to markdown
with ``tools.scrape(page, url)`` twice, interleaved page by page (the order alternates), each
time in a fresh browser context of the same Chrome (so neither side gets the other's cache):

- **baseline**: scrape as it was before issue #19: the navigation waits for the load event,
  then the smart wait of then (network idle for up to 3 s, then the text length polled
  every 0.25 s until 3 stable polls, at most 10 s), copied here faithfully
  (:func:`baseline_wait`) and swapped in for the run;
- **new**: ``tools.scrape`` as it is, with its default wait (from DOMContentLoaded on).

Reported: the time of each scrape (probe, navigation, wait and extraction) and the words of
its markdown, the medians and spread, the pages where the new wait lost more than 2 % of
the words, and where the baseline's time went (its network-idle part and its polling part).

    .venv/bin/python -m benchmarks.cases.scrape_corpus            # every page
    .venv/bin/python -m benchmarks.cases.scrape_corpus --pages 10

In the harness (``--only scrape_corpus``) each side scrapes a spread of pages (12, or 4 with
``--quick``) in its own process: "raw" is the baseline wait, "cdpkit" the new one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target
from benchmarks.cases.snapshot_peers import CORPUS, chrome_path, serve
from benchmarks.common import CDPKIT_ARGS

LOSS = 0.02  # a page "lost words" when the new wait's markdown has more than 2 % fewer

# The baseline's measure, as content_length.js was: the length of the page's text, or -1
# while it is a loading placeholder or marked busy.
_BASELINE_LENGTH = """(function() {
  const body = document.body;
  if (!body) return 0;
  const text = body.innerText || '';
  if (/^\\s*(loading|please wait)\\b[\\s.\\u2026!]*$/i.test(text)) return -1;
  if (document.querySelector('[aria-busy=true]')) return -1;
  return text.length;
})()"""


@dataclass
class Timing:
    """Where one scrape spent its time, in seconds: its navigation (to the load event for
    the baseline, to DOMContentLoaded for the new wait), and its wait (for the baseline,
    split into its network-idle part and its polling part)."""

    navigation: float = 0.0
    wait: float = 0.0
    network: float = 0.0
    polling: float = 0.0


async def baseline_wait(page: Any, timing: Timing) -> bool:
    """The smart wait before issue #19, with its default settings (3 s network idle, 0.25 s
    polls, 3 stable polls, 20-character threshold, 10 s at most), timing its two parts."""
    from cdpkit import cdp
    from cdpkit.errors import CDPError
    from cdpkit.tools.navigation import wait_for_network_idle

    network_idle_timeout, poll_interval, stable_polls, threshold, max_wait = 3.0, 0.25, 3, 20, 10.0
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + max_wait
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(min(network_idle_timeout, max_wait)):
            await wait_for_network_idle(page)
    timing.network = loop.time() - started
    polled = loop.time()
    last: int | None = None
    stable = 0
    try:
        while stable < stable_polls:
            if loop.time() >= deadline:
                return False
            try:
                reply = await page.send(cdp.runtime.evaluate(_BASELINE_LENGTH, return_by_value=True))
                length = int(reply.result.value or 0)
            except CDPError:
                length = -1
            if last is not None and length >= 0 and abs(length - last) < threshold:
                stable += 1
            else:
                stable = 0
            last = length
            if stable < stable_polls:
                await asyncio.sleep(min(poll_interval, max(0.0, deadline - loop.time())))
        return True
    finally:
        timing.polling = loop.time() - polled


@contextlib.contextmanager
def _baseline_scrape(timing: Timing) -> Any:
    """Inside the block, ``tools.scrape(page, url, wait_for_ms=0)`` scrapes as it did before
    issue #19: its navigation waits for the load event, then :func:`baseline_wait` runs,
    then the content is read."""
    from cdpkit.tools import scraping

    navigate = scraping.navigate

    async def navigate_then_wait(page: Any, url: str, **options: Any) -> Any:
        started = time.perf_counter()
        loaded = await navigate(page, url, **options)
        timing.navigation = time.perf_counter() - started
        await baseline_wait(page, timing)
        timing.wait = timing.network + timing.polling
        return loaded

    scraping.navigate = navigate_then_wait  # type: ignore[assignment]
    try:
        yield
    finally:
        scraping.navigate = navigate  # type: ignore[assignment]


@contextlib.contextmanager
def _timed_scrape(timing: Timing) -> Any:
    """Inside the block, ``tools.scrape`` notes in ``timing`` how long its navigation and
    its wait took (the functions it calls are wrapped, not changed)."""
    from cdpkit.tools import scraping

    navigate, settle = scraping.navigate, scraping._settle

    async def timed_navigate(*args: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return await navigate(*args, **options)
        finally:
            timing.navigation = time.perf_counter() - started

    async def timed_settle(*args: Any) -> bool:
        started = time.perf_counter()
        try:
            return await settle(*args)
        finally:
            timing.wait = time.perf_counter() - started

    scraping.navigate, scraping._settle = timed_navigate, timed_settle  # type: ignore[assignment]
    try:
        yield
    finally:
        scraping.navigate, scraping._settle = navigate, settle  # type: ignore[assignment]


@dataclass
class PageFigures:
    """One page's scrapes: seconds and markdown words for each side."""

    name: str
    seconds: dict[str, float] = field(default_factory=dict)
    words: dict[str, int] = field(default_factory=dict)
    timing: dict[str, Timing] = field(default_factory=dict)


async def _scrape(browser: Any, url: str, side: str, figures: PageFigures) -> None:
    from cdpkit import tools

    async with await browser.new_context() as context:
        page = await context.new_page()
        started = time.perf_counter()
        timing = figures.timing[side] = Timing()
        if side == "baseline":
            with _baseline_scrape(timing):
                result = await tools.scrape(page, url, wait_for_ms=0)
        else:
            with _timed_scrape(timing):
                result = await tools.scrape(page, url)
        figures.seconds[side] = time.perf_counter() - started
        figures.words[side] = len((result.content or "").split())


@contextlib.asynccontextmanager
async def _browser(chrome: str) -> AsyncIterator[Any]:
    import cdpkit

    async with cdpkit.launch(executable_path=chrome, args=CDPKIT_ARGS) as browser:
        yield browser


def pages_of(corpus: Path, count: int | None = None) -> list[Path]:
    """The corpus pages, or ``count`` of them spread evenly over it."""
    pages = sorted(corpus.glob("*/source.html"))
    if count is None or count >= len(pages):
        return pages
    step = len(pages) / count
    return [pages[int(i * step)] for i in range(count)]


async def measure(corpus: Path, pages: list[Path], sides: tuple[str, ...],
                  chrome: str | None = None) -> list[PageFigures]:
    """Scrape every page with each side, interleaved (the order alternates page by page)."""
    results: list[PageFigures] = []
    with serve(corpus) as origin:
        async with _browser(chrome or chrome_path()) as browser:
            for i, path in enumerate(pages):
                name = path.parent.name
                url = f"{origin}/{name}/source.html"
                figures = PageFigures(name)
                for side in (sides if i % 2 == 0 else tuple(reversed(sides))):
                    await _scrape(browser, url, side, figures)
                results.append(figures)
    return results


def _spread(values: list[float]) -> str:
    if len(values) < 2:
        return f"{values[0]:.2f}" if values else "-"
    cuts = statistics.quantiles(values, n=10, method="inclusive")
    return (f"min {min(values):.2f}, p10 {cuts[0]:.2f}, median {statistics.median(values):.2f}, "
            f"p90 {cuts[-1]:.2f}, max {max(values):.2f}")


def report(results: list[PageFigures]) -> str:
    def seconds(side: str) -> list[float]:
        return [r.seconds[side] for r in results]

    def part(side: str, name: str) -> list[float]:
        return [getattr(r.timing[side], name) for r in results]

    old_words = sum(r.words["baseline"] for r in results)
    new_words = sum(r.words["new"] for r in results)
    lost = [r for r in results if r.words["new"] < (1 - LOSS) * r.words["baseline"]]
    lines = [
        f"Scrape to markdown of {len(results)} saved pages, seconds per page "
        "(probe + navigation + wait + extraction)",
        "",
        "| page | baseline s | new s | baseline words | new words "
        "| baseline: navigation (load) / network idle / polling s "
        "| new: navigation (DOMContentLoaded) / wait s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        old, new = r.timing["baseline"], r.timing["new"]
        lines.append(f"| {r.name} | {r.seconds['baseline']:.2f} | {r.seconds['new']:.2f} | "
                     f"{r.words['baseline']} | {r.words['new']} | "
                     f"{old.navigation:.2f} / {old.network:.2f} / {old.polling:.2f} | "
                     f"{new.navigation:.2f} / {new.wait:.2f} |")

    def parts(side: str, names: tuple[str, ...]) -> str:
        return ", ".join(f"{name} median {statistics.median(part(side, name)):.2f} s "
                         f"(total {sum(part(side, name)):.1f} s)" for name in names)

    lines += [
        "",
        f"baseline s per page: {_spread(seconds('baseline'))}",
        f"new s per page:      {_spread(seconds('new'))}",
        f"median per page: baseline {statistics.median(seconds('baseline')):.2f} s, "
        f"new {statistics.median(seconds('new')):.2f} s",
        f"words: baseline {old_words}, new {new_words} ({new_words - old_words:+d})",
        f"pages where the new wait lost > {LOSS:.0%} of the words: {len(lost)}"
        + "".join(f"\n  {r.name}: {r.words['baseline']} -> {r.words['new']}" for r in lost),
        f"where the baseline's time goes (of {sum(seconds('baseline')):.1f} s): "
        + parts("baseline", ("navigation", "network", "polling")),
        f"where the new time goes (of {sum(seconds('new')):.1f} s): "
        + parts("new", ("navigation", "wait")),
    ]
    return "\n".join(lines)


# -- in the harness: one side per process ---------------------------------------------------


def _side(side: str) -> Callable[[Ctx], Awaitable[dict[str, float]]]:
    async def run(ctx: Ctx) -> dict[str, float]:
        if not CORPUS.is_dir():
            raise SystemExit(f"the corpus is missing: {CORPUS}")
        pages = pages_of(CORPUS, 4 if ctx.quick else 12)
        results = await measure(CORPUS, pages, (side,), ctx.chrome)
        return {"ms": statistics.median(r.seconds[side] for r in results) * 1e3,
                "words": sum(r.words[side] for r in results)}

    return run


SCRAPE_CORPUS = Case(
    name="scrape_corpus",
    metrics=(
        Metric("ms", "scrape to markdown of a saved real page, median per page (ms)",
               Target(abs_max=2000)),
        Metric("words", "words of the markdown, all pages", Target(ratio_min=0.98)),
    ),
    sides={"raw": _side("baseline"), "cdpkit": _side("new")},
    needs=(*CORE_API, "tools.scrape"),
    timeout=600.0,  # 12 pages at up to 10 s of the old wait each, on a loaded machine
    notes=("scrape_corpus: `tools.scrape(page, url)` of 12 pages spread over "
           "`../shared/corpus/readability-dev/` served on 127.0.0.1; the \"raw\" column uses the "
           "smart wait as it was before issue #19 (copied in the case), the \"cdpkit\" column "
           "today's. Target: median < 2 s per page, and no fewer words (>= 0.98x). "
           "`python -m benchmarks.cases.scrape_corpus` compares them page by page.",),
)

CASES = (SCRAPE_CORPUS,)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=None, help="this many pages, spread out")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    pages = pages_of(args.corpus, args.pages)
    if not pages:
        print(f"Skipped: no pages in {args.corpus} (*/source.html)")
        return 0
    print(report(asyncio.run(measure(args.corpus, pages, ("baseline", "new")))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
