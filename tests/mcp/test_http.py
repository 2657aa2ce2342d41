"""The MCP server over streamable HTTP (``--http``), at the SDK's default path ``/mcp``."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from tests.server import FixtureServer, free_port

from .conftest import (
    ROOT,
    HttpServer,
    browser_processes,
    listening,
    resource_text,
    server_env,
    text_of,
    wait_until_gone,
)


@pytest.fixture
def http_server(tmp_path: Path, other_server: FixtureServer) -> Iterator[HttpServer]:
    port = free_port()
    marker = uuid.uuid4().hex
    log = tmp_path / "server.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "cdpkit.mcp_server", "--http", str(port), "--allow-js"),
                *("--blocked-origins", other_server.origin),
            ],
            cwd=ROOT,
            env=server_env(marker),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    server = HttpServer(process, port, marker, log)
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the HTTP server did not listen within 60 s"
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_http_transport(
    http_server: HttpServer, server: FixtureServer, other_server: FixtureServer
) -> None:
    assert "http://127.0.0.1:" in http_server.log.read_text()  # bound to 127.0.0.1 by default

    # A client with a session (the initialize handshake): when it ends the session, the
    # browser is closed, and the server keeps serving.
    async with Client(http_server.url, mode="legacy") as client:
        # Its own browser context: no tabs until it opens one.
        assert json.loads(resource_text(await client.read_resource("tabs://list"))) == []
        result = await client.call_tool("browser_navigate", {"url": server.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)
        tabs = json.loads(resource_text(await client.read_resource("tabs://list")))
        assert [tab["url"] for tab in tabs] == [server.url("/mcp/index.html")]
        assert browser_processes(http_server.marker)
    assert await wait_until_gone(http_server.marker, browser_only=True) == []
    assert http_server.process.poll() is None

    # A stateless client (the 2026 protocol, no session): a context of its own too (its
    # cookie names it), which stays until it has been idle for the session timeout.
    async with Client(http_server.url) as client:
        assert json.loads(resource_text(await client.read_resource("tabs://list"))) == []
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "browser_execute_js" in names  # --allow-js
        result = await client.call_tool("browser_navigate", {"url": server.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)
        result = await client.call_tool(
            "browser_execute_js", {"expression": "document.querySelector('h1').textContent"}
        )
        assert json.loads(text_of(result)) == "MCP test page"
        result = await client.call_tool("browser_execute_js", {"expression": "nope()"})
        assert result.is_error and "ReferenceError: nope is not defined" in text_of(result)
        # The URL policy holds over HTTP too.
        result = await client.call_tool("browser_navigate", {"url": "file:///etc/passwd"})
        assert result.is_error and "file URLs are not allowed" in text_of(result)
        blocked = other_server.url("/mcp/index.html")
        result = await client.call_tool("browser_navigate", {"url": blocked})
        assert result.is_error and text_of(result) == (
            f"Navigation to {blocked} is blocked: origin {other_server.origin} is in "
            f"--blocked-origins"
        )

    async with Client(http_server.url, mode="legacy") as client:
        result = await client.call_tool("browser_navigate", {"url": server.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)
        assert browser_processes(http_server.marker)

        # Stopping the server closes the browser too.
        http_server.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(http_server.process.wait, 30)
    assert await wait_until_gone(http_server.marker) == []
