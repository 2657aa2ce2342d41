"""The token budget: the last stage of the pipeline, cutting whole blocks by priority.

Tokens are counted as ``ceil(characters / 4)``, so content of at most ``4 * max_tokens``
characters is within budget. What stays, in order: the title, the headings (outermost
levels first), then the blocks best ranked (by the query, else in document order); a block
that does not fit is cut whole and smaller ones after it may still fit. When nothing but
headings fits, the best block is cut at a word boundary rather than dropped, and a title
longer than the whole budget is itself cut. A one-line marker at the end of the content says
that it was cut; :attr:`Extraction.truncation` says what, by section.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Part", "choose", "cut_text", "describe_cuts", "marker", "tokens"]

ELLIPSIS = "\u2026"


def tokens(text: str | int) -> int:
    """Tokens of ``text`` (or of that many characters): characters / 4, rounded up."""
    return math.ceil((text if isinstance(text, int) else len(text)) / 4)


@dataclass(slots=True)
class Part:
    """One rendered block competing for the budget.

    Attributes:
        text: What it adds to the content.
        heading: Whether it is a heading (kept before any other block).
        level: A heading's level (outermost first).
        rank: Priority among non-heading blocks (0 = best).
        section: The heading it sits under, for saying what was cut ("" before any).
    """

    text: str
    heading: bool = False
    level: int = 0
    rank: int = 0
    section: str = ""


def choose(parts: Sequence[Part], available: int, separator: int = 2) -> list[bool]:
    """Which parts fit in ``available`` characters (joined with ``separator`` characters),
    taken by priority; the result is one flag per part."""
    order = sorted(
        range(len(parts)),
        key=lambda i: (0, parts[i].level, i) if parts[i].heading else (1, parts[i].rank, i),
    )
    kept = [False] * len(parts)
    used = 0
    for index in order:
        cost = len(parts[index].text) + (separator if used else 0)
        if used + cost <= available:
            kept[index] = True
            used += cost
    return kept


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one is near,
    ending with an ellipsis."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:limit]
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit * 2 // 3:
        head = head[:space]
    return head.rstrip() + ELLIPSIS


def marker(cut_blocks: int, cut_tokens: int, max_tokens: int) -> str:
    """The line that ends cut content."""
    noun = "block" if cut_blocks == 1 else "blocks"
    return f"[{ELLIPSIS} {cut_blocks} {noun} ({cut_tokens:,} tokens) cut to fit max_tokens={max_tokens:,}]"


def describe_cuts(parts: Sequence[Part], kept: Sequence[bool], limit: int = 8) -> list[str]:
    """What was cut, one line per section in order of first appearance ("cut 14 blocks
    (2,310 tokens) under 'Installation'")."""
    sections: dict[str, list[int]] = {}
    for part, stays in zip(parts, kept, strict=True):
        if not stays:
            counts = sections.setdefault(part.section, [0, 0])
            counts[0] += 1
            counts[1] += tokens(part.text)
    lines = []
    for section, (count, cost) in sections.items():
        noun = "block" if count == 1 else "blocks"
        where = f"under {section!r}" if section else "before the first heading"
        lines.append(f"cut {count} {noun} ({cost:,} tokens) {where}")
    if len(lines) > limit:
        rest = lines[limit - 1 :]
        lines = [*lines[: limit - 1], f"cut blocks in {len(rest)} more sections"]
    return lines
