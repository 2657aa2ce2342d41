"""Pointer tools: click, hover, drag, and the low-level mouse (move, buttons down/up, wheel).

Mouse input goes through ``Input.dispatchMouseEvent``, so the page receives trusted events
(``event.isTrusted`` is true), exactly as if a person used the mouse. Element-taking tools
accept exactly one of ``selector=`` (CSS), ``index=`` (a line of the latest snapshot),
``x=``/``y=`` (viewport CSS pixels), or a locator: ``role=`` (with ``name=``), ``text=``,
``label=`` (see :class:`~cdpkit.tools.Locator`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Literal, Unpack

from .. import cdp
from .._core.keywords import (
    DRAG_DEFAULTS,
    TARGET_DEFAULTS,
    DragKeywords,
    TargetKeywords,
    keyword_signature,
)
from ..errors import CDPError
from ..page import Page
from ._dispatch import check_no_dialog, dispatch_input, mouse_event, send_key_down, send_key_up
from ._input_state import BUTTON_BITS, MODIFIER_BITS, input_state
from ._keys import KEYS, MODIFIER_ALIASES, modifier_mask
from ._pointing import clickable_point, release_elements, target_point
from ._recording import recorded
from ._targeting import Element, Point, resolve_element, target_from

__all__ = [
    "MouseButton",
    "click",
    "drag",
    "hover",
    "mouse_down",
    "mouse_move",
    "mouse_up",
    "mouse_wheel",
]

MouseButton = Literal["left", "right", "middle", "back", "forward"]

# -- mouse tools ------------------------------------------------------------------------------


@recorded
@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def click(
    page: Page,
    *,
    button: MouseButton = "left",
    click_count: int = 1,
    modifiers: Sequence[str] = (),
    **target: Unpack[TargetKeywords],
) -> None:
    """Click an element with the real mouse, as a person would.

    The element is scrolled into view (at once, even on pages with ``scroll-behavior:
    smooth``) and, once its box stays put for two animation frames, clicked at the centre
    of the visible part of its first box: the first line of a wrapped link, the part of a
    button inside the viewport. With ``x``/``y`` the click is exactly at that viewport
    point. A text line of a snapshot (``StaticText``) clicks its text. The page receives
    trusted ``mousedown``/``mouseup``/``click`` events (and ``dblclick`` for
    ``click_count=2``, ``contextmenu`` for the right button). Returns once the page has handled the events;
    a navigation the click starts is not awaited (use ``wait_for``). A JavaScript dialog
    the click opens is answered as ``page.dialog_policy`` says (dismissed by default).

    Args:
        page: The page.
        selector: CSS selector of the element (first match; open shadow roots searched too).
        index: Index of the element in the latest ``snapshot`` of the page.
        x: Viewport x in CSS pixels (with ``y``): click exactly there.
        y: Viewport y in CSS pixels (with ``x``).
        role: Role of the element as the snapshot shows it (``button``, ``link``...),
            optionally with ``name``.
        name: With ``role``: the element's accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the element.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.
        button: ``"left"``, ``"right"``, ``"middle"``, ``"back"`` or ``"forward"``.
        click_count: 1 for a click, 2 for a double click, 3 for a triple click.
        modifiers: Keys held during the click: any of ``"Shift"``, ``"Control"``,
            ``"Alt"``, ``"Meta"``.

    Raises:
        ValueError: Not exactly one of selector, index, x/y, role, text or label; an
            invalid selector, button, click count or modifier.
        ElementNotFoundError: No such element (a locator: within ``timeout``); it is
            hidden, or covered by another element (the message names it).
        AmbiguousLocatorError: The locator matched several elements (none was clicked).
        TargetClosedError: The page is closed.
    """
    if button not in BUTTON_BITS:
        raise ValueError(
            f"button must be one of left, right, middle, back, forward; got {button!r}"
        )
    if click_count < 1:
        raise ValueError(f"click_count must be at least 1, got {click_count}")
    mask = modifier_mask(modifiers)
    point = await target_point(page, target_from(target, "click"))
    down = input_state(page).modifiers
    # Modifiers already held with key_down stay held: not pressed or released again.
    held = [
        key
        for key in (KEYS[MODIFIER_ALIASES[name.lower()]] for name in modifiers)
        if not down & MODIFIER_BITS[key.key]
    ]
    for key in held:
        down |= MODIFIER_BITS[key.key]
        await send_key_down(page, key, False, down)
    await mouse_event(page, "mouseMoved", point, modifiers=mask)
    bit = BUTTON_BITS[button]
    for count in range(1, click_count + 1):
        await mouse_event(
            page,
            "mousePressed",
            point,
            button=button,
            buttons=bit,
            click_count=count,
            modifiers=mask,
        )
        await mouse_event(
            page,
            "mouseReleased",
            point,
            button=button,
            buttons=0,
            click_count=count,
            modifiers=mask,
        )
    for key in reversed(held):
        down &= ~MODIFIER_BITS[key.key]
        await send_key_up(page, key, False, down)


@recorded
@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def hover(page: Page, **target: Unpack[TargetKeywords]) -> None:
    """Move the mouse over an element (scrolled into view first), as a person would.

    The page receives trusted ``mouseover``/``mouseenter``/``mousemove`` events and CSS
    ``:hover`` applies, so menus and tooltips that open on hover open.

    Args:
        page: The page.
        selector: CSS selector of the element.
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x in CSS pixels (with ``y``): move exactly there.
        y: Viewport y in CSS pixels (with ``x``).
        role: Role of the element as the snapshot shows it (``button``, ``link``...),
            optionally with ``name``.
        name: With ``role``: the element's accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the element.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Raises:
        ValueError: Not exactly one of selector, index, x/y, role, text or label; an
            invalid selector.
        ElementNotFoundError: No such element, or it is hidden or covered.
        AmbiguousLocatorError: The locator matched several elements.
        TargetClosedError: The page is closed.
    """
    point = await target_point(page, target_from(target, "hover"))
    await mouse_event(page, "mouseMoved", point)


# -- low-level mouse ------------------------------------------------------------------------


def _button_bit(button: str) -> int:
    bit = BUTTON_BITS.get(button)
    if bit is None:
        raise ValueError(
            f"button must be one of left, right, middle, back, forward; got {button!r}"
        )
    return bit


async def mouse_move(page: Page, x: float, y: float, *, steps: int = 1) -> None:
    """Move the mouse to the viewport point (``x``, ``y``) in CSS pixels.

    Buttons held with :func:`mouse_down` stay held (the page sees a drag) and modifiers
    held with :func:`key_down` are reported on the events.

    Args:
        page: The page.
        x: Viewport x in CSS pixels.
        y: Viewport y in CSS pixels.
        steps: How many ``mousemove`` events lead there from the current position
            (evenly spaced), for pages that follow the path.

    Raises:
        ValueError: ``steps`` is less than 1.
        TargetClosedError: The page is closed.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    check_no_dialog(page)
    start = input_state(page).mouse
    for step in range(1, steps + 1):
        fraction = step / steps
        point = Point(start.x + (x - start.x) * fraction, start.y + (y - start.y) * fraction)
        await mouse_event(page, "mouseMoved", point)


async def mouse_down(
    page: Page, x: float, y: float, *, button: MouseButton = "left", click_count: int = 1
) -> None:
    """Move the mouse to (``x``, ``y``) and press a button, keeping it held until
    :func:`mouse_up`.

    Args:
        page: The page.
        x: Viewport x in CSS pixels.
        y: Viewport y in CSS pixels.
        button: ``"left"``, ``"right"``, ``"middle"``, ``"back"`` or ``"forward"``.
        click_count: 2 for the second press of a double click, and so on.

    Raises:
        ValueError: An unknown button, or ``click_count`` less than 1.
        TargetClosedError: The page is closed.
    """
    await _press_or_release(page, x, y, button, click_count, pressed=True)


async def mouse_up(
    page: Page, x: float, y: float, *, button: MouseButton = "left", click_count: int = 1
) -> None:
    """Move the mouse to (``x``, ``y``) and release a button pressed with
    :func:`mouse_down`; the page sees a ``click`` when both happened on the same element.

    Args:
        page: The page.
        x: Viewport x in CSS pixels.
        y: Viewport y in CSS pixels.
        button: The button to release.
        click_count: The same count as the matching :func:`mouse_down`.

    Raises:
        ValueError: An unknown button, or ``click_count`` less than 1.
        TargetClosedError: The page is closed.
    """
    await _press_or_release(page, x, y, button, click_count, pressed=False)


async def _press_or_release(
    page: Page, x: float, y: float, button: MouseButton, click_count: int, *, pressed: bool
) -> None:
    """Move to (``x``, ``y``) if the mouse is elsewhere, then press or release ``button``,
    keeping the held buttons in the page's input state."""
    bit = _button_bit(button)
    if click_count < 1:
        raise ValueError(f"click_count must be at least 1, got {click_count}")
    check_no_dialog(page)
    state = input_state(page)
    point = Point(x, y)
    if state.mouse != point:
        await mouse_event(page, "mouseMoved", point)
    if pressed:
        state.buttons |= bit
    else:
        state.buttons &= ~bit
    await mouse_event(
        page,
        "mousePressed" if pressed else "mouseReleased",
        point,
        button=button,
        buttons=state.buttons,
        click_count=click_count,
    )


async def mouse_wheel(
    page: Page, x: float, y: float, *, delta_x: float = 0, delta_y: float = 0
) -> None:
    """Turn the mouse wheel over the viewport point (``x``, ``y``), as a person scrolls.

    The page gets a trusted ``wheel`` event and, unless it cancels it, the scrollable
    element under the point scrolls (the scroll itself may finish a moment later).

    Args:
        page: The page.
        x: Viewport x in CSS pixels.
        y: Viewport y in CSS pixels.
        delta_x: Pixels to scroll right (negative: left).
        delta_y: Pixels to scroll down (negative: up).

    Raises:
        TargetClosedError: The page is closed.
    """
    check_no_dialog(page)
    await mouse_event(page, "mouseWheel", Point(x, y), delta_x=delta_x, delta_y=delta_y)


# -- drag and drop ----------------------------------------------------------------------------

_DRAG_STEPS = 10
_DRAG_START_WAIT = 0.15


@recorded
@keyword_signature(DragKeywords, DRAG_DEFAULTS)
async def drag(page: Page, **target: Unpack[DragKeywords]) -> None:
    """Drag an element onto another element (or a viewport point) with the mouse.

    Presses the left button on the source's centre, moves in steps to the destination's
    centre and releases there. Works for HTML5 drag and drop (``draggable`` elements:
    the page gets ``dragstart``, ``dragenter``, ``dragover``, ``drop`` and ``dragend``,
    with the data the page put in ``dataTransfer``) and for mouse- or pointer-driven
    dragging (sliders, sortable lists, canvas). The destination is scrolled into view
    after the source is grabbed, so the two may be far apart.

    Args:
        page: The page.
        selector: CSS selector of the element to drag (or ``index``, or ``x``/``y``).
        index: Index of the element to drag in the latest ``snapshot``.
        x: Viewport x where to grab (with ``y``).
        y: Viewport y where to grab (with ``x``).
        to_selector: CSS selector of the element to drop on (or ``to_index``, or
            ``to_x``/``to_y``).
        to_index: Index of the element to drop on in the latest ``snapshot``.
        to_x: Viewport x where to drop (with ``to_y``).
        to_y: Viewport y where to drop (with ``to_x``).
        role: Role of the element to drag (as the snapshot shows it), optionally with
            ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: the source's ``name``/``text``/``label`` match a
            case-insensitive part.
        text: Visible text of the element to drag.
        label: Label of the form field to drag.
        to_role: Role of the element to drop on, optionally with ``to_name``.
        to_name: With ``to_role``: its accessible name.
        to_exact: ``False``: the destination's ``to_name``/``to_text``/``to_label``
            match a case-insensitive part.
        to_text: Visible text of the element to drop on.
        to_label: Label of the form field to drop on.
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Raises:
        ValueError: Not exactly one way of giving the source, or the destination
            ("Provide one of: to_selector, to_index, to_x/to_y, to_role (with to_name),
            to_text, or to_label").
        ElementNotFoundError: The source or destination is missing, hidden or covered.
        AmbiguousLocatorError: A locator matched several elements (nothing was dragged).
        TargetClosedError: The page is closed.
    """
    drop = target_from(target, "drag", DragKeywords, prefix="to_")
    drop.check(prefix="to_")
    source = target_from(target)
    source.check()
    to_x, to_y = drop.x, drop.y
    destination: Element | None = None
    if drop.locator is not None:
        # Found before the source is grabbed: a missing or ambiguous destination fails
        # with nothing pressed.
        destination = await resolve_element(page, locator=drop.locator, timeout=source.timeout)
    try:
        start = await target_point(page, source)
        if to_x is None and destination is None:
            destination = await resolve_element(page, selector=drop.selector, index=drop.index)
    except BaseException:
        await release_elements(destination)
        raise
    try:
        end, data = await _drag_moves(page, start, destination, to_x, to_y)
    finally:
        await release_elements(destination)
    if data is not None:
        # An HTML5 drag started: play its end through the drag events Chrome intercepted.
        kinds: tuple[Literal["dragEnter", "dragOver", "drop"], ...] = (
            "dragEnter", "dragOver", "drop"
        )
        for kind in kinds:
            await dispatch_input(page, cdp.input_.dispatch_drag_event(kind, end.x, end.y, data))
    await mouse_event(page, "mouseReleased", end, button="left", click_count=1)


async def _drag_moves(
    page: Page,
    start: Point,
    destination: Element | None,
    to_x: float | None,
    to_y: float | None,
) -> tuple[Point, cdp.input_.DragData | None]:
    """Press at ``start`` and move to the destination; the end point, and the drag data
    if an HTML5 drag started (Chrome intercepted it), else ``None``."""
    data: cdp.input_.DragData | None = None
    await page.send(cdp.input_.set_intercept_drags(True))
    try:
        async with page.listen(cdp.input_.DragIntercepted) as intercepted:
            await mouse_event(page, "mouseMoved", start)
            await mouse_event(page, "mousePressed", start, button="left", buttons=1, click_count=1)
            # Past Chrome's few-pixel threshold a drag starts; only then scroll to the
            # destination (the drag must start where the source was pressed).
            nudge = start
            try:
                for shift in (3, 6, 10):
                    nudge = Point(start.x + shift, start.y + shift)
                    await mouse_event(page, "mouseMoved", nudge, button="left", buttons=1)
                if destination is not None:
                    end = await clickable_point(page, destination, check_hit=False)
                else:
                    assert to_x is not None and to_y is not None
                    end = Point(to_x, to_y)
            except BaseException:
                # Let go: no drag half done, no button left pressed.
                with contextlib.suppress(CDPError, TimeoutError):
                    async with asyncio.timeout(_DRAG_START_WAIT):
                        started = (await anext(intercepted)).data
                    await page.send(
                        cdp.input_.dispatch_drag_event("dragCancel", nudge.x, nudge.y, started)
                    )
                with contextlib.suppress(CDPError):
                    await mouse_event(page, "mouseReleased", nudge, button="left", click_count=1)
                raise
            for step in range(1, _DRAG_STEPS + 1):
                if len(intercepted):
                    break
                fraction = step / _DRAG_STEPS
                point = Point(
                    nudge.x + (end.x - nudge.x) * fraction, nudge.y + (end.y - nudge.y) * fraction
                )
                await mouse_event(page, "mouseMoved", point, button="left", buttons=1)
            event: cdp.input_.DragIntercepted | None = None
            if len(intercepted):
                event = await anext(intercepted)
            else:
                # Chrome reports a drag start apart from the input events: allow it a moment.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(_DRAG_START_WAIT):
                        event = await anext(intercepted)
            if event is not None:
                data = event.data
    finally:
        with contextlib.suppress(CDPError):
            await page.send(cdp.input_.set_intercept_drags(False))
    return end, data
