"""The extraction pipeline of :func:`cdpkit.browse`: a document to the content an agent needs.

Stages, in order, each in its own module:

1. selectors: ``options.exclude_selectors`` are removed, then ``options.selectors`` (a
   union, in document order) choose the subtrees to read (here);
2. structure: HTML to blocks, links and media (:mod:`._blocks`), metadata, forms and the
   JavaScript signals (:mod:`._document`);
3. main content, when ``options.readability`` (:mod:`._main_content`): the article alone,
   without the title line nor the heading that says the title (the title is in
   :attr:`Extraction.title`);
4. keywords (no block matching is empty content and a note, not an error), then the
   ``query`` ranking (:mod:`._rank`, BM25; with the ``semantic`` extra also
   all-MiniLM-L6-v2 embeddings, :mod:`._semantic`);
5. format (:mod:`._formats`, whose docstring shows the JSON shape);
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
from collections.abc import Iterable, Sequence
from dataclasses import replace
from html import escape as html_escape
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from ._blocks import Block, BlockReader, link_headings, plain, renumber
from ._budget import Part, cut_text, describe_cuts, marker, plan, tokens
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
from ._rank import bm25_scores, keyword_matcher, matches
from ._result import BrowseOptions, Extraction, Form, Link, MediaItem, Metadata
from ._semantic import semantic_scores

__all__ = ["extract_html", "extract_text"]

_INVISIBLE = ["script", "style", "template", "noscript"]
_SPACES = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LONG_PARAGRAPH = 1500  # characters: longer text paragraphs (PDF pages) are split at lines
_SEMANTIC_MATCH = 0.25  # cosine from which a block is about the query (all-MiniLM-L6-v2)
_SEMANTIC_BLOCKS = 24  # blocks the embeddings re-rank, at most (each costs ~15 ms)
_SEMANTIC_HEADINGS = 100  # headings the embeddings read (a few words each)
_LINK_MARK = re.compile(r"\x01(\d+)\x02")
# MathJax's output for a formula: v2's frames (MathJax, MathJax_Display, MathJax_SVG,
# MJXc-display...), v3's <mjx-container>.
_MATHJAX_OUTPUT = re.compile(r"^mjx-|\b(?:MathJax|MJX)", re.IGNORECASE)
_TEX_MARK = "data-cdpkit-tex"
_TITLE_WORD = re.compile(r"\w+")
# An alt text that only says there is an image, or is the image's file name.
_UNTOLD_ALT = re.compile(
    r"^\s*(?:(?:an?|the)\s+)?(?:image|img|picture|photo|photograph|graphic)?[\s#._-]*\d*\s*$"
    r"|^\s*\S+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)\s*$",
    re.IGNORECASE,
)
_TITLE_LIKENESS = 0.75  # Readability's: a heading this much made of the title's words says it


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
        source = html if not (options.selectors or options.exclude_selectors) else _fragment(roots)
        main = main_content_html(source)
        if main:
            main_tree = LexborHTMLParser(main)
            reader = BlockReader(base, skip_chrome=False, data_images=keep_data_images)
            blocks = reader.read([main_tree.body] if main_tree.body is not None else [])
            page_reader = BlockReader(base, skip_chrome=True, data_images=keep_data_images)
            page_blocks = page_reader.read(roots)
            filled = fill_main_content(
                blocks, reader.media, page_blocks, page_reader.media, _figures(roots)
            )
            if filled is not None:
                blocks = filled if keep_title_heading else _without_title_heading(filled, title)
                links, media = renumber(blocks, page_reader.links, page_reader.media)
                link_headings(blocks)
            else:
                restore_details(blocks, reader.media, roots, base)
                links, media = reader.links, list(reader.media)
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


def _without_title_heading(blocks: list[Block], title: str) -> list[Block]:
    """``blocks`` without the first level-1 or level-2 heading that says the page's
    ``title`` (:func:`says_title`), which the result carries on its own."""
    for index, block in enumerate(blocks):
        if block.kind == "heading" and block.level <= 2 and says_title(title, block.text):
            return blocks[:index] + blocks[index + 1 :]
    return blocks


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
        if not tex or (drawn is not None and _MATHJAX_OUTPUT.search(
            f"{drawn.tag} {drawn.attributes.get('class') or ''}"
        )):
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
        order = _keyword_filter(blocks, options)
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
        order, ranks = _rank(blocks, order, options.query, semantic=options.semantic)
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
        _described(media, title),
    )
    if options.format == "links":
        shown = _links_in(blocks, order) if options.keywords else range(len(links))
        content, cut = _links_content(links, shown, options.max_tokens)
    elif options.format == "json":
        content, cut = _json_content(
            title, blocks, order, ranks, renderer, extraction, options.max_tokens, notes
        )
    else:
        content, cut = _text_content(
            title if title_on_top is None else title_on_top, blocks, order, ranks, renderer, options, title_on_top=title_on_top is not None
        )
    if cut:
        notes = [*notes, *cut]
    return replace(extraction, content=content, truncated=bool(notes), truncation=notes)


def _described(media: Sequence[MediaItem], title: str) -> list[MediaItem]:
    """``media`` as the content shows it: an alt text that says nothing of its image is
    left out (``![](url)``), as Readability's text has none; ``Extraction.media`` keeps it.

    It says nothing when it only says there is an image ("Image 2", "An image", "photo"),
    is the image's file name ("web18-1160x768.jpg", a CMS's default), or repeats the
    page's ``title`` (:func:`says_title`: the same alt on every picture of an article).
    """
    return [
        replace(item, alt="")
        if item.alt and (_UNTOLD_ALT.match(item.alt) or says_title(title, item.alt))
        else item
        for item in media
    ]


def _keyword_filter(blocks: Sequence[Block], options: BrowseOptions) -> list[int]:
    """Indexes of the blocks matching the keywords, with the headings they sit under."""
    pattern = keyword_matcher(options.keywords, options.keyword_mode)
    if pattern is None:
        return list(range(len(blocks)))
    count = sum(1 for k in options.keywords if k.split())
    keep: set[int] = set()
    for index, block in enumerate(blocks):
        if matches(pattern, block.text, count, options.keyword_mode):
            keep.add(index)
            keep.update(block.headings)
    return sorted(keep)


def _rank(
    blocks: Sequence[Block], order: list[int], query: str, *, semantic: bool | None
) -> tuple[list[int], dict[int, int]]:
    """``order`` by relevance to ``query`` (best first, each block after the headings it
    sits under): BM25, or with the ``semantic`` extra installed (and ``semantic`` not
    ``False``) BM25 normalized to 0..1 averaged with the embeddings' cosine; unchanged when
    no block relates to the query (no shared word, and no cosine of
    :data:`_SEMANTIC_MATCH` or more)."""
    body = [i for i in order if blocks[i].kind != "heading"]
    documents = [
        " ".join([*(blocks[h].text for h in blocks[i].headings), blocks[i].text]) for i in body
    ]
    scores = bm25_scores(documents, query)
    if semantic is not False:
        similarities = _semantic_similarities(blocks, order, body, scores, query)
        if similarities is not None:
            if not any(scores) and max(similarities, default=0.0) < _SEMANTIC_MATCH:
                return order, {}
            lexical = bm25_scores(documents, query, normalized=True)
            scores = [
                0.5 * score + 0.5 * max(cosine, 0.0)
                for score, cosine in zip(lexical, similarities, strict=True)
            ]
    if not any(scores):
        return order, {}
    ranked = [
        i for _, i in sorted(zip(scores, body, strict=True), key=lambda pair: (-pair[0], pair[1]))
    ]
    ranks = {index: rank for rank, index in enumerate(ranked)}
    in_order = set(order)
    result: list[int] = []
    placed: set[int] = set()
    for index in ranked:
        for heading in blocks[index].headings:
            if heading not in placed and heading in in_order:
                placed.add(heading)
                result.append(heading)
        result.append(index)
        placed.add(index)
    result.extend(i for i in order if i not in placed)  # headings with no block under them
    return result, ranks


def _semantic_similarities(
    blocks: Sequence[Block],
    order: Sequence[int],
    body: Sequence[int],
    scores: Sequence[float],
    query: str,
) -> list[float] | None:
    """Each body block's cosine with ``query`` (``None`` without the ``semantic`` extra).

    The model's cost stays bounded on any page: it reads every heading (a few words each),
    then re-ranks :data:`_SEMANTIC_BLOCKS` blocks: the BM25 leaders and the first blocks
    under the headings closest to the query (so "what do people eat" reaches the section
    "Cuisine" with no word in common). Other blocks get the cosine of their heading, a
    little lowered.
    """
    headings = [i for i in order if blocks[i].kind == "heading"][:_SEMANTIC_HEADINGS]
    heading_cosines = semantic_scores([blocks[h].text for h in headings], query)
    if heading_cosines is None:
        return None
    by_heading = dict(zip(headings, heading_cosines, strict=True))
    close = [
        h for h, c in sorted(by_heading.items(), key=lambda pair: -pair[1]) if c >= _SEMANTIC_MATCH
    ][:3]
    under_close = [
        p
        for h in close
        for p in [i for i, b in enumerate(body) if blocks[b].headings[-1:] == (h,)][:3]
    ]
    leaders = sorted(range(len(body)), key=lambda i: (-scores[i], i))
    chosen = list(dict.fromkeys([*under_close, *leaders]))[:_SEMANTIC_BLOCKS]
    # The block's own words first: the model reads only its first tokens.
    passages = [
        " ".join([blocks[body[i]].text, *(blocks[h].text for h in blocks[body[i]].headings)])
        for i in chosen
    ]
    cosines = semantic_scores(passages, query) or [0.0] * len(chosen)
    result = [
        0.8 * max((by_heading.get(h, 0.0) for h in blocks[b].headings), default=0.0) for b in body
    ]
    for position, cosine in zip(chosen, cosines, strict=True):
        result[position] = max(cosine, result[position])
    return result


def _parts(
    blocks: Sequence[Block], order: Sequence[int], ranks: dict[int, int], texts: Sequence[str]
) -> list[Part]:
    """The blocks ``order`` lists (rendered as ``texts``) as parts for the budget."""
    position_of = {index: position for position, index in enumerate(order)}
    parts = []
    for position, (index, text) in enumerate(zip(order, texts, strict=True)):
        block = blocks[index]
        section = plain(blocks[block.headings[-1]].inline) if block.headings else ""
        chain = tuple(position_of[h] for h in block.headings if h in position_of)
        if block.kind == "heading":
            parts.append(Part(text, heading=True, level=block.level, section=section, chain=chain))
        else:
            rank = ranks.get(index, len(ranks) + position)
            parts.append(Part(text, rank=rank, section=section, chain=chain))
    return parts


def _text_content(
    title: str,
    blocks: Sequence[Block],
    order: Sequence[int],
    ranks: dict[int, int],
    renderer: Renderer,
    options: BrowseOptions,
    *,
    title_on_top: bool = False,
) -> tuple[str, list[str]]:
    """Markdown or plain text: the title line, then the blocks, within the budget."""
    rendered = [(index, renderer.block(blocks[index])) for index in order]
    rendered = [(index, text) for index, text in rendered if text]
    title_line = ""
    # Main content (readability) is the article alone, as Readability gives it: the title
    # stays in Extraction.title. A page whose <h1> says its title does not get it twice.
    if title and (title_on_top or not options.readability) and not _has_title_heading(title, blocks, order):
        title_line = f"# {title}" if renderer.fmt == "markdown" else title
    elif rendered and blocks[rendered[0][0]].kind == "heading" and options.max_tokens is not None:
        # The heading the content starts with is its title: first kept, cut when too long.
        title_line = rendered.pop(0)[1]
    parts = _parts(blocks, [i for i, _ in rendered], ranks, [t for _, t in rendered])
    return _fit_text(title_line, parts, options.max_tokens, ranked=bool(ranks))


def _has_title_heading(title: str, blocks: Sequence[Block], order: Sequence[int]) -> bool:
    """Whether the first heading among the shown blocks, or a level-1 heading, says the
    title (:func:`says_title`)."""
    first = True
    for index in order:
        block = blocks[index]
        if block.kind == "heading" and (first or block.level == 1):
            if says_title(title, block.text):
                return True
            first = False
    return False


# What sites put between a page's own title and their name: "Page - Site", "Site | Page".
_TITLE_SEPARATOR = re.compile(r"\s+[-|\u2013\u2014\u00b7\u2022/\u00bb:]{1,2}\s+")


def says_title(title: str, heading: str) -> bool:
    """Whether ``heading`` says the same as the page's ``title``: the rule both for the
    title line on top of markdown (not shown above a heading that says it) and for the
    main content (``readability``), which leaves that heading to the title.

    The rule: the heading says the whole title, or the title with a site name taken off
    one end, that is what precedes or follows a separator between spaces (a hyphen, en or
    em dash, ``|``, ``/``, ``::``, a middle dot, bullet or ``»``): "Install - Docs" and
    "Docs | Install" are said by a heading "Install". Two texts say the same when each is
    more than 75% made of the other's words (Mozilla Readability's likeness of a heading
    to the title, measured both ways), case and punctuation aside. A heading that only
    holds the title among more words ("Apple pie" for a title "Apple"), or only part of
    it ("Python" for "Python: a guide"), does not say it.
    """
    heading_words = _TITLE_WORD.findall(heading.casefold())
    if not heading_words:
        return False
    parts = [title]
    for separator in _TITLE_SEPARATOR.finditer(title):
        parts += [title[: separator.start()], title[separator.end() :]]
    for part in parts:
        part_words = _TITLE_WORD.findall(part.casefold())
        alike = min(_likeness(heading_words, part_words), _likeness(part_words, heading_words))
        if alike > _TITLE_LIKENESS:
            return True
    return False


def _likeness(words: Sequence[str], others: Sequence[str]) -> float:
    """How much of ``words`` (by characters) is made of ``others``' words: Readability's
    ``textSimilarity``."""
    if not words:
        return 0.0
    known = set(others)
    apart = " ".join(word for word in words if word not in known)
    return 1 - len(apart) / len(" ".join(words))


def _fit_text(
    title_line: str, parts: list[Part], max_tokens: int | None, *, ranked: bool
) -> tuple[str, list[str]]:
    pieces = [title_line] if title_line else []
    full = "\n\n".join([*pieces, *(part.text for part in parts)])
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    notes: list[str] = []
    # Room for the marker at its longest for these counts (longer still when a block is
    # cut short: then the plan is made again with that room).
    worst_marker = marker(len(parts), tokens(full), max_tokens)
    available = limit - len(worst_marker) - 2
    if not title_line and parts and available < 40:
        # Room for the marker and barely more: the beginning of the first block instead.
        first = min(
            range(len(parts)), key=lambda i: (parts[i].rank, i) if not parts[i].heading else (-1, i)
        )
        kept = cut_text(parts[first].text.replace("\n", " "), limit)
        notes.append(
            f"cut to the first {len(kept)} characters: max_tokens={max_tokens} leaves no room for more"
        )
        return kept, notes
    if len(title_line) > max(available, 0):
        # Not even the title fits with the marker: the title alone, cut to the budget.
        cut_title = cut_text(title_line, limit)
        if len(cut_title) < len(title_line):
            notes.append(
                f"cut the title to {len(cut_title)} characters: max_tokens={max_tokens} is smaller than it"
            )
        else:
            notes.append(f"kept only the title: max_tokens={max_tokens} leaves no room for more")
        if parts:
            notes.extend(describe_cuts(parts, [False] * len(parts)))
        return cut_title, notes
    remaining = available - (len(title_line) + 2 if title_line else 0)
    chosen = plan(parts, remaining, outline=not ranked, best_first=ranked)
    if chosen.partial >= 0:
        longer = len(marker(len(parts), tokens(full), max_tokens, shortened=True)) - len(
            worst_marker
        )
        chosen = plan(parts, remaining - longer, outline=not ranked, best_first=ranked)
    body = []
    for position, (part, stays) in enumerate(zip(parts, chosen.kept, strict=True)):
        if stays:
            body.append(part.text)
        elif position == chosen.partial:
            body.append(chosen.partial_text)
    cut = [not stays and i != chosen.partial for i, stays in enumerate(chosen.kept)]
    cut_tokens = sum(tokens(p.text) for p, c in zip(parts, cut, strict=True) if c)
    if chosen.partial >= 0:
        cut_tokens += tokens(parts[chosen.partial].text) - tokens(chosen.partial_text)
        where = parts[chosen.partial].section
        notes.append(
            f"cut the block under {where!r} short to fit"
            if where
            else "cut the first block short to fit"
        )
    notes.extend(describe_cuts(parts, [not c for c in cut]))
    content = "\n\n".join(
        [*pieces, *body, marker(sum(cut), cut_tokens, max_tokens, shortened=chosen.partial >= 0)]
    )
    if len(content) > limit:  # never: the marker's room was kept; the budget is the rule
        content = cut_text(content, limit)
    return content, notes


def _links_in(blocks: Sequence[Block], order: Sequence[int]) -> list[int]:
    """Indexes of the links the blocks of ``order`` hold, in page order, each once."""
    found: dict[int, None] = {}

    def visit(block: Block) -> None:
        texts = [block.inline, *(cell for row in block.rows for cell in row)]
        pending = list(block.items)
        while pending:
            item = pending.pop(0)
            texts.append(item.inline)
            pending.extend(nested for child in item.children for nested in child.items)
        for text in texts:
            for match in _LINK_MARK.finditer(text):
                found.setdefault(int(match.group(1)), None)
        for child in block.children:
            visit(child)

    for index in sorted(order):
        visit(blocks[index])
    return list(found)


def _links_content(
    links: Sequence[Link], shown: Iterable[int], max_tokens: int | None
) -> tuple[str, list[str]]:
    """One ``[n] text <url>`` line per link of ``shown`` (``n`` its number on the page),
    the last ones cut to fit the budget."""
    lines = [f"[{i + 1}] {links[i].text} <{links[i].url}>" for i in shown if i < len(links)]
    full = "\n".join(lines)
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    room = limit - len(marker(len(lines), tokens(full), max_tokens)) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    cut = len(lines) - len(kept)
    cut_tokens = tokens(full) - tokens(used)
    content = "\n".join([*kept, marker(cut, cut_tokens, max_tokens)])
    if len(content) > limit:
        content = cut_text(content, limit)
    return content, [f"cut the last {cut} of {len(lines)} links ({cut_tokens:,} tokens)"]


def _json_content(
    title: str,
    blocks: Sequence[Block],
    order: Sequence[int],
    ranks: dict[int, int],
    renderer: Renderer,
    extraction: Extraction,
    max_tokens: int | None,
    earlier: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The JSON object of :mod:`._formats`, within the budget: blocks are cut by priority,
    then (when still too long) the links, forms and media lists and the metadata. Its
    ``"truncation"`` holds the ``earlier`` notes and the cuts; the cuts are returned."""
    block_data = [renderer.block_json(blocks[i]) for i in order]
    texts = [_dump(data) for data in block_data]
    document: dict[str, Any] = {
        "title": title,
        "headings": [],
        "blocks": [],
        "links": [
            {"number": n, "text": link.text, "url": link.url}
            for n, link in enumerate(extraction.links, 1)
        ],
        "forms": [_form_json(form) for form in extraction.forms],
        "media": [_media_json(item) for item in extraction.media],
        "metadata": _metadata_json(extraction.metadata),
    }

    def render(kept: Sequence[bool], truncation: list[str]) -> str:
        chosen = [data for data, k in zip(block_data, kept, strict=True) if k]
        document["blocks"] = chosen
        document["headings"] = [
            {"level": d["level"], "text": d["text"]} for d in chosen if d["type"] == "heading"
        ]
        if earlier or truncation:
            document["truncation"] = [*earlier, *truncation]
        else:
            document.pop("truncation", None)
        return _dump(document)

    full = render([True] * len(block_data), [])
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    notes: list[str] = []
    placeholder = ["x" * 160]  # room for the truncation notes, filled in once known
    empty = render([False] * len(block_data), placeholder)
    for key, what in (
        ("links", "links list"),
        ("media", "media list"),
        ("forms", "forms list"),
        ("metadata", "metadata"),
    ):
        if len(empty) <= limit // 2:
            break
        if document[key]:
            document[key] = {} if key == "metadata" else []
            notes.append(f"the {what} left out of the JSON content (result.{key} has it)")
            empty = render([False] * len(block_data), placeholder)
    # A heading costs twice: in "blocks" and in "headings".
    costs = [
        text + ("x" * (len(text) + 2) if data["type"] == "heading" else "")
        for text, data in zip(texts, block_data, strict=True)
    ]
    parts = _parts(blocks, order, ranks, costs)
    if len(empty) < limit:
        kept = plan(parts, limit - len(empty), outline=not ranks).kept
    else:
        kept = [False] * len(parts)
    priority = sorted(
        range(len(parts)),
        key=lambda i: (0, parts[i].level, i) if parts[i].heading else (1, parts[i].rank, i),
    )
    while True:
        cuts = [*notes, *(describe_cuts(parts, kept) if not all(kept) else [])]
        content = render(kept, cuts)
        if len(content) <= limit or not any(kept):
            break
        kept[next(i for i in reversed(priority) if kept[i])] = False
    if len(content) > limit:
        # Not even an empty document fits: the title alone, cut to the budget.
        minimal: dict[str, Any] = {"title": "", "truncation": ["cut to the title"]}
        room = limit - len(_dump(minimal))
        minimal["title"] = cut_text(title, room) if room > 0 else ""
        content = _dump(minimal) if room > 0 else "{}"
        cuts = [
            *cuts,
            f"cut the title to {len(minimal['title'])} characters: max_tokens={max_tokens} is smaller than it",
        ]
    return content, cuts


def _dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def _form_json(form: Form) -> dict[str, Any]:
    return {
        "action": form.action,
        "method": form.method,
        "name": form.name,
        "fields": [
            {
                "name": f.name,
                "type": f.type,
                "value": f.value,
                "label": f.label,
                "required": f.required,
                "options": list(f.options),
            }
            for f in form.fields
        ],
    }


def _media_json(item: MediaItem) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "url": item.url,
        "alt": item.alt,
        "width": item.width,
        "height": item.height,
    }


def _metadata_json(metadata: Metadata) -> dict[str, str]:
    return {
        "description": metadata.description,
        "author": metadata.author,
        "published": metadata.published,
        "language": metadata.language,
        "canonical": metadata.canonical,
        "site_name": metadata.site_name,
    }
