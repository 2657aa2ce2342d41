"""The MCP server uses a running ``cdpkit daemon``'s browser (a private ``XDG_RUNTIME_DIR``
for this test), and ``CDPKIT_NO_DAEMON=1`` makes it launch its own."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server import FixtureServer

from .conftest import McpSession, browser_processes, text_of

REPO = Path(__file__).resolve().parents[2]


def cdpkit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cdpkit", *args], env=env, capture_output=True,
                          text=True, timeout=90, cwd=REPO)


async def test_the_mcp_server_uses_a_running_daemon(
    server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("CDPKIT_NO_DAEMON", raising=False)
    env = dict(os.environ)
    assert cdpkit(env, "daemon", "start").returncode == 0
    pid = int((runtime / "cdpkit" / "daemon.pid").read_text())
    try:
        session = await McpSession([]).start()
        try:
            result = await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
            assert not result.is_error, text_of(result)
            assert json.loads(text_of(result))["title"] == "MCP test page"
            assert browser_processes(session.marker) == []  # no Chrome of the server's own
        finally:
            await session.stop()
        status = cdpkit(env, "daemon", "status").stdout
        assert "1 launched in all, 1 command(s) served" in status, status

        monkeypatch.setenv("CDPKIT_NO_DAEMON", "1")
        own = await McpSession([]).start()
        try:
            result = await own.call("browser_navigate", {"url": server.url("/mcp/index.html")})
            assert not result.is_error, text_of(result)
            assert browser_processes(own.marker), "it launched a browser of its own"
        finally:
            await own.stop()
        assert "1 command(s) served" in cdpkit(env, "daemon", "status").stdout
    finally:
        cdpkit(env, "daemon", "stop")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # only if stop failed: ours, by its pid
