"""Parser-blocking scripts that never arrive (issue 46), beyond tests/tools/test_script_timeout.py:
a script written by ``document.write`` (ad and tag-manager code) is one too; a load that
times out names the script its parser waits on; the history moves and ``new_tab`` give
such scripts up; and a parser that makes progress is waited for."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable

import pytest

import cdpkit
from cdpkit import tools
from tests.server import FixtureServer, Handler
from tests.stalled_pages import StallServer


async def test_a_document_written_script_that_stalls_is_named_in_nothing_rendered(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    # Its request's initiator is the script that wrote it, not the parser: it blocks the
    # parser all the same.
    result = await tools.navigate(page, stalls.url(60, "written"), wait_until="usable", timeout=30)
    assert result.given_up == ()
    assert result.nothing_rendered.startswith(
        f"nothing rendered yet: the parser waits on <script src={stalls.script(1, 60)}> for "
    ), result.nothing_rendered
    first = (await tools.snapshot(page)).text.splitlines()[0]
    assert first.startswith(f"nothing rendered yet: the parser waits on <script src={stalls.script(1, 60)}>")


async def test_script_timeout_gives_up_a_document_written_script(page: cdpkit.Page, stalls: StallServer) -> None:
    started = time.monotonic()
    result = await tools.navigate(page, stalls.url(60, "written"), script_timeout=2, timeout=30)
    assert time.monotonic() - started < 25  # not the timeout, let alone the script's 60 s
    assert result.given_up == (stalls.script(1, 60),)
    snapshot = (await tools.snapshot(page)).text
    assert 'heading "Stalled story"' in snapshot and not snapshot.startswith("nothing rendered")
    assert await tools.evaluate(page, "[window.later, window.slowRan ?? null]") == [1, None]


@pytest.mark.parametrize("kind", ["stalled", "written"])
async def test_a_load_that_times_out_names_the_script_the_parser_waits_on(
    page: cdpkit.Page, stalls: StallServer, kind: str
) -> None:
    with pytest.raises(cdpkit.WaitTimeoutError) as raised:
        await tools.navigate(page, stalls.url(60, kind), timeout=4)
    message = str(raised.value)
    assert message.startswith(f"Timed out after 4 s waiting for the navigation to {stalls.url(60, kind)}")
    assert f"; the parser waits on <script src={stalls.script(1, 60)}> for " in message
    assert "a script_timeout gives such scripts up" in message
    assert message.endswith("pass a larger timeout= to navigate() if the page is just slow")


async def test_reload_and_history_moves_that_time_out_name_the_script_the_parser_waits_on(
    stalls: StallServer, server: FixtureServer
) -> None:
    stalled, script = stalls.url(60), stalls.script(1, 60)

    async def times_out(move: str, call: Awaitable[object]) -> None:
        with pytest.raises(cdpkit.WaitTimeoutError) as raised:
            await call
        message = str(raised.value)
        assert f"; the parser waits on <script src={script}> for " in message, message
        assert message.endswith(f"pass a larger timeout= to {move}() if the page is just slow"), message

    # Without the back/forward cache, a history move loads the page again.
    async with cdpkit.launch(args=["--disable-features=BackForwardCache"]) as browser:
        page = await browser.new_page()
        await tools.navigate(page, server.url("/input/keys.html"))
        await tools.navigate(page, stalled, script_timeout=1, timeout=20)
        await times_out("reload", tools.reload(page, timeout=3))
        await tools.go_back(page, timeout=20)
        await times_out("go_forward", tools.go_forward(page, timeout=3))
        await tools.navigate(page, server.url("/input/keys.html"))
        await times_out("go_back", tools.go_back(page, timeout=3))


async def test_a_load_that_times_out_on_something_else_names_no_script(
    page: cdpkit.Page, stalls: StallServer
) -> None:
    # A document that never answers: nothing was parsed, no script to name.
    with pytest.raises(cdpkit.WaitTimeoutError) as raised:
        await tools.navigate(page, stalls.script(1, 60), timeout=3)
    assert "parser" not in str(raised.value)


async def test_history_moves_and_new_tab_take_script_timeout(stalls: StallServer, server: FixtureServer) -> None:
    stalled = stalls.url(60)
    given_up = (stalls.script(1, 60), stalls.script(2, 60))
    # Without the back/forward cache, a history move loads the page again.
    async with cdpkit.launch(args=["--disable-features=BackForwardCache"]) as browser:
        page = await browser.new_page()
        assert (await tools.navigate(page, stalled, script_timeout=1, timeout=20)).given_up == given_up
        await tools.navigate(page, server.url("/input/keys.html"))
        back = await tools.go_back(page, script_timeout=1, timeout=20)
        assert back is not None and (back.url, back.given_up) == (stalled, given_up)
        assert 'heading "Stalled story"' in (await tools.snapshot(page)).text
        await tools.go_back(page)  # to about:blank
        forward = await tools.go_forward(page, script_timeout=1, timeout=20)
        assert forward is not None and (forward.url, forward.given_up) == (stalled, given_up)
        started = time.monotonic()
        tab = await tools.new_tab(browser, stalled, script_timeout=1)
        assert time.monotonic() - started < 20  # new_tab's navigation has a 30 s timeout
        assert 'heading "Stalled story"' in (await tools.snapshot(tab)).text


async def test_usable_keeps_waiting_while_the_parser_makes_progress(page: cdpkit.Page, stalls: StallServer) -> None:
    # Its head scripts answer at 2, 4 and 6 s: never 5 s without progress, so the wait
    # is not cut short as a stall; it returns with the page parsed and rendered.
    result = await tools.navigate(page, stalls.url(2, "progress"), wait_until="usable", timeout=30)
    assert result.nothing_rendered == ""
    assert await tools.evaluate(page, "[window.slowRan, window.later]") == [3, 1]
    assert 'heading "Stalled story"' in (await tools.snapshot(page)).text


async def test_script_timeout_opens_no_more_connections_to_a_host_than_chrome_does(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    # Twelve parser-blocking scripts, each answered after 0.2 s: Chrome itself asks a
    # host for at most six at once, and so does the gate that fetches them in its stead
    # (a small server listening with a short backlog, as Python's http.server does,
    # would drop the rest, and each would wait a second to try again).
    in_flight, most = 0, 0
    lock = threading.Lock()

    def script(handler: Handler) -> None:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        time.sleep(0.2)
        with lock:
            in_flight -= 1
        handler.reply(200, "window.ran = (window.ran || 0) + 1;", "text/javascript")

    server.route("/gate/script.js", script)
    tags = "".join(f'<script src="/gate/script.js?n={n}"></script>' for n in range(12))
    server.route("/gate/page", lambda h: h.reply(200, f"<!doctype html><head>{tags}</head><h1>Twelve</h1>"))
    result = await tools.navigate(page, server.url("/gate/page"), script_timeout=20, timeout=30)
    assert result.given_up == ()
    assert await tools.evaluate(page, "window.ran") == 12
    assert 1 < most <= 6, most
