"""The blocks the extraction pipeline reads a page into, and what is done on blocks alone:
their marks (a link is ``\\x01<n>\\x02text\\x03``, an image ``\\x04<n>\\x05``,
strong/emphasis/code are wrapped in ``\\x06``/``\\x0e``/``\\x0f``), plain text, link
density, the headings each sits under, and renumbering links and media after a choice of
blocks. :mod:`._blocks` makes them from HTML.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ._types import Link, MediaItem

if TYPE_CHECKING:
    from ._controls import FormView

__all__ = [
    "CODE",
    "EMPHASIS",
    "IMAGE_CLOSE",
    "IMAGE_OPEN",
    "LINK_CLOSE",
    "LINK_MID",
    "LINK_OPEN",
    "MARK_CHARS",
    "STRONG",
    "Block",
    "BlockKind",
    "ListItem",
    "collapse",
    "inline_texts",
    "link_density",
    "link_headings",
    "plain",
    "renumber",
    "resolve_url",
    "wrap",
]

LINK_OPEN, LINK_MID, LINK_CLOSE = "\x01", "\x02", "\x03"


IMAGE_OPEN, IMAGE_CLOSE = "\x04", "\x05"


STRONG, EMPHASIS, CODE = "\x06", "\x0e", "\x0f"


BlockKind = Literal[
    "heading", "paragraph", "list", "table", "code", "quote", "image", "video", "audio", "form"
]


# Control characters the marks use never come from the page itself.
MARK_CHARS = re.compile(r"[\x00-\x08\x0e\x0f]")


_MARKS = re.compile(r"\x01\d+\x02|\x04\d+\x05|[\x03\x06\x0e\x0f]")


_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u200b]+|\n")


_LINK_MARK = re.compile(r"\x01(\d+)\x02")


_IMAGE_MARK = re.compile(r"\x04(\d+)\x05")


_LINK_TEXT = re.compile(r"\x01\d+\x02(.*?)\x03", re.DOTALL)


def plain(inline: str) -> str:
    """The visible text of inline marked-up text (marks dropped)."""
    return _MARKS.sub("", inline)


def collapse(text: str) -> str:
    """Runs of whitespace (newlines included) as one space, marks removed."""
    return _SPACES.sub(" ", MARK_CHARS.sub("", text))


def resolve_url(base: str, href: str) -> str:
    """``href`` made absolute against ``base`` (whitespace inside the attribute dropped)."""
    href = href.strip().replace("\n", "").replace("\t", "")
    try:
        return urllib.parse.urljoin(base, href)
    except ValueError:  # a malformed URL (bad IPv6 literal...): keep it as written
        return href


@dataclass(slots=True)
class ListItem:
    """One item of a list: its inline text and the lists nested in it."""

    inline: str
    children: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class Block:
    """One unit of content: what keyword filters keep, ranking orders and the budget cuts.

    Attributes:
        kind: What it is.
        inline: Marked-up inline text (headings, paragraphs, quotes, captions).
        level: A heading's level (1-6).
        language: A code block's language, from its class (``language-python``...).
        text: For code, the code as written; otherwise filled by :meth:`finish` with the
            plain text.
        items: A list's items; ``ordered`` for ``<ol>``.
        rows: A table's rows of marked-up cells; ``header`` when the first is a header row.
        children: A quote's blocks.
        media: Index of an image/video/audio in the reader's media list.
        form: A form's action, method and controls (shown after the form's other
            content: its headings and paragraphs come first).
        headings: Indexes (in the block list) of the headings this block sits under,
            outermost first.
    """

    kind: BlockKind
    inline: str = ""
    level: int = 0
    language: str = ""
    text: str = ""
    items: list[ListItem] = field(default_factory=list)
    ordered: bool = False
    rows: list[list[str]] = field(default_factory=list)
    header: bool = False
    children: list[Block] = field(default_factory=list)
    media: int = -1
    form: FormView | None = None
    headings: tuple[int, ...] = ()

    def finish(self) -> None:
        """Compute ``text``: the block's visible text, what filters and ranking read."""
        if self.kind == "code":
            return
        if self.kind == "list":
            self.text = "\n".join(_list_text(self.items))
        elif self.kind == "table":
            self.text = "\n".join(" ".join(plain(cell) for cell in row) for row in self.rows)
            if self.inline:
                self.text = plain(self.inline) + "\n" + self.text
        elif self.kind == "quote":
            for child in self.children:
                child.finish()
            self.text = "\n".join(child.text for child in self.children)
        elif self.form is not None:
            self.text = self.form.words()
        else:
            self.text = plain(self.inline)


def _list_text(items: Iterable[ListItem]) -> Iterable[str]:
    for item in items:
        yield plain(item.inline)
        for child in item.children:
            yield from _list_text(child.items)


def wrap(mark: str, inline: str) -> str:
    """``inline`` wrapped in ``mark``, spaces kept outside (``**a**`` never ``** a **``)."""
    stripped = inline.strip()
    if not plain(stripped):
        return inline
    lead = inline[: len(inline) - len(inline.lstrip())]
    trail = inline[len(inline.rstrip()) :]
    return f"{lead}{mark}{stripped}{mark}{trail}"


def link_headings(blocks: list[Block]) -> None:
    """Fill each block's ``headings``: the chain of headings it sits under (again after
    blocks were chosen or reordered)."""
    stack: list[tuple[int, int]] = []  # (level, block index)
    for index, block in enumerate(blocks):
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            block.headings = tuple(i for _, i in stack)
            stack.append((block.level, index))
        else:
            block.headings = tuple(i for _, i in stack)


def renumber(
    blocks: Sequence[Block], links: Sequence[Link], media: Sequence[MediaItem]
) -> tuple[list[Link], list[MediaItem]]:
    """The links and media ``blocks`` use, in the order they first appear; the blocks'
    marks and media indexes are rewritten to point into these new lists."""
    new_links: list[Link] = []
    new_media: list[MediaItem] = []
    link_map: dict[int, int] = {}
    media_map: dict[int, int] = {}

    def media_index(old: int) -> int:
        if old not in media_map and 0 <= old < len(media):
            media_map[old] = len(new_media)
            new_media.append(media[old])
        return media_map.get(old, -1)

    def link_mark(match: re.Match[str]) -> str:
        old = int(match.group(1))
        if old not in link_map and old < len(links):
            link_map[old] = len(new_links)
            new_links.append(links[old])
        return f"{LINK_OPEN}{link_map.get(old, old)}{LINK_MID}"

    def image_mark(match: re.Match[str]) -> str:
        return f"{IMAGE_OPEN}{media_index(int(match.group(1)))}{IMAGE_CLOSE}"

    def inline(text: str) -> str:
        # Images first: in the text they come before the link mark that wraps them.
        return _LINK_MARK.sub(link_mark, _IMAGE_MARK.sub(image_mark, text))

    def visit(block: Block) -> None:
        block.inline = inline(block.inline)
        if block.media >= 0:
            block.media = media_index(block.media)
        block.rows = [[inline(cell) for cell in row] for row in block.rows]
        pending = list(block.items)
        while pending:
            item = pending.pop(0)
            item.inline = inline(item.inline)
            for child in item.children:
                visit(child)
        for child in block.children:
            visit(child)

    for block in blocks:
        visit(block)
    return new_links, new_media


def inline_texts(block: Block) -> list[str]:
    """Every marked-up inline text of ``block``: its own, its list items', its cells', its
    quoted blocks'."""
    texts = [block.inline, *(cell for row in block.rows for cell in row)]
    for item in block.items:
        texts.append(item.inline)
        for child in item.children:
            texts.extend(inline_texts(child))
    for child in block.children:
        texts.extend(inline_texts(child))
    return texts


def link_density(block: Block) -> float:
    """The share of ``block``'s visible characters that are link text."""
    total = linked = 0
    for text in inline_texts(block):
        total += len(plain(text).strip())
        for match in _LINK_TEXT.finditer(text):
            linked += len(plain(match.group(1)).strip())
    return linked / total if total else 0.0
