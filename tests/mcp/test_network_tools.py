"""browser_network_requests, browser_network_request and browser_performance_trace over
stdio with the MCP client SDK, against pages served on 127.0.0.1."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.network_pages import DATA, DEAD_PORT, IMAGE, install
from tests.server import FixtureServer

from .conftest import McpSession, text_of


async def _load_network_page(mcp: McpSession, server: FixtureServer) -> str:
    install(server)
    navigated = await mcp.call("browser_navigate", {"url": server.url("/net/page")})
    assert not navigated.is_error, text_of(navigated)
    waited = await mcp.call("browser_wait_for", {"text": "done"})
    assert not waited.is_error, text_of(waited)
    for _ in range(100):  # until the six requests have ended
        listed = text_of(await mcp.call("browser_network_requests"))
        if "(loading)" not in listed and "(pending)" not in listed and listed.startswith("6 "):
            return listed
    raise AssertionError(listed)


async def test_requests_since_the_navigation_one_line_each(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    listed = await _load_network_page(mcp_stdio, server)
    lines = listed.splitlines()
    assert lines[0] == "6 requests:"
    # The navigation's own document request is listed: the server recorded from the start.
    assert re.fullmatch(
        rf"\[\S+\] GET {re.escape(server.url('/net/page'))} -> 200 Document text/html \d+ B \d+ ms",
        lines[1],
    )
    assert any(
        re.fullmatch(rf"\[\S+\] GET {re.escape(server.url('/net/data.json'))} -> 200 Fetch application/json .*", line)
        for line in lines
    )
    failed = text_of(await mcp_stdio.call("browser_network_requests", {"failed_only": True}))
    assert failed.startswith("3 requests:")
    assert f"http://127.0.0.1:{DEAD_PORT}/refused.json -> FAILED net::ERR_CONNECTION_REFUSED" in failed
    images = text_of(
        await mcp_stdio.call("browser_network_requests", {"resource_types": ["image"], "url_pattern": "*.png"})
    )
    assert images.startswith("1 requests:") and "/net/pic.png -> 200 Image image/png" in images


async def test_one_request_with_its_json_body_and_an_image_saved(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    listed = await _load_network_page(mcp_stdio, server)
    ids = {line.split(" ")[2]: line.split("]")[0][1:] for line in listed.splitlines()[1:]}
    result = await mcp_stdio.call("browser_network_request", {"id": ids[server.url("/net/data.json")]})
    assert not result.is_error, text_of(result)
    details = json.loads(text_of(result).split("\n\n")[0])
    assert json.loads(details["body"]) == DATA
    assert details["response_headers"]["Content-Type"] == "application/json"
    assert details["request"]["status"] == 200
    cut = json.loads(
        text_of(
            await mcp_stdio.call(
                "browser_network_request", {"id": ids[server.url("/net/data.json")], "max_body_chars": 10}
            )
        ).split("\n\n")[0]
    )
    assert len(cut["body"]) == 10 and "max_body_chars" in cut["body_note"]
    picture = json.loads(
        text_of(await mcp_stdio.call("browser_network_request", {"id": ids[server.url("/net/pic.png")]})).split("\n\n")[0]
    )
    saved = Path(picture["body_path"])
    assert saved.parent == mcp_stdio.downloads  # type: ignore[attr-defined]
    assert saved.read_bytes() == IMAGE
    unknown = await mcp_stdio.call("browser_network_request", {"id": "no-such-id"})
    assert unknown.is_error and "browser_network_requests" in text_of(unknown)


async def test_performance_trace_saves_the_file_and_reports_vitals(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    install(server)
    await mcp_stdio.call("browser_navigate", {"url": server.url("/net/lcp")})
    result = await mcp_stdio.call("browser_performance_trace", {"filename": "lcp.json"})
    assert not result.is_error, text_of(result)
    report = json.loads(text_of(result).split("\n\n")[0])
    assert Path(report["path"]) == mcp_stdio.downloads / "lcp.json"  # type: ignore[attr-defined]
    assert "traceEvents" in json.loads(Path(report["path"]).read_text())
    assert report["lcp_ms"] > 0 and report["inp_ms"] is None
    assert report["long_tasks"][0]["duration_ms"] >= 100
