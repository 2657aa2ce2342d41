"""``cdpkit extension path|id|install|uninstall``, the native messaging host and the popup,
as a person meets them: the commands in a subprocess, the host started as the browser
starts it (its launcher, the caller's origin as argv[1], framed JSON on stdin), and a real
headless Chromium that loads the shipped extension and starts the installed host from
``<user data dir>/NativeMessagingHosts``. Every test has its own ``XDG_RUNTIME_DIR``, so
the bridges it starts are its own (ended by pid at its end)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cdpkit

HOST = "com.cdpkit.bridge"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A private runtime folder and home: nothing a test starts touches the real ones."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config")}  # fmt: skip


@pytest.fixture
def bridges(env: dict[str, str]) -> Iterator[None]:
    """End the bridge a test started (detached from everything, it outlives the test)."""
    yield
    info = Path(env["XDG_RUNTIME_DIR"]) / "cdpkit" / "bridge.json"
    with contextlib.suppress(OSError, ValueError, KeyError):
        os.kill(int(json.loads(info.read_text())["pid"]), signal.SIGTERM)


def extension(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", "extension", *args],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip


def the_id(env: dict[str, str]) -> str:
    done = extension("id", env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return struct.pack("=I", len(body)) + body


def read_frame(stream: Any) -> dict[str, Any]:
    header = stream.read(4)
    assert len(header) == 4, f"the host answered {header!r}"
    (length,) = struct.unpack("=I", header)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


# -- path, id --------------------------------------------------------------------------------


async def test_path_and_id_name_the_extension_chromium_loads(
    tmp_path: Path, env: dict[str, str]
) -> None:
    done = extension("path", env=env)
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert json.loads((folder / "manifest.json").read_text())["manifest_version"] == 3
    extension_id = the_id(env)
    assert re.fullmatch("[a-p]{32}", extension_id)

    async with cdpkit.launch(
        args=[f"--load-extension={folder}"], ignore_default_args=["--disable-extensions"],
        user_data_dir=tmp_path / "profile", env=env,
    ) as browser:  # fmt: skip
        workers: set[str] = set()
        deadline = time.monotonic() + 15
        while not workers and time.monotonic() < deadline:
            infos = (await browser.call("Target.getTargets"))["targetInfos"]
            workers = {i["url"] for i in infos if i["url"].startswith("chrome-extension://")}
            await asyncio.sleep(0.1)
    assert workers == {f"chrome-extension://{extension_id}/background.js"}


# -- install, uninstall ----------------------------------------------------------------------


def test_install_writes_a_host_only_the_extension_may_start(
    tmp_path: Path, env: dict[str, str]
) -> None:
    user_data = tmp_path / "browser"
    done = extension("install", "--user-data-dir", str(user_data), env=env)
    assert done.returncode == 0, done.stderr
    folder = user_data / "NativeMessagingHosts"
    manifest_file, launcher = folder / f"{HOST}.json", folder / f"{HOST}.sh"
    assert f"wrote {manifest_file}" in done.stdout.splitlines()
    assert f"wrote {launcher}" in done.stdout.splitlines()
    assert "chrome://extensions" in done.stdout

    manifest = json.loads(manifest_file.read_text())
    assert manifest == {
        "name": HOST,
        "description": manifest["description"],
        "path": str(launcher),
        "type": "stdio",
        "allowed_origins": [f"chrome-extension://{the_id(env)}/"],
    }
    assert launcher.read_text().startswith("#!/bin/sh\n")
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o700
    assert stat.S_IMODE(manifest_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700

    done = extension("uninstall", "--user-data-dir", str(user_data), env=env)
    assert done.returncode == 0, done.stderr
    assert not manifest_file.exists() and not launcher.exists()
    assert f"removed {manifest_file}" in done.stdout.splitlines()


def test_install_refuses_a_folder_other_users_can_write(
    tmp_path: Path, env: dict[str, str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = extension("install", "--user-data-dir", str(shared), env=env)
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {shared} can be written by other users")
    assert list(shared.iterdir()) == []
    assert stat.S_IMODE(shared.stat().st_mode) == 0o777  # refused, not quietly changed

    # A private browser folder whose NativeMessagingHosts others may write: refused too.
    own = tmp_path / "own"
    (own / "NativeMessagingHosts").mkdir(parents=True)
    own.chmod(0o700)
    (own / "NativeMessagingHosts").chmod(0o777)
    done = extension("install", "--user-data-dir", str(own), env=env)
    assert done.returncode == 1
    assert "can be written by other users" in done.stderr
    assert list((own / "NativeMessagingHosts").iterdir()) == []


def test_install_checks_its_command_line(tmp_path: Path, env: dict[str, str]) -> None:
    done = extension("install", "--browser", "firefox", env=env)
    assert done.returncode == 2
    assert "firefox" in done.stderr
    done = extension("install", "--browser", "chrome", "--user-data-dir", str(tmp_path), env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --user-data-dir")
    # No browser folder in this (empty) home, none named: nothing is written anywhere.
    done = extension("install", env=env)
    assert done.returncode == 1
    assert done.stderr.startswith("error: None of chrome, chromium, edge")
    done = extension("install", "--browser", "chromium", env=env)
    assert done.returncode == 0, done.stderr
    assert (
        Path(env["XDG_CONFIG_HOME"]) / "chromium" / "NativeMessagingHosts" / f"{HOST}.json"
    ).is_file()


# -- the native messaging host ---------------------------------------------------------------


def start_host(tmp_path: Path, env: dict[str, str], origin: str) -> subprocess.Popen[bytes]:
    done = extension("install", "--user-data-dir", str(tmp_path / "browser"), env=env)
    assert done.returncode == 0, done.stderr
    launcher = json.loads(
        (tmp_path / "browser" / "NativeMessagingHosts" / f"{HOST}.json").read_text()
    )["path"]
    # As the browser starts it: by the manifest's path, in its folder, the origin as argv[1].
    return subprocess.Popen(
        [launcher, origin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=Path(launcher).parent, env=env,
    )  # fmt: skip


@pytest.mark.usefixtures("bridges")
def test_the_host_answers_the_bridge_and_exits_when_stdin_ends(
    tmp_path: Path, env: dict[str, str]
) -> None:
    host = start_host(tmp_path, env, f"chrome-extension://{the_id(env)}/")
    assert host.stdin is not None and host.stdout is not None and host.stderr is not None
    try:
        host.stdin.write(frame({"type": "hello"}))
        host.stdin.flush()
        answer = read_frame(host.stdout)
        assert answer["type"] == "bridge", answer
        assert len(answer["token"]) >= 22  # at least 128 bits
        with socket.create_connection(("127.0.0.1", answer["port"]), timeout=5):
            pass
        # Asked again (the extension does when the bridge went away): the same bridge.
        host.stdin.write(frame({"type": "hello"}))
        host.stdin.flush()
        assert read_frame(host.stdout) == answer
        host.stdin.close()
        assert host.wait(10) == 0
        assert host.stdout.read() == b""  # nothing but frames on stdout
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        host.stdout.close()
        host.stderr.close()


def test_the_host_refuses_a_caller_other_than_the_extension(
    tmp_path: Path, env: dict[str, str]
) -> None:
    host = start_host(tmp_path, env, "chrome-extension://" + "a" * 32 + "/")
    out, err = host.communicate(frame({"type": "hello"}), timeout=30)
    assert host.returncode == 1
    assert out == b""
    assert b"refused" in err
    assert not (Path(env["XDG_RUNTIME_DIR"]) / "cdpkit" / "bridge.json").exists()


# -- Chromium starts the installed host; the popup shows the state ------------------------


# What the person reads in the popup: the state word, the client count, the error shown
# (none while hidden) and the button's label.
_READ_POPUP = """JSON.stringify({
    state: document.getElementById("state").textContent,
    clients: document.getElementById("clients").textContent,
    error: document.getElementById("error").hidden ? null : document.getElementById("error").textContent,
    button: document.getElementById("toggle").textContent,
})"""


async def popup_shows(
    session: Any, state: str, timeout: float = 20, *, with_error: bool = False
) -> dict[str, Any]:
    """What the popup shows once its state word is ``state`` (and, ``with_error``, once it
    names an error: a worker that has not tried yet shows none)."""
    deadline = time.monotonic() + timeout
    shown: dict[str, Any] = {}
    while time.monotonic() < deadline:
        result = await session.call(
            "Runtime.evaluate", {"expression": _READ_POPUP, "returnByValue": True}
        )
        shown = json.loads(result["result"].get("value") or "{}")
        if shown.get("state") == state and (shown.get("error") or not with_error):
            return shown
        await asyncio.sleep(0.1)
    raise AssertionError(f"the popup never said {state!r}; it shows {shown}")


async def open_popup(browser: cdpkit.Browser, extension_id: str) -> Any:
    created = await browser.call(
        "Target.createTarget", {"url": f"chrome-extension://{extension_id}/popup.html"}
    )
    return await browser.attach_session(created["targetId"])


async def test_without_the_host_the_popup_says_what_is_missing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    folder = Path(extension("path", env=env).stdout.strip())
    async with cdpkit.launch(
        args=[f"--load-extension={folder}"], ignore_default_args=["--disable-extensions"],
        user_data_dir=tmp_path / "profile", env=env,
    ) as browser:  # fmt: skip
        session = await open_popup(browser, the_id(env))
        shown = await popup_shows(session, "Disconnected", with_error=True)
        assert "native messaging host not found" in shown["error"]
        assert shown["clients"] == "0 clients"
        assert shown["button"] == "Connect"


@pytest.mark.usefixtures("bridges")
async def test_chromium_starts_the_installed_host_and_the_popup_connects(
    tmp_path: Path, env: dict[str, str]
) -> None:
    folder = Path(extension("path", env=env).stdout.strip())
    profile = tmp_path / "profile"
    done = extension("install", "--user-data-dir", str(profile), env=env)
    assert done.returncode == 0, done.stderr
    async with cdpkit.launch(
        args=[f"--load-extension={folder}"], ignore_default_args=["--disable-extensions"],
        user_data_dir=profile, env=env,
    ) as browser:  # fmt: skip
        session = await open_popup(browser, the_id(env))
        shown = await popup_shows(session, "Connected")
        assert shown == {
            "state": "Connected",
            "clients": "0 clients",
            "error": None,
            "button": "Disconnect",
        }
        info = json.loads((Path(env["XDG_RUNTIME_DIR"]) / "cdpkit" / "bridge.json").read_text())
        with socket.create_connection(("127.0.0.1", info["port"]), timeout=5):
            pass
        click = {"expression": "document.getElementById('toggle').click()"}
        await session.call("Runtime.evaluate", click)
        assert (await popup_shows(session, "Disconnected"))["button"] == "Connect"
        await session.call("Runtime.evaluate", click)
        await popup_shows(session, "Connected")
