"""The MCP server's origin lists compare hosts as addresses, and its request guard stays
within the server's own browser contexts (issue 41, [contain]).

* ``--blocked-origins http://127.0.0.1:PORT`` also stops every other spelling of that
  address (``0.0.0.0``, ``0``, ``[::ffff:127.0.0.1]``, ``2130706433``, ``localhost``...),
  asked for directly or reached by a redirect; the server is never asked.
* ``--allowed-origins http://127.0.0.1:PORT`` allows those spellings too (the same
  server) and still nothing else.
* On a running ``cdpkit daemon``, ``cdpkit mcp --allowed-origins X`` does not touch the
  other commands: their pages outside X load, and their URLs never reach the agent.

Everything through public surfaces: the MCP server over stdio with the official SDK, the
``cdpkit`` command line in a subprocess, pages served on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server import FixtureServer, Handler

from .conftest import McpSession, text_of

REPO = Path(__file__).resolve().parents[2]

# Other spellings of http://127.0.0.1:{port}: each reaches the same server in Chrome.
SPELLINGS = [
    "http://0.0.0.0:{port}",
    "http://[::ffff:127.0.0.1]:{port}",
    "http://[::ffff:7f00:1]:{port}",
    "http://[0:0:0:0:0:ffff:127.0.0.1]:{port}",
    "http://0:{port}",
    "http://2130706433:{port}",
    "http://localhost:{port}",
]


def port_of(server: FixtureServer) -> int:
    return int(server.server_address[1])


@pytest.fixture(scope="module")
def bouncer(other_server: FixtureServer) -> Iterator[FixtureServer]:
    """``other_server`` with ``/contain/to?u=URL``: a 302 to ``URL``."""

    def to(handler: Handler) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
        handler.reply(302, "", headers={"Location": query["u"][0]})

    other_server.route("/contain/to", to)
    yield other_server


def hits(server: FixtureServer, tag: str) -> list[str]:
    return [path for path in server.requests if tag in path]


async def test_a_blocked_address_is_blocked_however_it_is_spelled(
    server: FixtureServer, bouncer: FixtureServer, tmp_path: Path
) -> None:
    port = port_of(server)
    session = await McpSession(
        ["--blocked-origins", f"http://127.0.0.1:{port}", "--downloads", str(tmp_path)]
    ).start()
    try:
        for spelling in SPELLINGS:
            origin = spelling.format(port=port)
            tag = uuid.uuid4().hex
            url = f"{origin}/mcp/index.html?direct={tag}"
            result = await session.call("browser_navigate", {"url": url})
            assert result.is_error, (origin, text_of(result))
            assert "is in --blocked-origins" in text_of(result), (origin, text_of(result))

            # Reached by a redirect from an allowed origin: refused before it is sent.
            target = f"{origin}/mcp/index.html?redirected={tag}"
            bounce = bouncer.url("/contain/to?u=" + urllib.parse.quote(target, safe=""))
            result = await session.call("browser_navigate", {"url": bounce})
            text = text_of(result)
            assert result.is_error, (origin, text)
            assert "was redirected to" in text and "is in --blocked-origins" in text, (origin, text)
            assert "MCP test page" not in text, (origin, text)
            assert hits(server, tag) == [], origin  # the blocked server was never asked
        # The allowed origin still loads.
        result = await session.call("browser_navigate", {"url": bouncer.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)
        assert json.loads(text_of(result))["title"] == "MCP test page"
    finally:
        await session.stop()


async def test_an_allowed_address_is_allowed_in_its_spellings_and_nothing_else(
    server: FixtureServer, bouncer: FixtureServer, tmp_path: Path
) -> None:
    port = port_of(server)
    session = await McpSession(
        ["--allowed-origins", f"http://127.0.0.1:{port}", "--downloads", str(tmp_path)]
    ).start()
    try:
        for spelling in SPELLINGS:
            origin = spelling.format(port=port)
            result = await session.call("browser_navigate", {"url": f"{origin}/mcp/index.html"})
            assert not result.is_error, (origin, text_of(result))
            assert json.loads(text_of(result))["title"] == "MCP test page", origin
        # Another port of the same address is another origin: still refused, in any spelling.
        other = port_of(bouncer)
        for spelling in SPELLINGS:
            tag = uuid.uuid4().hex
            origin = spelling.format(port=other)
            result = await session.call(
                "browser_navigate", {"url": f"{origin}/mcp/index.html?{tag}"}
            )
            assert result.is_error, (origin, text_of(result))
            assert "is not in --allowed-origins" in text_of(result), (origin, text_of(result))
            assert hits(bouncer, tag) == [], origin
    finally:
        await session.stop()


async def test_frames_and_popups_of_the_servers_tabs_are_guarded_too(
    server: FixtureServer, bouncer: FixtureServer, tmp_path: Path
) -> None:
    """A cross-site frame (its own renderer: the guard reaches it through a session of its
    own) that sends itself to a blocked spelling, and a popup opened to another: neither
    request is sent."""
    port, blocked = port_of(server), port_of(bouncer)
    tag = uuid.uuid4().hex
    frame_goes = f"http://0.0.0.0:{blocked}/mcp/index.html?frame={tag}"
    popup_goes = f"http://[::ffff:127.0.0.1]:{blocked}/mcp/index.html?popup={tag}"

    def frame(handler: Handler) -> None:
        script = f"setTimeout(() => {{ location.href = {json.dumps(frame_goes)}; }}, 200)"
        handler.reply(200, f"<title>frame</title><p>framed</p><script>{script}</script>")

    def host(handler: Handler) -> None:
        # localhost is another site than 127.0.0.1: the frame runs out of process.
        src = f"http://localhost:{port}/contain/frame"
        script = f"window.open({json.dumps(popup_goes)})"
        handler.reply(200, f"<title>host</title><iframe src='{src}'></iframe><script>{script}</script>")

    server.route("/contain/frame", frame)
    server.route("/contain/host", host)
    session = await McpSession(
        ["--blocked-origins", f"http://127.0.0.1:{blocked}", "--downloads", str(tmp_path)]
    ).start()
    try:
        result = await session.call("browser_navigate", {"url": server.url("/contain/host")})
        assert not result.is_error, text_of(result)
        said = [text_of(result)]
        for _ in range(20):  # the frame leaves after 200 ms; each call reports what was refused
            result = await session.call("browser_wait", {"ms": 250})
            said.append(text_of(result))
            refused = [line for text in said for line in text.splitlines() if "is blocked" in line]
            if len(refused) >= 2:
                break
        everything = "\n".join(said)
        assert any(f"popup={tag}" in line for line in refused), everything
        assert any(f"frame={tag}" in line for line in refused), everything
        assert hits(bouncer, tag) == []  # neither request reached the blocked server
    finally:
        await session.stop()


def cdpkit(
    env: dict[str, str], *args: str, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", *args],
        env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO,
    )  # fmt: skip


async def test_the_guard_on_a_daemon_stays_in_the_servers_own_context(
    server: FixtureServer, other_server: FixtureServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("CDPKIT_NO_DAEMON", raising=False)
    env = dict(os.environ)
    assert cdpkit(env, "daemon", "start").returncode == 0
    pid = int((runtime / "cdpkit" / "daemon.pid").read_text())
    token = f"token-{uuid.uuid4().hex}"
    outside = other_server.url(f"/mcp/index.html?secret={token}")
    session = await McpSession(
        ["--allowed-origins", server.origin, "--downloads", str(tmp_path)]
    ).start()
    said: list[str] = []
    try:
        result = await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
        said.append(text_of(result))
        assert not result.is_error, said[-1]
        # Another command on the same daemon, while the guarded server runs: its page is
        # outside the server's list, and it loads.
        other = cdpkit(env, "snapshot", outside)
        assert other.returncode == 0, other.stderr
        assert "MCP test page" in other.stdout or "Hello" in other.stdout, other.stdout
        assert hits(other_server, token), "the other command's page was never requested"
        # The agent's next calls say nothing of it.
        for tool, arguments in (
            ("browser_navigate", {"url": server.url("/mcp/index.html")}),
            ("browser_snapshot", {}),
            ("browser_network_requests", {}),
            ("browser_tabs", {"action": "list"}),
        ):
            result = await session.call(tool, arguments)
            said.append(text_of(result))
            assert not result.is_error, (tool, said[-1])
        for text in said:
            assert token not in text and "ERR_BLOCKED_BY_CLIENT" not in text, text
        # The server's own policy still holds on its own tabs.
        result = await session.call("browser_navigate", {"url": outside})
        assert result.is_error and "is not in --allowed-origins" in text_of(result)
    finally:
        await session.stop()
        cdpkit(env, "daemon", "stop")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # only if stop failed: ours, by its pid
