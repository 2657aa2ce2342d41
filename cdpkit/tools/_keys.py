"""The US keyboard as ``KeyboardEvent`` reports it: key definitions, key names and
combinations (``"Control+Shift+A"``) parsed into keys and modifier bits. No I/O."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .._model import Command
from ..cdp.input_ import dispatch_key_event as _dispatch_key_event
from ._input_state import _MODIFIER_BITS

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


def _key_event(
    key: _Key, shifted: bool, mask: int, *, up: bool = False, auto_repeat: bool = False
) -> Command[None]:
    """The ``Input.dispatchKeyEvent`` pressing (or with ``up``, releasing) ``key`` with the
    modifier bits ``mask`` held; ``shifted``: the key's Shift variant is meant."""
    name = (
        key.shift_key if shifted or (mask & _MODIFIER_BITS["Shift"] and key.shift_key) else key.key
    )
    text = key.text
    if key.shift_key and name == key.shift_key:
        text = key.shift_key
    # With Control, Alt or Meta held a key types nothing (it is a shortcut).
    if up or mask & ~_MODIFIER_BITS["Shift"]:
        text = ""
    location = key.location
    return _dispatch_key_event(
        "keyUp" if up else "keyDown" if text else "rawKeyDown",
        modifiers=mask,
        text=text or None,
        unmodified_text=text or None,
        code=key.code,
        key=name,
        windows_virtual_key_code=key.key_code,
        native_virtual_key_code=key.key_code,
        auto_repeat=True if auto_repeat else None,
        is_keypad=True if location == 3 else None,
        location=location or None,
    )
