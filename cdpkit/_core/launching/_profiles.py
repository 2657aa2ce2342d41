"""cdpkit's temporary profiles: each records its owner (pid and start time), and a launch
removes, in a thread of its own, those whose owner is gone (e.g. after a power loss)."""

from __future__ import annotations

import _thread
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

TEMP_PROFILE_PREFIX = "cdpkit-profile-"
_OWNER_FILE = "cdpkit-owner"  # in a temporary profile: "<owner pid> <owner start time>"


def process_start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot), ``"?"`` where there is
    no ``/proc``, ``None`` if no such process. A pid reused by another process has another
    start time, so it is not mistaken for the owner."""
    if not _HAS_PROC:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except OSError:
            pass  # it exists, owned by someone else
        return "?"
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()[19]


_HAS_PROC = os.path.exists("/proc/self/stat")


def mark_owner(profile: Path) -> None:
    (profile / _OWNER_FILE).write_text(f"{os.getpid()} {process_start_time(os.getpid())}\n")


def _owner_alive(profile: Path) -> bool:
    """Whether the process that created this temporary profile still runs. A profile with
    no readable owner record (another tool's, or one being created) counts as alive."""
    try:
        pid_text, started = (profile / _OWNER_FILE).read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return True
    current = process_start_time(pid)
    return current is not None and (current == started or "?" in (current, started))


def sweep_stale_profiles(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove cdpkit's temporary profiles whose owner process is gone.

    Args:
        directory: Where temporary profiles are created; default the temp dir.

    Returns:
        The profiles removed.
    """
    root = Path(directory if directory is not None else tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError):
        for profile in root.glob(TEMP_PROFILE_PREFIX + "*"):
            if profile.is_dir() and not _owner_alive(profile):
                remove_singleton_folder(profile)
                shutil.rmtree(profile, ignore_errors=True)
                removed.append(profile)
    return removed


def remove_singleton_folder(profile: Path) -> None:
    """Remove the folder Chrome made in the system's temporary folder for its singleton
    socket (``/tmp/org.chromium.Chromium.XXXXXX``), which the profile's ``SingletonSocket``
    links to: Chrome removes it when it exits by itself, a killed Chrome leaves it. Only
    its two files, then the folder if that empties it: never anything else. For a
    temporary profile only, which no other Chrome can have used."""
    with contextlib.suppress(OSError):
        socket = Path(os.readlink(profile / "SingletonSocket"))
        if socket.name != "SingletonSocket" or not socket.is_absolute():
            return
        for name in ("SingletonSocket", "SingletonCookie"):
            with contextlib.suppress(FileNotFoundError):
                (socket.parent / name).unlink()
        socket.parent.rmdir()


def sweep_in_background(directory: str) -> None:
    """Run :func:`sweep_stale_profiles` in a thread of its own, without waiting for it.

    Not the event loop's executor: creating that pool (importing ``concurrent.futures.
    thread`` and ``queue``) cost a launch 3 ms, and ``asyncio.run`` would wait for the
    sweep of a large temp dir at exit. Not ``threading.Thread`` either: its ``start()``
    waits until the new thread runs, which on a loaded machine held the launch up to
    15 ms. A ``_thread`` thread is never joined at exit, like a daemon thread.
    """
    _thread.start_new_thread(_sweep_quietly, (directory,))


def _sweep_quietly(directory: str) -> None:
    with contextlib.suppress(Exception):  # nothing to report to: the next launch sweeps again
        sweep_stale_profiles(directory)
