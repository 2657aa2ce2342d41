"""Sending ``Input.*`` events (one mouse event, one key down or up) without hanging on a
JavaScript dialog they open, and the checks every input tool makes first (page open, no
dialog blocking it)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import ConnectionClosedError, TargetClosedError
from ..page import Dialog, Page
from ._input_state import _input_state
from ._keys import _Key, _key_params
from ._targeting import Point


def _open_dialog(page: Page) -> Dialog | None:
    dialog = page._open_dialog
    return dialog if dialog is not None and dialog.accepted is None else None


def _closed_error(page: Page) -> ConnectionClosedError:
    """The error calls on the closed ``page`` raise (target closed, crashed...)."""
    error = page._closed_error
    if error is None:
        return TargetClosedError("The page is closed")
    return type(error)(error.reason)


def _check_no_dialog(page: Page) -> None:
    if page.closed:
        raise _closed_error(page)
    dialog = _open_dialog(page)
    if dialog is not None:
        raise RuntimeError(
            f"A JavaScript {dialog.type} dialog is open ({dialog.message!r}) and blocks the "
            f"page; answer it with handle_dialog() first"
        )


_DIALOG_POLL = 0.1


def _forget(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: never logged as unhandled


async def _dispatch(page: Page, method: str, params: dict[str, Any]) -> None:
    """Send an ``Input.*`` command; stop waiting for it if it opens a dialog left open.

    Chrome answers an input event only once the page has handled it, and a page stopped
    at ``alert()`` handles nothing until the dialog is answered.
    """
    _check_no_dialog(page)
    call = asyncio.ensure_future(page.call(method, params))
    try:
        while True:
            done, _ = await asyncio.wait({call}, timeout=_DIALOG_POLL)
            if done:
                call.result()
                return
            if _open_dialog(page) is not None:
                call.add_done_callback(_forget)
                return
    except asyncio.CancelledError:
        call.cancel()
        raise


async def _mouse(
    page: Page,
    kind: str,
    point: Point,
    *,
    button: str = "none",
    buttons: int = 0,
    click_count: int = 0,
    modifiers: int = 0,
    **extra: Any,
) -> None:
    """Send one mouse event; the modifiers and buttons held with the low-level tools are
    added, and the mouse position is remembered."""
    state = _input_state(page)
    if kind == "mouseMoved":
        buttons |= state.buttons  # moving with a button held down is dragging
    params: dict[str, Any] = {
        "type": kind,
        "x": point.x,
        "y": point.y,
        "modifiers": modifiers | state.modifiers,
        "button": button,
        "buttons": buttons,
    }
    if click_count:
        params["clickCount"] = click_count
    params.update(extra)
    state.mouse = point
    await _dispatch(page, "Input.dispatchMouseEvent", params)


async def _key_down(page: Page, key: _Key, shifted: bool, mask: int) -> None:
    params = _key_params(key, shifted, mask)
    params["type"] = "keyDown" if "text" in params else "rawKeyDown"
    await _dispatch(page, "Input.dispatchKeyEvent", params)


async def _key_up(page: Page, key: _Key, shifted: bool, mask: int) -> None:
    params = _key_params(key, shifted, mask)
    params.pop("text", None)
    params.pop("unmodifiedText", None)
    params["type"] = "keyUp"
    await _dispatch(page, "Input.dispatchKeyEvent", params)
