"""The US keyboard as ``KeyboardEvent`` reports it: key definitions, key names and
combinations (``"Control+Shift+A"``) parsed into keys and modifier bits. No I/O."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .._model import Command
from ..cdp.input_ import dispatch_key_event as _dispatch_key_event
from ._input_state import MODIFIER_BITS

MODIFIER_ALIASES = {
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
class KeyDefinition:
    """One key of a US keyboard: what ``KeyboardEvent`` reports for it."""

    key: str  # KeyboardEvent.key
    code: str  # KeyboardEvent.code
    key_code: int  # keyCode / windowsVirtualKeyCode
    text: str = ""  # the text it types, if any
    shift_key: str = ""  # key and text with Shift held, for keys that change
    location: int = 0  # 1 left, 2 right, 3 numpad


def _build_keys() -> dict[str, KeyDefinition]:
    keys: list[KeyDefinition] = []
    for letter in "abcdefghijklmnopqrstuvwxyz":
        upper = letter.upper()
        keys.append(KeyDefinition(letter, f"Key{upper}", ord(upper), letter, upper))
    for digit, shifted in zip("0123456789", ")!@#$%^&*(", strict=True):
        keys.append(KeyDefinition(digit, f"Digit{digit}", 48 + int(digit), digit, shifted))
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
        keys.append(KeyDefinition(plain, code, key_code, plain, shifted))
    keys += [
        KeyDefinition(" ", "Space", 32, " "),
        KeyDefinition("Enter", "Enter", 13, "\r"),
        KeyDefinition("Tab", "Tab", 9),
        KeyDefinition("Backspace", "Backspace", 8),
        KeyDefinition("Escape", "Escape", 27),
        KeyDefinition("Delete", "Delete", 46),
        KeyDefinition("Insert", "Insert", 45),
        KeyDefinition("Home", "Home", 36),
        KeyDefinition("End", "End", 35),
        KeyDefinition("PageUp", "PageUp", 33),
        KeyDefinition("PageDown", "PageDown", 34),
        KeyDefinition("ArrowLeft", "ArrowLeft", 37),
        KeyDefinition("ArrowUp", "ArrowUp", 38),
        KeyDefinition("ArrowRight", "ArrowRight", 39),
        KeyDefinition("ArrowDown", "ArrowDown", 40),
        KeyDefinition("Shift", "ShiftLeft", 16, location=1),
        KeyDefinition("Control", "ControlLeft", 17, location=1),
        KeyDefinition("Alt", "AltLeft", 18, location=1),
        KeyDefinition("Meta", "MetaLeft", 91, location=1),
        KeyDefinition("CapsLock", "CapsLock", 20),
        KeyDefinition("NumLock", "NumLock", 144),
        KeyDefinition("ScrollLock", "ScrollLock", 145),
        KeyDefinition("Pause", "Pause", 19),
        KeyDefinition("PrintScreen", "PrintScreen", 44),
        KeyDefinition("ContextMenu", "ContextMenu", 93),
        KeyDefinition("AudioVolumeMute", "AudioVolumeMute", 173),
        KeyDefinition("AudioVolumeDown", "AudioVolumeDown", 174),
        KeyDefinition("AudioVolumeUp", "AudioVolumeUp", 175),
        KeyDefinition("MediaTrackNext", "MediaTrackNext", 176),
        KeyDefinition("MediaTrackPrevious", "MediaTrackPrevious", 177),
        KeyDefinition("MediaStop", "MediaStop", 178),
        KeyDefinition("MediaPlayPause", "MediaPlayPause", 179),
    ]
    keys += [KeyDefinition(f"F{n}", f"F{n}", 111 + n) for n in range(1, 25)]
    table: dict[str, KeyDefinition] = {}
    for key in keys:
        table.setdefault(key.key, key)
        if key.shift_key:
            table.setdefault(key.shift_key, key)
    # Right-hand modifiers and the numeric keypad, reachable by their code names.
    extra = [
        KeyDefinition("Shift", "ShiftRight", 16, location=2),
        KeyDefinition("Control", "ControlRight", 17, location=2),
        KeyDefinition("Alt", "AltRight", 18, location=2),
        KeyDefinition("Meta", "MetaRight", 92, location=2),
        KeyDefinition("Enter", "NumpadEnter", 13, "\r", location=3),
        KeyDefinition("+", "NumpadAdd", 107, "+", location=3),
        KeyDefinition("-", "NumpadSubtract", 109, "-", location=3),
        KeyDefinition("*", "NumpadMultiply", 106, "*", location=3),
        KeyDefinition("/", "NumpadDivide", 111, "/", location=3),
        KeyDefinition(".", "NumpadDecimal", 110, ".", location=3),
    ]
    extra += [KeyDefinition(str(n), f"Numpad{n}", 96 + n, str(n), location=3) for n in range(10)]
    for key in [*keys, *extra]:
        table.setdefault(key.code, key)
    return table


KEYS = _build_keys()
_KEYS_FOLDED = {name.lower(): key for name, key in KEYS.items() if len(name) > 1}
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
    **MODIFIER_ALIASES,
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


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def lookup_key(name: str) -> tuple[KeyDefinition, bool]:
    """The key called ``name`` and whether ``name`` is its shifted variant ("A", "!")."""
    if name in ("\n", "\r", "\r\n"):
        name = "Enter"
    key = KEYS.get(name)
    if key is None and len(name) > 1:
        folded = name.lower()
        alias = _KEY_ALIASES.get(folded)
        key = KEYS.get(alias) if alias is not None else _KEYS_FOLDED.get(folded)
    if key is None:
        if _is_one_character(name):  # any other character: typed as itself
            return KeyDefinition(name, "", 0, name), False
        raise ValueError(
            f"Unknown key {name!r}: use a key name such as Enter, Tab, Escape, Backspace, "
            f"Delete, ArrowUp, Home, PageDown, F5, a single character, or a combination "
            f"such as Control+A"
        )
    return key, bool(key.shift_key) and name == key.shift_key


def parse_combo(combo: str) -> tuple[list[str], str]:
    """Split ``"Control+Shift+A"`` into modifiers and the main key (``"+"`` works too)."""
    if combo == "+":
        return [], "+"
    parts = [*combo[:-2].split("+"), "+"] if combo.endswith("++") else combo.split("+")
    if not combo or any(part == "" for part in parts):
        raise ValueError(f"Invalid key combination {combo!r}; write it like Control+A")
    modifiers: list[str] = []
    for part in parts[:-1]:
        modifier = MODIFIER_ALIASES.get(part.lower())
        if modifier is None:
            raise ValueError(
                f"{part!r} in {combo!r} is not a modifier; use Shift, Control, Alt or Meta"
            )
        modifiers.append(modifier)
    return modifiers, parts[-1]


def modifier_mask(modifiers: Iterable[str]) -> int:
    mask = 0
    for name in modifiers:
        canonical = MODIFIER_ALIASES.get(name.lower())
        if canonical is None:
            raise ValueError(f"Unknown modifier {name!r}; use Shift, Control, Alt or Meta")
        mask |= MODIFIER_BITS[canonical]
    return mask


def key_event(
    key: KeyDefinition, shifted: bool, mask: int, *, up: bool = False, auto_repeat: bool = False
) -> Command[None]:
    """The ``Input.dispatchKeyEvent`` pressing (or with ``up``, releasing) ``key`` with the
    modifier bits ``mask`` held; ``shifted``: the key's Shift variant is meant."""
    name = (
        key.shift_key if shifted or (mask & MODIFIER_BITS["Shift"] and key.shift_key) else key.key
    )
    text = key.text
    if key.shift_key and name == key.shift_key:
        text = key.shift_key
    # With Control, Alt or Meta held a key types nothing (it is a shortcut).
    if up or mask & ~MODIFIER_BITS["Shift"]:
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
