"""Tab tools against a real headless Chromium: list, open, switch, close."""

from __future__ import annotations

from typing import Any

import pytest

import cdpkit
from cdpkit.tools.navigation import navigate
from cdpkit.tools.tabs import active_tab, close_tab, list_tabs, new_tab, switch_tab
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def tab_of(tabs: list[Any], tab_id: str) -> Any:
    matches = [t for t in tabs if t.id == tab_id]
    assert len(matches) == 1, (tab_id, tabs)
    return matches[0]


async def test_new_tab_is_listed_with_title_url_and_active(
    browser: cdpkit.Browser, page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    tab = await new_tab(browser, server.url("/snapshot/shadow.html"))
    assert tab.context is page.context  # opened next to the tab in use
    tabs = await list_tabs(browser)
    assert [t.id for t in tabs if t.active] == [tab.target_id]
    listed = tab_of(tabs, tab.target_id)
    assert (listed.title, listed.url) == ("Shadow DOM", server.url("/snapshot/shadow.html"))
    first = tab_of(tabs, page.target_id)
    assert (first.title, first.active) == ("Snapshot form", False)
    assert [t.id for t in tabs].index(page.target_id) < [t.id for t in tabs].index(tab.target_id)
    assert active_tab(browser) is tab
    assert await js(tab, "document.visibilityState") == "visible"
    assert await js(page, "document.visibilityState") == "hidden"


async def test_switch_tab_brings_it_to_front_and_makes_it_active(
    browser: cdpkit.Browser, page: cdpkit.Page
) -> None:
    second = await new_tab(browser)
    assert await js(page, "document.visibilityState") == "hidden"
    switched = await switch_tab(browser, page.target_id)
    assert switched is page
    assert await js(page, "document.visibilityState") == "visible"
    assert await js(second, "document.visibilityState") == "hidden"
    tabs = await list_tabs(browser)
    assert [t.id for t in tabs if t.active] == [page.target_id]
    assert active_tab(browser) is page


async def test_close_tab_removes_it_and_the_previous_tab_becomes_active(
    browser: cdpkit.Browser, page: cdpkit.Page
) -> None:
    await switch_tab(browser, page.target_id)
    second = await new_tab(browser)
    await close_tab(browser, second.target_id)
    assert second.closed
    tabs = await list_tabs(browser)
    assert second.target_id not in [t.id for t in tabs]
    assert [t.id for t in tabs if t.active] == [page.target_id]
    with pytest.raises(cdpkit.TargetClosedError):
        await second.call("Runtime.evaluate", {"expression": "1"})


async def test_unknown_or_closed_tab_id_is_a_clear_error(
    browser: cdpkit.Browser, page: cdpkit.Page
) -> None:
    with pytest.raises(ValueError, match=r"Unknown tab id 'nope'.*Open tabs: .*" + page.target_id):
        await switch_tab(browser, "nope")
    with pytest.raises(ValueError, match="Unknown tab id 'nope'"):
        await close_tab(browser, "nope")
    second = await new_tab(browser)
    await close_tab(browser, second.target_id)
    with pytest.raises(ValueError, match=f"Unknown tab id '{second.target_id}'"):
        await switch_tab(browser, second.target_id)


async def test_tabs_of_a_context_have_their_own_list_and_active_tab(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    async with await browser.new_context() as mine, await browser.new_context() as theirs:
        first = await new_tab(browser, server.url("/snapshot/form.html"), context=mine)
        other = await new_tab(browser, server.url("/snapshot/shadow.html"), context=theirs)
        assert first.context is mine and other.context is theirs
        second = await new_tab(browser, context=mine)
        # Another context's newer tab does not become this context's active tab.
        assert active_tab(browser, context=mine) is second
        assert active_tab(browser, context=theirs) is other
        await switch_tab(browser, first.target_id, context=mine)
        await new_tab(browser, context=theirs)
        assert active_tab(browser, context=mine) is first
        assert [t.id for t in await list_tabs(browser, context=mine)] == [
            first.target_id, second.target_id
        ]
        with pytest.raises(ValueError, match="Unknown tab id") as failure:
            await switch_tab(browser, other.target_id, context=mine)
        assert other.url not in str(failure.value)  # only this context's tabs are named
        with pytest.raises(ValueError, match="Unknown tab id"):
            await close_tab(browser, other.target_id, context=mine)
        await close_tab(browser, first.target_id, context=mine)
        assert active_tab(browser, context=mine) is second
