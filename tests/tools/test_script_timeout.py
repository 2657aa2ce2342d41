"""A page whose parser-blocking scripts never arrive (issue 46): navigate says that
nothing is rendered and why, the snapshot's first line too, and ``script_timeout`` gives
such scripts up so the page renders; scripts within the limit still run."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.cli.conftest import isolated_env
from tests.stalled_pages import StallServer, stall_server


@pytest.fixture
def stalls() -> Iterator[StallServer]:
    with stall_server() as server:
        yield server


async def test_script_timeout_gives_up_the_stalled_scripts_and_the_page_renders(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    started = time.monotonic()
    result = await tools.navigate(page, stalls.url(25), script_timeout=2, timeout=20)
    assert time.monotonic() - started < 18  # not the scripts' 25 s
    assert result.given_up == (stalls.script(1), stalls.script(2))
    assert result.nothing_rendered == ""
    snapshot = (await tools.snapshot(page)).text
    assert 'heading "Stalled story"' in snapshot and 'button "Read on"' in snapshot
    assert not snapshot.startswith("nothing rendered")
    # The rest of the page works as usual: its later inline script ran.
    assert await tools.evaluate(page, "[window.later, window.slowRan ?? null]") == [1, None]


async def test_scripts_within_the_limit_still_run(page: cdpkit.Page, stalls: StallServer) -> None:
    result = await tools.navigate(page, stalls.url(1), script_timeout=5, timeout=20)
    assert result.given_up == ()
    assert await tools.evaluate(page, "[window.later, window.slowRan]") == [1, 2]


async def test_without_script_timeout_the_result_and_the_snapshot_say_why_the_page_is_empty(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    result = await tools.navigate(page, stalls.url(25), wait_until="usable", timeout=20)
    assert result.given_up == ()
    assert result.nothing_rendered.startswith("nothing rendered yet: the parser waits on ")
    assert f"<script src={stalls.script(1)}> for " in result.nothing_rendered
    assert f"<script src={stalls.script(2)}> for " in result.nothing_rendered
    first = (await tools.snapshot(page)).text.splitlines()[0]
    assert first.startswith("nothing rendered yet: the parser waits on <script src=")
    assert stalls.script(1) in first
    # Once the page shows something, the snapshot no longer says so.
    await tools.navigate(page, "data:text/html,<h1>Here</h1>")
    assert not (await tools.snapshot(page)).text.startswith("nothing rendered")


async def test_history_moves_and_reload_take_script_timeout(page: cdpkit.Page, stalls: StallServer) -> None:
    await tools.navigate(page, stalls.url(25), script_timeout=1, timeout=20)
    reloaded = await tools.reload(page, script_timeout=1, timeout=20)
    assert reloaded.given_up == (stalls.script(1), stalls.script(2))
    with pytest.raises(ValueError, match="script_timeout"):
        await tools.navigate(page, stalls.url(25), script_timeout=0)


def test_cdpkit_snapshot_with_script_timeout_shows_the_stalled_page(
    stalls: StallServer, tmp_path: Path
) -> None:
    # The scripts answer after 60 s: without the flag, the load (--timeout 30) times out.
    completed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "snapshot", stalls.url(60), "--script-timeout", "2", "--wait", "0"],
        capture_output=True, text=True, env=isolated_env(tmp_path), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert 'heading "Stalled story"' in completed.stdout
    assert 'button "Read on"' in completed.stdout
    assert f"gave up the script {stalls.script(1, 60)}" in completed.stderr


async def test_scrape_and_browse_tier_3_give_the_stalled_page_after_script_timeout(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    # The smart wait of scrape, and browse at tier 3, give the content after the scripts
    # are given up: not an empty result, not the whole timeout.
    started = time.monotonic()
    scraped = await tools.scrape(
        page, stalls.url(25), format="text", smart_wait=tools.SmartWait(script_timeout=2), timeout=20
    )
    assert "Stalled story" in scraped.content
    assert time.monotonic() - started < 15
    async with cdpkit.engine(browser={"script_timeout": 2}) as engine:
        started = time.monotonic()
        browsed = await engine.browse(stalls.url(25), tier=3, format="text", timeout=20)
        assert "Stalled story" in browsed.content
        assert time.monotonic() - started < 15


async def test_without_script_timeout_no_request_is_paused(page: cdpkit.Page, stalls: StallServer) -> None:
    # Off (the default for scripts): nothing of the page's loading is intercepted, so a
    # page that does not stall loads as it did.
    async with page.listen("Fetch.requestPaused", raw=True) as paused:
        await tools.navigate(page, stalls.url(0.2), timeout=20)
        assert await tools.evaluate(page, "window.slowRan") == 2
        await tools.reload(page, timeout=20)
        with pytest.raises(TimeoutError):  # none was paused, none arrives
            async with asyncio.timeout(0.5):
                await anext(aiter(paused))


def test_cdpkit_browse_and_repl_take_script_timeout(stalls: StallServer, tmp_path: Path) -> None:
    env = {**isolated_env(tmp_path), "CDPKIT_NO_DAEMON": "1"}
    browsed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", stalls.url(60), "--tier", "3", "--script-timeout", "2",
         "--format", "text"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert browsed.returncode == 0, browsed.stderr
    assert "Stalled story" in browsed.stdout
    script = f":goto {stalls.url(60)}\nprint(await tools.evaluate(page, 'document.querySelector(\"h1\").textContent'))\n"
    console = subprocess.run(
        [sys.executable, "-m", "cdpkit", "repl", "--script-timeout", "2", "--wait", "0"],
        input=script, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert console.returncode == 0, console.stdout + console.stderr
    assert "Stalled story" in console.stdout
