"""``cdpkit browse --batch --grid``: pages that need JavaScript run on a real Selenium Grid
4 session, static ones over HTTP, and the session is deleted when the batch ends."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

from tests.cli.conftest import children
from tests.grid.conftest import NODE_ARGS, busy_slots, wait_until
from tests.mcp.conftest import ROOT, McpSession, text_of
from tests.server import FixtureServer

NODE_FLAGS = [f"--chrome-arg={arg}" for arg in NODE_ARGS]


def test_a_batch_runs_its_javascript_page_on_the_grid(
    standalone_grid: str, server: FixtureServer, tmp_path: Path
) -> None:
    # The JavaScript page fetches this route as it renders: the handler looks, while the
    # page is being browsed, at the grid's /status and at the processes the command
    # started, and the rendered page says what it saw.
    seen: list[tuple[int, int]] = []
    command: list[subprocess.Popen[str]] = []
    lock = threading.Lock()

    def proof(handler: object) -> None:
        with lock:
            local = len(children(command[0].pid)) if command else -1
            seen.append((busy_slots(standalone_grid), local))
            busy, local = seen[-1]
        handler.reply(200, f"grid sessions busy: {busy}; local processes: {local}", "text/plain")  # type: ignore[attr-defined]

    server.route("/browse-surfaces/grid-proof", proof)
    article = server.url("/browse-surfaces/article.html")
    app = server.url("/browse-surfaces/app.html?proof=/browse-surfaces/grid-proof")
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{article}\n{app}\n")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cdpkit",
            "browse",
            "--batch",
            str(listing),
            "--grid",
            standalone_grid,
            *NODE_FLAGS,
            "--timeout",
            "60",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    with lock:
        command.append(process)
    try:
        stdout, stderr = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [line["url"] for line in lines] == [article, app]
    assert all(line["ok"] for line in lines), lines
    rendered = lines[1]
    assert lines[0]["tier_used"] == 1 and rendered["tier_used"] in (2, 3)
    # Rendered on the grid: it held a session, and the command had started no Chrome.
    assert "grid sessions busy: 1; local processes: 0" in rendered["content"], rendered["content"]
    assert seen and all(sample == (1, 0) for sample in seen), seen
    # And the grid's session was deleted when the batch ended.
    wait_until(lambda: busy_slots(standalone_grid) == 0, 15, "the grid session to be deleted")


async def test_mcp_browse_leases_a_grid_session_only_for_javascript_pages(
    standalone_grid: str, server: FixtureServer
) -> None:
    session = await McpSession(["--grid", standalone_grid, *NODE_FLAGS]).start()
    try:
        static = await session.call("browse", {"url": server.url("/browse-surfaces/article.html")})
        assert "Loaded: tier 1 (HTTP only)" in text_of(static), text_of(static)
        assert await asyncio.to_thread(busy_slots, standalone_grid) == 0  # no session for HTTP
        rendered = await session.call("browse", {"url": server.url("/browse-surfaces/app.html")})
        text = text_of(rendered)
        assert not rendered.is_error, text
        assert "the ferry to Cacilhas leaves every fifteen minutes" in text
        assert await asyncio.to_thread(busy_slots, standalone_grid) == 1  # the server's one
    finally:
        await session.stop()
    await asyncio.to_thread(
        wait_until, lambda: busy_slots(standalone_grid) == 0, 15, "the grid session to be deleted"
    )


def test_browse_one_url_on_the_grid(standalone_grid: str, server: FixtureServer) -> None:
    app = server.url("/browse-surfaces/app.html")
    done = subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", app, "--json", "--grid", standalone_grid,
         *NODE_FLAGS, "--timeout", "60"],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["tier_used"] in (2, 3) and "the ferry to Cacilhas" in result["content"]
    wait_until(lambda: busy_slots(standalone_grid) == 0, 15, "the grid session to be deleted")
