"""Several MCP clients on one streamable-HTTP server (issue 15): each client session works
in a browser context of its own (cookies, storage, tabs, active tab, snapshot indices),
closed when the client disconnects; ``--shared-context`` gives them one context."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from mcp import Client

from cdpkit.mcp._app import ClientSessions
from cdpkit.mcp._http import _SessionTracker
from cdpkit.mcp._session import BrowserSession, ServerOptions
from tests.server import DOWNLOADS, FixtureServer

from .conftest import HttpServer, HttpServers, browser_processes, text_of

LOGIN = """<title>login</title><script>document.cookie = "agent=yes; path=/";</script>
<p>logged in</p>"""
BUTTONS = "<title>buttons</title><button>One</button><button>Two</button>"
OTHER = "<title>other</title><a href='/x'>A link</a><input placeholder='Search'>"

StartServer = Callable[..., HttpServer]


def _client(server: HttpServer) -> AbstractAsyncContextManager[Client]:
    # "legacy": the initialize handshake, so the client has an mcp-session-id.
    return Client(server.url, mode="legacy", read_timeout_seconds=120)


async def _call(client: Client, tool: str, arguments: dict[str, Any] | None = None) -> str:
    result = await client.call_tool(tool, arguments or {})
    assert not result.is_error, text_of(result)
    return text_of(result)


async def _cookie(client: Client) -> str:
    return str(json.loads(await _call(client, "browser_execute_js", {"expression": "document.cookie"})))


async def _tabs(client: Client) -> list[dict[str, Any]]:
    tabs: list[dict[str, Any]] = json.loads(await _call(client, "browser_tabs", {"action": "list"}))
    return tabs


@pytest.fixture
def pages(server: FixtureServer) -> FixtureServer:
    server.route("/clients/login", lambda h: h.reply(200, LOGIN))
    server.route("/clients/buttons", lambda h: h.reply(200, BUTTONS))
    server.route("/clients/other", lambda h: h.reply(200, OTHER))
    return server


@asynccontextmanager
async def _two_clients(server: HttpServer) -> AsyncIterator[tuple[Client, Client]]:
    async with _client(server) as a, _client(server) as b:
        yield a, b


async def test_each_http_client_has_its_own_cookies_tabs_and_snapshots(
    servers: HttpServers, pages: FixtureServer
) -> None:
    http = servers.start()
    async with _client(http) as b:
        async with _client(http) as a:
            # Both first calls at once: one browser starts, each client gets a context.
            await asyncio.gather(
                _call(a, "browser_navigate", {"url": pages.url("/clients/login")}),
                _call(b, "browser_navigate", {"url": pages.url("/clients/other")}),
            )
            browsers = [
                cmd
                for _, cmd in browser_processes(http.marker)
                if "--remote-debugging" in cmd and "--type=" not in cmd
            ]
            assert len(browsers) == 1, browsers
            assert await _cookie(a) == "agent=yes"
            assert await _cookie(b) == ""  # same origin, but not A's cookie jar

            # Each client lists, opens and switches among its own tabs only.
            await _call(a, "browser_tabs", {"action": "new", "url": pages.url("/clients/buttons")})
            a_tabs = await _tabs(a)
            b_tabs = await _tabs(b)
            assert [t["url"] for t in a_tabs] == [
                pages.url("/clients/login"), pages.url("/clients/buttons")
            ]
            assert [t["url"] for t in b_tabs] == [pages.url("/clients/other")]
            assert b_tabs[0]["active"]
            result = await b.call_tool("browser_tabs", {"action": "switch", "tab_id": a_tabs[0]["id"]})
            assert result.is_error and "Unknown tab id" in text_of(result)
            assert pages.url("/clients/buttons") not in text_of(result)  # A's tabs stay unnamed

            # A's snapshot (of its active tab) is untouched by B's snapshots of B's tab.
            first = await _call(a, "browser_snapshot")
            assert "Two" in first
            await _call(b, "browser_snapshot")
            await _call(b, "browser_navigate", {"url": pages.url("/clients/login")})
            await _call(b, "browser_snapshot")
            assert "unchanged" in (await _call(a, "browser_snapshot", {"diff": True})).lower()
            assert "Search" not in await _call(a, "browser_snapshot")
            assert sorted(servers.browser_tab_urls()) == sorted(
                [pages.url("/clients/login")] * 2 + [pages.url("/clients/buttons")]
            )

        # A disconnected: its context is closed (its tabs are gone); B keeps working.
        deadline = time.monotonic() + 15
        while pages.url("/clients/buttons") in servers.browser_tab_urls():
            assert time.monotonic() < deadline, servers.browser_tab_urls()
            await asyncio.sleep(0.1)
        assert servers.browser_tab_urls() == [pages.url("/clients/login")]  # B's tab
        await _call(b, "browser_navigate", {"url": pages.url("/clients/other")})
        assert [t["url"] for t in await _tabs(b)] == [pages.url("/clients/other")]
        assert await _cookie(b) == "agent=yes"  # B's own login now, in B's own context

        # A client arriving later starts with a fresh context.
        async with _client(http) as c:
            await _call(c, "browser_navigate", {"url": pages.url("/clients/other")})
            assert await _cookie(c) == ""
            assert [t["url"] for t in await _tabs(c)] == [pages.url("/clients/other")]


@pytest.mark.parametrize("entry", [("-m", "cdpkit.mcp_server"), ("-m", "cdpkit", "mcp")])
async def test_shared_context_gives_http_clients_one_context(
    servers: HttpServers, pages: FixtureServer, entry: tuple[str, ...]
) -> None:
    http = servers.start("--shared-context", entry=entry)
    async with _two_clients(http) as (a, b):
        await _call(a, "browser_navigate", {"url": pages.url("/clients/login")})
        assert await _cookie(b) == "agent=yes"  # B acts on the same (active) tab
        await _call(b, "browser_tabs", {"action": "new", "url": pages.url("/clients/other")})
        assert await _cookie(b) == "agent=yes"
        assert [t["url"] for t in await _tabs(a)] == [
            pages.url("/clients/login"), pages.url("/clients/other")
        ]


async def test_an_idle_client_session_loses_its_context_and_a_busy_one_keeps_it() -> None:
    # The SDK ends a session after its idle timeout without a DELETE; the tracker ends
    # the session's browser context too (here with a timeout of 0.3 s and a fake app).
    release = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope["headers"])
        reply = [] if b"mcp-session-id" in headers else [(b"mcp-session-id", headers[b"x-new"])]
        if scope["path"] == "/slow":
            await release.wait()  # a request in flight (a long SSE stream, a slow tool)
        await send({"type": "http.response.start", "status": 200, "headers": reply})
        await send({"type": "http.response.body", "body": b""})

    async def request(path: str, headers: list[tuple[bytes, bytes]]) -> None:
        scope = {"type": "http", "method": "POST", "path": path, "headers": headers}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        async def send(message: Any) -> None:
            pass

        await tracker(scope, receive, send)

    root = BrowserSession(ServerOptions())
    clients = ClientSessions(root)
    tracker = _SessionTracker(app, clients, idle_timeout=0.3)
    try:
        for name in (b"idle", b"busy"):
            await request("/mcp", [(b"x-new", name)])  # initialize: the session opens
            clients.views[name.decode()] = root.for_client()
        slow = asyncio.create_task(request("/slow", [(b"mcp-session-id", b"busy")]))
        deadline = time.monotonic() + 10
        while "idle" in clients.views:
            assert time.monotonic() < deadline, "the idle session was never ended"
            await asyncio.sleep(0.05)
        assert list(tracker.open) == [b"busy"] and list(clients.views) == ["busy"]
        await asyncio.sleep(0.5)
        assert list(clients.views) == ["busy"]  # a request in flight keeps it
        release.set()
        await slow
        while clients.views:
            assert time.monotonic() < deadline, "the session was never ended once idle"
            await asyncio.sleep(0.05)
        assert not tracker.open
    finally:
        release.set()
        await tracker.stop()


async def test_a_download_in_a_clients_own_context_is_saved_and_listed(
    servers: HttpServers, server: FixtureServer
) -> None:
    server.route(
        "/clients/files",
        lambda h: h.reply(200, '<a id="get" href="/dl/report.pdf" download>Get the report</a>'),
    )
    http = servers.start()
    async with _client(http) as client:
        await _call(client, "browser_navigate", {"url": server.url("/clients/files")})
        await _call(client, "browser_click", {"selector": "#get"})
        listed = ""
        for _ in range(100):
            listed = await _call(client, "browser_downloads")
            if "completed" in listed:
                break
            await asyncio.sleep(0.1)
        assert f"{servers.tmp_path / 'report.pdf'}" in listed, listed
        assert (servers.tmp_path / "report.pdf").read_bytes() == DOWNLOADS["/dl/report.pdf"][0]


async def test_stateless_http_clients_each_have_their_own_context(
    servers: HttpServers, pages: FixtureServer
) -> None:
    # Today's SDK speaks the 2026 protocol by default: no initialize, no mcp-session-id.
    # The server tells its clients apart by the cookie it gives each one.
    http = servers.start()
    async with Client(http.url, read_timeout_seconds=120) as a, Client(http.url, read_timeout_seconds=120) as b:
        await _call(a, "browser_navigate", {"url": pages.url("/clients/login")})
        await _call(b, "browser_navigate", {"url": pages.url("/clients/other")})
        assert await _cookie(a) == "agent=yes"
        assert await _cookie(b) == ""  # same origin, but not A's cookie jar
        await _call(a, "browser_tabs", {"action": "new", "url": pages.url("/clients/buttons")})
        assert [t["url"] for t in await _tabs(a)] == [
            pages.url("/clients/login"), pages.url("/clients/buttons")
        ]
        assert [t["url"] for t in await _tabs(b)] == [pages.url("/clients/other")]
        # Longer idle than a kept-alive connection lives: a new connection, the same client.
        await asyncio.sleep(7)
        assert [t["url"] for t in await _tabs(a)] == [
            pages.url("/clients/login"), pages.url("/clients/buttons")
        ]
        await _call(b, "browser_navigate", {"url": pages.url("/clients/buttons")})
        assert await _cookie(b) == ""
        assert sorted(servers.browser_tab_urls()) == sorted(
            [pages.url("/clients/login"), pages.url("/clients/buttons"), pages.url("/clients/buttons")]
        )


async def test_a_client_that_never_sends_its_cookie_back_is_not_kept_for_the_idle_timeout() -> None:
    # A client keeping no cookie is a new client at each request (ids are never derived
    # from its connection): each one's context ends after the short unclaimed timeout,
    # while a client that sends its cookie back keeps its own for the idle timeout.
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def request(headers: list[tuple[bytes, bytes]]) -> str:
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
        set_cookie: list[bytes] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                set_cookie.extend(v for k, v in message["headers"] if k == b"set-cookie")

        await tracker(scope, receive, send)
        return set_cookie[0].decode().split(";")[0] if set_cookie else ""

    root = BrowserSession(ServerOptions())
    clients = ClientSessions(root)
    tracker = _SessionTracker(app, clients, idle_timeout=30, unclaimed_timeout=0.3)
    try:
        kept = await request([])
        await request([(b"cookie", kept.encode())])  # sent back: claimed
        forgetful = [await request([]) for _ in range(3)]
        assert len({kept, *forgetful}) == 4, "each cookie-less request is another client"
        assert len(tracker.open) == 4
        deadline = time.monotonic() + 10
        while len(tracker.open) > 1:
            assert time.monotonic() < deadline, "unclaimed clients were kept"
            await asyncio.sleep(0.05)
        assert [key.decode() for key in tracker.open] == [f"client:{kept.split('=', 1)[1]}"]
    finally:
        await tracker.stop()


async def test_a_request_refused_in_one_clients_tab_is_reported_to_that_client_only(
    servers: HttpServers, server: FixtureServer
) -> None:
    # The request guard serves every client of the server; what it refused in A's tab
    # (a URL that may carry a token) is A's to read, never B's.
    blocked = "http://127.0.0.1:1/next?token=SECRET-A"
    server.route(
        "/clients/leaves",
        lambda h: h.reply(
            200,
            f"<title>Leaves</title><p>Soon elsewhere</p>"
            f"<script>setTimeout(() => {{ location.href = {blocked!r} }}, 2500)</script>",
        ),
    )
    server.route("/clients/plain", lambda h: h.reply(200, OTHER))
    http = servers.start("--blocked-origins", "http://127.0.0.1:1")
    async with _two_clients(http) as (a, b):
        await _call(a, "browser_navigate", {"url": server.url("/clients/leaves")})
        await _call(b, "browser_navigate", {"url": server.url("/clients/plain")})
        await asyncio.sleep(3.5)  # A's page has tried to leave, and was refused
        said_to_b = await _call(b, "browser_snapshot") + await _call(b, "browser_tabs")
        assert "SECRET-A" not in said_to_b, said_to_b
        said_to_a = await _call(a, "browser_snapshot")
        assert "SECRET-A" in said_to_a, said_to_a  # A is told, with what was refused
