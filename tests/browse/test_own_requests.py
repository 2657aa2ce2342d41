"""browse's tier 1 and its robots.txt are requests cdpkit makes itself: under a check
(:func:`cdpkit._browser.own_requests.checked_by`, which the MCP server installs with its URL
policy) each hop is judged before it is sent, a redirect's target included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import BrowseError
from cdpkit._browser.own_requests import checked_by
from tests.server import FixtureServer, start_server

PAGE = "<title>own page</title><main><h1>Own page</h1>" + "<p>Words of the page itself.</p>" * 20 + "</main>"


@pytest.fixture
def origin_a(other_server: FixtureServer) -> Iterator[FixtureServer]:
    """A server of its own (its robots.txt redirects to ``other_server``)."""
    server = start_server()
    server.route("/robots.txt", lambda h: h.reply(302, "", headers={"Location": other_server.url("/robots-hop.txt")}))
    server.route("/own/page.html", lambda h: h.reply(200, PAGE))
    server.route("/own/away", lambda h: h.reply(302, "", headers={"Location": other_server.url("/own/b.html")}))
    yield server
    server.stop()


def _refusing(origin: str) -> cdpkit._browser.own_requests.Refusal:
    return lambda url: "that origin is refused" if url.startswith(origin) else None


async def test_robots_txt_redirected_to_a_refused_origin_is_never_requested(
    origin_a: FixtureServer, other_server: FixtureServer, config_file: Path
) -> None:
    config_file.write_text("[privacy]\nrespect_robots_txt = true\n")
    with checked_by(_refusing(other_server.origin)):
        result = await cdpkit.browse(origin_a.url("/own/page.html"), max_tier=1)
    assert result.title == "own page"  # an unreadable robots.txt allows everything
    assert "/robots-hop.txt" not in other_server.requests


async def test_a_tier_1_redirect_to_a_refused_origin_is_never_requested(
    origin_a: FixtureServer, other_server: FixtureServer, config_file: Path
) -> None:
    with checked_by(_refusing(other_server.origin)), pytest.raises(BrowseError) as caught:
        await cdpkit.browse(origin_a.url("/own/away"), max_tier=1)
    assert caught.value.code == "network.blocked"
    assert f"redirected to {other_server.url('/own/b.html')}, which is blocked" in str(caught.value)
    assert "/own/b.html" not in other_server.requests
    # Without a check, the same redirect is followed (nothing else changed).
    with pytest.raises(BrowseError):
        await cdpkit.browse(origin_a.url("/own/away"), max_tier=1)  # B has no /own/b.html: 404
    assert "/own/b.html" in other_server.requests
