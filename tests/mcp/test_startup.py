"""What an MCP host notices of the server's start and tool list (issue 19): ``cdpkit mcp``
loads only what serving needs before it answers ``tools/list``, the list stays small, and
every listed tool still takes the arguments its schema describes, over the official SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.server import FixtureServer

from .conftest import EXPECTED_TOOLS, ROOT, McpSession, server_env, text_of, wait_until_gone
from .test_front import _front_answers, _legacy

# Runs `cdpkit mcp` as the console script does, and prints on stderr, as its last line, the
# modules loaded when the server exited (stdin closed after initialize and tools/list).
_SERVE_AND_REPORT = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from cdpkit.cli import main
main(["mcp"])
"""

_HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]  # fmt: skip


def test_cdpkit_mcp_answers_tools_list_without_loading_what_it_does_not_need() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SERVE_AND_REPORT],
        input="".join(json.dumps(message) + "\n" for message in _HANDSHAKE),
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=server_env("startup"),
    )  # fmt: skip
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    listed = next(answer for answer in answers if answer.get("id") == 2)
    assert len(listed["result"]["tools"]) == len(EXPECTED_TOOLS), out.stderr
    loaded = set(json.loads(out.stderr.strip().splitlines()[-1]))
    # Not the typer app and the other commands, not the light path's HTTP engine (it
    # loads on the first browse call). (The SDK loads after tools/list is answered, so
    # that the first tool call does not wait for it: see the next test.) The config
    # file's reader (cdpkit._browser.config) loads: the [browser] table applies to it.
    for module in ("typer", "cdpkit.cli._app", "cdpkit.cli._pages", "cdpkit._browse._engine",
                   "cdpkit._browse._http", "httpx", "rich"):  # fmt: skip
        assert module not in loaded, module
    # The tool list goes with every request to the model: a few thousand tokens (the
    # element locators, role/name/text/label on the tools that act, cost ~760 characters).
    assert len(json.dumps(listed["result"]["tools"])) < 20_500


def test_tools_list_is_answered_before_the_sdk_pydantic_or_the_bindings_load() -> None:
    """The handshake is the stdio front's (cdpkit.mcp._front): at the moment the
    tools/list answer is written, none of the SDK, pydantic, asyncio, the CDP bindings or
    the tools is loaded."""
    answers, stderr = _front_answers(_legacy("2025-06-18"))
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert len(answers[1]["result"]["tools"]) == len(EXPECTED_TOOLS)
    loaded = set(json.loads(stderr.strip().splitlines()[-1]))
    heavy = {"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "asyncio", "cdpkit.cdp",
             "cdpkit.tools", "cdpkit.browser", "cdpkit.mcp._app", "cdpkit.mcp._http", "typer"}  # fmt: skip
    assert not heavy & loaded, heavy & loaded


def _argument(name: str, schema: dict[str, Any], server: FixtureServer) -> Any:
    """A value of the right type for a required parameter."""
    known: dict[str, Any] = {
        "url": server.url("/status?code=200"), "ms": 1, "key": "Tab", "text": "x",
        "values": "a", "paths": "missing.txt", "selector": "body", "id": "1",
        "name": "none", "expression": "1 + 1",
    }  # fmt: skip
    if name in known:
        return known[name]
    kind = schema.get("type")
    return {"string": "x", "integer": 1, "number": 1, "boolean": False}.get(str(kind), "x")


async def test_every_listed_tool_takes_the_arguments_its_schema_describes(
    server: FixtureServer,
) -> None:
    """Each tool is called with its required arguments (made from its listed schema) over
    the official client: none is refused as invalid or fails inside the server. A tool
    may say what is wrong with the page (no element given, no such request): that is its
    own answer, not a broken definition."""
    session = await McpSession(["--allow-js"], entry=("-m", "cdpkit", "mcp")).start()
    try:
        tools = (await session.client.list_tools()).tools
        assert len(tools) == len(EXPECTED_TOOLS) + 1  # with browser_execute_js
        await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        for tool in tools:
            schema = tool.input_schema
            arguments = {
                name: _argument(name, schema["properties"][name], server)
                for name in schema.get("required", [])
            }
            if tool.name == "browser_performance_trace":
                arguments["reload"] = False  # keeps the test short
            result = await session.call(tool.name, arguments)
            said = text_of(result)
            assert "Invalid arguments" not in said, (tool.name, said)
            assert "Internal error" not in said, (tool.name, said)
    finally:
        await session.stop()
    assert not await wait_until_gone(session.marker, browser_only=True)
