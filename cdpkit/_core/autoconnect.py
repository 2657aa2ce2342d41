"""``cdpkit.connect("auto")``: find the person's own running Chrome.

Chrome writes ``DevToolsActivePort`` (the port on its first line, the browser's WebSocket
path on its second) into its user data directory while remote debugging is on: when it
was started with ``--remote-debugging-port``, and since Chrome 144 when the user turns on
remote debugging at ``chrome://inspect/#remote-debugging``. The default profile
directories of Chrome stable, beta, dev, canary and Chromium are looked at on Linux,
macOS and Windows; the most recently written file whose port answers wins.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConnectError

__all__ = ["AUTO", "find_running_chrome", "profile_dirs"]

AUTO = "auto"

_ENABLE = (
    "Turn on remote debugging in your Chrome: open chrome://inspect/#remote-debugging and "
    "allow it (Chrome 144 or newer), or start Chrome with --remote-debugging-port=9222 and "
    "pass that endpoint (connect('http://127.0.0.1:9222'))"
)


@dataclass(frozen=True, slots=True)
class _Found:
    path: Path
    port: int
    ws_path: str
    written: float


def profile_dirs(
    platform: str = sys.platform, environ: Mapping[str, str] = os.environ, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The default user data directories of each Chrome channel on this platform, as
    ``(channel, directory)``: stable, beta, dev, canary, then Chromium."""
    home = home or Path(environ.get("HOME") or Path.home())
    if platform.startswith("win"):
        local = Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
        return [
            ("stable", local / "Google" / "Chrome" / "User Data"),
            ("beta", local / "Google" / "Chrome Beta" / "User Data"),
            ("dev", local / "Google" / "Chrome Dev" / "User Data"),
            ("canary", local / "Google" / "Chrome SxS" / "User Data"),
            ("chromium", local / "Chromium" / "User Data"),
        ]
    if platform == "darwin":
        support = home / "Library" / "Application Support"
        return [
            ("stable", support / "Google" / "Chrome"),
            ("beta", support / "Google" / "Chrome Beta"),
            ("dev", support / "Google" / "Chrome Dev"),
            ("canary", support / "Google" / "Chrome Canary"),
            ("chromium", support / "Chromium"),
        ]
    config = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [
        ("stable", config / "google-chrome"),
        ("beta", config / "google-chrome-beta"),
        ("dev", config / "google-chrome-unstable"),
        ("canary", config / "google-chrome-canary"),
        ("chromium", config / "chromium"),
    ]


def find_running_chrome(
    platform: str = sys.platform, environ: Mapping[str, str] = os.environ, home: Path | None = None
) -> str:
    """The ``ws://127.0.0.1:PORT/devtools/browser/ID`` of the person's running Chrome.

    Raises:
        ConnectError: No channel's profile has a ``DevToolsActivePort`` (the message says
            where it looked and what to turn on), or the ones found are stale (that Chrome
            is not running, or not with remote debugging now).
    """
    candidates: list[_Found] = []
    looked: list[str] = []
    for channel, directory in profile_dirs(platform, environ, home):
        path = directory / "DevToolsActivePort"
        looked.append(f"{channel}: {path}")
        found = _read(path)
        if found is not None:
            candidates.append(found)
    if not candidates:
        raise ConnectError(
            "connect('auto') found no running Chrome with remote debugging on: no "
            "DevToolsActivePort in " + "; ".join(looked) + f". {_ENABLE}"
        )
    for found in sorted(candidates, key=lambda f: f.written, reverse=True):
        if _listening(found.port):
            return f"ws://127.0.0.1:{found.port}{found.ws_path}"
    stale = ", ".join(f"{f.path} (port {f.port})" for f in candidates)
    raise ConnectError(
        f"connect('auto') found {stale}, but nothing listens there: that Chrome is not "
        f"running, or remote debugging is off now. {_ENABLE}"
    )


def _read(path: Path) -> _Found | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        written = path.stat().st_mtime
    except OSError:
        return None
    if len(lines) < 2 or not lines[0].strip().isdigit() or not lines[1].startswith("/devtools/"):
        return None
    port = int(lines[0].strip())
    return _Found(path, port, lines[1].strip(), written) if 0 < port < 65536 else None


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
