"""The extraction pipeline of :func:`cdpkit.browse`: a document to the content an agent needs.

Stages, in order, each in its own module:

1. selectors: ``options.exclude_selectors`` are removed, then ``options.selectors`` (a
   union, in document order) choose the subtrees to read (here);
2. structure: HTML to blocks, links and media (:mod:`._blocks`, :mod:`._block`), metadata, forms and the
   JavaScript signals (:mod:`._document`);
3. main content, when ``options.readability`` (:mod:`._main_content`): the article alone,
   without the title line nor the heading that says the title (the title is in
   :attr:`Extraction.title`);
4. keywords (no block matching is empty content and a note, not an error), then the
   ``query`` ranking (:mod:`._order`, :mod:`._rank`, BM25; with the ``semantic`` extra also
   all-MiniLM-L6-v2 embeddings, :mod:`._semantic`);
5. format (:mod:`._formats`, whose docstring shows the JSON shape; :mod:`._content`);
6. token budget (:mod:`._budget`).

Both entry points are pure, synchronous and thread-safe (no shared state but the
semantic model, loaded once under a lock): the engine runs them in a worker thread.
Speed (``python -m benchmarks.quality``): a 150-300 KB page takes about 10 ms without
readability; ``readability=True`` adds trafilatura's pass (about 25 ms more, plus ~150 ms
to import it the first time); a query with the semantic extra adds the model (about 0.3 s
to load once, then about 0.35 s for the 24 blocks it re-ranks).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from html import escape as html_escape

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from ._block import Block, link_headings, plain, renumber
from ._blocks import BlockReader
from ._boilerplate import article_body, remove_boilerplate
from ._content import json_content, links_content, links_in, text_content
from ._continuation import join_split_article
from ._document import (
    base_url,
    find_forms,
    javascript_signals,
    meta_table,
    og_image,
    read_metadata,
    read_title,
)
from ._formats import Renderer
from ._main_content import fill_main_content, main_content_html, restore_details
from ._order import keyword_filter, rank_blocks
from ._title import described, without_title_heading
from ._types import BrowseOptions, Extraction, Form, Link, MediaItem, Metadata

__all__ = ["extract_html", "extract_text"]

_INVISIBLE = ["script", "style", "template", "noscript"]
_SPACES = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LONG_PARAGRAPH = 1500  # characters: longer text paragraphs (PDF pages) are split at lines
# MathJax's output for a formula: v2's frames (MathJax, MathJax_Display, MathJax_SVG,
# MJXc-display...), v3's <mjx-container>.
_MATHJAX_OUTPUT = re.compile(r"^mjx-|\b(?:MathJax|MJX)", re.IGNORECASE)
_TEX_MARK = "data-cdpkit-tex"


def extract_html(
    html: str,
    url: str,
    options: BrowseOptions,
    *,
    keep_chrome: bool = False,
    keep_data_images: bool = False,
    title_on_top: str | None = None,
    keep_title_heading: bool = False,
) -> Extraction:
    """Extract ``html`` (fetched from ``url``) as ``options`` ask.

    Args:
        html: The document.
        url: Where it came from: relative URLs resolve against it (or its ``<base href>``).
        options: The browse options (selectors, readability, keywords, query, format,
            link style, token budget).
        keep_chrome: Read page chrome too (navigation, footers, asides, the site header,
            cookie banners), when ``options.readability`` is off.
        keep_data_images: Keep images whose source is a ``data:`` URL.
        title_on_top: A title (the document's title now) to put on top of markdown or
            text content, with ``readability`` too (which otherwise leaves the title to
            ``Extraction.title``), unless a heading says it (:func:`says_title`).
        keep_title_heading: Keep the heading that says the title in the main content
            (left out by default when ``options.readability``: the title is apart).

    Returns:
        The title, content in ``options.format`` within ``options.max_tokens``, links
        (numbered when ``link_style="numbered"``), forms, media, metadata, what was cut,
        the count of visible characters and whether the page seems to need JavaScript.

    Raises:
        ValueError: A selector is not valid CSS (the message names it).
    """
    tree = LexborHTMLParser(html)
    base = base_url(tree, url)
    meta = meta_table(tree)
    title = read_title(tree, meta)
    metadata = read_metadata(tree, meta, base)
    signals = javascript_signals(tree, len(html))
    page_image = og_image(meta, base)
    _show_tex(tree)
    tree.strip_tags(_INVISIBLE)
    body = tree.body or tree.root
    text_chars = len(_SPACES.sub(" ", body.text(separator=" ")).strip()) if body is not None else 0

    for selector in options.exclude_selectors:
        for node in _css(tree, selector, "exclude_selectors"):
            node.decompose()
    if options.selectors:
        roots = _select(tree, options.selectors)
    else:
        roots = [body] if body is not None else []
    forms = find_forms(tree, roots if options.selectors else None, base, url)

    blocks: list[Block] | None = None
    links: list[Link] = []
    media: list[MediaItem] = []
    if options.readability:
        found = _main_blocks(
            html,
            tree,
            roots,
            base,
            title if not keep_title_heading else "",
            metadata.authors,
            whole=not (options.selectors or options.exclude_selectors),
            keep_data_images=keep_data_images,
        )
        if found is not None:
            blocks, links, media = found
    if blocks is None:
        reader = BlockReader(base, skip_chrome=not keep_chrome, data_images=keep_data_images)
        blocks = reader.read(roots)
        links, media = reader.links, list(reader.media)
    if page_image and all(item.url != page_image for item in media):
        media.append(MediaItem(kind="image", url=page_image, alt=metadata.description[:200]))
    if not title:
        title = next((plain(b.inline) for b in blocks if b.kind == "heading"), "")
    return _finish(
        title,
        blocks,
        links,
        media,
        forms,
        metadata,
        options,
        text_chars=text_chars,
        javascript_needed=signals.reason(text_chars),
        title_on_top=title_on_top,
        nothing_selected=(
            f"no element matched the selectors ({', '.join(map(repr, options.selectors))}): content left empty"
            if options.selectors and not roots
            else ""
        ),
    )


def _main_blocks(
    html: str,
    tree: LexborHTMLParser,
    roots: list[LexborNode],
    base: str,
    title: str,
    authors: Sequence[str],
    *,
    whole: bool,
    keep_data_images: bool,
) -> tuple[list[Block], list[Link], list[MediaItem]] | None:
    """The main content's blocks, links and media (``None`` when none was found).

    Named boilerplate is removed first (:mod:`._boilerplate`), from the HTML trafilatura
    reads and from the page whose blocks fill the article's gaps; in the HTML trafilatura
    reads, an article split into containers of one class is joined
    (:mod:`._continuation`: trafilatura keeps one container); when the page marks its
    article's body (``itemprop="articleBody"``), both look inside it alone. The heading
    that says ``title`` is left out (none when ``title`` is empty); ``authors`` (the
    metadata's) tell a byline above the article's first sentence (:mod:`._precision`).
    """
    if whole:
        cleaned = LexborHTMLParser(html)
        remove_boilerplate(cleaned)
        join_split_article(cleaned)
        marked = article_body(cleaned)
        source = _fragment([marked]) if marked is not None else (cleaned.html or html)
        remove_boilerplate(tree)
        marked = article_body(tree)
        roots = [marked] if marked is not None else roots
    else:
        source = _fragment(roots)
    main = main_content_html(source)
    if not main:
        return None
    main_tree = LexborHTMLParser(main)
    reader = BlockReader(base, skip_chrome=False, data_images=keep_data_images)
    blocks = reader.read([main_tree.body] if main_tree.body is not None else [])
    page_reader = BlockReader(base, skip_chrome=True, data_images=keep_data_images)
    page_blocks = page_reader.read(roots)
    filled = fill_main_content(
        blocks, reader.media, page_blocks, page_reader.media, _figures(roots), authors
    )
    if filled is None:
        restore_details(blocks, reader.media, roots, base)
        return blocks, reader.links, list(reader.media)
    blocks = without_title_heading(filled, title) if title else filled
    links, media = renumber(blocks, page_reader.links, page_reader.media)
    link_headings(blocks)
    return blocks, links, media


def extract_text(
    text: str, url: str, options: BrowseOptions, *, title: str = "", mime_type: str = "text/plain"
) -> Extraction:
    """Extract plain text, a PDF's text or JSON as ``options`` ask.

    Paragraphs (split on blank lines; long ones at line ends) become blocks, then the
    keyword, query and budget steps run as for HTML. JSON (``mime_type`` ending in
    ``json``) passes through as one block: pretty-printed in markdown (with no fence
    around it, so the content parses as JSON), as given in text; the ``json`` format
    carries it as a code block.

    Args:
        text: The document's text.
        url: Where it came from (unused but for symmetry and messages).
        options: The browse options (selectors and readability do not apply to text).
        title: The title, when the caller knows one (a PDF's metadata).
        mime_type: The resource's type.
    """
    del url  # text has no relative links to resolve
    # Lone surrogates (bytes a lenient decode kept) cannot be written out as UTF-8.
    text = text.encode("utf-8", "replace").decode("utf-8")
    blocks: list[Block] = []
    if mime_type.split(";")[0].strip().endswith("json"):
        shown = text.strip()
        if options.format == "markdown":
            with contextlib.suppress(ValueError):  # not valid JSON after all: shown as sent
                shown = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        if shown:
            blocks.append(Block("code", text=shown, language="json"))
        if options.format == "markdown":
            # JSON passes through: the content is the (pretty-printed) JSON itself, not a
            # fenced block around it, so it can be parsed as it comes.
            options = dataclasses.replace(options, format="text")
    elif mime_type.startswith("application/pdf"):
        for paragraph in _text_paragraphs(text):
            blocks.append(Block("paragraph", inline=paragraph))
    else:
        # Plain text (and CSV...) passes through with its lines: one block per paragraph,
        # so keywords, a query and the budget still pick whole paragraphs.
        for chunk in _text_chunks(text):
            blocks.append(Block("code", text=chunk))
        if options.format == "markdown":
            options = dataclasses.replace(options, format="text")
    for block in blocks:
        block.finish()
    # JSON and plain text pass through: no title line above them (a PDF keeps its title).
    passthrough = options.format == "text" and not mime_type.startswith("application/pdf")
    extraction = _finish(
        "" if passthrough else title.strip(),
        blocks,
        [],
        [],
        [],
        Metadata(),
        options,
        text_chars=len(_SPACES.sub(" ", text).strip()),
        javascript_needed=None,
    )
    # Passed-through content has no title line; the result still names one.
    return dataclasses.replace(extraction, title=title.strip()) if passthrough else extraction


# -- selection -----------------------------------------------------------------------------


def _css(tree: LexborHTMLParser, selector: str, option: str) -> list[LexborNode]:
    try:
        return list(tree.css(selector))
    except (SelectolaxError, ValueError) as error:
        raise ValueError(f"{option}: {selector!r} is not a valid CSS selector ({error})") from None


def _select(tree: LexborHTMLParser, selectors: Sequence[str]) -> list[LexborNode]:
    """The subtrees ``selectors`` match (a union), in document order; a match inside
    another match is read once, as part of the outer one."""
    found: dict[int, LexborNode] = {}
    for selector in selectors:
        for node in _css(tree, selector, "selectors"):
            found.setdefault(node.mem_id, node)
    if not found:
        return []
    outermost = []
    for mem_id, node in found.items():
        parent = node.parent
        while parent is not None and parent.mem_id not in found:
            parent = parent.parent
        if parent is None:
            outermost.append(mem_id)
    if len(outermost) == 1:
        return [found[outermost[0]]]
    position = (
        {node.mem_id: index for index, node in enumerate(tree.root.traverse())} if tree.root else {}
    )
    return sorted((found[m] for m in outermost), key=lambda node: position.get(node.mem_id, 0))


def _show_tex(tree: LexborHTMLParser) -> None:
    """Formulas left as TeX in ``<script type="math/tex">`` (MathJax's input, which a page
    that no script ran still holds: Markdown blogs write them so) shown as ``$TeX$``, or
    ``$$TeX$$`` on a line of its own for a displayed one. One MathJax drew (its output
    right before the script, read with its MathML) is not shown twice."""
    for script in tree.css('script[type^="math/tex"]'):
        tex = (script.text(deep=True) or "").strip()
        drawn = script.prev
        while drawn is not None and drawn.tag == "-text" and not (drawn.text_content or "").strip():
            drawn = drawn.prev
        if not tex or (
            drawn is not None
            and _MATHJAX_OUTPUT.search(f"{drawn.tag} {drawn.attributes.get('class') or ''}")
        ):
            continue
        display = "mode=display" in (script.attributes.get("type") or "").replace(" ", "")
        element, delimiter = ("div", "$$") if display else ("span", "$")
        shown = LexborHTMLParser(
            f"<{element} {_TEX_MARK}>{delimiter}{html_escape(tex)}{delimiter}</{element}>"
        ).css_first(element)
        if shown is not None:
            script.replace_with(shown)


def _figures(roots: Sequence[LexborNode]) -> frozenset[str]:
    """The texts of the figure captions and formulas (MathML) in ``roots``, spaces left
    out: the article's own however short, wherever they stand in it."""
    figures = set()
    for root in roots:
        for node in root.css(f"figcaption, math, [{_TEX_MARK}]"):
            # Read as the page is (a formula's TeX annotation is not shown, nor kept here).
            shown = BlockReader("", skip_chrome=False).read([node])
            text = "".join(_SPACES.sub("", block.text) for block in shown)
            if text:
                figures.add(text)
    return frozenset(figures)


def _fragment(roots: Sequence[LexborNode]) -> str:
    return "<html><body>" + "".join(root.html or "" for root in roots) + "</body></html>"


def _text_chunks(text: str) -> list[str]:
    """Plain text cut at blank lines (and long paragraphs at line ends), lines kept."""
    chunks = []
    for chunk in _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n")):
        chunk = textwrap.dedent(chunk.strip("\n"))  # a common indent is not content
        if not chunk.strip():
            continue
        current: list[str] = []
        size = 0
        for line in chunk.split("\n"):
            current.append(line.rstrip())
            size += len(line) + 1
            if size >= _LONG_PARAGRAPH * 2:
                chunks.append("\n".join(current))
                current, size = [], 0
        if current:
            chunks.append("\n".join(current))
    return chunks


def _text_paragraphs(text: str) -> list[str]:
    paragraphs = []
    for chunk in _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n")):
        chunk = chunk.strip()
        if not chunk:
            continue
        if len(chunk) <= _LONG_PARAGRAPH:
            paragraphs.append(_SPACES.sub(" ", chunk))
            continue
        current: list[str] = []
        size = 0
        for line in chunk.split("\n"):
            current.append(line.strip())
            size += len(line)
            if size >= _LONG_PARAGRAPH * 2 // 3:
                paragraphs.append(_SPACES.sub(" ", " ".join(current)).strip())
                current, size = [], 0
        if current:
            paragraphs.append(_SPACES.sub(" ", " ".join(current)).strip())
    return [p for p in paragraphs if p]


# -- filters, ranking, format, budget ------------------------------------------------------


def _finish(
    title: str,
    blocks: list[Block],
    links: list[Link],
    media: list[MediaItem],
    forms: list[Form],
    metadata: Metadata,
    options: BrowseOptions,
    *,
    text_chars: int,
    javascript_needed: str | None,
    nothing_selected: str = "",
    title_on_top: str | None = None,
) -> Extraction:
    """Keywords, query, format and budget over the blocks; the :class:`Extraction`.
    ``nothing_selected`` says why no block could be shown (the content is then empty)."""
    if options.link_style == "numbered":
        links = [replace(link, number=index) for index, link in enumerate(links, 1)]
    notes: list[str] = [nothing_selected] if nothing_selected else []
    order = list(range(len(blocks)))
    if options.keywords and not notes:
        order = keyword_filter(blocks, options)
        if not order:
            quoted = ", ".join(repr(k) for k in options.keywords)
            mode = (
                "all of"
                if options.keyword_mode == "all" and len(options.keywords) > 1
                else "any of"
            )
            notes.append(f"no block matched the keywords ({mode} {quoted}): content left empty")
    ranks: dict[int, int] = {}
    if options.query and order:
        order, ranks = rank_blocks(blocks, order, options.query, semantic=options.semantic)
    extraction = Extraction(
        title=title,
        content="",
        links=links,
        forms=forms,
        media=media,
        metadata=metadata,
        truncated=bool(notes),
        truncation=notes,
        text_chars=text_chars,
        javascript_needed=javascript_needed,
    )
    if notes and options.format != "json":
        return extraction  # nothing selected, or no block matched the keywords
    renderer = Renderer(
        options.format if options.format != "a11y" else "markdown",
        options.link_style,
        links,
        described(media, title),
    )
    if options.format == "links":
        shown = links_in(blocks, order) if options.keywords else range(len(links))
        content, cut = links_content(links, shown, options.max_tokens)
    elif options.format == "json":
        content, cut = json_content(
            title, blocks, order, ranks, renderer, extraction, options.max_tokens, notes
        )
    else:
        content, cut = text_content(
            title if title_on_top is None else title_on_top,
            blocks,
            order,
            ranks,
            renderer,
            options,
            title_on_top=title_on_top is not None,
        )
    if cut:
        notes = [*notes, *cut]
    return replace(extraction, content=content, truncated=bool(notes), truncation=notes)
