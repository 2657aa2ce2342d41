"""A person's browser for the bridge tests: headless Chromium started as a person's runs
(no debugging port, no automation flags), with the shipped extension loaded and the native
host installed into its user data dir, in a runtime folder and home of the test's own.
The browser starts the bridge itself, through the host; nothing here calls the bridge."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cdpkit._bridge import EXTENSION_DIR, BridgeInfo
from cdpkit.launcher import find_chrome

# The offline flags a launched browser gets (no background connections on a machine without
# internet), without those that make it an automation browser (--disable-extensions...).
_QUIET = (
    "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps",
    "--disable-breakpad", "--disable-domain-reliability", "--no-pings",
    "--gaia-url=http://127.0.0.1:9", "--component-updater=url-source=http://127.0.0.1:9",
    "--password-store=basic", "--use-mock-keychain", "--test-type", "--disable-gpu",
    # The person lets the test's pages open their other tabs (headless takes one URL).
    "--disable-popup-blocking",
)  # fmt: skip


@dataclass
class PersonsBrowser:
    """The browser, where its bridge publishes itself, and the environment a cdpkit
    command run by the same person has."""

    process: subprocess.Popen[bytes]
    user_data_dir: Path
    env: dict[str, str]

    @property
    def bridge_file(self) -> Path:
        return Path(self.env["XDG_RUNTIME_DIR"]) / "cdpkit" / "bridge.json"

    def bridge(self, timeout: float = 20, *, other_than: int | None = None) -> BridgeInfo:
        """The bridge the browser started (waiting for it), optionally a new one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError, KeyError):
                data = json.loads(self.bridge_file.read_text())
                info = BridgeInfo(int(data["port"]), str(data["token"]), int(data["pid"]))
                if info.pid != other_than and _alive(info.pid):
                    return info
            time.sleep(0.05)
        raise AssertionError(f"no bridge within {timeout} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def start_persons_browser(tmp_path: Path, url: str, *, port: bool = False) -> PersonsBrowser:
    """The browser, on ``url``; with ``port``, also a debugging port (only for a test to
    open what no page may: chrome:// pages)."""
    from cdpkit._bridge._install import install

    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(mode=0o700, exist_ok=True)
    user_data_dir = tmp_path / "profile"
    user_data_dir.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "CDPKIT_NO_DAEMON": "1"}  # fmt: skip
    install(["chromium"], user_data_dir)
    command = [find_chrome(None), "--headless", "--no-sandbox", f"--user-data-dir={user_data_dir}",
               f"--load-extension={EXTENSION_DIR}", *_QUIET,
               *(["--remote-debugging-port=0"] if port else []), url]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    return PersonsBrowser(process, user_data_dir, env)


@pytest.fixture
def persons_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., PersonsBrowser]]:
    """A function that starts it (see :func:`start_persons_browser`); this process's
    cdpkit then finds its bridge. Stopped, bridge and all, at the test's end."""
    browsers: list[PersonsBrowser] = []

    def start(url: str = "about:blank", *, port: bool = False) -> PersonsBrowser:
        browser = start_persons_browser(tmp_path, url, port=port)
        browsers.append(browser)
        for name in ("XDG_RUNTIME_DIR", "HOME", "XDG_CONFIG_HOME", "CDPKIT_NO_DAEMON"):
            monkeypatch.setenv(name, browser.env[name])
        return browser

    yield start
    for browser in browsers:
        browser.stop()
        with contextlib.suppress(OSError, ValueError, KeyError):
            pid = int(json.loads(browser.bridge_file.read_text())["pid"])
            os.kill(pid, signal.SIGTERM)
