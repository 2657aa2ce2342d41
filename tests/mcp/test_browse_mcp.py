"""The ``browse`` tools over MCP (issue 14): ``browse`` first in the list, then
``get_links``, ``get_forms``, ``session_list`` and ``session_close``, driven through the
official client SDK against a real server process and real pages on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cdpkit.mcp._tools import ServerOptions, build_tools
from tests.server import FixtureServer, closed_port

from .conftest import McpSession, browser_processes, text_of, wait_until_gone

BROWSE_TOOLS = ["browse", "get_links", "get_forms", "session_list", "session_close"]


def _content(text: str) -> str:
    """The content of a ``browse`` result: what follows the header's blank line."""
    _, blank, content = text.partition("\n\n")
    assert blank, text
    return content


def test_browse_comes_first_and_says_it_covers_most_needs() -> None:
    specs = build_tools(ServerOptions())
    assert [spec.name for spec in specs[:5]] == BROWSE_TOOLS
    browse = specs[0]
    assert "start here" in browse.description
    assert "browser_click" in browse.description  # where to go for interaction
    properties = browse.input_schema["properties"]
    assert {"url", "max_tokens", "keywords", "query", "format", "session"} <= set(properties)
    assert "engine" not in properties
    assert browse.input_schema["required"] == ["url"]
    assert properties["format"]["enum"] == ["markdown", "text", "json", "a11y", "links"]


@pytest.fixture(scope="module")
async def mcp(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpSession]:
    session = McpSession(["--downloads", str(tmp_path_factory.mktemp("mcp-browse"))])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()
        assert await wait_until_gone(session.marker) == []  # no Chrome left behind


async def test_tool_list_starts_with_browse(mcp: McpSession) -> None:
    listed = await mcp.client.list_tools()
    names = [tool.name for tool in listed.tools]
    assert names[:5] == BROWSE_TOOLS
    assert "browser_navigate" in names


async def test_a_static_page_within_a_token_budget_starts_no_browser(
    mcp: McpSession, server: FixtureServer
) -> None:
    url = server.url("/browse-surfaces/article.html")
    result = await mcp.call("browse", {"url": url, "max_tokens": 60})
    text = text_of(result)
    assert not result.is_error, text
    assert text.startswith("Title: The Port of Lisbon\n")
    assert f"URL: {url}, HTTP 200" in text
    assert "Loaded: tier 1 (HTTP only)" in text
    # The budget cut something, and the header says what (in the extraction's words).
    truncated = next(line for line in text.splitlines() if line.startswith("Truncated: "))
    assert "block" in truncated and truncated.endswith("more cuts"), truncated
    assert len(truncated) < 400  # the header stays short: only the first cuts are named
    content = _content(text)
    assert "Port of Lisbon" in content
    assert len(content) <= 60 * 4
    # Tier 1 is HTTP only: the server has not started its browser for it.
    assert browser_processes(mcp.marker) == []


async def test_a_javascript_page_runs_in_the_servers_one_browser(
    mcp: McpSession, server: FixtureServer
) -> None:
    result = await mcp.call("browse", {"url": server.url("/browse-surfaces/app.html")})
    text = text_of(result)
    assert not result.is_error, text
    assert "the ferry to Cacilhas leaves every fifteen minutes" in _content(text)
    assert "Loaded: tier 2" in text or "Loaded: tier 3" in text
    assert "went up because: " in text
    # The browser tools then use the same Chrome: one browser process, not two.
    navigated = await mcp.call(
        "browser_navigate", {"url": server.url("/browse-surfaces/article.html")}
    )
    assert not navigated.is_error, text_of(navigated)
    launched = [  # a launched browser's main process is the one with the debugging flag
        cmd for _, cmd in browser_processes(mcp.marker) if "--remote-debugging-" in cmd
    ]
    assert len(launched) == 1, launched


async def test_get_links_numbers_absolute_urls(mcp: McpSession, server: FixtureServer) -> None:
    result = await mcp.call("get_links", {"url": server.url("/browse-surfaces/article.html")})
    text = text_of(result)
    assert not result.is_error, text
    lines = text.splitlines()
    assert lines[0].endswith(f"links on {server.url('/browse-surfaces/article.html')}:")
    assert f"the ferries -> {server.url('/browse-surfaces/ferries.html')}" in text
    assert [line.split("]")[0] for line in lines[1:]] == ["[1", "[2"]
    assert "Elsewhere" not in text  # the site's navigation is not the page's content
    menu = await mcp.call(
        "get_links", {"url": server.url("/browse-surfaces/article.html"), "selectors": ["nav"]}
    )
    assert text_of(menu).splitlines()[1:] == [
        f"[1] The app -> {server.url('/browse-surfaces/app.html')}",
        "[2] Elsewhere -> https://example.org/elsewhere",
    ]


async def test_get_forms_lists_fields_with_labels(mcp: McpSession, server: FixtureServer) -> None:
    result = await mcp.call("get_forms", {"url": server.url("/browse-surfaces/article.html")})
    text = text_of(result)
    assert not result.is_error, text
    (form,) = json.loads(text)["forms"]
    assert form["action"] == server.url("/browse-surfaces/subscribe")
    assert form["method"].lower() == "post"
    fields = {field["name"]: field for field in form["fields"]}
    assert fields["email"]["type"] == "email"
    assert fields["email"]["label"] == "Your email"
    assert fields["email"]["required"] is True
    assert fields["frequency"]["value"] == "weekly"
    assert list(fields["frequency"]["options"]) == ["daily", "weekly"]


async def test_sessions_round_trip(mcp: McpSession, server: FixtureServer) -> None:
    url = server.url("/browse-surfaces/article.html")
    browsed = await mcp.call("browse", {"url": url, "session": "work", "max_tokens": 20})
    assert "Session: work" in text_of(browsed)
    assert json.loads(text_of(await mcp.call("session_list"))) == ["work"]
    closed = await mcp.call("session_close", {"name": "work"})
    assert not closed.is_error and text_of(closed) == "Session 'work' closed."
    assert json.loads(text_of(await mcp.call("session_list"))) == []
    again = await mcp.call("session_close", {"name": "work"})
    assert again.is_error
    assert text_of(again) == (
        "work: no open session named 'work' (open: none) [session.unknown] (session_list shows "
        "the open sessions; browse with session=NAME opens one)"
    )


async def test_errors_carry_the_code_and_the_suggestion(
    mcp: McpSession, server: FixtureServer
) -> None:
    missing = await mcp.call("browse", {"url": server.url("/browse-surfaces/nowhere.html")})
    assert missing.is_error
    assert "[http.404]" in text_of(missing)
    refused = await mcp.call("browse", {"url": f"http://127.0.0.1:{closed_port()}/", "max_tier": 1})
    text = text_of(refused)
    assert refused.is_error and "[network." in text
    assert "(" in text.split("]", 1)[1]  # the suggestion follows the code
    # The server's URL policy holds for browse too: no local files by default.
    local = await mcp.call("browse", {"url": "file:///etc/passwd"})
    assert local.is_error
    assert text_of(local).startswith(
        "Browsing file:///etc/passwd is blocked: file URLs are not allowed"
    )
    # And the server goes on.
    assert not (await mcp.call("session_list")).is_error


async def test_a_redirect_to_a_blocked_origin_shows_nothing_from_there(
    server: FixtureServer, other_server: FixtureServer, tmp_path: Path
) -> None:
    def redirect(handler: object) -> None:
        handler.send_response(302)  # type: ignore[attr-defined]
        handler.send_header("Location", other_server.url("/browse-surfaces/article.html"))  # type: ignore[attr-defined]
        handler.send_header("Content-Length", "0")  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]

    server.route("/browse-surfaces/away", redirect)
    session = await McpSession(
        ["--downloads", str(tmp_path), "--blocked-origins", other_server.origin]
    ).start()
    try:
        direct = await session.call(
            "browse", {"url": other_server.url("/browse-surfaces/article.html")}
        )
        assert direct.is_error
        assert text_of(direct).startswith(
            f"Browsing {other_server.url('/browse-surfaces/article.html')} is blocked: origin"
        )
        asked = other_server.requests.count("/browse-surfaces/article.html")
        away = await session.call("browse", {"url": server.url("/browse-surfaces/away")})
        text = text_of(away)
        assert away.is_error, text
        # The redirect's target is judged before tier 1 follows it: never requested.
        assert (
            f"was redirected to {other_server.url('/browse-surfaces/article.html')}, which is "
            f"blocked: origin" in text
        ), text
        assert "nothing was requested from there" in text
        assert other_server.requests.count("/browse-surfaces/article.html") == asked
        assert "Port of Lisbon" not in text
    finally:
        await session.stop()


async def test_browse_sends_the_servers_browser_settings_at_tier_1(
    server: FixtureServer, tmp_path: Path
) -> None:
    session = McpSession(["--downloads", str(tmp_path), "--user-agent", "McpAgent/1.0", "--locale", "pt-BR"])
    await session.start()
    try:
        result = await session.call("browse", {"url": server.url("/echo/headers"), "tier": 1})
        text = text_of(result)
        assert not result.is_error, text
        headers = json.loads(_content(text))
        assert headers["User-Agent"] == "McpAgent/1.0"
        assert headers["Accept-Language"] == "pt-BR,pt;q=0.9"
    finally:
        await session.stop()
