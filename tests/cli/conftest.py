"""Fixtures of the command-line tests: run ``python -m cdpkit`` as a user would, with a
private home for history, profiles and downloads, in a temporary working directory, and
one shared browser (started with ``cdpkit launch``) that most commands attach to with
``--connect``, so the suite starts Chrome only a few times. Whatever the tests run, the
checkout gets no new files (checked when the session ends)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.server import FixtureServer

REPO = Path(__file__).resolve().parents[2]


def children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[1] == str(pid) and fields[0] not in "ZX":
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def wait_gone(pids: list[int], timeout: float = 10) -> None:
    """Wait until none of ``pids`` runs; fail if one still does after ``timeout``."""
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if alive(pid)]


@dataclass
class CLI:
    """Runs ``python -m cdpkit ...`` in a subprocess with an isolated environment."""

    env: dict[str, str]
    cwd: Path

    def run(
        self,
        *args: str,
        input: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 90,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cdpkit", *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env={**self.env, **(env or {})},
            cwd=self.cwd,
            timeout=timeout,
        )

    def popen(self, *args: str, env: Mapping[str, str] | None = None, **kwargs: object) -> subprocess.Popen[str]:
        streams: dict[str, object] = {
            "stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE
        }
        return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
            [sys.executable, "-m", "cdpkit", *args],
            text=True,
            env={**self.env, **(env or {})},
            cwd=self.cwd,
            **{**streams, **kwargs},
        )


def isolated_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CDPKIT_", "XDG_"))}
    env.update(
        PYTHONPATH=str(REPO),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DOWNLOAD_DIR=str(home / "downloads"),
        CDPKIT_PROFILES=str(home / "profiles"),
        PYTHONUNBUFFERED="1",
        COLUMNS="120",
    )
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def untracked_files() -> set[str]:
    """Files of the checkout git does not know and does not ignore (none outside git)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--others", "--exclude-standard"],
            cwd=REPO, capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(listed.stdout.splitlines()) if listed.returncode == 0 else set()


@pytest.fixture(scope="session", autouse=True)
def checkout_stays_clean() -> Iterator[None]:
    """Commands and examples write where they are run: never into the checkout."""
    before = untracked_files()
    yield
    written = sorted(untracked_files() - before)
    assert not written, f"the tests wrote into the checkout {REPO}: {written}"


@pytest.fixture(scope="session")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-home")


@pytest.fixture
def cli(cli_home: Path, tmp_path: Path) -> CLI:
    return CLI(isolated_env(cli_home), tmp_path)


@dataclass
class LaunchedBrowser:
    """The shared browser of the session, started by ``cdpkit launch``."""

    endpoint: str
    process: subprocess.Popen[str]
    banner: str


@pytest.fixture(scope="session")
def shared_browser(cli_home: Path) -> Iterator[LaunchedBrowser]:
    process = subprocess.Popen(
        [sys.executable, "-m", "cdpkit", "launch"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=isolated_env(cli_home),
        cwd=cli_home,
    )
    assert process.stdout is not None and process.stderr is not None
    endpoint = process.stdout.readline().strip()
    banner = "".join(process.stderr.readline() for _ in range(3))
    try:
        assert endpoint.startswith("http://127.0.0.1:"), (endpoint, banner)
        yield LaunchedBrowser(endpoint, process, banner)
    finally:
        chrome = children(process.pid)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C: how `cdpkit launch` is stopped
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    assert process.returncode == 0
    wait_gone(chrome)  # no Chrome process is left behind


@pytest.fixture
def endpoint(shared_browser: LaunchedBrowser) -> str:
    return shared_browser.endpoint


# -- the daemon (tests/cli/test_daemon.py, test_daemon_fast.py) ------------------------------


class Daemon:
    """The daemon of one test: its folder, and what its status says."""

    def __init__(self, cli: CLI, folder: Path) -> None:
        self.cli = cli
        self.folder = folder  # $XDG_RUNTIME_DIR/cdpkit

    @property
    def socket(self) -> Path:
        return self.folder / "daemon.sock"

    @property
    def pid(self) -> int:
        return int((self.folder / "daemon.pid").read_text())

    def start(self, *args: str) -> None:
        result = self.cli.run("daemon", "start", *args)
        assert result.returncode == 0, result.stderr
        assert "cdpkit daemon started" in result.stdout

    def status(self) -> str:
        result = self.cli.run("daemon", "status")
        assert result.returncode == 0, result.stderr
        return result.stdout

    def chromes(self) -> list[int]:
        """The Chrome processes the daemon started (their parent is the daemon)."""
        found = []
        for pid in children(self.pid):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if b"chrom" in Path(command.decode()).name.lower().encode():
                found.append(pid)
        return found


@pytest.fixture
def daemon(cli: CLI, tmp_path: Path) -> Iterator[Daemon]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    cli.env["XDG_RUNTIME_DIR"] = str(runtime)
    started = Daemon(cli, runtime / "cdpkit")
    yield started
    pid_file = started.folder / "daemon.pid"
    if not pid_file.exists():
        return
    pid = started.pid
    chromes = started.chromes() if alive(pid) else []
    if alive(pid):
        os.kill(pid, signal.SIGCONT)  # a test may have stopped it
        cli.run("daemon", "stop")
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
    for chrome in chromes:
        if alive(chrome):
            os.kill(chrome, signal.SIGKILL)


def page(server: FixtureServer) -> str:
    return server.url("/cli/index.html")
