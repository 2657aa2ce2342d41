"""Where the daemon listens: a folder only this user can enter, and the files in it.
Stdlib only, and no dataclasses (which load ``inspect``): the fast path of the commands
(:mod:`._fast`) imports it at start."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path
from typing import NamedTuple


class DaemonPathError(Exception):
    """The daemon's folder cannot be trusted (someone else's, or open to others)."""


class DaemonPaths(NamedTuple):
    """The daemon's folder and the files in it.

    Attributes:
        folder: ``$XDG_RUNTIME_DIR/cdpkit``, else the platform's user runtime folder.
        socket: The unix socket commands talk to the daemon over (mode 0600).
        pid_file: The daemon's process id, while it runs.
        log_file: What a daemon started in the background printed.
        worker_socket: Where the daemon's warm command runner listens (see :mod:`._worker`).
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

    def read_pid(self) -> int | None:
        """The pid the pid file names, ``None`` without one."""
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None


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
        DaemonPathError: The folder belongs to another user, is not a folder, or others
            may enter or write it (its mode allows group or others anything).
        FileNotFoundError: It does not exist (without ``create``).
    """
    folder = runtime_folder()
    if create:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    check_private(folder)
    return DaemonPaths(folder)


def check_private(folder: Path) -> None:
    """Refuse a folder another user owns or can reach.

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
