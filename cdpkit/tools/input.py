"""Input tools: click, hover, type, press keys, drag, pick options, upload files, answer
dialogs.

Mouse and keyboard input goes through ``Input.dispatchMouseEvent`` / ``dispatchKeyEvent``,
so the page receives trusted events (``event.isTrusted`` is true), exactly as if a person
used the mouse and keyboard. Element-taking tools accept exactly one of ``selector=``
(CSS), ``index=`` (a line of the latest snapshot) or ``x=``/``y=`` (viewport CSS pixels).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._model import RawEvent
from ..errors import (
    CDPError,
    ConnectionClosedError,
    ElementNotFoundError,
    EvaluationError,
    ProtocolError,
    TargetClosedError,
    WaitTimeoutError,
)
from ..page import Dialog, Page
from ..session import Session
from ._targeting import Element, Point, check_one_target, resolve_element
from .accessibility import session_origin

__all__ = [
    "MouseButton",
    "click",
    "drag",
    "handle_dialog",
    "hover",
    "key_down",
    "key_up",
    "mouse_down",
    "mouse_move",
    "mouse_up",
    "mouse_wheel",
    "press_key",
    "select_option",
    "type_text",
    "upload_file",
]

MouseButton = Literal["left", "right", "middle", "back", "forward"]

# Bits of the ``buttons`` field of mouse events, and of the ``modifiers`` field.
_BUTTON_BITS = {"left": 1, "right": 2, "middle": 4, "back": 8, "forward": 16}
_MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
_MODIFIER_ALIASES = {
    "alt": "Alt",
    "option": "Alt",
    "opt": "Alt",
    "control": "Control",
    "ctrl": "Control",
    "meta": "Meta",
    "cmd": "Meta",
    "command": "Meta",
    "super": "Meta",
    "win": "Meta",
    "shift": "Shift",
}


# -- what the low-level tools hold down ------------------------------------------------------


@dataclass(slots=True)
class _InputState:
    """What the low-level tools (``key_down``, ``mouse_down``...) hold on a page between
    calls; every later mouse and key event of the page carries it.

    Attributes:
        modifiers: Bits (``_MODIFIER_BITS``) of the modifier keys held down.
        keys: Names of every key held down, for ``autoRepeat`` and ``key_up``.
        buttons: Bits (``_BUTTON_BITS``) of the mouse buttons held down.
        mouse: Where the mouse is, in viewport CSS pixels.
    """

    modifiers: int = 0
    keys: set[str] = field(default_factory=set)
    buttons: int = 0
    mouse: Point = field(default_factory=lambda: Point(0, 0))


_INPUT_STATE = "input"  # key in page.tool_state


def _input_state(page: Page) -> _InputState:
    """The page's held keys and buttons (created empty on first use)."""
    state = page.tool_state.get(_INPUT_STATE)
    if not isinstance(state, _InputState):
        state = page.tool_state[_INPUT_STATE] = _InputState()
    return state


# -- the keyboard -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Key:
    """One key of a US keyboard: what ``KeyboardEvent`` reports for it."""

    key: str  # KeyboardEvent.key
    code: str  # KeyboardEvent.code
    key_code: int  # keyCode / windowsVirtualKeyCode
    text: str = ""  # the text it types, if any
    shift_key: str = ""  # key and text with Shift held, for keys that change
    location: int = 0  # 1 left, 2 right, 3 numpad


def _build_keys() -> dict[str, _Key]:
    keys: list[_Key] = []
    for letter in "abcdefghijklmnopqrstuvwxyz":
        upper = letter.upper()
        keys.append(_Key(letter, f"Key{upper}", ord(upper), letter, upper))
    for digit, shifted in zip("0123456789", ")!@#$%^&*(", strict=True):
        keys.append(_Key(digit, f"Digit{digit}", 48 + int(digit), digit, shifted))
    for plain, shifted, code, key_code in [
        ("`", "~", "Backquote", 192),
        ("-", "_", "Minus", 189),
        ("=", "+", "Equal", 187),
        ("[", "{", "BracketLeft", 219),
        ("]", "}", "BracketRight", 221),
        ("\\", "|", "Backslash", 220),
        (";", ":", "Semicolon", 186),
        ("'", '"', "Quote", 222),
        (",", "<", "Comma", 188),
        (".", ">", "Period", 190),
        ("/", "?", "Slash", 191),
    ]:
        keys.append(_Key(plain, code, key_code, plain, shifted))
    keys += [
        _Key(" ", "Space", 32, " "),
        _Key("Enter", "Enter", 13, "\r"),
        _Key("Tab", "Tab", 9),
        _Key("Backspace", "Backspace", 8),
        _Key("Escape", "Escape", 27),
        _Key("Delete", "Delete", 46),
        _Key("Insert", "Insert", 45),
        _Key("Home", "Home", 36),
        _Key("End", "End", 35),
        _Key("PageUp", "PageUp", 33),
        _Key("PageDown", "PageDown", 34),
        _Key("ArrowLeft", "ArrowLeft", 37),
        _Key("ArrowUp", "ArrowUp", 38),
        _Key("ArrowRight", "ArrowRight", 39),
        _Key("ArrowDown", "ArrowDown", 40),
        _Key("Shift", "ShiftLeft", 16, location=1),
        _Key("Control", "ControlLeft", 17, location=1),
        _Key("Alt", "AltLeft", 18, location=1),
        _Key("Meta", "MetaLeft", 91, location=1),
        _Key("CapsLock", "CapsLock", 20),
        _Key("NumLock", "NumLock", 144),
        _Key("ScrollLock", "ScrollLock", 145),
        _Key("Pause", "Pause", 19),
        _Key("PrintScreen", "PrintScreen", 44),
        _Key("ContextMenu", "ContextMenu", 93),
        _Key("AudioVolumeMute", "AudioVolumeMute", 173),
        _Key("AudioVolumeDown", "AudioVolumeDown", 174),
        _Key("AudioVolumeUp", "AudioVolumeUp", 175),
        _Key("MediaTrackNext", "MediaTrackNext", 176),
        _Key("MediaTrackPrevious", "MediaTrackPrevious", 177),
        _Key("MediaStop", "MediaStop", 178),
        _Key("MediaPlayPause", "MediaPlayPause", 179),
    ]
    keys += [_Key(f"F{n}", f"F{n}", 111 + n) for n in range(1, 25)]
    table: dict[str, _Key] = {}
    for key in keys:
        table.setdefault(key.key, key)
        if key.shift_key:
            table.setdefault(key.shift_key, key)
    # Right-hand modifiers and the numeric keypad, reachable by their code names.
    extra = [
        _Key("Shift", "ShiftRight", 16, location=2),
        _Key("Control", "ControlRight", 17, location=2),
        _Key("Alt", "AltRight", 18, location=2),
        _Key("Meta", "MetaRight", 92, location=2),
        _Key("Enter", "NumpadEnter", 13, "\r", location=3),
        _Key("+", "NumpadAdd", 107, "+", location=3),
        _Key("-", "NumpadSubtract", 109, "-", location=3),
        _Key("*", "NumpadMultiply", 106, "*", location=3),
        _Key("/", "NumpadDivide", 111, "/", location=3),
        _Key(".", "NumpadDecimal", 110, ".", location=3),
    ]
    extra += [_Key(str(n), f"Numpad{n}", 96 + n, str(n), location=3) for n in range(10)]
    for key in [*keys, *extra]:
        table.setdefault(key.code, key)
    return table


_KEYS = _build_keys()
_KEYS_FOLDED = {name.lower(): key for name, key in _KEYS.items() if len(name) > 1}
_KEY_ALIASES = {
    "esc": "Escape",
    "return": "Enter",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "del": "Delete",
    "ins": "Insert",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "space": " ",
    "spacebar": " ",
    "plus": "+",
    **_MODIFIER_ALIASES,
}


def _is_one_character(text: str) -> bool:
    """Whether ``text`` is what a reader sees as one character: a code point, maybe with
    combining accents, variation selectors, skin tones, zero-width-joined emoji, or a flag
    (a pair of regional indicators)."""
    if not text:
        return False
    regional = 0
    previous = ""
    for position, char in enumerate(text):
        code = ord(char)
        if 0x1F1E6 <= code <= 0x1F1FF:
            regional += 1
            if regional > 2 or (position and regional == 1):
                return False
        elif position and not (
            unicodedata.category(char).startswith("M")
            or 0xFE00 <= code <= 0xFE0F  # variation selectors
            or 0x1F3FB <= code <= 0x1F3FF  # skin tones
            or 0xE0020 <= code <= 0xE007F  # tags (subdivision flags)
            or code == 0x200D  # zero width joiner
            or previous == "\u200d"
        ):
            return False
        previous = char
    return True


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _lookup_key(name: str) -> tuple[_Key, bool]:
    """The key called ``name`` and whether ``name`` is its shifted variant ("A", "!")."""
    if name in ("\n", "\r", "\r\n"):
        name = "Enter"
    key = _KEYS.get(name)
    if key is None and len(name) > 1:
        folded = name.lower()
        alias = _KEY_ALIASES.get(folded)
        key = _KEYS.get(alias) if alias is not None else _KEYS_FOLDED.get(folded)
    if key is None:
        if _is_one_character(name):  # any other character: typed as itself
            return _Key(name, "", 0, name), False
        raise ValueError(
            f"Unknown key {name!r}: use a key name such as Enter, Tab, Escape, Backspace, "
            f"Delete, ArrowUp, Home, PageDown, F5, a single character, or a combination "
            f"such as Control+A"
        )
    return key, bool(key.shift_key) and name == key.shift_key


def _parse_combo(combo: str) -> tuple[list[str], str]:
    """Split ``"Control+Shift+A"`` into modifiers and the main key (``"+"`` works too)."""
    if combo == "+":
        return [], "+"
    parts = [*combo[:-2].split("+"), "+"] if combo.endswith("++") else combo.split("+")
    if not combo or any(part == "" for part in parts):
        raise ValueError(f"Invalid key combination {combo!r}; write it like Control+A")
    modifiers: list[str] = []
    for part in parts[:-1]:
        modifier = _MODIFIER_ALIASES.get(part.lower())
        if modifier is None:
            raise ValueError(
                f"{part!r} in {combo!r} is not a modifier; use Shift, Control, Alt or Meta"
            )
        modifiers.append(modifier)
    return modifiers, parts[-1]


def _modifier_mask(modifiers: Iterable[str]) -> int:
    mask = 0
    for name in modifiers:
        canonical = _MODIFIER_ALIASES.get(name.lower())
        if canonical is None:
            raise ValueError(f"Unknown modifier {name!r}; use Shift, Control, Alt or Meta")
        mask |= _MODIFIER_BITS[canonical]
    return mask


def _key_params(key: _Key, shifted: bool, mask: int) -> dict[str, Any]:
    name = (
        key.shift_key if shifted or (mask & _MODIFIER_BITS["Shift"] and key.shift_key) else key.key
    )
    text = key.text
    if key.shift_key and name == key.shift_key:
        text = key.shift_key
    # With Control, Alt or Meta held a key types nothing (it is a shortcut).
    if mask & ~_MODIFIER_BITS["Shift"]:
        text = ""
    params: dict[str, Any] = {
        "key": name,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": mask,
    }
    if text:
        params["text"] = text
        params["unmodifiedText"] = text
    if key.location:
        params["location"] = key.location
        if key.location == 3:
            params["isKeypad"] = True
    return params


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


async def _press_combo(page: Page, combo: str) -> None:
    modifier_names, main = _parse_combo(combo)
    key, shifted = _lookup_key(main)
    if modifier_names:  # "Control+A" is the A key, shifted only if Shift is held
        shifted = "Shift" in modifier_names and bool(key.shift_key)
    modifiers = [_KEYS[name] for name in modifier_names]
    mask = _input_state(page).modifiers  # keys held with key_down apply too
    for modifier in modifiers:
        mask |= _MODIFIER_BITS[modifier.key]
        await _key_down(page, modifier, False, mask)
    if key.key in _MODIFIER_BITS and not modifiers:
        mask |= _MODIFIER_BITS[key.key]
    if not key.code and _utf16_length(key.text) > 2 and not mask & ~_MODIFIER_BITS["Shift"]:
        # Key events carry at most two UTF-16 units of text (one emoji); a longer
        # character (a flag, a skin tone, a family) arrives as text input.
        await _dispatch(page, "Input.insertText", {"text": key.text})
        return
    await _key_down(page, key, shifted, mask)
    await _key_up(page, key, shifted, mask)
    for modifier in reversed(modifiers):
        mask &= ~_MODIFIER_BITS[modifier.key]
        await _key_up(page, modifier, False, mask)


# -- sending input without hanging on dialogs -------------------------------------------------


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


# -- where to click ---------------------------------------------------------------------------

# How a "covered by" error names the element a click would reach: its start tag with the
# attributes that identify it, and the start of its text.
_DESCRIBE_HIT_JS = """const describeHit = (hit) => {
    let description = '<' + hit.localName;
    for (const name of ['id', 'class', 'role', 'aria-label', 'name']) {
      const value = (hit.getAttribute(name) || '').trim().replace(/\\s+/g, ' ');
      if (value) description += ' ' + name + '="' + value.slice(0, 40) + '"';
    }
    description += '>';
    const text = (hit.innerText || hit.textContent || '').trim().replace(/\\s+/g, ' ');
    if (text) {
      description += ' ' + JSON.stringify(text.length > 40 ? text.slice(0, 39) + '…' : text);
    }
    return description;
  };"""

# The top document's side of a click into a frame: what its point reaches, ``null`` when
# that is a frame (whose own document then decides).
_TOP_HIT_JS = """((x, y) => {
  """ + _DESCRIBE_HIT_JS + """
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit || ['iframe', 'frame', 'object', 'embed'].includes(hit.localName)) return null;
  return describeHit(hit);
})"""

# ``this`` is the target: an element, or a text node (a ``StaticText`` line of a snapshot),
# whose parent element then owns it for the hit test. Scrolls it into view instantly
# (whatever the page's ``scroll-behavior``), waits until its first client rect is the
# same on two consecutive animation frames, and returns the centre of the visible part
# of that rect in its frame's viewport, and what a click there would reach instead of
# the target (``covering``, ``null`` when it reaches the target).
_MEASURE_JS = """async function(checkHit, forceScroll, stableTimeoutMs) {
  """ + _DESCRIBE_HIT_JS + """
  const node = this;
  const owner = node.nodeType === 1 ? node : node.parentElement;
  if (!node.isConnected || !owner) return {error: 'hidden'};
  const doc = node.ownerDocument;
  const win = doc.defaultView;
  // An element with display: contents has no box of its own: its content's boxes count.
  const ownBoxes = node.nodeType === 1 && win.getComputedStyle(node).display !== 'contents';
  const scroller = ownBoxes || node.nodeType !== 1 ? owner : node.firstElementChild || owner;
  const firstRect = () => {
    let rects;
    if (ownBoxes) {
      rects = node.getClientRects();
    } else {
      const range = doc.createRange();
      range.selectNodeContents(node);
      rects = range.getClientRects();
    }
    for (const rect of rects) if (rect.width * rect.height >= 1) return rect;
    return null;
  };
  const viewport = () => {
    const vv = win.visualViewport;
    return vv ? {width: vv.width, height: vv.height}
              : {width: win.innerWidth, height: win.innerHeight};
  };
  // rAF does not run in hidden pages: a timer stands in for a frame there.
  const nextFrame = () => new Promise((resolve) => {
    const timer = setTimeout(resolve, 50);
    win.requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
  });
  if (!firstRect() || win.getComputedStyle(owner).visibility !== 'visible') {
    return {error: 'hidden'};
  }
  const inView = (r) => {
    const view = viewport();
    return r.left >= 0 && r.top >= 0 && r.right <= view.width && r.bottom <= view.height;
  };
  const same = (a, b) => a && b && a.x === b.x && a.y === b.y && a.width === b.width
    && a.height === b.height;
  const deadline = performance.now() + stableTimeoutMs;
  let rect = null;
  // A page scrolling by itself may carry the element away again: measure, scroll if
  // needed, wait until still, and look again.
  for (let round = 0; round < 3; round++) {
    rect = firstRect();
    if (!rect) return {error: 'hidden'};
    if (round === 0 ? forceScroll || !inView(rect) : !inView(rect)) {
      scroller.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    } else if (round === 0) {
      // In the viewport, maybe not in a scrolled box around it: 'nearest' scrolls only
      // the boxes that hide it, and nothing at all when it is already visible.
      scroller.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
    } else {
      break;
    }
    let previous = null;
    rect = firstRect();
    while (!same(previous, rect) && performance.now() < deadline) {
      await nextFrame();
      previous = rect;
      rect = firstRect();
    }
    if (!rect || inView(rect)) break;
  }
  if (!rect) return {error: 'hidden'};
  const view = viewport();
  const left = Math.max(rect.left, 0), right = Math.min(rect.right, view.width);
  const top = Math.max(rect.top, 0), bottom = Math.min(rect.bottom, view.height);
  if (right - left < 1 || bottom - top < 1) return {error: 'outside'};
  const x = (left + right) / 2, y = (top + bottom) / 2;
  const result = {x, y, top: win === win.top, covering: null};
  if (!checkHit) return result;
  let hit = doc.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return result;
  const up = (n) => n.parentNode || n.host || null;
  const reaches = (from, to) => {
    for (let n = from; n; n = up(n)) if (n === to) return true;
    return false;
  };
  // The hit counts when it is the target or inside it; a label of the target or the
  // target label's control; a closed shadow root's host holding the target.
  if (reaches(hit, owner)) return result;
  for (let root = owner.getRootNode(); root.host; root = root.host.getRootNode()) {
    if (root.host === hit) return result;
  }
  for (let n = hit; n; n = up(n)) {
    if (n.localName === 'label' && n.control === owner) return result;
  }
  if (owner.localName === 'label' && owner.control && reaches(hit, owner.control)) return result;
  result.covering = describeHit(hit);
  return result;
}"""

_DESCRIBE_JS = """function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return 'a ' + this.nodeName + ' node';
  let text = '<' + el.localName;
  if (el.id) text += ' id="' + el.id + '"';
  return text + '>';
}"""

_STABLE_TIMEOUT_MS = 1000  # an element still moving after this is clicked where it is
_COVERED_RETRIES = (0.05, 0.1, 0.2, 0.3)  # a transient overlay (a fading toast) may go


def _frame_gone(element: Element) -> ElementNotFoundError:
    return ElementNotFoundError(
        f"Element {element.description} is in a frame that is no longer part of the page"
    )


async def _frame_ids(page: Page, element: Element) -> tuple[str, str]:
    """The id of the frame holding ``element``, and of the root frame of its session."""
    session = element.session
    document = await _handle(
        element, "function() { return (this.ownerDocument || this).documentElement; }"
    )
    if document is None:
        raise _frame_gone(element)
    try:
        # A document element's node carries the id of its frame.
        node = (await session.call("DOM.describeNode", {"objectId": document.object_id}))["node"]
    except ProtocolError:
        raise _frame_gone(element) from None
    finally:
        await _release(document)
    if session is page:
        root_id = page.target_id  # a page's main frame id is its target id
    else:
        root_id = (await session.call("Page.getFrameTree"))["frameTree"]["frame"]["id"]
    return str(node.get("frameId") or root_id), root_id


async def _scroll_frame_into_view(page: Page, element: Element) -> None:
    """Scroll the ``<iframe>`` holding ``element`` into the page's view, from the side of
    the document that holds the iframe (a frame's own scrolling does not move its parents
    when the element is ``position: fixed``)."""
    frame_id, root_id = await _frame_ids(page, element)
    # The owner is in the element's own process, or for the root frame of an
    # out-of-process frame's session, in the page's (the usual case: one level deep).
    session: Session = element.session if frame_id != root_id else page
    with contextlib.suppress(ProtocolError, KeyError):
        owner = await session.call("DOM.getFrameOwner", {"frameId": frame_id})
        resolved = await session.call("DOM.resolveNode", {"backendNodeId": owner["backendNodeId"]})
        iframe = Element(session, resolved["object"]["objectId"], element.description)
        try:
            await iframe.call(
                "function() { this.scrollIntoView("
                "{block: 'center', inline: 'center', behavior: 'instant'}); }"
            )
        finally:
            await _release(iframe)


async def _frame_origin(page: Page, element: Element) -> Point:
    """Where the viewport of the frame holding ``element`` lies in the page's viewport.

    The origin of a frame is its ``<iframe>``'s content box: inside its border and padding.
    """
    session = element.session
    gone = _frame_gone(element)
    frame_id, root_id = await _frame_ids(page, element)
    x = y = 0.0
    if frame_id != root_id:
        try:
            owner = await session.call("DOM.getFrameOwner", {"frameId": frame_id})
            box = await session.call("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})
        except ProtocolError:
            raise gone from None
        # Box models of a process's nested frames are in its root frame's viewport.
        content = box["model"]["content"]
        x, y = float(content[0]), float(content[1])
    if session is not page:
        origin = await session_origin(page, session)
        x, y = x + origin[0], y + origin[1]
    return Point(x, y)


async def _clickable_point(page: Page, element: Element, *, check_hit: bool = True) -> Point:
    """Scroll ``element`` into view and return where a click lands on it, in the page's
    viewport: the centre of the visible part of its first box (the first line of a
    wrapped link), once the box stays put across two animation frames.

    With ``check_hit``, the element at that point must be the target, inside it, or its
    label (a text node's parent counts as the text); otherwise the check is retried
    briefly with the element centred, for overlays on their way out and sticky headers.

    Raises:
        ElementNotFoundError: It has no box (hidden), is outside the viewport even after
            scrolling, or (``check_hit``) another element covers it (the message names it).
    """
    force_scroll = frame_scrolled = False
    delays = iter(_COVERED_RETRIES)
    while True:
        try:
            found = await element.call(
                _MEASURE_JS, check_hit, force_scroll, _STABLE_TIMEOUT_MS, await_promise=True
            )
        except EvaluationError:
            found = {"error": "hidden"}  # e.g. a node in a document without a window
        except ProtocolError as exc:
            raise ElementNotFoundError(
                f"Element {element.description} is gone: its document was replaced or its "
                f"frame detached while it was being measured ({exc.message}); find it again"
            ) from None
        error = found.get("error")
        if error == "hidden":
            raise ElementNotFoundError(
                f"Element {element.description} is not visible (it has no box on the page: "
                f"display: none, visibility: hidden, detached, or zero size)"
            )
        if error == "outside":
            raise ElementNotFoundError(
                f"Element {element.description} is outside the viewport and could not be "
                f"scrolled into view"
            )
        point = Point(found["x"], found["y"])
        covering = found.get("covering")
        if not found["top"]:
            origin = await _frame_origin(page, element)
            point = Point(point.x + origin.x, point.y + origin.y)
            if not await _in_viewport(page, point):
                # The frame itself is off-screen: scroll the element again (that scrolls
                # its frame's parents too), then the frame from the parent's side.
                if not force_scroll:
                    force_scroll = True
                    continue
                if not frame_scrolled:
                    frame_scrolled = True
                    await _scroll_frame_into_view(page, element)
                    continue
                raise ElementNotFoundError(
                    f"Element {element.description} is in a frame outside the viewport "
                    f"that could not be scrolled into view"
                )
            if check_hit and covering is None:
                covering = await _top_hit(page, point)
        if covering is None:
            return point
        delay = next(delays, None)
        if delay is None:
            raise ElementNotFoundError(
                f"Element {element.description} is covered by {covering} at "
                f"({point.x:.0f}, {point.y:.0f}): a click there would reach that element "
                f"instead. Close or move what covers it, or click at x/y on purpose"
            )
        await asyncio.sleep(delay)
        force_scroll = True  # centred, it may come out from under a sticky header


async def _top_hit(page: Page, point: Point) -> str | None:
    """What covers the frame at ``point`` in the page's own document, if anything."""
    result = await page.call(
        "Runtime.evaluate",
        {"expression": f"{_TOP_HIT_JS}({point.x}, {point.y})", "returnByValue": True},
    )
    value = result.get("result", {}).get("value")
    return value if isinstance(value, str) else None


async def _in_viewport(page: Page, point: Point) -> bool:
    metrics = await page.call("Page.getLayoutMetrics")
    viewport = metrics.get("cssVisualViewport") or metrics["cssLayoutViewport"]
    return bool(
        0 <= point.x < viewport["clientWidth"] and 0 <= point.y < viewport["clientHeight"]
    )


async def _release(*elements: Element | None) -> None:
    """Free the page's handles on elements (best effort)."""
    for element in elements:
        if element is not None and not element.session.closed:
            with contextlib.suppress(CDPError):
                await element.session.call("Runtime.releaseObject", {"objectId": element.object_id})


async def _point(
    page: Page,
    selector: str | None,
    index: int | None,
    x: float | None,
    y: float | None,
) -> Point:
    """Where to act on the target (see :func:`_target`); the handle is released."""
    element, point = await _target(page, selector, index, x, y)
    await _release(element)
    return point


async def _target(
    page: Page,
    selector: str | None,
    index: int | None,
    x: float | None,
    y: float | None,
    *,
    check_hit: bool = True,
) -> tuple[Element, Point]:
    """The targeted element and the viewport point to act at.

    With ``x``/``y`` the point is exactly that; otherwise the element is scrolled into
    view and the point is the centre of its box.
    """
    check_one_target(selector, index, x, y)
    _check_no_dialog(page)
    element = await resolve_element(page, selector=selector, index=index, x=x, y=y)
    if x is not None and y is not None:
        return element, Point(x, y)
    try:
        return element, await _clickable_point(page, element, check_hit=check_hit)
    except BaseException:
        await _release(element)
        raise


# -- mouse tools ------------------------------------------------------------------------------


async def click(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
    button: MouseButton = "left",
    click_count: int = 1,
    modifiers: Sequence[str] = (),
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
        button: ``"left"``, ``"right"``, ``"middle"``, ``"back"`` or ``"forward"``.
        click_count: 1 for a click, 2 for a double click, 3 for a triple click.
        modifiers: Keys held during the click: any of ``"Shift"``, ``"Control"``,
            ``"Alt"``, ``"Meta"``.

    Raises:
        ValueError: Not exactly one of selector, index or x/y; an invalid selector,
            button, click count or modifier.
        ElementNotFoundError: No such element; it is hidden, or covered by another
            element (the message names it).
        TargetClosedError: The page is closed.
    """
    if button not in _BUTTON_BITS:
        raise ValueError(
            f"button must be one of left, right, middle, back, forward; got {button!r}"
        )
    if click_count < 1:
        raise ValueError(f"click_count must be at least 1, got {click_count}")
    mask = _modifier_mask(modifiers)
    point = await _point(page, selector, index, x, y)
    down = _input_state(page).modifiers
    # Modifiers already held with key_down stay held: not pressed or released again.
    held = [
        key
        for key in (_KEYS[_MODIFIER_ALIASES[name.lower()]] for name in modifiers)
        if not down & _MODIFIER_BITS[key.key]
    ]
    for key in held:
        down |= _MODIFIER_BITS[key.key]
        await _key_down(page, key, False, down)
    await _mouse(page, "mouseMoved", point, modifiers=mask)
    bit = _BUTTON_BITS[button]
    for count in range(1, click_count + 1):
        await _mouse(
            page,
            "mousePressed",
            point,
            button=button,
            buttons=bit,
            click_count=count,
            modifiers=mask,
        )
        await _mouse(
            page,
            "mouseReleased",
            point,
            button=button,
            buttons=0,
            click_count=count,
            modifiers=mask,
        )
    for key in reversed(held):
        down &= ~_MODIFIER_BITS[key.key]
        await _key_up(page, key, False, down)


async def hover(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> None:
    """Move the mouse over an element (scrolled into view first), as a person would.

    The page receives trusted ``mouseover``/``mouseenter``/``mousemove`` events and CSS
    ``:hover`` applies, so menus and tooltips that open on hover open.

    Args:
        page: The page.
        selector: CSS selector of the element.
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x in CSS pixels (with ``y``): move exactly there.
        y: Viewport y in CSS pixels (with ``x``).

    Raises:
        ValueError: Not exactly one of selector, index or x/y; an invalid selector.
        ElementNotFoundError: No such element, or it is hidden or covered.
        TargetClosedError: The page is closed.
    """
    point = await _point(page, selector, index, x, y)
    await _mouse(page, "mouseMoved", point)


# -- low-level mouse and keyboard -------------------------------------------------------------


def _button_bit(button: str) -> int:
    bit = _BUTTON_BITS.get(button)
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
    _check_no_dialog(page)
    start = _input_state(page).mouse
    for step in range(1, steps + 1):
        fraction = step / steps
        point = Point(start.x + (x - start.x) * fraction, start.y + (y - start.y) * fraction)
        await _mouse(page, "mouseMoved", point)


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
    bit = _button_bit(button)
    if click_count < 1:
        raise ValueError(f"click_count must be at least 1, got {click_count}")
    _check_no_dialog(page)
    state = _input_state(page)
    point = Point(x, y)
    if state.mouse != point:
        await _mouse(page, "mouseMoved", point)
    state.buttons |= bit
    await _mouse(
        page, "mousePressed", point, button=button, buttons=state.buttons, click_count=click_count
    )


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
    bit = _button_bit(button)
    if click_count < 1:
        raise ValueError(f"click_count must be at least 1, got {click_count}")
    _check_no_dialog(page)
    state = _input_state(page)
    point = Point(x, y)
    if state.mouse != point:
        await _mouse(page, "mouseMoved", point)
    state.buttons &= ~bit
    await _mouse(
        page, "mouseReleased", point, button=button, buttons=state.buttons, click_count=click_count
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
    _check_no_dialog(page)
    await _mouse(page, "mouseWheel", Point(x, y), deltaX=delta_x, deltaY=delta_y)


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
    found, shifted = _lookup_key(key)
    _check_no_dialog(page)
    state = _input_state(page)
    if found.key in _MODIFIER_BITS:
        state.modifiers |= _MODIFIER_BITS[found.key]
    params = _key_params(found, shifted, state.modifiers)
    params["type"] = "keyDown" if "text" in params else "rawKeyDown"
    if found.key in state.keys:
        params["autoRepeat"] = True
    state.keys.add(found.key)
    await _dispatch(page, "Input.dispatchKeyEvent", params)


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
    found, shifted = _lookup_key(key)
    _check_no_dialog(page)
    state = _input_state(page)
    if found.key in _MODIFIER_BITS:
        state.modifiers &= ~_MODIFIER_BITS[found.key]
    state.keys.discard(found.key)
    await _key_up(page, found, shifted, state.modifiers)


# -- typing -----------------------------------------------------------------------------------

# Finds what to type into: the element itself, or the editable field it labels or wraps.
# Returns null when nothing editable is there.
_EDITABLE_JS = """function(wrapped) {
  const start = this.nodeType === 1 ? this : this.parentElement;  // a text line: its element
  if (!start) return null;
  const editable = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (el.isContentEditable) return true;
    if (el.localName === 'textarea') return !el.disabled && !el.readOnly;
    if (el.localName === 'input') {
      const noText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'hidden'];
      return !noText.includes(el.type) && !el.disabled && !el.readOnly;
    }
    return false;
  };
  if (editable(start)) return start;
  if (!wrapped) return null;
  if (start.localName === 'label' && editable(start.control)) return start.control;
  const inside = [...start.querySelectorAll('input, textarea, [contenteditable]')].filter(editable);
  if (inside.length) return inside[0];
  const root = start.shadowRoot;
  if (root) {
    const shadow = [...root.querySelectorAll('input, textarea, [contenteditable]')].filter(editable);
    if (shadow.length) return shadow[0];
  }
  return null;
}"""

# Prepares ``this`` (an editable element) for typing; returns how to type into it.
# ``atEnd``: put the caret after the content (a field just clicked); otherwise typing
# goes where the caret or selection already is, as it would for a person.
_PREPARE_JS = """function(clear, atEnd) {
  const root = this.getRootNode();
  let active = root.activeElement;
  const focused = active === this || (this.isContentEditable && this.contains(active));
  if (!focused) this.focus();
  const setTypes = ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'];
  if (this.localName === 'input' && setTypes.includes(this.type)) return 'set';
  if (this.localName === 'input' || this.localName === 'textarea') {
    if (clear) { this.select(); return 'typed'; }
    if (!atEnd) return 'typed';
    try {
      const end = this.value.length;
      this.setSelectionRange(end, end);
      return 'typed';
    } catch (e) {
      return 'end';
    }
  }
  const selection = this.ownerDocument.getSelection();
  if (clear) {
    selection.selectAllChildren(this);
  } else if (atEnd || !selection.rangeCount || !this.contains(selection.anchorNode)) {
    const range = this.ownerDocument.createRange();
    range.selectNodeContents(this);
    range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }
  return 'typed';
}"""

# Sets the value of inputs that take no typing (date, color, range...) like a user would.
_SET_VALUE_JS = """function(value) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  setter.call(this, value);
  if (this.value !== value && value !== '') {
    throw new Error('Invalid value ' + JSON.stringify(value) + ' for <input type=' + this.type + '>');
  }
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
}"""

_ACTIVE_JS = """(() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
})()"""

_TYPE_BATCH = 64


async def _type_characters(page: Page, text: str) -> None:
    """Type ``text`` key by key; characters without a key are inserted as text input."""
    calls: list[tuple[str, dict[str, Any]]] = []
    pending_text = ""

    def flush_text() -> None:
        nonlocal pending_text
        if pending_text:
            calls.append(("Input.insertText", {"text": pending_text}))
            pending_text = ""

    held = _input_state(page).modifiers  # Shift held with key_down types capitals
    for char in text.replace("\r\n", "\n"):
        name = "Enter" if char in "\n\r" else char
        key = _KEYS.get(name)
        if key is None or (len(name) == 1 and key.text != name and key.shift_key != name):
            pending_text += char
            continue
        flush_text()
        shifted = bool(key.shift_key) and name == key.shift_key
        down = _key_params(key, shifted, held)
        down["type"] = "keyDown" if "text" in down else "rawKeyDown"
        up = {k: v for k, v in down.items() if k not in ("text", "unmodifiedText")}
        up["type"] = "keyUp"
        calls.append(("Input.dispatchKeyEvent", down))
        calls.append(("Input.dispatchKeyEvent", up))
    flush_text()
    # Pipelined in batches: Chrome handles one session's commands in order.
    for start in range(0, len(calls), _TYPE_BATCH):
        batch = calls[start : start + _TYPE_BATCH]
        await asyncio.gather(*(_dispatch(page, method, params) for method, params in batch))


async def _focused_element(page: Page) -> Element | None:
    result = await page.call("Runtime.evaluate", {"expression": _ACTIVE_JS})
    remote = result.get("result", {})
    if remote.get("subtype") == "null" or "objectId" not in remote:
        return None
    return Element(page, remote["objectId"], "the focused element")


async def _handle(element: Element, function: str, *args: Any) -> Element | None:
    """Run ``function`` on ``element``; the element it returns, or ``None``."""
    result = await element.session.call(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": function,
            "objectId": element.object_id,
            "arguments": [{"value": arg} for arg in args],
        },
    )
    remote = result.get("result", {})
    if "exceptionDetails" in result or "objectId" not in remote:
        return None
    return Element(element.session, remote["objectId"], element.description)


async def type_text(
    page: Page,
    text: str,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
    clear: bool = False,
    submit: bool = False,
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
        clear: Replace the field's current content instead of appending to it.
        submit: Press Enter after typing (submits most forms).

    Raises:
        ValueError: Several ways of targeting given; an invalid selector; ``clear=True``
            with no target and nothing focused.
        ElementNotFoundError: No such element, it is hidden or covered, or it is not
            editable (not an input, a textarea or contenteditable).
        TargetClosedError: The page is closed.
    """
    targeted = selector is not None or index is not None or x is not None or y is not None
    handles: list[Element | None] = []
    try:
        if targeted:
            element, point = await _target(page, selector, index, x, y)
            handles.append(element)
            field = await _handle(element, _EDITABLE_JS, True)
            if field is None:
                tag = await element.call(_DESCRIBE_JS)
                raise ElementNotFoundError(
                    f"Element {element.description} ({tag}) is not editable: target an "
                    f"input, a textarea or a contenteditable element"
                )
            await _mouse(page, "mouseMoved", point)
            await _mouse(page, "mousePressed", point, button="left", buttons=1, click_count=1)
            await _mouse(page, "mouseReleased", point, button="left", click_count=1)
        else:
            _check_no_dialog(page)
            focused = await _focused_element(page)
            handles.append(focused)
            field = await _handle(focused, _EDITABLE_JS, False) if focused is not None else None
            if field is None and clear:
                raise ValueError("clear=True needs a target: nothing editable is focused")
        handles.append(field)
        if field is not None:
            how = await field.call(_PREPARE_JS, clear, targeted)
            if how == "set":
                await field.call(_SET_VALUE_JS, text)
                text = ""
            elif how == "end":
                await _press_combo(page, "End")
            if clear and not text and how != "set":
                await _press_combo(page, "Delete")
    finally:
        await _release(*handles)
    if text:
        await _type_characters(page, text)
    if submit:
        await _press_combo(page, "Enter")


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
    _check_no_dialog(page)
    await _press_combo(page, key)


# -- drag and drop ----------------------------------------------------------------------------

_DRAG_STEPS = 10
_DRAG_START_WAIT = 0.15


async def drag(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
    to_selector: str | None = None,
    to_index: int | None = None,
    to_x: float | None = None,
    to_y: float | None = None,
) -> None:
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

    Raises:
        ValueError: Not exactly one way of giving the source, or the destination
            ("Provide one of: to_selector, to_index, or to_x/to_y").
        ElementNotFoundError: The source or destination is missing, hidden or covered.
        TargetClosedError: The page is closed.
    """
    given = (
        (to_selector is not None) + (to_index is not None) + (to_x is not None or to_y is not None)
    )
    if given != 1 or (to_x is None) != (to_y is None):
        raise ValueError("Provide one of: to_selector, to_index, or to_x/to_y")
    start = await _point(page, selector, index, x, y)
    destination: Element | None = None
    if to_x is None:
        destination = await resolve_element(page, selector=to_selector, index=to_index)
    try:
        end, data = await _drag_moves(page, start, destination, to_x, to_y)
    finally:
        await _release(destination)
    if data is not None:
        # An HTML5 drag started: play its end through the drag events Chrome intercepted.
        for kind in ("dragEnter", "dragOver", "drop"):
            await _dispatch(
                page,
                "Input.dispatchDragEvent",
                {"type": kind, "x": end.x, "y": end.y, "data": data},
            )
    await _mouse(page, "mouseReleased", end, button="left", click_count=1)


def _drag_data(event: RawEvent) -> dict[str, Any]:
    """The ``data`` of an ``Input.dragIntercepted`` event, as JSON."""
    return dict(event.params["data"])


async def _drag_moves(
    page: Page,
    start: Point,
    destination: Element | None,
    to_x: float | None,
    to_y: float | None,
) -> tuple[Point, dict[str, Any] | None]:
    """Press at ``start`` and move to the destination; the end point, and the drag data
    if an HTML5 drag started (Chrome intercepted it), else ``None``."""
    data: dict[str, Any] | None = None
    await page.call("Input.setInterceptDrags", {"enabled": True})
    try:
        async with page.listen("Input.dragIntercepted", raw=True) as intercepted:
            await _mouse(page, "mouseMoved", start)
            await _mouse(page, "mousePressed", start, button="left", buttons=1, click_count=1)
            # Past Chrome's few-pixel threshold a drag starts; only then scroll to the
            # destination (the drag must start where the source was pressed).
            nudge = start
            try:
                for shift in (3, 6, 10):
                    nudge = Point(start.x + shift, start.y + shift)
                    await _mouse(page, "mouseMoved", nudge, button="left", buttons=1)
                if destination is not None:
                    end = await _clickable_point(page, destination, check_hit=False)
                else:
                    assert to_x is not None and to_y is not None
                    end = Point(to_x, to_y)
            except BaseException:
                # Let go: no drag half done, no button left pressed.
                with contextlib.suppress(CDPError, TimeoutError):
                    async with asyncio.timeout(_DRAG_START_WAIT):
                        started = _drag_data(await anext(intercepted))
                    await page.call(
                        "Input.dispatchDragEvent",
                        {"type": "dragCancel", "x": nudge.x, "y": nudge.y, "data": started},
                    )
                with contextlib.suppress(CDPError):
                    await _mouse(page, "mouseReleased", nudge, button="left", click_count=1)
                raise
            for step in range(1, _DRAG_STEPS + 1):
                if len(intercepted):
                    break
                fraction = step / _DRAG_STEPS
                point = Point(
                    nudge.x + (end.x - nudge.x) * fraction, nudge.y + (end.y - nudge.y) * fraction
                )
                await _mouse(page, "mouseMoved", point, button="left", buttons=1)
            event: Any = None
            if len(intercepted):
                event = await anext(intercepted)
            else:
                # Chrome reports a drag start apart from the input events: allow it a moment.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(_DRAG_START_WAIT):
                        event = await anext(intercepted)
            if event is not None:
                data = _drag_data(event)
    finally:
        with contextlib.suppress(CDPError):
            await page.call("Input.setInterceptDrags", {"enabled": False})
    return end, data


# -- form controls ----------------------------------------------------------------------------

_SELECT_JS = """function(values) {
  let el = this;
  // A label stands for its control; any other element is not a select, even one that
  // holds a select somewhere inside (which of them would be meant?).
  if (el.localName === 'label' && el.control) el = el.control;
  if (el.localName !== 'select') return {error: 'not-select', tag: this.localName};
  if (el.disabled) return {error: 'disabled'};
  const options = [...el.options];
  const norm = (s) => s.replace(/\\s+/g, ' ').trim();
  const chosen = [];
  for (const value of values) {
    const option = options.find(o => o.value === value)
      || options.find(o => norm(o.label) === norm(value))
      || options.find(o => norm(o.label).toLowerCase() === norm(value).toLowerCase());
    if (!option) {
      return {error: 'missing', value, options: options.map(o => [o.value, norm(o.label)])};
    }
    if (option.disabled) return {error: 'option-disabled', value};
    if (!chosen.includes(option)) chosen.push(option);
  }
  if (!el.multiple && chosen.length > 1) return {error: 'single'};
  if (!el.multiple && chosen.length === 0) return {error: 'empty'};
  for (const option of options) option.selected = chosen.includes(option);
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: [...el.selectedOptions].map(o => o.value)};
}"""


async def select_option(
    page: Page,
    values: str | Sequence[str],
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> list[str]:
    """Choose the option(s) of a ``<select>`` element.

    Each value matches an option by its ``value`` attribute, else by its visible label
    (whitespace-insensitive, then case-insensitive). The chosen options become the
    selection (others are deselected) and ``input`` and ``change`` events are dispatched,
    as when a person picks from the list. A ``<label>`` of the select can be the target;
    any other element that is not a ``<select>`` is an error, even one holding a select.

    Args:
        page: The page.
        values: One value or label, or several for a ``<select multiple>``. An empty
            list clears a multiple select.
        selector: CSS selector of the select.
        index: Index of the select in the latest ``snapshot``.
        x: Viewport x of the select (with ``y``).
        y: Viewport y of the select (with ``x``).

    Returns:
        The ``value`` of every option selected afterwards.

    Raises:
        ValueError: Several values for a single select; no value for a single select;
            the select or an option is disabled; an invalid selector.
        ElementNotFoundError: No such element, it is not a ``<select>`` (nor the label of
            one; the message names what it is), or no option matches a value (the
            message lists the options).
        TargetClosedError: The page is closed.
    """
    wanted = [values] if isinstance(values, str) else list(values)
    check_one_target(selector, index, x, y)
    _check_no_dialog(page)
    element = await resolve_element(page, selector=selector, index=index, x=x, y=y)
    try:
        result = await element.call(_SELECT_JS, wanted)
    finally:
        await _release(element)
    error = result.get("error")
    if error == "not-select":
        raise ElementNotFoundError(
            f"Element {element.description} is a <{result['tag']}>, not a <select>: "
            f"select_option needs the <select> itself (or its <label>)"
        )
    if error == "disabled":
        raise ValueError(f"The select {element.description} is disabled")
    if error == "missing":
        listed = ", ".join(
            f"{value!r}" if value == label else f"{value!r} ({label!r})"
            for value, label in result["options"]
        )
        raise ElementNotFoundError(
            f"No option {result['value']!r} in the select {element.description}; "
            f"options: {listed or 'none'}"
        )
    if error == "option-disabled":
        raise ValueError(f"The option {result['value']!r} of {element.description} is disabled")
    if error == "single":
        raise ValueError(
            f"The select {element.description} takes one value (it is not multiple); "
            f"got {len(wanted)}"
        )
    if error == "empty":
        raise ValueError(f"The select {element.description} needs a value (it is not multiple)")
    selected: list[str] = result["selected"]
    return selected


_FILE_INPUT_JS = """function(count) {
  let el = this;
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (!isFile(el)) {
    const inner = el.localName === 'label' ? el.control : null;
    const found = isFile(inner) ? inner : el.querySelector('input[type=file]');
    if (!isFile(found)) return {error: 'not-file', tag: el.localName};
    el = found;
  }
  if (el.disabled) return {error: 'disabled'};
  if (count > 1 && !el.multiple) return {error: 'single'};
  return {ok: true};
}"""

_FIND_FILE_INPUT_JS = """function() {
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (isFile(this)) return this;
  if (this.localName === 'label' && isFile(this.control)) return this.control;
  return this.querySelector('input[type=file]');
}"""


async def upload_file(
    page: Page,
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> list[str]:
    """Put files into an ``<input type=file>``, as if chosen in the file dialog.

    The input's ``files`` list is replaced and the page gets ``input`` and ``change``
    events. The files are read by the browser, so paths are on the machine where the
    browser runs. A ``<label>`` of the input, or an element wrapping it (a styled upload
    button), can be the target.

    Args:
        page: The page.
        paths: One path or several (several need ``<input multiple>``). An empty list
            clears the selection.
        selector: CSS selector of the file input.
        index: Index of the file input in the latest ``snapshot``.
        x: Viewport x of the input (with ``y``).
        y: Viewport y of the input (with ``x``).

    Returns:
        The absolute paths given to the input.

    Raises:
        FileNotFoundError: A path is not an existing file (the message names it).
        ValueError: Several files for an input without ``multiple``; a disabled input;
            an invalid selector.
        ElementNotFoundError: No such element, or it is not (and holds no) file input.
        TargetClosedError: The page is closed.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    files = [os.path.abspath(os.fspath(path)) for path in paths]
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"File not found: {path}")
    check_one_target(selector, index, x, y)
    _check_no_dialog(page)
    element = await resolve_element(page, selector=selector, index=index, x=x, y=y)
    try:
        await _set_files(element, files)
    finally:
        await _release(element)
    return files


async def _set_files(element: Element, files: list[str]) -> None:
    check = await element.call(_FILE_INPUT_JS, len(files))
    error = check.get("error")
    if error == "not-file":
        raise ElementNotFoundError(
            f"Element {element.description} is a <{check['tag']}>, not a file input "
            f"(<input type=file>), and holds none"
        )
    if error == "disabled":
        raise ValueError(f"The file input {element.description} is disabled")
    if error == "single":
        raise ValueError(
            f"The file input {element.description} takes one file (it has no 'multiple' "
            f"attribute); got {len(files)}"
        )
    field = await _handle(element, _FIND_FILE_INPUT_JS)
    assert field is not None
    try:
        await field.session.call(
            "DOM.setFileInputFiles", {"files": files, "objectId": field.object_id}
        )
    finally:
        await _release(field)


# -- dialogs ----------------------------------------------------------------------------------


async def handle_dialog(
    page: Page,
    *,
    accept: bool = True,
    prompt_text: str | None = None,
    timeout: float = 30,
) -> Dialog:
    """Answer a JavaScript dialog (``alert``, ``confirm``, ``prompt``, ``beforeunload``).

    Answers the dialog open now, if any. Otherwise answers the next one the page opens,
    waiting up to ``timeout`` for it: start this call before the action that opens the
    dialog (e.g. ``asyncio.create_task(handle_dialog(page, prompt_text="Ada"))``, then
    ``click``). Dialogs no call is waiting for are answered by ``page.dialog_policy``
    (dismissed by default) and recorded in ``page.dialogs``.

    Args:
        page: The page.
        accept: Accept (OK) or dismiss (Cancel) the dialog.
        prompt_text: The text to answer a ``prompt()`` with (when accepting).
        timeout: Seconds to wait for a dialog when none is open.

    Returns:
        The dialog answered: its type, message, default prompt, and the answer given.

    Raises:
        WaitTimeoutError: No dialog opened within ``timeout``.
        TargetClosedError: The page is closed (or closed while waiting).
    """
    if page.closed:
        raise _closed_error(page)
    dialog = _open_dialog(page)
    if dialog is None:
        dialog = await _next_dialog(page, timeout)
    params: dict[str, Any] = {"accept": accept}
    if prompt_text is not None:
        params["promptText"] = prompt_text
    dialog.accepted = accept
    dialog.prompt_text = prompt_text if accept else None
    await page.call("Page.handleJavaScriptDialog", params)
    return dialog


async def _next_dialog(page: Page, timeout: float) -> Dialog:
    """Wait for the next dialog, keeping the page's dialog policy from answering it."""
    loop = asyncio.get_running_loop()
    arrived: asyncio.Future[Dialog] = loop.create_future()
    previous = page.dialog_policy

    def take(dialog: Dialog) -> tuple[bool, str | None] | None:
        page.dialog_policy = previous
        if not arrived.done():
            arrived.set_result(dialog)
        return None  # leave it open: the caller answers it

    page.dialog_policy = take
    closed: asyncio.Future[Any] = asyncio.ensure_future(page._closed_event.wait())
    try:
        done, _ = await asyncio.wait(
            {arrived, closed}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        closed.cancel()
        if page.dialog_policy is take:
            page.dialog_policy = previous
    if arrived in done:
        return arrived.result()
    if page.closed:
        raise TargetClosedError("The page was closed while waiting for a dialog")
    raise WaitTimeoutError("a JavaScript dialog to open", timeout)
