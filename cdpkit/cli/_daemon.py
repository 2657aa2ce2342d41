"""``cdpkit daemon start|status|stop|run``, and the ``--no-daemon``/``--session`` options
of the commands that use it (added by :func:`with_daemon`); see :mod:`cdpkit._daemon`.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import os
import signal
import subprocess
import sys
import time
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from .._daemon import DaemonPathError, DaemonPaths, DaemonUse, daemon_paths, daemon_use
from .._front.browser_options import CLIError
from .._front.cli_common import run
from ._params import DebugOption, TimeoutOption

F = TypeVar("F", bound=Callable[..., Any])

# The commands that use a running daemon (browse and tui only for their Chrome tiers).
DAEMON_COMMANDS = ("screenshot", "pdf", "snapshot", "scrape", "browse", "tui", "download", "eval")

_DAEMON_OPTIONS: dict[str, tuple[Any, Any]] = {
    "no_daemon": (
        Annotated[
            bool,
            typer.Option(
                "--no-daemon",
                help="Launch a browser of the command's own even when a `cdpkit daemon` runs "
                "(also CDPKIT_NO_DAEMON=1).",
            ),
        ],
        False,
    ),
    "session": (
        Annotated[
            str | None,
            typer.Option(
                "--session",
                metavar="NAME",
                help="Work in the running daemon's named session NAME: its cookies and storage "
                "are kept for the next command naming it (default: a fresh context, discarded).",
                show_default=False,
            ),
        ],
        None,
    ),
}


def with_daemon(command: F) -> F:
    """``command`` with ``--no-daemon`` and ``--session NAME`` on its command line (before
    ``--timeout``); within it, :func:`cdpkit._front.browser_options.start_browser` asks a running
    daemon for the browser as they say. A command with its own ``--session`` (browse, tui:
    the engine's sessions) keeps it, and gets only ``--no-daemon``."""
    hints = typing.get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    own = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()]
    names = {p.name for p in own}
    options = {name: spec for name, spec in _DAEMON_OPTIONS.items() if name not in names}
    added = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)
        for name, (annotation, default) in options.items()
    ]
    at = next((i for i, p in enumerate(own) if p.name in ("timeout", "debug")), len(own))

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        no_daemon = kwargs.pop("no_daemon", False)
        session = kwargs.pop("session", None) if "session" in options else None
        if no_daemon and session is not None:
            raise CLIError("--session names a session of the daemon, and --no-daemon leaves it out: give one", 2)
        with daemon_use(DaemonUse(enabled=not no_daemon, session=session)):
            return command(*args, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*own[:at], *added, *own[at:]])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**hints, **{name: annotation for name, (annotation, _) in options.items()}}
    return wrapper  # type: ignore[return-value]


class DaemonAction(enum.StrEnum):
    """What ``cdpkit daemon`` does."""

    start = "start"
    status = "status"
    stop = "stop"
    run = "run"


def daemon(
    action: Annotated[
        DaemonAction,
        typer.Argument(
            metavar="ACTION",
            help="start: run it in the background; status: print it (exit status 1 when none "
            "runs); stop: end it and its browsers; run: serve in the foreground.",
            show_default=False,
        ),
    ],
    browsers: Annotated[
        int,
        typer.Option("--browsers", min=1, metavar="N", help="Keep up to N browsers (one more is "
                     "launched when all are busy)."),
    ] = 1,
    idle_timeout: Annotated[
        float,
        typer.Option("--idle-timeout", min=1, metavar="SECONDS",
                     help="End the daemon after this long without a command."),
    ] = 900.0,
    session_idle: Annotated[
        float,
        typer.Option("--session-idle", min=1, metavar="SECONDS",
                     help="Discard a named session (--session NAME) unused for this long."),
    ] = 600.0,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """A warm browser for one-shot commands: while it runs, screenshot, pdf, snapshot,
    scrape, eval, download, browse, tui and mcp use its browser instead of starting one
    (each in a fresh browser context), unless their options need a browser of their own.
    Only this user can reach it (a private unix socket; Chrome on a pipe, no port)."""
    try:
        paths = daemon_paths(create=action in (DaemonAction.start, DaemonAction.run))
    except DaemonPathError as exc:
        raise CLIError(str(exc)) from None
    except FileNotFoundError:
        paths = None
    if action is DaemonAction.run:
        assert paths is not None
        from .._daemon import run_daemon

        try:
            run_daemon(paths, browsers=browsers, idle_timeout=idle_timeout,
                       session_idle=session_idle, launch_timeout=timeout)
        except DaemonPathError as exc:  # another daemon holds the pid file
            raise CLIError(str(exc)) from None
        return
    if action is DaemonAction.status:
        _status(paths, timeout, debug)
        return
    if action is DaemonAction.stop:
        _stop(timeout, debug)
        return
    assert paths is not None
    answer = run(lambda: _request("status", timeout=min(timeout, 2.0)), debug=debug)
    if answer is not None:
        print(f"cdpkit daemon already runs (pid {answer.get('pid')}, socket {answer.get('socket')})")
        return
    command = [sys.executable, "-m", "cdpkit", "daemon", "run", "--browsers", str(browsers),
               "--idle-timeout", f"{idle_timeout:g}", "--session-idle", f"{session_idle:g}",
               "--timeout", f"{timeout:g}"]  # fmt: skip
    with open(paths.log_file, "ab") as log:
        os.chmod(paths.log_file, 0o600)
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CLIError(f"the daemon exited at once (status {process.returncode}); see {paths.log_file}")
        answer = run(lambda: _request("status", timeout=1.0), debug=debug)
        if answer is not None and answer.get("pid") == process.pid:
            print(f"cdpkit daemon started (pid {process.pid}, socket {answer.get('socket')}); "
                  "a browser starts on the first command")
            return
        time.sleep(0.05)
    raise CLIError(f"the daemon did not answer within {timeout:g} s; see {paths.log_file}")


def _status(paths: DaemonPaths | None, timeout: float, debug: bool) -> None:
    """Print the running daemon's status; exit status 1 when none runs (or answers)."""
    # A live daemon answers at once: one that does not within 2 s is wedged.
    answer = run(lambda: _request("status", timeout=min(timeout, 2.0)), debug=debug) if paths else None
    if answer is None:
        pid = paths.daemon_pid() if paths else None
        if pid is not None and _running(pid):
            print(f"the cdpkit daemon (pid {pid}) does not answer (`cdpkit daemon stop` ends it)",
                  file=sys.stderr)
        else:
            print("no cdpkit daemon runs", file=sys.stderr)
        raise typer.Exit(1)
    _print_status(answer)


async def _request(op: str, *, timeout: float) -> dict[str, Any] | None:
    from .._daemon import request

    try:
        return await request(op, timeout=timeout)
    except DaemonPathError as exc:
        raise CLIError(str(exc)) from None


def _print_status(answer: dict[str, Any]) -> None:
    browsers = answer.get("browsers") or []
    print(f"pid: {answer.get('pid')}")
    print(f"socket: {answer.get('socket')}")
    print(f"browsers: {len(browsers)} running (up to {answer.get('max_browsers')}), "
          f"{answer.get('launches')} launched in all, {answer.get('served')} command(s) served")
    for browser in browsers:
        sessions = ", ".join(browser.get("sessions") or []) or "-"
        print(f"  browser {browser.get('number')}: chrome pid {browser.get('pid')}, "
              f"{browser.get('connections')} command(s) connected, sessions: {sessions}")
    names = sorted(name for browser in browsers for name in browser.get("sessions") or [])
    print(f"sessions: {', '.join(names) or '-'}")


def _stop(timeout: float, debug: bool) -> None:
    """Ask the daemon to stop and wait until it is gone; a daemon that does not answer
    (e.g. stopped with SIGSTOP) is ended with SIGTERM, then SIGKILL. Only the daemon
    itself is ever signalled: the process holding its pid file's lock (a pid file a dead
    daemon left may name another process by now)."""
    try:
        paths = daemon_paths()
    except FileNotFoundError:
        print("no cdpkit daemon runs")
        return
    except DaemonPathError as exc:
        raise CLIError(str(exc)) from None
    pid = paths.daemon_pid()
    answer = run(lambda: _request("stop", timeout=min(timeout, 2.0)), debug=debug)
    if answer is None and pid is None:
        _remove_leftovers(paths)
        print("no cdpkit daemon runs")
        return
    if answer is not None:
        pid = answer.get("pid", pid)
    if (
        pid is not None
        and (answer is None or not _wait_gone(pid, timeout))
        # SIGCONT: a stopped one acts on the SIGTERM
        and _signal_daemon(paths, pid, signal.SIGTERM, signal.SIGCONT)
        and not _wait_gone(pid, 5.0)
        and _signal_daemon(paths, pid, signal.SIGKILL)  # its Chromes' watchdogs end them
    ):
        _wait_gone(pid, 5.0)
    _remove_leftovers(paths)
    print(f"cdpkit daemon stopped (pid {pid})")


def _remove_leftovers(paths: DaemonPaths) -> None:
    """Remove the socket and pid file a daemon left, unless one still runs."""
    if paths.daemon_pid() is None:
        for leftover in (paths.socket, paths.pid_file):
            leftover.unlink(missing_ok=True)


def _signal_daemon(paths: DaemonPaths, pid: int, *signums: int) -> bool:
    """Send ``signums`` to ``pid`` if it is the daemon (it holds the pid file's lock);
    whether it was."""
    if paths.daemon_pid() != pid:
        return False
    for signum in signums:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)
    return True


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _running(pid):
            return True
        time.sleep(0.05)
    return not _running(pid)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's: not ours to judge, treat as running
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
        return text[text.rfind(")") + 2] not in "ZX"
    except OSError:
        return True
