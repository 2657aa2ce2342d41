"""Message transports to a browser: a WebSocket, or the ``--remote-debugging-pipe`` pipes.

A transport moves whole JSON texts and nothing else; ids, routing and errors live in
:mod:`cdpkit.connection`. ``recv()`` raises :class:`TransportClosed` with a reason in words
once the peer is gone. The pipe also offers two fast paths the connection uses when they
exist: ``send_nowait`` (write without awaiting, the transport buffering) and ``deliver_to``
(hand each message over as it is read, instead of through ``recv``).
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable, Mapping
from typing import Protocol

import websockets
from websockets.asyncio.client import ClientConnection

from .secrets import get_logger

# Chrome's own limit for one DevTools message it sends is 256 MiB; allow more, never less.
MAX_MESSAGE_SIZE = 512 * 1024 * 1024

# The largest command Chrome accepts: its DevTools HTTP server reads at most 100 MiB per
# WebSocket frame *including* the frame header (14 bytes for a masked client frame this
# large), and drops the connection beyond that. Measured on Chromium 156.
WEBSOCKET_MAX_COMMAND_SIZE = 100 * 1024 * 1024 - 14
# The pipe's limit, measured the same way: 100 MiB for the message and its NUL terminator.
PIPE_MAX_COMMAND_SIZE = 100 * 1024 * 1024 - 1


# Seconds a polite close waits for the browser (e.g. the WebSocket closing handshake).
CLOSE_GRACE = 2.0


class TransportClosed(Exception):
    """The transport is closed; ``reason`` says why in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Transport(Protocol):
    """Moves whole JSON texts. ``send`` hands the whole message to the OS-level transport
    before it first awaits (it then only waits for the buffer to drain), so cancelling it
    never leaves half a message on the wire."""

    max_command_size: int  # the largest message (UTF-8 bytes) the browser accepts

    async def send(self, text: str) -> None: ...

    async def recv(self) -> str | bytes: ...

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Close, waiting at most ``grace`` seconds for the other end to take part; then
        the connection is cut."""
        ...


class WebSocketTransport:
    """CDP over a WebSocket, with compression off (it triples the cost of large messages).

    Keepalive pings are off for a local browser; :func:`cdpkit.connect` turns them on for
    proxies in front of a remote one, without a pong deadline (an idle or busy but healthy
    browser must never be dropped for a late pong)."""

    max_command_size = WEBSOCKET_MAX_COMMAND_SIZE

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        timeout: float | None,
        headers: Mapping[str, str] | None = None,
        ping_interval: float | None = None,
    ) -> WebSocketTransport:
        ws = await websockets.connect(
            url,
            additional_headers=dict(headers) if headers else None,
            compression=None,
            max_size=MAX_MESSAGE_SIZE,
            ping_interval=ping_interval,
            ping_timeout=None,
            open_timeout=timeout,
            close_timeout=CLOSE_GRACE,
            user_agent_header=None,
            # Its DEBUG lines show each frame; one answers a proxy's challenge, password and all.
            logger=get_logger("websockets.client"),
        )
        return cls(ws)

    async def send(self, text: str) -> None:
        try:
            await self._ws.send(text)
        except websockets.ConnectionClosed as exc:
            raise TransportClosed(_describe_ws_close(exc)) from None

    async def recv(self) -> str | bytes:
        try:
            return await self._ws.recv()
        except websockets.ConnectionClosed as exc:
            raise TransportClosed(_describe_ws_close(exc)) from None

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        ws = self._ws
        ws.close_timeout = grace  # websockets cuts the connection after it
        try:
            # Bounded here too: with a peer that stopped reading, the close frame waits
            # for the send buffer to drain, which the close timeout does not cover.
            async with asyncio.timeout(grace):
                await ws.close()
        except TimeoutError:
            ws.transport.abort()


def _describe_ws_close(exc: websockets.ConnectionClosed) -> str:
    frame = exc.rcvd or exc.sent
    if frame is None:
        return "WebSocket connection to the browser was lost (no close frame)"
    reason = f": {frame.reason}" if frame.reason else ""
    return f"WebSocket closed with code {frame.code}{reason}"


class PipeTransport:
    """CDP over ``--remote-debugging-pipe``: NUL-terminated JSON texts on two OS pipes.

    ``write_fd`` is the pipe Chrome reads as its fd 3, ``read_fd`` the one it writes as fd 4.
    """

    max_command_size = PIPE_MAX_COMMAND_SIZE

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._messages: deque[bytes] = deque()
        self._partial: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._closed: str | None = None
        self._read_transport: asyncio.ReadTransport | None = None
        self._write_transport: asyncio.WriteTransport | None = None
        self._write_protocol: _WriteProtocol | None = None
        self._on_message: Callable[[bytes], None] | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        reader = os.fdopen(self._read_fd, "rb", buffering=0)
        writer = os.fdopen(self._write_fd, "wb", buffering=0)
        self._read_transport, _ = await loop.connect_read_pipe(lambda: _ReadProtocol(self), reader)
        self._write_transport, self._write_protocol = await loop.connect_write_pipe(
            _WriteProtocol, writer
        )

    def deliver_to(self, on_message: Callable[[bytes], None]) -> None:
        """Hand every message to ``on_message`` as it is read, in order, instead of queueing
        it for :meth:`recv` (which then only waits for the pipe to close, and raises).

        Saves the reader a task switch per message: the answer reaches its caller in the
        same event loop iteration that read it. Messages already queued go first.
        """
        while self._messages:
            on_message(self._messages.popleft())
        self._on_message = on_message

    # Called by _ReadProtocol.
    def _feed(self, data: bytes) -> None:
        deliver = self._on_message
        start = 0
        while True:
            end = data.find(b"\0", start)
            if end < 0:
                if start < len(data):
                    self._partial.append(data[start:])
                break
            piece = data[start:end]
            if self._partial:
                self._partial.append(piece)
                piece = b"".join(self._partial)
                self._partial.clear()
            start = end + 1
            if deliver is not None:
                deliver(piece)
            else:
                self._messages.append(piece)
        if deliver is None:
            self._wake()

    def _eof(self, reason: str) -> None:
        if self._closed is None:
            self._closed = reason
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def send_nowait(self, text: str) -> bool:
        """Write ``text`` now, without waiting; always ``True`` (written).

        What the OS pipe cannot take yet waits in the transport's buffer, in order. A
        caller gains nothing by waiting for that buffer to drain: the message is queued
        whole either way, its answer cannot come before it is read, and the caller's
        timeout already bounds the wait for that answer (so a browser that stops reading
        cannot block anyone). Waiting cost a future and a wake-up per call whenever a
        burst of calls outran the browser.

        Raises:
            TransportClosed: The pipe is closed.
        """
        transport = self._write_transport
        if self._closed is not None or transport is None:
            raise TransportClosed(self._closed or "pipe transport not started")
        if transport.is_closing():
            raise TransportClosed("the browser closed its end of the pipe")
        transport.write(text.encode() + b"\0")
        return True

    async def send(self, text: str) -> None:
        if self._closed is not None or self._write_transport is None:
            raise TransportClosed(self._closed or "pipe transport not started")
        if self._write_transport.is_closing():
            raise TransportClosed("the browser closed its end of the pipe")
        self._write_transport.write(text.encode() + b"\0")
        assert self._write_protocol is not None
        await self._write_protocol.drain()

    async def recv(self) -> str | bytes:
        while not self._messages:
            if self._closed is not None:
                raise TransportClosed(self._closed)
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._messages.popleft()

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Close both pipes at once (``grace`` is not needed: nothing is waited for)."""
        self._eof("pipe transport closed")
        for transport in (self._write_transport, self._read_transport):
            if transport is not None:
                transport.close()


class _ReadProtocol(asyncio.Protocol):
    def __init__(self, owner: PipeTransport) -> None:
        self._owner = owner

    def data_received(self, data: bytes) -> None:
        self._owner._feed(data)

    def eof_received(self) -> bool | None:
        self._owner._eof("the browser closed the debugging pipe")
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._owner._eof("the browser closed the debugging pipe")


class _WriteProtocol(asyncio.BaseProtocol):
    """Flow control for the write pipe: ``drain`` waits while the pipe buffer is full.

    Every waiting sender shares one future, so all of them wake when writing resumes.
    """

    def __init__(self) -> None:
        self._resumed: asyncio.Future[None] | None = None
        self._lost = False

    def pause_writing(self) -> None:
        if self._resumed is None or self._resumed.done():
            self._resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self.resume_writing()

    async def drain(self) -> None:
        resumed = self._resumed
        if resumed is not None and not resumed.done():
            await asyncio.shield(resumed)  # a cancelled sender must not cancel the others' wait
        if self._lost:
            raise TransportClosed("the browser closed the debugging pipe")
