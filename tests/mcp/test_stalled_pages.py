"""Over MCP (the official SDK), a page whose parser-blocking scripts never arrive (issue
46): by default the agent is told why it sees nothing, in the navigate result and the
snapshot's first line; with ``--script-timeout 2`` it sees the page within seconds and the
result names the scripts given up."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from tests.stalled_pages import StallServer

from .conftest import McpSession, text_of


@pytest.fixture
async def mcp_script_timeout() -> AsyncIterator[McpSession]:
    session = McpSession(["--script-timeout", "2"])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


async def test_by_default_the_agent_is_told_why_the_page_is_empty(
    mcp_stdio: McpSession, stalls: StallServer
) -> None:
    result = await mcp_stdio.call("browser_navigate", {"url": stalls.url(25)})
    text = text_of(result)
    assert not result.is_error, text
    assert "The page shows nothing: nothing rendered yet: the parser waits on" in text
    assert f"<script src={stalls.script(1)}>" in text and f"<script src={stalls.script(2)}>" in text
    assert "The page is usable" not in text
    first = text_of(await mcp_stdio.call("browser_snapshot")).splitlines()[0]
    assert first.startswith("nothing rendered yet: the parser waits on <script src=")
    assert stalls.script(1) in first and stalls.script(2) in first


async def test_with_script_timeout_the_agent_sees_the_page_within_seconds(
    mcp_script_timeout: McpSession, stalls: StallServer
) -> None:
    await mcp_script_timeout.call("browser_tabs", {"action": "list"})  # the browser starts
    started = time.monotonic()
    result = await mcp_script_timeout.call("browser_navigate", {"url": stalls.url(25)})
    text = text_of(result)
    assert not result.is_error, text
    assert "Given up (parser-blocking scripts" in text
    assert f"- {stalls.script(1)}" in text and f"- {stalls.script(2)}" in text
    snapshot = text_of(await mcp_script_timeout.call("browser_snapshot"))
    assert time.monotonic() - started < 15
    assert 'heading "Stalled story"' in snapshot and 'button "Read on"' in snapshot
    assert "nothing rendered" not in snapshot
