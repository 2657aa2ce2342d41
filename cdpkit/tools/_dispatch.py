"""Sending ``Input.*`` events (one mouse event, one key down or up) without hanging on a
JavaScript dialog they open, and the checks every input tool makes first (page open, no
dialog blocking it)."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from .. import cdp
from .._model import Command
from ..errors import CDPError
from ..page import Page
from ._input_state import input_state
from ._keys import KeyDefinition, key_event
from ._targeting import Point

_MouseEventType = Literal["mousePressed", "mouseReleased", "mouseMoved", "mouseWheel"]
_Button = Literal["none", "left", "middle", "right", "back", "forward"]


def check_no_dialog(page: Page) -> None:
    page.raise_if_closed()
    dialog = page.open_dialog
    if dialog is not None:
        raise RuntimeError(
            f"A JavaScript {dialog.type} dialog is open ({dialog.message!r}) and blocks the "
            f"page; answer it with handle_dialog() first"
        )


_DIALOG_POLL = 0.1


def _forget(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: never logged as unhandled


async def dispatch_input(page: Page, command: Command[None]) -> None:
    """Send an ``Input.*`` command; stop waiting for it if it opens a dialog left open, and
    bring the page to the front if it waits because the page is a background tab.

    Chrome answers an input event only once the page has handled it, and a page stopped
    at ``alert()`` handles nothing until the dialog is answered. A tab hidden behind another
    of its window (a second ``new_page``, a popup the page opened) handles pointer input
    only after about 5 seconds; brought to the front, it handles the waiting event at once
    (Playwright brings a page to the front before input for the same reason).
    """
    check_no_dialog(page)
    call = asyncio.ensure_future(page.send(command))
    # Looked at beside the polling: a page stopped at a dialog would not answer it.
    looking: asyncio.Future[None] | None = None
    try:
        while True:
            done, _ = await asyncio.wait({call}, timeout=_DIALOG_POLL)
            if done:
                call.result()
                return
            if page.open_dialog is not None:
                call.add_done_callback(_forget)
                return
            if looking is None:
                looking = asyncio.ensure_future(_bring_to_front_if_hidden(page))
                looking.add_done_callback(_forget)
    except asyncio.CancelledError:
        call.cancel()
        raise
    finally:
        if looking is not None:
            looking.cancel()


async def _bring_to_front_if_hidden(page: Page) -> None:
    """Activate ``page``'s tab when its document is hidden (a background tab)."""
    try:
        seen = await page.send(
            cdp.runtime.evaluate("document.visibilityState", return_by_value=True)
        )
        if seen.result.value == "hidden":
            await page.send(cdp.page.bring_to_front())
    except CDPError:
        pass  # the page is navigating or closing: the waiting event says what happened


async def mouse_event(
    page: Page,
    kind: _MouseEventType,
    point: Point,
    *,
    button: _Button = "none",
    buttons: int = 0,
    click_count: int = 0,
    modifiers: int = 0,
    delta_x: float | None = None,
    delta_y: float | None = None,
) -> None:
    """Send one mouse event; the modifiers and buttons held with the low-level tools are
    added, and the mouse position is remembered."""
    state = input_state(page)
    if kind == "mouseMoved":
        buttons |= state.buttons  # moving with a button held down is dragging
    state.mouse = point
    await dispatch_input(
        page,
        cdp.input_.dispatch_mouse_event(
            kind,
            point.x,
            point.y,
            modifiers=modifiers | state.modifiers,
            button=button,
            buttons=buttons,
            click_count=click_count or None,
            delta_x=delta_x,
            delta_y=delta_y,
        ),
    )


async def send_key_down(page: Page, key: KeyDefinition, shifted: bool, mask: int) -> None:
    await dispatch_input(page, key_event(key, shifted, mask))


async def send_key_up(page: Page, key: KeyDefinition, shifted: bool, mask: int) -> None:
    await dispatch_input(page, key_event(key, shifted, mask, up=True))
