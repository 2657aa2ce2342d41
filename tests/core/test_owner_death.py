"""Chrome never outlives its owner: whatever kills the Python process that launched it,
Chrome's whole process group is gone within 2 s and the temporary profile removed; a
profile left by an owner that died anyway is swept by the next launch."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit._core.launching import _profiles
from tests.core.test_launch import group_alive, temp_profiles

OWNER_SCRIPT = """
import asyncio, os, signal, sys, cdpkit
async def main():
    async with cdpkit.launch(pipe=sys.argv[1] == "pipe") as browser:
        page = await browser.new_page()
        print(browser.process.pid, browser.process.user_data_dir, flush=True)
        if sys.argv[2] == "hang":  # make close() slow: Browser.close gets no answer
            await asyncio.sleep(0.5)
            os.killpg(browser.process.pid, signal.SIGSTOP)
            print("stopped", flush=True)
        await asyncio.sleep(60)
asyncio.run(main())
"""
# The same owner through cdpkit.sync: Chrome is owned by the sync API's loop, in a daemon
# thread, while the main thread blocks in time.sleep.
SYNC_OWNER_SCRIPT = """
import sys, time
import cdpkit.sync as sync
with sync.launch(pipe=sys.argv[1] == "pipe") as browser:
    page = browser.new_page()
    print(browser.process.pid, browser.process.user_data_dir, flush=True)
    time.sleep(60)
"""
OWNER_SCRIPTS = {"async": OWNER_SCRIPT, "sync": SYNC_OWNER_SCRIPT}


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path, the owner's TMPDIR: Chrome's singleton socket
    goes in the profile made there, and a socket's path has at most 107 bytes (pytest's
    tmp_path, longer under xdist, crossed it: Chrome aborted)."""
    folder = Path(tempfile.mkdtemp(prefix="cdpkit-owner-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _start_owner(
    tmp_path: Path, mode: str, behaviour: str = "idle", api: str = "async"
) -> subprocess.Popen[str]:
    script = tmp_path / "owner.py"
    script.write_text(textwrap.dedent(OWNER_SCRIPTS[api]))
    return subprocess.Popen(
        [sys.executable, str(script), mode, behaviour],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        # The same cdpkit as this test's, wherever it is installed.
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(Path(cdpkit.__file__).parent.parent)},
    )


def _gone_within(pgid: int, profile: Path, seconds: float) -> tuple[bool, bool]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not group_alive(pgid) and not profile.exists():
            break
        time.sleep(0.05)
    return not group_alive(pgid), not profile.exists()


def _cleanup(pgid: int | None, child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        child.kill()
        child.wait()
    if pgid is not None and group_alive(pgid):
        os.killpg(pgid, signal.SIGCONT)
        os.killpg(pgid, signal.SIGKILL)


@pytest.mark.parametrize("api", list(OWNER_SCRIPTS))
@pytest.mark.parametrize("mode", ["port", "pipe"])
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP], ids=["KILL", "TERM", "HUP"])
def test_chrome_and_its_profile_go_when_the_owner_is_killed(
    short_tmp: Path, mode: str, signum: signal.Signals, api: str
) -> None:
    child = _start_owner(short_tmp, mode, api=api)
    pgid: int | None = None
    try:
        assert child.stdout is not None
        pgid_text, profile_text = child.stdout.readline().split()
        pgid, profile = int(pgid_text), Path(profile_text)
        assert group_alive(pgid) and profile.is_dir()
        child.send_signal(signum)
        child.wait(timeout=10)
        chrome_gone, profile_gone = _gone_within(pgid, profile, 2.0)
        assert chrome_gone, f"Chrome (group {pgid}) outlived its owner killed by {signum.name}"
        assert profile_gone, f"{profile} outlived its owner killed by {signum.name}"
        # Nor is the folder of Chrome's singleton socket left in the owner's TMPDIR.
        assert [entry.name for entry in short_tmp.iterdir()] == ["owner.py"]
    finally:
        _cleanup(pgid, child)


def test_second_ctrl_c_during_cleanup_still_removes_everything(short_tmp: Path) -> None:
    child = _start_owner(short_tmp, "port", "hang")
    pgid: int | None = None
    try:
        assert child.stdout is not None
        pgid_text, profile_text = child.stdout.readline().split()
        pgid, profile = int(pgid_text), Path(profile_text)
        assert child.stdout.readline().strip() == "stopped"
        child.send_signal(signal.SIGINT)  # cleanup starts; Browser.close waits up to 2 s
        time.sleep(0.7)
        assert child.poll() is None
        child.send_signal(signal.SIGINT)  # interrupts the cleanup itself
        child.wait(timeout=10)
        chrome_gone, profile_gone = _gone_within(pgid, profile, 2.0)
        assert chrome_gone and profile_gone, (chrome_gone, profile_gone)
    finally:
        _cleanup(pgid, child)


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


async def test_launch_sweeps_profiles_whose_owner_is_gone(private_tmp: Path) -> None:
    stale = private_tmp / "cdpkit-profile-stale"
    reused_pid = private_tmp / "cdpkit-profile-reused"
    live = private_tmp / "cdpkit-profile-live"
    unmarked = private_tmp / "cdpkit-profile-unmarked"
    for directory in (stale, reused_pid, live, unmarked):
        (directory / "Default").mkdir(parents=True)
    own_start = _profiles.process_start_time(os.getpid())
    (stale / "cdpkit-owner").write_text(f"{_dead_pid()} 12345\n")
    # Our own pid but another start time: a pid reused after its owner died.
    (reused_pid / "cdpkit-owner").write_text(f"{os.getpid()} {own_start}0\n")
    (live / "cdpkit-owner").write_text(f"{os.getpid()} {own_start}\n")
    # Their Chrome's singleton folders: the stale one's goes with it; a folder holding
    # anything more is not Chrome's alone, and only Chrome's two files leave it.
    singletons = {stale: private_tmp / "org.chromium.Chromium.a1", reused_pid: private_tmp / "b2"}
    for profile, folder in singletons.items():
        folder.mkdir()
        (folder / "SingletonSocket").write_text("")
        (folder / "SingletonCookie").write_text("")
        (profile / "SingletonSocket").symlink_to(folder / "SingletonSocket")
    (singletons[reused_pid] / "notes.txt").write_text("someone else's")
    async with cdpkit.launch() as browser:
        assert browser.process is not None
        own = browser.process.user_data_dir
        for _ in range(100):  # the sweep runs in a thread, off the launch's critical path
            if not stale.exists() and not reused_pid.exists():
                break
            await asyncio.sleep(0.02)
        assert not stale.exists() and not reused_pid.exists()
        assert live.is_dir() and unmarked.is_dir() and own.is_dir()
    assert sorted(temp_profiles(private_tmp)) == sorted([live, unmarked])
    assert not singletons[stale].exists()
    assert [entry.name for entry in singletons[reused_pid].iterdir()] == ["notes.txt"]
