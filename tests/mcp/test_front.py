"""The stdio front of ``cdpkit mcp`` (issue 19): the handshake answered without the SDK,
exactly as the SDK server answers it, and the connection handed to the SDK server
unchanged at the first message the front does not answer."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from cdpkit.mcp import _front, _listing
from cdpkit.mcp_server import server_options
from tests.server import FixtureServer

from .conftest import EXPECTED_TOOLS, ROOT, McpSession, server_env, text_of, wait_until_gone

_INFO = {"name": "test", "version": "1"}
_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": _INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _legacy(version: str) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": _INFO}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]  # fmt: skip


_MODERN = [
    {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": _ENVELOPE}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": _ENVELOPE}},
]

# Runs `cdpkit mcp` as the console script does; prints on stderr, as its last line, the
# modules loaded at the moment the tools/list answer was written.
_REPORT_MODULES_AT_TOOLS_LIST = """
import json, sys
from cdpkit.mcp import _front
_front._IDLE_START = 60  # the handshake comes at once: only tools/list starts the SDK
dumps = _front._dumps
def reporting(message):
    if "tools" in message.get("result", {}):
        print(json.dumps(sorted(sys.modules)), file=sys.stderr, flush=True)
    return dumps(message)
_front._dumps = reporting
from cdpkit.cli import main
main(["mcp", *sys.argv[1:]])
"""


def _front_answers(messages: list[dict[str, Any]], *args: str) -> tuple[list[Any], str]:
    """``cdpkit mcp ARGS``'s answers to ``messages`` (stdin closed after them), and what
    it printed on stderr."""
    out = subprocess.run(
        [sys.executable, "-c", _REPORT_MODULES_AT_TOOLS_LIST, *args],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=server_env("front"),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()], out.stderr


@pytest.mark.parametrize(
    ("args", "variant", "version"),
    [
        # Each variant of the tool list and instructions, with one version...
        ((), "default", "2025-11-25"),
        (("--allow-js",), "allow_js", "2025-11-25"),
        (("--allow-file-urls",), "allow_file_urls", "2025-11-25"),
        (("--allow-js", "--allow-file-urls"), "allow_js+allow_file_urls", "2025-11-25"),
        # ...and each version with one variant: the handshake does not depend on the tools.
        ((), "default", "2024-11-05"),
        (("--allow-js",), "allow_js", "1999-01-01"),
    ],
)
def test_the_front_answers_the_handshake_as_the_sdk_server_does(
    args: tuple[str, ...], variant: str, version: str
) -> None:
    """Every protocol version (a client's unknown one gets the SDK's latest), both eras,
    each variant of the tool list and instructions: the same answers, field for field."""
    options = server_options(allow_js="allow_js" in variant, allow_file_urls="file" in variant)
    for messages in (_legacy(version), _MODERN):
        front, _ = _front_answers(messages, *args)
        sdk = asyncio.run(_listing.sdk_answers(options, messages))
        assert front == sdk, messages[0]["method"]


def test_the_recorded_listing_is_what_the_installed_sdk_server_answers() -> None:
    """The guard against a stale listing: a tool's signature or docstring, the
    instructions or the SDK changed without ``python -m cdpkit.mcp._listing --write``."""
    recorded = json.loads(_front.LISTING_PATH.read_text(encoding="utf-8"))
    assert recorded == _listing.record_listing(), (
        "cdpkit/mcp/_listing.json is stale: run python -m cdpkit.mcp._listing --write"
    )


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_official_client_works_through_the_front(
    server: FixtureServer, mode: str
) -> None:
    """Over stdio with the official client, in both eras: the handshake and tools/list
    (the front), then tool calls, an error, a client notification and a cancelled call
    (the SDK server after the hand-off), and nothing left running at the end."""
    session = McpSession([], entry=("-m", "cdpkit", "mcp"))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cdpkit", "mcp"], env=server_env(session.marker),
        cwd=str(ROOT),
    )  # fmt: skip
    async with Client(params, mode=mode, read_timeout_seconds=120) as client:
        assert len((await client.list_tools()).tools) == len(EXPECTED_TOOLS)
        await client.session.send_ping() if mode == "legacy" else None
        navigated = await client.call_tool(
            "browser_navigate", {"url": server.url("/status?code=200")}
        )
        assert not navigated.is_error, text_of(navigated)
        unknown = await client.call_tool("browser_no_such_tool", {})
        assert unknown.is_error and "Unknown tool 'browser_no_such_tool'" in text_of(unknown)
        # A call cancelled by the client (notifications/cancelled) ends on the server:
        # the next call does not wait behind it.
        with anyio.move_on_after(1.0):
            await client.call_tool("browser_wait", {"ms": 60_000})
        started = time.monotonic()
        snapshot = await client.call_tool("browser_snapshot", {})
        assert time.monotonic() - started < 20
        assert not snapshot.is_error and "RootWebArea" in text_of(snapshot)
        with pytest.raises(MCPError):
            await client.read_resource("nothing://here")
    assert not await wait_until_gone(session.marker)


def test_a_first_line_the_front_cannot_read_goes_to_the_sdk_server() -> None:
    """What the front does not understand is the SDK server's to handle: it skips a line
    that is not JSON, as it always did, and answers the handshake after it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cdpkit", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, cwd=ROOT, env=server_env("front-parse"),
    )  # fmt: skip
    watchdog = threading.Timer(60, process.kill)  # a hung server fails the test, not the suite
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        lines = ["not json", *(json.dumps(m) for m in _legacy("2025-06-18"))]
        process.stdin.write("".join(line + "\n" for line in lines).encode())
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(3)]
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert [answer.get("id") for answer in answers] == [1, 2, 3]
    assert len(answers[1]["result"]["tools"]) == len(EXPECTED_TOOLS)
