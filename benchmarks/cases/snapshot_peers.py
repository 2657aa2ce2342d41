"""Three MCP servers on the same saved real pages: cold start, tools/list size, navigate
and snapshot time, snapshot size.

cdpkit's ``browser_snapshot`` (its default 20,000-character budget, and with no limit)
against Microsoft's playwright-mcp (``@playwright/mcp``, ``browser_snapshot``) and Google's
chrome-devtools-mcp (``take_snapshot``), each driven with the official MCP Python client
over stdio, on the pages of ``../shared/corpus/readability-dev/*/source.html`` (read
from there at run time; ``--corpus DIR`` for another folder) served on 127.0.0.1.

The peers are installed from the npm registry when the case runs, into a cache folder
(``--cache``, default ``~/.cache/cdpkit-bench/npm``), and pointed at the same Chromium
(``/usr/bin/chromium``, or ``$CDPKIT_CHROME``); they never download a browser
(``PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1``, ``PUPPETEER_SKIP_DOWNLOAD=1``). Without ``npm``,
or when the install fails, the peers' columns say why and only cdpkit is measured.

Tokens are estimated as characters / 4 (all the text parts of the tool's result). Time is
the wall time of the snapshot call after the page loaded, the median of ``--calls`` calls
after a warm-up one. Per
server, also: cold start (spawn -> ``initialize`` -> ``tools/list`` answered, ``--starts``
runs, interleaved across the servers so that the machine's load weighs on all alike,
median and min-max; the browser of every server starts later, on its first tool),
the size of ``tools/list`` (characters / 4 of the JSON of its tools) and its tool count,
and navigate time (the navigate tool's call on each page, median over pages). A
second pass, with the library directly, checks that cdpkit's unlimited snapshot lists
every visible link, button, field, select and text area of the page's DOM (by backend
node id), and counts how many the budgeted snapshot lists before its cut lines.

    .venv/bin/python -m benchmarks.cases.snapshot_peers --pages 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.server
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The shared corpus beside the checkout (``../shared``); ``--corpus DIR`` for another folder.
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "readability-dev"
CACHE = Path.home() / ".cache" / "cdpkit-bench" / "npm"
PEER_PACKAGES = ("@playwright/mcp", "chrome-devtools-mcp")
ROOT = Path(__file__).resolve().parents[2]

# The visible controls an agent must be able to reach, as the DOM has them (those under
# aria-hidden="true" are out of every accessibility tree, the peers' too).
_CONTROLS_JS = """
[...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'
               && !e.closest('[aria-hidden=true]'))
"""


def chrome_path() -> str:
    return os.environ.get("CDPKIT_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"


@dataclass
class ToolFigures:
    """What one server's snapshots measured, page by page."""

    chars: dict[str, int] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=dict)
    navigate_ms: dict[str, float] = field(default_factory=dict)
    error: str | None = None


@dataclass
class StartFigures:
    """One server's cold starts and the size of its tool list."""

    seconds: list[float] = field(default_factory=list)
    tools: int = 0
    list_chars: int = 0
    error: str | None = None


@dataclass(frozen=True)
class Peer:
    """How to start one MCP server and take a snapshot with it."""

    name: str
    command: list[str]
    navigate: str
    snapshot: str
    snapshot_arguments: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path = ROOT  # where it runs (the peers write their own files there)


# -- pages ------------------------------------------------------------------------------------


def corpus_pages(corpus: Path, count: int) -> list[Path]:
    return sorted(corpus.glob("*/source.html"))[:count]


@contextlib.contextmanager
def serve(corpus: Path) -> Iterator[str]:
    """The corpus folder over HTTP on 127.0.0.1 (pages as ``/<name>/source.html``)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(corpus))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# -- the peers --------------------------------------------------------------------------------


def install_peers(cache: Path) -> tuple[Path | None, str | None]:
    """``(node_modules/.bin, None)`` once the peers are installed in ``cache``, else
    ``(None, why not)``."""
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not installed"
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1", "PUPPETEER_SKIP_DOWNLOAD": "1"}
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(cache), *PEER_PACKAGES],
            env=env, capture_output=True, text=True, timeout=600, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"npm install failed: {exc}"
    if done.returncode != 0:
        return None, f"npm install failed: {done.stderr.strip().splitlines()[-1:]}"
    return cache / "node_modules" / ".bin", None


def peers(bin_dir: Path, chrome: str) -> list[Peer]:
    env = {"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1", "PUPPETEER_SKIP_DOWNLOAD": "1",
           "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1"}
    return [
        Peer(
            "playwright-mcp",
            [str(bin_dir / "playwright-mcp"), "--executable-path", chrome, "--headless",
             "--no-sandbox", "--isolated"],
            "browser_navigate", "browser_snapshot", env=env, cwd=bin_dir.parent.parent,
        ),
        Peer(
            "chrome-devtools-mcp",
            [str(bin_dir / "chrome-devtools-mcp"), "--executablePath", chrome, "--headless",
             "--isolated", "--chromeArg=--no-sandbox", "--no-usage-statistics",
             "--no-performance-crux", "--no-page-id-routing"],
            "navigate_page", "take_snapshot", env=env, cwd=bin_dir.parent.parent,
        ),
    ]


def cdpkit_peers(chrome: str) -> list[Peer]:
    # What an agent's configuration runs: the `cdpkit mcp` command (the CLI entry).
    command = [sys.executable, "-m", "cdpkit", "mcp", "--chrome", chrome]
    return [
        Peer("cdpkit", command, "browser_navigate", "browser_snapshot"),
        Peer("cdpkit (no limit)", command, "browser_navigate", "browser_snapshot",
             {"max_chars": None}),
    ]


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if part.type == "text")


def _parameters(peer: Peer) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=peer.command[0], args=peer.command[1:], env={**os.environ, **peer.env},
        cwd=str(peer.cwd),
    )


async def cold_start(peer: Peer, figures: StartFigures) -> None:
    """Spawn ``peer`` once; time spawn -> initialize -> tools/list answered."""
    import json

    from mcp import Client

    if figures.error is not None:
        return
    try:
        started = time.perf_counter()
        async with Client(_parameters(peer), read_timeout_seconds=120) as client:
            listed = await client.list_tools()
            figures.seconds.append(time.perf_counter() - started)
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                 for t in listed.tools]
        figures.tools = len(tools)
        figures.list_chars = len(json.dumps(tools, ensure_ascii=False))
    except Exception as exc:  # a peer that breaks is reported, not fatal
        figures.error = f"{type(exc).__name__}: {exc}"[:300]


async def cold_starts(servers: list[Peer], runs: int) -> dict[str, StartFigures]:
    """``runs`` cold starts of each server, interleaved (one of each in turn), so a
    change of the machine's load weighs on every server alike."""
    figures = {peer.name: StartFigures() for peer in servers}
    for _ in range(runs):
        for peer in servers:
            await cold_start(peer, figures[peer.name])
    return figures


async def measure(peer: Peer, urls: dict[str, str], calls: int = 5) -> ToolFigures:
    """Navigate ``peer`` to each page (timed) and time its snapshot tool: the median of
    ``calls`` calls after a warm-up (one call alone swings with the machine's load)."""
    from mcp import Client

    figures = ToolFigures()
    try:
        async with Client(_parameters(peer), read_timeout_seconds=120) as client:
            # The browser starts on the first tool: not part of any page's navigate time.
            for url in list(urls.values())[:1]:  # the corpus server's root (a listing)
                await client.call_tool(peer.navigate, {"url": "/".join(url.split("/")[:3]) + "/"})
            for name, url in urls.items():
                started = time.perf_counter()
                navigated = await client.call_tool(peer.navigate, {"url": url})
                figures.navigate_ms[name] = (time.perf_counter() - started) * 1000
                if navigated.is_error:
                    raise RuntimeError(f"{peer.navigate}: {_text(navigated)[:300]}")
                await asyncio.sleep(0.5)  # late scripts settle, for everyone alike
                await client.call_tool(peer.snapshot, peer.snapshot_arguments)  # warm-up
                times = []
                for _ in range(calls):
                    started = time.perf_counter()
                    result = await client.call_tool(peer.snapshot, peer.snapshot_arguments)
                    times.append((time.perf_counter() - started) * 1000)
                figures.ms[name] = statistics.median(times)
                if result.is_error:
                    raise RuntimeError(f"{peer.snapshot}: {_text(result)[:300]}")
                figures.chars[name] = len(_text(result))
    except Exception as exc:  # a peer that breaks is reported, not fatal
        figures.error = f"{type(exc).__name__}: {exc}"[:300]
    return figures


# -- every control listed ---------------------------------------------------------------------


@dataclass
class Coverage:
    controls: int = 0  # visible controls in the DOM
    listed: int = 0  # of them, in the unlimited snapshot
    listed_budget: int = 0  # of them, on a line of the budgeted snapshot (not inside a cut)


async def _backend_ids(nodes: list[Any]) -> set[int | None]:
    """The DOM nodes (backend node ids) of snapshot nodes: the page engine's are found
    through their world's registry, as ``index=`` finds them."""
    from cdpkit.tools._targeting import outline_backend_id

    async def backend_id(node: Any) -> int | None:
        if node.backend_node_id is not None or node._outline is None:
            return node.backend_node_id
        return await outline_backend_id(node.session, *node._outline)

    return set(await asyncio.gather(*(backend_id(node) for node in nodes)))


async def coverage(urls: dict[str, str], chrome: str) -> dict[str, Coverage]:
    import cdpkit
    from cdpkit import cdp, tools

    found: dict[str, Coverage] = {}
    async with cdpkit.launch(executable_path=chrome) as browser:
        page = await browser.new_page()
        for name, url in urls.items():
            await tools.navigate(page, url)
            await asyncio.sleep(0.5)
            remote = await page.send(cdp.runtime.evaluate(_CONTROLS_JS))
            controls: set[int] = set()
            if remote.result.object_id is not None:
                properties = await page.send(
                    cdp.runtime.get_properties(remote.result.object_id, own_properties=True)
                )
                for prop in properties.result:
                    if prop.name.isdigit() and prop.value and prop.value.object_id:
                        node = await page.send(cdp.dom.describe_node(object_id=prop.value.object_id))
                        controls.add(int(node.node.backend_node_id))
            full = await tools.snapshot(page)
            budget = await tools.snapshot(page, max_chars=20_000, boxes="interactive")
            in_full = await _backend_ids(full.nodes)
            in_budget = await _backend_ids(budget.nodes)
            found[name] = Coverage(len(controls), len(controls & in_full),
                                   len(controls & in_budget))
    return found


# -- the report -------------------------------------------------------------------------------


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _spread(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    if not values:
        return "n/a"
    return (f"{statistics.median(values) * scale:.{digits}f} "
            f"({min(values) * scale:.{digits}f}-{max(values) * scale:.{digits}f})")


def start_report(starts: dict[str, StartFigures], results: dict[str, ToolFigures]) -> str:
    """Cold start, tools/list, navigate and snapshot time per server (medians, min-max)."""
    lines = [
        "Per server: cold start = spawn -> initialize -> tools/list (s, median (min-max) of "
        "runs); navigate and snapshot = ms per page (median (min-max) over pages)",
        "",
        "| MCP server | cold start s | tools/list tokens | tools | navigate ms | snapshot ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, start in starts.items():
        figures = results.get(name, ToolFigures())
        if start.error and not start.seconds:
            lines.append(f"| {name} | n/a ({start.error}) | | | | |")
            continue
        lines.append(
            f"| {name} | {_spread(start.seconds)} | {start.list_chars / 4:,.0f} | {start.tools} | "
            f"{_spread(list(figures.navigate_ms.values()), digits=0)} | "
            f"{_spread(list(figures.ms.values()), digits=0)} |"
        )
    return "\n".join(lines)


def report(pages: list[str], results: dict[str, ToolFigures], cover: dict[str, Coverage]) -> str:
    lines = [
        f"Snapshot of {len(pages)} saved real pages (median over pages; tokens = chars / 4)",
        "",
        "| MCP server | median tokens | min-max tokens | median ms | pages |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, figures in results.items():
        if figures.error and not figures.chars:
            lines.append(f"| {name} | n/a ({figures.error}) | | | 0 |")
            continue
        tokens = [chars / 4 for chars in figures.chars.values()]
        median_tokens = _median(tokens) or 0
        median_ms = _median(list(figures.ms.values())) or 0
        lines.append(
            f"| {name} | {median_tokens:,.0f} | {min(tokens):,.0f}-{max(tokens):,.0f} | "
            f"{median_ms:,.0f} | {len(tokens)} |"
        )
    lines += ["", "| page | " + " | ".join(results) + " | controls listed (no limit / 20k) |",
              "|---|" + "---:|" * (len(results) + 1)]
    for page in pages:
        cells = [f"{results[n].chars[page] / 4:,.0f}" if page in results[n].chars else "-"
                 for n in results]
        c = cover.get(page)
        listed = f"{c.listed}/{c.controls} / {c.listed_budget}" if c else "-"
        lines.append(f"| {page} | " + " | ".join(cells) + f" | {listed} |")
    missing = sum(c.controls - c.listed for c in cover.values())
    lines += ["", "Every visible control listed in cdpkit's unlimited snapshot: "
              + ("yes" if missing == 0 else f"no ({missing} missing)")]
    return "\n".join(lines)


async def run(corpus: Path, count: int, cache: Path, starts: int = 5, calls: int = 5) -> str:
    pages = corpus_pages(corpus, count)
    if not pages:
        return f"Skipped: no pages in {corpus} (*/source.html)"
    chrome = chrome_path()
    bin_dir, why = install_peers(cache)
    if why is not None:
        print(f"Peers skipped: {why}; measuring cdpkit only.", file=sys.stderr)
    with serve(corpus) as origin:
        urls = {p.parent.name: f"{origin}/{p.parent.name}/source.html" for p in pages}
        servers = cdpkit_peers(chrome) + (peers(bin_dir, chrome) if bin_dir else [])
        load = [os.getloadavg()[0]]
        started = await cold_starts([p for p in servers if p.name != "cdpkit (no limit)"], starts)
        load.append(os.getloadavg()[0])
        results = {peer.name: await measure(peer, urls, calls) for peer in servers}
        load.append(os.getloadavg()[0])
        print(start_report(started, results), file=sys.stderr)  # kept if a later step fails
        if why is not None:
            for name in ("playwright-mcp", "chrome-devtools-mcp"):
                results[name] = ToolFigures(error=why)
                started[name] = StartFigures(error=why)
        cover = await coverage(urls, chrome)
    loads = ", ".join(f"{value:.1f}" for value in load)
    return (f"Load average (1 min) before the starts, after them, after the pages: {loads}\n\n"
            + start_report(started, results) + "\n\n" + report(list(urls), results, cover))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=1000, help="at most this many pages")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cache", type=Path, default=CACHE, help="where npm installs the peers")
    parser.add_argument("--starts", type=int, default=5, help="cold starts per server")
    parser.add_argument("--calls", type=int, default=5,
                        help="timed snapshot calls per page (their median is the page's)")
    args = parser.parse_args(argv)
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("Skipped: the mcp package is not installed (pip install 'cdpkit-browser[mcp]')")
        return 0
    print(asyncio.run(run(args.corpus, args.pages, args.cache, args.starts, args.calls)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
