"""Main content (``readability=True``): the article without menus, sidebars and comments.

trafilatura finds the main content of the HTML and gives it back as HTML (headings,
paragraphs, lists, tables, code, links and images kept); the block reader then reads that
the same way as a whole page, so every format and filter works on it unchanged. What
trafilatura's HTML loses is put back from the page itself (:func:`restore_details`): the
language of code blocks, whether a list is numbered, an image's best ``srcset`` candidate
and its size. Links are left relative for the reader to resolve against ``<base href>``
(trafilatura's own resolution ignores it).
"""

from __future__ import annotations

import itertools
import logging
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from selectolax.lexbor import LexborNode

from .._core.secrets import get_logger
from ._block import Block, link_density, plain, resolve_url
from ._boilerplate import SENTENCE_ENDS, photo_credit
from ._elements import code_language, image_item
from ._precision import drop_noise, word_runs
from ._types import MediaItem

__all__ = ["fill_main_content", "main_content_html", "restore_details"]

# trafilatura logs at WARNING about pages it finds empty or odd; the caller falls back.
logging.getLogger("trafilatura").setLevel(logging.ERROR)

_SPACES = re.compile(r"\s+")
# A page block is part of the main content when this share of its runs of three words is.
_IN_MAIN = 0.5
# A block between two main-content blocks is put back unless more of its text than this
# is links (a share bar, a list of related stories).
_LINKS_AT_MOST = 0.5
# Short blocks (a byline, a date) between the article's heading and its first sentence.
_ABOVE_HEADING = 2
# Characters of text a block needs to mark where the article is, or to be put back when
# trafilatura left it out (a sentence; characters, not words, for scripts without spaces).
_ANCHOR_CHARS = 50
# Characters (spaces left out) a block needs to count as in the main content when its text
# is found inside a longer block there: shorter ones ("0", "billion", a chart's labels) are
# found anywhere, so they count only when trafilatura kept them as a block of their own.
_FRAGMENT_CHARS = 25
# A run of page blocks between two of the article's sentences that trafilatura left out and
# that holds this many characters of link text (menus, lists of stories) parts the page; the
# sentences on the far side of it are another module trafilatura took in (an app's promo, a
# "today on the site" box) when they say less than this share of what the article says
# and fewer characters than a paragraph (a lead paragraph above a long list of links, a
# table of contents, stays).
_PARTING_LINK_CHARS = 500
_MODULE_SHARE = 0.1
_MODULE_CHARS = 300
# A list at the article's end is a list of links (other stories, some items with a line
# that is not a link) when this share of its text is links.
_LIST_LINKS = 0.3
# The share of the main content's characters the link blocks left out at its end may hold.
_TAIL_SHARE = 0.2
# A line above a list of links at the article's end that introduces it ("More stories",
# "Subscribe to ... for more"), not a paragraph of the article: shorter than this.
_INTRO_CHARS = 160


def main_content_html(html: str) -> str | None:
    """The main content of ``html`` as an HTML fragment, or ``None`` when none was found
    (or trafilatura failed on the page: the caller then shows the whole page)."""
    import trafilatura  # imported on first use: ~150 ms, paid only by readability=True

    try:
        return _extract(trafilatura, html)
    except Exception:  # a parser bug on one odd page must not lose the page
        get_logger(__name__).debug("trafilatura failed; the whole page is used", exc_info=True)
        return None


def _extract(trafilatura: Any, html: str) -> str | None:
    result: str | None = trafilatura.extract(
        html,
        output_format="html",
        include_links=True,
        include_images=True,
        include_tables=True,
        include_formatting=True,
        include_comments=False,
        with_metadata=False,
        deduplicate=False,
        # Recall first: with favor_precision the tune half of benchmarks/quality.py scored
        # 0.968 against 0.964, but the held-out half 0.923 against 0.950 (trafilatura then
        # keeps too little of some pages for fill_main_content to find the article's span).
        favor_recall=True,
    )
    return result


def _key(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def restore_details(
    blocks: Sequence[Block], media: list[MediaItem], roots: Sequence[LexborNode], base: str
) -> None:
    """Put back in ``blocks`` and ``media`` (read from trafilatura's HTML) what the page's
    own subtrees ``roots`` say: code languages, numbered lists, images' best sources."""
    languages: dict[str, str] = {}
    numbered: list[str] = []
    images: dict[str, MediaItem] = {}
    for root in roots:
        for pre in root.css("pre"):
            language = code_language(pre)
            if language:
                languages.setdefault(_key(pre.text(separator="")), language)
        for ordered in root.css("ol"):
            first = ordered.css_first("li")
            if first is not None:
                numbered.append(_key(first.text(separator=" ")))
        for img in root.css("img"):
            src = (img.attributes.get("src") or "").strip()
            item = image_item(img, base) if src else None
            if item is not None:
                images.setdefault(resolve_url(base, src), item)
    for block in blocks:
        if block.kind == "code" and not block.language:
            block.language = languages.get(_key(block.text), "")
        elif block.kind == "list" and not block.ordered and block.items and numbered:
            first_item = _key(plain(block.items[0].inline))
            block.ordered = bool(first_item) and any(
                text.startswith(first_item) for text in numbered
            )
    for index, item in enumerate(media):
        better = images.get(item.url)
        if better is not None:
            media[index] = MediaItem(
                kind="image",
                url=better.url,
                alt=item.alt or better.alt,
                width=better.width,
                height=better.height,
            )


def _long(block: Block) -> bool:
    """Whether ``block`` says a sentence or more (a wide character, Chinese or Japanese,
    counts as two)."""
    text = _SPACES.sub(" ", block.text).strip()
    if len(text) >= _ANCHOR_CHARS:
        return True
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text) >= _ANCHOR_CHARS


def fill_main_content(
    main: Sequence[Block],
    main_media: Sequence[MediaItem],
    page: Sequence[Block],
    page_media: Sequence[MediaItem],
    figures: frozenset[str] = frozenset(),
    authors: Sequence[str] = (),
) -> list[Block] | None:
    """The main content as the page's own blocks: from the first page block that is in
    ``main`` (the blocks trafilatura's HTML gave) to the last, with what lies between.

    trafilatura finds where the article is but loses parts of it on its way: paragraphs
    next to share buttons or math markup, a paragraph repeated, the structure of a short
    page (headings, lists, tables read as one paragraph). Between the first and the last
    block it kept, the page's blocks are the article's, but for link lists (share bars,
    related stories), which stay out. A figure's caption and a formula shown on its own
    line (their texts, spaces left out, in ``figures``) stay however short, and so does a
    heading right above a block of the article (a section's heading). Sentences
    trafilatura kept beyond a long run of links it left out (menus, lists of stories) are
    another module of the page, left out when they are a small part of the whole. What the
    span holds that is not the article's text is then left out
    (:func:`._precision.drop_noise`: the dateline, a byline naming ``authors``, a closing
    box). ``None`` when no page block is in ``main`` (the caller keeps trafilatura's
    blocks).
    """
    main_text = "".join(_SPACES.sub("", block.text) for block in main)
    main_runs = {run for block in main for run in word_runs(block.text)}
    main_images = {item.url for item in main_media}
    whole = {_SPACES.sub("", block.text) for block in main if block.text.strip()}

    def in_main(block: Block) -> bool:
        if block.kind in ("image", "video", "audio"):
            return 0 <= block.media < len(page_media) and page_media[block.media].url in main_images
        squeezed = _SPACES.sub("", block.text)
        if squeezed in whole or (len(squeezed) >= _FRAGMENT_CHARS and squeezed in main_text):
            return True
        # Not found as it is (trafilatura joined or cut it): most of its runs of three
        # words are there.
        runs = word_runs(block.text)
        return bool(runs) and sum(1 for run in runs if run in main_runs) >= _IN_MAIN * len(runs)

    kept = [in_main(block) for block in page]
    # Only sentences mark where the article is: a word or two ("Share", "Facebook") are
    # found anywhere, and a link's title may be a related story's.
    anchors = [
        i
        for i, block in enumerate(page)
        if kept[i] and _long(block) and link_density(block) <= _LINKS_AT_MOST
    ]
    if not anchors:
        # No sentence of the page is in it: the page is too short for a main content to
        # stand out (or trafilatura's is not the page's): all of it, but its chrome.
        return list(page) if any(kept) else None
    low, high = _article_part(page, kept, anchors)
    anchors = [i for i in anchors if low <= i <= high]
    # The span runs on over the blocks found in the main content next to it (the title
    # and byline above the first sentence); further out, a block trafilatura kept whole
    # stays.
    first, last = anchors[0], anchors[-1]
    while first > 0 and kept[first - 1]:
        first -= 1
    while last < len(page) - 1 and kept[last + 1]:
        last += 1
    # The article's heading, which trafilatura may leave out: the nearest heading above,
    # across a byline or a date (left out).
    heading = next(
        (
            i
            for i in range(first - 1, max(-1, first - 2 - _ABOVE_HEADING), -1)
            if page[i].kind == "heading" or _long(page[i])
        ),
        None,
    )
    taken = [False] * len(page)
    for index, block in enumerate(page):
        if index == heading and block.kind == "heading":
            taken[index] = True
        elif first <= index <= last:
            taken[index] = (
                kept[index]
                or index < anchors[0]
                or (
                    block.kind != "heading"
                    and (
                        block.kind in ("image", "video", "audio")
                        or _long(block)
                        or _SPACES.sub("", block.text) in figures
                    )
                    and link_density(block) <= _LINKS_AT_MOST
                )
            )
        elif low <= index <= high and kept[index] and _SPACES.sub("", block.text) in whole:
            taken[index] = True
    # A heading trafilatura left out inside the article heads a section of it when the
    # block right below it is the article's (Readability keeps an article's headings).
    for index in range(last - 1, first - 1, -1):
        if page[index].kind == "heading" and taken[index + 1] and page[index + 1].kind != "heading":
            taken[index] = True
    _drop_captions(page, taken)
    _trim_link_tail(page, taken)
    drop_noise(page, taken, anchors[0], authors)
    return [block for block, take in zip(page, taken, strict=True) if take]


def _drop_captions(page: Sequence[Block], taken: list[bool]) -> None:
    """Leave out of ``taken`` the photos' credit lines and the captions ending with their
    credit (:func:`._boilerplate.photo_credit`), wherever the page put them."""
    for index, block in enumerate(page):
        if taken[index] and block.kind == "paragraph" and photo_credit(block.text):
            taken[index] = False


def _links_only(block: Block) -> bool:
    if block.kind == "list":
        return link_density(block) > _LIST_LINKS
    return block.kind == "paragraph" and link_density(block) > _LINKS_AT_MOST


def _intro(block: Block) -> bool:
    """Whether ``block`` may be the line introducing a list of links: a heading, or a line
    shorter than a paragraph that does not end as a sentence does (the article's last
    sentence may be short)."""
    text = _SPACES.sub(" ", block.text).strip()
    if block.kind == "heading":
        return True
    # An ellipsis invites to read on: not a sentence's end.
    sentence = text.endswith(SENTENCE_ENDS) and not text.endswith(("...", "…"))
    return len(text) < _INTRO_CHARS and not sentence


def _trim_link_tail(page: Sequence[Block], taken: list[bool]) -> None:
    """Leave out of ``taken`` what ends the article but is not its text: blocks that are
    mostly links (a "more stories" list, further reading on the site), and the heading or
    short line right above them that introduces them (also when the list itself was left
    out already); together a small part of what is taken (a long list of references at a
    reference page's end is its own)."""
    budget = _TAIL_SHARE * sum(len(page[i].text) for i, take in enumerate(taken) if take)
    while True:
        chosen = [i for i, take in enumerate(taken) if take]
        if len(chosen) < 2:
            return
        end, links = chosen[-1], 0
        while len(chosen) > 1 and _links_only(page[chosen[-1]]):
            budget -= len(page[chosen[-1]].text)
            if budget < 0:
                return
            taken[chosen.pop()] = False
            links += 1
        if not links:
            following = end + 1 < len(page) and _links_only(page[end + 1])
            if following and _intro(page[end]):
                taken[end] = False
            return
        if len(chosen) < 2 or not _intro(page[chosen[-1]]):
            return
        taken[chosen[-1]] = False


def _article_part(
    page: Sequence[Block], kept: Sequence[bool], anchors: Sequence[int]
) -> tuple[int, int]:
    """The first and last index of the part of ``page`` the article is in (the whole page
    when nothing parts it): the page parted at each run of blocks between two ``anchors``
    that holds :data:`_PARTING_LINK_CHARS` of link text trafilatura left out; the part
    saying the most, and next to it the parts saying at least :data:`_MODULE_SHARE` of
    that or :data:`_MODULE_CHARS` characters."""
    parts: list[list[int]] = [[anchors[0]]]
    for before, after in itertools.pairwise(anchors):
        links = sum(
            len(page[i].text) * link_density(page[i])
            for i in range(before + 1, after)
            if not kept[i]
        )
        if links >= _PARTING_LINK_CHARS:
            parts.append([])
        parts[-1].append(after)
    if len(parts) == 1:
        return 0, len(page) - 1
    says = [sum(len(page[i].text) for i in part) for part in parts]
    best = max(range(len(parts)), key=says.__getitem__)
    start = end = best
    least = min(_MODULE_SHARE * says[best], _MODULE_CHARS)
    while start > 0 and says[start - 1] >= least:
        start -= 1
    while end < len(parts) - 1 and says[end + 1] >= least:
        end += 1
    # Parted off on a side, the article ends there at its sentences (and what trafilatura
    # kept right next to them), not at what it kept further out.
    low = parts[start][0] if start > 0 else 0
    high = parts[end][-1] if end < len(parts) - 1 else len(page) - 1
    return low, high
