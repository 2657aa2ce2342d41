"""A griffe extension that makes cdpkit's reStructuredText-flavoured docstrings render in
mkdocstrings' Markdown.

cdpkit's docstrings are Google style with Sphinx roles and reST literals. Once the package is
loaded, every docstring is rewritten in memory (the source files are never touched, the
generated bindings included):

* ``:class:`~cdpkit.Page``` (and ``:func:``, ``:meth:``, ``:attr:``, ``:data:``,
  ``:mod:``, ``:exc:``, ``:obj:``) becomes a cross-reference to the object's page. The
  name is resolved the way Python would read it in that docstring (``:func:`snapshot``` in
  a tools module means that module's ``snapshot``). The reference is *optional*: a target
  the site does not document renders as inline code instead of a broken link.
* ````x```` becomes ```x```.
* A paragraph ending in ``::`` (a reST literal block) ends in ``:`` and its indented block
  stays a code block.
* A reST simple table (``====  ====`` rules) becomes a Markdown table.

Loaded from ``mkdocs.yml`` through mkdocstrings' ``extensions`` option.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?P<role>class|func|meth|attr|data|mod|exc|obj|const):`(?P<body>[^`]+)`")
_DOUBLE_BACKTICKS = re.compile(r"``(?P<code>[^`]+?)``")
_EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")
_TABLE_RULE = re.compile(r"^(?P<indent>\s*)=+(?:\s+=+)+\s*$")

# Roles whose title reads as a call, as Sphinx writes them.
_CALLABLE_ROLES = {"func", "meth"}


class RstRoles(griffe.Extension):
    """Rewrite the docstrings of every loaded package for Markdown rendering."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Rewrite every docstring of ``pkg`` once its object tree is complete."""
        collection = loader.modules_collection
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _rewrite(obj.docstring.value, obj, collection)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    """Every object defined under ``obj`` (aliases are rendered from their targets)."""
    found = [obj]
    for member in obj.members.values():
        if member.is_alias:
            continue
        assert isinstance(member, griffe.Object)
        found.extend(_walk(member))
    return found


def _rewrite(text: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    text = _convert_tables(text)
    text = _convert_literal_markers(text)
    text = _ROLE.sub(lambda match: _reference(match, obj, collection), text)
    return _DOUBLE_BACKTICKS.sub(lambda match: f"`{match['code']}`", text)


def _reference(match: re.Match[str], obj: griffe.Object, collection: Any) -> str:
    role, body = match["role"], match["body"].strip()
    explicit = _EXPLICIT_TITLE.match(body)
    if explicit:
        title, target = explicit["title"], explicit["target"]
    else:
        target = body.lstrip("~.!")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
        if role in _CALLABLE_ROLES and not title.endswith(")"):
            title += "()"
    identifier = _resolve(target.lstrip("~.!"), obj, collection)
    return (
        f'<autoref identifier="{html.escape(identifier)}" optional>'
        f"<code>{html.escape(title)}</code></autoref>"
    )


def _resolve(target: str, obj: griffe.Object, collection: Any) -> str:
    """The canonical path of ``target`` as read from ``obj``'s docstring, else ``target``."""
    candidates = [target]
    head, _, rest = target.partition(".")
    scope: griffe.Object | None = obj
    while scope is not None:
        # A name relative to the docstring's object, its class, its module, its package.
        candidates.append(f"{scope.path}.{target}")
        try:
            resolved = scope.resolve(head)
        except Exception:  # griffe raises NameResolutionError, or others on odd scopes
            resolved = None
        if resolved:
            candidates.append(f"{resolved}.{rest}" if rest else resolved)
        scope = scope.parent
    for candidate in candidates:
        try:
            found = collection[candidate]
            return str(found.canonical_path)
        except Exception:  # unknown path, or an alias griffe cannot resolve
            continue
    return target


def _convert_literal_markers(text: str) -> str:
    """``Usage::`` -> ``Usage:`` and a lone ``::`` line -> nothing; the block stays indented."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if line.rstrip().endswith("::") and not line.rstrip().endswith(":::"):
            stripped = line.rstrip()[:-2]
            lines[number] = stripped + ":" if stripped.strip() else ""
    return "\n".join(lines)


def _convert_tables(text: str) -> str:
    """Turn reST simple tables into Markdown tables (continuation lines are joined)."""
    lines = text.split("\n")
    out: list[str] = []
    number = 0
    while number < len(lines):
        rule = _TABLE_RULE.match(lines[number])
        if not rule:
            out.append(lines[number])
            number += 1
            continue
        columns = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[number])]
        rows: list[list[str]] = []
        rules_seen = 1
        number += 1
        while number < len(lines) and rules_seen < 3:
            line = lines[number]
            number += 1
            if _TABLE_RULE.match(line):
                rules_seen += 1
                continue
            cells = [
                line[start : (columns[i + 1][0] if i + 1 < len(columns) else None)].strip()
                for i, (start, _) in enumerate(columns)
            ]
            if rows and not cells[0]:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)
        if rows:
            out.append("")
            out.append("| " + " | ".join(rows[0]) + " |")
            out.append("|" + "---|" * len(columns))
            out.extend("| " + " | ".join(row) + " |" for row in rows[1:])
            out.append("")
    return "\n".join(out)
