"""What sits around an article and is named so: removed from the page before its main
content is looked for (``readability=True``), so neither trafilatura nor the blocks put
back between the article's sentences (:func:`._main_content.fill_main_content`) keep it.

General rules, no per-site ones; the signals are the page's own:

- containers whose class, id, ARIA role or label name a usual kind of boilerplate
  (related or recommended stories, newsletter and subscription boxes, share rows, promos
  and ads, author bios, comments and their counts), when they are short or mostly links
  and hold little of the page's text (a ``<div class="has-comments">`` around the article
  is the article, not a comment box);
- a figure caption's credit line (an element named ``credit``/``copyright``..., or text
  opening with "Photograph:", "Photo:", "Credit:"...): a caption says what the picture
  shows, the credit whose it is, which is not the article's text;
- (read by :mod:`._main_content` on the main content's blocks) a photo's credit line or
  its caption ending with the credit in brackets, wherever the page put them;
- teaser cards: a link wrapping a heading and a paragraph (or a picture), which says what
  another page says (a "more stories" rail, a list of the latest stories, which may list
  this very story under its own heading);
- the article body a page marks with ``itemprop="articleBody"`` (schema.org microdata),
  when it holds a few sentences: the main content is looked for inside it alone.
"""

from __future__ import annotations

import itertools
import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = ["SENTENCE_ENDS", "article_body", "photo_credit", "remove_boilerplate"]

# Tokens of a class, id or label (split at spaces, "-" and "_") naming boilerplate.
_BOILERPLATE = frozenset(
    {
        "related",
        "recommended",
        "recommendations",
        "newsletter",
        "newsletters",
        "subscribe",
        "subscription",
        "signup",
        "share",
        "sharing",
        "sharebar",
        "social",
        "promo",
        "promoted",
        "sponsored",
        "advert",
        "advertisement",
        "ad",
        "ads",
        "outbrain",
        "taboola",
        "bio",
        "comments",
        "comment",
        "disqus",
        "popular",
        "trending",
    }
)
# Two tokens in a row that name boilerplate where each alone does not ("more stories",
# "author bio", "read more", "also like").
_BOILERPLATE_PAIRS = frozenset(
    {("more", "stories"), ("author", "info"), ("read", "more"), ("also", "like"), ("sign", "up")}
)
_TOKEN = re.compile(r"[a-z]+")
# Elements that are text or the page itself, whatever their class says (a paragraph with
# class="share-intro" is the article's): boxes are containers, links and buttons.
_NEVER_BOXES = frozenset(
    {"html", "body", "main", "article", "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
     "pre", "table", "figure", "img", "picture", "video", "li", "dd", "dt"}
)  # fmt: skip
_NAMED = "[class], [id], [aria-label], [data-component], [data-module]"
# A named container holding more than this share of the page's text is the page.
_MOST_OF_PAGE = 0.25
# A boilerplate box is short (a bio, a sign-up box, a share row) or mostly links (a rail
# of stories): a named container of more words than this, mostly not links, may be the
# article under a misleading name, and stays.
_BOX_WORDS = 120
_BOX_LINKS = 0.5
_CREDIT_NAMES = frozenset({"credit", "credits", "copyright", "attribution", "byline", "source"})
_CREDIT_TEXT = re.compile(
    r"^\s*(?:photograph|photo|picture|image|illustration|credit|foto|bild|imagen)s?\s*(?:by)?\s*:",
    re.IGNORECASE,
)
# A caption's last part is its credit when shorter than this (characters), after a
# sentence of at least _SHOWN_CHARS saying what the picture shows.
_CREDIT_CHARS = 60
_SHOWN_CHARS = 40
# How a sentence ends, in the scripts of the pages measured: full stops and marks of
# Latin and CJK scripts, and the quotes and brackets that close a sentence.
SENTENCE_ENDS = tuple('.!?\u3002\uff01\uff1f"\u201d\u00bb\u2019)')
# What a teaser card's link wraps: blocks of text, and pictures.
_CARD_TEXT = "h1, h2, h3, h4, h5, h6, p"
_CARD_PICTURE = "img, picture"
# A photo's caption that ends with its credit in brackets: "(AP Photo/Ann Example)",
# "(Image: GETTY)", "(Foto: dpa)"; the words are the credit's and the agencies', which are
# the same in every language a page is written in.
_CAPTION_CREDIT = re.compile(
    r"\((?:[^()]*?\b(?:photos?|image|picture|foto|bild|imagen|credit|getty|reuters|afp|ap|epa|dpa)"
    r"\b[^()]*)\)\s*$",
    re.IGNORECASE,
)
# A caption is shorter than this (characters); a paragraph of the article ending with a
# bracket that names a photo is not one.
_CAPTION_CHARS = 400
# Characters of text an ``itemprop="articleBody"`` element needs to be taken as the article.
_BODY_CHARS = 280


def _names(node: LexborNode) -> list[str]:
    attrs = node.attributes
    text = " ".join(
        attrs.get(name) or ""
        for name in ("class", "id", "aria-label", "data-component", "data-module")
    )
    return _TOKEN.findall(text.lower())


def _is_boilerplate(names: list[str]) -> bool:
    return any(name in _BOILERPLATE for name in names) or any(
        pair in _BOILERPLATE_PAIRS for pair in itertools.pairwise(names)
    )


def _text_length(node: LexborNode) -> int:
    return len((node.text(separator=" ") or "").split())


def _link_share(node: LexborNode, length: int) -> float:
    linked = sum(_text_length(link) for link in node.css("a"))
    return linked / max(length, 1)


def remove_boilerplate(tree: LexborHTMLParser) -> None:
    """Remove from ``tree`` the named boilerplate containers and the captions' credits."""
    body = tree.body
    if body is None:
        return
    page_words = max(_text_length(body), 1)
    for node in list(body.css(_NAMED)):
        if node.parent is None or node.tag in _NEVER_BOXES:
            continue
        if not _is_boilerplate(_names(node)) or node.css_first('[itemprop="articleBody"]'):
            continue
        length = _text_length(node)
        if length <= _MOST_OF_PAGE * page_words and (
            length <= _BOX_WORDS or _link_share(node, length) >= _BOX_LINKS
        ):
            node.decompose()
    _remove_cards(body, page_words)
    for caption in body.css("figcaption"):
        # The parts of a caption; a caption that is all credit stays (it may be all there is).
        for part in list(caption.css("*")):
            if part.mem_id == caption.mem_id:
                continue
            if part.parent is not None and set(_names(part)) & _CREDIT_NAMES:
                part.decompose()
        for child in list(caption.iter(include_text=True)):
            text = child.text_content if child.is_text_node else child.text(separator=" ")
            if text and _CREDIT_TEXT.match(text):
                child.decompose()
        _drop_trailing_credit(caption)


def _part_text(node: LexborNode) -> str:
    text = node.text_content if node.is_text_node else node.text(separator=" ")
    return " ".join((text or "").split())


def _drop_trailing_credit(caption: LexborNode) -> None:
    """Remove a caption's last part when it is its credit by its form, in any language:
    a short element that is not a sentence, after a sentence saying what the picture
    shows ("...at the Capitol on July 25, 2019." then "J. Scott Applewhite / AP file"), or
    one opening with the copyright sign."""
    parts = [child for child in caption.iter(include_text=True) if _part_text(child)]
    if len(parts) < 2 or parts[-1].is_text_node:
        return
    last = _part_text(parts[-1])
    shown = " ".join(_part_text(part) for part in parts[:-1])
    credit = last.startswith("\u00a9") or (
        len(last) < _CREDIT_CHARS
        and len(shown) >= _SHOWN_CHARS
        and shown.endswith(SENTENCE_ENDS)
        and not last.endswith(SENTENCE_ENDS)
    )
    if credit:
        parts[-1].decompose()


def _remove_cards(body: LexborNode, page_words: int) -> None:
    """Remove the teaser cards: links to another page wrapping two blocks of text, or one
    and a picture (a link inside a paragraph, or around a picture alone, is the article's;
    a link around most of the page is the page)."""
    for link in list(body.css("a[href]")):
        href = (link.attributes.get("href") or "").strip().lower()
        if link.parent is None or not href or href.startswith(("#", "javascript:")):
            continue
        blocks = len(link.css(_CARD_TEXT))
        if (blocks >= 2 or (blocks == 1 and link.css_first(_CARD_PICTURE) is not None)) and (
            _text_length(link) <= _MOST_OF_PAGE * page_words
        ):
            link.decompose()


def photo_credit(text: str) -> bool:
    """Whether ``text`` (a block's) is a photo's credit line ("Photo: Ann Example/AP") or a
    caption ending with its credit, wherever the page put it (not only in ``<figcaption>``)."""
    text = " ".join(text.split())
    if not text or len(text) >= _CAPTION_CHARS:
        return False
    return bool(_CREDIT_TEXT.match(text) or _CAPTION_CREDIT.search(text))


def article_body(tree: LexborHTMLParser) -> LexborNode | None:
    """The element the page marks as its article's body (``itemprop="articleBody"``), when
    there is one holding a few sentences."""
    found = tree.css('[itemprop="articleBody"]')
    if len(found) != 1:
        return None
    node = found[0]
    return node if len(" ".join((node.text(separator=" ") or "").split())) >= _BODY_CHARS else None
