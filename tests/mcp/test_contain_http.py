"""The streamable-HTTP server keeps its clients to themselves (issue 41): a request must
name the server by the address it listens on (no DNS rebinding, whatever the bind
address is spelled as), and a client is known by an id the server gave it, never by the
address and port it connects from."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h11
import httpx
import pytest
from mcp import Client

from tests.server import FixtureServer, free_port

from .conftest import ROOT, server_env

LOGIN = """<title>login</title><script>document.cookie = "agent=yes; path=/";</script>
<p>logged in</p>"""


class _Server:
    """``cdpkit mcp --http HOST:PORT`` in a subprocess, reached at ``connect``."""

    def __init__(
        self, process: subprocess.Popen[bytes], bind: str, connect: str, port: int, log: Path
    ) -> None:
        self.process = process
        self.bind = bind
        self.connect = connect
        self.port = port
        self.log = log

    @property
    def url(self) -> str:
        return f"http://{self.connect}:{self.port}/mcp"


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    started: list[_Server] = []

    def start_server(bind: str, connect: str, *args: str) -> _Server:
        port = free_port()
        log = tmp_path / f"server-{port}.log"
        with log.open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "cdpkit", "mcp", "--http", f"{bind}:{port}", *args],
                cwd=ROOT,
                env=server_env(uuid.uuid4().hex),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        server = _Server(process, bind, connect, port, log)
        started.append(server)
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as sock:
                sock.settimeout(0.5)
                if sock.connect_ex((connect, port)) == 0:
                    return server
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the HTTP server did not listen within 60 s"
            time.sleep(0.1)

    try:
        yield start_server
    finally:
        for server in started:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()


_VERSION = "2026-07-28"


def _request(method: str, params: dict[str, Any] | None = None) -> tuple[dict[str, str], bytes]:
    """The headers and body of a stateless (2026) MCP request, as the official SDK sends it."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": _VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": _VERSION,
        "mcp-method": method,
    }
    if params is not None and "name" in params:
        headers["mcp-name"] = params["name"]
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }
    return headers, json.dumps(body).encode()


def _answer(content_type: str, body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC answer in a response body (JSON or an SSE stream), if any."""
    texts = [body.decode()]
    if content_type.startswith("text/event-stream"):
        texts = [
            line[5:].strip() for line in body.decode().splitlines() if line.startswith("data:")
        ]
    for text in texts:
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and "id" in message:
            return message
    return None


# -- the Host and Origin a request carries --------------------------------------------------


@pytest.mark.parametrize(
    ("bind", "connect", "own_host"),
    [
        ("127.0.0.2", "127.0.0.2", "127.0.0.2"),  # loopback, but not the SDK's exact strings
        ("127.1", "127.0.0.1", "127.1"),  # 127.0.0.1 in another spelling
        ("0.0.0.0", "127.0.0.1", "127.0.0.1"),  # every interface
    ],
)
async def test_a_request_naming_another_host_gets_no_mcp_answer(
    start: Any, bind: str, connect: str, own_host: str
) -> None:
    server = start(bind, connect)
    port = server.port
    headers, body = _request("server/discover")
    async with httpx.AsyncClient(timeout=30) as http:

        async def post(**extra: str) -> httpx.Response:
            return await http.post(server.url, headers={**headers, **extra}, content=body)

        # A web page of a rebinding name (evil.test resolved to the server's address).
        for host in (
            f"evil.test:{port}",
            f"localhost.evil.test:{port}",
            f"{own_host}.evil.test:{port}",
        ):
            refused = await post(host=host)
            assert refused.status_code in (403, 421), (host, refused.status_code, refused.text)
            assert _answer(refused.headers.get("content-type", ""), refused.content) is None
            assert "set-cookie" not in refused.headers and "mcp-session-id" not in refused.headers
        # The right host, but a page of another origin sends it.
        for origin in (f"http://evil.test:{port}", "null", f"http://{own_host}:{port + 1}"):
            refused = await post(host=f"{own_host}:{port}", origin=origin)
            assert refused.status_code == 403, (origin, refused.status_code, refused.text)
            assert _answer(refused.headers.get("content-type", ""), refused.content) is None
        # The server named as it was bound: answered.
        for host, origin in (
            (f"{own_host}:{port}", None),
            (f"{own_host}:{port}", f"http://{own_host}:{port}"),
        ):
            extra = {"host": host, **({"origin": origin} if origin else {})}
            answered = await post(**extra)
            assert answered.status_code == 200, (extra, answered.text)
            answer = _answer(answered.headers.get("content-type", ""), answered.content)
            assert answer is not None and "result" in answer, answered.text

    # The official client, at the URL the server printed, works as before.
    assert f"http://{bind}:{port}/mcp" in server.log.read_text()
    async with Client(server.url, read_timeout_seconds=60) as client:
        assert "browser_navigate" in {tool.name for tool in (await client.list_tools()).tools}


async def test_a_loopback_server_is_also_localhost(start: Any) -> None:
    server = start("127.0.0.2", "127.0.0.2")
    headers, body = _request("server/discover")
    async with httpx.AsyncClient(timeout=30) as http:
        for host in (
            f"localhost:{server.port}",
            f"127.0.0.2:{server.port}",
            f"0x7f.0.0.2:{server.port}",
        ):
            answered = await http.post(server.url, headers={**headers, "host": host}, content=body)
            assert answered.status_code == 200, (host, answered.text)
        # Another loopback address is another server.
        other = await http.post(
            server.url, headers={**headers, "host": f"127.0.0.1:{server.port}"}, content=body
        )
        assert other.status_code in (403, 421), other.text
        wrong_port = await http.post(
            server.url, headers={**headers, "host": f"127.0.0.2:{server.port + 1}"}, content=body
        )
        assert wrong_port.status_code in (403, 421), wrong_port.text


# -- who a client is ------------------------------------------------------------------------


class _RawClient:
    """One HTTP/1.1 connection from a chosen local port, keeping no cookies but those it
    is told to send."""

    def __init__(self, server: _Server, source_port: int) -> None:
        self.server = server
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", source_port))
        self.sock.settimeout(120)
        self.sock.connect((server.connect, server.port))
        self.http = h11.Connection(h11.CLIENT)

    def call(
        self, method: str, params: dict[str, Any], cookie: str | None = None
    ) -> tuple[dict[str, Any], str | None]:
        """The JSON-RPC answer, and the client id the server set as a cookie (if it did)."""
        headers, body = _request(method, params)
        headers["host"] = f"{self.server.connect}:{self.server.port}"
        headers["content-length"] = str(len(body))
        if cookie is not None:
            headers["cookie"] = f"cdpkit-mcp-client={cookie}"
        self.sock.sendall(
            self.http.send(h11.Request(method="POST", target="/mcp", headers=list(headers.items())))
        )
        self.sock.sendall(self.http.send(h11.Data(data=body)) + self.http.send(h11.EndOfMessage()))
        response: Any = None
        chunks = []
        while True:
            event = self.http.next_event()
            if event is h11.NEED_DATA:
                self.http.receive_data(self.sock.recv(65536))
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
        self.http.start_next_cycle()
        assert response is not None and response.status_code == 200, (response, chunks)
        names = {name.decode().lower(): value.decode() for name, value in response.headers}
        answer = _answer(names.get("content-type", ""), b"".join(chunks))
        assert answer is not None and "result" in answer, chunks
        set_cookie = names.get("set-cookie", "")
        client_id = set_cookie.partition("cdpkit-mcp-client=")[2].partition(";")[0] or None
        return answer["result"], client_id

    def tool(
        self, name: str, arguments: dict[str, Any], cookie: str | None = None
    ) -> tuple[str, str | None]:
        result, client_id = self.call("tools/call", {"name": name, "arguments": arguments}, cookie)
        assert not result.get("isError"), result
        return "\n".join(
            part["text"] for part in result["content"] if part["type"] == "text"
        ), client_id

    def leave(self) -> None:
        # Reset, not a FIN: no TIME_WAIT keeps the port, as a client that crashes or is killed.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


def _tab_urls(listing: str) -> list[str]:
    return [tab["url"] for tab in json.loads(listing)]


async def test_a_process_reusing_a_clients_source_port_is_not_that_client(
    start: Any, server: FixtureServer
) -> None:
    server.route("/contain/login", lambda h: h.reply(200, LOGIN))
    server.route("/contain/plain", lambda h: h.reply(200, "<title>plain</title>"))
    login, plain = server.url("/contain/login"), server.url("/contain/plain")
    mcp = start("127.0.0.1", "127.0.0.1", "--allow-js")
    source_port = free_port()

    def victim_then_attacker() -> tuple[str | None, str | None, str, str]:
        victim = _RawClient(mcp, source_port)
        _, victim_id = victim.tool("browser_navigate", {"url": login})
        victim.leave()
        # Another local process, from the same source port, right after: no cookie.
        attacker = _RawClient(mcp, source_port)
        tabs, attacker_id = attacker.tool("browser_tabs", {"action": "list"})
        attacker.tool("browser_navigate", {"url": plain}, attacker_id)  # the victim's site
        cookies, _ = attacker.tool(
            "browser_execute_js", {"expression": "document.cookie"}, attacker_id
        )
        attacker.leave()
        return victim_id, attacker_id, tabs, cookies

    victim_id, attacker_id, tabs, cookies = await asyncio.to_thread(victim_then_attacker)
    assert victim_id is not None  # a cookie-less client is told its id
    assert attacker_id is not None and attacker_id != victim_id
    assert login not in tabs, tabs  # not the victim's tabs
    assert json.loads(cookies) == ""  # nor its cookie jar

    # The victim, presenting the id it was given, is still itself (from any port).
    def victim_returns() -> str:
        victim = _RawClient(mcp, free_port())
        try:
            return victim.tool("browser_tabs", {"action": "list"}, victim_id)[0]
        finally:
            victim.leave()

    assert _tab_urls(await asyncio.to_thread(victim_returns)) == [login]


async def test_a_client_without_a_cookie_is_a_new_client_each_request(
    start: Any, server: FixtureServer
) -> None:
    # Even on one kept-alive connection: the connection is no proof of who sends.
    server.route("/contain/login", lambda h: h.reply(200, LOGIN))
    mcp = start("127.0.0.1", "127.0.0.1")

    def two_requests() -> tuple[str | None, str | None, str]:
        client = _RawClient(mcp, free_port())
        try:
            _, first = client.tool("browser_navigate", {"url": server.url("/contain/login")})
            tabs, second = client.tool("browser_tabs", {"action": "list"})
        finally:
            client.leave()
        return first, second, tabs

    first, second, tabs = await asyncio.to_thread(two_requests)
    assert first and second and first != second
    assert _tab_urls(tabs) == []  # not the tab the first request opened

    # A made-up id is no id: the server gives a fresh one.
    def made_up() -> str | None:
        client = _RawClient(mcp, free_port())
        try:
            return client.tool("browser_tabs", {"action": "list"}, "made-up")[1]
        finally:
            client.leave()

    fresh = await asyncio.to_thread(made_up)
    assert fresh and fresh not in ("made-up", first, second)
