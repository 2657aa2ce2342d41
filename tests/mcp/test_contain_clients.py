"""Clients of one streamable-HTTP server keep their ``browse`` sessions and their
recordings to themselves (issue 41): a client never sees, uses or closes another's named
session (its login), and a recording holds only the steps of the client that started it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from mcp import Client

import cdpkit
from tests.server import FixtureServer, Handler

from .conftest import HttpServers, text_of

SECRET_SID = "sid=ALICE-SECRET-SID"
ALICE_TOKEN = "ALICE-URL-TOKEN"


def _account(handler: Handler) -> None:
    who = "alice" if SECRET_SID in (handler.headers.get("Cookie") or "") else "nobody"
    handler.reply(200, f"<title>Account</title><h1>Account of {who}</h1><p>Private to {who}.</p>")


@pytest.fixture
def pages(server: FixtureServer) -> FixtureServer:
    server.route(
        "/contain/login",
        lambda h: h.reply(
            200,
            "<title>Login</title><h1>Logged in</h1><p>Welcome back.</p>",
            headers={"Set-Cookie": f"{SECRET_SID}; Path=/"},
        ),
    )
    server.route("/contain/account", _account)
    return server


def _client(url: str, mode: Any = "auto") -> Client:
    # "auto": today's stateless protocol, the client told apart by its cookie (its id).
    return Client(url, mode=mode, read_timeout_seconds=120)


async def _call(client: Client, tool: str, arguments: dict[str, Any] | None = None) -> str:
    result = await client.call_tool(tool, arguments or {})
    assert not result.is_error, text_of(result)
    return text_of(result)


async def test_a_clients_browse_session_is_invisible_unusable_and_unclosable_by_another(
    servers: HttpServers, pages: FixtureServer
) -> None:
    http = servers.start()
    async with _client(http.url) as alice, _client(http.url) as bob:
        login = {"url": pages.url("/contain/login"), "session": "work", "max_tier": 1}
        await _call(alice, "browse", login)
        account = {"url": pages.url("/contain/account"), "session": "work", "max_tier": 1}
        assert "Account of alice" in await _call(alice, "browse", account)

        assert "work" not in await _call(bob, "session_list")
        closing = await bob.call_tool("session_close", {"name": "work"})
        assert closing.is_error and "open: none" in text_of(closing), text_of(closing)
        # The same name is a session of bob's own: without alice's cookie.
        said_to_bob = await _call(bob, "browse", account)
        assert "Account of nobody" in said_to_bob and "alice" not in said_to_bob
        await _call(bob, "session_close", {"name": "work"})  # bob's, not alice's

        assert "work" in await _call(alice, "session_list")
        assert "Account of alice" in await _call(alice, "browse", account)


async def test_a_clients_recording_holds_its_own_steps_only(
    servers: HttpServers, pages: FixtureServer
) -> None:
    http = servers.start()
    alice_url = pages.url(f"/contain/account?token={ALICE_TOKEN}")
    bob_url = pages.url("/contain/account?who=bob")
    async with _client(http.url) as alice, _client(http.url) as bob:
        # Bob records first: alice's steps, taken while his recording runs, are not his.
        await _call(bob, "browser_start_recording", {"filename": "bob.py"})
        await _call(alice, "browser_start_recording", {"filename": "alice.py"})
        await _call(alice, "browser_navigate", {"url": alice_url})
        await _call(bob, "browser_navigate", {"url": bob_url})
        bobs = await _call(bob, "browser_stop_recording")
        alices = await _call(alice, "browser_stop_recording")

    assert ALICE_TOKEN not in bobs and bob_url in bobs, bobs
    assert alice_url in alices and bob_url not in alices, alices
    bob_file = (servers.tmp_path / "bob.py").read_text()
    assert ALICE_TOKEN not in bob_file and bob_url in bob_file
    assert alice_url in (servers.tmp_path / "alice.py").read_text()


async def _browser_contexts(endpoint: str) -> set[str]:
    async with cdpkit.connect(endpoint) as browser:
        reply = await browser.call("Target.getBrowserContexts")
    return set(reply.get("browserContextIds", []))


async def test_a_client_that_ends_takes_its_browse_sessions_and_leaves_the_browser(
    servers: HttpServers, pages: FixtureServer
) -> None:
    # A client's browse sessions run in the browser the clients share: when the client
    # ends, its sessions' contexts close, and the browser stays for the others.
    http = servers.start()
    endpoint = f"http://127.0.0.1:{servers.debug_port}"
    async with _client(http.url, "legacy") as bob:  # legacy: its DELETE ends it at once
        await _call(bob, "browser_navigate", {"url": pages.url("/contain/account")})
        bobs_only = await _browser_contexts(endpoint)
        async with _client(http.url, "legacy") as alice:
            login = {"url": pages.url("/contain/login"), "session": "work", "tier": 3}
            await _call(alice, "browse", login)
            assert len(await _browser_contexts(endpoint) - bobs_only) == 1
        deadline = time.monotonic() + 30
        while await _browser_contexts(endpoint) != bobs_only:
            assert time.monotonic() < deadline, "alice's browse session outlived her client"
            await asyncio.sleep(0.2)
        tabs = await _call(bob, "browser_tabs", {"action": "list"})
        assert pages.url("/contain/account") in tabs
        assert "Account of nobody" in await _call(bob, "browser_get_visible_text")


async def test_record_over_http_writes_each_clients_steps_to_a_file_of_its_own(
    servers: HttpServers, pages: FixtureServer
) -> None:
    script = servers.tmp_path / "session.py"
    http = servers.start("--record", str(script))
    alice_url = pages.url(f"/contain/account?token={ALICE_TOKEN}")
    bob_url = pages.url("/contain/account?who=bob")
    async with _client(http.url) as alice, _client(http.url) as bob:
        await _call(alice, "browser_navigate", {"url": alice_url})
        await _call(bob, "browser_navigate", {"url": bob_url})
        # Each client's --record file is written after each of its steps.
        written = {path.name: path.read_text() for path in servers.tmp_path.glob("session-*.py")}
    alices = [name for name, text in written.items() if alice_url in text]
    bobs = [name for name, text in written.items() if bob_url in text]
    assert len(alices) == len(bobs) == 1 and alices != bobs, written
    assert ALICE_TOKEN not in written[bobs[0]] and bob_url not in written[alices[0]]
    assert ALICE_TOKEN not in script.read_text()  # the server's own: no client's steps
