"""``browser_navigate`` then ``browser_snapshot`` over MCP on every page of the corpus.

An agent's commonest path, on saved real pages (``../shared/corpus/readability-dev/*/
source.html``, read at run time; ``--corpus DIR`` for another folder) served on
127.0.0.1: the pages are visited in turn by one ``cdpkit mcp`` server, alternating the
host between ``127.0.0.1`` and ``localhost`` (each hop crosses sites, as agents' tabs
do), driven with the official MCP client over stdio. Every navigate and every snapshot
must succeed; prints the failures, and the navigate and snapshot times (median, max).

    .venv/bin/python -m benchmarks.cases.mcp_navigate_corpus [--pages N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from benchmarks.cases.snapshot_peers import (
    CORPUS,
    _parameters,
    _text,
    cdpkit_peers,
    chrome_path,
    corpus_pages,
    serve,
)


async def visit_all(base: str, pages: list[Path]) -> tuple[list[str], list[float], list[float]]:
    """Navigate and snapshot each page; ``(failures, navigate_ms, snapshot_ms)``."""
    from mcp import Client

    peer = cdpkit_peers(chrome_path())[0]
    failures: list[str] = []
    navigate_ms: list[float] = []
    snapshot_ms: list[float] = []
    port = base.rsplit(":", 1)[1]
    async with Client(_parameters(peer), read_timeout_seconds=120) as client:
        for number, page in enumerate(pages):
            host = "127.0.0.1" if number % 2 == 0 else "localhost"
            url = f"http://{host}:{port}/{page.parent.name}/source.html"
            started = time.perf_counter()
            navigated = await client.call_tool("browser_navigate", {"url": url})
            navigate_ms.append((time.perf_counter() - started) * 1000)
            if navigated.is_error:
                failures.append(f"navigate {url}: {_text(navigated)[:200]}")
                continue
            started = time.perf_counter()
            snapshot = await client.call_tool("browser_snapshot", {})
            snapshot_ms.append((time.perf_counter() - started) * 1000)
            if snapshot.is_error or "[" not in _text(snapshot):
                failures.append(f"snapshot {url}: {_text(snapshot)[:200]}")
    return failures, navigate_ms, snapshot_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000, help="at most this many pages")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    pages = corpus_pages(args.corpus, args.pages)
    if not pages:
        print(f"No pages in {args.corpus}", file=sys.stderr)
        return 2
    with serve(args.corpus) as base:
        failures, navigate_ms, snapshot_ms = asyncio.run(visit_all(base, pages))
    for failure in failures:
        print("FAILED", failure)
    print(f"{len(pages)} pages, {len(failures)} failures; navigate median "
          f"{statistics.median(navigate_ms):.0f} ms (max {max(navigate_ms):.0f}); snapshot median "
          f"{statistics.median(snapshot_ms):.0f} ms (max {max(snapshot_ms):.0f})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
