"""cdpkit without async: a script end to end on a real headless Chromium, events, the API
inside a running event loop, four threads on one browser, the browse engine and the pool,
recording, and the pytest plugin's sync fixtures."""

from __future__ import annotations

import asyncio
import concurrent.futures
import warnings
from pathlib import Path

import pytest

import cdpkit
import cdpkit.sync as sync
from cdpkit import cdp
from cdpkit.cdp.runtime import EvaluateResult
from tests.core.test_launch import group_alive
from tests.server import FixtureServer
from tests.sync.conftest import gone_within


def test_a_script_end_to_end_leaves_no_chrome(site: FixtureServer) -> None:
    with sync.launch() as browser:
        assert browser.process is not None
        pgid, profile = browser.process.pid, browser.process.user_data_dir
        assert browser.version.product.startswith(("HeadlessChrome/", "Chrome/"))
        with browser.new_context() as context:
            page = context.new_page(site.url("/sync/form"))
            assert page.context is context and page.browser is browser
            assert context.pages == [page] and page in browser.pages
            assert sync.tools.evaluate(page, "document.title") == "Sync form"
            outline = sync.tools.snapshot(page)
            assert 'button "Greet"' in outline.text
            sync.tools.type_text(page, "Ada", label="Name")
            sync.tools.click(page, role="button", name="Greet")
            answer = page.send(
                cdp.runtime.evaluate(
                    "document.querySelector('#out').textContent", return_by_value=True
                )
            )
            assert isinstance(answer, EvaluateResult)
            assert answer.result.value == "Hello Ada"
            png = sync.tools.screenshot(page)
            assert png.startswith(b"\x89PNG")
            # The async API's errors, as they are.
            with pytest.raises(cdpkit.ElementNotFoundError):
                sync.tools.click(page, selector="#missing", timeout=0.3)
            with pytest.raises(cdpkit.ProtocolError):
                page.call("No.suchMethod")
            with pytest.raises(cdpkit.NavigationError):
                sync.tools.navigate(page, "http://127.0.0.1:1/nothing")
        assert page.closed
    assert gone_within(pgid, 5), "Chrome outlived the with block"
    assert not profile.exists()


def test_the_browser_process_is_a_sync_twin_that_stops_chrome() -> None:
    # Its calls block and return; on the async object they gave un-awaited coroutines.
    with sync.launch() as browser:
        process = browser.process
        assert isinstance(process, sync.ChromeProcess) and process is browser.process
        assert process.wait_for_endpoint(5).startswith("ws://127.0.0.1:")
        pgid, profile = process.pid, process.user_data_dir
        assert not process.exited and process.describe_exit() == "Chrome is running"
        process.stop(grace=0)
        assert not group_alive(pgid) and not profile.exists()
        process.wait_for_exit()
        assert process.exited and process.describe_exit().startswith("Chrome exited")


@pytest.fixture(scope="module")
def browser() -> sync.Browser:  # type: ignore[misc]
    with sync.launch() as launched:
        yield launched


def test_events_listen_wait_for_and_expect(browser: sync.Browser, site: FixtureServer) -> None:
    page = browser.new_page(site.url("/sync/page-1"))
    with page.listen(cdp.runtime.ConsoleAPICalled) as events:
        page.send(cdp.runtime.enable())
        page.send(cdp.runtime.evaluate("console.log('one'); console.log('two')"))
        seen = []
        for event in events:
            seen.append(event.args[0].value)
            if len(seen) == 2:
                break
    assert seen == ["one", "two"]

    page.send(cdp.page.enable())
    with page.expect(cdp.page.LoadEventFired) as load:
        page.send(cdp.page.reload())
    assert load.value.timestamp > 0

    page.send(cdp.runtime.evaluate("setTimeout(() => console.log('later'), 300)"))
    later = page.wait_for(
        cdp.runtime.ConsoleAPICalled, lambda e: e.args[0].value == "later", timeout=5
    )
    assert later.type == "log"
    with pytest.raises(cdpkit.WaitTimeoutError):
        page.wait_for(cdp.page.LoadEventFired, timeout=0.2)
    page.close()


def test_the_api_inside_a_running_event_loop(browser: sync.Browser, site: FixtureServer) -> None:
    # As in a notebook cell, or a sync helper called from async code: no nest_asyncio.
    async def cell() -> str:
        page = browser.new_page(site.url("/sync/page-2"))
        text = sync.tools.visible_text(page)
        page.close()
        return text

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "Page number 2" in asyncio.run(cell())


def test_four_threads_on_one_browser_never_mix_answers(
    browser: sync.Browser, site: FixtureServer
) -> None:
    def worker(n: int) -> list[str]:
        page = browser.new_page(site.url(f"/sync/page-{n}"))
        try:
            return [
                page.send(cdp.runtime.evaluate("document.title", return_by_value=True)).result.value
                for _ in range(25)
            ]
        finally:
            page.close()

    with concurrent.futures.ThreadPoolExecutor(4) as threads:
        answers = list(threads.map(worker, range(4)))
    assert answers == [[f"page {n}"] * 25 for n in range(4)]


def test_browse_and_pool(site: FixtureServer) -> None:
    result = sync.browse(site.url("/sync/page-3"), max_tokens=800)
    assert isinstance(result, cdpkit.BrowseResult)
    assert "Page number 3" in (result.content or "")

    def scrape(pool: sync.Pool, n: int) -> str:
        with pool.page() as page:
            return sync.tools.scrape(
                page, site.url(f"/sync/page-{n}"), format="text", wait_for_ms=0
            ).title

    with sync.pool(max_size=2) as pool, concurrent.futures.ThreadPoolExecutor(4) as threads:
        titles = list(threads.map(lambda n: scrape(pool, n), range(4)))
        assert pool.workers <= 2
    assert titles == [f"page {n}" for n in range(4)]


def test_a_recording_sees_the_calls_of_its_thread(
    browser: sync.Browser, site: FixtureServer, tmp_path: Path
) -> None:
    page = browser.new_page(site.url("/sync/form"))
    with sync.record(page, tmp_path / "flow.py") as recording:
        sync.tools.type_text(page, "Ada", label="Name")
        sync.tools.click(page, role="button", name="Greet")
    script = recording.script
    assert 'label="Name"' in script and 'role="button", name="Greet"' in script
    assert (tmp_path / "flow.py").read_text() == script
    page.close()


def test_the_plugin_gives_sync_fixtures(sync_page: sync.Page, site: FixtureServer) -> None:
    sync.tools.navigate(sync_page, site.url("/sync/page-0"))
    assert sync.tools.evaluate(sync_page, "document.title") == "page 0"
