"""connect() and launch() say what went wrong: the endpoint, what it sent, which timeout
expired and how to change it, which arguments conflict."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

import cdpkit

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def tcp_server(handler: Handler) -> AsyncIterator[int]:
    """A raw TCP server on 127.0.0.1 running ``handler`` per connection; yields its port."""
    writers: list[asyncio.StreamWriter] = []

    async def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await handler(reader, writer)

    server = await asyncio.start_server(track, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in writers:
            writer.close()
        server.close()
        await server.wait_closed()


async def speaks_ssh(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"SSH-2.0-OpenSSH_9.2\r\n")
    await writer.drain()
    await reader.read()  # until the client goes


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read()  # accepts, answers nothing, until the client goes


async def test_connect_to_a_port_speaking_another_protocol() -> None:
    async with tcp_server(speaks_ssh) as port:
        started = time.monotonic()
        with pytest.raises(cdpkit.ConnectError) as info:
            await cdpkit.connect(f"http://127.0.0.1:{port}", timeout=30)
    assert time.monotonic() - started < 10  # reported at once, not at the 30 s deadline
    message = str(info.value)
    assert f"http://127.0.0.1:{port}/json/version did not answer HTTP" in message
    assert "SSH-2.0-OpenSSH_9.2" in message


async def test_connect_to_a_silent_port_times_out_clearly() -> None:
    async with tcp_server(silent) as port:
        started = time.monotonic()
        with pytest.raises(cdpkit.ConnectTimeoutError) as info:
            await cdpkit.connect(f"http://127.0.0.1:{port}", timeout=0.5)
    assert time.monotonic() - started < 0.5 + 10  # bounds a hang
    assert isinstance(info.value, TimeoutError) and isinstance(info.value, cdpkit.ConnectError)
    message = str(info.value)
    assert f"http://127.0.0.1:{port}" in message
    assert "0.5 s" in message and "connect(timeout=...)" in message


async def test_websocket_that_never_completes_the_upgrade_times_out_clearly() -> None:
    async with tcp_server(silent) as port:
        url = f"ws://127.0.0.1:{port}/devtools/browser/x"
        started = time.monotonic()
        with pytest.raises(cdpkit.ConnectTimeoutError) as info:
            await cdpkit.connect(url, timeout=0.5)
    assert time.monotonic() - started < 0.5 + 10  # bounds a hang
    message = str(info.value)
    assert f"WebSocket handshake with {url}" in message and "connect(timeout=...)" in message


async def test_websocket_url_speaking_another_protocol() -> None:
    # websockets waits for a complete HTTP head before judging it: this ends at the deadline.
    async with tcp_server(speaks_ssh) as port:
        url = f"ws://127.0.0.1:{port}/devtools/browser/x"
        with pytest.raises(cdpkit.ConnectError) as info:
            await cdpkit.connect(url, timeout=1)
    assert url in str(info.value)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"pipe": True, "args": ["--remote-debugging-port=9333"]}, "--remote-debugging-port"),
        ({"args": ["--user-data-dir=/tmp/elsewhere"]}, "--user-data-dir"),
        ({"pipe": True, "args": ["-remote-debugging-port=0"]}, "--remote-debugging-port"),
        ({"args": ["--remote-debugging-pipe"]}, "--remote-debugging-pipe"),
        ({"viewport": (800, 600), "args": ["--window-size=1000,700"]}, "--window-size"),
    ],
)
async def test_conflicting_arguments_are_refused_by_name(
    options: dict[str, object], named: str
) -> None:
    with pytest.raises(cdpkit.LaunchError, match="Conflicting Chrome arguments") as info:
        async with cdpkit.launch(**options):  # type: ignore[arg-type]
            pass
    assert named in str(info.value)


@pytest.mark.parametrize("viewport", [(0, 720), (1280,), (1280.5, 720), ("1280", "720"), 1280])
async def test_invalid_viewport_is_a_value_error(viewport: object) -> None:
    with pytest.raises(ValueError, match="viewport"):
        async with cdpkit.launch(viewport=viewport):  # type: ignore[arg-type]
            pass
