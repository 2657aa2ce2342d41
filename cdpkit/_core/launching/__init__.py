"""Launching a local Chrome, by concern: its command line (``_flags``), which Chrome and which
profile (``_finding``), starting its process (``_spawning``), the running process and its
watchdog (``_process``), cdpkit's temporary profiles (``_profiles``).
:mod:`cdpkit.launcher` is the public module; it puts them together in ``start_chrome``.
"""

from __future__ import annotations

from ._finding import CHROME_NAMES, check_user_data_dir, find_chrome
from ._flags import (
    DEFAULT_ARGS,
    DEFAULT_VIEWPORT,
    HEADLESS_ARGS,
    build_args,
    check_args,
    check_viewport,
    has_flag,
    merge_list_switches,
    window_size_arg,
)
from ._process import WATCHDOG_AVAILABLE, ChromeProcess
from ._profiles import TEMP_PROFILE_PREFIX, mark_owner, sweep_in_background, sweep_stale_profiles
from ._spawning import SpawnedProcess, shorten_socket_tmpdir, spawn

__all__ = [
    "CHROME_NAMES",
    "DEFAULT_ARGS",
    "DEFAULT_VIEWPORT",
    "HEADLESS_ARGS",
    "TEMP_PROFILE_PREFIX",
    "WATCHDOG_AVAILABLE",
    "ChromeProcess",
    "SpawnedProcess",
    "build_args",
    "check_args",
    "check_user_data_dir",
    "check_viewport",
    "find_chrome",
    "has_flag",
    "mark_owner",
    "merge_list_switches",
    "shorten_socket_tmpdir",
    "spawn",
    "sweep_in_background",
    "sweep_stale_profiles",
    "window_size_arg",
]
