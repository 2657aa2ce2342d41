"""``cdpkit tui`` on a page whose parser-blocking scripts never arrive (issue 46): with
``--script-timeout`` (or ``[browser] script_timeout`` of the config file) its Chrome pages
give such scripts up and show the page, at start, on reload and in the live page of
``:snapshot``; without it, the page waits on the stalled scripts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit._browse import Engine
from tests.stalled_pages import StallServer
from tests.tui.test_terminal import Tmux

from .conftest import command, make_app, settle

CDPKIT = Path(sys.executable).parent / "cdpkit"


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed (`bash scripts/setup.sh --tests` installs it)"
    server = Tmux(f"cdpkit-st-{os.getpid()}-{tmp_path.name}")
    yield server
    subprocess.run(["tmux", "-L", server.socket, "kill-server"], capture_output=True, timeout=10)


def _start(terminal: Tmux, tmp_path: Path, window: str, args: str) -> None:
    env = f"CDPKIT_CONFIG={tmp_path / 'config.toml'} XDG_DATA_HOME={tmp_path / 'data'} CDPKIT_NO_DAEMON=1"
    command = f"exec env {env} {CDPKIT} tui {args}"
    if terminal.started:
        terminal("new-window", "-d", "-t", "tui", "-n", window, command)
    else:
        terminal("new-session", "-d", "-s", "tui", "-n", window, "-x", "120", "-y", "30", command)
        terminal.started = True


def test_cdpkit_tui_with_script_timeout_shows_the_stalled_page_and_reloads_it(
    terminal: Tmux, tmp_path: Path, stalls: StallServer
) -> None:
    # Tier 3: Chrome renders the page (tier 1 would read its HTML without running scripts).
    url = stalls.url(60)
    _start(terminal, tmp_path, "waits", f"{url} --tier 3")
    started = time.monotonic()
    _start(terminal, tmp_path, "given", f"{url} --tier 3 --script-timeout 1")
    terminal.wait_for_text("given", "Stalled story", timeout=15)
    assert time.monotonic() - started < 15
    # Meanwhile the one without the flag still waits on the scripts: nothing of the page.
    assert "Loading" in terminal.screen("waits") and "Stalled story" not in terminal.screen("waits")
    terminal.type("given", "r")  # a later load of the page gives the scripts up too
    terminal.wait_for_text("given", "Reloading", timeout=5)
    terminal.wait_for(lambda: "Reloading" not in terminal.screen("given"), "the reload", "given", timeout=15)
    screen = terminal.screen("given")
    assert "Stalled story" in screen and "error" not in screen.lower(), screen


async def test_the_config_files_script_timeout_holds_for_the_live_page_of_snapshot(
    _no_user_config: Path, browser: cdpkit.Browser, stalls: StallServer
) -> None:
    _no_user_config.write_text("[browser]\nscript_timeout = 1\n")
    async with Engine(browser=browser) as engine:
        # Tier 1 reads the page; :snapshot loads it in a real page, where the scripts stall.
        app = make_app(engine, stalls.url(60), tier=1, timeout=10)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            assert "Stalled story" in app.visible_text()
            started = time.monotonic()
            await command(app, pilot, "snapshot")
            screen = app.visible_text()
            assert 'heading "Stalled story"' in screen and 'button "Read on"' in screen, screen
            assert time.monotonic() - started < 30  # not the scripts' 60 s
