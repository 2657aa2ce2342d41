"""cdpkit.pool and persistent profiles (with their cross-process lock)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import cdpkit
from cdpkit import cdp
from tests.server import FixtureServer

REPO = Path(__file__).parents[2]


async def evaluate(page: cdpkit.Page, expression: str) -> object:
    return (await page.send(cdp.runtime.evaluate(expression, return_by_value=True))).result.value


async def test_pool_runs_isolated_pages_concurrently(server: FixtureServer) -> None:
    active = 0
    peak = 0

    async def job(n: int, pool: cdpkit.Pool) -> object:
        nonlocal active, peak
        async with pool.page() as page:
            active += 1
            peak = max(peak, active)
            await cdpkit.tools.navigate(page, server.url("/status?code=200"))
            seen = await evaluate(page, "document.cookie")
            await evaluate(page, f"document.cookie = 'job={n}'")
            await asyncio.sleep(0.2)
            active -= 1
            return seen

    async with cdpkit.pool(size=2) as pool:
        seen = await asyncio.gather(*(job(n, pool) for n in range(5)))
        assert pool.browser.contexts == []  # every page's context was discarded
    assert seen == [""] * 5  # no job saw another's cookie
    assert peak == 2


async def test_pool_callers_queue_with_a_timeout() -> None:
    async with cdpkit.pool(size=1, acquire_timeout=0.3) as pool, pool.page():
        started = time.monotonic()
        with pytest.raises(cdpkit.WaitTimeoutError, match="a free page in the pool"):
            async with pool.page():
                pass
        assert time.monotonic() - started < 0.3 + 10  # bounds a hang, not the machine's speed


async def test_pool_replaces_a_crashed_browser() -> None:
    async with cdpkit.pool(size=1) as pool:
        first = pool.browser
        assert first.process is not None
        os.killpg(first.process.pid, signal.SIGKILL)
        await first._connection.wait_closed()
        async with pool.page() as page:
            assert await evaluate(page, "1 + 1") == 2
        assert pool.browser is not first and pool.launches == 2


async def test_named_profile_persists_between_launches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: FixtureServer
) -> None:
    monkeypatch.setenv("CDPKIT_PROFILES", str(tmp_path))
    async with cdpkit.launch(profile="master") as browser:
        assert (tmp_path / "master" / "browser.lock").exists()
        page = await browser.new_page(server.url("/status?code=200"))
        await evaluate(page, "document.cookie = 'login=yes; max-age=3600'")
        await page.close()  # flushes the cookie store
    assert (tmp_path / "master").is_dir()
    async with cdpkit.launch(profile="master") as browser:
        page = await browser.new_page(server.url("/status?code=200"))
        assert await evaluate(page, "document.cookie") == "login=yes"


def test_profile_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match="Invalid profile name"):
        cdpkit.launch(profile="../escape")
    with pytest.raises(ValueError, match="not both"):
        cdpkit.launch(profile="a", user_data_dir="/tmp/b")


async def test_second_process_waits_for_the_profile_then_gets_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CDPKIT_PROFILES", str(tmp_path))
    holder = tmp_path / "holder.py"
    holder.write_text(textwrap.dedent(
        """
        import asyncio, sys
        sys.path.insert(0, sys.argv[1])
        import cdpkit
        async def main():
            async with cdpkit.launch(profile="master"):
                print("holding", flush=True)
                await asyncio.sleep(float(sys.argv[2]))
        asyncio.run(main())
        """
    ))
    child = subprocess.Popen(
        [sys.executable, str(holder), str(REPO), "3"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "CDPKIT_PROFILES": str(tmp_path)},
    )
    try:
        assert child.stdout is not None
        assert await asyncio.to_thread(child.stdout.readline) == "holding\n"
        with pytest.raises(cdpkit.ProfileLockedError, match=f"pid {child.pid}"):
            async with cdpkit.launch(profile="master", lock_timeout=0.5):
                pass
        started = time.monotonic()
        async with cdpkit.launch(profile="master", lock_timeout=30) as browser:
            waited = time.monotonic() - started
            page = await browser.new_page()
            assert await evaluate(page, "2 + 2") == 4
        assert waited > 1  # it really waited for the holder to finish
    finally:
        child.kill()
        child.wait()
