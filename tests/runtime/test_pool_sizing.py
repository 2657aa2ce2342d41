"""cdpkit.pool sizing: max_size under load, queue_timeout, min_size ready pages, idle
closing, the master profile serving one caller at a time, and settings on every worker."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.grid.conftest import NODE_ARGS
from tests.runtime.conftest import until
from tests.server import FixtureServer


def pool_pages(pool: cdpkit.Pool) -> int:
    """The Chrome pages the pool's callers got (in the pool's contexts)."""
    return len([page for page in pool.browser.pages if page.context is not None])


async def test_twenty_callers_never_get_more_than_max_size_pages(server: FixtureServer) -> None:
    peak_pages = peak_out = out = 0
    three_out = asyncio.Event()

    async with cdpkit.pool(max_size=3) as pool:

        async def job(n: int) -> int:
            nonlocal peak_pages, peak_out, out
            async with pool.page() as page:
                out += 1
                peak_out = max(peak_out, out)
                if out == 3:
                    three_out.set()
                await tools.navigate(page, server.url(f"/status?code=200&n={n}"))
                peak_pages = max(peak_pages, pool_pages(pool), pool.workers)
                # Held until the pool has three pages out (once), however slowly a loaded
                # machine makes the third: a pool that never gives three fails below.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(three_out.wait(), 15)
                await asyncio.sleep(0.05)
                out -= 1
                return n

        results = await asyncio.gather(*(job(n) for n in range(20)))
        assert pool.browser.contexts == []
    assert results == list(range(20))
    assert peak_out == 3 and peak_pages <= 3


async def test_a_caller_waiting_past_queue_timeout_gets_a_clear_error() -> None:
    async with cdpkit.pool(max_size=1, queue_timeout=0.3) as pool, pool.page():
        started = time.monotonic()
        with pytest.raises(cdpkit.WaitTimeoutError) as error:
            async with pool.page():
                pass
        assert time.monotonic() - started < 0.3 + 10  # bounds a hang, not the machine's speed
    assert "pool(queue_timeout=...)" in str(error.value)
    assert "all 1 in use" in str(error.value)


async def test_min_size_pages_are_ready_before_callers_come() -> None:
    async with cdpkit.pool(min_size=2, max_size=3) as pool:
        await until(lambda: pool.workers == 2)
        ready = {page.target_id for _, page in pool._ready}
        async with pool.page() as page:
            assert page.target_id in ready
        await until(lambda: pool.workers == 2)  # refilled after the caller left


async def test_an_idle_pool_closes_its_browser_and_relaunches_on_demand() -> None:
    async with cdpkit.pool(max_size=2, idle_timeout=0.3) as pool:
        first = pool.browser
        async with pool.page():
            pass
        await until(lambda: first.closed, timeout=5)
        with pytest.raises(RuntimeError, match="idle_timeout"):
            pool.browser  # noqa: B018
        async with pool.page() as page:
            assert await tools.evaluate(page, "1 + 1") == 2
        assert pool.launches == 2


def test_pool_sizes_are_checked() -> None:
    with pytest.raises(ValueError, match="min_size"):
        cdpkit.pool(min_size=5, max_size=2)
    with pytest.raises(ValueError, match="give one"):
        cdpkit.pool(size=2, max_size=3)
    with pytest.raises(ValueError, match="one caller at a time"):
        cdpkit.pool(profile="master", max_size=2)
    assert cdpkit.pool(size=2).max_size == 2  # size= still works
    assert cdpkit.pool(profile="master").max_size == 1


async def test_the_master_profile_serves_one_caller_at_a_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: FixtureServer
) -> None:
    monkeypatch.setenv("CDPKIT_PROFILES", str(tmp_path))
    inside = 0
    overlap = 0
    cookies: list[str] = []

    async with cdpkit.pool(profile="master") as pool:

        async def job(n: int) -> None:
            nonlocal inside, overlap
            async with pool.page() as page:
                inside += 1
                overlap = max(overlap, inside)
                await tools.navigate(page, server.url("/status?code=200"))
                cookies.append(str(await tools.evaluate(page, "document.cookie")))
                await tools.evaluate(page, f"document.cookie = 'job{n}=1; max-age=60'")
                await asyncio.sleep(0.1)
                inside -= 1

        await asyncio.gather(*(job(n) for n in range(3)))
    assert overlap == 1
    # Every caller shares the profile's cookies: each saw those of the ones before it.
    assert [len([c for c in seen.split("; ") if c]) for seen in cookies] == [0, 1, 2]


async def test_pool_workers_rotate_user_agents_and_keep_settings_when_replaced(
    server: FixtureServer,
) -> None:
    agents = ["pool-agent/1", "pool-agent/2", "pool-agent/3"]
    seen = []
    async with cdpkit.pool(max_size=3, user_agents=agents, timezone="Asia/Tokyo") as pool:

        async def job() -> str:
            async with pool.page() as page:
                await tools.navigate(page, server.url("/echo/headers"))
                return str(await tools.evaluate(page, "JSON.parse(document.body.innerText)['User-Agent']"))

        seen = await asyncio.gather(*(job() for _ in range(3)))
        first = pool.browser
        assert first.process is not None
        os.killpg(first.process.pid, signal.SIGKILL)
        await first._connection.wait_closed()
        async with pool.page() as page:  # a newly launched browser, the same settings
            zone = await tools.evaluate(page, "Intl.DateTimeFormat().resolvedOptions().timeZone")
            agent = await tools.evaluate(page, "navigator.userAgent")
        assert pool.launches == 2
    assert sorted(seen) == agents
    assert zone == "Asia/Tokyo" and agent in agents


async def test_a_grid_pool_gives_its_pages_the_settings(
    standalone_grid: str, server: FixtureServer
) -> None:
    grid_pool = cdpkit.pool(
        max_size=1, grid=standalone_grid, grid_options={"args": NODE_ARGS},
        user_agent="grid-agent/1", extra_headers={"X-Grid": "yes"},
    )  # fmt: skip
    async with grid_pool as pool, pool.page() as page:
        await tools.navigate(page, server.url("/echo/headers"))
        headers = await tools.evaluate(page, "JSON.parse(document.body.innerText)")
    assert headers["User-Agent"] == "grid-agent/1" and headers["X-Grid"] == "yes"
    with pytest.raises(ValueError, match="launch options"):
        cdpkit.pool(grid=standalone_grid, ignore_default_args=True)
