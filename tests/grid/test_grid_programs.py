"""The programs on a real Selenium Grid 4: `cdpkit scrape --grid`, `cdpkit snapshot
--connect ... --header`, and `cdpkit mcp --grid` driven by the official MCP client SDK."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from tests.grid.conftest import NODE_ARGS, busy_slots
from tests.mcp.conftest import ROOT, McpSession, text_of
from tests.server import FixtureServer

NODE_FLAGS = [f"--chrome-arg={arg}" for arg in NODE_ARGS]


def cdpkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", *args], capture_output=True, text=True, cwd=ROOT,
        timeout=180,
    )


def test_scrape_on_a_grid_leaves_no_session(standalone_grid: str, server: FixtureServer) -> None:
    server.route("/grid/article.html", lambda h: h.reply(
        200, "<title>On the grid</title><main><h1>Hello grid</h1><p>Leased, not launched.</p></main>"))
    out = cdpkit("scrape", server.url("/grid/article.html"), "--grid", standalone_grid,
                 *NODE_FLAGS, "--wait", "0", "--viewport", "800x600")
    assert out.returncode == 0, out.stderr
    assert "# Hello grid" in out.stdout and "Leased, not launched." in out.stdout
    assert busy_slots(standalone_grid) == 0


def test_a_full_grid_is_reported_within_timeout(standalone_grid: str) -> None:
    # Chrome exits at once without --no-sandbox as root: the grid's reason is shown.
    if NODE_ARGS:
        out = cdpkit("snapshot", "about:blank", "--grid", standalone_grid, "--timeout", "20")
        assert out.returncode == 1
        assert "could not create a Chrome session" in out.stderr and "--no-sandbox" in out.stderr


async def test_mcp_server_on_a_grid(standalone_grid: str, server: FixtureServer) -> None:
    session = await McpSession(["--grid", standalone_grid, "--allow-js", *NODE_FLAGS]).start()
    try:
        result = await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        assert not result.is_error, text_of(result)
        assert await asyncio.to_thread(busy_slots, standalone_grid) == 1
        width = await session.call("browser_execute_js", {"expression": "innerWidth"})
        assert json.loads(text_of(width)) == 1280
    finally:
        await session.stop()
    for _ in range(50):  # the server deletes its session as it stops
        if await asyncio.to_thread(busy_slots, standalone_grid) == 0:
            break
        await asyncio.sleep(0.2)
    assert await asyncio.to_thread(busy_slots, standalone_grid) == 0
