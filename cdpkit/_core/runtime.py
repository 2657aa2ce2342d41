"""The user's private runtime folder (``$XDG_RUNTIME_DIR/cdpkit``), which the daemon's
socket and the extension bridge's address live in: checked once here, for both. Stdlib
only: the commands' fast path imports it at start."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path
from typing import Protocol


class RuntimePathError(Exception):
    """The runtime folder cannot be trusted (someone else's, or open to others)."""


class SocketLike(Protocol):
    def getsockopt(self, level: int, option: int, size: int, /) -> bytes: ...


def peer_uid(connection: SocketLike) -> int | None:
    """The user id of the process at the other end of a connected unix socket (the one
    that listens, or the one that connected), ``None`` where the system does not say
    (no ``SO_PEERCRED``)."""
    import socket
    import struct

    if not hasattr(socket, "SO_PEERCRED"):
        return None
    credentials = connection.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")
    )
    uid: int = struct.unpack("3i", credentials)[1]
    return uid


def runtime_folder() -> Path:
    """``$XDG_RUNTIME_DIR/cdpkit``, else platformdirs' ``user_runtime_dir("cdpkit")``."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return Path(base) / "cdpkit"
    import platformdirs

    with warnings.catch_warnings():  # its note that it falls back to /tmp/runtime-UID
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("cdpkit"))


def private_runtime_folder(*, create: bool = False, user: str = "cdpkit") -> Path:
    """The runtime folder, checked (and made, mode 0700, with ``create``); ``user`` names
    who will not use a folder that fails the check ("the daemon", "the bridge").

    Raises:
        RuntimePathError: The folder belongs to another user, is not a folder, others
            may enter or write it (its mode allows group or others anything), or it is
            inside a folder another user owns or may write (see :func:`check_private`).
        FileNotFoundError: It does not exist (without ``create``).
    """
    folder = runtime_folder()
    if create:
        existing = folder.absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        _check_ancestors(folder, existing, user)  # before making anything in it
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    check_private(folder, user)
    return folder


def check_private(folder: Path, user: str = "cdpkit") -> None:
    """Refuse a folder another user owns or can reach, or could replace: each folder on
    the way to it must be root's or this user's, and none writable by others unless
    sticky (as ``/tmp``: there only an entry's owner may rename it), as platformdirs
    checks a runtime folder. Else another user could rename a folder on the way and put
    their own, with their socket in it, between this check and the connection.

    Raises:
        RuntimePathError: As :func:`private_runtime_folder` says.
        FileNotFoundError: ``folder`` does not exist.
    """
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimePathError(f"{folder} is not a folder: {user} will not use it")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise RuntimePathError(
            f"{folder} belongs to another user (uid {info.st_uid}): {user} will not use it"
        )
    if info.st_mode & 0o077:
        raise RuntimePathError(
            f"{folder} has mode {stat.S_IMODE(info.st_mode):04o}, open to other users: "
            f"{user} needs it private (chmod 700)"
        )
    _check_ancestors(folder, folder.absolute().parent, user)


def _check_ancestors(folder: Path, path: Path, user: str) -> None:
    """Walk ``path`` from the root, following symbolic links as the system would, and
    refuse an entry another user owns, or a folder others may write without its sticky
    bit.

    Raises:
        RuntimePathError: Naming the entry and why.
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
            raise RuntimePathError(
                f"{folder} is inside {entry}, which belongs to another user (uid {info.st_uid}) "
                f"who could replace what is in it: {user} will not use it (set "
                "XDG_RUNTIME_DIR to a folder of your own)"
            )
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > 40:
                raise RuntimePathError(f"{folder} is behind too many symbolic links ({entry})")
            target = Path(os.readlink(entry))
            if target.is_absolute():
                directory = Path(target.anchor)
            pending.extend(reversed(target.parts[1 if target.is_absolute() else 0 :]))
        elif stat.S_ISDIR(info.st_mode):
            if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
                raise RuntimePathError(
                    f"{folder} is inside {entry}, which other users can write (mode "
                    f"{stat.S_IMODE(info.st_mode):04o}, no sticky bit): they could replace the "
                    f"folder, so {user} will not use it (set XDG_RUNTIME_DIR to a private "
                    "folder, or chmod o-w,g-w that one)"
                )
            directory = entry
        else:
            raise RuntimePathError(f"{folder} is inside {entry}, which is not a folder")
        if not pending:
            return
        entry = directory / pending.pop()
