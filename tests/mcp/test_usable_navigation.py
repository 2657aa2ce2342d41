"""Over MCP, a page whose third-party resources never answer is a page, not a timeout:
browser_navigate and browser_tabs new end when the page is usable and say what still loads."""

from __future__ import annotations

import json
import time
import urllib.parse

from tests.server import FixtureServer

from .conftest import McpSession, text_of


def _tracked_page(server: FixtureServer, tracker_server: FixtureServer) -> tuple[str, str]:
    tracker = tracker_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    return server.url("/tracked?tracker=" + urllib.parse.quote(tracker, safe="")), tracker


async def test_navigate_to_a_page_with_a_hanging_tracker_succeeds_and_says_what_is_pending(
    mcp_stdio: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    url, tracker = _tracked_page(server, other_server)
    result = await mcp_stdio.call("browser_navigate", {"url": url})
    text = text_of(result)
    assert not result.is_error, text
    assert '"title": "Tracked article"' in text
    assert "2 request(s) still loading" in text
    assert f"- {tracker}&kind=pixel" in text and f"- {tracker}&kind=script" in text
    # Usable is the answer: the tracker's load is not waited out after it.
    assert "still loading after" not in text

    snapshot = text_of(await mcp_stdio.call("browser_snapshot"))
    assert 'heading "Tracked article"' in snapshot
    assert "The story itself." in snapshot

    # The load event can still be asked for: it never comes.
    url, _ = _tracked_page(server, other_server)
    result = await mcp_stdio.call(
        "browser_navigate", {"url": url, "wait_until": "load", "timeout": 2}
    )
    assert result.is_error and "its load event" in text_of(result)

    # A page whose resources all answer: nothing said to be pending.
    result = await mcp_stdio.call("browser_navigate", {"url": server.url("/input/keys.html")})
    assert not result.is_error, text_of(result)
    assert "still loading" not in text_of(result)
    assert json.loads(text_of(result).split("\n\n")[0])["title"] == "Keys"


async def test_a_new_tab_with_a_hanging_tracker_opens(
    mcp_stdio: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    url, _ = _tracked_page(server, other_server)
    result = await mcp_stdio.call("browser_tabs", {"action": "new", "url": url})
    assert not result.is_error, text_of(result)
    assert "Tracked article" in text_of(result)
    assert 'heading "Tracked article"' in text_of(await mcp_stdio.call("browser_snapshot"))


async def test_navigate_to_a_document_that_never_answers_times_out(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    url = server.url("/slow?s=4")
    result = await mcp_stdio.call("browser_navigate", {"url": url, "timeout": 1})
    assert result.is_error
    assert f"the navigation to {url} to reach DOMContentLoaded" in text_of(result)


async def test_navigate_to_a_page_whose_parser_waits_on_a_hanging_script_succeeds(
    mcp_stdio: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    tracker = other_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    url = server.url("/tracked-blocking?tracker=" + urllib.parse.quote(tracker, safe=""))
    result = await mcp_stdio.call("browser_navigate", {"url": url})
    text = text_of(result)
    assert not result.is_error, text
    assert '"title": "Blocked article"' in text
    assert f"- {tracker}&kind=blocking" in text
    snapshot = text_of(await mcp_stdio.call("browser_snapshot"))
    assert "The story itself." in snapshot and "After the ad." not in snapshot


async def test_reload_of_a_page_whose_parser_waits_on_a_hanging_script_succeeds(
    mcp_stdio: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    # browser_reload waits until usable too: with the load event as its default it would
    # wait out its timeout on the page browser_navigate just showed.
    tracker = other_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    url = server.url("/tracked-blocking?tracker=" + urllib.parse.quote(tracker, safe=""))
    assert not (await mcp_stdio.call("browser_navigate", {"url": url})).is_error
    started = time.monotonic()
    result = await mcp_stdio.call("browser_reload", {"timeout": 20})
    text = text_of(result)
    assert not result.is_error, text
    assert time.monotonic() - started < 15
    assert '"title": "Blocked article"' in text
    assert f"- {tracker}&kind=blocking" in text
