"""The public Page/Session API the tools use instead of reaching into private attributes:
why a session closed, the open dialog, the console buffer, waiting for a page to close,
out-of-process frames, and the snapshot state that ``index=`` targets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import cdpkit
from cdpkit import cdp
from cdpkit.tools import SnapshotState, console_logs, handle_dialog, snapshot
from cdpkit.tools.navigation import navigate
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.send(cdp.runtime.evaluate(expression, return_by_value=True))
    assert result.exception_details is None, result
    return result.result.value


async def eventually(check: Any, timeout: float = 5.0) -> None:
    """Poll ``check`` until it holds (the browser's events arrive in their own time)."""
    async with asyncio.timeout(timeout):
        while True:
            if check():
                return
            await asyncio.sleep(0.02)


# -- closing ----------------------------------------------------------------------------------


async def test_close_error_and_raise_if_closed_say_why_the_page_is_gone(
    context: cdpkit.BrowserContext,
) -> None:
    page = await context.new_page()
    assert page.close_error is None
    page.raise_if_closed()  # open: nothing happens
    await page.close()
    assert isinstance(page.close_error, cdpkit.TargetClosedError)
    with pytest.raises(cdpkit.TargetClosedError) as caught:
        page.raise_if_closed()
    # A fresh error each time, with the same reason as the calls on the page raise.
    assert caught.value is not page.close_error
    assert str(caught.value) == str(page.close_error)
    with pytest.raises(cdpkit.TargetClosedError):
        await page.send(cdp.page.get_frame_tree())


async def test_wait_closed_returns_once_the_page_closes_itself(
    context: cdpkit.BrowserContext,
) -> None:
    page = await context.new_page()
    waiting = asyncio.ensure_future(page.wait_closed())
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await js(page, "setTimeout(() => window.close(), 10); 1")  # the page closes itself
    async with asyncio.timeout(page.command_timeout + 0.5):
        await waiting
    assert page.closed
    async with asyncio.timeout(0.5):
        await page.wait_closed()  # already closed: returns at once


# -- dialogs and console ----------------------------------------------------------------------


async def test_open_dialog_is_the_dialog_waiting_for_an_answer(page: cdpkit.Page) -> None:
    assert page.open_dialog is None
    page.dialog_policy = lambda dialog: None  # leave dialogs open
    await js(page, "setTimeout(() => alert('Stop here'), 0); 1")
    await eventually(lambda: page.open_dialog is not None)
    dialog = page.open_dialog
    assert dialog is not None
    assert (dialog.type, dialog.message, dialog.accepted) == ("alert", "Stop here", None)
    answered = await handle_dialog(page)
    assert answered is dialog
    assert page.open_dialog is None  # answered: no longer waiting, even before Chrome says so
    assert await js(page, "1 + 1") == 2  # the page runs again


async def test_console_entries_and_clear_console(page: cdpkit.Page) -> None:
    await js(page, "console.log('first', 1); console.error('second'); 1")
    await eventually(lambda: len(page.console_entries()) >= 2)
    entries = page.console_entries()
    kinds = [kind for kind, _ in entries]
    assert kinds == ["console", "console"]
    assert [params["type"] for _, params in entries] == ["log", "error"]
    assert entries[0][1]["args"][0]["value"] == "first"
    # A copy: the caller cannot empty the page's buffer by accident.
    entries.clear()
    assert len(page.console_entries()) == 2
    page.clear_console()
    assert page.console_entries() == []
    assert await console_logs(page) == []
    await js(page, "console.warn('third'); 1")
    await eventually(lambda: len(page.console_entries()) == 1)
    assert [m.text for m in await console_logs(page)] == ["third"]


# -- out-of-process frames --------------------------------------------------------------------


async def test_frame_sessions_and_frame_origin_of_an_out_of_process_iframe(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    port = server.server_address[1]
    # localhost is another site than 127.0.0.1: that frame gets its own renderer process.
    await navigate(
        page,
        server.url(f"/snapshot/frames.html?cross={other_server.origin}&oop=http://localhost:{port}"),
    )
    frames = await page.frame_sessions()
    assert len(frames) == 1, frames
    frame_id, child = frames[0]
    assert child is not page and not child.closed
    location = await child.send(cdp.runtime.evaluate("location.href", return_by_value=True))
    assert location.result.value == f"http://localhost:{port}/snapshot/child.html?oop"
    # The same answer again, without asking Chrome to attach twice.
    assert await page.frame_sessions(page) == frames
    assert await page.frame_sessions(child) == []  # nothing out-of-process inside it
    # #oop is at left 20, top 450 with a 5 px border: its viewport starts inside that.
    assert await page.frame_origin(child) == (25.0, 455.0)
    assert await page.frame_origin(page) == (0.0, 0.0)
    await js(page, "document.getElementById('oop').style.left = '60px'; 1")
    assert await page.frame_origin(child) == (65.0, 455.0)
    await js(page, "document.getElementById('oop').remove(); 1")
    await eventually(lambda: child.closed)
    assert await page.frame_sessions() == []
    with pytest.raises(cdpkit.ElementNotFoundError, match="no longer part of the page"):
        await page.frame_origin(child)
    assert frame_id  # the frame's id is its target id


# -- the snapshot state -----------------------------------------------------------------------


async def test_snapshot_state_holds_the_latest_snapshot_and_looks_indices_up(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    state = page.state(SnapshotState)
    assert state.snapshot is None
    with pytest.raises(cdpkit.ElementNotFoundError, match="no snapshot of this page yet"):
        state.node(0)
    await navigate(page, server.url("/snapshot/form.html"))
    first = await snapshot(page)
    assert page.state(SnapshotState) is state
    assert state.snapshot is first
    assert state.node(1) is first.nodes[1]
    count = len(first.nodes)
    with pytest.raises(cdpkit.ElementNotFoundError, match=rf"out of range \(snapshot has {count}\)"):
        state.node(count)
    with pytest.raises(cdpkit.ElementNotFoundError, match="out of range"):
        state.node(-1)
    second = await snapshot(page, roles=["button"])
    assert state.snapshot is second  # the latest replaces the previous
    # Indices are stable: the button is looked up under the number it had.
    assert state.node(second.nodes[0].index) is second.nodes[0]
    assert second.nodes[0].index == next(n.index for n in first.nodes if n.role == "button")
