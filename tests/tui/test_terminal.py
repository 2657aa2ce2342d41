"""``cdpkit tui`` in a real terminal (tmux), keys sent at full speed: it shows the page,
follows a link, starts Chrome only for :snapshot, and leaves no Chrome behind on ``q``,
Ctrl-C or a closed terminal (SIGHUP)."""

from __future__ import annotations

import os
import re
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
    """A tmux server of the test's own (its own socket): one session, ``tui``, whose
    windows each run a command."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.started = False  # the session, with its first window

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self, window: str) -> str:
        return self("capture-pane", "-p", "-t", f"tui:{window}")

    def alive(self, window: str) -> bool:
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", f"tui:{window}"],
                              capture_output=True, timeout=10).returncode == 0  # fmt: skip

    def type(self, window: str, text: str) -> None:
        """Type ``text`` (``\\r``: Enter) into the window in one go, at full speed (literal
        keys: tmux would read ``f1`` as the function key)."""
        self("send-keys", "-t", f"tui:{window}", "-l", text)

    def wait_for(self, check: Callable[[], bool], what: str, window: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                shown = self.screen(window) if self.alive(window) else "(the window has closed)"
                raise AssertionError(f"{what} did not happen within {timeout} s; the terminal shows:\n{shown}")
            time.sleep(0.05)

    def wait_for_text(self, window: str, text: str, timeout: float = 30.0) -> None:
        self.wait_for(lambda: text in self.screen(window), repr(text), window, timeout)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed (`bash scripts/setup.sh --tests` installs it)"
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


def _start(tmux: Tmux, tmp_path: Path, window: str, url: str, size: tuple[int, int] = (120, 40)) -> tuple[int, float]:
    """Start ``cdpkit tui URL`` in a window of its own (``size`` when it is the session's
    first); its pid and when it started."""
    env = f"CDPKIT_CONFIG={tmp_path / 'config.toml'} XDG_DATA_HOME={tmp_path / 'data'}"
    command = f"exec env {env} {CDPKIT} tui {url}"
    started = time.monotonic()
    if tmux.started:
        tmux("new-window", "-d", "-t", "tui", "-n", window, command)
    else:
        tmux("new-session", "-d", "-s", "tui", "-n", window, "-x", str(size[0]), "-y", str(size[1]), command)
        tmux.started = True
    return int(tmux("display-message", "-p", "-t", f"tui:{window}", "#{pane_pid}").strip()), started


def _chrome_of(pid: int) -> dict[int, str]:
    return {child: name for child, name in _descendants(pid).items() if "chrom" in name.lower()}


def _snapshot(tmux: Tmux, window: str) -> None:
    tmux.type(window, ":snapshot\r")  # `:` and the command in one go, as typed fast


def _chrome_after_snapshot(tmux: Tmux, window: str, pid: int) -> dict[int, str]:
    tmux.wait_for_text(window, "Accessibility snapshot of", timeout=60)
    chrome = _chrome_of(pid)
    assert chrome, f"no Chrome under the TUI's process {pid}: {_descendants(pid)}"
    return chrome


def _wait_gone(tmux: Tmux, window: str, pid: int, chrome: dict[int, str], ending: str) -> None:
    tmux.wait_for(lambda: not _running(pid), f"the TUI exiting on {ending}", window)
    tmux.wait_for(lambda: not any(_running(child) for child in chrome), f"Chrome closing on {ending}", window,
                  timeout=10)  # fmt: skip


def test_reads_follows_and_quits_leaving_no_chrome(tmux: Tmux, tmp_path: Path, server: FixtureServer) -> None:
    pid, started = _start(tmux, tmp_path, "q", server.url("/tui/index.html"))
    tmux.wait_for_text("q", "Terminal reading")
    startup = time.monotonic() - started
    print(f"cdpkit tui: page text shown {startup:.2f} s after the spawn")  # for the report (-s)
    screen = tmux.screen("q")
    assert "second page [1]" in screen and "tier 1" in screen and "TUI Home" in screen
    assert not _chrome_of(pid)  # tier 1: no Chrome
    tmux.type("q", "f1\r")
    tmux.wait_for_text("q", "The second page")
    _snapshot(tmux, "q")
    chrome = _chrome_after_snapshot(tmux, "q", pid)
    assert "link \"home page\"" in tmux.screen("q")
    tmux.type("q", "q")
    _wait_gone(tmux, "q", pid, chrome, "q")


def test_ctrl_c_and_a_closed_terminal_leave_no_chrome(tmux: Tmux, tmp_path: Path, server: FixtureServer) -> None:
    """Two TUIs side by side (their Chromes start together): Ctrl-C in one, the other's
    terminal closed (its window killed: SIGHUP)."""
    url = server.url("/tui/second.html")
    pids = {window: _start(tmux, tmp_path, window, url)[0] for window in ("ctrl-c", "hup")}
    for window in pids:
        tmux.wait_for_text(window, "The second page")
        _snapshot(tmux, window)
    chrome = {window: _chrome_after_snapshot(tmux, window, pid) for window, pid in pids.items()}
    assert not set(chrome["ctrl-c"]) & set(chrome["hup"])  # a browser each
    tmux("send-keys", "-t", "tui:ctrl-c", "C-c")
    tmux("kill-window", "-t", "tui:hup")  # the terminal goes away: SIGHUP
    _wait_gone(tmux, "ctrl-c", pids["ctrl-c"], chrome["ctrl-c"], "Ctrl-C")
    _wait_gone(tmux, "hup", pids["hup"], chrome["hup"], "a closed terminal (SIGHUP)")


def test_every_link_of_the_page_can_be_followed_and_italics_show(
    tmux: Tmux, tmp_path: Path, server: FixtureServer
) -> None:
    _start(tmux, tmp_path, "links", server.url("/tui/sections.html"))
    tmux.wait_for_text("links", "Reading sections")
    screen = tmux.screen("links")
    # The navigation, the site header and the footer are numbered with the content, in page order.
    for shown in ("Site home [1]", "Section links", "Second section [2]", "Contact section [3]",
                  "home page [1]", "Footer notes [4]"):  # fmt: skip
        assert shown in screen, (shown, screen)
    # Emphasis is painted in italics (SGR 3), without its markdown asterisks.
    painted = tmux("capture-pane", "-p", "-e", "-t", "tui:links")
    assert "*emphasised" not in screen
    assert re.search(r"\x1b\[(?:\d+;)*3(?:;\d+)*memphasised words", painted), painted
    tmux.type("links", "f3\r")  # a link of the navigation list
    tmux.wait_for_text("links", "Contact us")


def test_the_help_fits_an_80x24_terminal_by_scrolling_with_a_hint(
    tmux: Tmux, tmp_path: Path, server: FixtureServer
) -> None:
    _start(tmux, tmp_path, "help", server.url("/tui/second.html"), size=(80, 24))
    tmux.wait_for_text("help", "The second page")
    tmux.type("help", "?")
    tmux.wait_for_text("help", "closes")
    screen = tmux.screen("help")
    assert "any other key closes" in screen and "scroll down a line" in screen
    assert all(len(row) <= 80 for row in screen.splitlines())
    assert "show this help" not in screen  # below the fold
    tmux.type("help", "jjjjjjjjjj")  # to its end: the last actions show, the first scroll away
    tmux.wait_for(lambda: "show this help" in tmux.screen("help") and "scroll down a line" not in tmux.screen("help"),
                  "the help scrolling to its end", "help")  # fmt: skip
    tmux.type("help", "x")  # any other key closes it
    tmux.wait_for(lambda: "any other key closes" not in tmux.screen("help"), "the help closing", "help")
    assert "The second page" in tmux.screen("help")
