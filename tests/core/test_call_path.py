"""The per-call path stays cheap without losing a guarantee: calls share one deadline timer
yet each still times out on time, and an answer read from the pipe reaches its caller at
once (no reader task switch), while a closed pipe still fails every pending call.

No browser: a session on a transport the test scripts (or on two OS pipes it holds the
other ends of), so what is asserted is exactly what cdpkit does with what it reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import math
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

import cdpkit
from cdpkit._core.transport import PipeTransport, TransportClosed
from cdpkit.connection import Connection, _decode
from cdpkit.session import Session


class _SilentTransport:
    """Accepts every command and answers only those the test answers by hand."""

    max_command_size = 1 << 20

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self._incoming: asyncio.Queue[str | None] = asyncio.Queue()

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def recv(self) -> str | bytes:
        text = await self._incoming.get()
        if text is None:
            raise TransportClosed("the test closed the transport")
        return text

    def answer(self, message_id: int) -> None:
        self._incoming.put_nowait(json.dumps({"id": message_id, "result": {"ok": True}}))

    async def close(self, grace: float = 2.0) -> None:
        self._incoming.put_nowait(None)


@asynccontextmanager
async def _session(transport: Any) -> AsyncIterator[tuple[Connection, Session]]:
    connection = Connection(transport)
    root = Session(connection, None, command_timeout=30)
    connection.start(root)
    try:
        yield connection, root
    finally:
        await connection.close()


def _count_timers(loop: asyncio.AbstractEventLoop) -> Callable[[], int]:
    """Count the timers the loop is asked for from now on."""
    calls = 0
    call_at = loop.call_at

    def counting(*args: Any, **kwargs: Any) -> asyncio.TimerHandle:
        nonlocal calls
        calls += 1
        return call_at(*args, **kwargs)

    loop.call_at = counting  # type: ignore[method-assign,assignment]
    return lambda: calls


async def test_many_pending_calls_share_one_timer_and_all_time_out_on_time() -> None:
    transport = _SilentTransport()
    async with _session(transport) as (_, root):
        loop = asyncio.get_running_loop()
        timers = _count_timers(loop)
        try:
            started = time.monotonic()
            results = await asyncio.gather(
                *(root.call("Runtime.evaluate", timeout=0.5) for _ in range(500)),
                return_exceptions=True,
            )
            elapsed = time.monotonic() - started
        finally:
            del loop.call_at
        assert all(isinstance(r, cdpkit.CommandTimeoutError) for r in results)
        assert "Runtime.evaluate got no answer within 0.5 s" in str(results[0])
        assert 0.5 <= elapsed < 0.5 + 5  # far below the alternative: 500 timers in a row
        # One timer for the earliest deadline, re-armed as they pass: not one per call.
        assert timers() < 50, timers()
        assert not root._pending and not root._deadlines


async def test_a_shorter_timeout_sent_later_still_fires_first_and_on_time() -> None:
    transport = _SilentTransport()
    async with _session(transport) as (_, root):
        slow = asyncio.ensure_future(root.call("Page.slow", timeout=20))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(cdpkit.CommandTimeoutError, match=r"Page\.quick got no answer"):
            await root.call("Page.quick", timeout=0.3)
        assert 0.3 <= time.monotonic() - started < 0.3 + 5  # not the 20 s one's deadline
        assert not slow.done()  # the long deadline is untouched
        transport.answer(transport.sent[0]["id"])
        assert await slow == {"ok": True}


async def test_answered_calls_never_delay_a_later_timeout() -> None:
    transport = _SilentTransport()
    async with _session(transport) as (_, root):
        # Many answered calls leave stale deadlines behind; they are dropped, not waited on.
        for _ in range(200):
            call = asyncio.ensure_future(root.call("Runtime.evaluate", timeout=0.2))
            await asyncio.sleep(0)
            transport.answer(transport.sent[-1]["id"])
            assert await call == {"ok": True}
        assert len(root._deadlines) <= 1
        started = time.monotonic()
        with pytest.raises(cdpkit.CommandTimeoutError):
            await root.call("Runtime.evaluate", timeout=0.3)
        assert 0.3 <= time.monotonic() - started < 0.3 + 5  # bounds a hang


async def test_a_long_timeout_does_not_make_answered_calls_pile_up() -> None:
    transport = _SilentTransport()
    async with _session(transport) as (_, root):
        waiting = asyncio.ensure_future(root.call("Runtime.evaluate", timeout=3600))
        await asyncio.sleep(0)
        for _ in range(1_000):
            call = asyncio.ensure_future(root.call("Runtime.evaluate", timeout=30))
            await asyncio.sleep(0)
            transport.answer(transport.sent[-1]["id"])
            await call
        assert len(root._deadlines) < 2 * 2 + 64 + 2
        waiting.cancel()


async def test_a_closed_session_keeps_no_timer_or_deadline() -> None:
    transport = _SilentTransport()
    async with _session(transport) as (connection, root):
        calls = [asyncio.ensure_future(root.call("Runtime.evaluate")) for _ in range(10)]
        await asyncio.sleep(0)
        connection.abort("the test aborted the connection")
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(r, cdpkit.ConnectionClosedError) for r in results)
        assert "the test aborted the connection" in str(results[0])
        assert root._deadline_timer is None and not root._deadlines


@asynccontextmanager
async def _pipe_session() -> AsyncIterator[tuple[PipeTransport, Session, int, int]]:
    """A session on a real PipeTransport; yields the browser's ends (read, write)."""
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    transport = PipeTransport(from_browser_r, to_browser_w)
    await transport.start()
    try:
        async with _session(transport) as (_, root):
            await asyncio.sleep(0)  # the reader starts
            yield transport, root, to_browser_r, from_browser_w
    finally:
        for fd in (to_browser_r, from_browser_w):
            with contextlib.suppress(OSError):
                os.close(fd)


async def test_an_answer_read_from_the_pipe_reaches_its_caller_at_once() -> None:
    async with _pipe_session() as (transport, root, browser_in, _):
        call = asyncio.ensure_future(root.call("Browser.getVersion"))
        await asyncio.sleep(0)
        command = json.loads(os.read(browser_in, 65536).rstrip(b"\0"))
        assert command["method"] == "Browser.getVersion"
        (pending,) = root._pending.values()
        # The bytes as the pipe hands them over, split mid-message: the answer is routed
        # while they are being read, not in a later turn of a reader task.
        reply = json.dumps({"id": command["id"], "result": {"product": "Chrome/1"}}).encode()
        transport._feed(reply[:10])
        assert not pending.future.done()
        transport._feed(reply[10:] + b"\0")
        assert pending.future.done()
        assert await call == {"product": "Chrome/1"}


async def test_a_pipe_closed_by_the_browser_fails_every_pending_call_at_once() -> None:
    async with _pipe_session() as (_, root, _browser_in, browser_out):
        calls = [asyncio.ensure_future(root.call("Runtime.evaluate")) for _ in range(20)]
        await asyncio.sleep(0.05)
        started = time.monotonic()
        os.close(browser_out)  # the browser died: its end of the pipe closes
        results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
        assert time.monotonic() - started < 15  # at once, not the wait_for's 30 s
        assert all(isinstance(r, cdpkit.ConnectionClosedError) for r in results)
        assert "the browser closed the debugging pipe" in str(results[0])
        with pytest.raises(cdpkit.ConnectionClosedError):
            await root.call("Runtime.evaluate")


async def test_nothing_read_after_abort_reaches_the_sessions() -> None:
    async with _pipe_session() as (transport, root, _, _):
        seen: list[dict[str, Any]] = []
        root._on("Target.targetCreated", seen.append)
        event = b'{"method":"Target.targetCreated","params":{"n":1}}\0'
        transport._feed(event)
        assert seen == [{"n": 1}]
        root._connection.abort("the browser process died")
        transport._feed(event)
        assert seen == [{"n": 1}]


def _read_messages(fd: int, count: int) -> list[dict[str, Any]]:
    """Read ``count`` NUL-terminated commands from a pipe (blocking: run it in a thread)."""
    buffer = b""
    while buffer.count(b"\0") < count:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        buffer += chunk
    return [json.loads(text) for text in buffer.split(b"\0")[:count]]


async def test_a_burst_larger_than_the_pipe_buffer_is_written_at_once_and_all_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 2,000 commands of 1 KB: 30 times what the OS pipe holds. Each is queued whole by the
    # transport without its caller waiting for the buffer to drain (the slow path).
    waited: list[str] = []

    async def counting_send_text(self: Connection, text: str) -> None:
        waited.append(text)

    monkeypatch.setattr(Connection, "send_text", counting_send_text)
    async with _pipe_session() as (_, root, browser_in, browser_out):
        expression = "x" * 1000
        calls = [
            asyncio.ensure_future(root.call("Runtime.evaluate", {"expression": expression}))
            for _ in range(2_000)
        ]
        commands = await asyncio.wait_for(
            asyncio.to_thread(_read_messages, browser_in, 2_000), 10
        )
        assert waited == []
        # Whole and in order: every command parses, ids ascending.
        ids = [command["id"] for command in commands]
        assert ids == sorted(ids) and len(set(ids)) == 2_000
        assert all(command["params"]["expression"] == expression for command in commands)
        replies = b"".join(
            json.dumps({"id": i, "result": {"n": n}}).encode() + b"\0" for n, i in enumerate(ids)
        )
        await asyncio.to_thread(os.write, browser_out, replies)
        results = await asyncio.wait_for(asyncio.gather(*calls), 10)
        assert results == [{"n": n} for n in range(2_000)]


async def test_answers_the_fast_decoder_refuses_still_reach_their_callers() -> None:
    async with _pipe_session() as (transport, root, browser_in, _):
        call = asyncio.ensure_future(root.call("Runtime.evaluate"))
        await asyncio.sleep(0)
        command = json.loads(os.read(browser_in, 65536).rstrip(b"\0"))
        # A JavaScript string cut between the halves of a surrogate pair, and a NaN: msgspec
        # refuses both; the standard library reads them as Python does.
        reply = (
            b'{"id":%d,"result":{"lone":"a\\ud800b","pair":"\\ud83d\\ude00","nan":NaN}}\0'
            % command["id"]
        )
        transport._feed(reply)
        result = await asyncio.wait_for(call, 5)
        assert result["lone"] == "a\ud800b"
        assert result["pair"] == "\U0001f600"
        assert math.isnan(result["nan"])


def test_a_large_message_is_parsed_with_the_collector_paused() -> None:
    big = json.dumps({"id": 1, "result": {"nodes": [{"n": [i]} for i in range(100_000)]}})
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        message = _decode(big)
        # 200,000 containers: hundreds of collections while parsing them, were the collector
        # running; only the one that follows it now.
        assert len(collections) <= 1, len(collections)
        assert gc.isenabled()
        assert len(message["result"]["nodes"]) == 100_000
        gc.disable()  # a program that turned the collector off keeps it off
        try:
            _decode(big)
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(count)


async def test_a_message_nested_too_deeply_to_decode_does_not_take_the_connection_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with _pipe_session() as (transport, root, browser_in, _):
        deep = b'{"method":"Deep.event","params":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}\0"
        with caplog.at_level("WARNING", logger="cdpkit"):
            transport._feed(deep)
        assert "nested too deeply to decode" in caplog.text
        call = asyncio.ensure_future(root.call("Browser.getVersion"))
        await asyncio.sleep(0)
        command = json.loads(os.read(browser_in, 65536).rstrip(b"\0"))
        transport._feed(json.dumps({"id": command["id"], "result": {"ok": 1}}).encode() + b"\0")
        assert await asyncio.wait_for(call, 5) == {"ok": 1}
