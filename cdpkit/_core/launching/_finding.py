"""Which Chrome to launch (``executable_path``, ``$CDPKIT_CHROME``, ``PATH``, the standard
install locations), and the profile folders it must never be launched on (Chrome's own)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

from ...errors import LaunchError

CHROME_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "msedge",
)


def _install_locations() -> list[Path]:
    home = Path.home()
    if sys.platform == "darwin":
        apps = [
            "Google Chrome.app/Contents/MacOS/Google Chrome",
            "Chromium.app/Contents/MacOS/Chromium",
            "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
            "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        ]
        return [
            root / app for root in (Path("/Applications"), home / "Applications") for app in apps
        ]
    if sys.platform == "win32":
        roots = [os.environ.get(v) for v in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
        exes = [
            r"Google\Chrome\Application\chrome.exe",
            r"Chromium\Application\chrome.exe",
            r"Microsoft\Edge\Application\msedge.exe",
        ]
        return [Path(root) / exe for root in roots if root for exe in exes]
    return [
        Path(p)
        for p in (
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/usr/lib/chromium/chromium",
            "/usr/bin/google-chrome",
            "/usr/bin/google-chrome-stable",
            "/opt/google/chrome/chrome",
            "/snap/bin/chromium",
            "/usr/bin/microsoft-edge",
        )
    ]


def _default_user_data_dirs() -> list[Path]:
    """Chrome's own default profile locations, which cdpkit refuses to launch on."""
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library/Application Support"
        names = ["Google/Chrome", "Google/Chrome Canary", "Chromium", "Microsoft Edge"]
        return [base / n for n in names]
    if sys.platform == "win32":
        local = Path(os.environ.get("LOCALAPPDATA", home / "AppData/Local"))
        names = ["Google/Chrome/User Data", "Chromium/User Data", "Microsoft/Edge/User Data"]
        return [local / n for n in names]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    names = ["google-chrome", "google-chrome-beta", "google-chrome-unstable", "chromium"]
    return [config / n for n in [*names, "microsoft-edge"]]


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_chrome(executable_path: str | os.PathLike[str] | None = None) -> str:
    """The Chrome to launch: ``executable_path``, else ``$CDPKIT_CHROME``, else the usual
    names on ``PATH``, else the standard install locations.

    Raises:
        LaunchError: Nothing usable found; the message lists where it looked.
    """
    for source, value in (
        ("executable_path", executable_path),
        ("CDPKIT_CHROME", os.environ.get("CDPKIT_CHROME")),
    ):
        if value:
            path = Path(value).expanduser()
            if not _usable(path):
                raise LaunchError(f"Chrome not found at {path} (from {source}): no such executable")
            return str(path)
    for name in CHROME_NAMES:
        found = shutil.which(name)
        if found:
            return found
    locations = _install_locations()
    for path in locations:
        if _usable(path):
            return str(path)
    raise LaunchError(
        "No Chrome or Chromium found. Looked at executable_path=, $CDPKIT_CHROME, "
        f"{', '.join(CHROME_NAMES)} on PATH, and {', '.join(map(str, locations))}. "
        "Install one (Debian/Ubuntu: `apt-get install chromium`; or Google Chrome), "
        "or pass executable_path= / set CDPKIT_CHROME."
    )


def check_user_data_dir(path: str | os.PathLike[str]) -> Path:
    """The resolved profile path; refuses Chrome's own default profile directories.

    Raises:
        LaunchError: ``path`` is (inside) one of Chrome's default user data dirs.
    """
    resolved = Path(path).expanduser().resolve()
    for default in _default_user_data_dirs():
        with contextlib.suppress(OSError):
            default = default.resolve()
        if resolved == default or default in resolved.parents:
            raise LaunchError(
                f"Refusing to launch on Chrome's default profile directory {resolved}: Chrome "
                "ignores remote debugging there and would hang. Use profile='NAME', another "
                "user_data_dir=, or cdpkit.connect() to a Chrome you started yourself."
            )
    return resolved
