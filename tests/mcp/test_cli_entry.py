"""`cdpkit mcp`, the command users configure in their MCP host, runs the same server as
`python -m cdpkit.mcp_server`, with the browser options of the other cdpkit commands
(`--viewport`, `--chrome`, `--chrome-arg`, `--timeout`, bare-port `--connect`), checked
by one function: a bad value gets the same one-line error from either entry point."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.mcp.conftest import ROOT, McpSession, server_env, text_of, wait_until_gone
from tests.server import FixtureServer

ENTRIES = [("-m", "cdpkit.mcp_server"), ("-m", "cdpkit", "mcp")]


async def test_cdpkit_mcp_command_serves_the_tools(server: FixtureServer) -> None:
    session = await McpSession(["--allow-js"], entry=("-m", "cdpkit", "mcp")).start()
    try:
        names = {tool.name for tool in (await session.client.list_tools()).tools}
        assert {"browser_navigate", "browser_snapshot", "browser_execute_js"} <= names
        result = await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        assert not result.is_error and "status 200" in text_of(result)
    finally:
        await session.stop()


async def test_viewport_sets_the_page_size(server: FixtureServer) -> None:
    session = await McpSession(
        ["--allow-js", "--viewport", "800x600", "--chrome-arg=--user-agent=cdpkit-test-agent"]
    ).start()
    try:
        await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        result = await session.call(
            "browser_execute_js", {"expression": "[innerWidth, innerHeight, navigator.userAgent]"}
        )
        assert not result.is_error, text_of(result)
        assert json.loads(text_of(result)) == [800, 600, "cdpkit-test-agent"]
    finally:
        await session.stop()
    assert not await wait_until_gone(session.marker, browser_only=True)


@pytest.fixture
def running_browser() -> Iterator[int]:
    """The port of a browser started with `cdpkit launch` (stopped with Ctrl-C after)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cdpkit", "launch"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, cwd=ROOT, env=server_env("launch"),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        assert endpoint.startswith("http://127.0.0.1:"), endpoint
        yield int(endpoint.rsplit(":", 1)[1])
    finally:
        process.send_signal(signal.SIGINT)  # how `cdpkit launch` is stopped
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def test_connect_takes_a_bare_port(running_browser: int, server: FixtureServer) -> None:
    session = await McpSession(["--connect", str(running_browser)]).start()
    try:
        result = await session.call("browser_navigate", {"url": server.url("/status?code=200")})
        assert not result.is_error, text_of(result)
        assert "status 200" in text_of(result)
    finally:
        await session.stop()


async def test_a_silent_endpoint_fails_the_tool_within_timeout_naming_the_option() -> None:
    with socket.socket() as silent:  # listens, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        session = await McpSession(["--connect", str(port), "--timeout", "1"]).start()
        try:
            result = await session.call("browser_tabs", {})
        finally:
            await session.stop()
    assert result.is_error
    assert text_of(result) == (
        f"http://127.0.0.1:{port} did not answer within 1 s: is it the DevTools endpoint of "
        "a running browser? (--timeout SECONDS sets how long to wait)"
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--viewport", "800"], "Invalid --viewport '800': expected WIDTHxHEIGHT, e.g. 1280x720"),
        (["--timeout", "soon"], "Invalid --timeout 'soon': give a positive number of seconds"),
        (["--timeout", "0"], "Invalid --timeout '0': give a positive number of seconds"),
        (["--connect", "70000"], "Invalid --connect '70000': the port is not in 1-65535"),
        (
            ["--connect", "9222", "--viewport", "800x600", "--chrome", "/opt/chrome"],
            "--chrome, --viewport only apply to a launched browser, not with --connect",
        ),
        (["--chrome", "/no/such/chrome"], "Invalid --chrome '/no/such/chrome': no such executable file"),
        (["--http", "nohost:port"], "--http takes HOST:PORT (e.g. 127.0.0.1:8931); got 'nohost:port'"),
        (["--grid", "ftp://x"], "Invalid --grid 'ftp://x': expected a Selenium Grid URL such as http://grid:4444"),
        (["--grid", "4444", "--connect", "9222"], "--connect and --grid both say where the browser is: give one"),
        (["--grid", "4444", "--profile", "work"], "--profile do not apply with --grid (the grid's node starts Chrome)"),
        (
            ["--header", "X-Token: s3cret"],
            "--header only applies with --connect or --grid (it is sent to the endpoint); "
            "--extra-header 'Name: value' sends a header with the page's requests",
        ),
        (["--connect", "9222", "--header", "Bearer s3cret"], "Invalid --header '***': expected 'Name: value'"),
    ],
)
def test_a_bad_option_gets_the_same_one_line_error_from_both_entry_points(
    args: list[str], error: str
) -> None:
    for entry in ENTRIES:
        out = subprocess.run(
            [sys.executable, *entry, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        assert (out.returncode, out.stderr) == (2, f"error: {error}\n"), entry


@pytest.mark.parametrize("entry", ENTRIES)
def test_help_lists_the_browser_options(entry: tuple[str, ...]) -> None:
    out = subprocess.run(
        [sys.executable, *entry, "--help"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env={"COLUMNS": "200", **server_env("help")},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    for option in (
        "--viewport", "--chrome ", "--chrome-arg", "--timeout", "--connect", "--headful",
        "--grid", "--header",
        "--profile", "--http", "--downloads", "--allow-js", "--allow-file-urls",
        "--allow-unrestricted-file-access", "--allowed-origins", "--blocked-origins",
        "--shared-context",
    ):  # fmt: skip
        assert option in out.stdout, (option, out.stdout)
