"""The fast path of the one-shot commands when a daemon runs: ``cdpkit screenshot URL``
(and pdf, snapshot, scrape, eval) handed to the daemon's warm command runner
(:mod:`._worker`) before typer, pydantic or the bindings are imported.

:func:`cdpkit.cli.main` asks :func:`run_by_daemon` first. It takes a command line only
when it understands all of it: one of those commands, its arguments, and only options
the daemon's browser serves (the command's own, ``--wait``, ``--timeout``, ``--debug``,
``--session``, ``--header``, ``--har``); and only when this user's daemon answers at once
and its runner runs the same Python and the same cdpkit. Anything else (another option,
``--help``, ``--no-daemon``, ``CDPKIT_NO_DAEMON``, no daemon, one that does not answer)
returns ``None`` and the command runs as always, in this process. A command it hands over
runs the very same code, with this process's stdin, stdout, stderr, working directory,
environment and umask: its output, files and exit status are the same.

Stdlib only: what it imports is what a command pays before it starts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._paths import DaemonPathError, check_listener, daemon_paths

# The options each command takes that leave its browser the daemon's: name -> whether it
# takes a value. Kept in step with the commands by tests/cli/test_daemon_fast.py.
_SHARED = {"--wait": True, "--timeout": True, "--debug": False, "--session": True,
           "--header": True, "--har": True}  # fmt: skip
OPTIONS: dict[str, dict[str, bool]] = {
    "screenshot": {"-o": True, "--output": True, "--full-page": False, "--format": True,
                   "--quality": True, "--selector": True, "--element": True, **_SHARED},
    "pdf": {"-o": True, "--output": True, **_SHARED},
    "snapshot": {"-i": False, "--interactive-only": False, "--selector": True, "--depth": True,
                 "--max-depth": True, "--max-chars": True, "--engine": True, **_SHARED},
    "scrape": {"--format": True, "--selector": True, "--max-chars": True, "-o": True,
               "--output": True, **_SHARED},
    "eval": dict(_SHARED),
}  # fmt: skip
# How many arguments each command takes (URL; URL and EXPR).
_ARGUMENTS = {"screenshot": 1, "pdf": 1, "snapshot": 1, "scrape": 1, "eval": 2}
# The longest the daemon and its runner have to answer (a quarter of --timeout if less)
# before the command runs here instead: both answer at once unless wedged, and the full
# path then waits its own 2 s for the daemon and says what it found.
ANSWER_WITHIN = 1.0


def servable(args: Sequence[str]) -> float | None:
    """The command's ``--timeout`` (30 s when not given) when the fast path understands
    the whole command line ``args``, else ``None``."""
    if not args or args[0] not in OPTIONS:
        return None
    options = OPTIONS[args[0]]
    arguments = 0
    timeout = "30"
    rest = iter(args[1:])
    for arg in rest:
        if arg.startswith("-") and arg != "-":
            name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            takes_value = options.get(name)
            if takes_value is None or (equals and not takes_value):
                return None  # --help, --no-daemon, a launch option, a typo...
            if takes_value and not equals:
                following = next(rest, None)
                if following is None:
                    return None
                value = following
            if name == "--timeout":
                timeout = value
        else:
            arguments += 1
    if arguments != _ARGUMENTS[args[0]]:
        return None
    try:
        seconds = float(timeout)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def run_by_daemon(args: Sequence[str]) -> int | None:
    """Hand the command line ``args`` to the running daemon's command runner and return
    its exit status, or ``None`` when it is not for the fast path (see the module)."""
    timeout = servable(args)
    if timeout is None or os.environ.get("CDPKIT_NO_DAEMON", "") not in ("", "0"):
        return None
    try:
        paths = daemon_paths()
    except (OSError, DaemonPathError):
        return None  # none runs, or a folder the full path says what is wrong with
    within = min(ANSWER_WITHIN, timeout / 4)
    if not paths.worker_socket.exists() or not _daemon_answers(str(paths.socket), within):
        return None
    stdio = stdio_settings()
    if stdio is None:
        return None
    try:
        request = {
            "argv": [sys.argv[0], *args], "cwd": os.getcwd(), "env": dict(os.environ),
            "umask": _umask(), "stdio": stdio, "fingerprint": fingerprint(),
        }  # fmt: skip
        runner = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None  # e.g. a working directory that was removed: the full path says so
    with runner:
        try:
            runner.settimeout(within)
            runner.connect(str(paths.worker_socket))
            check_listener(runner, paths.worker_socket)  # the caller's stdio and environment go
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            data = json.dumps(request).encode() + b"\n"
            sent = socket.send_fds(runner, [data], [0, 1, 2])  # the descriptors go with byte 1
            runner.sendall(data[sent:])
            answer = _read_line(runner)
            pid = answer.get("pid")
            if not isinstance(pid, int):
                return None  # it will not run it (another Python...): run it here
            runner.sendall(b"go\n")
        except (OSError, ValueError, DaemonPathError):
            return None  # it did not answer in time (the child, not told to go, ends), or
            # is not this user's: the full path says so
        return _wait_for(runner, pid)


def fingerprint() -> dict[str, Any]:
    """What must be the same in the caller and here for a child of this process to run
    a command exactly as the caller would: the Python, the import path (but its first
    entry, the caller's script folder or working directory), where cdpkit is, the
    interpreter's flags and the text encodings. Stdlib only (the caller computes it too)."""
    import locale

    import cdpkit

    flags = sys.flags
    return {
        "version": sys.version,
        "prefix": sys.prefix,
        "exec_prefix": sys.exec_prefix,
        "path": sys.path[1:],
        "cdpkit": str(Path(cdpkit.__file__).resolve().parent),
        "flags": [flags.optimize, flags.dont_write_bytecode, flags.utf8_mode, flags.dev_mode,
                  flags.bytes_warning, flags.isolated, flags.safe_path, flags.hash_randomization],
        "encodings": [sys.getfilesystemencoding(), sys.getfilesystemencodeerrors(),
                      locale.getencoding()],
        "warnings": sys.warnoptions,
    }  # fmt: skip


def stdio_settings() -> list[list[Any]] | None:
    """How this process's stdin, stdout and stderr encode text and buffer (the child
    makes its own the same as the caller's); ``None`` when one is not the text stream
    Python opens (none at all, or replaced)."""
    settings = []
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):
            return None
        buffered = isinstance(stream.buffer, io.BufferedIOBase)  # not with -u
        settings.append([stream.encoding, stream.errors, stream.line_buffering, stream.write_through,
                         buffered])  # fmt: skip
    return settings


def _daemon_answers(path: str, within: float) -> bool:
    """Whether the daemon (not just its runner) answers a status request in time: one
    that does not (stopped, wedged) is for the full path to judge and say."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(within)
            probe.connect(path)
            check_listener(probe, Path(path))
            probe.sendall(b'{"op": "status"}\n')
            return _read_line(probe).get("ok") is True
    except (OSError, ValueError, DaemonPathError):
        return False  # another user's listener: the full path says so


def _read_line(connection: socket.socket) -> dict[str, Any]:
    """One JSON line.

    Raises:
        ValueError: The connection closed first, or not a JSON object.
        OSError: It failed or timed out.
    """
    data = b""
    while not data.endswith(b"\n"):
        more = connection.recv(65536)
        if not more:
            raise ValueError("closed")
        data += more
    answer = json.loads(data)
    if not isinstance(answer, dict):
        raise ValueError("not an object")
    return answer


def _wait_for(runner: socket.socket, pid: int) -> int:
    """The exit status of the command the child ``pid`` runs, this process's signals
    (Ctrl-C, SIGTERM, SIGHUP) passed on to it meanwhile."""

    def pass_on(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, pass_on)
    runner.settimeout(None)
    try:
        status = _read_line(runner).get("status")
    except (OSError, ValueError):
        status = None
    if not isinstance(status, int):
        print("error: the cdpkit daemon's command runner ended before the command did",
              file=sys.stderr)
        return 1
    return status


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
