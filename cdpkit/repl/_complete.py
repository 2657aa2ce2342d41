"""Tab completion and history of ``cdpkit repl``: ``:commands``, ``Domain.method`` and its
parameters, Python names; history kept in the platform's per-user state directory.
"""

from __future__ import annotations

import contextlib
import os
import re
import rlcompleter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["Completer", "history_path", "setup_readline"]


def history_path() -> Path:
    """Where the REPL keeps its history: ``$CDPKIT_HISTORY`` if set, else ``repl_history``
    in the platform's per-user state dir for cdpkit: ``$XDG_STATE_HOME/cdpkit``
    (``~/.local/state/cdpkit`` by default) on Linux, ``~/Library/Application
    Support/cdpkit`` on macOS, ``%LOCALAPPDATA%\\cdpkit`` on Windows."""
    configured = os.environ.get("CDPKIT_HISTORY")
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_state_path("cdpkit", appauthor=False) / "repl_history"


class Completer:
    """Readline completion: ``:commands``, ``Domain.method`` and its parameters, and
    Python names (``cdp.page.nav`` -> ``cdp.page.navigate(``)."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.python = rlcompleter.Completer(namespace)
        self.matches: list[str] = []

    def __call__(self, text: str, state: int) -> str | None:
        if state == 0:
            try:
                import readline

                line = readline.get_line_buffer()
                begin = readline.get_begidx()
            except Exception:
                line, begin = text, 0
            try:
                self.matches = self.complete(text, line, begin)
            except Exception:
                self.matches = []
        return self.matches[state] if state < len(self.matches) else None

    def complete(self, text: str, line: str, begin: int) -> list[str]:
        """Every completion of ``text``, which starts at ``begin`` in ``line``."""
        from .._front.protocol_docs import registry as _registry

        head = line[:begin]
        stripped = line.lstrip()
        if stripped.startswith(":"):
            if ":" not in head.strip() or head.strip() == ":":
                names = ["help", "goto", "events", "tabs", "tab", "snapshot", "click", "hover",
                         "type", "select", "state", "locator", "doc", "quit"]
                return [f"{n} " for n in names if n.startswith(text)]
            command = stripped[1:].split(" ", 1)[0]
            if command == "events":
                return [f"{d} " for d in [*_registry.DOMAINS, "off"] if d.startswith(text)]
            if command == "doc":
                names = [*_registry.DOMAINS, *_registry.COMMANDS, *_registry.EVENTS]
                return [n for n in names if n.startswith(text)]
            return []
        if not head.strip():
            matches = []
            if re.fullmatch(r"[A-Z][A-Za-z0-9]*(\.[A-Za-z0-9]*)?", text):
                if "." in text:
                    matches = [f"{m} " for m in _registry.COMMANDS if m.startswith(text)]
                else:
                    matches = [f"{d}." for d in _registry.DOMAINS if d.startswith(text)]
            return matches + self._python(text)
        first = head.split(None, 1)[0]
        if first in _registry.COMMANDS and first.partition(".")[0] not in self.namespace:
            from .._front.protocol_docs import command_params

            return [f"{p}=" for p in command_params(first) if p.startswith(text)]
        return self._python(text)

    def _python(self, text: str) -> list[str]:
        matches: list[str] = []
        if not text:
            return matches
        state = 0
        while True:
            match = self.python.complete(text, state)
            if match is None:
                return matches
            if match not in matches:
                matches.append(match)
            state += 1


def setup_readline(namespace: dict[str, Any]) -> Callable[[], None]:
    """Turn on completion and history; returns what saves the history."""
    try:
        import readline
    except ImportError:  # pragma: no cover - e.g. Windows without pyreadline
        return lambda: None
    readline.set_completer(Completer(namespace))
    readline.set_completer_delims(" \t\n`~!@#$%^&*()-=+[{]}\\|;:'\",<>/?")
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    path = history_path()
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    readline.set_history_length(2000)
    start = readline.get_current_history_length()

    def save() -> None:
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                readline.append_history_file(readline.get_current_history_length() - start, path)
            else:
                readline.write_history_file(path)

    return save
