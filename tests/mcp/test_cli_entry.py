"""`cdpkit mcp`, the command users configure in their MCP host, runs the same server."""

from __future__ import annotations

from tests.mcp.conftest import McpSession, text_of
from tests.server import FixtureServer


async def test_cdpkit_mcp_command_serves_the_tools(server: FixtureServer) -> None:
    session = await McpSession(["--allow-js"], entry=("-m", "cdpkit", "mcp")).start()
    try:
        names = {tool.name for tool in (await session.client.list_tools()).tools}
        assert {"browser_navigate", "browser_snapshot", "browser_execute_js"} <= names
        result = await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        assert not result.is_error and "status 200" in text_of(result)
    finally:
        await session.stop()
