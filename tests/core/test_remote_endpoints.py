"""connect() to a browser behind what remote fleets put in front of one: an endpoint that
wants a token (query) or a header, and a proxy that drops idle connections.

The browser is a real local Chrome; the proxies are small asyncio servers of this file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

import cdpkit
from cdpkit import cdp

TOKEN = "s3cr3t-t0ken"


@pytest.fixture(scope="module")
async def chrome_ws() -> AsyncIterator[str]:
    """A real Chrome listening on a TCP port; its browser WebSocket URL."""
    async with cdpkit.launch() as browser:
        assert browser.process is not None and browser.process.listening_url
        yield browser.process.listening_url


@asynccontextmanager
async def auth_proxy(upstream: str, *, header: bool) -> AsyncIterator[str]:
    """An endpoint like a hosted fleet's: ``/json/version`` and the WebSocket both want
    ``Authorization: Bearer TOKEN`` (``header``) or ``?token=TOKEN``; the WebSocket is
    relayed to ``upstream``. ``/json/version`` names a WebSocket URL without the token.
    Yields the endpoint's http URL (without the token)."""

    def allowed(request: Request) -> bool:
        if header:
            return request.headers.get("Authorization") == f"Bearer {TOKEN}"
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query)
        return query.get("token") == [TOKEN]

    port_box: list[int] = []

    def process_request(connection: ServerConnection, request: Request) -> Response | None:
        if not allowed(request):
            return connection.respond(401, "missing or wrong credentials\n")
        if request.path.split("?")[0] == "/json/version":
            body = json.dumps(
                {"webSocketDebuggerUrl": f"ws://127.0.0.1:{port_box[0]}/devtools/browser/x"}
            ).encode()
            headers = Headers([("Content-Type", "application/json"),
                               ("Content-Length", str(len(body)))])
            return Response(200, "OK", headers, body)
        return None  # the WebSocket upgrade goes on

    async def relay(client: ServerConnection) -> None:
        async with ws_connect(upstream, max_size=None, compression=None) as browser:

            async def pump(source: object, sink: object) -> None:
                async for message in source:  # type: ignore[attr-defined]
                    await sink.send(message)  # type: ignore[attr-defined]

            tasks = [asyncio.ensure_future(pump(client, browser)),
                     asyncio.ensure_future(pump(browser, client))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()

    async with serve(relay, "127.0.0.1", 0, process_request=process_request,
                     max_size=None, compression=None) as server:
        port_box.append(next(iter(server.sockets)).getsockname()[1])
        yield f"http://127.0.0.1:{port_box[0]}"


async def test_a_header_is_sent_on_the_lookup_and_the_upgrade(chrome_ws: str) -> None:
    async with auth_proxy(chrome_ws, header=True) as endpoint:
        with pytest.raises(cdpkit.ConnectError) as refused:
            await cdpkit.connect(endpoint, timeout=5)
        assert "401" in str(refused.value) and "credentials" in str(refused.value)
        # Straight to the WebSocket without the header: refused at the upgrade.
        ws = endpoint.replace("http://", "ws://") + "/devtools/browser/x"
        with pytest.raises(cdpkit.ConnectError, match="refused the WebSocket upgrade with HTTP 401"):
            await cdpkit.connect(ws, timeout=5)

        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with cdpkit.connect(endpoint, headers=headers, timeout=10) as browser:
            page = await browser.new_page()
            result = await page.send(cdp.runtime.evaluate("6 * 7"))
            assert result.result.value == 42
        async with cdpkit.connect(ws, headers=headers, timeout=10) as browser:
            assert (await browser.send(cdp.browser.get_version())).product.startswith("Chrome")


async def test_a_query_token_is_carried_to_the_websocket_and_never_shown(chrome_ws: str) -> None:
    async with auth_proxy(chrome_ws, header=False) as endpoint:
        # /json/version names a WebSocket URL without the token: cdpkit adds it there.
        async with cdpkit.connect(f"{endpoint}?token={TOKEN}", timeout=10) as browser:
            page = await browser.new_page()
            assert (await page.send(cdp.runtime.evaluate("1 + 1"))).result.value == 2

        with pytest.raises(cdpkit.ConnectError) as wrong:
            await cdpkit.connect(f"{endpoint}?token=wrong-{TOKEN}", timeout=5)
        message = str(wrong.value)
        assert "401" in message and f"{endpoint}/json/version?token=***" in message
        assert TOKEN not in message

        ws = endpoint.replace("http://", "ws://") + f"/devtools/browser/x?token=bad-{TOKEN}"
        with pytest.raises(cdpkit.ConnectError) as bad:
            await cdpkit.connect(ws, timeout=5)
        assert TOKEN not in str(bad.value) and "token=***" in str(bad.value)


async def test_credentials_in_the_url_are_masked_in_errors() -> None:
    with pytest.raises(cdpkit.ConnectError) as info:
        await cdpkit.connect("http://me:hunter2@127.0.0.1:9/?key=abc", timeout=5)
    message = str(info.value)
    assert "hunter2" not in message and "abc" not in message
    assert "http://me:***@127.0.0.1:9/json/version?key=***" in message


def test_bad_headers_and_keepalive_are_refused_at_the_call() -> None:
    with pytest.raises(ValueError, match="Invalid header"):
        cdpkit.connect("http://127.0.0.1:9", headers={"X-Token": "a\r\nInjected: yes"})
    with pytest.raises(TypeError, match="strings"):
        cdpkit.connect("http://127.0.0.1:9", headers={"X-Token": 5})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="keepalive"):
        cdpkit.connect("http://127.0.0.1:9", keepalive=0)


@asynccontextmanager
async def idle_dropping_proxy(upstream_port: int, idle: float) -> AsyncIterator[int]:
    """A TCP proxy that closes a connection after ``idle`` seconds without a byte from the
    client, as load balancers do. Yields its port."""
    tasks: set[asyncio.Task[None]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)

        async def client_to_browser() -> None:
            while True:
                data = await asyncio.wait_for(reader.read(65536), idle)
                if not data:
                    return
                up_writer.write(data)
                await up_writer.drain()

        async def browser_to_client() -> None:
            while data := await up_reader.read(65536):
                writer.write(data)
                await writer.drain()

        pumps = [asyncio.ensure_future(client_to_browser()),
                 asyncio.ensure_future(browser_to_client())]
        with contextlib.suppress(Exception):
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        writer.close()
        up_writer.close()

    def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(handle(reader, writer))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    server = await asyncio.start_server(track, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()


async def test_keepalive_pings_keep_an_idle_connection_through_a_proxy(chrome_ws: str) -> None:
    parsed = urllib.parse.urlsplit(chrome_ws)
    assert parsed.port is not None
    async with idle_dropping_proxy(parsed.port, idle=1.0) as port:
        url = chrome_ws.replace(f":{parsed.port}/", f":{port}/")
        async with cdpkit.connect(url, keepalive=0.3, timeout=10) as browser:
            await asyncio.sleep(2.5)  # idle far longer than the proxy allows
            assert (await browser.send(cdp.browser.get_version())).product.startswith("Chrome")
        # Without pings the same proxy drops it: the pings are what kept it.
        browser = await cdpkit.connect(url, keepalive=None, timeout=10)
        try:
            await asyncio.sleep(2.5)
            with pytest.raises(cdpkit.ConnectionClosedError):
                await browser.send(cdp.browser.get_version(), timeout=5)
        finally:
            with contextlib.suppress(Exception):
                await browser.close()



async def test_the_cli_sends_header_to_the_endpoint_and_never_prints_it(chrome_ws: str) -> None:
    async with auth_proxy(chrome_ws, header=True) as endpoint:

        async def snapshot(*extra: str) -> tuple[int, str, str]:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "cdpkit", "eval", "data:text/html,<title>t</title>",
                "6*7", "--connect", endpoint, "--timeout", "20", *extra,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(process.communicate(), 120)
            assert process.returncode is not None
            return process.returncode, out.decode(), err.decode()

        code, out, err = await snapshot("--header", f"Authorization: Bearer {TOKEN}")
        assert code == 0, err
        assert out.strip() == "42"
        code, out, err = await snapshot()
        assert code == 1 and "401" in err and "credentials" in err
        code, out, err = await snapshot("--header", "Authorization: Bearer wrong")
        assert code == 1 and "wrong" not in err and TOKEN not in err
