"""A page whose parser-blocking scripts never arrive (issue 46): navigate says that
nothing is rendered and why, the snapshot's first line too, and ``script_timeout`` gives
such scripts up so the page renders; scripts within the limit still run."""

from __future__ import annotations

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
    assert time.monotonic() - started < 10
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
