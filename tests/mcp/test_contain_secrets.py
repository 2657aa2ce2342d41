"""The proxy's password never reaches an agent or a file (issue 41, "Secrets").

Chrome answers an authenticating proxy with ``Proxy-Authorization: Basic <user:password in
base64>``, and the network stack reports that header with the request: the request
details an agent reads (``browser_network_request``) and the HAR file ``--har`` writes
show credentials headers masked, and no output or file of the session holds the password,
plain or encoded. The proxy is tests/fixtures/proxy.py, demanding Basic credentials and
forwarding to the suite's page server on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.proxy import ProxyServer
from tests.server import FixtureServer

from .conftest import ROOT, McpSession, text_of

USER = "agent-user"
PASSWORD = "Pw-" + uuid.uuid4().hex[:12] + "/!x"  # a "/" and a "!": URL-encoded in --proxy
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
SPELLINGS = (PASSWORD, BASIC, urllib.parse.quote(PASSWORD, safe=""))
PAGE = "/contain/secret-page.html"
STYLE = "/contain/secret-style.css"
# Chrome shows a navigation's request as first sent (before the proxy's 407); the
# stylesheet's goes with the credentials from the start.
BODY = f"""<!doctype html><title>Behind the proxy</title><link rel="stylesheet" href="{STYLE}">
<p>Reached through the proxy.</p>"""


def serve(server: FixtureServer) -> None:
    server.route(PAGE, lambda h: h.reply(200, BODY))
    server.route(STYLE, lambda h: h.reply(200, "p { color: teal }", content_type="text/css"))


def leaks(text: str) -> list[str]:
    return [spelling for spelling in SPELLINGS if spelling in text]


def files_leaking(folder: Path) -> list[str]:
    return [
        f"{path}: {leaks(path.read_text('utf-8', 'replace'))}"
        for path in folder.rglob("*")
        if path.is_file() and leaks(path.read_text("utf-8", "replace"))
    ]


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = ProxyServer((USER, PASSWORD)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runtime, state, cache, config and data folders of this test only, and no daemon:
    whatever cdpkit writes lands under the returned folder."""
    home = tmp_path / "home"
    for name in ("runtime", "state", "cache", "config", "data", "downloads", "profiles"):
        (home / name).mkdir(parents=True)
    (home / "runtime").chmod(0o700)
    for key in list(os.environ):
        if key.startswith(("CDPKIT_", "XDG_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "runtime"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "downloads"))
    monkeypatch.setenv("CDPKIT_PROFILES", str(home / "profiles"))
    monkeypatch.setenv("CDPKIT_NO_DAEMON", "1")
    return home


def proxy_url(proxy: ProxyServer) -> str:
    port = proxy.server_address[1]
    return f"http://{USER}:{urllib.parse.quote(PASSWORD, safe='')}@127.0.0.1:{port}"


async def test_request_details_show_the_proxy_credentials_masked(
    proxy: ProxyServer, server: FixtureServer, isolated: Path
) -> None:
    serve(server)
    downloads = isolated / "downloads"
    script = downloads / "session.py"
    mcp = McpSession(
        ["--proxy", proxy_url(proxy), "--downloads", str(downloads), "--record", str(script)]
    )
    await mcp.start()
    shown: list[str] = []
    try:
        navigated = await mcp.call("browser_navigate", {"url": server.url(PAGE)})
        shown.append(text_of(navigated))
        assert not navigated.is_error, shown[-1]
        assert proxy.forwarded(STYLE), "the page did not come through the authenticating proxy"
        listed = text_of(await mcp.call("browser_network_requests", {"url_pattern": "/contain/"}))
        shown.append(listed)
        found = re.search(r"\[([^\]]+)\] GET \S*" + re.escape(STYLE), listed)
        assert found, listed
        details = await mcp.call("browser_network_request", {"id": found.group(1)})
        shown.append(text_of(details))
        assert not details.is_error, shown[-1]
        for tool in ("browser_save_storage_state", "browser_stop_recording"):
            result = await mcp.call(tool, {})
            shown.append(text_of(result))
            assert not result.is_error, shown[-1]
    finally:
        await mcp.stop()
    assert not [leaks(text) for text in shown if leaks(text)], shown
    # The header is still there, its credentials masked: the agent sees the proxy was used.
    headers = shown[2]
    masked = re.search(r"proxy-authorization['\"]?: ['\"]?Basic \*\*\*", headers, re.IGNORECASE)
    assert masked, headers
    assert files_leaking(isolated) == []


def test_a_har_recorded_through_the_proxy_holds_no_credentials(
    proxy: ProxyServer, server: FixtureServer, isolated: Path
) -> None:
    serve(server)
    har = isolated / "downloads" / "run.har"
    done = subprocess.run(
        [sys.executable, "-m", "cdpkit", "snapshot", server.url(PAGE), "--proxy", proxy_url(proxy), "--har", str(har)],
        capture_output=True, text=True, timeout=120, cwd=isolated,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Reached through the proxy" in done.stdout
    assert leaks(done.stdout + done.stderr) == []
    assert proxy.forwarded(STYLE)
    entries = json.loads(har.read_text())["log"]["entries"]
    (entry,) = [e for e in entries if e["request"]["url"] == server.url(STYLE)]
    sent = {h["name"].lower(): h["value"] for h in entry["request"]["headers"]}
    assert sent.get("proxy-authorization") == "Basic ***", sent
    assert files_leaking(isolated) == []
