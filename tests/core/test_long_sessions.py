"""A long-lived browser or page keeps nothing per page or per navigation forever: what
cdpkit tracks stays bounded however many pages come and go, and however often a page
navigates."""

from __future__ import annotations

import asyncio

import cdpkit
from cdpkit import cdp
from cdpkit.page import CONSOLE_BUFFER_SIZE
from tests.server import FixtureServer


async def test_pages_opened_and_closed_leave_nothing_behind(browser: cdpkit.Browser) -> None:
    opened: set[str] = set()
    async with browser.listen("Target.targetDestroyed", raw=True) as destroyed:
        for _ in range(3):
            pages = [await browser.new_page() for _ in range(10)]
            opened |= {page.target_id for page in pages}
            await asyncio.gather(*(page.close() for page in pages))
        waiting = set(opened)
        async with asyncio.timeout(10):
            async for event in destroyed:  # Chrome's word that each target is gone
                waiting.discard(event.params["targetId"])
                if not waiting:
                    break
    assert not opened & browser._created_targets
    assert not opened & set(browser._pages)
    assert not opened & {page.target_id for page in browser.pages}
    sessions = browser._connection._sessions.values()
    assert not opened & {getattr(session, "target_id", None) for session in sessions}


def _page_structures(page: cdpkit.Page) -> dict[str, int]:
    return {
        "handlers": sum(len(handlers) for handlers in page._handlers.values()),
        "streams": sum(len(s) for s in (*page._streams.values(), *page._wild_streams.values())),
        "states": len(page._states),
        "pending": len(page._pending),
        "deadlines": len(page._deadlines),
        "console": len(page._console),
    }


async def test_many_navigations_keep_the_page_bounded(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    async def navigate(index: int) -> None:
        async with page.expect(cdp.page.LoadEventFired):
            await page.send(cdp.page.navigate(server.url(f"/status?code=200&n={index}")))

    await page.send(cdp.page.enable())
    for index in range(20):
        await navigate(index)
    early = _page_structures(page)
    for index in range(20, 100):  # anything kept per navigation would show 80 times over
        await navigate(index)
    late = _page_structures(page)
    assert late == early
    assert late["streams"] == 0 and late["pending"] == 0 and late["deadlines"] <= 1


async def test_a_console_flood_keeps_only_the_latest_entries(page: cdpkit.Page) -> None:
    flood = 5_000
    async with page.listen(cdp.runtime.ConsoleAPICalled, raw=True) as events:
        await page.send(
            cdp.runtime.evaluate(f"for (let i = 0; i < {flood}; i++) console.log('m', i)")
        )
        async with asyncio.timeout(30):
            received = 0
            async for _ in events:
                received += 1
                if received == flood:
                    break
    entries = page.console_entries()
    assert len(entries) == CONSOLE_BUFFER_SIZE <= 1_000  # a few MB, not one entry per message
    last = entries[-1][1]["args"][1]
    assert last.get("value") == flood - 1  # the newest kept, the oldest dropped


async def test_a_flood_read_after_the_command_that_logged_it_arrives_whole_and_in_order(
    page: cdpkit.Page,
) -> None:
    # The 10,000 events all arrive before the evaluate's answer, so they wait in the
    # stream (as the browser's text) while the program awaits the command.
    flood = 10_000
    async with page.listen(cdp.runtime.ConsoleAPICalled) as events:
        await page.send(
            cdp.runtime.evaluate(
                f"for (let i = 0; i < {flood}; i++) console.log('m', i, 'é\\u{{1F600}}')"
            )
        )
        assert len(events) == flood  # every one already received, none read yet
        async with asyncio.timeout(30):
            values = []
            async for event in events:
                assert event.args[2].value == "é\U0001f600"
                values.append(event.args[1].value)
                if len(values) == flood:
                    break
    assert values == list(range(flood))
    before = page.console_entries()
    after = page.console_entries()
    assert [entry[1]["args"][1]["value"] for entry in after] == list(range(flood - 1000, flood))
    # The same entries each time (the MCP server finds what is new by identity).
    assert all(a is b for a, b in zip(before, after, strict=True))
