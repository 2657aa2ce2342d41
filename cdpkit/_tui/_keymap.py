"""The TUI's keys: the actions, their vim-like defaults, and the ``[tui.keys]`` table of
the config file that changes them (no Textual here).

A key is written as the character it types (``j``, ``G``, ``/``, ``?``) or as a named
key (``down``, ``pagedown``, ``tab``, ``shift+tab``, ``enter``, ``escape``, ``space``,
``ctrl+d``, ``alt+x``, ``f1``); several printable characters make a sequence (``gg``)::

    [tui.keys]
    scroll_down = ["j", "down", "e"]
    quit = "Q"
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._browse import ConfigError, surface_table

__all__ = ["ACTIONS", "DEFAULT_KEYS", "Keymap", "load_keymap"]

# Every action, with what `?` says it does, in the order `?` lists them.
ACTIONS: dict[str, str] = {
    "scroll_down": "scroll down a line",
    "scroll_up": "scroll up a line",
    "half_page_down": "scroll down half a screen",
    "half_page_up": "scroll up half a screen",
    "top": "go to the top",
    "bottom": "go to the bottom",
    "follow": "follow a link: type its number, then Enter",
    "back": "back in history",
    "forward": "forward in history",
    "reload": "reload the page",
    "open": "open a URL",
    "search": "search the page (a regular expression, case-insensitive)",
    "search_next": "next match",
    "search_previous": "previous match",
    "next_field": "next form field or submit control",
    "previous_field": "previous form field",
    "activate": "edit the selected field, or submit its form from its submit control",
    "command": "command mode (:open URL, :tier N, :snapshot, :click N, :type N text, "
    ":screenshot PATH, :download N, :session NAME, :markdown PATH, :quit)",
    "help": "show this help",
    "quit": "quit",
}

DEFAULT_KEYS: dict[str, tuple[str, ...]] = {
    "scroll_down": ("j", "down"),
    "scroll_up": ("k", "up"),
    "half_page_down": ("ctrl+d", "pagedown"),
    "half_page_up": ("ctrl+u", "pageup"),
    "top": ("gg", "home"),
    "bottom": ("G", "end"),
    "follow": ("f",),
    "back": ("H",),
    "forward": ("L",),
    "reload": ("r",),
    "open": ("o",),
    "search": ("/",),
    "search_next": ("n",),
    "search_previous": ("N",),
    "next_field": ("tab",),
    "previous_field": ("shift+tab",),
    "activate": ("enter",),
    "command": (":",),
    "help": ("?",),
    "quit": ("q", "ctrl+c"),
}

_NAMED = {
    "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "tab", "enter",
    "escape", "space", "backspace", "delete", "insert",
    *(f"f{n}" for n in range(1, 13)),
}  # fmt: skip
_MAX_SEQUENCE = 3  # characters typed in a row (gg); longer is taken for a misspelt key name
_MODIFIED = re.compile(r"^(?:(?:ctrl|alt|shift)\+)+(?:[a-z0-9]|" + "|".join(sorted(_NAMED)) + r")$")


def key_tokens(key: str) -> tuple[str, ...] | None:
    """The key presses ``key`` stands for (``"gg"`` -> ``("g", "g")``), ``None`` when it
    is not a key this notation knows."""
    if key in _NAMED or _MODIFIED.match(key):
        return (key,)
    if len(key) > 1 and ("+" in key or len(key) > _MAX_SEQUENCE):
        return None  # a misspelt named key (ctrl+hyper+q, pgdown), not a sequence
    if key and all(char.isprintable() and not char.isspace() for char in key):
        return tuple(key)
    return None


@dataclass(frozen=True, slots=True)
class Keymap:
    """Which key presses (a sequence of tokens) do which action."""

    bindings: Mapping[tuple[str, ...], str]

    def match(self, pressed: Sequence[str]) -> str | None:
        """The action of exactly these presses, ``None`` if none."""
        return self.bindings.get(tuple(pressed))

    def is_prefix(self, pressed: Sequence[str]) -> bool:
        """Whether these presses start a longer binding (``g`` of ``gg``)."""
        size = len(pressed)
        return any(len(keys) > size and keys[:size] == tuple(pressed) for keys in self.bindings)

    def keys_of(self, action: str) -> list[str]:
        """The keys bound to ``action``, as written in the config file."""
        return ["".join(keys) if all(len(k) == 1 for k in keys) else keys[0]
                for keys, bound in self.bindings.items() if bound == action]  # fmt: skip

    def help_lines(self) -> list[str]:
        """One line per action: its keys and what it does."""
        return [f"{' '.join(self.keys_of(action)):<16} {what}" for action, what in ACTIONS.items()]


def build_keymap(overrides: Mapping[str, Any], where: str = "engine config") -> Keymap:
    """The defaults with ``overrides`` (action -> key or list of keys) over them.

    Raises:
        ConfigError: An unknown action, a key this notation does not know, a key bound to
            two actions, or one that starts another's sequence; the message names
            ``where``, the table and the action.
    """
    chosen = dict(DEFAULT_KEYS)
    for action, value in overrides.items():
        place = f"{where}: [tui.keys] {action}"
        if action not in ACTIONS:
            raise ConfigError(f"{where}: unknown action [tui.keys] {action} (known: {', '.join(ACTIONS)})")
        keys = (value,) if isinstance(value, str) else value
        if not isinstance(keys, list | tuple) or not keys or not all(isinstance(k, str) for k in keys):
            raise ConfigError(f'{place} must be a key or a list of keys, e.g. "j" or ["j", "down"], not {value!r}')
        chosen[action] = tuple(keys)
    bindings: dict[tuple[str, ...], str] = {}
    for action, keys in chosen.items():
        for key in keys:
            tokens = key_tokens(key)
            if tokens is None:
                raise ConfigError(
                    f"{where}: [tui.keys] {action}: {key!r} is not a key (write a character like \"j\" or"
                    f" \"G\", up to 3 characters in sequence like \"gg\", or a named key: {', '.join(sorted(_NAMED))},"
                    " with ctrl+/alt+/shift+)"
                )
            other = bindings.get(tokens)
            if other is not None and other != action:
                raise ConfigError(f"{where}: [tui.keys] {action}: {key!r} is already the key of {other}")
            bindings[tokens] = action
    for tokens, action in bindings.items():
        for longer, other in bindings.items():
            if len(longer) > len(tokens) and longer[: len(tokens)] == tokens:
                raise ConfigError(
                    f"{where}: [tui.keys] {action}: {''.join(tokens)!r} starts {other}'s {''.join(longer)!r},"
                    " so that one could never be typed"
                )
    return Keymap(bindings)


def load_keymap(path: Path | None = None) -> Keymap:
    """The keymap of the user's config file (``[tui.keys]``), else the defaults.

    Raises:
        ConfigError: The file or its ``[tui]`` table is wrong (the message says where).
    """
    table, where = surface_table("tui", path=path)
    unknown = sorted(set(table) - {"keys"})
    if unknown:
        raise ConfigError(f"{where}: unknown key [tui] {unknown[0]} (known: keys)")
    keys = table.get("keys", {})
    if not isinstance(keys, dict):
        raise ConfigError(f"{where}: [tui.keys] must be a table of action = key, not {keys!r}")
    return build_keymap(keys, where)
