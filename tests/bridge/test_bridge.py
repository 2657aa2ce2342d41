"""``connect("extension")``: the person's own running browser, driven through the shipped
extension and the bridge its native host starts, as a person's browser runs (see
conftest.py). Covers the person's logged-in tab and its protected download, new tabs,
two clients at once, the CLI, the REPL and the MCP server over ``--connect extension``,
strangers refused, and the faults: a closed tab, a killed browser, a killed bridge, an
idle minute."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
import websockets

import cdpkit
from cdpkit import cdp, tools
from cdpkit._bridge import extension_id, read_bridge_info
from tests.bridge.conftest import PersonsBrowser
from tests.server import FixtureServer, Handler

StartBrowser = Callable[..., PersonsBrowser]
REPORT = b"%PDF-1.4 the quarterly report\n" * 2000


def account_site(server: FixtureServer) -> str:
    """A page the person is logged in to (a session cookie), whose report downloads only
    with that cookie and the page's Referer."""

    def account(h: Handler) -> None:
        body = ('<!doctype html><title>Account</title><h1>Welcome back, Ada</h1>'
                '<a href="/bridge/report" id="report">Quarterly report</a>'
                '<button onclick="console.log(\'archived\')">Archive</button>')  # fmt: skip
        h.reply(200, body, headers={"Set-Cookie": "session=ada-s3cret; Path=/"})

    def report(h: Handler) -> None:
        cookie_ok = "session=ada-s3cret" in (h.headers.get("Cookie") or "")
        referer_ok = (h.headers.get("Referer") or "").startswith(server.origin)
        if cookie_ok and referer_ok:
            h.reply(200, REPORT, "application/pdf",
                    headers={"Content-Disposition": 'attachment; filename="report.pdf"'})  # fmt: skip
        else:
            h.reply(403, "log in first", "text/plain")

    server.route("/bridge/account", account)
    server.route("/bridge/report", report)
    return server.url("/bridge/account")


def persons_tab(browser: cdpkit.Browser, part: str) -> cdpkit.Page:
    return next(page for page in browser.pages if part in page.url)


async def test_a_script_drives_the_persons_logged_in_tab_and_its_protected_download(
    persons_browser: StartBrowser, server: FixtureServer, other_server: FixtureServer,
    tmp_path: Path,
) -> None:
    url = account_site(server)
    # A frame of another site (its own process), and a page only the browser may show.
    frame = other_server.url("/bridge/ad").replace("127.0.0.1", "localhost")
    other_server.route("/bridge/ad", lambda h: h.reply(200, "<p>An offer from elsewhere</p>"))
    server.route("/bridge/framed", lambda h: h.reply(200, f'<h1>Inbox</h1><iframe src="{frame}"></iframe>'))
    opener = server.url("/bridge/opener")
    server.route("/bridge/opener", lambda h: h.reply(
        200, f'<script>open("{server.url("/bridge/framed")}"); location = "{url}"</script>'))  # fmt: skip
    person = persons_browser(opener)
    person.bridge()
    async with cdpkit.connect("extension") as browser:
        assert browser.version.product.startswith("Chrome/")
        inbox = str(await tools.snapshot(persons_tab(browser, "/bridge/framed")))
        assert "An offer from elsewhere" in inbox, inbox
        page = persons_tab(browser, "/bridge/account")
        outline = str(await tools.snapshot(page))
        assert 'heading "Welcome back, Ada"' in outline
        # Fetched in the page's own session: its cookie and Referer.
        fetched = await tools.download(page, url=server.url("/bridge/report"), dest_dir=tmp_path / "a")
        assert Path(fetched.path).read_bytes() == REPORT
        # A download the page starts comes through Chrome's own downloads.
        async with tools.expect_download(page, dest_dir=tmp_path / "b") as pending:
            await tools.click(page, role="link", name="Quarterly report")
        saved = pending.value
        assert Path(saved.path).read_bytes() == REPORT and saved.filename == "report.pdf"
    # Leaving the block left the person's tab as it was, and the bridge serves the next.
    async with cdpkit.connect("extension") as browser:
        page = persons_tab(browser, "/bridge/account")
        assert page.url == url
        title = await page.send(cdp.runtime.evaluate("document.title", return_by_value=True))
        assert title.result.value == "Account"


async def test_pages_of_the_browser_and_of_extensions_are_not_listed(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    url = account_site(server)
    person = persons_browser(url, port=True)
    person.bridge()
    port = int((person.user_data_dir / "DevToolsActivePort").read_text().split()[0])
    async with cdpkit.connect(f"http://127.0.0.1:{port}") as scaffold:  # what no page may open
        for hidden in ("chrome://version/", f"chrome-extension://{extension_id()}/popup.html"):
            await scaffold.call("Target.createTarget", {"url": hidden})
        async with cdpkit.connect("extension") as browser:
            assert [page.url for page in browser.pages] == [url]
            with pytest.raises(cdpkit.CDPError, match="chrome://"):
                await browser.call("Target.createTarget", {"url": "chrome://settings/"})


async def test_each_client_sees_the_persons_tabs_and_its_own_and_commands_interleave(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    url = account_site(server)
    persons_browser(url).bridge()
    async with cdpkit.connect("extension") as first, cdpkit.connect("extension") as second:
        mine, theirs = await asyncio.gather(first.new_page(), second.new_page())
        await asyncio.gather(
            tools.navigate(mine, server.url("/bridge/account?first")),
            tools.navigate(theirs, server.url("/bridge/account?second")),
        )
        persons = persons_tab(first, "account").target_id
        assert {p.target_id for p in first.pages} == {persons, mine.target_id}
        assert {p.target_id for p in second.pages} == {persons, theirs.target_id}

        async def count(page: cdpkit.Page, base: int) -> list[int]:
            answers = await asyncio.gather(*(
                page.send(cdp.runtime.evaluate(f"{base} + {i}", return_by_value=True)) for i in range(60)
            ))  # fmt: skip
            return [answer.result.value for answer in answers]

        ones, twos = await asyncio.gather(count(mine, 1000), count(theirs, 2000))
        assert ones == [1000 + i for i in range(60)] and twos == [2000 + i for i in range(60)]
        # One client's page events never reach the other.
        async with first.listen(cdp.target.TargetCreated) as created:
            await second.new_page()
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(1.5):
                    await anext(aiter(created))
        with pytest.raises(cdpkit.CDPError, match="person's own profile"):
            await first.new_context()
        # The second client cannot reach the first's tab by its id, nor use its session.
        with pytest.raises(cdpkit.CDPError, match="No target"):
            await second.call("Target.attachToTarget", {"targetId": mine.target_id, "flatten": True})
        with pytest.raises(cdpkit.CDPError, match="No target"):
            await second.call("Target.closeTarget", {"targetId": mine.target_id})
        info = read_bridge_info()
        assert info is not None
        async with websockets.connect(info.client_url, additional_headers={
                "Authorization": f"Bearer {info.token}"}) as raw:  # fmt: skip
            await raw.send(json.dumps({"id": 1, "sessionId": mine.session_id,
                                       "method": "Runtime.evaluate", "params": {"expression": "1"}}))  # fmt: skip
            answer = json.loads(await raw.recv())
            assert answer["error"]["message"] == "Session with given id not found.", answer
    async with cdpkit.connect("extension") as later:  # the clients' own tabs were closed
        assert [p.url for p in later.pages] == [url]


async def test_strangers_get_no_cdp_answer(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    person = persons_browser(account_site(server))
    info = person.bridge()
    assert stat.S_IMODE(person.bridge_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(person.bridge_file.parent.stat().st_mode) == 0o700
    assert len(info.token) >= 22  # at least 128 bits (base64url)
    client = f"ws://127.0.0.1:{info.port}/client"
    extension = f"ws://127.0.0.1:{info.port}/extension?token={info.token}"
    refused = [
        (client, {}),  # no token
        (client, {"Authorization": "Bearer " + "x" * len(info.token)}),  # a wrong one
        (client + "?token=" + info.token[:-1], {}),
        (client, {"Authorization": f"Bearer {info.token}", "Origin": server.origin}),  # a web page
        (client, {"Authorization": f"Bearer {info.token}", "Origin": "null"}),
        (extension, {}),  # not the extension
        (extension, {"Origin": "chrome-extension://" + "a" * 32}),  # another extension
        (extension, {"Origin": "null"}),
        (extension.replace(info.token, "wrong"), {"Origin": f"chrome-extension://{extension_id()}"}),
    ]
    for url, headers in refused:
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(url, additional_headers=headers, open_timeout=10):
                pass
    with pytest.raises(OSError):  # loopback 127.0.0.1 only
        socket.create_connection(("127.0.0.2", info.port), timeout=2).close()
    # A page inside the person's own browser, even one that knows the token.
    async with cdpkit.connect("extension") as browser:
        page = await browser.new_page(server.url("/bridge/account"))
        script = f"""new Promise(done => {{
            const results = [];
            const urls = ["{client}?token={info.token}", "{extension}"];
            let left = urls.length;
            for (const url of urls) {{
                const ws = new WebSocket(url);
                ws.onopen = () => results.push("open " + url);
                ws.onclose = () => {{ if (--left === 0) done(results.join(",") || "refused"); }};
            }}
        }})"""
        answer = await page.send(cdp.runtime.evaluate(script, await_promise=True, return_by_value=True))
        assert answer.result.value == "refused"
        # The bridge still serves the person's own clients.
        assert (await page.send(cdp.runtime.evaluate("1 + 1", return_by_value=True))).result.value == 2


async def test_closing_the_tab_a_client_drives_fails_its_pending_calls_at_once(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    persons_browser(account_site(server)).bridge()
    async with cdpkit.connect("extension") as browser, cdpkit.connect("extension") as person:
        page = persons_tab(browser, "account")
        hanging = asyncio.ensure_future(
            page.send(cdp.runtime.evaluate("new Promise(() => {})", await_promise=True), timeout=60)
        )
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await persons_tab(person, "account").close()  # as the person closes it
        with pytest.raises(cdpkit.TargetClosedError):
            await hanging
        assert time.monotonic() - started < 10  # not the call's 60 s
        assert page.closed


async def test_a_browser_that_quits_fails_every_clients_calls_within_seconds(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    person = persons_browser(account_site(server))
    person.bridge()
    async with cdpkit.connect("extension") as first, cdpkit.connect("extension") as second:
        calls = [
            asyncio.ensure_future(persons_tab(client, "account").send(
                cdp.runtime.evaluate("new Promise(() => {})", await_promise=True), timeout=60))
            for client in (first, second)
        ]  # fmt: skip
        await asyncio.sleep(0.5)
        os.killpg(person.process.pid, signal.SIGKILL)
        started = time.monotonic()
        for call in calls:
            with pytest.raises(cdpkit.ConnectionClosedError):
                await call
        assert time.monotonic() - started < 10
    # No browser and no client left: the bridge ends, and says so by removing its file.
    deadline = time.monotonic() + 30
    while person.bridge_file.exists() and time.monotonic() < deadline:  # noqa: ASYNC110 (a file)
        await asyncio.sleep(0.2)
    assert not person.bridge_file.exists()


async def test_a_killed_bridge_is_started_again_by_the_extension(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    person = persons_browser(account_site(server))
    old = person.bridge()
    os.kill(old.pid, signal.SIGKILL)
    started = time.monotonic()
    new = person.bridge(timeout=15, other_than=old.pid)
    assert time.monotonic() - started < 10 and new.token != old.token
    async with cdpkit.connect("extension") as browser:
        assert (str(await tools.snapshot(persons_tab(browser, "account")))).count("Welcome back") == 1


async def test_an_idle_client_still_drives_its_tab_after_a_minute(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    persons_browser(account_site(server)).bridge()
    async with cdpkit.connect("extension") as browser:
        page = persons_tab(browser, "account")
        await asyncio.sleep(65)  # Chrome stops an idle MV3 worker after about 30 s
        await tools.navigate(page, server.url("/bridge/account?later"))
        assert 'heading "Welcome back, Ada"' in str(await tools.snapshot(page))


async def test_a_client_drives_its_tab_on_after_chrome_stops_the_extensions_worker(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    person = persons_browser(account_site(server), port=True)
    person.bridge()
    log = person.bridge_file.with_name("bridge.log")
    port = int((person.user_data_dir / "DevToolsActivePort").read_text().split()[0])
    async with cdpkit.connect("extension") as browser:
        page = persons_tab(browser, "account")
        await tools.navigate(page, server.url("/bridge/account?before"))
        async with cdpkit.connect(f"http://127.0.0.1:{port}") as scaffold:
            # What Chrome does to an idle MV3 worker, done now.
            await scaffold.pages[0].call("ServiceWorker.enable")
            await scaffold.pages[0].call("ServiceWorker.stopAllWorkers")
        deadline = time.monotonic() + 20
        while log.read_text().count("The extension connected") < 2:
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        assert "connection closed" in log.read_text()
        await tools.navigate(page, server.url("/bridge/account?after"))
        assert 'heading "Welcome back, Ada"' in str(await tools.snapshot(page))


async def test_leaving_detaches_from_the_persons_tabs(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    url = account_site(server)
    person = persons_browser(url, port=True)
    person.bridge()
    port = int((person.user_data_dir / "DevToolsActivePort").read_text().split()[0])
    version = await asyncio.to_thread(
        lambda: json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version").read())
    )
    # A bare connection to the browser that attaches to nothing: it reads whether anyone
    # (here, the extension's chrome.debugger) is attached to the person's tab.
    async with websockets.connect(version["webSocketDebuggerUrl"], max_size=None) as watcher:

        async def attached() -> bool:
            await watcher.send(json.dumps({"id": 1, "method": "Target.getTargets"}))
            while True:
                answer = json.loads(await watcher.recv())
                if answer.get("id") == 1:
                    break
            return next(t["attached"] for t in answer["result"]["targetInfos"] if t["url"] == url)

        assert not await attached()
        async with cdpkit.connect("extension") as browser:
            await tools.snapshot(persons_tab(browser, "account"))
            assert await attached()
        deadline = time.monotonic() + 5
        while await attached():
            assert time.monotonic() < deadline, "still attached after the client left"
            await asyncio.sleep(0.1)


def cdpkit_command(person: PersonsBrowser, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cdpkit", *args], input=stdin, capture_output=True,
                          text=True, env=person.env, timeout=90)  # fmt: skip


def test_the_commands_and_the_repl_take_connect_extension(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    url = account_site(server)
    person = persons_browser(url)
    person.bridge()
    shown = cdpkit_command(person, "snapshot", server.url("/bridge/account?cli"), "--connect", "extension")
    assert shown.returncode == 0, shown.stderr
    assert 'heading "Welcome back, Ada"' in shown.stdout
    repl = cdpkit_command(person, "repl", "--connect", "extension",
                          stdin=f":goto {server.url('/bridge/account?repl')}\n:snapshot -i\n")  # fmt: skip
    assert 'link "Quarterly report"' in repl.stdout, repl.stdout + repl.stderr


async def test_the_mcp_server_drives_the_persons_browser_over_connect_extension(
    persons_browser: StartBrowser, server: FixtureServer
) -> None:
    from tests.mcp.conftest import McpSession, text_of

    persons_browser(account_site(server)).bridge()
    session = await McpSession(["--connect", "extension"]).start()
    try:
        tabs = text_of(await session.call("browser_tabs", {"action": "list"}))
        assert "/bridge/account" in tabs, tabs
        text = text_of(await session.call("browser_navigate", {"url": server.url("/bridge/account?mcp")}))
        assert "Welcome back" in text or "Account" in text, text
        outline = text_of(await session.call("browser_snapshot"))
        assert "Welcome back, Ada" in outline
    finally:
        await session.stop()


async def test_without_a_bridge_connect_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    with pytest.raises(cdpkit.ConnectError, match="cdpkit extension install"):
        async with cdpkit.connect("extension"):
            pass
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "CDPKIT_NO_DAEMON": "1"}
    shown = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "cdpkit", "snapshot", "http://127.0.0.1:9/", "--connect",
                         "extension"], capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert shown.returncode == 1 and "cdpkit extension path" in shown.stderr, shown.stderr
