"""Fault injection with a scripted fake CDP peer: what a broken or newer browser may send.

The fake answers the handful of commands cdpkit sends on connect, then follows a script.
Only faults are tested here; behaviour is tested against real Chromium elsewhere.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

import cdpkit
from cdpkit import cdp

Script = Callable[["FakePeer"], Awaitable[None]]


class FakePeer:
    """One accepted connection: answers startup commands, then runs a test's script."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.received: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def next_command(self, method: str) -> dict[str, Any]:
        while True:
            message = await self.received.get()
            if message.get("method") == method:
                return message

    async def pump(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            startup = {
                "Browser.getVersion": {
                    "protocolVersion": "1.3",
                    "product": "FakeChrome/999",
                    "revision": "r1",
                    "userAgent": "fake",
                    "jsVersion": "1",
                },
                "Target.setDiscoverTargets": {},
                "Target.setAutoAttach": {},
            }.get(message["method"])
            if startup is not None:
                await self.send({"id": message["id"], "result": startup})
            else:
                await self.received.put(message)


@asynccontextmanager
async def fake_browser(script: Script) -> AsyncIterator[cdpkit.Browser]:
    async def handler(ws: ServerConnection) -> None:
        peer = FakePeer(ws)
        pump = asyncio.ensure_future(peer.pump())
        try:
            await script(peer)
            await pump
        finally:
            pump.cancel()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with cdpkit.connect(f"ws://127.0.0.1:{port}/devtools/browser/fake", timeout=5) as b:
            yield b


async def test_garbage_frames_unknown_ids_and_unknown_events_do_not_break_the_connection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        await peer.send("{this is not json")
        await peer.send("[1, 2, 3]")
        await peer.send({"id": 987654, "result": {}})  # an id nobody waits for
        await peer.send({"method": "Future.somethingHappened", "params": {"answer": 42}})
        await peer.send({"id": command["id"], "result": {"result": {"type": "number", "value": 1}}})
        command = await peer.next_command("Runtime.evaluate")
        await peer.send({"id": command["id"], "result": {"result": {"type": "number", "value": 2}}})

    with caplog.at_level(logging.WARNING, logger="cdpkit"):
        async with fake_browser(script) as browser:
            async with browser.listen("Future.somethingHappened") as events:
                first = await browser.send(cdp.runtime.evaluate("1"), timeout=5)
                event = await asyncio.wait_for(anext(events), 5)
            second = await browser.send(cdp.runtime.evaluate("2"), timeout=5)
    assert first.result.value == 1 and second.result.value == 2
    assert event == cdpkit.RawEvent("Future.somethingHappened", {"answer": 42})
    assert "malformed" in caplog.text


async def test_unknown_enum_values_and_extra_fields_are_kept() -> None:
    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        result = {
            "result": {"type": "hologram", "subtype": "tesseract", "shinyNewField": [1, 2]},
            "alsoNew": True,
        }
        await peer.send({"id": command["id"], "result": result})
        await peer.send(
            {
                "method": "Runtime.consoleAPICalled",
                "params": {
                    "type": "whisper",
                    "args": [{"type": "string", "value": "psst"}],
                    "executionContextId": 1,
                    "timestamp": 1.5,
                    "futureField": {"x": 1},
                },
            }
        )

    async with fake_browser(script) as browser, browser.listen(cdp.runtime.ConsoleAPICalled) as events:
        result = await browser.send(cdp.runtime.evaluate("x"), timeout=5)
        event = await asyncio.wait_for(anext(events), 5)
    assert result.result.type == "hologram"
    assert result.result.subtype == "tesseract"
    assert result.model_dump(by_alias=True, exclude_unset=True)["alsoNew"] is True
    assert result.result.model_dump(by_alias=True, exclude_unset=True)["shinyNewField"] == [1, 2]
    assert event.type == "whisper"
    assert event.model_dump(by_alias=True, exclude_unset=True)["futureField"] == {"x": 1}


def _console_event(arg: str, **changes: Any) -> str:
    params = {"type": "log", "args": [{"type": "string", "value": arg}],
              "executionContextId": 1, "timestamp": 1.5, **changes}
    return json.dumps({"method": "Runtime.consoleAPICalled", "params": params})


async def test_typed_events_are_built_from_the_browsers_text_without_decoding_it_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Pydantic reads the JSON text itself: the params never become dicts on the way (a
    # fifth of the work of every event of a console flood).
    def decoded(params: object) -> dict[str, Any]:
        raise AssertionError(f"params decoded before validation: {params!r}")

    monkeypatch.setattr("cdpkit._core.streams.decode_params", decoded)

    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        await peer.send(_console_event("plain", stackTrace={"callFrames": [
            {"functionName": "f", "scriptId": "3", "url": "u", "lineNumber": 0,
             "columnNumber": 9}]}))
        await peer.send({"id": command["id"], "result": {"result": {"type": "undefined"}}})

    async with fake_browser(script) as browser, browser.listen(cdp.runtime.ConsoleAPICalled) as events:
        await browser.send(cdp.runtime.evaluate("x"), timeout=5)
        event = await asyncio.wait_for(anext(events), 5)
    assert event.args[0].value == "plain"
    assert event.stack_trace is not None
    assert event.stack_trace.call_frames[0].column_number == 9


async def test_typed_events_pydantic_cannot_read_or_that_changed_shape_still_arrive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        # A string cut between the halves of a surrogate pair: pydantic's parser refuses it.
        await peer.send(_console_event("\ud83d cut"))
        await peer.send(_console_event("nan", timestamp=float("nan")))
        await peer.send(_console_event("reshaped", executionContextId="no longer a number"))
        await peer.send({"id": command["id"], "result": {"result": {"type": "undefined"}}})

    with caplog.at_level(logging.WARNING, logger="cdpkit"):
        async with fake_browser(script) as browser, browser.listen(
            cdp.runtime.ConsoleAPICalled
        ) as events:
            await browser.send(cdp.runtime.evaluate("x"), timeout=5)
            cut, nan, reshaped = [await asyncio.wait_for(anext(events), 5) for _ in range(3)]
    assert isinstance(cut, cdp.runtime.ConsoleAPICalled)
    assert cut.args[0].value == "\ud83d cut"
    assert isinstance(nan, cdp.runtime.ConsoleAPICalled) and math.isnan(nan.timestamp)
    # A newer Chrome's shape: delivered raw, with a warning, rather than lost.
    assert isinstance(reshaped, cdpkit.RawEvent)
    assert reshaped.params["executionContextId"] == "no longer a number"
    assert "Delivering Runtime.consoleAPICalled raw" in caplog.text


async def test_close_with_code_and_reason_fails_pending_calls_with_the_reason() -> None:
    async def script(peer: FakePeer) -> None:
        await peer.next_command("Runtime.evaluate")
        await peer.ws.close(4001, "going away for maintenance")

    async with fake_browser(script) as browser:
        with pytest.raises(cdpkit.ConnectionClosedError) as info:
            await browser.send(cdp.runtime.evaluate("1"), timeout=5)
        assert "4001" in str(info.value) and "going away for maintenance" in str(info.value)
        with pytest.raises(cdpkit.ConnectionClosedError, match="going away"):
            await browser.send(cdp.runtime.evaluate("1"), timeout=5)


async def test_dropped_connection_without_close_frame_fails_fast() -> None:
    async def script(peer: FakePeer) -> None:
        await peer.next_command("Runtime.evaluate")
        peer.ws.transport.abort()

    async with fake_browser(script) as browser:
        with pytest.raises(cdpkit.ConnectionClosedError):
            await asyncio.wait_for(browser.send(cdp.runtime.evaluate("1"), timeout=30), 2)


async def test_error_response_without_details_is_a_protocol_error() -> None:
    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        await peer.send({"id": command["id"], "error": "weird"})

    async with fake_browser(script) as browser:
        with pytest.raises(cdpkit.ProtocolError, match="weird"):
            await browser.send(cdp.runtime.evaluate("1"), timeout=5)


async def test_answers_and_events_the_fast_decoder_refuses_are_still_delivered() -> None:
    # A JavaScript string cut between the halves of a surrogate pair arrives escaped as a
    # lone surrogate; msgspec refuses it, the standard library reads it.
    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        await peer.send('{"method":"Custom.cut","params":{"text":"\\udc00 end"}}')
        await peer.send(
            '{"id":' + str(command["id"])
            + ',"result":{"result":{"type":"string","value":"start \\ud83d"}}}'
        )

    async with fake_browser(script) as browser, browser.listen("Custom.cut") as events:
        result = await browser.send(cdp.runtime.evaluate("cut"), timeout=5)
        event = await asyncio.wait_for(anext(events), 5)
    assert result.result.value == "start \ud83d"
    assert event == cdpkit.RawEvent("Custom.cut", {"text": "\udc00 end"})


async def test_events_routing_cannot_read_are_delivered_or_dropped_and_the_connection_lives(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Events are decoded only as far as routing needs; these take the full path instead.
    deep = "[" * 100_000 + "]" * 100_000

    async def script(peer: FakePeer) -> None:
        command = await peer.next_command("Runtime.evaluate")
        await peer.send('{"method":"Custom.odd","params":[1,2]}')  # params not an object
        await peer.send('{"method":"Custom.odd","params":{"n":NaN}}')
        await peer.send('{"method":"Custom.odd","params":{"deep":' + deep + "}}")
        await peer.send('{"method":"Custom.odd","sessionId":7,"params":{"n":1}}')
        await peer.send('{"method":"Custom.odd","params":{"n":2}}')
        # An answer written method first (Chrome writes the id first; a proxy may not).
        await peer.send(
            '{"method":"Runtime.evaluate","id":' + str(command["id"])
            + ',"result":{"result":{"type":"number","value":1}}}'
        )

    with caplog.at_level(logging.WARNING, logger="cdpkit"):
        async with fake_browser(script) as browser, browser.listen("Custom.odd") as events:
            result = await browser.send(cdp.runtime.evaluate("1"), timeout=5)
            received = [event.params for event in [await anext(events) for _ in range(3)]]
    assert result.result.value == 1
    # The deep one is dropped with a warning; a number for a session id matches no session.
    assert received[0] == {} and math.isnan(received[1]["n"]) and received[2] == {"n": 2}
    assert "nested too deeply" in caplog.text


class UnpausedTab:
    """A fake browser with one tab already open when cdpkit attaches, whose renderer is
    still busy: it takes the page's setup commands (``Page.enable``...) only after
    ``busy`` seconds, while the browser process answers ``Page.navigate`` at once. As in
    Chrome, a document committed before the renderer enabled the ``Page`` domain is
    reported by no ``Page.frameNavigated`` and no ``commit`` lifecycle event; only its
    later lifecycle events (``DOMContentLoaded``, ``load``) are."""

    SESSION, TARGET, LOADER = "S1", "T1", "L1"
    SETUP = frozenset({
        "Page.enable", "Page.setLifecycleEventsEnabled", "Runtime.enable", "Log.enable",
        "Runtime.runIfWaitingForDebugger",
    })

    def __init__(self, ws: ServerConnection, url: str, busy: float) -> None:
        self.ws, self.url, self.busy = ws, url, busy
        self.page_enabled = False
        self.committed_unseen = False
        self.held: list[int] = []  # ids of setup commands the busy renderer has not taken

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def event(self, method: str, params: dict[str, Any]) -> None:
        await self.send({"method": method, "params": params, "sessionId": self.SESSION})

    async def lifecycle(self, *names: str) -> None:
        for name in names:
            await self.event("Page.lifecycleEvent", {
                "frameId": self.TARGET, "loaderId": self.LOADER, "name": name, "timestamp": 1.0,
            })

    async def renderer_ready(self) -> None:
        await asyncio.sleep(self.busy)
        self.page_enabled = True
        for command_id in self.held:
            await self.send({"id": command_id, "result": {}, "sessionId": self.SESSION})
        if self.committed_unseen:
            await self.lifecycle("DOMContentLoaded", "load")

    async def serve(self) -> None:
        ready = None
        async for text in self.ws:
            message = json.loads(text)
            method, reply = message["method"], {}
            if method == "Browser.getVersion":
                reply = {"protocolVersion": "1.3", "product": "FakeChrome/999", "revision": "r1",
                         "userAgent": "fake", "jsVersion": "1"}
            elif method == "Target.setAutoAttach" and "sessionId" not in message:
                info = {"targetId": self.TARGET, "type": "page", "title": "", "url": "about:blank",
                        "attached": True, "canAccessOpener": False, "browserContextId": "C1"}
                await self.send({"method": "Target.attachedToTarget", "params": {
                    "sessionId": self.SESSION, "targetInfo": info, "waitingForDebugger": False,
                }})
                ready = asyncio.ensure_future(self.renderer_ready())
            elif method in self.SETUP and not self.page_enabled:
                self.held.append(message["id"])
                continue
            elif method == "Page.navigate":
                reply = {"frameId": self.TARGET, "loaderId": self.LOADER}
            elif method == "Page.getNavigationHistory":
                reply = {"currentIndex": 0, "entries": [{
                    "id": 1, "url": self.url, "userTypedURL": self.url, "title": "Fake",
                    "transitionType": "typed",
                }]}
            elif method == "Runtime.evaluate":
                reply = {"result": {"type": "number", "value": 200}}
            await self.send({"id": message["id"], "result": reply,
                             **({"sessionId": message["sessionId"]} if "sessionId" in message else {})})
            if method == "Page.navigate":
                if not self.page_enabled:
                    self.committed_unseen = True
                    continue
                frame = {"id": self.TARGET, "loaderId": self.LOADER, "url": self.url,
                         "securityOrigin": "http://fake", "mimeType": "text/html"}
                await self.event("Page.frameNavigated", {"frame": frame, "type": "Navigation"})
                await self.lifecycle("commit", "DOMContentLoaded", "load")
        if ready is not None:
            ready.cancel()


async def test_first_navigation_of_a_tab_whose_renderer_is_still_starting_sees_its_commit() -> None:
    # The race a fresh browser's own tab runs into: cdpkit attaches to it unpaused, and
    # sends Page.navigate right behind the page's setup.
    url = "http://fake.test/"

    async def handler(ws: ServerConnection) -> None:
        await UnpausedTab(ws, url, busy=0.5).serve()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with cdpkit.connect(f"ws://127.0.0.1:{port}/devtools/browser/fake", timeout=5) as b:
            [page] = b.pages
            result = await cdpkit.tools.navigate(page, url, wait_until="commit", timeout=3)
    assert (result.url, result.status, result.title) == (url, 200, "Fake")
