"""The raw protocol lines of ``cdpkit repl``: ``Domain.method key=value ...`` or
``Domain.method {json}`` told apart from Python and parsed into a method and its
parameters, and results shortened for display.
"""

from __future__ import annotations

import builtins
import json
import re
from typing import Any

__all__ = ["parse_params", "parse_raw_line", "shorten"]

_RAW_LINE = re.compile(
    r"^(?P<domain>[A-Z][A-Za-z0-9]*)\.(?P<method>[a-z][A-Za-z0-9]*)(?:\s+(?P<rest>.*))?$", re.S
)
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def _parse_value(text: str, pos: int) -> tuple[Any, int]:
    if pos >= len(text) or text[pos].isspace():
        return "", pos
    char = text[pos]
    if char in "{[\"":
        try:
            value, end = json.JSONDecoder().raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ValueError(f"Invalid JSON value at {text[pos:pos + 30]!r}: {exc.msg}") from None
        if end < len(text) and not text[end].isspace():
            raise ValueError(f"Unexpected text after a JSON value: {text[end:end + 30]!r}")
        return value, end
    if char == "'":
        end = text.find("'", pos + 1)
        if end < 0:
            raise ValueError(f"Unterminated quote: {text[pos:pos + 30]!r}")
        return text[pos + 1 : end], end + 1
    end = pos
    while end < len(text) and not text[end].isspace():
        end += 1
    token = text[pos:end]
    try:
        return json.loads(token), end
    except ValueError:
        return token, end


def parse_params(text: str) -> dict[str, Any]:
    """Parameters of a raw line: ``{json}`` or ``key=value ...``.

    Raises:
        ValueError: Malformed, with what is wrong and where.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            params = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"Invalid JSON params: {exc}") from None
        if not isinstance(params, dict):
            raise ValueError("JSON params must be an object")
        return params
    params = {}
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return params
        match = _KEY.match(text, pos)
        if match is None:
            raise ValueError(f"Expected key=value, got {text[pos:pos + 30]!r}")
        value, pos = _parse_value(text, match.end())
        params[match.group(1)] = value


def parse_raw_line(line: str, namespace: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``("Domain.method", params)`` if ``line`` is a raw protocol line, else ``None``.

    A line is raw when it starts with ``Domain.method`` and ``Domain`` is not a name of
    the console or a builtin (so ``Path.home()`` stays Python).

    Raises:
        ValueError: It is a raw line with malformed parameters.
    """
    match = _RAW_LINE.match(line.strip())
    if match is None:
        return None
    domain = match.group("domain")
    if domain in namespace or hasattr(builtins, domain):
        return None
    rest = match.group("rest") or ""
    if rest.lstrip().startswith(("(", "[", ".", "=")):
        return None  # Python: `Foo.bar (x)`, `Foo.bar = 1`
    return f"{domain}.{match.group('method')}", parse_params(rest)


def shorten(value: Any, limit: int) -> Any:
    """``value`` with strings longer than ``limit`` cut, for display."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}... ({len(value)} characters; the whole value is in _)"
    if isinstance(value, dict):
        return {key: shorten(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [shorten(item, limit) for item in value]
    return value
