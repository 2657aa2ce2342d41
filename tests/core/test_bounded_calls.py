"""Every call is bounded, the write included: a browser that stops reading (a SIGSTOPped
Chrome, a peer that never reads) cannot make a send, a call or close() hang, and a command
larger than Chrome accepts is refused before it could kill the connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import ServerConnection, serve

import cdpkit
from cdpkit import cdp
from tests.core.test_fault_injection import FakePeer
from tests.core.test_launch import group_alive

CALLS = 2_000
TIMEOUT = 2.0


@contextlib.contextmanager
def stopped(pgid: int) -> Iterator[None]:
    """SIGSTOP a whole Chrome process group for the block; always SIGCONT it after."""
    os.killpg(pgid, signal.SIGSTOP)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGCONT)


BIG_EXPRESSION = "'" + "x" * (64 * 1024 * 1024) + "'.length"


def _time_to_encode(expression: str) -> float:
    """How long building the command text of ``expression`` takes here, in seconds."""
    started = time.monotonic()
    json.dumps({"expression": expression}, ensure_ascii=False).encode()
    return time.monotonic() - started


async def _flood(page: cdpkit.Page, *, big: bool) -> list[BaseException | dict[str, object]]:
    calls = [
        page.call("Runtime.evaluate", {"expression": f"{i} + 1"}, timeout=TIMEOUT)
        for i in range(CALLS)
    ]
    if big:  # 64 MiB to a browser that reads nothing: queued, never drained
        calls.append(page.call("Runtime.evaluate", {"expression": BIG_EXPRESSION}, timeout=TIMEOUT))
    return await asyncio.gather(*calls, return_exceptions=True)


@pytest.mark.parametrize("pipe", [True, False], ids=["pipe", "port"])
async def test_calls_to_a_stopped_chrome_all_time_out_and_close_is_bounded(pipe: bool) -> None:
    async with cdpkit.launch(pipe=pipe) as browser:
        assert browser.process is not None
        pgid, profile = browser.process.pid, browser.process.user_data_dir
        page = await browser.new_page()
        with stopped(pgid):
            started = time.monotonic()
            results = await asyncio.wait_for(_flood(page, big=True), 30)
            elapsed = time.monotonic() - started
            failures = [r for r in results if not isinstance(r, cdpkit.CommandTimeoutError)]
            assert failures == [], failures[:3]
            # The timeouts, plus the time it takes to put the 64 MiB command's JSON together
            # (no timer can interrupt that; over a second on a loaded machine), with room for
            # the suite's parallel workers (5.5 s seen on CI): a hang would reach the 30 s above.
            assert elapsed < TIMEOUT + 10 + _time_to_encode(BIG_EXPRESSION), elapsed
            assert "Runtime.evaluate got no answer within 2 s" in str(results[0])
            started = time.monotonic()
            await asyncio.wait_for(browser.close(), 15)
            # Browser.close gets 2 s, then the group is killed with no extra grace.
            assert time.monotonic() - started < 2.0 + 8  # a hang would reach the 15 s above
    assert not group_alive(pgid)
    assert not profile.exists()


@asynccontextmanager
async def deaf_peer() -> AsyncIterator[tuple[cdpkit.Browser, list[int], asyncio.Event]]:
    """A fake browser that stops reading after startup until ``resume`` is set, then
    answers every Runtime.evaluate with the expression's length (also listed in the
    yielded list, in order)."""
    answered: list[int] = []
    resume = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        peer = FakePeer(ws)
        pump = asyncio.ensure_future(peer.pump())
        try:
            await peer.next_command("Deaf.start")
            ws.transport.pause_reading()
            await resume.wait()
            ws.transport.resume_reading()
            while True:
                getter = asyncio.ensure_future(peer.next_command("Runtime.evaluate"))
                await asyncio.wait({getter, pump}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():  # the client closed the connection
                    getter.cancel()
                    return
                command = getter.result()
                value = len(command["params"]["expression"])
                answered.append(value)
                await peer.send({"id": command["id"], "result": {"result": {"type": "number", "value": value}}})
        finally:
            pump.cancel()

    async with serve(handler, "127.0.0.1", 0, max_size=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with cdpkit.connect(f"ws://127.0.0.1:{port}/devtools/browser/fake", timeout=5) as b:
            try:
                yield b, answered, resume
            finally:
                resume.set()  # let the peer finish, whatever the test did


async def test_send_to_a_peer_that_stops_reading_times_out_and_the_stream_stays_whole() -> None:
    async with deaf_peer() as (browser, answered, resume):
        with contextlib.suppress(cdpkit.CommandTimeoutError):
            await browser.call("Deaf.start", timeout=0.5)
        expression = "'" + "y" * (4 * 1024 * 1024) + "'"  # 20 of these fill every buffer
        # Each call ends by its own 1 s timeout (CommandTimeoutError); the 30 s bound is only
        # against a hang (asyncio's TimeoutError), however long encoding 80 MB takes on a
        # loaded machine.
        results = await asyncio.wait_for(
            asyncio.gather(
                *(browser.call("Runtime.evaluate", {"expression": expression}, timeout=1)
                  for _ in range(20)),
                return_exceptions=True,
            ),
            30,
        )
        assert all(isinstance(r, cdpkit.CommandTimeoutError) for r in results), results[:3]
        # The timed-out messages were whole: once the peer reads again, it parses every one
        # of them, and the connection keeps working.
        resume.set()
        after = await browser.send(cdp.runtime.evaluate("'after'"), timeout=30)
        assert after.result.value == len("'after'")
        assert answered == [len(expression)] * 20 + [len("'after'")]


async def test_oversized_command_is_refused_before_sending(page: cdpkit.Page) -> None:
    expression = "'" + "z" * (120 * 1024 * 1024) + "'.length"
    with pytest.raises(cdpkit.CommandTooLargeError) as info:
        await page.send(cdp.runtime.evaluate(expression))
    message = str(info.value)
    assert info.value.size > 120 * 1024 * 1024
    assert "Runtime.evaluate" in message and f"{info.value.size:,} bytes" in message
    assert f"{info.value.limit:,} bytes the browser accepts" in message
    assert isinstance(info.value, ValueError)
    # Nothing was sent: the connection and the page still work.
    result = await page.send(cdp.runtime.evaluate("6 * 7", return_by_value=True))
    assert result.result.value == 42


async def test_command_of_exactly_chromes_limit_is_accepted(page: cdpkit.Page) -> None:
    limit = page._connection.max_command_size
    probe = {"id": 0, "method": "Runtime.evaluate", "params": {"expression": "''.length"},
             "sessionId": page.session_id}
    # The id of the next call has as many digits as this one's, give or take: pad to fit.
    next_id = page._connection.next_id()
    probe["id"] = next_id + 1
    overhead = len(json.dumps(probe, separators=(",", ":")).encode())
    expression = "'" + "x" * (limit - overhead) + "'.length"
    result = await page.call("Runtime.evaluate", {"expression": expression}, timeout=60)
    assert result["result"]["value"] == limit - overhead


@pytest.mark.parametrize("flooded", [False, True], ids=["idle", "send-buffer-full"])
async def test_closing_a_connected_browser_that_stopped_is_bounded_by_the_command_timeout(
    flooded: bool,
) -> None:
    command_timeout = 1.0
    async with cdpkit.launch() as host:
        assert host.process is not None
        endpoint = await host.process.wait_for_endpoint(5)
        await host.pages[0].send(cdp.runtime.evaluate("1"))  # the first tab is set up
        # Set up with the default timeout (a loaded machine may take over 1 s to open a
        # tab); the bound under test is the one in force when the browser stops.
        browser = await cdpkit.connect(endpoint)
        page = await browser.new_page()  # closed by close(), as is the context
        context = await browser.new_context()
        other = await context.new_page()
        for session in (browser, page, other):
            session.command_timeout = command_timeout
        with stopped(host.process.pid):
            if flooded:  # 80 MiB the stopped browser never reads: the send buffer is full
                expression = "'" + "y" * (4 * 1024 * 1024) + "'"
                await asyncio.gather(
                    *(page.call("Runtime.evaluate", {"expression": expression}) for _ in range(20)),
                    return_exceptions=True,
                )
            started = time.monotonic()
            await asyncio.wait_for(browser.close(), 15)
            elapsed = time.monotonic() - started
        assert elapsed < command_timeout + 2, elapsed
        assert page.closed
        # The browser runs on and answers its other client.
        result = await host.pages[0].send(cdp.runtime.evaluate("6 * 7", return_by_value=True))
        assert result.result.value == 42
