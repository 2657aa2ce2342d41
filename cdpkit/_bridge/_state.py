"""Where the extension bridge is and how to reach it: the extension shipped in the package
(its folder and ID), the native messaging host's name, and ``bridge.json`` (the running
bridge's port, token and pid, mode 0600 in the user's private runtime folder), read by
``connect("extension")`` and by the native host, which starts the bridge when none runs."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

from .._core.files import write_private
from .._core.runtime import private_runtime_folder

HOST_NAME = "com.cdpkit.bridge"
EXTENSION_DIR = Path(__file__).parent / "extension"
_INFO_FILE = "bridge.json"
_LOCK_FILE = "bridge.lock"
_LOG_FILE = "bridge.log"
_USER = "the extension bridge"


class BridgeError(Exception):
    """The bridge is not running, cannot be started, or its file cannot be trusted."""


class BridgeInfo(NamedTuple):
    """A running bridge: where it listens (``127.0.0.1:port``), the token a client sends,
    and its process id."""

    port: int
    token: str
    pid: int

    @property
    def client_url(self) -> str:
        """The WebSocket a cdpkit client connects to (the token goes in a header)."""
        return f"ws://127.0.0.1:{self.port}/client"


def extension_id() -> str:
    """The ID Chrome gives the extension: from its manifest's ``key``, the same on every
    machine (the first 128 bits of the key's SHA-256, written with the letters a-p)."""
    manifest = json.loads((EXTENSION_DIR / "manifest.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256(base64.b64decode(manifest["key"])).hexdigest()[:32]
    return "".join(chr(ord("a") + int(digit, 16)) for digit in digest)


def extension_origin() -> str:
    """``chrome-extension://<ID>``: the Origin the extension's WebSocket sends."""
    return f"chrome-extension://{extension_id()}"


def bridge_folder(*, create: bool = False) -> Path:
    """The private runtime folder ``bridge.json`` lives in (checked as the daemon's is).

    Raises:
        BridgeError: The folder cannot be trusted, or (without ``create``) does not exist.
    """
    from .._core.runtime import RuntimePathError

    try:
        return private_runtime_folder(create=create, user=_USER)
    except (RuntimePathError, FileNotFoundError) as exc:
        raise BridgeError(str(exc)) from None


def process_alive(pid: int) -> bool:
    """Whether ``pid`` is a process of this user that runs: one that exited but was not
    yet reaped by its parent (a zombie, on Linux) has quit, and a pid now another user's
    is not the process it was (the bridge, the browser)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    with contextlib.suppress(OSError, IndexError):
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        return state not in ("Z", "X")
    return True


def read_bridge_info() -> BridgeInfo | None:
    """The running bridge as its file says, ``None`` when there is no file or its process
    is gone."""
    try:
        folder = bridge_folder()
        data = json.loads((folder / _INFO_FILE).read_text(encoding="utf-8"))
        info = BridgeInfo(int(data["port"]), str(data["token"]), int(data["pid"]))
    except (BridgeError, OSError, ValueError, KeyError, TypeError):
        return None
    return info if process_alive(info.pid) else None


def write_bridge_info(info: BridgeInfo) -> Path:
    """Publish the bridge's address (mode 0600, replaced atomically); its path."""
    path = bridge_folder(create=True) / _INFO_FILE
    write_private(path, json.dumps(info._asdict()))
    return path


def remove_bridge_info(pid: int) -> None:
    """Remove ``bridge.json`` if it still names process ``pid`` (a newer bridge's stays)."""
    with contextlib.suppress(BridgeError, OSError, ValueError):
        path = bridge_folder() / _INFO_FILE
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()


def answers(info: BridgeInfo, timeout: float = 1.0) -> bool:
    """Whether something accepts connections on the bridge's port."""
    try:
        with socket.create_connection(("127.0.0.1", info.port), timeout=timeout):
            return True
    except OSError:
        return False


def start_bridge(timeout: float = 10.0) -> BridgeInfo:
    """The running bridge, or one started now in the background (detached from the
    caller: it outlives the native host that starts it). Two callers at once start one.

    Raises:
        BridgeError: It did not come up within ``timeout`` (its log is named).
    """
    import fcntl

    info = read_bridge_info()
    if info is not None and answers(info):
        return info
    folder = bridge_folder(create=True)
    descriptor = os.open(folder / _LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # another starter finishes first
        info = read_bridge_info()
        if info is not None and answers(info):
            return info
        log = os.open(
            folder / _LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600
        )
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "cdpkit._bridge"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,  # not in the browser's process group
                close_fds=True,
            )
        finally:
            os.close(log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = read_bridge_info()
            if info is not None and info.pid == process.pid:
                return info
            if process.poll() is not None:
                break
            time.sleep(0.02)
        raise BridgeError(
            f"The extension bridge did not start within {timeout:g} s (see {folder / _LOG_FILE})"
        )
    finally:
        os.close(descriptor)
