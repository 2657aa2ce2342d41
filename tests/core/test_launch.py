"""Launching, connecting and cleaning up real Chromium processes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import anyio
import pytest

import cdpkit
from cdpkit import cdp, launcher
from cdpkit._core.launching import _finding, _process, _spawning
from cdpkit.launcher import ChromeProcess
from tests.server import FixtureServer, Handler

# A 20,000 px page whose top 2,000 px are random noise: its PNG is well over 3 MB.
NOISY_TALL_PAGE_JS = """
document.body.style.margin = 0;
const canvas = document.createElement('canvas');
canvas.width = 800; canvas.height = 2000;
const ctx = canvas.getContext('2d');
const image = ctx.createImageData(800, 2000);
for (let i = 0; i < image.data.length; i++) image.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256;
ctx.putImageData(image, 0, 0);
document.body.appendChild(canvas);
const rest = document.createElement('div');
rest.style.height = '18000px';
rest.style.background = 'linear-gradient(red, blue)';
document.body.appendChild(rest);
"""


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process of the group is still running."""
    return _process.group_alive(pgid)


def temp_profiles(where: Path) -> list[Path]:
    return list(where.glob("cdpkit-profile-*"))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_exit_normally_kills_group_and_removes_temp_profile() -> None:
    async with cdpkit.launch() as browser:
        assert browser.process is not None
        pgid, profile = browser.process.pid, browser.process.user_data_dir
        assert group_alive(pgid)
        assert stat.S_IMODE(profile.stat().st_mode) == 0o700
        cmdline = Path(f"/proc/{pgid}/cmdline").read_bytes().split(b"\0")
        assert b"--remote-debugging-port=0" in cmdline
        assert not any(arg.startswith(b"--remote-allow-origins") for arg in cmdline)
    assert not group_alive(pgid)
    assert not profile.exists()


async def test_exit_by_exception_cleans_up() -> None:
    with pytest.raises(RuntimeError, match="boom"):
        async with cdpkit.launch() as browser:
            assert browser.process is not None
            pgid, profile = browser.process.pid, browser.process.user_data_dir
            raise RuntimeError("boom")
    assert not group_alive(pgid)
    assert not profile.exists()


async def test_exit_by_cancellation_cleans_up() -> None:
    launched: asyncio.Future[ChromeProcess] = asyncio.get_running_loop().create_future()

    async def run() -> None:
        async with cdpkit.launch() as browser:
            assert browser.process is not None
            launched.set_result(browser.process)
            await asyncio.sleep(30)

    task = asyncio.ensure_future(run())
    process = await launched
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not group_alive(process.pid)
    assert not process.user_data_dir.exists()


def _processes_using(folder: Path) -> list[int]:
    """The processes whose command line names ``folder`` (a launch's profile is in it)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(folder).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # ended meanwhile
            pass
    return found


@pytest.mark.parametrize("pipe", [False, True], ids=["port", "pipe"])
async def test_cancellation_during_launch_leaves_nothing(private_tmp: Path, pipe: bool) -> None:
    # Cancelled at several points of the launch (before, while and after Chrome is
    # spawned): however far it got, no profile and no process of it is left (a launch
    # cancelled while asyncio started the process used to leave Chrome's first helpers).
    for after in (0.001, 0.003, 0.006, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2):
        with anyio.move_on_after(after) as scope:
            async with cdpkit.launch(pipe=pipe):
                await asyncio.sleep(30)
        assert scope.cancelled_caught
        assert temp_profiles(private_tmp) == [], after
        assert _processes_using(private_tmp) == [], after


@pytest.mark.parametrize("pipe", [False, True], ids=["port", "pipe"])
async def test_a_killed_chrome_leaves_no_singleton_folder(private_tmp: Path, pipe: bool) -> None:
    # Chrome removes the folder of its singleton socket (in the system's temporary folder)
    # when it exits by itself; a Chrome that is killed leaves it, so cdpkit removes it.
    async with cdpkit.launch(pipe=pipe) as browser:
        assert browser.process is not None
        socket = Path(os.readlink(browser.process.user_data_dir / "SingletonSocket"))
        assert socket.exists()
        os.killpg(browser.process.pid, signal.SIGKILL)  # a crash, or the kill of a hung one
    assert not socket.parent.exists()
    assert temp_profiles(private_tmp) == []


async def test_user_profile_is_kept(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    async with cdpkit.launch(user_data_dir=profile) as browser:
        page = await browser.new_page()
        await page.send(cdp.runtime.evaluate("1"))
    assert profile.is_dir()
    assert (profile / "Default").is_dir() or any(profile.iterdir())


async def test_a_users_feature_switches_join_the_defaults_instead_of_replacing_them() -> None:
    # Chrome reads only the last --disable-features: given twice, the user's would drop the
    # default list, and Chrome would call Google (translation, optimization hints...).
    args = [
        "--disable-features=BackForwardCache,Translate",
        "--enable-features=A",
        "-enable-features=B,A",
    ]
    async with cdpkit.launch(args=args) as browser:
        cmdline = Path(f"/proc/{browser.process.pid}/cmdline").read_bytes().decode().split("\0")
    disabled = [arg for arg in cmdline if arg.startswith("--disable-features=")]
    assert len(disabled) == 1
    names = disabled[0].partition("=")[2].split(",")
    assert {"Translate", "OptimizationHints", "BackForwardCache"} <= set(names)
    assert len(names) == len(set(names))
    assert [arg for arg in cmdline if arg.lstrip("-").startswith("enable-features")] == [
        "--enable-features=A,B"
    ]


def test_a_grid_sessions_feature_switches_join_the_defaults_too() -> None:
    from cdpkit._browser.grid import chrome_capabilities

    capabilities = chrome_capabilities(
        headless=True,
        args=["--disable-features=BackForwardCache"],
        capabilities={"goog:chromeOptions": {"args": ["--disable-features=Y,Translate"]}},
    )
    args = capabilities["goog:chromeOptions"]["args"]
    disabled = [arg for arg in args if arg.startswith("--disable-features=")]
    assert len(disabled) == 1
    names = disabled[0].partition("=")[2].split(",")
    assert {"Translate", "OptimizationHints", "BackForwardCache", "Y"} <= set(names)
    assert len(names) == len(set(names))


async def test_pipe_transport_opens_no_port() -> None:
    async with cdpkit.launch(pipe=True) as browser:
        assert browser.process is not None
        cmdline = Path(f"/proc/{browser.process.pid}/cmdline").read_bytes().split(b"\0")
        assert b"--remote-debugging-pipe" in cmdline
        assert not any(arg.startswith(b"--remote-debugging-port") for arg in cmdline)
        assert not (browser.process.user_data_dir / "DevToolsActivePort").exists()
        page = await browser.new_page()
        big = await page.send(
            cdp.runtime.evaluate("'y'.repeat(20 * 1024 * 1024)", return_by_value=True), timeout=60
        )
        assert len(big.result.value) == 20 * 1024 * 1024
        await page.send(cdp.runtime.evaluate(NOISY_TALL_PAGE_JS))
        shot = await page.send(
            cdp.page.capture_screenshot(
                capture_beyond_viewport=True,
                clip=cdp.page.Viewport(x=0, y=0, width=800, height=20_000, scale=1),
            ),
            timeout=60,
        )
        assert len(shot.data) > 3_000_000


async def test_pipe_transport_handles_many_concurrent_large_sends() -> None:
    async with cdpkit.launch(pipe=True) as browser:
        page = await browser.new_page()
        big = "x" * 100_000  # 200 of these overflow the pipe buffer: senders must wait, then all resume
        results = await asyncio.wait_for(
            asyncio.gather(
                *(page.send(cdp.runtime.evaluate(f"'{big}'.length + {i}", return_by_value=True))
                  for i in range(200))
            ),
            60,
        )
        assert [r.result.value for r in results] == [100_000 + i for i in range(200)]


# Ten cycles, five per transport: a process group or profile left behind shows in any one
# cycle (each is checked), and a descriptor leaked per cycle of either transport adds at
# least five, past the two the event loop may open lazily. More cycles prove nothing more.
LAUNCH_CLOSE_CYCLES = 10


async def test_repeated_launch_close_cycles_leave_nothing_behind() -> None:
    fds_before = open_fds()
    processes = []
    for i in range(LAUNCH_CLOSE_CYCLES):
        async with cdpkit.launch(pipe=i % 2 == 1) as browser:
            assert browser.process is not None
            processes.append(browser.process)
    assert not any(group_alive(p.pid) for p in processes)
    assert not any(p.user_data_dir.exists() for p in processes)
    assert open_fds() <= fds_before + 2  # the loop's own lazily created fds, nothing per cycle


async def test_sigkilled_chrome_fails_everything_within_two_seconds() -> None:
    async with cdpkit.launch() as browser:
        page = await browser.new_page()
        assert browser.process is not None
        hang = "new Promise(() => {})"
        sends = [
            asyncio.ensure_future(page.send(cdp.runtime.evaluate(hang, await_promise=True)))
            for _ in range(20)
        ]
        waiter = asyncio.ensure_future(page.wait_for(cdp.page.LoadEventFired, timeout=60))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        os.killpg(browser.process.pid, signal.SIGKILL)
        results = await asyncio.wait_for(
            asyncio.gather(*sends, waiter, return_exceptions=True), 20
        )
        assert time.monotonic() - started < 10  # not the 60 s wait
        assert all(isinstance(r, cdpkit.ConnectionClosedError) for r in results), results
        assert "SIGKILL" in str(results[0]) or "closed" in str(results[0])
        started = time.monotonic()
        with pytest.raises(cdpkit.ConnectionClosedError):
            await page.send(cdp.runtime.evaluate("1"))
        with pytest.raises(cdpkit.ConnectionClosedError):
            await browser.new_page()
        assert time.monotonic() - started < 10  # at once, not after the default 30 s timeout


def test_sigint_leaves_no_chrome_behind(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, sys, cdpkit
            async def main():
                async with cdpkit.launch() as browser:
                    print(browser.process.pid, browser.process.user_data_dir, flush=True)
                    await asyncio.sleep(60)
            asyncio.run(main())
            """
        )
    )
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        pgid_text, profile = child.stdout.readline().split()
        assert group_alive(int(pgid_text))
        child.send_signal(signal.SIGINT)
        child.wait(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode != 0  # KeyboardInterrupt
    assert not group_alive(int(pgid_text))
    assert not Path(profile).exists()


async def test_bad_executable_path_is_a_launch_error() -> None:
    with pytest.raises(cdpkit.LaunchError, match="/nonexistent/chrome"):
        async with cdpkit.launch(executable_path="/nonexistent/chrome"):
            pass


async def test_chrome_that_exits_at_once_reports_its_output(private_tmp: Path) -> None:
    fake = private_tmp / "fake-chrome"
    fake.write_text("#!/bin/sh\necho 'fatal: no display for you' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(cdpkit.LaunchError) as info:
        async with cdpkit.launch(executable_path=str(fake), timeout=10):
            pass
    assert "code 3" in str(info.value)
    assert "no display for you" in str(info.value)
    assert temp_profiles(private_tmp) == []


async def test_chrome_that_never_opens_an_endpoint_times_out(private_tmp: Path) -> None:
    fake = private_tmp / "fake-chrome"
    fake.write_text("#!/bin/sh\necho 'starting slowly'\nexec sleep 30\n")
    fake.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(cdpkit.LaunchError) as info:
        async with cdpkit.launch(executable_path=str(fake), timeout=0.5):
            pass
    assert time.monotonic() - started < 0.5 + 10  # not the fake's 30 s
    assert "0.5 s" in str(info.value) and "starting slowly" in str(info.value)
    assert temp_profiles(private_tmp) == []


async def test_a_temporary_folder_too_long_for_chromes_socket_still_launches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Chrome puts its singleton socket under $TMPDIR and aborts when the socket's path
    # passes 107 bytes: a deep TMPDIR (a CI runner's, pytest's under xdist) broke launch().
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr(tempfile, "tempdir", str(deep))  # the temporary profile goes there
    for pipe in (False, True):
        async with cdpkit.launch(pipe=pipe, timeout=20) as browser:
            page = await browser.new_page()
            assert await page.call("Runtime.evaluate", {"expression": "6*7", "returnByValue": True}) \
                == {"result": {"type": "number", "value": 42, "description": "42"}}
            assert temp_profiles(deep) != []
        assert temp_profiles(deep) == []
    # A caller's own env= is shortened the same way; a short TMPDIR is left as it is.
    env = {**os.environ, "TMPDIR": str(deep)}
    async with cdpkit.launch(env=env, timeout=20) as browser:
        assert browser.version.product.startswith(("Chrome/", "HeadlessChrome/"))
    child_env = {"TMPDIR": str(tmp_path)[:40]}
    _spawning.shorten_socket_tmpdir(child_env)
    assert child_env == {"TMPDIR": str(tmp_path)[:40]}


async def test_default_profile_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(cdpkit.LaunchError, match="default profile"):
        async with cdpkit.launch(user_data_dir=tmp_path / "google-chrome"):
            pass


def test_find_chrome_honours_env_and_says_where_it_looked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "my-chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CDPKIT_CHROME", str(fake))
    assert launcher.find_chrome() == str(fake)
    assert launcher.find_chrome(executable_path="/usr/bin/env") == "/usr/bin/env"
    monkeypatch.delenv("CDPKIT_CHROME")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(_finding, "_install_locations", lambda: [tmp_path / "nowhere"])
    with pytest.raises(cdpkit.LaunchError) as info:
        launcher.find_chrome()
    message = str(info.value)
    assert "chromium" in message and "google-chrome" in message
    assert "CDPKIT_CHROME" in message and "apt-get install chromium" in message


async def test_connect_over_http_and_close_detaches(server: FixtureServer) -> None:
    async with cdpkit.launch() as owner:
        assert owner.process is not None
        port = (owner.process.user_data_dir / "DevToolsActivePort").read_text().split()[0]
        async with cdpkit.connect(f"http://127.0.0.1:{port}") as attached:
            assert attached.process is None
            assert attached.version.product == owner.version.product
            page = await attached.new_page(server.url("/status?code=200"))
            assert (await page.send(cdp.runtime.evaluate("2", return_by_value=True))).result.value == 2
        assert group_alive(owner.process.pid)
        page = await owner.new_page()
        assert (await page.send(cdp.runtime.evaluate("3", return_by_value=True))).result.value == 3


async def test_connect_errors_say_what_is_wrong(server: FixtureServer) -> None:
    with pytest.raises(cdpkit.ConnectError, match="Could not reach"):
        async with cdpkit.connect("http://127.0.0.1:9", timeout=5):
            pass
    with pytest.raises(cdpkit.ConnectError, match="404"):
        async with cdpkit.connect(server.origin, timeout=5):
            pass

    def no_ws_url(handler: Handler) -> None:
        handler.reply(200, json.dumps({"Browser": "x"}), "application/json")

    server.route("/json/version", no_ws_url)
    try:
        with pytest.raises(cdpkit.ConnectError, match="webSocketDebuggerUrl"):
            async with cdpkit.connect(server.origin, timeout=5):
                pass
    finally:
        del server.routes["/json/version"]
    with pytest.raises(cdpkit.ConnectError, match="expected http"):
        async with cdpkit.connect("localhost:9222"):
            pass


async def test_fixed_debugging_port_in_args_is_used() -> None:
    from tests.server import free_port

    port = free_port()
    async with cdpkit.launch(args=[f"--remote-debugging-port={port}"], timeout=20) as browser:
        page = await browser.new_page()
        assert (await page.send(cdp.runtime.evaluate("7", return_by_value=True))).result.value == 7
        async with cdpkit.connect(f"http://127.0.0.1:{port}") as attached:
            assert attached.version.product == browser.version.product


_COUNT_FULL_COLLECTIONS = """
import asyncio, gc, sys
import cdpkit

full = []
gc.callbacks.append(
    lambda phase, info: phase == "start" and info["generation"] == 2 and full.append(1)
)

async def main():
    if sys.argv[1] == "off":
        gc.disable()
    async with cdpkit.launch(pipe=True):
        before = len(full)
        await asyncio.sleep(0.1)  # the program's first wait
        print(len(full) - before, gc.isenabled())

asyncio.run(main())
"""


@pytest.mark.parametrize("collector", ["on", "off"])
def test_the_first_launch_runs_the_due_full_collection_at_the_programs_first_wait(
    collector: str,
) -> None:
    # What importing cdpkit left for the collector is collected once the browser is ready,
    # at the program's first wait, not in its first burst of calls; a program that turned
    # the collector off keeps it off.
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_FULL_COLLECTIONS, collector],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    collections, enabled = done.stdout.split()[:2]
    if collector == "on":
        assert int(collections) >= 1 and enabled == "True"
    else:
        assert (collections, enabled) == ("0", "False")


async def test_the_version_read_at_start_is_a_typed_model(browser: cdpkit.Browser) -> None:
    # Read lazily (its model is built on first use, off the launch path); the same object
    # every time.
    version = browser.version
    assert isinstance(version, cdpkit.cdp.browser.GetVersionResult)
    assert "Chrome" in version.product and version.user_agent
    assert browser.version is version
    assert version.product in repr(browser)
