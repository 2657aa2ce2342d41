"""The daemon's warm command runner: a process with the command line and the tools already
imported, forking one child per command it is handed (see :mod:`._fast`).

A one-shot command spends most of its time before it does anything: starting Python and
importing typer, pydantic, the bindings and the tools (about half a second). The daemon
starts this process once (``python -m cdpkit._daemon._worker SOCKET``); it imports all of
that, then listens on ``worker.sock`` in the daemon's private folder (mode 0600). A
command handed to it comes with the caller's stdin, stdout and stderr (passed over the
socket), working directory, environment, umask and argv; a forked child takes them all on
and runs the very same :func:`cdpkit.cli.main` the caller would have run, so its output,
files and exit status are the caller's own; the caller waits for that status, forwarding
its signals (Ctrl-C) to the child.

The exchange, one connection per command (JSON lines): the request (with the three file
descriptors); ``{"pid": N}`` from this process once the child is forked, or
``{"fallback": "why"}`` when it will not run it (another Python, another cdpkit); ``go``
from the caller (a caller that gave up closes the connection instead, and the child ends
without running anything: the command never runs twice); ``{"status": N}`` from the child.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import io
import json
import os
import signal
import socket
import struct
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from ._fast import fingerprint

# What the commands the fast path hands over load as they run: imported once here, so
# that no child pays for them. One that fails to import is loaded (or fails) in the child.
_PRELOAD = (
    "cdpkit.cli._app",
    "cdpkit.browser",
    "cdpkit.page",
    "cdpkit._daemon._client",
    "cdpkit.tools",
    "cdpkit.tools.navigation",
    "cdpkit.tools.information",
    "cdpkit.tools.accessibility",
    "cdpkit.tools.scraping",
    "cdpkit.tools._snapshot",
    "cdpkit.tools._locating",
    "cdpkit._browse",
    "cdpkit._browser.config",
    "cdpkit._browse._result",
    "cdpkit._extraction._extract",
    "cdpkit._extraction._formats",
    "tomllib",
    "queue",
    "typer._adapters",
    "typer._click.decorators",
    "pydantic.type_adapter",
    "pydantic.plugin._loader",
    "anyio._backends._asyncio",
    "anyio.to_thread",
    "importlib.resources.readers",
    "trafilatura",
)
# The protocol domains those commands use: their models are built here, once (pydantic
# builds a model's validator on its first use: tens of milliseconds a child would pay).
_DOMAINS = ("page", "runtime", "target", "network", "dom", "emulation", "io", "accessibility",
            "browser", "fetch", "storage", "input_", "log", "security")  # fmt: skip
# The longest a connection may take to send its request: the worker serves one at a time.
_REQUEST_WITHIN = 2.0
_MAX_REQUEST = 4 * 1024 * 1024


def _preload() -> None:
    for name in _PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        _build_app_once()
    _build_models()
    # What is loaded now stays as it is: the children's garbage collections skip it, and
    # so do not copy the pages they share with this process.
    gc.collect()
    gc.freeze()


def _build_models() -> None:
    from pydantic import BaseModel

    for domain in _DOMAINS:
        for package in ("cdpkit.cdp", "cdpkit.cdp._results", "cdpkit.cdp._events", "cdpkit.cdp._types"):
            try:
                module = importlib.import_module(f"{package}.{domain}")
            except ImportError:
                continue  # a domain without results, events or types
            models = [
                value for value in vars(module).values()
                if isinstance(value, type) and issubclass(value, BaseModel)
                and value.__module__ == module.__name__
            ]  # fmt: skip
            for model in models:
                with contextlib.suppress(Exception):
                    model.model_rebuild()


def _build_app_once() -> None:
    """Build the typer app's click command here, once (typer builds it again on every
    call: tens of milliseconds a child would pay)."""
    import typer.main

    from ..cli import app

    built = typer.main.get_command(app)
    build = typer.main.get_command
    # Each option's value converter too (typer makes it on the option's first use).
    for command in getattr(built, "commands", {}).values():
        for param in command.params:
            with contextlib.suppress(Exception):
                param.get_runtime_param()

    def get_command(typer_instance: typer.Typer) -> Any:
        return built if typer_instance is app else build(typer_instance)

    typer.main.get_command = get_command


def serve(path: Path) -> None:
    """Listen on ``path`` and fork a child per command until the daemon (the parent
    process) ends or sends SIGTERM."""
    _preload()
    parent = os.getppid()
    mine = fingerprint()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)  # 0600 from its first moment
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_umask)
    listener.listen(64)
    listener.settimeout(1.0)  # to notice the daemon's end
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Ctrl-C at a `cdpkit daemon run` in a terminal reaches the whole group: the daemon
    # ends this process as it ends (a child takes Python's handler back).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        while os.getppid() == parent:
            _reap()
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                _hand_over(listener, connection, mine)
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The request and the three descriptors that came with it.

    Raises:
        ValueError: Not a request from this user with three descriptors.
        OSError: The connection failed or took too long.
    """
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", credentials)
    if uid != os.getuid():
        raise ValueError(f"a process of uid {uid}")
    connection.settimeout(_REQUEST_WITHIN)
    data, fds, _, _ = socket.recv_fds(connection, 65536, 3)
    try:
        while not data.endswith(b"\n"):
            more = connection.recv(65536)
            if not more or len(data) > _MAX_REQUEST:
                raise ValueError("an incomplete request")
            data += more
        if len(fds) != 3:
            raise ValueError(f"{len(fds)} descriptors")
        request = json.loads(data)
        if not isinstance(request, dict):
            raise ValueError("not an object")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return request, fds


def _hand_over(listener: socket.socket, connection: socket.socket, mine: dict[str, Any]) -> None:
    try:
        request, fds = _receive(connection)
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps({"fallback": str(exc)}).encode() + b"\n")
        return
    try:
        if request.get("fingerprint") != mine:
            connection.sendall(b'{"fallback": "another Python or another cdpkit"}\n')
            return
        pid = os.fork()
        if pid == 0:
            listener.close()
            _child(connection, request, fds)  # never returns
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        pass
    finally:
        for fd in fds:
            os.close(fd)


def _child(connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    status = 1
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        connection.settimeout(None)
        word = b""
        while len(word) < 3 and (more := connection.recv(3 - len(word))):
            word += more
        if word != b"go\n":
            os._exit(0)  # the caller gave up: it runs the command itself
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _adopt_stdio(request["stdio"])
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()  # the caller's TZ, if it has one
        os.umask(request["umask"])
        sys.argv = list(request["argv"])
        status = _run(sys.argv[1:])
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        # The caller's descriptors go before the status: a caller reading this command's
        # output through a pipe sees its end now, not once this large process is torn down.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os.closerange(0, 3)
        with contextlib.suppress(BaseException):
            connection.sendall(json.dumps({"status": status}).encode() + b"\n")
        os._exit(0)


def _adopt_stdio(settings: list[list[Any]]) -> None:
    """New ``sys.stdin``/``stdout``/``stderr`` on descriptors 0-2, encoding and buffering
    as the caller's do."""
    streams = []
    for fd, (encoding, errors, line_buffering, write_through, buffered) in enumerate(settings):
        mode, buffering = "rb" if fd == 0 else "wb", -1 if buffered else 0
        binary = open(fd, mode, buffering=buffering, closefd=False)  # noqa: SIM115
        streams.append(io.TextIOWrapper(
            binary, encoding=encoding, errors=errors, newline="\n",
            line_buffering=line_buffering, write_through=write_through,
        ))  # fmt: skip
    sys.stdin, sys.stdout, sys.stderr = streams


def _run(args: list[str]) -> int:
    """Run the command as the interpreter runs ``cdpkit``: its exit status, an uncaught
    exception printed by ``sys.excepthook`` (status 1), exit handlers run, output flushed."""
    from ..cli import main

    status = 0
    try:
        main(args)
    except SystemExit as exc:
        if exc.code is None:
            status = 0
        elif isinstance(exc.code, int):
            status = exc.code
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        status = 128 + signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return status


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
