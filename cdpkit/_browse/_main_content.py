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

import logging
import re
from collections.abc import Sequence
from typing import Any

from selectolax.lexbor import LexborNode

from .._secrets import get_logger
from ._blocks import Block, code_language, image_item, plain, resolve_url
from ._result import MediaItem

__all__ = ["main_content_html", "restore_details"]

# trafilatura logs at WARNING about pages it finds empty or odd; the caller falls back.
logging.getLogger("trafilatura").setLevel(logging.ERROR)

_SPACES = re.compile(r"\s+")


def main_content_html(html: str) -> str | None:
    """The main content of ``html`` as an HTML fragment, or ``None`` when none was found
    (or trafilatura failed on the page: the caller then shows the whole page)."""
    import trafilatura  # imported on first use: ~150 ms, paid only by readability=True

    try:
        return _extract(trafilatura, html)
    except Exception:  # a parser bug on one odd page must not lose the page
        get_logger(__name__).debug(
            "trafilatura failed; the whole page is used", exc_info=True
        )
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
        # Recall first: on Readability's 65 test pages it lifts word F1 from 0.953 to 0.961
        # (benchmarks/quality.py) without letting comments or sidebars in.
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
