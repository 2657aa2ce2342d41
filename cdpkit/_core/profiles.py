"""Persistent profiles: where they live, and the lock that serializes their use.

A persistent profile (``launch(profile="NAME")`` or ``user_data_dir=``) is locked by
``<profile dir>/browser.lock`` for as long as the browser runs. A second process waits up
to ``lock_timeout`` seconds for it, then raises :class:`~cdpkit.ProfileLockedError`. The
lock is an OS advisory lock on the file, so it is released even if the holder is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from pathlib import Path
from typing import IO

import platformdirs

from ..errors import ProfileLockedError

__all__ = ["ProfileLock", "profile_dir", "profiles_root"]

LOCK_NAME = "browser.lock"


def profiles_root() -> Path:
    """``$CDPKIT_PROFILES``, else ``profiles`` in the platform's per-user data dir for
    cdpkit: ``$XDG_DATA_HOME/cdpkit`` (``~/.local/share/cdpkit`` by default) on Linux,
    ``~/Library/Application Support/cdpkit`` on macOS, ``%LOCALAPPDATA%\\cdpkit`` on Windows."""
    configured = os.environ.get("CDPKIT_PROFILES")
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_data_path("cdpkit", appauthor=False) / "profiles"


def profile_dir(name: str) -> Path:
    """The directory of the named profile (not created here)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name) or ".." in name:
        raise ValueError(
            f"Invalid profile name {name!r}: use letters, digits, '.', '_' and '-' (max 100)"
        )
    return profiles_root() / name


class ProfileLock:
    """An exclusive lock on a profile directory, held across processes."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_NAME
        self._file: IO[str] | None = None

    async def acquire(self, timeout: float) -> None:
        """Take the lock, waiting up to ``timeout`` seconds.

        Raises:
            ProfileLockedError: Another process still holds it after ``timeout``.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = open(self.path, "a+")  # noqa: SIM115, ASYNC230 (a tiny file held while the browser runs)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not _try_lock(handle):
            if loop.time() >= deadline:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                handle.close()
                raise ProfileLockedError(
                    f"Profile {self.path.parent} is in use by {holder}; waited {timeout:g} s "
                    "(launch(lock_timeout=...) sets how long)"
                )
            await asyncio.sleep(0.1)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
                _unlock(self._file)
            self._file.close()
            self._file = None


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
