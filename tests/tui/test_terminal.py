"""``cdpkit tui`` in a real terminal (tmux): it shows the page, follows a link, starts
Chrome only for :snapshot, and leaves no Chrome behind on ``q``, Ctrl-C or a closed
terminal (SIGHUP)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.server import FixtureServer

CDPKIT = Path(sys.executable).parent / "cdpkit"


class Tmux:
    """A tmux server of the test's own (its own socket), running one command."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "tui")

    def alive(self) -> bool:
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", "tui"],
                              capture_output=True, timeout=10).returncode == 0  # fmt: skip

    def wait_for(self, check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                shown = self.screen() if self.alive() else "(the session has ended)"
                raise AssertionError(f"{what} did not happen within {timeout} s; the terminal shows:\n{shown}")
            time.sleep(0.05)

    def wait_for_text(self, text: str, timeout: float = 30.0) -> None:
        self.wait_for(lambda: text in self.screen(), repr(text), timeout)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed (scripts/setup.sh installs it)"
    server = Tmux(f"cdpkit-test-{os.getpid()}-{tmp_path.name}")
    yield server
    subprocess.run(["tmux", "-L", server.socket, "kill-server"], capture_output=True, timeout=10)


def _descendants(root: int) -> dict[int, str]:
    """The processes under ``root`` (pid -> command name), from /proc."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        names[int(entry.name)] = name
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        current = frontier.pop()
        for pid, parent in parents.items():
            if parent == current and pid not in found:
                found[pid] = names[pid]
                frontier.append(pid)
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _start(tmux: Tmux, tmp_path: Path, url: str) -> tuple[int, float]:
    """Start ``cdpkit tui URL`` in a 120x40 terminal; its pid and when it started."""
    env = f"CDPKIT_CONFIG={tmp_path / 'config.toml'} XDG_DATA_HOME={tmp_path / 'data'}"
    started = time.monotonic()
    tmux("new-session", "-d", "-s", "tui", "-x", "120", "-y", "40", f"exec env {env} {CDPKIT} tui {url}")
    return int(tmux("display-message", "-p", "-t", "tui", "#{pane_pid}").strip()), started


def _chrome_after_snapshot(tmux: Tmux, pid: int) -> dict[int, str]:
    tmux("send-keys", "-t", "tui", ":", "snapshot", "Enter")
    tmux.wait_for_text("Accessibility snapshot of", timeout=60)
    chrome = {child: name for child, name in _descendants(pid).items() if "chrom" in name.lower()}
    assert chrome, f"no Chrome under the TUI's process {pid}: {_descendants(pid)}"
    return chrome


def test_reads_follows_and_quits_leaving_no_chrome(tmux: Tmux, tmp_path: Path, server: FixtureServer) -> None:
    pid, started = _start(tmux, tmp_path, server.url("/tui/index.html"))
    tmux.wait_for_text("Terminal reading")
    startup = time.monotonic() - started
    print(f"cdpkit tui: page text shown {startup:.2f} s after the spawn")  # for the report (-s)
    screen = tmux.screen()
    assert "second page [1]" in screen and "tier 1" in screen and "TUI Home" in screen
    assert not [name for name in _descendants(pid).values() if "chrom" in name.lower()]  # tier 1: no Chrome
    tmux("send-keys", "-t", "tui", "f", "1", "Enter")
    tmux.wait_for_text("The second page")
    chrome = _chrome_after_snapshot(tmux, pid)
    tmux("send-keys", "-t", "tui", "q")
    tmux.wait_for(lambda: not _running(pid), "the TUI exiting on q")
    tmux.wait_for(lambda: not any(_running(child) for child in chrome), "Chrome closing", timeout=10)


@pytest.mark.parametrize("ending", ["closed terminal", "Ctrl-C"])
def test_a_closed_terminal_or_ctrl_c_leaves_no_chrome(
    tmux: Tmux, tmp_path: Path, server: FixtureServer, ending: str
) -> None:
    pid, _ = _start(tmux, tmp_path, server.url("/tui/second.html"))
    tmux.wait_for_text("The second page")
    chrome = _chrome_after_snapshot(tmux, pid)
    if ending == "Ctrl-C":
        tmux("send-keys", "-t", "tui", "C-c")
    else:
        tmux("kill-session", "-t", "tui")  # the terminal goes away: SIGHUP
    tmux.wait_for(lambda: not _running(pid), f"the TUI exiting on {ending}")
    tmux.wait_for(lambda: not any(_running(child) for child in chrome), "Chrome closing", timeout=10)
