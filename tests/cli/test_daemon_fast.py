"""The fast path of the one-shot commands while a ``cdpkit daemon`` runs: a plain command
line is handed to the daemon's warm command runner before typer, pydantic or the bindings
load, and gives what the full command gives; anything else runs the full command.

Each command runs in a subprocess through a wrapper that writes, when it exits, which of
the heavy modules its process loaded: none means the fast path took it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import typer.main

from cdpkit._daemon._fast import OPTIONS, servable
from cdpkit.cli import FAST_COMMANDS
from cdpkit.cli._app import app
from tests.cli.conftest import CLI, Daemon, page
from tests.server import FixtureServer

HEAVY = ("typer", "pydantic", "websockets", "cdpkit.cdp")
# `python -m cdpkit ARGS` that also writes the heavy modules it loaded to a file.
WRAPPER = (
    "import atexit, runpy, sys\n"
    "report = sys.argv.pop(1)\n"
    "def write():\n"
    "    with open(report, 'w') as file:\n"
    f"        file.write(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    "atexit.register(write)\n"
    "runpy.run_module('cdpkit', run_name='__main__', alter_sys=True)\n"
)


class Run:
    def __init__(self, done: subprocess.CompletedProcess[bytes], loaded: str) -> None:
        self.returncode = done.returncode
        self.stdout = done.stdout
        self.stderr = done.stderr
        self.loaded = loaded  # the heavy modules it imported ("" on the fast path)

    def same_as(self, other: Run) -> bool:
        return (self.returncode, self.stdout, self.stderr) == (other.returncode, other.stdout, other.stderr)


def run(cli: CLI, *args: str, env: dict[str, str] | None = None) -> Run:
    report = cli.cwd / ".loaded"
    report.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(report), *args], capture_output=True,
        env={**cli.env, **(env or {})}, cwd=cli.cwd, timeout=90, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return Run(done, report.read_text() if report.exists() else "(no report)")


def full_path(cli: CLI, *args: str) -> Run:
    """The command run by the full command line (typer), with the daemon as it is."""
    code = "import sys; from cdpkit.cli import main; main(sys.argv[1:])"
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, env=cli.env, cwd=cli.cwd,
        timeout=90, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return Run(done, "typer")


def warm(daemon: Daemon, server: FixtureServer) -> None:
    """Start the daemon, its Chrome (the first command) and its command runner."""
    daemon.start()
    first = daemon.cli.run("eval", page(server), "1", "--wait", "0")
    assert first.returncode == 0, first.stderr
    deadline = time.monotonic() + 30
    while not (daemon.folder / "worker.sock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_the_option_lists_are_the_commands_own() -> None:
    """What the fast path lets through is an option of the command, with or without a
    value as the command takes it."""
    assert set(OPTIONS) == FAST_COMMANDS
    group = typer.main.get_command(app)
    for name, options in OPTIONS.items():
        command = group.commands[name]  # type: ignore[attr-defined]
        takes = {opt: not param.is_flag for param in command.params if param.param_type_name == "option"
                 for opt in param.opts}  # fmt: skip
        for option, value in options.items():
            assert takes.get(option) == value, (name, option)
    assert servable(["screenshot", "URL", "-o", "a.png", "--timeout=5"]) == 5.0
    for refused in (
        ["screenshot", "URL", "--viewport", "640x480"], ["screenshot", "URL", "--no-daemon"],
        ["screenshot", "--help"], ["screenshot", "URL", "-o"], ["eval", "URL"], ["repl", "URL"],
        ["screenshot", "URL", "--full-page=yes"], ["screenshot", "URL", "--", "-x"],
    ):  # fmt: skip
        assert servable(refused) is None, refused


def test_a_screenshot_on_the_fast_path_is_the_no_daemon_one(daemon: Daemon, server: FixtureServer) -> None:
    warm(daemon, server)
    url = page(server)
    fast = run(daemon.cli, "screenshot", url, "--wait", "0", "-o", "shot.png")
    assert fast.loaded == "", fast.stderr  # typer, pydantic, the bindings: none loaded
    fast_png = (daemon.cli.cwd / "shot.png").read_bytes()
    alone = run(daemon.cli, "screenshot", url, "--wait", "0", "-o", "shot.png", "--no-daemon")
    assert "typer" in alone.loaded
    assert fast.same_as(alone), (fast.stderr, alone.stderr)
    assert fast.stdout.startswith(b"Saved shot.png (png, ")
    assert fast_png == (daemon.cli.cwd / "shot.png").read_bytes()
    to_stdout = run(daemon.cli, "screenshot", url, "--wait", "0", "-o", "-", "--full-page")
    assert to_stdout.loaded == ""
    assert to_stdout.same_as(run(daemon.cli, "screenshot", url, "--wait", "0", "-o", "-", "--full-page",
                                 "--no-daemon"))  # fmt: skip
    assert to_stdout.stdout[:4] == b"\x89PNG"
    # A command line the command refuses: the same message and status.
    refused = run(daemon.cli, "screenshot", url, "-o", "shot.gif")
    assert refused.loaded == "" and refused.returncode == 2
    assert refused.same_as(run(daemon.cli, "screenshot", url, "-o", "shot.gif", "--no-daemon"))
    # The warm-up and two shots (the refused one never asked for a browser).
    assert "1 launched in all, 3 command(s) served" in daemon.status()


def test_every_routed_command_gives_what_the_full_command_gives(
    daemon: Daemon, server: FixtureServer
) -> None:
    warm(daemon, server)
    url = page(server)
    commands = [
        ["eval", url, "document.title + ' é'", "--wait", "0"],
        ["eval", url, "({list: [1, 2], text: 'ü'})", "--wait", "0", "--timeout", "20"],
        ["eval", url, "throw new Error('boom')", "--wait", "0"],
        ["snapshot", url, "--wait", "0", "-i"],
        ["snapshot", url, "--wait", "0", "--max-chars", "40"],
        ["scrape", url, "--wait", "0", "--format", "links"],
        ["scrape", url, "--wait", "0", "-o", "page.md"],
        ["pdf", url, "--wait", "0", "-o", "page.pdf"],
        ["eval", url + "nothing-here", "1", "--wait", "0"],
    ]
    for args in commands:
        fast = run(daemon.cli, *args)
        assert fast.loaded == "", (args, fast.stderr)
        full = full_path(daemon.cli, *args)
        assert fast.same_as(full), (args, fast.stdout, full.stdout, fast.stderr, full.stderr)
        # Nothing of the daemon's browser in what they print (one of each, each a launch).
        if args in (commands[1], commands[5]):
            assert fast.same_as(run(daemon.cli, *args, "--no-daemon")), args
    assert (daemon.cli.cwd / "page.md").read_text().strip()
    assert (daemon.cli.cwd / "page.pdf").read_bytes()[:5] == b"%PDF-"
    error = run(daemon.cli, "eval", url, "throw new Error('boom')", "--wait", "0")
    assert error.returncode == 1 and b"boom" in error.stderr


def test_what_it_does_not_understand_runs_the_full_command(
    daemon: Daemon, server: FixtureServer
) -> None:
    url = page(server)
    none_runs = run(daemon.cli, "eval", url, "40 + 2", "--wait", "0")
    assert "typer" in none_runs.loaded and none_runs.stdout.strip() == b"42"
    warm(daemon, server)
    assert run(daemon.cli, "eval", url, "40 + 2", "--wait", "0").loaded == ""
    for args in (
        ["eval", url, "innerWidth", "--wait", "0", "--viewport", "640x480"],  # its own browser
        ["eval", url, "40 + 2", "--wait", "0", "--no-daemon"],
        ["screenshot", "--help"],
        ["eval", url, "1", "--wait", "0", "--bogus"],
    ):
        fell_back = run(daemon.cli, *args)
        assert "typer" in fell_back.loaded, args
        assert fell_back.same_as(full_path(daemon.cli, *args)), (args, fell_back.stderr)
    assert run(daemon.cli, "eval", url, "1", "--wait", "0", env={"CDPKIT_NO_DAEMON": "1"}).loaded != ""


def test_a_stopped_daemon_sends_the_command_down_the_full_path(
    daemon: Daemon, server: FixtureServer
) -> None:
    warm(daemon, server)
    url = page(server)
    assert run(daemon.cli, "eval", url, "40 + 2", "--wait", "0").loaded == ""
    os.kill(daemon.pid, signal.SIGSTOP)
    result = run(daemon.cli, "eval", url, "40 + 2", "--wait", "0", "--timeout", "20")
    assert "typer" in result.loaded
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == b"42"
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "daemon did not answer" in lines[0], result.stderr


def test_ctrl_c_reaches_the_command_the_daemon_runs(daemon: Daemon, server: FixtureServer) -> None:
    warm(daemon, server)
    report = daemon.cli.cwd / ".loaded"
    process = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, str(report), "eval", page(server),
         "new Promise(resolve => setTimeout(resolve, 60000))", "--wait", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=daemon.cli.env, cwd=daemon.cli.cwd,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while "1 command(s) connected" not in daemon.status() and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert report.read_text() == ""
    assert process.returncode == 130
    assert err.decode() == "error: interrupted\n"
    assert re.search(r"0 command\(s\) connected", daemon.status())


def test_the_runner_ends_with_the_daemon(daemon: Daemon, server: FixtureServer) -> None:
    warm(daemon, server)
    worker = daemon.folder / "worker.sock"
    assert worker.exists()
    assert daemon.cli.run("daemon", "stop").returncode == 0
    assert not worker.exists()
    result = run(daemon.cli, "eval", page(server), "40 + 2", "--wait", "0")
    assert result.stdout.strip() == b"42" and "typer" in result.loaded
