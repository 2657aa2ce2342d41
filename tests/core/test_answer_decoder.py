"""A call can decode its own answer (``Session.call(decoder=...)``, used by the snapshot to
skip the parts of a 9 MB accessibility tree it never reads): the decoder sees exactly that
answer, never another message; whatever it cannot decode is decoded by ``json.loads``;
errors still raise; and nothing is left registered once the call is over, answered or not.

No browser: a session on a transport the test scripts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

import cdpkit
from cdpkit._core.transport import TransportClosed
from cdpkit.connection import Connection
from cdpkit.session import Session


class _ScriptedTransport:
    """Records what is sent; the test hands over what the browser answers, as text."""

    max_command_size = 1 << 20

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self._incoming: asyncio.Queue[str | None] = asyncio.Queue()
        self._sent_one = asyncio.Event()

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))
        self._sent_one.set()

    async def recv(self) -> str | bytes:
        text = await self._incoming.get()
        if text is None:
            raise TransportClosed("the test closed the transport")
        return text

    def feed(self, text: str) -> None:
        self._incoming.put_nowait(text)

    async def next_sent(self) -> dict[str, Any]:
        while not self.sent:
            self._sent_one.clear()
            await self._sent_one.wait()
        return self.sent.pop(0)

    async def close(self, grace: float = 2.0) -> None:
        self._incoming.put_nowait(None)


@asynccontextmanager
async def _session() -> AsyncIterator[tuple[_ScriptedTransport, Connection, Session]]:
    transport = _ScriptedTransport()
    connection = Connection(transport)
    root = Session(connection, None, command_timeout=30)
    connection.start(root)
    try:
        yield transport, connection, root
    finally:
        await connection.close()


def _keeping(*keys: str, seen: list[str | bytes]) -> Any:
    """A decoder that keeps only ``keys`` of the result, recording what it was given."""

    def decode(data: str | bytes) -> dict[str, Any]:
        seen.append(data)
        message: dict[str, Any] = json.loads(data)
        message["result"] = {k: v for k, v in message["result"].items() if k in keys}
        return message

    return decode


async def test_the_decoder_decodes_its_answer_and_only_that() -> None:
    async with _session() as (transport, connection, root):
        seen: list[str | bytes] = []
        big = asyncio.ensure_future(
            root.call("Accessibility.getFullAXTree", decoder=_keeping("nodes", seen=seen))
        )
        small = asyncio.ensure_future(root.call("Browser.getVersion"))
        big_id = (await transport.next_sent())["id"]
        small_id = (await transport.next_sent())["id"]
        # Another call's answer and an event arrive first: json decodes them as always.
        transport.feed(json.dumps({"id": small_id, "result": {"product": "Chrome/1"}}))
        transport.feed(json.dumps({"method": "Target.targetCreated", "params": {"id": big_id}}))
        answer = json.dumps({"id": big_id, "result": {"nodes": [1, 2], "sources": ["x"]}})
        transport.feed(answer)
        assert await small == {"product": "Chrome/1"}
        assert await big == {"nodes": [1, 2]}
        assert seen == [answer]
        assert connection.answer_decoders == {}


async def test_what_the_decoder_refuses_json_decodes() -> None:
    def refuse(data: str | bytes) -> Any:
        raise ValueError("lone surrogate")

    async with _session() as (transport, connection, root):
        call = asyncio.ensure_future(root.call("Accessibility.getFullAXTree", decoder=refuse))
        message_id = (await transport.next_sent())["id"]
        # A lone surrogate, as Chrome escapes one: json.loads keeps it.
        transport.feed(f'{{"id":{message_id},"result":{{"name":"a\\ud800b"}}}}')
        assert await call == {"name": "a\ud800b"}
        assert connection.answer_decoders == {}


async def test_an_error_answer_still_raises_through_the_decoder() -> None:
    async with _session() as (transport, connection, root):
        seen: list[str | bytes] = []
        call = asyncio.ensure_future(
            root.call("Accessibility.getFullAXTree", decoder=_keeping("nodes", seen=seen))
        )
        message_id = (await transport.next_sent())["id"]
        transport.feed(json.dumps(
            {"id": message_id, "error": {"code": -32000, "message": "Frame not found"}}
        ))
        with pytest.raises(cdpkit.ProtocolError, match="Frame not found") as raised:
            await call
        assert raised.value.method == "Accessibility.getFullAXTree"
        assert connection.answer_decoders == {}


async def test_a_call_that_times_out_or_is_cancelled_leaves_no_decoder_behind() -> None:
    async with _session() as (transport, connection, root):
        seen: list[str | bytes] = []
        with pytest.raises(cdpkit.CommandTimeoutError):
            await root.call("Accessibility.getFullAXTree", timeout=0.05,
                            decoder=_keeping("nodes", seen=seen))
        cancelled = asyncio.ensure_future(
            root.call("Accessibility.getFullAXTree", decoder=_keeping("nodes", seen=seen))
        )
        await transport.next_sent()
        late_id = (await transport.next_sent())["id"]
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert connection.answer_decoders == {}
        # Their late answers are dropped, decoded by no one.
        transport.feed(json.dumps({"id": late_id, "result": {"nodes": []}}))
        after = asyncio.ensure_future(root.call("Browser.getVersion"))
        after_id = (await transport.next_sent())["id"]
        transport.feed(json.dumps({"id": after_id, "result": {"product": "Chrome/1"}}))
        assert await after == {"product": "Chrome/1"}  # read after the late answer
        assert seen == []
