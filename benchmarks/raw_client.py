"""The raw client: the physical limit of a Python CDP client, the baseline cdpkit is held to.

No abstraction on purpose: one reader task, ids matched by hand with a dict of futures,
``json.loads``/``json.dumps``, flattened sessions addressed by ``sessionId``. Events go to one
optional callback. Two transports: a websocket (compression off, no size limit, no pings)
found through ``DevToolsActivePort``, or ``--remote-debugging-pipe`` (fds 3/4, NUL-separated).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

Event = dict[str, Any]


class RawClient:
    """One connection: ``send`` a command and await its result; events go to ``on_event``."""

    def __init__(self, send_text: Callable[[str], Any]) -> None:
        self._send_text = send_text
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.on_event: Callable[[Event], None] | None = None

    def receive(self, data: str | bytes) -> None:
        message = json.loads(data)
        future = self._pending.pop(message["id"], None) if "id" in message else None
        if future is not None:
            if "error" in message:
                future.set_exception(RuntimeError(f"{message['error']}"))
            else:
                future.set_result(message["result"])
        elif self.on_event is not None:
            self.on_event(message)

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None) -> Any:
        call_id = next(self._ids)
        message: dict[str, Any] = {"id": call_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future = asyncio.get_running_loop().create_future()
        self._pending[call_id] = future
        await self._send_text(json.dumps(message))
        return await future

    async def open_page(self, url: str | None = None) -> str:
        """Open a tab, attach to it as a flattened session, enable Page and load ``url``."""
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        session = str(attached["sessionId"])
        await self.send("Page.enable", None, session)
        if url is not None:
            await self.load(session, url)
        return session

    async def load(self, session: str, url: str) -> None:
        """Navigate the page and wait for its load event."""
        loaded = asyncio.get_running_loop().create_future()

        def on_event(event: Event) -> None:
            if (event.get("method") == "Page.loadEventFired"
                    and event.get("sessionId") == session and not loaded.done()):
                loaded.set_result(None)

        self.on_event = on_event
        await self.send("Page.navigate", {"url": url}, session)
        await loaded


@contextlib.asynccontextmanager
async def launch(chrome: str, flags: Sequence[str], *, pipe: bool = False
                 ) -> AsyncIterator[RawClient]:
    """Start Chrome with a fresh profile, connect, and kill its process group on exit."""
    profile = tempfile.mkdtemp(prefix="bench-raw-")
    args = [chrome, *flags, f"--user-data-dir={profile}"]
    try:
        if pipe:
            async with _launch_pipe(args) as client:
                yield client
        else:
            async with _launch_port([*args, "--remote-debugging-port=0"], profile) as client:
                yield client
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.asynccontextmanager
async def _launch_port(args: list[str], profile: str) -> AsyncIterator[RawClient]:
    proc = _spawn(args)
    try:
        port_file = Path(profile, "DevToolsActivePort")
        while not port_file.exists() or port_file.stat().st_size == 0:
            if proc.poll() is not None:
                raise RuntimeError(f"Chrome exited with {proc.returncode}")
            await asyncio.sleep(0.005)
        port, path = port_file.read_text().split()[:2]
        async with connect(f"ws://127.0.0.1:{port}{path}", compression=None, max_size=None,
                           ping_interval=None, proxy=None) as ws:
            client = RawClient(ws.send)

            async def read() -> None:
                async for data in ws:
                    client.receive(data)

            reader = asyncio.create_task(read())
            try:
                yield client
            finally:
                reader.cancel()
    finally:
        _kill(proc)


@contextlib.asynccontextmanager
async def _launch_pipe(args: list[str]) -> AsyncIterator[RawClient]:
    # Chrome reads commands from fd 3 and writes replies to fd 4. Keep our ends above 4 so
    # the dup2 calls in the child cannot clobber each other.
    to_chrome_r, to_chrome_w = (_high_fd(fd) for fd in os.pipe())
    from_chrome_r, from_chrome_w = (_high_fd(fd) for fd in os.pipe())

    def map_fds() -> None:
        os.dup2(to_chrome_r, 3)
        os.dup2(from_chrome_w, 4)

    proc = _spawn([*args, "--remote-debugging-pipe"], preexec_fn=map_fds)
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    loop = asyncio.get_running_loop()
    writer, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(to_chrome_w, "wb", 0))

    async def send_text(text: str) -> None:
        writer.write(text.encode() + b"\0")

    client = RawClient(send_text)
    reader, _ = await loop.connect_read_pipe(
        lambda: _NulSplitter(client.receive), os.fdopen(from_chrome_r, "rb", 0))
    try:
        yield client
    finally:
        writer.close()
        reader.close()
        _kill(proc)


class _NulSplitter(asyncio.Protocol):
    def __init__(self, on_message: Callable[[bytes], None]) -> None:
        self._on_message = on_message
        self._buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        start = len(self._buffer)  # the previous bytes hold no NUL: search only the new ones
        self._buffer += data
        end = self._buffer.find(b"\0", start)
        while end >= 0:
            message = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._on_message(message)
            end = self._buffer.find(b"\0")


def _high_fd(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def _spawn(args: list[str], preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen[bytes]:
    # Own process group, so teardown reaches every Chrome child; output discarded so it
    # can never block Chrome.
    return subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=preexec_fn is None, preexec_fn=preexec_fn)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
