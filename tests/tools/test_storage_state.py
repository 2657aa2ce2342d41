"""A login kept between runs: save_storage_state / load_storage_state, in Playwright's format."""

from __future__ import annotations

import json
import re
import stat
import time
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.server import FixtureServer, Handler

LOGIN = """<title>login</title><script>
document.cookie = "session=abc123; path=/";
localStorage.setItem("token", "t-42");
sessionStorage.setItem("tab", "first");
</script><p>logged in</p>"""

WHO = """<title>who</title><script>
document.title = [document.cookie, localStorage.getItem("token"), sessionStorage.getItem("tab")].join("|");
</script>"""


def _cookie_echo(handler: Handler) -> None:
    handler.reply(200, f"<title>{handler.headers.get('Cookie', '')}</title>")


@pytest.fixture
def site(server: FixtureServer) -> FixtureServer:
    server.route("/storage/login", lambda h: h.reply(200, LOGIN))
    server.route("/storage/who", lambda h: h.reply(200, WHO))
    server.route("/storage/echo", _cookie_echo)
    return server


async def test_a_fresh_context_restored_from_the_saved_file_is_logged_in(
    browser: cdpkit.Browser, site: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    async with await browser.new_context() as first:
        page = await first.new_page()
        await tools.navigate(page, site.url("/storage/login"))
        saved = await tools.save_storage_state(first, path)
    # Playwright's shape, and private on disk (it holds credentials).
    on_disk = json.loads(path.read_text())
    assert on_disk == saved
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    cookie = next(c for c in on_disk["cookies"] if c["name"] == "session")
    assert cookie["value"] == "abc123" and cookie["domain"] == "127.0.0.1" and cookie["path"] == "/"
    assert cookie["expires"] == -1 and cookie["sameSite"] in ("Strict", "Lax", "None")
    assert {"httpOnly", "secure"} <= cookie.keys()
    [origin] = on_disk["origins"]
    assert origin["origin"] == site.origin
    assert origin["localStorage"] == [{"name": "token", "value": "t-42"}]

    requests_before = len(site.requests)
    async with await browser.new_context() as second:
        await tools.load_storage_state(second, path)
        # Restoring localStorage went through the origin's root without contacting the site
        # (a late /favicon.ico of the first page may still arrive).
        assert "/" not in site.requests[requests_before:]
        page = await second.new_page()
        echoed = await tools.navigate(page, site.url("/storage/echo"))
        assert echoed.title == "session=abc123"  # the server got the cookie
        who = await tools.navigate(page, site.url("/storage/who"))
        assert who.title == "session=abc123|t-42|"  # sessionStorage is per tab: not in a new one
    async with await browser.new_context() as other:
        page = await other.new_page()
        assert (await tools.navigate(page, site.url("/storage/echo"))).title == ""


async def test_session_storage_is_saved_and_restored_into_an_open_tab_of_its_origin(
    browser: cdpkit.Browser, site: FixtureServer
) -> None:
    async with await browser.new_context() as first:
        page = await first.new_page()
        await tools.navigate(page, site.url("/storage/login"))
        state = await tools.save_storage_state(page)
    assert state["origins"][0]["sessionStorage"] == [{"name": "tab", "value": "first"}]
    async with await browser.new_context() as second:
        page = await second.new_page()
        await tools.navigate(page, site.url("/storage/echo"))
        await tools.load_storage_state(second, state)
        assert await tools.evaluate(page, "sessionStorage.getItem('tab')") == "first"


async def test_a_playwright_file_loads_as_it_is(browser: cdpkit.Browser, site: FixtureServer, tmp_path: Path) -> None:
    playwright_file = tmp_path / "pw.json"
    expires = int(time.time()) + 30 * 86400  # Chrome caps expiry at 400 days
    playwright_file.write_text(
        json.dumps(
            {
                "cookies": [
                    {"name": "pw", "value": "1", "domain": "127.0.0.1", "path": "/", "expires": expires,
                     "httpOnly": True, "secure": False, "sameSite": "Lax"}
                ],
                "origins": [{"origin": site.origin, "localStorage": [{"name": "token", "value": "from-pw"}]}],
            }
        )
    )
    async with await browser.new_context() as context:
        await tools.load_storage_state(context, playwright_file)
        page = await context.new_page()
        assert (await tools.navigate(page, site.url("/storage/echo"))).title == "pw=1"
        assert await tools.evaluate(page, "localStorage.getItem('token')") == "from-pw"
        saved = await tools.save_storage_state(context)
    [cookie] = saved["cookies"]
    assert abs(cookie["expires"] - expires) < 1 and cookie["httpOnly"] is True


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ("[]", "must be a JSON object"),
        ('{"cookies": {}}', "must be lists"),
        ('{"cookies": [{"name": "a"}]}', "cookies[0] needs at least name and value"),
        ('{"cookies": [{"name": "a", "value": "b"}]}', "needs a domain or a url"),
        ('{"cookies": [{"name": "a", "value": "b", "domain": "x", "sameSite": "lax"}]}', "use Strict, Lax or None"),
        ('{"origins": [{"origin": "file:///"}]}', "origins[0] needs an http(s) origin"),
    ],
)
async def test_a_bad_file_says_what_is_wrong(
    browser: cdpkit.Browser, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    async with await browser.new_context() as context:
        with pytest.raises(ValueError, match=re.escape(message)):
            await tools.load_storage_state(context, path)


async def test_launch_and_new_context_start_from_a_saved_login(
    browser: cdpkit.Browser, site: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    async with await browser.new_context() as first:
        page = await first.new_page()
        await tools.navigate(page, site.url("/storage/login"))
        await tools.save_storage_state(first, path)
    async with await browser.new_context(storage_state=path) as context:
        page = await context.new_page()
        assert (await tools.navigate(page, site.url("/storage/echo"))).title == "session=abc123"
    async with cdpkit.launch(storage_state=path) as launched:
        page = await launched.new_page()
        assert (await tools.navigate(page, site.url("/storage/who"))).title == "session=abc123|t-42|"
    # As a setting, every context the settings make starts logged in (pool workers too).
    settings = cdpkit.BrowserSettings(storage_state=path)
    async with await browser.new_context(settings=settings) as context:
        page = await context.new_page()
        assert (await tools.navigate(page, site.url("/storage/echo"))).title == "session=abc123"
    with pytest.raises(ValueError, match="storage_state"):
        cdpkit.BrowserSettings(storage_state=tmp_path / "missing.json")


async def test_cli_storage_state_starts_the_command_logged_in(
    site: FixtureServer, tmp_path: Path
) -> None:
    import subprocess
    import sys

    import anyio

    state = tmp_path / "state.json"
    state.write_text(
        json.dumps({"cookies": [{"name": "cli", "value": "yes", "domain": "127.0.0.1", "path": "/"}]})
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cdpkit", *args], capture_output=True, text=True, timeout=120
        )

    ok = await anyio.to_thread.run_sync(
        lambda: run("eval", "--storage-state", str(state), site.url("/storage/echo"), "document.title")
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "cli=yes"
    missing = await anyio.to_thread.run_sync(
        lambda: run("eval", "--storage-state", str(tmp_path / "nope.json"), site.url("/"), "1")
    )
    assert missing.returncode == 2 and "Invalid --storage-state" in missing.stderr
    with_connect = await anyio.to_thread.run_sync(
        lambda: run("eval", "--connect", "9222", "--storage-state", str(state), site.url("/"), "1")
    )
    assert with_connect.returncode == 2 and "--storage-state loads a login" in with_connect.stderr


async def test_saving_over_a_file_others_can_read_leaves_only_the_owner_reading(
    browser: cdpkit.Browser, site: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    path.write_text("{}")
    path.chmod(0o644)  # e.g. made by an editor or a copy, before the first save
    async with await browser.new_context() as context:
        page = await context.new_page()
        await tools.navigate(page, site.url("/storage/login"))
        await tools.save_storage_state(context, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert any(c["value"] == "abc123" for c in json.loads(path.read_text())["cookies"])
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # nothing left beside it
