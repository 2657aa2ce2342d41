"""A browse result as lines a terminal shows (no Textual here).

It renders from the engine's markdown with numbered links (``link_style="numbered"``):
that text already has the links numbered inline (``[12]``, matching ``links[11]``) in
document order with the headings, lists, tables, code and quotes around them, so the
TUI only restyles each block for a terminal (emphasis kept as italics: the words between
:data:`ITALIC_ON` and :data:`ITALIC_OFF`, which the app paints); the forms, which the
markdown shows as lists, are shown at the end from ``result.forms`` as fields to edit
instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .._browse import FORM_HEAD, BrowseResult, Form, FormField

__all__ = ["ITALIC_OFF", "ITALIC_ON", "Control", "Line", "italic_runs", "plain_text", "render_result", "render_snapshot", "wrap_line"]

# Where italic words start and end in a line's text (control characters no page text holds).
ITALIC_ON, ITALIC_OFF = "\x1e", "\x1f"

_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_ITALIC = re.compile(r"(?<![\\*\w])([*_])(?=\S)(.+?)(?<=\S)(?<!\\)\1(?![*\w])")
_MARKERS = re.compile(f"[{ITALIC_ON}{ITALIC_OFF}]")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_LIST_ITEM = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


@dataclass(frozen=True, slots=True)
class Control:
    """A form control shown on a line: field ``field`` of form ``form`` (``None``: the
    form's submit control)."""

    form: int
    field: int | None


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the document before wrapping: its text, what kind of block it comes
    from (which sets its style: ``heading1``, ``heading``, ``text``, ``code``, ``quote``,
    ``table``, ``form``, ``control``), and the form control it shows, if any."""

    text: str
    kind: str = "text"
    control: Control | None = None


def _inline(text: str) -> str:
    """Markdown inline syntax made readable: images as ``[image: alt]``, strong markers
    and backslash escapes dropped, emphasis as italics."""
    text = _MARKERS.sub("", text)
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1).strip()}]" if m.group(1).strip() else "[image]", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _ITALIC.sub(lambda m: f"{ITALIC_ON}{m.group(2)}{ITALIC_OFF}", text)
    return _ESCAPED.sub(r"\1", text)


def plain_text(text: str) -> str:
    """A line's text without its italic marks."""
    return _MARKERS.sub("", text)


def italic_runs(row: str, italic: bool) -> tuple[str, list[tuple[int, int]], bool]:
    """A row's plain text, the (start, end) of its italic runs in it, and whether italics
    are still on at its end; ``italic``: whether they were on at its start (a run that
    wraps onto the next row)."""
    plain: list[str] = []
    runs: list[tuple[int, int]] = []
    start = 0 if italic else -1
    for character in row:
        if character == ITALIC_ON:
            start = len(plain)
        elif character == ITALIC_OFF:
            if start >= 0:
                runs.append((start, len(plain)))
            start = -1
        else:
            plain.append(character)
    if start >= 0:
        runs.append((start, len(plain)))
    return "".join(plain), runs, start >= 0


def _table(rows: list[str]) -> list[Line]:
    """A markdown table as aligned columns."""
    cells = [
        [plain_text(_inline(cell.strip())) for cell in row.strip().strip("|").split("|")]
        for row in rows
        if not _TABLE_RULE.match(row.strip())
    ]
    columns = max(len(row) for row in cells)
    widths = [max((len(row[i]) if i < len(row) else 0) for row in cells) for i in range(columns)]
    lines: list[Line] = []
    for number, row in enumerate(cells):
        padded = [(row[i] if i < len(row) else "").ljust(widths[i]) for i in range(columns)]
        lines.append(Line("  " + " │ ".join(padded).rstrip(), "table"))
        if number == 0 and len(cells) > 1:
            lines.append(Line("  " + "─┼─".join("─" * width for width in widths), "table"))
    return lines


def _markdown_lines(markdown: str) -> list[Line]:
    lines: list[Line] = []
    source = markdown.splitlines()
    in_code = False
    table: list[str] = []

    def flush_table() -> None:
        if table:
            lines.extend(_table(table))
            table.clear()

    in_form = False
    for raw in source:
        stripped = raw.strip()
        # A form block (its head, then its "- " lines): the forms are shown as fields to edit.
        if not in_code and FORM_HEAD.match(stripped):
            in_form = True
            continue
        if in_form:
            if stripped.startswith("- "):
                continue
            in_form = False
        if stripped.startswith("```"):
            flush_table()
            in_code = not in_code
            continue
        if in_code:
            lines.append(Line("    " + raw, "code"))
            continue
        if stripped.startswith("|"):
            table.append(stripped)
            continue
        flush_table()
        heading = _HEADING.match(stripped)
        if heading:
            level = len(heading.group(1))
            lines.append(Line(_inline(heading.group(2)), "heading1" if level == 1 else "heading"))
        elif stripped.startswith(">"):
            lines.append(Line("│ " + _inline(stripped.lstrip("> ").strip()), "quote"))
        elif (item := _LIST_ITEM.match(raw)) is not None:
            lines.append(Line(item.group(1) + "• " + _inline(item.group(2)), "text"))
        elif stripped in ("---", "***", "___"):
            lines.append(Line("─" * 20, "text"))
        else:
            lines.append(Line(_inline(raw.rstrip()), "text"))
    flush_table()
    return lines


def field_label(field: FormField) -> str:
    """What a field is called on screen: its label, else its name."""
    return field.label.strip() or field.name or field.type


def _field_text(field: FormField, value: str) -> str:
    label = field_label(field)
    if field.type == "checkbox":
        return f"  [{'x' if value else ' '}] {label}"
    if field.type in ("select", "radio"):
        choices = " / ".join(field.options)
        return f"  {label}: <{value}> ({choices})" if choices else f"  {label}: <{value}>"
    shown = "•" * len(value) if field.type == "password" else value
    return f"  {label}: [{shown or '_' * 12}]"


# Field types the TUI does not edit (the page keeps what it has).
SKIPPED_TYPES = ("hidden", "submit", "button", "reset", "image", "file")


def _form_lines(forms: list[Form], values: Mapping[tuple[int, str], str]) -> list[Line]:
    lines: list[Line] = []
    for number, form in enumerate(forms):
        shown = [(i, field) for i, field in enumerate(form.fields) if field.type not in SKIPPED_TYPES]
        lines.append(Line(""))
        title = form.name or f"form {number + 1}"
        lines.append(Line(f"── {title}: {form.method} {form.action} ──", "form"))
        for index, field in shown:
            value = values.get((number, field.name), field.value)
            lines.append(Line(_field_text(field, value), "control", Control(number, index)))
        lines.append(Line("  [ Submit ]", "control", Control(number, None)))
    return lines


def render_result(result: BrowseResult, values: Mapping[tuple[int, str], str] | None = None) -> list[Line]:
    """The lines of a result: its markdown restyled, then its forms with the values typed
    so far (``values``: (form number, field name) -> value)."""
    lines = _markdown_lines(result.content)
    if result.forms:
        lines.extend(_form_lines(result.forms, values or {}))
    return lines


def render_snapshot(text: str, url: str) -> list[Line]:
    """An accessibility snapshot's text, under a heading saying how to act on it."""
    return [
        Line(f"Accessibility snapshot of {url}", "heading1"),
        Line("(:click N or :type N text act on element [N]; Escape or r goes back to the page)", "quote"),
        Line(""),
        *(Line(line, "code") for line in text.splitlines()),
    ]


def wrap_line(text: str, width: int) -> list[str]:
    """``text`` cut into rows of at most ``width`` characters, at spaces where it can,
    continuation rows indented like the first."""
    if width < 8 or len(text) <= width:
        return [text]
    indent = " " * min(len(text) - len(text.lstrip(" ")), width // 2)
    rows: list[str] = []
    rest = text
    while len(rest) > width:
        cut = rest.rfind(" ", len(indent) + 1, width + 1)
        if cut <= len(indent):
            cut = width
        rows.append(rest[:cut].rstrip())
        rest = indent + rest[cut:].lstrip(" ")
    rows.append(rest)
    return rows
