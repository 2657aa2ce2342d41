"""HTML to structured blocks: the second stage of the browse extraction pipeline.

A :class:`BlockReader` walks a parsed document (selectolax/Lexbor) once and turns what a
reader sees into a flat list of :class:`Block` (headings with their level, paragraphs,
nested lists, tables, code with its language, quotes, images, video and audio), collecting
the links and media it passes, every URL made absolute against ``<base href>`` and the
page's URL. It skips what a reader does not see (scripts, styles, templates, ``hidden``,
``aria-hidden="true"``, inline ``display:none``/``visibility:hidden``, form controls) and
page chrome (``nav``, ``footer``, ``aside``, the site header, cookie banners), except inside
a subtree the caller selected on purpose.

Inline formatting is kept in a block's ``inline`` text with control-character marks
(:mod:`._block`) so one walk serves every format and link style: :mod:`._formats` renders
the marks, :func:`._block.plain` drops them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from selectolax.lexbor import LexborNode

from ._block import (
    CODE,
    EMPHASIS,
    IMAGE_CLOSE,
    IMAGE_OPEN,
    LINK_CLOSE,
    LINK_MID,
    LINK_OPEN,
    MARK_CHARS,
    STRONG,
    Block,
    ListItem,
    collapse,
    link_headings,
    plain,
    resolve_url,
    wrap,
)
from ._controls import FormView, form_controls, label_index
from ._elements import (
    BLOCK_TAGS,
    CHROME_ROLES,
    CHROME_TAGS,
    CONTAINER_TAGS,
    COOKIE_BANNER,
    HIDDEN_STYLE,
    SECTIONING,
    SKIPPED_TAGS,
    code_language,
    hidden_by_class,
    image_item,
    int_attr,
    is_layout_table,
)
from ._types import Link, MediaItem

__all__ = ["BlockReader"]

# A heading's trailing permalink ("¶", "§", "🔗", " #"), never the "#" of "C#".
_HEADING_ANCHOR = re.compile(r"(?:\s+#+|[\s\u00b6\u00a7\U0001f517])+$")

_MAX_DEPTH = 300  # beyond this nesting a subtree is read as flat text (no recursion limit hit)


class _BlockInside(Exception):
    """An element met while reading inline text holds block content (a ``<div>`` in a
    ``<a>``...): the caller reads it as a container instead."""


class BlockReader:
    """Reads a document's subtrees into blocks, links and media (see the module docstring).

    Args:
        base_url: The URL relative links resolve against (``<base href>`` already applied).
        skip_chrome: Whether page chrome (navigation, footers, asides, the site header,
            cookie banners) is left out.
        data_images: Whether images whose only source is a ``data:`` URL are kept
            (left out by default: base64 bytes are no words).
    """

    def __init__(
        self, base_url: str, *, skip_chrome: bool = True, data_images: bool = False
    ) -> None:
        self.base_url = base_url
        self.skip_chrome = skip_chrome
        self.data_images = data_images
        self.blocks: list[Block] = []
        self.links: list[Link] = []
        self.media: list[MediaItem] = []
        self._link_index: dict[str, int] = {}
        self._media_index: dict[str, int] = {}
        self._buffer: list[str] = []
        self._sectioning = 0  # depth inside article/main/section: their <header> is content
        self._labels: dict[str, LexborNode] | None = (
            None  # <label for> by id, read at the first form
        )
        self._used_legends: set[int] = set()  # legends a form block shows as a radio group's name
        self._depth = 0

    # -- public --------------------------------------------------------------------------

    def read(self, roots: Sequence[LexborNode]) -> list[Block]:
        """Read ``roots`` in order (each root itself is never skipped as chrome) and return
        every block, with ``text`` and ``headings`` filled."""
        for root in roots:
            tag = root.tag or ""
            handler = _BLOCK_HANDLERS.get(tag)
            if handler is not None:
                handler(self, root)
            elif tag == "-text":
                self._buffer.append(collapse(root.text_content or ""))
            elif tag in CONTAINER_TAGS or tag in ("html", "body") or tag in SKIPPED_TAGS:
                self._container(root, tag)
            else:
                self._inline_or_container(root, tag)  # a selected link, image, span...
            self._flush()
        for block in self.blocks:
            block.finish()
        link_headings(self.blocks)
        return self.blocks

    # -- walking -------------------------------------------------------------------------

    def _walk(self, node: LexborNode) -> None:
        self._depth += 1
        try:
            if self._depth > _MAX_DEPTH:
                self._buffer.append(collapse(node.text(separator=" ")))
                return
            for child in node.iter(include_text=True):
                tag = child.tag or ""
                if tag == "-text":
                    self._buffer.append(collapse(child.text_content or ""))
                    continue
                if tag[:1] == "-" or tag in SKIPPED_TAGS or self._skipped(child, tag):
                    continue
                if tag == "legend" and child.mem_id in self._used_legends:
                    continue
                handler = _BLOCK_HANDLERS.get(tag)
                if handler is not None:
                    self._flush()
                    handler(self, child)
                elif tag in CONTAINER_TAGS:
                    self._container(child, tag)
                else:
                    self._inline_or_container(child, tag)
        finally:
            self._depth -= 1

    def _container(self, node: LexborNode, tag: str) -> None:
        self._flush()
        sectioning = tag in SECTIONING
        self._sectioning += sectioning
        try:
            self._walk(node)
        finally:
            self._sectioning -= sectioning
        self._flush()

    def _inline_or_container(self, node: LexborNode, tag: str) -> None:
        try:
            text = self._inline_element(node, tag)
        except _BlockInside:
            if tag == "a":  # a card: the link wraps headings and paragraphs
                url = self._link_url(node)
                if url is not None:
                    self._add_link(url, collapse(node.text(separator=" ")).strip())
            self._container(node, tag)
        else:
            self._buffer.append(text)

    def _skipped(self, node: LexborNode, tag: str) -> bool:
        """Whether ``node`` is hidden, or chrome the reader leaves out."""
        attrs = node.attributes
        if not attrs and tag not in CHROME_TAGS and tag != "header":
            return False
        if "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        if tag == "dialog" and "open" not in attrs:
            return True
        style = attrs.get("style")
        if style and HIDDEN_STYLE.search(style):
            return True
        classes = attrs.get("class")
        if classes and hidden_by_class(classes):
            return True
        if not self.skip_chrome:
            return False
        if tag in CHROME_TAGS or attrs.get("role") in CHROME_ROLES:
            return True
        if tag == "header" and self._sectioning == 0:
            return True  # the site's header (implicitly role=banner), not an article's
        if tag in ("div", "section", "aside", "form", "dialog"):
            marker = f"{attrs.get('id') or ''} {attrs.get('class') or ''}"
            if COOKIE_BANNER.search(marker):
                return True
        return False

    def _flush(self) -> None:
        """Close the paragraph the inline buffer holds (an image alone becomes an image)."""
        if not self._buffer:
            return
        inline = _tidy("".join(self._buffer))
        self._buffer.clear()
        if not inline:
            return
        if inline.startswith(IMAGE_OPEN) and not plain(inline).strip():
            for match in re.finditer(r"\x04(\d+)\x05", inline):
                self.blocks.append(Block("image", media=int(match.group(1))))
            return
        self.blocks.append(Block("paragraph", inline=inline))

    # -- inline --------------------------------------------------------------------------

    def _inline(self, node: LexborNode) -> str:
        """``node``'s content as marked-up inline text; raises :class:`_BlockInside`."""
        self._depth += 1
        try:
            if self._depth > _MAX_DEPTH:
                return collapse(node.text(separator=" "))
            parts: list[str] = []
            for child in node.iter(include_text=True):
                tag = child.tag or ""
                if tag == "-text":
                    parts.append(collapse(child.text_content or ""))
                elif tag[:1] == "-" or tag in SKIPPED_TAGS:
                    continue
                elif tag in BLOCK_TAGS:
                    raise _BlockInside
                elif not self._skipped(child, tag):
                    parts.append(self._inline_element(child, tag))
            return "".join(parts)
        finally:
            self._depth -= 1

    def _inline_element(self, node: LexborNode, tag: str) -> str:
        if tag == "br":
            return "\n"
        if tag == "a":
            return self._link(node)
        if tag == "img":
            return self._image(node)
        if tag == "picture":
            img = node.css_first("img")
            return self._image(img) if img is not None else ""
        if tag in ("strong", "b"):
            return wrap(STRONG, self._inline(node))
        if tag in ("em", "i", "cite"):
            return wrap(EMPHASIS, self._inline(node))
        if tag in ("code", "kbd", "samp", "tt", "var"):
            return wrap(CODE, collapse(node.text(separator="")).replace("`", "'"))
        if tag == "wbr":
            return ""
        return self._inline(node)

    def _link_url(self, node: LexborNode) -> str | None:
        href = node.attributes.get("href")
        if not href:
            return None
        href = href.strip()
        if href.startswith("#") or href.lower().startswith(("javascript:", "data:")):
            return None  # in-page anchors and scripts are not places to go
        return resolve_url(self.base_url, href)

    def _link(self, node: LexborNode) -> str:
        text = _tidy(self._inline(node))
        url = self._link_url(node)
        if url is None:
            return text
        label = plain(text).strip()
        if not label:
            attrs = node.attributes
            label = (attrs.get("aria-label") or attrs.get("title") or "").strip()
            image = node.css_first("img[alt]")
            if not label and image is not None:
                label = (image.attributes.get("alt") or "").strip()
            if not label:
                return text  # nothing says where it goes: the image (if any) stays
            if not text.startswith(IMAGE_OPEN):
                text = label
        index = self._add_link(url, collapse(label).strip())
        # Images inside a link stay images; the link wraps the words.
        return f"{LINK_OPEN}{index}{LINK_MID}{text}{LINK_CLOSE}"

    def _add_link(self, url: str, text: str) -> int:
        """The index of ``url`` in the links list (added the first time, with ``text``)."""
        index = self._link_index.get(url)
        if index is None:
            index = self._link_index[url] = len(self.links)
            self.links.append(Link(url=url, text=text))
        return index

    def _image(self, node: LexborNode) -> str:
        item = image_item(node, self.base_url, data=self.data_images)
        if item is None:
            return ""
        return f"{IMAGE_OPEN}{self._add_media(item)}{IMAGE_CLOSE}"

    def _add_media(self, item: MediaItem) -> int:
        index = self._media_index.get(item.url)
        if index is None:
            index = self._media_index[item.url] = len(self.media)
            self.media.append(item)
        return index

    # -- blocks --------------------------------------------------------------------------

    def _heading(self, node: LexborNode) -> None:
        inline = self._inline_safe(node)
        inline = _HEADING_ANCHOR.sub("", _tidy(inline).replace("\n", " "))
        if plain(inline).strip():
            self.blocks.append(Block("heading", inline=inline, level=int((node.tag or "h2")[1])))

    def _form(self, node: LexborNode) -> None:
        """A form: its headings and paragraphs, then its controls as one block (a legend
        that names a radio group is said there only)."""
        if self._labels is None:
            self._labels = label_index(node)
        controls = form_controls(node, self._labels, self._used_legends)
        self._container(node, "form")
        if controls:
            action = (node.attributes.get("action") or "").strip()
            method = (node.attributes.get("method") or "get").strip().upper() or "GET"
            view = FormView(
                resolve_url(self.base_url, action) if action else "", method, tuple(controls)
            )
            self.blocks.append(Block("form", form=view))

    def _paragraph(self, node: LexborNode) -> None:
        try:
            self._buffer.append(self._inline(node))
        except _BlockInside:
            self._walk(node)
        self._flush()

    def _code(self, node: LexborNode) -> None:
        code = MARK_CHARS.sub("", node.text(deep=True, separator=""))
        code = code.strip("\n").rstrip()
        if code.strip():
            self.blocks.append(Block("code", text=code, language=code_language(node)))

    def _list(self, node: LexborNode) -> None:
        block = self._read_list(node)
        if block.items:
            self.blocks.append(block)

    def _read_list(self, node: LexborNode) -> Block:
        block = Block("list", ordered=node.tag == "ol")
        for child in node.iter(include_text=False):
            tag = child.tag or ""
            if tag in SKIPPED_TAGS or self._skipped(child, tag):
                continue
            if tag == "li":
                item = self._list_item(child)
                if plain(item.inline).strip() or item.children:
                    block.items.append(item)
            elif tag in ("ul", "ol", "menu"):
                nested = self._read_list(child)
                if nested.items and block.items:
                    block.items[-1].children.append(nested)
                else:
                    block.items.extend(nested.items)
        return block

    def _list_item(self, node: LexborNode) -> ListItem:
        parts: list[str] = []
        children: list[Block] = []
        for child in node.iter(include_text=True):
            tag = child.tag or ""
            if tag == "-text":
                parts.append(collapse(child.text_content or ""))
            elif tag[:1] == "-" or tag in SKIPPED_TAGS or self._skipped(child, tag):
                continue
            elif tag in ("ul", "ol", "menu"):
                nested = self._read_list(child)
                if nested.items:
                    children.append(nested)
            else:
                parts.append(
                    " " + self._flat(child) + " " if tag in BLOCK_TAGS else self._flat(child)
                )
        return ListItem(_tidy("".join(parts)).replace("\n", " "), children)

    def _flat(self, node: LexborNode) -> str:
        """Inline text of any element, block content flattened with spaces."""
        try:
            return self._inline_element(node, node.tag or "")
        except _BlockInside:
            reader = BlockReader(
                self.base_url, skip_chrome=self.skip_chrome, data_images=self.data_images
            )
            reader.links, reader._link_index = self.links, self._link_index
            reader.media, reader._media_index = self.media, self._media_index
            reader._depth = self._depth
            reader._walk(node)
            reader._flush()
            return " ".join(_block_inline(block) for block in reader.blocks)

    def _inline_safe(self, node: LexborNode) -> str:
        """``node``'s content as inline text, block content inside flattened with spaces
        (a heading or a table cell holding paragraphs)."""
        try:
            return self._inline(node)
        except _BlockInside:
            pieces = []
            for child in node.iter(include_text=True):
                tag = child.tag or ""
                if tag == "-text":
                    pieces.append(collapse(child.text_content or ""))
                elif tag[:1] != "-" and tag not in SKIPPED_TAGS and not self._skipped(child, tag):
                    pieces.append(
                        " " + self._flat(child) + " " if tag in BLOCK_TAGS else self._flat(child)
                    )
            return "".join(pieces)

    def _table(self, node: LexborNode) -> None:
        if is_layout_table(node):
            self._container(node, "table")
            return
        rows: list[list[str]] = []
        header = False
        caption = ""
        for part in node.iter(include_text=False):
            tag = part.tag or ""
            if tag == "caption":
                caption = _tidy(self._inline_safe(part))
            elif tag in ("thead", "tbody", "tfoot"):
                for row in part.iter(include_text=False):
                    if row.tag == "tr":
                        cells, all_th = self._table_row(row)
                        if cells:
                            header = header or (not rows and (tag == "thead" or all_th))
                            rows.append(cells)
            elif tag == "tr":
                cells, all_th = self._table_row(part)
                if cells:
                    header = header or (not rows and all_th)
                    rows.append(cells)
        if not any(plain(cell).strip() for row in rows for cell in row):
            return
        width = max(len(row) for row in rows)
        if width == 1:  # a one-column table lays out paragraphs
            self.blocks.extend(
                Block("paragraph", inline=row[0]) for row in rows if plain(row[0]).strip()
            )
            return
        rows = [row + [""] * (width - len(row)) for row in rows]
        self.blocks.append(Block("table", inline=caption, rows=rows, header=header))

    def _table_row(self, row: LexborNode) -> tuple[list[str], bool]:
        cells: list[str] = []
        all_th = True
        for cell in row.iter(include_text=False):
            tag = cell.tag or ""
            if tag not in ("td", "th") or self._skipped(cell, tag):
                continue
            all_th = all_th and tag == "th"
            text = _tidy(self._inline_safe(cell)).replace("\n", " ")
            span = int_attr(cell.attributes.get("colspan")) or 1
            cells.extend([text] + [""] * (min(span, 50) - 1))
        return cells, all_th and bool(cells)

    def _quote(self, node: LexborNode) -> None:
        outer = self.blocks
        self.blocks = []
        try:
            self._walk(node)
            self._flush()
            children = self.blocks
        finally:
            self.blocks = outer
        if children:
            self.blocks.append(Block("quote", children=children))

    def _media_block(self, node: LexborNode) -> None:
        attrs = node.attributes
        src = attrs.get("src")
        if not src:
            source = node.css_first("source[src]")
            src = source.attributes.get("src") if source is not None else None
        if not src:
            return
        kind: Literal["video", "audio"] = "video" if node.tag == "video" else "audio"
        index = self._add_media(
            MediaItem(
                kind=kind,
                url=resolve_url(self.base_url, src),
                alt=collapse(attrs.get("title") or attrs.get("aria-label") or "").strip(),
                width=int_attr(attrs.get("width")),
                height=int_attr(attrs.get("height")),
            )
        )
        self.blocks.append(Block(kind, media=index))

    def _rule(self, node: LexborNode) -> None:
        pass  # a thematic break separates paragraphs; the flush already did


_BLOCK_HANDLERS = {
    **{f"h{level}": BlockReader._heading for level in range(1, 7)},
    "p": BlockReader._paragraph,
    "pre": BlockReader._code,
    "ul": BlockReader._list,
    "ol": BlockReader._list,
    "menu": BlockReader._list,
    "table": BlockReader._table,
    "blockquote": BlockReader._quote,
    "video": BlockReader._media_block,
    "audio": BlockReader._media_block,
    "hr": BlockReader._rule,
    "form": BlockReader._form,
}


def _block_inline(block: Block) -> str:
    if block.kind == "image":
        return f"{IMAGE_OPEN}{block.media}{IMAGE_CLOSE}"
    if block.kind == "code":
        return wrap(CODE, collapse(block.text))
    if block.kind == "list":
        return " ".join(item.inline for item in block.items)
    if block.kind == "table":
        return " ".join(" ".join(row) for row in block.rows)
    if block.kind == "quote":
        return " ".join(_block_inline(child) for child in block.children)
    return block.inline


def _tidy(inline: str) -> str:
    """Spaces around line breaks and runs of spaces removed, ends stripped."""
    inline = re.sub(r" {2,}", " ", inline)
    inline = re.sub(r" *\n *", "\n", inline)
    return re.sub(r"\n{2,}", "\n", inline).strip()
