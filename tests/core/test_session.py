"""Sessions against a real headless Chromium: commands, events, timeouts, closed targets."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

import cdpkit
from cdpkit import cdp
from tests.core.test_launch import NOISY_TALL_PAGE_JS
from tests.server import FixtureServer


async def test_typed_send_returns_typed_result(page: cdpkit.Page) -> None:
    result = await page.send(cdp.runtime.evaluate("6 * 7", return_by_value=True))
    assert isinstance(result, cdp.runtime.EvaluateResult)
    assert result.result.value == 42
    assert result.exception_details is None


@dataclass
class _Visits:
    urls: list[str] = field(default_factory=list)


@dataclass
class _Count:
    n: int = 0


async def test_state_is_kept_per_session_and_per_kind(page: cdpkit.Page) -> None:
    page.state(_Visits).urls.append("a")
    page.state(_Count).n += 2
    assert page.state(_Visits).urls == ["a"] and page.state(_Count).n == 2
    assert page.state(_Visits) is page.state(_Visits)
    other = await page.browser.new_page()
    try:
        assert other.state(_Visits).urls == [] and page.browser.state(_Count).n == 0
    finally:
        await other.close()


async def test_raw_call_returns_dict(page: cdpkit.Page) -> None:
    raw = await page.call("Runtime.evaluate", {"expression": "'a' + 'b'", "returnByValue": True})
    assert raw["result"]["value"] == "ab"


async def test_command_without_params_works(page: cdpkit.Page) -> None:
    history = await page.send(cdp.page.get_navigation_history())
    assert history.entries[history.current_index].url == "about:blank"


async def test_thousand_concurrent_sends_each_get_their_answer(page: cdpkit.Page) -> None:
    results = await asyncio.gather(
        *(page.send(cdp.runtime.evaluate(f"{i} * 2", return_by_value=True)) for i in range(1000))
    )
    assert [r.result.value for r in results] == [i * 2 for i in range(1000)]


async def test_protocol_error_names_method_and_shows_caller(page: cdpkit.Page) -> None:
    with pytest.raises(cdpkit.ProtocolError) as info:
        await page.call("Page.noSuchMethod")
    error = info.value
    assert error.method == "Page.noSuchMethod"
    assert error.code == -32601
    assert "Page.noSuchMethod" in str(error)
    assert any(
        entry.name == "test_protocol_error_names_method_and_shows_caller"
        for entry in info.traceback
    )


async def test_never_settling_evaluate_times_out_and_connection_survives(
    page: cdpkit.Page,
) -> None:
    started = time.monotonic()
    with pytest.raises(cdpkit.CommandTimeoutError) as info:
        await page.send(
            cdp.runtime.evaluate("new Promise(() => {})", await_promise=True), timeout=0.2
        )
    assert time.monotonic() - started < 0.2 + 10  # the timeout ended it; the promise never would
    assert isinstance(info.value, TimeoutError)
    assert "Runtime.evaluate" in str(info.value) and "0.2" in str(info.value)
    assert not page._pending
    result = await page.send(cdp.runtime.evaluate("1 + 1", return_by_value=True))
    assert result.result.value == 2


async def test_cancelled_send_leaves_no_pending_entry(page: cdpkit.Page) -> None:
    with anyio.move_on_after(0.2) as scope:
        await page.send(cdp.runtime.evaluate("new Promise(() => {})", await_promise=True))
    assert scope.cancelled_caught
    assert not page._pending
    result = await page.send(cdp.runtime.evaluate("'still here'", return_by_value=True))
    assert result.result.value == "still here"


async def test_closing_page_fails_pending_send_others_keep_working(
    context: cdpkit.BrowserContext,
) -> None:
    doomed = await context.new_page()
    survivor = await context.new_page()
    pending = asyncio.ensure_future(
        doomed.send(cdp.runtime.evaluate("new Promise(() => {})", await_promise=True))
    )
    await asyncio.sleep(0.1)
    await doomed.close()
    with pytest.raises(cdpkit.TargetClosedError):
        await asyncio.wait_for(pending, 2)
    with pytest.raises(cdpkit.TargetClosedError):
        await doomed.send(cdp.runtime.evaluate("1"))
    assert doomed not in context.browser.pages
    result = await survivor.send(cdp.runtime.evaluate("3", return_by_value=True))
    assert result.result.value == 3


async def test_renderer_crash_fails_that_page_only(
    browser: cdpkit.Browser, context: cdpkit.BrowserContext
) -> None:
    victim = await context.new_page()
    bystander = await context.new_page()
    pending = asyncio.ensure_future(
        victim.send(cdp.runtime.evaluate("new Promise(() => {})", await_promise=True))
    )
    await asyncio.sleep(0.1)
    try:
        result = await victim.send(cdp.page.navigate("chrome://crash"), timeout=5)
        assert result.error_text  # the navigation itself is aborted by the crash
    except cdpkit.PageCrashedError:
        pass  # or the crash is reported before the navigation's answer
    with pytest.raises(cdpkit.PageCrashedError):
        await asyncio.wait_for(pending, 5)
    with pytest.raises(cdpkit.PageCrashedError):
        await victim.send(cdp.runtime.evaluate("1"))
    assert victim.crashed
    assert (await bystander.send(cdp.runtime.evaluate("5", return_by_value=True))).result.value == 5
    fresh = await browser.new_page()
    assert (await fresh.send(cdp.runtime.evaluate("6", return_by_value=True))).result.value == 6
    await fresh.close()


async def test_listen_delivers_ten_thousand_console_messages_in_order(page: cdpkit.Page) -> None:
    count = 10_000
    async with page.listen(cdp.runtime.ConsoleAPICalled) as events:
        await page.send(
            cdp.runtime.evaluate(f"for (let i = 0; i < {count}; i++) console.log(i)")
        )
        received = []
        async with asyncio.timeout(60):
            async for event in events:
                received.append(event.args[0].value)
                if len(received) == count:
                    break
    assert received == list(range(count))


_LISTEN_IN_A_FRESH_PROCESS = """
import cdpkit
from cdpkit import cdp
from cdpkit.connection import Connection
from cdpkit.session import Session

class Unused:  # listen() sends nothing: no browser needed
    max_command_size = 1

session = Session(Connection(Unused()), "session", command_timeout=1)
model = cdp.runtime.ConsoleAPICalled
before = model.__pydantic_complete__
session.listen(model)
print(before, model.__pydantic_complete__)
"""


def test_listen_builds_the_event_model_before_the_first_event() -> None:
    # Generated models build their validator on first use: in a fresh process that was
    # the first event read, in the middle of the burst the program listened for.
    out = subprocess.run(
        [sys.executable, "-c", _LISTEN_IN_A_FRESH_PROCESS],
        capture_output=True, text=True, check=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(cdpkit.__file__).parent.parent)},
    ).stdout.split()
    assert out == ["False", "True"]


async def test_wait_for_with_predicate(page: cdpkit.Page) -> None:
    waiting = asyncio.ensure_future(
        page.wait_for(
            cdp.runtime.ConsoleAPICalled, lambda e: e.args[0].value == "second", timeout=5
        )
    )
    await asyncio.sleep(0.05)
    await page.send(cdp.runtime.evaluate("console.log('first'); console.log('second')"))
    event = await waiting
    assert event.type == "log" or event.type.value == "log"
    assert event.args[0].value == "second"


async def test_wait_for_times_out_naming_the_event(page: cdpkit.Page) -> None:
    with pytest.raises(cdpkit.WaitTimeoutError) as info:
        await page.wait_for(cdp.page.LoadEventFired, timeout=0.2)
    assert "Page.loadEventFired" in str(info.value)
    assert isinstance(info.value, TimeoutError)


async def test_expect_catches_event_caused_inside_block(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    async with page.expect(cdp.page.LoadEventFired, timeout=10) as waiter:
        await page.send(cdp.page.navigate(server.url("/status?code=200")))
    assert isinstance(waiter.value, cdp.page.LoadEventFired)
    assert waiter.value.timestamp > 0


async def test_expect_value_unavailable_when_block_raised(page: cdpkit.Page) -> None:
    expectation = page.expect(cdp.page.LoadEventFired, timeout=0.1)
    with pytest.raises(ZeroDivisionError):
        async with expectation:
            1 / 0  # noqa: B018
    with pytest.raises(RuntimeError):
        _ = expectation.value


async def test_listen_by_wire_name_gives_typed_events(page: cdpkit.Page) -> None:
    async with page.listen("Runtime.consoleAPICalled", "Nonexistent.event") as events:
        await page.send(cdp.runtime.evaluate("console.info('hi')"))
        event = await anext(events)
    assert isinstance(event, cdp.runtime.ConsoleAPICalled)
    assert event.args[0].value == "hi"


async def test_listen_whole_domain(page: cdpkit.Page, server: FixtureServer) -> None:
    async with page.listen("Page.*") as events:
        await page.send(cdp.page.navigate(server.url("/status?code=200")))
        names = set()
        async with asyncio.timeout(10):
            async for event in events:
                names.add(event.method)
                if "Page.loadEventFired" in names:
                    break
    assert {"Page.frameNavigated", "Page.loadEventFired"} <= names


async def test_stream_ends_with_error_when_page_closes(context: cdpkit.BrowserContext) -> None:
    page = await context.new_page()
    async with page.listen(cdp.runtime.ConsoleAPICalled) as events:
        await page.close()
        with pytest.raises(cdpkit.TargetClosedError):
            await anext(events)


async def test_full_page_screenshot_of_tall_page_over_large_message(page: cdpkit.Page) -> None:
    await page.send(cdp.runtime.evaluate(NOISY_TALL_PAGE_JS))
    shot = await page.send(
        cdp.page.capture_screenshot(
            format="png",
            capture_beyond_viewport=True,
            clip=cdp.page.Viewport(x=0, y=0, width=800, height=20_000, scale=1),
        ),
        timeout=60,
    )
    data = base64.b64decode(shot.data)
    assert len(shot.data) > 3_000_000
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (800, 20_000)


async def test_twenty_megabyte_evaluate_result(page: cdpkit.Page) -> None:
    result = await page.send(
        cdp.runtime.evaluate("'x'.repeat(20 * 1024 * 1024)", return_by_value=True), timeout=60
    )
    assert result.result.value == "x" * (20 * 1024 * 1024)


async def test_contexts_are_isolated(browser: cdpkit.Browser, server: FixtureServer) -> None:
    async with await browser.new_context() as first, await browser.new_context() as second:
        a = await first.new_page(server.url("/status?code=200"))
        b = await second.new_page(server.url("/status?code=200"))
        await a.send(cdp.runtime.evaluate("document.cookie = 'who=first'"))
        cookies_a = await a.send(cdp.runtime.evaluate("document.cookie", return_by_value=True))
        cookies_b = await b.send(cdp.runtime.evaluate("document.cookie", return_by_value=True))
        assert cookies_a.result.value == "who=first"
        assert cookies_b.result.value == ""
        assert a in first.pages and a not in second.pages
    assert a.closed and b.closed


async def test_new_page_with_url_navigates(context: cdpkit.BrowserContext, server: FixtureServer) -> None:
    page = await context.new_page(server.url("/status?code=200"))
    title = await page.send(cdp.runtime.evaluate("document.title", return_by_value=True))
    assert title.result.value == "status 200"
    assert page.url == server.url("/status?code=200")


async def test_popup_becomes_a_page(context: cdpkit.BrowserContext, server: FixtureServer) -> None:
    opener = await context.new_page(server.url("/status?code=200"))
    before = set(context.browser.pages)
    async with context.browser.expect(
        cdp.target.AttachedToTarget, timeout=10
    ) as attached:
        await opener.send(cdp.runtime.evaluate(f"window.open('{server.url('/status?code=201')}')"))
    popup = context.browser.page_for(attached.value.target_info.target_id)
    assert popup is not None and popup not in before
    await popup._ready
    value = await popup.send(cdp.runtime.evaluate("1 + 1", return_by_value=True))
    assert value.result.value == 2


async def test_browser_version_is_read_at_start(browser: cdpkit.Browser) -> None:
    assert "Chrome" in browser.version.product
    assert browser.version.protocol_version == "1.3"


async def test_enabled_domain_is_refcounted_and_never_disables_page_setup(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    async with page.enabled("Runtime"):
        pass
    async with page.listen(cdp.runtime.ConsoleAPICalled) as events:
        await page.send(cdp.runtime.evaluate("console.log('still on')"))
        event = await asyncio.wait_for(anext(events), 5)
    assert event.args[0].value == "still on"
    async with page.listen(cdp.network.RequestWillBeSent) as requests:
        async with page.enabled("Network"), page.enabled("Network"):
            pass  # the inner exit must not disable what the outer block still uses
        async with page.enabled("Network"):
            await page.send(cdp.page.navigate(server.url("/status?code=200")))
            request = await asyncio.wait_for(anext(requests), 5)
    assert request.request.url == server.url("/status?code=200")


async def test_listen_raw_delivers_json_without_parsing(page: cdpkit.Page) -> None:
    async with page.listen(cdp.runtime.ConsoleAPICalled, raw=True) as events:
        await page.send(cdp.runtime.evaluate("console.log('plain', 1)"))
        event = await asyncio.wait_for(anext(events), 5)
    assert isinstance(event, cdpkit.RawEvent)
    assert event.method == "Runtime.consoleAPICalled"
    assert [arg["value"] for arg in event.params["args"]] == ["plain", 1]


async def test_send_json_returns_the_json_call_returns(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    async with page.expect(cdp.page.LoadEventFired):
        await page.send(cdp.page.navigate(server.url("/snapshot/form.html")))
    typed = await page.send_json(cdp.accessibility.get_full_ax_tree())
    raw = await page.call("Accessibility.getFullAXTree")
    assert typed == raw
    assert type(typed) is dict and type(typed["nodes"][0]) is dict  # no model was built
    roles = {node["role"]["value"] for node in typed["nodes"] if "role" in node}
    assert {"RootWebArea", "textbox", "button"} <= roles, roles
    # A command that returns nothing gives the empty result object, as call() does.
    assert await page.send_json(cdp.accessibility.enable()) == {}


async def test_send_json_fails_and_times_out_like_send(page: cdpkit.Page) -> None:
    with pytest.raises(cdpkit.ProtocolError) as info:
        await page.send_json(cdp.dom.get_box_model(node_id=cdp.dom.NodeId(987654)))
    assert info.value.method == "DOM.getBoxModel"
    started = time.monotonic()
    with pytest.raises(cdpkit.CommandTimeoutError, match=r"Runtime\.evaluate.*0\.2"):
        await page.send_json(
            cdp.runtime.evaluate("new Promise(() => {})", await_promise=True), timeout=0.2
        )
    assert time.monotonic() - started < 0.2 + 10  # bounds a hang
    assert not page._pending
    answer = await page.send_json(cdp.runtime.evaluate("6 * 7", return_by_value=True))
    assert answer["result"]["value"] == 42
