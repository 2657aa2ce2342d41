"""The requests cdpkit makes itself for an MCP tool (a download's direct request, the
page's fetch of each redirect hop, ``browse``'s tier 1, ``scrape``'s media probe) are held
to the URL policy hop by hop (issue [trust]): with ``--allowed-origins A``, ``A``
redirecting to ``B`` never makes anyone request ``B``."""

from __future__ import annotations

import urllib.parse
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server import FixtureServer, Handler

from .conftest import McpSession, text_of

CSP_PAGE = "/own/locked.html"  # the page cannot fetch: the download makes its own request


def _redirect(handler: Handler) -> None:
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
    handler.reply(302, "", headers={"Location": query["to"][0]})


@pytest.fixture
async def allowed_a(
    tmp_path: Path, server: FixtureServer
) -> AsyncIterator[McpSession]:
    server.route("/own/redirect", _redirect)
    server.route(
        CSP_PAGE,
        lambda h: h.reply(200, "<title>locked</title>", headers={"Content-Security-Policy": "connect-src 'none'"}),
    )
    session = McpSession(["--allowed-origins", server.origin, "--downloads", str(tmp_path)])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


def _via_a(a: FixtureServer, b: FixtureServer, path: str) -> str:
    return a.url("/own/redirect?to=" + urllib.parse.quote(b.url(path), safe=""))


async def test_a_download_redirected_to_another_origin_never_requests_it(
    allowed_a: McpSession, server: FixtureServer, other_server: FixtureServer, tmp_path: Path
) -> None:
    for page, tag in ((CSP_PAGE, "direct"), ("/mcp/index.html", "in-page")):
        await allowed_a.call("browser_navigate", {"url": server.url(page)})
        path = f"/dl/report.pdf?{tag}-{uuid.uuid4().hex}"
        result = await allowed_a.call("browser_download", {"url": _via_a(server, other_server, path)})
        text = text_of(result)
        assert result.is_error, (tag, text)
        assert f"redirected to {other_server.url(path)}, which is blocked" in text, text
        assert "not in --allowed-origins" in text
        assert path not in other_server.requests, tag  # B was never asked
    assert not [f for f in tmp_path.iterdir() if f.name.startswith("report")]


async def test_browse_and_scrape_redirected_to_another_origin_never_request_it(
    allowed_a: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    for tool, arguments in (
        ("browse", {"tier": 1}),
        ("browse", {}),
        ("get_links", {"max_tier": 1}),
        ("browser_scrape", {}),
    ):
        path = f"/own/b-{uuid.uuid4().hex}.html"
        result = await allowed_a.call(tool, {"url": _via_a(server, other_server, path), **arguments})
        text = text_of(result)
        assert result.is_error, (tool, text)
        assert "blocked" in text and "not in --allowed-origins" in text, (tool, text)
        assert path not in other_server.requests, (tool, arguments)  # B was never asked
