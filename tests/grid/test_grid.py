"""cdpkit.grid(): browsers leased from a real Selenium Grid 4, every tool family on them,
sessions deleted whatever happens, and a full grid's queue handled without orphans."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

import cdpkit
from cdpkit import cdp, tools
from tests.grid.conftest import NODE_ARGS, busy_slots, grid_status, queued_requests
from tests.server import FixtureServer

PAGE = """<title>Grid page</title>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
<p id="out">waiting</p>
<a href="/grid/report.csv">Report</a>"""
REPORT = b"name,score\n" + b"".join(b"row%d,%d\n" % (i, i) for i in range(2000))


@pytest.fixture
def site(server: FixtureServer) -> FixtureServer:
    server.route("/grid/page.html", lambda h: h.reply(200, PAGE))
    server.route("/grid/report.csv", lambda h: h.reply(200, REPORT, "text/csv"))
    server.route(
        "/grid/cookie",
        lambda h: h.reply(200, "<title>cookie</title>", headers={"Set-Cookie": "who=first"}),
    )
    return server


async def busy(url: str) -> int:
    return await asyncio.to_thread(busy_slots, url)


async def eventually(check: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(check):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.2)


async def test_every_tool_family_works_on_a_grid_session(
    standalone_grid: str, site: FixtureServer, tmp_path: Path
) -> None:
    async with cdpkit.grid(standalone_grid, args=NODE_ARGS) as browser:
        assert await busy(standalone_grid) == 1
        page = await browser.new_page()
        loaded = await tools.navigate(page, site.url("/grid/page.html"))
        assert (loaded.status, loaded.title) == (200, "Grid page")
        await tools.click(page, selector="#go")
        assert await tools.evaluate(page, "document.getElementById('out').textContent") == "clicked"
        snapshot = await tools.snapshot(page)
        assert 'button "Go"' in str(snapshot) and 'link "Report"' in str(snapshot)
        image = await tools.screenshot(page)
        assert image.startswith(b"\x89PNG")
        # From about:blank, as a user starting a fresh session would.
        blank = await browser.new_page()
        saved = await tools.download(blank, url=site.url("/grid/report.csv"), dest_dir=tmp_path)
        assert Path(saved.path).read_bytes() == REPORT
        viewport = await page.send(cdp.runtime.evaluate("[innerWidth, innerHeight]", return_by_value=True))
        assert viewport.result.value == [1280, 720]  # the same default viewport as launch()
    assert await busy(standalone_grid) == 0


async def test_two_sessions_run_on_two_nodes_at_once_and_stay_isolated(
    hub_and_two_nodes: str, site: FixtureServer
) -> None:
    url = hub_and_two_nodes
    async with (
        cdpkit.grid(url, args=NODE_ARGS) as first,
        cdpkit.grid(url, args=NODE_ARGS) as second,
    ):
        status = await asyncio.to_thread(grid_status, url)
        per_node = [sum(1 for slot in node["slots"] if slot["session"]) for node in status["nodes"]]
        assert sorted(per_node) == [1, 1], per_node  # one session on each node

        async def cookie_after(browser: cdpkit.Browser, path: str) -> str:
            page = await browser.new_page()
            await tools.navigate(page, site.url(path))
            return str(await tools.evaluate(page, "document.cookie"))

        first_cookie, second_cookie = await asyncio.gather(
            cookie_after(first, "/grid/cookie"), cookie_after(second, "/grid/page.html")
        )
        assert (first_cookie, second_cookie) == ("who=first", "")
    # Both sessions were deleted; the hub learns it from its nodes' events, a moment later.
    await eventually(lambda: busy_slots(url) == 0, 10, "the hub to free both nodes' slots")


async def test_the_session_is_deleted_on_exception_and_on_cancellation(
    standalone_grid: str,
) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        async with cdpkit.grid(standalone_grid, args=NODE_ARGS):
            assert await busy(standalone_grid) == 1
            raise RuntimeError("boom")
    assert await busy(standalone_grid) == 0

    entered = asyncio.Event()

    async def work() -> None:
        async with cdpkit.grid(standalone_grid, args=NODE_ARGS):
            entered.set()
            await asyncio.sleep(3600)

    task = asyncio.ensure_future(work())
    await asyncio.wait_for(entered.wait(), 60)
    assert await busy(standalone_grid) == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await busy(standalone_grid) == 0


async def test_an_awaited_grid_browser_ends_its_session_when_closed(standalone_grid: str) -> None:
    browser = await cdpkit.grid(standalone_grid, args=NODE_ARGS)
    try:
        assert await busy(standalone_grid) == 1
        page = await browser.new_page()
        assert (await page.send(cdp.runtime.evaluate("1 + 2"))).result.value == 3
    finally:
        await browser.close()
    assert await busy(standalone_grid) == 0


async def test_a_full_grid_queues_then_reports_no_capacity_and_leaves_no_orphan(
    standalone_grid: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cdpkit")
    url = standalone_grid
    async with cdpkit.grid(url, args=NODE_ARGS), cdpkit.grid(url, args=NODE_ARGS):
        assert await busy(url) == 2
        started = time.monotonic()
        with pytest.raises(cdpkit.GridCapacityError) as info:
            async with cdpkit.grid(url, args=NODE_ARGS, session_timeout=2):
                pass
        assert 2 <= time.monotonic() - started < 2 + 10
        assert isinstance(info.value, TimeoutError)
        assert "no free slot for a Chrome session within 2 s" in str(info.value)
        assert "session_timeout" in str(info.value)
        queue = json.loads(urllib.request.urlopen(f"{url}/se/grid/newsessionqueue/queue").read())
        assert len(queue["value"]) == 1  # the request given up on is still queued
    # The slots free up; the grid turns the queued request into a session, and cdpkit
    # deletes it: no slot stays held by a session nobody uses.
    await eventually(
        lambda: "created after its request was given up" in caplog.text, 60,
        "cdpkit to delete the late session",
    )
    await eventually(lambda: busy_slots(url) == 0, 30, "every slot to be free")


async def test_grid_errors_say_what_went_wrong(standalone_grid: str, site: FixtureServer) -> None:
    with pytest.raises(cdpkit.GridError, match="is this a Selenium Grid 4 URL"):
        async with cdpkit.grid(site.url("/")):
            pass
    if NODE_ARGS:  # as root, Chrome without --no-sandbox exits at once: the error says why
        with pytest.raises(cdpkit.GridError) as info:
            async with cdpkit.grid(standalone_grid):
                pass
        assert "--no-sandbox" in str(info.value) and "Chrome" in str(info.value)
    with pytest.raises(ValueError, match="Not a Selenium Grid URL"):
        cdpkit.grid("ws://127.0.0.1:4444")
    assert await busy(standalone_grid) == 0


async def test_a_pool_leases_its_browsers_from_the_grid_and_replaces_a_dead_one(
    hub_and_two_nodes: str, site: FixtureServer
) -> None:
    url = hub_and_two_nodes
    async with cdpkit.pool(size=2, grid=url, grid_options={"args": NODE_ARGS}) as pool:
        seen_browsers: set[int] = set()

        async def job(n: int) -> str:
            async with pool.page() as page:
                seen_browsers.add(id(page.browser))
                await tools.navigate(page, site.url("/grid/cookie" if n % 2 else "/grid/page.html"))
                return str(await tools.evaluate(page, "document.cookie"))

        cookies = await asyncio.gather(*(job(n) for n in range(6)))
        assert cookies == ["", "who=first"] * 3  # each page in its own context
        assert pool.launches == 2 and len(seen_browsers) == 2
        assert await busy(url) == 2

        # A session whose browser died is replaced by a new lease.
        async with pool.page() as page:
            doomed = page.browser
        with contextlib.suppress(cdpkit.CDPError):
            await doomed.send(cdp.browser.crash(), timeout=5)
        await eventually(lambda: doomed.closed, 30, "the crashed browser's connection to close")
        results = await asyncio.gather(*(job(n) for n in range(4)))
        assert results == ["", "who=first"] * 2
        # The dead session is deleted and a new one leased in its place.
        await eventually(lambda: pool.launches == 3 and busy_slots(url) == 2, 60,
                         "a replacement session")
    await eventually(lambda: busy_slots(url) == 0, 30, "every grid session to be deleted")


def test_pool_with_a_grid_refuses_launch_options() -> None:
    with pytest.raises(ValueError, match="grid_options"):
        cdpkit.pool(grid="http://127.0.0.1:4444", headless=False)


async def test_a_killed_grid_browser_fails_calls_with_the_grids_reason(standalone_grid: str) -> None:
    # The grid's CDP proxy keeps the WebSocket open when Chrome dies; cdpkit notices anyway.
    session = cdpkit.grid(standalone_grid, args=NODE_ARGS)
    async with session as browser:
        page = await browser.new_page()
        pid = session.capabilities["goog:processID"]  # Chrome, started by our grid process
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(cdpkit.ConnectionClosedError) as info:
            await page.send(cdp.runtime.evaluate("new Promise(() => {})", await_promise=True),
                            timeout=120)
        assert time.monotonic() - started < 30  # not the 120 s timeout
        assert "grid session's browser is gone" in str(info.value)
        assert "invalid session id" in str(info.value)
        assert browser.closed
    assert await busy(standalone_grid) == 0


async def test_a_pool_larger_than_the_grid_reuses_released_sessions_instead_of_stalling(
    standalone_grid: str, site: FixtureServer
) -> None:
    url = standalone_grid  # two slots
    options = {"args": NODE_ARGS, "session_timeout": 120}
    started = time.monotonic()
    async with cdpkit.pool(size=3, grid=url, grid_options=options) as pool:

        async def job(n: int) -> int:
            async with pool.page() as page:
                await tools.navigate(page, site.url("/grid/page.html"))
                return n

        assert await asyncio.gather(*(job(n) for n in range(6))) == list(range(6))
        assert pool.launches == 2  # the third request is still queued at the grid
    assert time.monotonic() - started < 60  # not the 120 s session_timeout
    # The queued request becomes a session once the pool's are deleted; cdpkit deletes it.
    # (Slots can read free for a moment before the grid hands the queued request one.)
    await eventually(
        lambda: queued_requests(url) == 0 and busy_slots(url) == 0,
        60,
        "the queue to empty and every slot to be free",
    )
    await asyncio.sleep(3)
    # A session left behind would hold its slot for the 120 s session_timeout.
    await eventually(lambda: busy_slots(url) == 0, 30, "no session to be left behind")


async def test_closing_a_grid_browser_while_another_waits_in_the_queue_leaves_no_stray_error(
    standalone_grid: str,
) -> None:
    """Both slots taken, a third grid() queues; closing one browser lets it in. Nothing
    cdpkit started in the background may end with an error nobody read."""
    import gc

    loop = asyncio.get_running_loop()
    strays: list[dict[str, object]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: strays.append(context))
    try:
        first = await cdpkit.grid(standalone_grid, args=NODE_ARGS)
        second = await cdpkit.grid(standalone_grid, args=NODE_ARGS)
        await first.new_page()
        queued = asyncio.ensure_future(cdpkit.grid(standalone_grid, args=NODE_ARGS).__aenter__())
        await asyncio.sleep(1)
        assert not queued.done()  # waiting in the grid's queue
        await first.close()
        third = await asyncio.wait_for(queued, 60)
        page = await third.new_page()
        assert (await page.send(cdp.runtime.evaluate("6 * 7"))).result.value == 42
        await asyncio.gather(second.close(), third.close())
        await asyncio.sleep(0.5)
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    assert strays == []
    assert await busy(standalone_grid) == 0
