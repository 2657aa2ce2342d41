"""Blocks to the text an agent reads: markdown, plain text, JSON and link lists.

Each block renders on its own (the token budget keeps or cuts whole blocks), in one of
three link styles: ``inline`` (``[text](url)``), ``numbered`` (``text [n]``, ``n`` being
:attr:`Link.number`) and ``none`` (the words only).

The ``"json"`` format is one JSON object::

    {
      "title": "Page title",
      "headings": [{"level": 2, "text": "Installation"}],
      "blocks": [
        {"type": "heading", "level": 2, "text": "Installation"},
        {"type": "paragraph", "text": "Run the installer."},
        {"type": "list", "ordered": false,
         "items": [{"text": "one", "items": [{"text": "nested", "items": []}]}]},
        {"type": "table", "caption": "", "header": ["Name", "Size"], "rows": [["a", "1"]]},
        {"type": "code", "language": "python", "text": "print(1)"},
        {"type": "quote", "text": "Quoted words."},
        {"type": "image", "url": "https://...", "alt": "A cat"},
        {"type": "video", "url": "https://..."},
        {"type": "form", "action": "https://...", "method": "GET",
         "controls": [{"kind": "field", "label": "Search", "type": "search", "value": ""},
                      {"kind": "button", "label": "Go", "type": "submit"}]}
      ],
      "links": [{"number": 1, "text": "Docs", "url": "https://..."}],
      "forms": [{"action": "https://...", "method": "POST", "name": "",
                 "fields": [{"name": "q", "type": "text", "value": "", "label": "Search",
                             "required": false, "options": []}]}],
      "media": [{"kind": "image", "url": "https://...", "alt": "", "width": 640, "height": null}],
      "metadata": {"description": "", "author": "", "published": "", "language": "en",
                   "canonical": "", "site_name": ""},
      "truncation": ["cut 3 blocks (420 tokens) under 'Comments'"]
    }

A form shows where the page has it, after its own headings and paragraphs (see
:func:`form_lines` for the markdown and text lines). Block texts are plain (links as their words; the ``links`` list has the URLs). A table
without a header row has ``"header": []``. ``"truncation"`` is present only when the token
budget cut something.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ._block import (
    CODE,
    EMPHASIS,
    IMAGE_CLOSE,
    IMAGE_OPEN,
    LINK_CLOSE,
    LINK_MID,
    LINK_OPEN,
    STRONG,
    Block,
    ListItem,
    plain,
)
from ._controls import Control, FormView
from ._types import Link, LinkStyle, MediaItem

__all__ = ["Renderer"]

_LINK = re.compile(
    re.escape(LINK_OPEN) + r"(\d+)" + re.escape(LINK_MID) + r"(.*?)" + re.escape(LINK_CLOSE),
    re.DOTALL,
)
_IMAGE = re.compile(re.escape(IMAGE_OPEN) + r"(\d+)" + re.escape(IMAGE_CLOSE))
_MARKDOWN_MARKS = {STRONG: "**", EMPHASIS: "*", CODE: "`"}
_BLOCK_SYNTAX = re.compile(r"(?m)^(\s*)(#{1,6}\s|[-+*>]\s|\d+[.)]\s)")


class Renderer:
    """Renders blocks of one document in one format and link style.

    Args:
        fmt: ``"markdown"``, ``"text"`` or ``"json"`` (``"links"`` is rendered by the
            caller from the links list).
        link_style: ``"inline"``, ``"numbered"`` or ``"none"``.
        links: The document's links (their index is the mark's number).
        media: The document's media.
    """

    def __init__(
        self, fmt: str, link_style: LinkStyle, links: Sequence[Link], media: Sequence[MediaItem]
    ) -> None:
        self.fmt = fmt
        self.link_style = link_style
        self.links = links
        self.media = media

    # -- inline --------------------------------------------------------------------------

    def inline(self, inline: str) -> str:
        """Marked-up inline text in this format (markdown marks, or plain words)."""
        markdown = self.fmt == "markdown"

        def link(match: re.Match[str]) -> str:
            words = match.group(2)
            index = int(match.group(1))
            if self.link_style == "numbered":
                return f"{words} [{index + 1}]"
            if self.link_style == "none" or not markdown or index >= len(self.links):
                return words
            if not plain(words).strip():
                return words
            return f"[{words}]({_escape_url(self.links[index].url)})"

        def image(match: re.Match[str]) -> str:
            index = int(match.group(1))
            if not markdown or index >= len(self.media):
                return ""
            item = self.media[index]
            alt = item.alt.replace("[", "(").replace("]", ")")
            return f"![{alt}]({_escape_url(item.url)})"

        text = _IMAGE.sub(image, inline)
        # Links may hold marks (bold words): innermost first, so the words are rendered.
        text = _LINK.sub(link, text)
        if markdown:
            for mark, syntax in _MARKDOWN_MARKS.items():
                text = text.replace(mark, syntax)
        else:
            text = text.replace(STRONG, "").replace(EMPHASIS, "").replace(CODE, "")
        return text.strip()

    # -- blocks --------------------------------------------------------------------------

    def block(self, block: Block) -> str:
        """One block as markdown or text (``""`` when it shows nothing in this format)."""
        markdown = self.fmt == "markdown"
        kind = block.kind
        if kind == "heading":
            text = self.inline(block.inline).replace("\n", " ")
            return f"{'#' * block.level} {text}" if markdown else text
        if kind == "paragraph":
            text = self.inline(block.inline)
            if not markdown:
                return text
            # A line that would read as a heading, list item or quote is escaped.
            text = _BLOCK_SYNTAX.sub(_escape_block_syntax, text)
            return text.replace("\n", "  \n")
        if kind == "list":
            return "\n".join(self._list_lines(block, 0))
        if kind == "table":
            return self._table(block)
        if kind == "code":
            if not markdown:
                return block.text
            fence = "````" if "```" in block.text else "```"
            return f"{fence}{block.language}\n{block.text}\n{fence}"
        if kind == "quote":
            inner = "\n\n".join(
                part for part in (self.block(child) for child in block.children) if part
            )
            if not markdown:
                return inner
            return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
        if kind == "form":
            return self._form(block)
        if kind in ("image", "video", "audio"):
            if not markdown or block.media >= len(self.media):
                return ""
            item = self.media[block.media]
            if kind == "image":
                return f"![{item.alt.replace('[', '(').replace(']', ')')}]({_escape_url(item.url)})"
            return f"[{kind}{': ' + item.alt if item.alt else ''}]({_escape_url(item.url)})"
        return plain(block.inline)

    def _form(self, block: Block) -> str:
        """A form as a compact list (see :func:`form_lines`); markdown bolds its head."""
        if block.form is None:
            return ""
        lines = form_lines(block.form)
        if self.fmt == "markdown":
            lines[0] = lines[0].replace(FORM_WORD, f"**{FORM_WORD}**", 1)
        return "\n".join(lines)

    def _list_lines(self, block: Block, depth: int) -> list[str]:
        lines: list[str] = []
        indent = "  " * depth
        for number, item in enumerate(block.items, 1):
            bullet = f"{number}." if block.ordered else "-"
            if self.fmt != "markdown":
                bullet = f"{number}." if block.ordered else "-"
            text = self.inline(item.inline).replace("\n", " ")
            lines.append(f"{indent}{bullet} {text}".rstrip())
            for child in item.children:
                lines.extend(self._list_lines(child, depth + 1))
        return lines

    def _table(self, block: Block) -> str:
        rows = [[self.inline(cell).replace("\n", " ") for cell in row] for row in block.rows]
        caption = self.inline(block.inline) if block.inline else ""
        if self.fmt != "markdown":
            lines = [" | ".join(cell for cell in row) for row in rows]
            return "\n".join([caption, *lines] if caption else lines)
        cells = [[cell.replace("|", "\\|") for cell in row] for row in rows]
        width = len(cells[0])
        if block.header:
            head, body = cells[0], cells[1:]
        else:
            head, body = [""] * width, cells  # markdown needs a header row: an empty one
        lines = [
            _row(head),
            "| " + " | ".join("---" for _ in range(width)) + " |",
            *map(_row, body),
        ]
        return "\n".join([f"*{caption}*", *lines] if caption else lines)

    # -- JSON ----------------------------------------------------------------------------

    def block_json(self, block: Block) -> dict[str, Any]:
        """One block as the JSON object the module docstring shows."""
        kind = block.kind
        if kind == "heading":
            return {
                "type": "heading",
                "level": block.level,
                "text": _words(self.inline(block.inline)),
            }
        if kind == "list":
            return {
                "type": "list",
                "ordered": block.ordered,
                "items": [self._item_json(i) for i in block.items],
            }
        if kind == "table":
            rows = [[_words(self.inline(cell)) for cell in row] for row in block.rows]
            return {
                "type": "table",
                "caption": _words(self.inline(block.inline)) if block.inline else "",
                "header": rows[0] if block.header else [],
                "rows": rows[1:] if block.header else rows,
            }
        if kind == "code":
            return {"type": "code", "language": block.language or None, "text": block.text}
        if kind == "quote":
            return {
                "type": "quote",
                "text": "\n\n".join(self.block(child) for child in block.children),
            }
        if kind == "form" and block.form is not None:
            return {
                "type": "form",
                "action": block.form.action,
                "method": block.form.method,
                "controls": [_control_json(control) for control in block.form.controls],
            }
        if kind in ("image", "video", "audio"):
            item = self.media[block.media] if 0 <= block.media < len(self.media) else None
            data: dict[str, Any] = {"type": kind, "url": item.url if item else ""}
            if kind == "image":
                data["alt"] = item.alt if item else ""
            return data
        return {"type": "paragraph", "text": self.inline(block.inline)}

    def _item_json(self, item: ListItem) -> dict[str, Any]:
        nested = [
            self._item_json(child_item) for child in item.children for child_item in child.items
        ]
        return {"text": _words(self.inline(item.inline)), "items": nested}


FORM_WORD = "Form"
_MAX_OPTIONS = 12  # a select's options shown, at most (the selected ones always are)


def form_lines(form: FormView) -> list[str]:
    """A form as lines: ``Form (METHOD action)``, then one ``- `` line per control:

    - a field: ``- Email: [value]`` (``[____]`` when empty), ``(email, required)`` after
      it when it is not plain text or must be filled;
    - a checkbox: ``- [x] Remember me`` or ``- [ ] ...``;
    - a radio group or a select: ``- Size: ( ) S (•) M ( ) L`` (a select that takes
      several: ``[ ]``/``[x]``), at most a dozen options and the selected ones, then
      ``(+N more)``;
    - a textarea: ``- Message: [text] (textarea)``;
    - a button: ``- [Sign in]``, with ``(reset)`` or ``(button)`` when it does not submit.
    """
    target = f" {form.action}" if form.action else ", to this page"
    lines = [f"{FORM_WORD} ({form.method}{target})"]
    for control in form.controls:
        notes: list[str] = []
        if control.kind == "field" and control.type not in ("text", ""):
            notes.append(control.type)
        if control.kind == "textarea":
            notes.append("textarea")
        if control.required:
            notes.append("required")
        suffix = f" ({', '.join(notes)})" if notes else ""
        label = control.label
        if control.kind in ("field", "textarea"):
            lines.append(f"- {label}: [{control.value or '____'}]{suffix}")
        elif control.kind == "checkbox":
            lines.append(f"- [{'x' if control.checked else ' '}] {label}{suffix}")
        elif control.kind in ("radio", "select"):
            on, off = ("[x]", "[ ]") if control.multiple else ("(\u2022)", "( )")
            shown = [
                option
                for number, option in enumerate(control.options)
                if number < _MAX_OPTIONS or option[1]
            ]
            choices = " ".join(f"{on if selected else off} {words}" for words, selected in shown)
            more = len(control.options) - len(shown)
            choices += f" (+{more} more)" if more else ""
            lines.append(f"- {label}: {choices}{suffix}".rstrip())
        else:
            kind = f" ({control.type})" if control.type not in ("submit", "") else ""
            lines.append(f"- [{label}]{kind}")
    return lines


def _control_json(control: Control) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": control.kind, "label": control.label}
    if control.type:
        data["type"] = control.type
    if control.kind in ("field", "textarea"):
        data["value"] = control.value
    if control.kind == "checkbox":
        data["checked"] = control.checked
    if control.options:
        data["options"] = [{"label": words, "selected": selected} for words, selected in control.options]
    if control.required:
        data["required"] = True
    return data


def _escape_block_syntax(match: re.Match[str]) -> str:
    """``# x`` -> ``\\# x``, ``- x`` -> ``\\- x``, ``1. x`` -> ``1\\. x`` (CommonMark escapes)."""
    indent, syntax = match.group(1), match.group(2)
    if syntax[0].isdigit():
        return f"{indent}{syntax[:-2]}\\{syntax[-2:]}"
    return f"{indent}\\{syntax}"


def _words(text: str) -> str:
    return text.replace("\n", " ")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _escape_url(url: str) -> str:
    """A URL safe inside markdown's ``(...)``: spaces and parentheses encoded."""
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
