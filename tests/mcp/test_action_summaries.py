"""What the MCP server answers after an action (a few lines on what changed, not a whole
snapshot), ``--snapshot-after-action``, and ``browser_snapshot``'s budget, scope and diff,
driven through the ``mcp`` client SDK over stdio against a real headless Chromium."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from tests.server import FixtureServer

from .conftest import McpSession, text_of

BIG_ITEMS = 700


def index_of(snapshot: str, role: str, name: str) -> int:
    match = re.search(rf"\[(\d+)\] {role} \"{re.escape(name)}\"", snapshot)
    assert match, f"no {role} {name!r} in:\n{snapshot}"
    return int(match.group(1))


@pytest.fixture(scope="module")
def site(server: FixtureServer) -> FixtureServer:
    def big(handler: object) -> None:
        items = "".join(f"<li><a href='#i{i}'>Item number {i} of the list</a></li>"
                        for i in range(BIG_ITEMS))
        body = (
            "<!doctype html><title>Big</title><h1>Big page</h1>"
            "<nav aria-label='Top'><a href='#a'>First</a></nav>"
            f"<ul aria-label='Items'>{items}</ul><footer><a href='#end'>The end</a></footer>"
        )
        handler.reply(200, body)  # type: ignore[attr-defined]

    server.route("/mcp/big.html", big)
    return server


@pytest.fixture(scope="module")
async def mcp(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpSession]:
    session = McpSession(["--downloads", str(tmp_path_factory.mktemp("downloads"))])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


async def economy(mcp: McpSession, site: FixtureServer) -> str:
    await mcp.call("browser_navigate", {"url": site.url("/snapshot/economy.html")})
    return text_of(await mcp.call("browser_snapshot"))


# -- browser_snapshot -------------------------------------------------------------------------


async def test_snapshot_has_a_default_budget_and_a_hint_that_shows_the_cut(
    mcp: McpSession, site: FixtureServer
) -> None:
    await mcp.call("browser_navigate", {"url": site.url("/mcp/big.html")})
    unlimited = text_of(await mcp.call("browser_snapshot", {"max_chars": None}))
    assert len(unlimited) > 20_000
    result = await mcp.call("browser_snapshot")
    outline = result.content[0].text
    assert len(outline) <= 20_000
    assert "The end" in outline  # the footer after the cut list is still listed
    match = re.search(
        r"\[(\d+)\] list \"Items\".* … \((\d+) more lines cut; browser_snapshot\(index=(\d+)\)",
        outline,
    )
    assert match, outline[-2000:]
    assert "were cut to fit max_chars" in text_of(result)
    scoped = text_of(await mcp.call("browser_snapshot", {"index": int(match.group(1)),
                                                          "max_chars": None}))
    assert scoped.splitlines()[0].startswith(f"[{match.group(1)}] list \"Items\"")
    assert "Item number 699 of the list" in scoped
    small = text_of(await mcp.call("browser_snapshot", {"max_chars": 300}))
    assert len(small.split("\n(")[0]) <= 300


async def test_snapshot_scope_and_diff_through_mcp(mcp: McpSession, site: FixtureServer) -> None:
    outline = await economy(mcp, site)
    save = index_of(outline, "button", "Save")
    by_selector = text_of(await mcp.call("browser_snapshot", {"selector": "nav"}))
    assert by_selector.splitlines()[0].startswith("[") and "navigation \"Main\"" in by_selector
    assert text_of(await mcp.call("browser_snapshot", {"diff": True})) == "unchanged"
    await mcp.call("browser_click", {"selector": "#rename"})
    changes = text_of(await mcp.call("browser_snapshot", {"diff": True}))
    assert f'~ [{save}] button "Saved"' in changes


# -- after an action --------------------------------------------------------------------------


async def test_action_that_changes_nothing_says_so_in_one_line(
    mcp: McpSession, site: FixtureServer
) -> None:
    await economy(mcp, site)
    result = text_of(await mcp.call("browser_hover", {"selector": "h1"}))
    assert result == "Done; nothing visible changed."


async def test_action_lists_the_changed_lines_not_a_whole_snapshot(
    mcp: McpSession, site: FixtureServer
) -> None:
    outline = await economy(mcp, site)
    save = index_of(outline, "button", "Save")
    result = text_of(await mcp.call("browser_click", {"selector": "#rename"}))
    assert result.startswith("Done.\nChanges since your last browser_snapshot:")
    assert f'~ [{save}] button "Saved"' in result
    assert len(result.splitlines()) <= 5
    assert "Comment number" not in result  # not the whole outline


async def test_click_that_navigates_says_where_the_page_went(
    mcp: McpSession, site: FixtureServer
) -> None:
    await economy(mcp, site)
    result = text_of(await mcp.call("browser_click", {"selector": "#next"}))
    assert re.search(
        r"The page is now http://127\.0\.0\.1:\d+/snapshot/child\.html \(was "
        r"http://127\.0\.0\.1:\d+/snapshot/economy\.html\); title 'Child frame'\.",
        result,
    ), result


async def test_title_change_dialog_and_console_error_are_reported(
    mcp: McpSession, site: FixtureServer
) -> None:
    await economy(mcp, site)
    retitled = text_of(await mcp.call("browser_click", {"selector": "#retitle"}))
    assert "The title changed to 'Retitled' (was 'Economy')." in retitled
    asked = text_of(await mcp.call("browser_click", {"selector": "#ask"}))
    assert "confirm dialog ('Really?')" in asked and "dismissed" in asked
    failed = text_of(await mcp.call("browser_click", {"selector": "#fail"}))
    assert "1 new console error:" in failed
    assert "boom in handler" in failed


async def test_click_that_starts_a_download_says_so(mcp: McpSession, site: FixtureServer) -> None:
    await economy(mcp, site)
    result = text_of(await mcp.call("browser_click", {"selector": "#file"}))
    assert "A download started: report.txt from http://127.0.0.1:" in result, result
    # The server is still serving.
    assert "Economy" in text_of(await mcp.call("browser_get_page_metadata"))


@pytest.mark.parametrize("entry", [("-m", "cdpkit.mcp_server"), ("-m", "cdpkit", "mcp")])
async def test_snapshot_after_action_returns_the_full_snapshot(
    site: FixtureServer, tmp_path_factory: pytest.TempPathFactory, entry: tuple[str, ...]
) -> None:
    session = McpSession(
        ["--snapshot-after-action", "--downloads", str(tmp_path_factory.mktemp("downloads"))],
        entry=entry,
    )
    await session.start()
    try:
        await session.call("browser_navigate", {"url": site.url("/snapshot/economy.html")})
        result = text_of(await session.call("browser_click", {"selector": "#rename"}))
    finally:
        await session.stop()
    assert "Snapshot after the action:" in result
    assert re.search(r'\[\d+\] button "Saved"', result)
    assert "Comment number 40" in result
