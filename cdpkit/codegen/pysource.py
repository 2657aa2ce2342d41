"""Small helpers that write Python source the way the repository's ruff config wants it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

__all__ = [
    "LINE_LENGTH",
    "all_sort_key",
    "function_signature",
    "import_from",
    "list_assignment",
    "reexport_from",
]

LINE_LENGTH = 100

NaturalKey = tuple[tuple[int, int | str], ...]


def _natural(text: str) -> NaturalKey:
    """Natural order: runs of digits compare as numbers (``Foo2`` < ``Foo10``)."""
    return tuple(
        (0, int(run)) if run.isdigit() else (1, run) for run in re.findall(r"\d+|\D+", text)
    )


def _name_kind(name: str) -> int:
    """isort's order of names: CONSTANTS, then Classes, then everything else."""
    if len(name) > 1 and name.isupper():
        return 0
    return 1 if name[0].isupper() else 2


def _import_sort_key(name: str) -> tuple[int, NaturalKey, str]:
    """How ruff's isort orders the names of one ``from ... import`` (case-insensitively)."""
    return (_name_kind(name), _natural(name.lower()), name)


def all_sort_key(name: str) -> tuple[int, NaturalKey]:
    """How ruff (RUF022) orders ``__all__``: like isort, but case-sensitively."""
    return (_name_kind(name), _natural(name))


def import_from(module: str, names: Iterable[str], indent: str = "") -> list[str]:
    """``from module import a, b``, wrapped one name per line when too long (as isort does)."""
    ordered = sorted(set(names), key=_import_sort_key)
    one_line = f"{indent}from {module} import {', '.join(ordered)}"
    if len(one_line) <= LINE_LENGTH:
        return [one_line]
    return [
        f"{indent}from {module} import (",
        *(f"{indent}    {name}," for name in ordered),
        f"{indent})",
    ]


def reexport_from(module: str, names: Iterable[str], indent: str = "") -> list[str]:
    """``from module import X as X``, one statement per name in ruff's order: an explicit
    re-export for type checkers that leaves the names out of ``__all__``."""
    ordered = sorted(set(names), key=_import_sort_key)
    lines = []
    for name in ordered:
        line = f"{indent}from {module} import {name} as {name}"
        if len(line) > LINE_LENGTH:
            line = f"{indent}from {module} import (\n{indent}    {name} as {name},\n{indent})"
        lines.append(line)
    return lines


def list_assignment(target: str, items: Iterable[str]) -> list[str]:
    """``target = [...]`` of string items, one per line."""
    lines = [f"    {json.dumps(item)}," for item in items]
    if not lines:
        return [f"{target}: list[str] = []"]
    return [f"{target} = [", *lines, "]"]


def function_signature(name: str, params: list[str], returns: str) -> list[str]:
    """``def name(params) -> returns:`` on one line, or one parameter per line if too long."""
    one_line = f"def {name}({', '.join(params)}) -> {returns}:"
    if len(one_line) <= LINE_LENGTH:
        return [one_line]
    return [f"def {name}(", *(f"    {param}," for param in params), f") -> {returns}:"]
