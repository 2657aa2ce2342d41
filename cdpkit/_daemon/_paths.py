"""Where the daemon listens: a folder only this user can enter, and the files in it.
Stdlib only, and no dataclasses (which load ``inspect``): the fast path of the commands
(:mod:`._fast`) imports it at start."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from .._core.runtime import (
    RuntimePathError,
    SocketLike,
    check_private,
    peer_uid,
    private_runtime_folder,
    runtime_folder,
)

# The daemon's folder is the user's private runtime folder, checked in one place.
DaemonPathError = RuntimePathError


class DaemonPaths(NamedTuple):
    """The daemon's folder and the files in it.

    Attributes:
        folder: ``$XDG_RUNTIME_DIR/cdpkit``, else the platform's user runtime folder.
        socket: The unix socket commands talk to the daemon over (mode 0600).
        pid_file: The daemon's process id, while it runs (and locked by it meanwhile).
        log_file: What a daemon started in the background printed.
        worker_socket: Where the daemon's warm command runner listens (see :mod:`._worker`).
        chrome_file: The Chrome executable it launches (a command that asks for another
            one, with ``--chrome`` or ``$CDPKIT_CHROME``, runs on a browser of its own).
    """

    folder: Path

    @property
    def socket(self) -> Path:
        return self.folder / "daemon.sock"

    @property
    def worker_socket(self) -> Path:
        return self.folder / "worker.sock"

    @property
    def pid_file(self) -> Path:
        return self.folder / "daemon.pid"

    @property
    def log_file(self) -> Path:
        return self.folder / "daemon.log"

    @property
    def chrome_file(self) -> Path:
        """The Chrome executable the daemon launches (its resolved path), while it runs."""
        return self.folder / "daemon.chrome"

    def daemon_chrome(self) -> str | None:
        """The Chrome the running daemon launches, ``None`` when it did not say."""
        try:
            return self.chrome_file.read_text(encoding="utf-8").strip() or None
        except OSError:
            return None

    def daemon_pid(self) -> int | None:
        """The running daemon's pid: the pid file's while a process holds its lock (the
        daemon takes it before writing the file and holds it as long as it runs), else
        ``None``: no file, or one a daemon that died left, whose pid may be another
        process's by now (never to be signalled)."""
        import fcntl

        try:
            descriptor = os.open(self.pid_file, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                data = os.read(descriptor, 64)  # held: the daemon runs
            else:
                return None  # nobody holds it (released as the descriptor closes)
        finally:
            os.close(descriptor)
        try:
            return int(data.strip())
        except ValueError:
            return None

    def hold_pid_file(self) -> int:
        """Take the pid file's lock and write this process's pid in it, for the daemon:
        the descriptor to keep open while it runs (closing it lets go of the lock).

        Raises:
            DaemonPathError: Another daemon holds it.
        """
        import fcntl
        import time

        descriptor = os.open(self.pid_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        for _ in range(40):  # a `status` may hold it shared for an instant
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.05)
        else:
            os.close(descriptor)
            raise DaemonPathError(f"another cdpkit daemon runs (it holds {self.pid_file})")
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        return descriptor


def check_listener(connection: SocketLike, path: Path) -> None:
    """Refuse a daemon socket whose listening process is not this user's: called once
    connected, before anything is sent (a command's request, environment, stdin, stdout
    and stderr go to the daemon). On systems without ``SO_PEERCRED``, the private folder
    is the only check.

    Raises:
        DaemonPathError: Another user's process listens on ``path``.
    """
    uid = peer_uid(connection)
    if uid is not None and hasattr(os, "getuid") and uid != os.getuid():
        raise DaemonPathError(
            f"{path} is listened on by a process of another user (uid {uid}), not by your "
            "cdpkit daemon: nothing was sent to it"
        )


def daemon_paths(*, create: bool = False) -> DaemonPaths:
    """The daemon's paths, its folder checked (and made, mode 0700, with ``create``):
    see :func:`cdpkit._core.runtime.private_runtime_folder`.

    Raises:
        DaemonPathError: The folder cannot be trusted.
        FileNotFoundError: It does not exist (without ``create``).
    """
    return DaemonPaths(private_runtime_folder(create=create, user="the daemon"))


__all__ = [
    "DaemonPathError",
    "DaemonPaths",
    "check_listener",
    "check_private",
    "daemon_paths",
    "peer_uid",
    "runtime_folder",
]
