"""Registering the native messaging host with the person's browsers (``cdpkit extension
install``), so that the extension can start the bridge: the host manifest
``com.cdpkit.bridge.json`` lets only this extension's origin start the host, and names a
launcher script written beside it that runs ``python -m cdpkit._bridge._host`` with the
Python that installed it.

Where a browser looks for user-level hosts: on Linux ``~/.config/<browser>/NativeMessagingHosts``
(``$XDG_CONFIG_HOME`` when set), on macOS ``~/Library/Application Support/<browser>/
NativeMessagingHosts``, and for a browser started with ``--user-data-dir DIR``
``DIR/NativeMessagingHosts``. On Windows a browser reads the registry only
(``HKCU\\Software\\<vendor>\\NativeMessagingHosts\\com.cdpkit.bridge``, whose default value
is the manifest's path): the files go to cdpkit's data folder and a key per browser points
at them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from .._core.files import private_dir, write_private
from .._core.runtime import RuntimePathError, check_private
from ._state import HOST_NAME, extension_id

__all__ = [
    "BROWSERS",
    "InstallError",
    "default_browsers",
    "host_manifest_folders",
    "install",
    "uninstall",
]

BROWSERS = ("chrome", "chromium", "edge")
_LINUX = {"chrome": "google-chrome", "chromium": "chromium", "edge": "microsoft-edge"}
_MACOS = {"chrome": "Google/Chrome", "chromium": "Chromium", "edge": "Microsoft Edge"}
_WINDOWS = {
    "chrome": "Software\\Google\\Chrome",
    "chromium": "Software\\Chromium",
    "edge": "Software\\Microsoft\\Edge",
}
_MANIFEST = f"{HOST_NAME}.json"
_LAUNCHER = f"{HOST_NAME}.bat" if sys.platform == "win32" else f"{HOST_NAME}.sh"
_WHO = "`cdpkit extension install`"


class InstallError(Exception):
    """The host cannot be registered there (an unknown browser, a folder others control)."""


def _browser_folder(browser: str) -> Path:
    """The browser's default user data folder (where its NativeMessagingHosts lives)."""
    if browser not in BROWSERS:
        raise InstallError(f"Unknown browser {browser!r}: give one of {', '.join(BROWSERS)}")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / _MACOS[browser]
    if sys.platform == "win32":
        import platformdirs

        # Not read by the browser (the registry names the manifest): a folder of cdpkit's.
        return platformdirs.user_data_path("cdpkit", appauthor=False) / browser
    # Chrome reads $XDG_CONFIG_HOME as its config home, as other programs do.
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / _LINUX[browser]


def default_browsers() -> list[str]:
    """The browsers this user has (their user data folder exists), in :data:`BROWSERS`
    order: what ``install`` writes for when no browser is named."""
    return [browser for browser in BROWSERS if _browser_folder(browser).is_dir()]


def host_manifest_folders(browsers: Sequence[str], user_data_dir: Path | None) -> list[Path]:
    """The folders the host manifest goes in: ``user_data_dir / "NativeMessagingHosts"``
    when given (a browser started with ``--user-data-dir``), else each browser's user-level
    folder.

    Raises:
        InstallError: A browser is not one of :data:`BROWSERS`, or ``user_data_dir`` is
            given on Windows (browsers there read the registry only).
    """
    if user_data_dir is not None:
        if sys.platform == "win32":
            raise InstallError(
                "On Windows a browser finds native hosts in the registry only, whatever "
                "its --user-data-dir: install without --user-data-dir"
            )
        return [Path(user_data_dir).absolute() / "NativeMessagingHosts"]
    return [_browser_folder(browser) / "NativeMessagingHosts" for browser in browsers]


def _launcher_text() -> str:
    # -P: not the host's folder (the browser starts it there) on sys.path before cdpkit.
    if sys.platform == "win32":
        return f'@echo off\r\n"{sys.executable}" -P -m cdpkit._bridge._host %*\r\n'
    return f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -P -m cdpkit._bridge._host "$@"\n'


def _manifest_text(launcher: Path) -> str:
    manifest = {
        "name": HOST_NAME,
        "description": "cdpkit: starts the bridge that lets cdpkit drive this browser",
        "path": str(launcher),
        "type": "stdio",
        # Only this extension may start the host: no other extension, no web page.
        "allowed_origins": [f"chrome-extension://{extension_id()}/"],
    }
    return json.dumps(manifest, indent=2) + "\n"


def _private_folder(folder: Path) -> Path:
    """``folder`` made (or set) 0700, refused when another user owns or may replace it or
    a folder on the way to it (:func:`cdpkit._core.runtime.check_private`)."""
    if sys.platform == "win32":
        return private_dir(folder)  # cdpkit's own data folder; no POSIX modes to check
    # Checked before anything is made or chmod-ed: the folder and the browser's folder
    # holding it must be closed to others (a sticky bit is not enough: another user's
    # folder of that name could be there), the nearest existing one above may be sticky.
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    for path in dict.fromkeys((existing, *[p for p in (folder, folder.parent) if p.exists()])):
        mode = path.stat().st_mode
        if mode & 0o022 and (path in (folder, folder.parent) or not mode & stat.S_ISVTX):
            raise InstallError(
                f"{path} can be written by other users (mode {stat.S_IMODE(mode):04o}): they "
                f"could replace the host {_WHO} registers, so it writes nothing there "
                "(chmod g-w,o-w it, or give another --user-data-dir)"
            )
    try:
        private_dir(folder)
        check_private(folder, _WHO)
    except RuntimePathError as exc:
        raise InstallError(str(exc)) from None
    except OSError as exc:  # e.g. chmod of a folder another user owns
        raise InstallError(f"Cannot write the host manifest into {folder}: {exc}") from None
    return folder


def install(browsers: Sequence[str] = BROWSERS, user_data_dir: Path | None = None) -> list[Path]:
    """Register the native messaging host for ``browsers`` (or the browser using
    ``user_data_dir``): in each folder, the launcher (mode 0700) and the manifest (mode
    0600), each written atomically. Every folder is checked before anything is written.

    Returns:
        The files written, launcher then manifest for each folder.

    Raises:
        InstallError: As :func:`host_manifest_folders` says, or a folder (or one on the
            way to it) belongs to another user or others may write it.
    """
    folders = [_private_folder(folder) for folder in host_manifest_folders(browsers, user_data_dir)]
    written: list[Path] = []
    for folder in folders:
        launcher, manifest = folder / _LAUNCHER, folder / _MANIFEST
        write_private(launcher, _launcher_text())
        os.chmod(launcher, 0o700)
        write_private(manifest, _manifest_text(launcher))
        written += [launcher, manifest]
    if sys.platform == "win32" and user_data_dir is None:
        for browser, folder in zip(browsers, folders, strict=True):
            _set_registry(browser, folder / _MANIFEST)
    return written


def uninstall(browsers: Sequence[str] = BROWSERS, user_data_dir: Path | None = None) -> list[Path]:
    """Remove what :func:`install` wrote for ``browsers`` (or ``user_data_dir``).

    Returns:
        The files removed (those that were there).
    """
    removed: list[Path] = []
    for folder in host_manifest_folders(browsers, user_data_dir):
        for path in (folder / _MANIFEST, folder / _LAUNCHER):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
    if sys.platform == "win32" and user_data_dir is None:
        for browser in browsers:
            _delete_registry(browser)
    return removed


def _set_registry(browser: str, manifest: Path) -> None:
    if sys.platform == "win32":
        import winreg

        key = f"{_WINDOWS[browser]}\\NativeMessagingHosts\\{HOST_NAME}"
        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, key) as handle:
            winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, str(manifest))


def _delete_registry(browser: str) -> None:
    if sys.platform == "win32":
        import winreg

        key = f"{_WINDOWS[browser]}\\NativeMessagingHosts\\{HOST_NAME}"
        with contextlib.suppress(FileNotFoundError):
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)
