"""Where the daemon listens: a folder only this user can enter, and the files in it.
Stdlib only, and no dataclasses (which load ``inspect``): the fast path of the commands
(:mod:`._fast`) imports it at start."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path
from typing import NamedTuple, Protocol


class DaemonPathError(Exception):
    """The daemon's folder cannot be trusted (someone else's, or open to others)."""


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


class _Socket(Protocol):
    def getsockopt(self, level: int, option: int, size: int, /) -> bytes: ...


def peer_uid(connection: _Socket) -> int | None:
    """The user id of the process at the other end of a connected unix socket (the one
    that listens, or the one that connected), ``None`` where the system does not say
    (no ``SO_PEERCRED``)."""
    import socket
    import struct

    if not hasattr(socket, "SO_PEERCRED"):
        return None
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    uid: int = struct.unpack("3i", credentials)[1]
    return uid


def check_listener(connection: _Socket, path: Path) -> None:
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


def runtime_folder() -> Path:
    """``$XDG_RUNTIME_DIR/cdpkit``, else platformdirs' ``user_runtime_dir("cdpkit")``."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return Path(base) / "cdpkit"
    import platformdirs

    with warnings.catch_warnings():  # its note that it falls back to /tmp/runtime-UID
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("cdpkit"))


def daemon_paths(*, create: bool = False) -> DaemonPaths:
    """The daemon's paths, its folder checked (and made, mode 0700, with ``create``).

    Raises:
        DaemonPathError: The folder belongs to another user, is not a folder, others
            may enter or write it (its mode allows group or others anything), or it is
            inside a folder another user owns or may write (see :func:`check_private`).
        FileNotFoundError: It does not exist (without ``create``).
    """
    folder = runtime_folder()
    if create:
        existing = folder.absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        _check_ancestors(folder, existing)  # before making anything in it
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    check_private(folder)
    return DaemonPaths(folder)


def check_private(folder: Path) -> None:
    """Refuse a folder another user owns or can reach, or could replace: each folder on
    the way to it must be root's or this user's, and none writable by others unless
    sticky (as ``/tmp``: there only an entry's owner may rename it), as platformdirs
    checks a runtime folder. Else another user could rename a folder on the way and put
    their own, with their socket in it, between this check and the connection.

    Raises:
        DaemonPathError: As :func:`daemon_paths` says.
        FileNotFoundError: ``folder`` does not exist.
    """
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise DaemonPathError(f"{folder} is not a folder: the daemon will not use it")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise DaemonPathError(
            f"{folder} belongs to another user (uid {info.st_uid}): the daemon will not use it"
        )
    if info.st_mode & 0o077:
        raise DaemonPathError(
            f"{folder} has mode {stat.S_IMODE(info.st_mode):04o}, open to other users: the "
            "daemon needs it private (chmod 700)"
        )
    _check_ancestors(folder, folder.absolute().parent)


def _check_ancestors(folder: Path, path: Path) -> None:
    """Walk ``path`` from the root, following symbolic links as the system would, and
    refuse an entry another user owns, or a folder others may write without its sticky
    bit.

    Raises:
        DaemonPathError: Naming the entry and why.
    """
    if not hasattr(os, "getuid"):
        return  # Windows: no runtime folder of this kind
    trusted = {0, os.getuid()}
    directory = Path(path.anchor)
    pending = list(reversed(path.parts[1:]))
    links = 0
    entry = directory
    while True:
        info = os.lstat(entry)
        if info.st_uid not in trusted:
            raise DaemonPathError(
                f"{folder} is inside {entry}, which belongs to another user (uid {info.st_uid}) "
                "who could replace what is in it: the daemon will not use it (set "
                "XDG_RUNTIME_DIR to a folder of your own)"
            )
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > 40:
                raise DaemonPathError(f"{folder} is behind too many symbolic links ({entry})")
            target = Path(os.readlink(entry))
            if target.is_absolute():
                directory = Path(target.anchor)
            pending.extend(reversed(target.parts[1 if target.is_absolute() else 0 :]))
        elif stat.S_ISDIR(info.st_mode):
            if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
                raise DaemonPathError(
                    f"{folder} is inside {entry}, which other users can write (mode "
                    f"{stat.S_IMODE(info.st_mode):04o}, no sticky bit): they could replace the "
                    "daemon's folder, so it will not be used (set XDG_RUNTIME_DIR to a private "
                    "folder, or chmod o-w,g-w that one)"
                )
            directory = entry
        else:
            raise DaemonPathError(f"{folder} is inside {entry}, which is not a folder")
        if not pending:
            return
        entry = directory / pending.pop()
