"""URLs spelled to slip past the MCP server's URL policy (issue [trust]): the server reads
every URL as the browser will (the WHATWG URL standard) before judging it, and hands the
browser the URL it judged. Checked in a real browser through the official MCP SDK: the
javascript never runs, file content never comes back, a blocked origin is never asked."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server import FixtureServer

from .conftest import McpSession, text_of

# Spellings the browser reads as "javascript:" (C0 controls and spaces stripped at both
# ends, tab and newline removed anywhere, the scheme case-insensitive).
JAVASCRIPT_SPELLINGS = [
    "\u0001javascript:",
    "java\tscript:",
    "java\nscript:",
    "javascript\r:",
    "\u0000javascript:",
    " JavaScript:",
    "\u001fjavascript:",
]


@pytest.fixture
async def mcp_js(tmp_path: Path) -> AsyncIterator[McpSession]:
    session = McpSession(["--allow-js", "--downloads", str(tmp_path)])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


async def test_javascript_urls_never_run_however_they_are_spelled(
    mcp_js: McpSession, server: FixtureServer
) -> None:
    await mcp_js.call("browser_navigate", {"url": server.url("/mcp/index.html")})
    for number, spelling in enumerate(JAVASCRIPT_SPELLINGS):
        hit = f"/js-ran-{uuid.uuid4().hex}"
        code = f"window.pwned={number + 1};fetch('{server.url(hit)}');void 0"
        for tool, arguments in (
            ("browser_navigate", {"url": spelling + code}),
            ("browser_tabs", {"action": "new", "url": spelling + code}),
            ("browser_scrape", {"url": spelling + code}),
        ):
            result = await mcp_js.call(tool, arguments)
            assert result.is_error, (tool, spelling, text_of(result))
            assert "javascript: URLs run code" in text_of(result), (tool, spelling)
        # Nothing ran: not in the page, not in a new tab.
        pwned = await mcp_js.call("browser_execute_js", {"expression": "window.pwned ?? null"})
        assert json.loads(text_of(pwned)) is None, spelling
        assert not [path for path in server.requests if path.startswith(hit)], spelling
    tabs = json.loads(text_of(await mcp_js.call("browser_tabs", {"action": "list"})))
    assert len(tabs) == 1, tabs


async def test_file_urls_are_refused_before_anything_loads_them(
    mcp_js: McpSession, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the-local-secret-4711")
    for spelling in ("\u0001file://", "\u0000file://", " FILE://", "fi\tle://", "file\n://"):
        url = f"{spelling}{secret}"
        for tool, arguments in (
            ("browse", {"url": url}),
            ("browse", {"url": url, "tier": 3}),
            ("browser_navigate", {"url": url}),
            ("browser_scrape", {"url": url}),
            ("browser_tabs", {"action": "new", "url": url}),
            ("browser_download", {"url": url}),
        ):
            result = await mcp_js.call(tool, arguments)
            text = text_of(result)
            assert result.is_error, (tool, spelling, text)
            assert "file URLs are not allowed" in text, (tool, spelling, text)
            assert "the-local-secret-4711" not in text
    # No tab ever showed the file.
    tabs = json.loads(text_of(await mcp_js.call("browser_tabs", {"action": "list"})))
    assert all(not tab["url"].startswith("file:") for tab in tabs), tabs


def _bypasses(origin: str) -> list[str]:
    """Spellings of ``origin`` (``http://127.0.0.1:PORT``) a string comparison misses."""
    port = origin.rsplit(":", 1)[1]
    return [
        f"http://127.1:{port}",
        f"HTTP://127.0.0.1:{port}",
        f"http://user@127.0.0.1:{port}",
        f"http://user:pw@127.0.0.1:{port}",
        f"http:\\\\127.0.0.1:{port}",
        f"http:127.0.0.1:{port}",
        f"http://127.0.0.1.:{port}",
        f"http://0x7f.1:{port}",
        f"http://2130706433:{port}",
        f"http://0177.0.0.1:{port}",
        f"http://%31%32%37.0.0.1:{port}",
        f"\u0001http://127.0.0.1:{port}",
        f" http://127.0.0.1:{port}",
        f"ht\ttp://127.0.0.1:{port}",
        f"http://127.0.0.1:{port}\\",
    ]


async def _never_reaches(
    session: McpSession, target: FixtureServer, tag: str, tools: tuple[str, ...]
) -> None:
    for number, spelling in enumerate(_bypasses(target.origin)):
        for tool in tools:
            path = f"/{tag}-{tool}-{number}.txt"
            arguments: dict[str, object] = {"url": spelling + path}
            if tool == "browser_tabs":
                arguments["action"] = "new"
            result = await session.call(tool, arguments)
            assert result.is_error, (tool, spelling, text_of(result))
            assert "blocked" in text_of(result), (tool, spelling, text_of(result))
            assert path not in "".join(target.requests), (tool, spelling)


_TOOLS = ("browser_navigate", "browser_tabs", "browser_download", "browser_scrape", "browse")


async def test_blocked_origins_hold_however_the_origin_is_spelled(
    tmp_path: Path, server: FixtureServer, other_server: FixtureServer
) -> None:
    session = McpSession(
        ["--blocked-origins", other_server.origin, "--downloads", str(tmp_path)]
    )
    await session.start()
    try:
        await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
        await _never_reaches(session, other_server, "blocked", _TOOLS)
    finally:
        await session.stop()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("blocked")]


async def test_allowed_origins_hold_however_another_origin_is_spelled(
    tmp_path: Path, server: FixtureServer, other_server: FixtureServer
) -> None:
    session = McpSession(["--allowed-origins", server.origin, "--downloads", str(tmp_path)])
    await session.start()
    try:
        await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
        await _never_reaches(session, other_server, "allowed", _TOOLS)
        # The allowed origin, spelled oddly, is loaded as the URL that was judged.
        port = server.origin.rsplit(":", 1)[1]
        result = await session.call(
            "browser_navigate", {"url": f"\u0001HTTP://0x7f.1:{port}/mcp/index.html"}
        )
        assert not result.is_error, text_of(result)
        assert server.url("/mcp/index.html") in text_of(result)
    finally:
        await session.stop()
