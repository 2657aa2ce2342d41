"""A page whose parser-blocking scripts never arrive (issue 46): navigate says that
nothing is rendered and why, the snapshot's first line too, and ``script_timeout`` gives
such scripts up so the page renders; scripts within the limit still run."""

from __future__ import annotations

import asyncio
import http.server
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.cli.conftest import isolated_env
from tests.server import FixtureServer, Handler, Route
from tests.stalled_pages import StallServer


async def test_script_timeout_gives_up_the_stalled_scripts_and_the_page_renders(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    started = time.monotonic()
    result = await tools.navigate(page, stalls.url(25), script_timeout=2, timeout=20)
    assert time.monotonic() - started < 18  # not the scripts' 25 s
    assert result.given_up == (stalls.script(1), stalls.script(2))
    assert result.nothing_rendered == ""
    snapshot = (await tools.snapshot(page)).text
    assert 'heading "Stalled story"' in snapshot and 'button "Read on"' in snapshot
    assert not snapshot.startswith("nothing rendered")
    # The rest of the page works as usual: its later inline script ran.
    assert await tools.evaluate(page, "[window.later, window.slowRan ?? null]") == [1, None]


async def test_scripts_within_the_limit_still_run(page: cdpkit.Page, stalls: StallServer) -> None:
    result = await tools.navigate(page, stalls.url(1), script_timeout=5, timeout=20)
    assert result.given_up == ()
    assert await tools.evaluate(page, "[window.later, window.slowRan]") == [1, 2]


async def test_without_script_timeout_the_result_and_the_snapshot_say_why_the_page_is_empty(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    result = await tools.navigate(page, stalls.url(25), wait_until="usable", timeout=20)
    assert result.given_up == ()
    assert result.nothing_rendered.startswith("nothing rendered yet: the parser waits on ")
    assert f"<script src={stalls.script(1)}> for " in result.nothing_rendered
    assert f"<script src={stalls.script(2)}> for " in result.nothing_rendered
    first = (await tools.snapshot(page)).text.splitlines()[0]
    assert first.startswith("nothing rendered yet: the parser waits on <script src=")
    assert stalls.script(1) in first
    # Once the page shows something, the snapshot no longer says so.
    await tools.navigate(page, "data:text/html,<h1>Here</h1>")
    assert not (await tools.snapshot(page)).text.startswith("nothing rendered")


async def test_history_moves_and_reload_take_script_timeout(page: cdpkit.Page, stalls: StallServer) -> None:
    await tools.navigate(page, stalls.url(25), script_timeout=1, timeout=20)
    reloaded = await tools.reload(page, script_timeout=1, timeout=20)
    assert reloaded.given_up == (stalls.script(1), stalls.script(2))
    with pytest.raises(ValueError, match="script_timeout"):
        await tools.navigate(page, stalls.url(25), script_timeout=0)


def test_cdpkit_snapshot_with_script_timeout_shows_the_stalled_page(
    stalls: StallServer, tmp_path: Path
) -> None:
    # The scripts answer after 60 s: without the flag, the load (--timeout 30) times out.
    completed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "snapshot", stalls.url(60), "--script-timeout", "2", "--wait", "0"],
        capture_output=True, text=True, env=isolated_env(tmp_path), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert 'heading "Stalled story"' in completed.stdout
    assert 'button "Read on"' in completed.stdout
    assert f"gave up the script {stalls.script(1, 60)}" in completed.stderr


async def test_scrape_and_browse_tier_3_give_the_stalled_page_after_script_timeout(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    # The smart wait of scrape, and browse at tier 3, give the content after the scripts
    # are given up: not an empty result, not the whole timeout.
    started = time.monotonic()
    scraped = await tools.scrape(
        page, stalls.url(25), format="text", smart_wait=tools.SmartWait(script_timeout=2), timeout=20
    )
    assert "Stalled story" in scraped.content
    assert time.monotonic() - started < 15
    async with cdpkit.engine(browser={"script_timeout": 2}) as engine:
        started = time.monotonic()
        browsed = await engine.browse(stalls.url(25), tier=3, format="text", timeout=20)
        assert "Stalled story" in browsed.content
        assert time.monotonic() - started < 15


async def test_without_script_timeout_no_request_is_paused(page: cdpkit.Page, stalls: StallServer) -> None:
    # Off (the default for scripts): nothing of the page's loading is intercepted, so a
    # page that does not stall loads as it did.
    async with page.listen("Fetch.requestPaused", raw=True) as paused:
        await tools.navigate(page, stalls.url(0.2), timeout=20)
        assert await tools.evaluate(page, "window.slowRan") == 2
        await tools.reload(page, timeout=20)
        with pytest.raises(TimeoutError):  # none was paused, none arrives
            async with asyncio.timeout(0.5):
                await anext(aiter(paused))


def test_cdpkit_browse_and_repl_take_script_timeout(stalls: StallServer, tmp_path: Path) -> None:
    env = {**isolated_env(tmp_path), "CDPKIT_NO_DAEMON": "1"}
    browsed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", stalls.url(60), "--tier", "3", "--script-timeout", "2",
         "--format", "text"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert browsed.returncode == 0, browsed.stderr
    assert "Stalled story" in browsed.stdout
    script = f":goto {stalls.url(60)}\nprint(await tools.evaluate(page, 'document.querySelector(\"h1\").textContent'))\n"
    console = subprocess.run(
        [sys.executable, "-m", "cdpkit", "repl", "--script-timeout", "2", "--wait", "0"],
        input=script, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert console.returncode == 0, console.stdout + console.stderr
    assert "Stalled story" in console.stdout


# -- with script_timeout, a script arrives as if the page had fetched it itself ---------------


def _script(body: str, seen: list[dict[str, str]] | None = None) -> Route:
    """A script; each request's headers (lower-case names) go to ``seen``. As many CDNs
    do, it allows other origins (Access-Control-Allow-Origin) only when asked with an
    Origin."""

    def route(handler: Handler) -> None:
        if seen is not None:
            seen.append({name.lower(): value for name, value in handler.headers.items()})
        origin = handler.headers.get("Origin")
        handler.reply(200, body, "text/javascript", {"Access-Control-Allow-Origin": origin} if origin else {})

    return route


def _page(html: str, headers: dict[str, str] | None = None) -> Route:
    return lambda handler: handler.reply(200, html, "text/html", headers)


async def test_with_script_timeout_a_script_is_requested_with_the_pages_identity(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    seen: list[dict[str, str]] = []
    server.route("/gate/identity.js", _script("window.ran = (window.ran || 0) + 1;", seen))
    server.route("/gate/moved.js", lambda h: h.reply(302, "", "text/plain", {"Location": "/gate/identity.js?moved"}))
    server.route("/gate/identity", _page('<script src="/gate/identity.js"></script>'
                                         '<script src="/gate/moved.js"></script><h1>Identity</h1>'))  # fmt: skip
    async with await browser.new_context(user_agent="GateAgent/1", extra_headers={"X-Gate": "on"}) as context:
        page = await context.new_page()
        result = await tools.navigate(page, server.url("/gate/identity"), script_timeout=10, timeout=20)
        assert result.given_up == ()
        assert await tools.evaluate(page, "window.ran") == 2
    assert len(seen) == 2  # the first script, and where the second one redirected
    for headers in seen:
        assert headers["user-agent"] == "GateAgent/1"
        assert headers["x-gate"] == "on"
        assert headers["referer"] == server.url("/gate/identity")
        assert headers["accept"] == "*/*"
        assert headers["sec-fetch-dest"] == "script"


async def test_with_script_timeout_a_crossorigin_script_from_another_origin_runs(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    other_server.route("/gate/cors.js", _script("window.corsRan = 1;"))
    server.route("/gate/cors", _page(f'<script crossorigin src="{other_server.url("/gate/cors.js")}"></script><h1>C</h1>'))
    result = await tools.navigate(page, server.url("/gate/cors"), script_timeout=10, timeout=20)
    assert result.given_up == ()
    assert await tools.evaluate(page, "window.corsRan ?? null") == 1


class _PreflightServer(http.server.ThreadingHTTPServer):
    """A script for other origins that asks for a CORS preflight (OPTIONS) first when the
    request carries a header of its own; records each request's method."""

    daemon_threads = True

    def __init__(self) -> None:
        self.methods: list[str] = []
        outer = self

        class Preflighted(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_OPTIONS(self) -> None:
                outer.methods.append("OPTIONS")
                self.send_response(204)
                self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin", ""))
                self.send_header("Access-Control-Allow-Headers", self.headers.get("Access-Control-Request-Headers", ""))
                self.end_headers()

            def do_GET(self) -> None:
                outer.methods.append("GET")
                body = b"window.preflightedRan = 1;"
                self.send_response(200)
                self.send_header("Content-Type", "text/javascript")
                self.send_header("Content-Length", str(len(body)))
                if self.headers.get("Origin"):
                    self.send_header("Access-Control-Allow-Origin", self.headers["Origin"])
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Preflighted)

    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/preflighted.js"


@pytest.fixture
def preflighted() -> Iterator[_PreflightServer]:
    server = _PreflightServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


async def test_with_script_timeout_a_crossorigin_script_behind_a_cors_preflight_runs(
    browser: cdpkit.Browser, server: FixtureServer, preflighted: _PreflightServer
) -> None:
    # An extra header is not one a page may send to another origin unasked: Chrome asks
    # with a preflight first, and the gate sends both as the page would.
    server.route("/gate/preflighted", _page(f'<script crossorigin src="{preflighted.url()}"></script><h1>P</h1>'))
    async with await browser.new_context(extra_headers={"X-Gate": "on"}) as context:
        page = await context.new_page()
        result = await tools.navigate(page, server.url("/gate/preflighted"), script_timeout=10, timeout=20)
        assert result.given_up == ()
        assert await tools.evaluate(page, "window.preflightedRan ?? null") == 1
    assert preflighted.methods == ["OPTIONS", "GET"]


async def test_with_script_timeout_a_script_carries_the_cookies_chrome_would_send(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    own: list[dict[str, str]] = []
    other: list[dict[str, str]] = []
    server.route("/gate/cookie.js", _script("window.ownRan = 1;", own))
    other_server.route("/gate/cookie.js", _script("window.otherRan = 1;", other))
    html = (
        '<script src="/gate/cookie.js"></script>'
        f'<script crossorigin src="{other_server.url("/gate/cookie.js")}"></script><h1>Cookie</h1>'
    )
    server.route("/gate/cookie", _page(html, {"Set-Cookie": "gate=1; Path=/; SameSite=Strict; HttpOnly"}))
    result = await tools.navigate(page, server.url("/gate/cookie"), script_timeout=10, timeout=20)
    assert own[0].get("cookie") == "gate=1"  # the site's own cookie, HttpOnly and Strict
    # The cookie is 127.0.0.1's, whatever the port; but a crossorigin script of another
    # origin is asked for without credentials: Chrome sends it no cookie, nor does the gate.
    assert "cookie" not in other[0]
    assert result.given_up == ()
    assert await tools.evaluate(page, "[window.ownRan ?? null, window.otherRan ?? null]") == [1, 1]


async def test_over_mcp_the_default_script_timeout_keeps_the_user_agent_and_extra_headers(
    server: FixtureServer,
) -> None:
    from tests.mcp.conftest import McpSession, text_of

    seen: list[dict[str, str]] = []
    server.route("/gate/agent.js", _script("window.agentRan = 1;", seen))
    server.route("/gate/agent", _page('<script src="/gate/agent.js"></script><h1>Agent page</h1>'))
    session = McpSession(["--user-agent", "AuditUA/1", "--extra-header", "X-Audit: 1"])  # 10 s by default
    await session.start()
    try:
        result = await session.call("browser_navigate", {"url": server.url("/gate/agent")})
        assert not result.is_error, text_of(result)
    finally:
        await session.stop()
    assert len(seen) == 1
    assert seen[0]["user-agent"] == "AuditUA/1" and seen[0]["x-audit"] == "1"
    assert seen[0]["referer"] == server.url("/gate/agent")
