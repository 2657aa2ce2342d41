"""browser_download over stdio with the MCP client SDK: the real size and type from any
page, and an error result (and no file) for a body cut short (issue 12)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.server import DOWNLOADS, FixtureServer

from .conftest import McpSession, text_of


def saved_files(session: McpSession) -> list[str]:
    downloads: Path = session.downloads  # type: ignore[attr-defined]
    return sorted(p.name for p in downloads.iterdir()) if downloads.exists() else []


async def test_download_from_the_blank_start_page_reports_the_real_size(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    body, content_type = DOWNLOADS["/dl/report.pdf"]
    # The first call: the browser starts on about:blank.
    result = await mcp_stdio.call("browser_download", {"url": server.url("/dl/report.pdf")})
    assert not result.is_error, text_of(result)
    info = json.loads(result.content[0].text)
    assert info["size"] == len(body)
    assert info["mime_type"] == content_type
    assert re.fullmatch(r"\d{13}\.pdf", info["filename"])  # the MCP tool keeps timestamp names
    assert Path(info["path"]).read_bytes() == body


async def test_download_from_a_page_of_another_origin(
    mcp_stdio: McpSession, server: FixtureServer, other_server: FixtureServer
) -> None:
    navigated = await mcp_stdio.call("browser_navigate", {"url": other_server.url("/status?code=200")})
    assert not navigated.is_error, text_of(navigated)
    for path in ("/dl/table.csv", "/dl/archive.zip", "/dl/data.json"):
        body, content_type = DOWNLOADS[path]
        result = await mcp_stdio.call("browser_download", {"url": server.url(path)})
        assert not result.is_error, text_of(result)
        info = json.loads(result.content[0].text)
        assert (info["size"], info["mime_type"]) == (len(body), content_type)
        assert Path(info["path"]).read_bytes() == body


async def test_cut_body_is_an_error_result_and_leaves_no_file(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    before = saved_files(mcp_stdio)
    for resource, reason in (
        ("/dl/chunked?cut=1", "before the end of the body"),
        ("/dl/short", "after 307200 of the 407200 bytes the server announced"),
    ):
        url = server.url(resource)
        result = await mcp_stdio.call("browser_download", {"url": url})
        assert result.is_error, text_of(result)
        assert url in text_of(result) and reason in text_of(result)
    assert saved_files(mcp_stdio) == before  # neither a file nor a .part
