"""connect("auto") / --connect auto: attach to the person's own running Chrome, found through
the DevToolsActivePort of a channel's default profile."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import cdpkit
from cdpkit._core.autoconnect import find_running_chrome, profile_dirs
from cdpkit.errors import ConnectError
from tests.server import FixtureServer, closed_port


def test_each_platform_looks_in_every_channels_default_profile(tmp_path: Path) -> None:
    linux = dict(profile_dirs("linux", {"HOME": str(tmp_path)}))
    assert linux["stable"] == tmp_path / ".config" / "google-chrome"
    assert linux["chromium"] == tmp_path / ".config" / "chromium"
    assert set(linux) == {"stable", "beta", "dev", "canary", "chromium"}
    xdg = dict(profile_dirs("linux", {"HOME": "/h", "XDG_CONFIG_HOME": "/x"}))
    assert xdg["beta"] == Path("/x/google-chrome-beta")
    mac = dict(profile_dirs("darwin", {}, home=Path("/Users/a")))
    assert mac["canary"] == Path("/Users/a/Library/Application Support/Google/Chrome Canary")
    win = dict(profile_dirs("win32", {"LOCALAPPDATA": "C:/L"}, home=Path("C:/U")))
    assert win["canary"] == Path("C:/L/Google/Chrome SxS/User Data")
    assert win["stable"] == Path("C:/L/Google/Chrome/User Data")


def test_none_found_says_where_it_looked_and_what_to_turn_on(tmp_path: Path) -> None:
    with pytest.raises(ConnectError) as caught:
        find_running_chrome("linux", {"HOME": str(tmp_path)})
    message = str(caught.value)
    assert str(tmp_path / ".config" / "google-chrome" / "DevToolsActivePort") in message
    assert "chrome://inspect/#remote-debugging" in message
    assert "--remote-debugging-port" in message


def test_a_stale_file_is_not_taken_for_a_running_chrome(tmp_path: Path) -> None:
    profile = tmp_path / ".config" / "google-chrome-beta"
    profile.mkdir(parents=True)
    (profile / "DevToolsActivePort").write_text(f"{closed_port()}\n/devtools/browser/gone\n")
    with pytest.raises(ConnectError, match="nothing listens there: that Chrome is not running"):
        find_running_chrome("linux", {"HOME": str(tmp_path)})


async def test_connect_auto_attaches_to_the_running_chrome_of_a_default_profile(
    tmp_path: Path, server: FixtureServer
) -> None:
    profile = tmp_path / ".config" / "chromium"
    async with cdpkit.launch(user_data_dir=profile) as theirs:
        page = await theirs.new_page(server.url("/"))
        saved = os.environ.get("XDG_CONFIG_HOME")
        os.environ["XDG_CONFIG_HOME"] = str(tmp_path / ".config")
        try:
            async with cdpkit.connect("auto") as mine:
                assert mine.process is None
                assert page.target_id in {p.target_id for p in mine.pages}
        finally:
            if saved is None:
                del os.environ["XDG_CONFIG_HOME"]
            else:
                os.environ["XDG_CONFIG_HOME"] = saved
        assert not page.closed  # attaching and leaving closed nothing of theirs

        # The command line: --connect auto reaches the same browser. (Run in a thread: this
        # loop keeps serving its own browser, which resumes the tab the CLI opens.)
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / ".config")}
        command = [sys.executable, "-m", "cdpkit", "eval", "--connect", "auto", server.url("/"), "1 + 1"]
        run = await anyio.to_thread.run_sync(
            lambda: subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "2"


def test_cli_connect_auto_without_a_chrome_says_what_to_enable(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    run = subprocess.run(
        [sys.executable, "-m", "cdpkit", "eval", "--connect", "auto", "about:blank", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert run.returncode == 1, run
    assert "chrome://inspect/#remote-debugging" in run.stderr
    assert "Traceback" not in run.stderr
