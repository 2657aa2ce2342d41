"""Keyboard tools: type text, press keys and combinations, hold keys down (``key_down`` /
``key_up``).

Keys go through ``Input.dispatchKeyEvent``, so the page receives trusted events
(``event.isTrusted`` is true), as if a person typed.
"""

from __future__ import annotations

import asyncio
from typing import Unpack

from .. import cdp
from .._core.keywords import TARGET_DEFAULTS, FieldKeywords, keyword_signature
from .._model import Command
from ..errors import ElementNotFoundError
from ..page import Page
from ._dispatch import check_no_dialog, dispatch_input, mouse_event, send_key_down, send_key_up
from ._input_state import MODIFIER_BITS, input_state
from ._keys import KEYS, key_event, lookup_key, parse_combo, utf16_length
from ._pointing import DESCRIBE_SCRIPT, release_elements, target_and_point
from ._recording import recorded
from ._scripts import Script, evaluate_handle
from ._targeting import Element, target_from

__all__ = [
    "key_down",
    "key_up",
    "press_key",
    "type_text",
]


# -- pressing keys ----------------------------------------------------------------------------


async def _press_combo(page: Page, combo: str) -> None:
    modifier_names, main = parse_combo(combo)
    key, shifted = lookup_key(main)
    if modifier_names:  # "Control+A" is the A key, shifted only if Shift is held
        shifted = "Shift" in modifier_names and bool(key.shift_key)
    modifiers = [KEYS[name] for name in modifier_names]
    mask = input_state(page).modifiers  # keys held with key_down apply too
    for modifier in modifiers:
        mask |= MODIFIER_BITS[modifier.key]
        await send_key_down(page, modifier, False, mask)
    if key.key in MODIFIER_BITS and not modifiers:
        mask |= MODIFIER_BITS[key.key]
    if not key.code and utf16_length(key.text) > 2 and not mask & ~MODIFIER_BITS["Shift"]:
        # Key events carry at most two UTF-16 units of text (one emoji); a longer
        # character (a flag, a skin tone, a family) arrives as text input.
        await dispatch_input(page, cdp.input_.insert_text(key.text))
        return
    await send_key_down(page, key, shifted, mask)
    await send_key_up(page, key, shifted, mask)
    for modifier in reversed(modifiers):
        mask &= ~MODIFIER_BITS[modifier.key]
        await send_key_up(page, modifier, False, mask)


# -- holding keys down ------------------------------------------------------------------------


async def key_down(page: Page, key: str) -> None:
    """Press a key and keep it held until :func:`key_up`.

    A held modifier (``"Shift"``, ``"Control"``, ``"Alt"``, ``"Meta"``) applies to every
    click, key press and typed character on the page until it is released, as when a
    person holds it: Shift held while clicking extends a selection, Shift held while
    pressing ``ArrowLeft`` selects text. Pressing a held key again auto-repeats it.

    Args:
        page: The page.
        key: One key, named as for :func:`press_key` (``"Shift"``, ``"a"``,
            ``"ArrowDown"``...); not a combination.

    Raises:
        ValueError: An unknown key name.
        TargetClosedError: The page is closed.
    """
    found, shifted = lookup_key(key)
    check_no_dialog(page)
    state = input_state(page)
    if found.key in MODIFIER_BITS:
        state.modifiers |= MODIFIER_BITS[found.key]
    command = key_event(found, shifted, state.modifiers, auto_repeat=found.key in state.keys)
    state.keys.add(found.key)
    await dispatch_input(page, command)


async def key_up(page: Page, key: str) -> None:
    """Release a key held with :func:`key_down` (releasing a key not held sends the
    ``keyup`` anyway, as a keyboard would).

    Args:
        page: The page.
        key: The key, named as for :func:`key_down`.

    Raises:
        ValueError: An unknown key name.
        TargetClosedError: The page is closed.
    """
    found, shifted = lookup_key(key)
    check_no_dialog(page)
    state = input_state(page)
    if found.key in MODIFIER_BITS:
        state.modifiers &= ~MODIFIER_BITS[found.key]
    state.keys.discard(found.key)
    await send_key_up(page, found, shifted, state.modifiers)


# -- typing -----------------------------------------------------------------------------------

_EDITABLE_FIELD = Script("editable_field")
_PREPARE_TYPING = Script("prepare_typing")
_SET_VALUE = Script("set_value")
_ACTIVE_ELEMENT = Script("active_element")

_TYPE_BATCH = 64


async def _type_characters(page: Page, text: str) -> None:
    """Type ``text`` key by key; characters without a key are inserted as text input."""
    calls: list[Command[None]] = []
    pending_text = ""

    def flush_text() -> None:
        nonlocal pending_text
        if pending_text:
            calls.append(cdp.input_.insert_text(pending_text))
            pending_text = ""

    held = input_state(page).modifiers  # Shift held with key_down types capitals
    for char in text.replace("\r\n", "\n"):
        name = "Enter" if char in "\n\r" else char
        key = KEYS.get(name)
        if key is None or (len(name) == 1 and key.text != name and key.shift_key != name):
            pending_text += char
            continue
        flush_text()
        shifted = bool(key.shift_key) and name == key.shift_key
        calls.append(key_event(key, shifted, held))
        calls.append(key_event(key, shifted, held, up=True))
    flush_text()
    # Pipelined in batches: Chrome handles one session's commands in order.
    for start in range(0, len(calls), _TYPE_BATCH):
        batch = calls[start : start + _TYPE_BATCH]
        await asyncio.gather(*(dispatch_input(page, command) for command in batch))


async def _focused_element(page: Page) -> Element | None:
    remote = await evaluate_handle(page, _ACTIVE_ELEMENT)
    if remote.object_id is None:
        return None
    return Element(page, remote.object_id, "the focused element")


@recorded
@keyword_signature(FieldKeywords, TARGET_DEFAULTS)
async def type_text(
    page: Page,
    text: str,
    *,
    clear: bool = False,
    submit: bool = False,
    **target: Unpack[FieldKeywords],
) -> None:
    """Type text into a field with real key presses, as a person would.

    With a target, the field is clicked (focused) first and the text is added at the end
    of what it already holds; without one, the text goes to the focused element at its
    caret, replacing the selected text if any (as a person typing would). Keys held with
    :func:`key_down` apply: with Shift held letters come out in capitals, with Control
    held keys are shortcuts. Each character is a trusted
    ``keydown``/``keypress``/``input``/``keyup`` sequence, so frameworks that only update
    on input events (React controlled inputs, Vue, ...) see the new value;
    contenteditable elements work too. Characters without a key on a US
    keyboard (accents, emoji, CJK) are inserted as text input. A target that wraps or
    labels a single field (a ``<label>``, a component's wrapper) types into that field.
    Inputs of type date, time, datetime-local, month, week, color and range take no
    typing: their value is set to ``text`` (e.g. ``"2024-05-17"``, ``"#ff0000"``) and
    ``input`` and ``change`` are dispatched.

    Args:
        page: The page.
        text: What to type. ``"\\n"`` presses Enter.
        selector: CSS selector of the field.
        index: Index of the field in the latest ``snapshot``.
        x: Viewport x of the field (with ``y``).
        y: Viewport y of the field (with ``x``).
        role: Role of the field as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``label`` match a case-insensitive part.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
            (``text`` is what to type: a field is not found by visible text here.)
        timeout: Seconds a ``role``/``label`` locator waits for its element.
        clear: Replace the field's current content instead of appending to it.
        submit: Press Enter after typing (submits most forms).

    Raises:
        ValueError: Several ways of targeting given; an invalid selector; ``clear=True``
            with no target and nothing focused.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element, it is hidden or covered, or it is not
            editable (not an input, a textarea or contenteditable).
        TargetClosedError: The page is closed.
    """
    field_target = target_from(target, "type_text", FieldKeywords)
    targeted = field_target.ways > 0
    handles: list[Element | None] = []
    try:
        if targeted:
            element, point = await target_and_point(page, field_target)
            handles.append(element)
            field = await element.call_for_element(_EDITABLE_FIELD, True)
            if field is None:
                tag = await element.call(DESCRIBE_SCRIPT)
                raise ElementNotFoundError(
                    f"Element {element.description} ({tag}) is not editable: target an "
                    f"input, a textarea or a contenteditable element"
                )
            await mouse_event(page, "mouseMoved", point)
            await mouse_event(page, "mousePressed", point, button="left", buttons=1, click_count=1)
            await mouse_event(page, "mouseReleased", point, button="left", click_count=1)
        else:
            check_no_dialog(page)
            focused = await _focused_element(page)
            handles.append(focused)
            field = (
                await focused.call_for_element(_EDITABLE_FIELD, False)
                if focused is not None
                else None
            )
            if field is None and clear:
                raise ValueError("clear=True needs a target: nothing editable is focused")
        handles.append(field)
        if field is not None:
            how = await field.call(_PREPARE_TYPING, clear, targeted)
            if how == "set":
                await field.call(_SET_VALUE, text)
                text = ""
            elif how == "end":
                await _press_combo(page, "End")
            if clear and not text and how != "set":
                await _press_combo(page, "Delete")
    finally:
        await release_elements(*handles)
    if text:
        await _type_characters(page, text)
    if submit:
        await _press_combo(page, "Enter")


@recorded
async def press_key(page: Page, key: str) -> None:
    """Press and release a key, or a combination, in the focused element of the page.

    Sends trusted ``keydown``/``keyup`` events (and ``keypress``/``input`` for keys that
    type something). Modifiers in a combination are held down in order and released in
    reverse, so shortcuts work: ``"Control+A"`` selects all, ``"Shift+Tab"`` moves focus
    back.

    Args:
        page: The page.
        key: A key name (``"Enter"``, ``"Tab"``, ``"Escape"``, ``"Backspace"``,
            ``"Delete"``, ``"ArrowUp"``/``"ArrowDown"``/``"ArrowLeft"``/``"ArrowRight"``,
            ``"Home"``, ``"End"``, ``"PageUp"``, ``"PageDown"``, ``"F1"``...``"F24"``,
            ``"Space"``, ``"Shift"``...; ``"\\n"`` and ``"\\r"`` are Enter), a key code
            name (``"KeyA"``, ``"Numpad5"``), a single character of any script
            (``"a"``, ``"?"``, ``"ё"``, ``"😊"``, ``"🇫🇷"``), or a combination joined by ``+`` such as
            ``"Control+A"``, ``"Control+Shift+ArrowLeft"``, ``"Meta+Enter"``. Names are
            case-insensitive; ``Ctrl``, ``Cmd``, ``Esc``, ``Return``, ``Up``... work too.

    Raises:
        ValueError: A key name that is neither a known key nor a single character (the
            message names it), or a malformed combination.
        TargetClosedError: The page is closed.
    """
    check_no_dialog(page)
    await _press_combo(page, key)
