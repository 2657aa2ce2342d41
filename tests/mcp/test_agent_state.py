"""State an agent keeps and where it pretends to be, over stdio with the MCP client SDK:
browser_save_storage_state (then a new server starts logged in), browser_emulate, and
browser_downloads (a click that downloads saves the file where the agent can find it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.server import DOWNLOADS, FixtureServer

from .conftest import McpSession, text_of

LOGIN = """<title>login</title><script>
document.cookie = "agent=yes; path=/"; localStorage.setItem("token", "t-7");
</script><p>logged in</p>"""
WHO = """<title>who</title><script>
document.title = document.cookie + "|" + localStorage.getItem("token");
</script>"""
LINK = '<title>files</title><a id="get" href="/dl/report.pdf" download>Get the report</a>'
LAYOUT = """<title>layout</title><meta name="viewport" content="width=device-width">
<style>#l::after { content: "desktop" } @media (max-width: 500px) { #l::after { content: "mobile" } }</style>
<div id="l"></div>"""


async def test_a_saved_login_starts_a_new_server_logged_in(
    mcp_stdio: McpSession, server: FixtureServer, tmp_path: Path
) -> None:
    server.route("/agent/login", lambda h: h.reply(200, LOGIN))
    server.route("/agent/who", lambda h: h.reply(200, WHO))
    assert not (await mcp_stdio.call("browser_navigate", {"url": server.url("/agent/login")})).is_error
    saved = await mcp_stdio.call("browser_save_storage_state", {"filename": "login.json"})
    assert not saved.is_error, text_of(saved)
    path = mcp_stdio.downloads / "login.json"  # type: ignore[attr-defined]
    assert f"to {path}" in text_of(saved)
    state = json.loads(path.read_text())
    assert {"name": "token", "value": "t-7"} in state["origins"][0]["localStorage"]
    assert path.stat().st_mode & 0o077 == 0

    fresh = McpSession(["--downloads", str(tmp_path), "--storage-state", str(path)])
    await fresh.start()
    try:
        result = await fresh.call("browser_navigate", {"url": server.url("/agent/who")})
        assert "agent=yes|t-7" in text_of(result), text_of(result)
    finally:
        await fresh.stop()


async def test_a_click_that_downloads_is_saved_and_listed(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    server.route("/agent/files", lambda h: h.reply(200, LINK))
    assert not (await mcp_stdio.call("browser_navigate", {"url": server.url("/agent/files")})).is_error
    clicked = await mcp_stdio.call("browser_click", {"selector": "#get"})
    assert not clicked.is_error, text_of(clicked)
    assert "A download started: report.pdf" in text_of(clicked)
    assert "browser_downloads" in text_of(clicked)
    listed = ""
    for _ in range(100):
        listed = text_of(await mcp_stdio.call("browser_downloads"))
        if "completed" in listed:
            break
        await asyncio.sleep(0.1)
    line = next(line for line in listed.splitlines() if "report.pdf" in line)
    assert "[completed" in line, listed
    saved = Path(line.split("] ", 1)[1].split(" from ")[0])
    assert saved.is_absolute() and saved.parent == mcp_stdio.downloads  # type: ignore[attr-defined]
    assert saved.read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
    # The server still answers: the download neither stalled nor killed it.
    assert not (await mcp_stdio.call("browser_tabs", {"action": "list"})).is_error


async def test_emulate_a_phone_and_reset(mcp_stdio: McpSession, server: FixtureServer) -> None:
    server.route("/agent/layout", lambda h: h.reply(200, LAYOUT))
    emulated = await mcp_stdio.call("browser_emulate", {"device": "iPhone 15", "locale": "de-DE"})
    assert not emulated.is_error, text_of(emulated)
    assert "Screen 393x852 at 3x" in text_of(emulated) and "iPhone" in text_of(emulated)
    await mcp_stdio.call("browser_navigate", {"url": server.url("/agent/layout")})
    again = await mcp_stdio.call("browser_emulate", {})
    assert "lays out 393 px wide" in text_of(again), text_of(again)  # the responsive page
    bad = await mcp_stdio.call("browser_emulate", {"device": "Nokia 3310"})
    assert bad.is_error and "known devices: iPhone 15" in text_of(bad)
    half = await mcp_stdio.call("browser_emulate", {"width": 500})
    assert half.is_error and "width and height together" in text_of(half)
    reset = await mcp_stdio.call("browser_emulate", {"reset": True})
    assert "lays out 1280 px wide" in text_of(reset) and "iPhone" not in text_of(reset), text_of(reset)


async def test_saving_tools_never_replace_a_file_of_the_download_folder(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    downloads: Path = mcp_stdio.downloads  # type: ignore[attr-defined]
    fetched = await mcp_stdio.call(
        "browser_download", {"url": server.url("/dl/report.pdf"), "filename": "kept-report.pdf"}
    )
    assert not fetched.is_error, text_of(fetched)
    pdf = downloads / "kept-report.pdf"
    assert pdf.read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
    server.route("/agent/login", lambda h: h.reply(200, LOGIN))
    assert not (await mcp_stdio.call("browser_navigate", {"url": server.url("/agent/login")})).is_error

    saved = await mcp_stdio.call("browser_save_storage_state", {"filename": "kept-report.pdf"})
    traced = await mcp_stdio.call(
        "browser_performance_trace", {"filename": "kept-report.pdf", "reload": False}
    )
    assert not saved.is_error and not traced.is_error, (text_of(saved), text_of(traced))
    assert pdf.read_bytes() == DOWNLOADS["/dl/report.pdf"][0]  # the agent's PDF is intact
    state = downloads / "kept-report-1.pdf"  # the next free name, as downloads get
    assert f"to {state}" in text_of(saved)
    assert any(c["name"] == "agent" for c in json.loads(state.read_text())["cookies"])
    assert state.stat().st_mode & 0o077 == 0
    trace = downloads / "kept-report-2.pdf"
    assert str(trace) in text_of(traced) and json.loads(trace.read_text())


async def test_browser_downloads_lists_what_browser_download_saved(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    url = server.url("/dl/report.pdf")
    fetched = await mcp_stdio.call("browser_download", {"url": url, "filename": "listed.pdf"})
    assert not fetched.is_error, text_of(fetched)
    listed = text_of(await mcp_stdio.call("browser_downloads"))
    line = next((line for line in listed.splitlines() if "listed.pdf" in line), None)
    assert line is not None, listed
    size = len(DOWNLOADS["/dl/report.pdf"][0])
    path = mcp_stdio.downloads / "listed.pdf"  # type: ignore[attr-defined]
    assert f"[completed, {size:,} bytes] {path} from {url}" in line
