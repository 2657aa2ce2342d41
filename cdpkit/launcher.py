"""Find, start and stop a local Chrome or Chromium.

Chrome runs in its own process group with a fresh temporary profile (mode 0700) unless one
is given; the DevTools endpoint is read from ``<profile>/DevToolsActivePort`` (port 0, so
the OS picks a free port, bound to 127.0.0.1); its output is drained continuously so it
can never block on a full pipe, and the last lines are kept for error messages. Stopping
waits briefly for a graceful exit, then kills the whole process group and removes the
temporary profile. Any Chrome still running when the interpreter exits is killed too.

Chrome never outlives its owner, however the owner ends (SIGKILL included): each launch
starts a tiny watchdog (``/bin/sh``, in its own session) that blocks reading a pipe whose
write end only the owner holds. When cdpkit stops Chrome itself it dismisses the watchdog
with one line; if the owner dies first, the kernel closes the write end, the watchdog's
read sees end-of-file, and it kills Chrome's process group and removes the temporary
profile. A temporary profile also records its owner (pid and start time), so the next
:func:`start_chrome` removes profiles whose owner is gone (e.g. after a power loss).

The mechanism is split by concern in ``cdpkit._core.launching`` (flags, finding Chrome,
spawning, the process and its watchdog, the temporary profiles); this module names the
public parts and puts them together in :func:`start_chrome`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._core.launching import CHROME_NAMES as CHROME_NAMES
from ._core.launching import (
    DEFAULT_ARGS,
    DEFAULT_VIEWPORT,
    WATCHDOG_AVAILABLE,
    ChromeProcess,
    check_args,
    check_user_data_dir,
    check_viewport,
    find_chrome,
    has_flag,
    mark_owner,
    shorten_socket_tmpdir,
    spawn,
    sweep_in_background,
)
from ._core.launching import HEADLESS_ARGS as HEADLESS_ARGS
from ._core.launching import TEMP_PROFILE_PREFIX as TEMP_PROFILE_PREFIX
from ._core.launching import SpawnedProcess as SpawnedProcess
from ._core.launching import build_args as build_args
from ._core.launching import merge_list_switches as merge_list_switches
from ._core.launching import sweep_stale_profiles as sweep_stale_profiles
from ._core.launching import window_size_arg as window_size_arg
from .errors import LaunchError

__all__ = [
    "DEFAULT_ARGS",
    "DEFAULT_VIEWPORT",
    "ChromeProcess",
    "check_user_data_dir",
    "check_viewport",
    "find_chrome",
    "start_chrome",
]


# Whether launches start the owner-death watchdog (the benchmark compares both ways).
_watchdog_enabled = WATCHDOG_AVAILABLE


async def start_chrome(
    *,
    executable_path: str | os.PathLike[str] | None = None,
    headless: bool = True,
    args: Sequence[str] = (),
    user_data_dir: str | os.PathLike[str] | None = None,
    pipe: bool = False,
    env: Mapping[str, str] | None = None,
    viewport: tuple[int, int] | None = None,
    default_args: Sequence[str] = DEFAULT_ARGS,
) -> ChromeProcess:
    """Start Chrome; the caller waits for its endpoint (or uses the pipe) and stops it.

    Args:
        viewport: Every page's ``innerWidth x innerHeight`` in headless mode; default
            :data:`DEFAULT_VIEWPORT`, unless ``args`` sets ``--window-size``.
        default_args: The flags used instead of :data:`DEFAULT_ARGS`.

    Raises:
        LaunchError: No Chrome found, the profile is Chrome's default one, ``args``
            conflict with what cdpkit sets, or Chrome won't start.
        ValueError: ``viewport`` is not two pixel sizes.
    """
    check_args(args, pipe=pipe, viewport=viewport)
    if viewport is not None:
        viewport = check_viewport(viewport)
    elif not has_flag(args, "--window-size"):
        viewport = DEFAULT_VIEWPORT
    executable = find_chrome(executable_path)
    temp_root = tempfile.gettempdir()
    if user_data_dir is None:
        profile = Path(tempfile.mkdtemp(prefix=TEMP_PROFILE_PREFIX, dir=temp_root))  # mode 0700
        temporary = True
    else:
        profile = check_user_data_dir(user_data_dir)
        profile.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            (profile / "DevToolsActivePort").unlink()  # stale from an earlier run
        temporary = False

    command = [
        executable,
        *build_args(
            headless=headless,
            user_data_dir=profile,
            pipe=pipe,
            extra_args=args,
            viewport=viewport,
            default_args=default_args,
        ),
    ]
    child_env = dict(os.environ if env is None else env)
    shorten_socket_tmpdir(child_env)
    try:
        process, our_fds = await spawn(command, child_env, pipe=pipe)
    except OSError as exc:
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)
        raise LaunchError(f"Could not start {executable}: {exc}") from exc
    except BaseException:  # cancelled while spawning: spawn ended the process
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)
        raise
    # The bookkeeping waits until Chrome is on its way: it then costs nothing while Chrome
    # starts (hundreds of ms), where before the spawn it delayed the whole launch. Until
    # the owner record is written, a sweep elsewhere counts the profile as alive.
    if temporary:
        mark_owner(profile)
    sweep_in_background(temp_root)
    return ChromeProcess(
        process, profile, temporary_profile=temporary, pipe_fds=our_fds, watchdog=_watchdog_enabled
    )
