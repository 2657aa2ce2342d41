"""Which heading says the page's title, and which alt text says nothing: the rules the
title line, the main content and the image descriptions share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ._block import Block
from ._types import MediaItem

__all__ = ["described", "has_title_heading", "says_title", "without_title_heading"]

_TITLE_WORD = re.compile(r"\w+")


# An alt text that only says there is an image, or is the image's file name.
_UNTOLD_ALT = re.compile(
    r"^\s*(?:(?:an?|the)\s+)?(?:image|img|picture|photo|photograph|graphic)?[\s#._-]*\d*\s*$"
    r"|^\s*\S+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)\s*$",
    re.IGNORECASE,
)


_TITLE_LIKENESS = 0.75  # Readability's: a heading this much made of the title's words says it


# What sites put between a page's own title and their name: "Page - Site", "Site | Page".
_TITLE_SEPARATOR = re.compile(r"\s+[-|\u2013\u2014\u00b7\u2022/\u00bb:]{1,2}\s+")


def without_title_heading(blocks: list[Block], title: str) -> list[Block]:
    """``blocks`` without the first level-1 or level-2 heading that says the page's
    ``title`` (:func:`says_title`), which the result carries on its own."""
    for index, block in enumerate(blocks):
        if block.kind == "heading" and block.level <= 2 and says_title(title, block.text):
            return blocks[:index] + blocks[index + 1 :]
    return blocks


def described(media: Sequence[MediaItem], title: str) -> list[MediaItem]:
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


def has_title_heading(title: str, blocks: Sequence[Block], order: Sequence[int]) -> bool:
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
