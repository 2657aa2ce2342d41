"""What the main content's span holds that is not the article's text, read on the page's
blocks once :func:`._main_content.fill_main_content` has chosen them (round 3 of issue #45).

The signals are the page's own and hold in any language:

- the dateline, byline and printed address above the article's first sentence: a short
  line that is mostly a date and a time (digits), that names the article's authors as the
  page's metadata gives them, or a web address alone (:class:`._types.Metadata` carries both, so the body does not need them);
- a box closing the article: a heading with nothing under it but short lines that are
  not sentences (a comment count, a "tell us what you think" prompt).

(A third rule, leaving out the paragraphs a JSON-LD ``articleBody`` does not say, was
measured and dropped: it lowered readability-dev's held-out half, see
``benchmarks/README.md``.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._block import Block
from ._boilerplate import SENTENCE_ENDS

__all__ = ["drop_noise", "word_runs"]

_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
# A time of day (10:48, 12.21, 14h30) or a year (1800-2099): what a dateline says.
_TIME = re.compile(r"\b\d{1,2}[:.h]\d{2}\b")
_YEAR = re.compile(r"\b(?:1[89]|20)\d{2}\b")
# A dateline is a short line (characters) whose words are this share digits or more.
_DATE_CHARS = 120
_DATE_DIGITS = 0.25
# A byline is a short line (characters) naming an author.
_BYLINE_CHARS = 100
# A line closing the article that is not its text is shorter than this (characters).
_CLOSING_CHARS = 80


def word_runs(text: str) -> list[tuple[str, ...]]:
    """The runs of three words in a row of ``text`` (lower-cased)."""
    found = _WORD.findall(text.lower())
    return [tuple(found[i : i + 3]) for i in range(len(found) - 2)]


def _date_line(text: str) -> bool:
    """Whether ``text`` is a dateline ("Updated 12:24 am EST, Wednesday, November 20, 2019",
    "20.11.2019 14:30"): short, a time or a year in it, and its words much digits."""
    if len(text) > _DATE_CHARS or not (_TIME.search(text) or _YEAR.search(text)):
        return False
    found = _WORD.findall(text)
    return sum(1 for word in found if word.isdigit()) >= _DATE_DIGITS * len(found)


def _address(text: str) -> bool:
    """Whether ``text`` is a web address alone (the page's own, printed above it)."""
    return text.startswith(("http://", "https://")) and not any(c.isspace() for c in text)


def _byline(text: str, authors: Sequence[str]) -> bool:
    """Whether ``text`` is a short line naming one of ``authors`` ("By Ann Example")."""
    if len(text) > _BYLINE_CHARS:
        return False
    lowered = text.lower()
    return any(len(name) > 3 and name.lower() in lowered for name in authors)


def _drop_lead(
    page: Sequence[Block], taken: list[bool], first: int, authors: Sequence[str]
) -> None:
    """Leave out the datelines, bylines and printed addresses taken above the article's
    first sentence (``first``, an index of ``page``)."""
    for index, block in enumerate(page):
        if not taken[index]:
            continue
        text = _SPACES.sub(" ", block.text).strip()
        if block.kind not in ("paragraph", "list"):
            lead = False
        elif index < first:
            lead = _date_line(text) or _byline(text, authors) or _address(text)
        else:
            # An address is never the article's first sentence, though as long as one;
            # a line as long as a sentence with a date in it may be (measured: leaving
            # those out too cost readability-dev's held-out half recall).
            lead = _address(text)
        if lead:
            taken[index] = False
        elif index >= first:
            return


def _closing(block: Block) -> bool:
    """Whether ``block`` may close a box ending the page's article: a heading, or a short
    line that is not a sentence."""
    text = _SPACES.sub(" ", block.text).strip()
    if block.kind not in ("heading", "paragraph") or len(text) >= _CLOSING_CHARS:
        return False
    if block.kind == "heading":
        return True
    # An ellipsis invites to read on: not a sentence's end.
    return not text.endswith(SENTENCE_ENDS) or text.endswith(("...", "\u2026"))


def _drop_closing(page: Sequence[Block], taken: list[bool]) -> None:
    """Leave out a box closing the article: a heading with nothing under it but short
    lines that are not sentences ("Comments" over "Log in to comment"), while one of the
    article's sentences stays before it. Short lines with no heading over them stay (an
    article may end on a short line of its own)."""
    chosen = [i for i, take in enumerate(taken) if take]
    end = len(chosen)
    while end > 1 and _closing(page[chosen[end - 1]]):
        end -= 1
    tail = chosen[end:]
    heading = next((n for n, i in enumerate(tail) if page[i].kind == "heading"), None)
    if heading is not None:
        for index in tail[heading:]:
            taken[index] = False


def drop_noise(
    page: Sequence[Block], taken: list[bool], first: int, authors: Sequence[str] = ()
) -> None:
    """Leave out of ``taken`` (a flag per block of ``page``) the dateline and byline above
    the article's first sentence (``first``) and a box closing it that is not its text."""
    _drop_lead(page, taken, first, authors)
    _drop_closing(page, taken)
