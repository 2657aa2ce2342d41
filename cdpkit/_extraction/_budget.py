"""The token budget: the last stage of the pipeline, cutting whole blocks by priority.

Tokens are counted as ``ceil(characters / 4)``, so content of at most ``4 * max_tokens``
characters is within budget. What stays, in order: the title, the headings as an outline
(outermost levels first, up to a share of the budget; not when a query ranked the blocks),
then the blocks best ranked (by the query, else in document order), each with the headings
it sits under; a block that does not fit is cut whole and smaller ones after it may still
fit (see :func:`plan` for when a block is cut short instead), and a title longer than the
whole budget is itself cut. A one-line marker at the end of the content says
that it was cut; :attr:`Extraction.truncation` says what, by section.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Part", "Plan", "cut_block", "cut_text", "describe_cuts", "marker", "plan", "tokens"]

ELLIPSIS = "\u2026"


def tokens(text: str | int) -> int:
    """Tokens of ``text`` (or of that many characters): characters / 4, rounded up."""
    return math.ceil((text if isinstance(text, int) else len(text)) / 4)


# Under a budget, headings kept as an outline (before any block) take at most this share.
OUTLINE_SHARE = 0.4
_SEPARATOR = 2  # blocks are joined by a blank line


@dataclass(slots=True)
class Part:
    """One rendered block competing for the budget.

    Attributes:
        text: What it adds to the content.
        heading: Whether it is a heading.
        level: A heading's level (outermost first).
        rank: Priority among non-heading blocks (0 = best).
        section: The heading it sits under, for saying what was cut ("" before any).
        chain: Positions (in the same list of parts) of the headings it sits under: kept
            with it, so a kept block always shows its context.
    """

    text: str
    heading: bool = False
    level: int = 0
    rank: int = 0
    section: str = ""
    chain: tuple[int, ...] = ()


@dataclass(slots=True)
class Plan:
    """What fits: one flag per part, and at most one part cut short (``partial`` is its
    position, ``-1`` for none; ``partial_text`` what stays of it)."""

    kept: list[bool]
    partial: int = -1
    partial_text: str = ""


def plan(
    parts: Sequence[Part], available: int, *, outline: bool = True, best_first: bool = False
) -> Plan:
    """Choose the parts that fit in ``available`` characters.

    With ``outline``, headings come first (outermost levels first, at most
    :data:`OUTLINE_SHARE` of the room); then blocks by rank, each with the headings it sits
    under; a block that does not fit is skipped and smaller ones after it may still fit.
    With ``best_first`` (a query ranked the blocks), the best block is cut short rather than
    skipped when it does not fit whole; otherwise a block is cut short only when no block
    fits at all, so a single long paragraph still shows its beginning.
    """
    kept = [False] * len(parts)
    used = 0

    def cost(position: int) -> int:
        return len(parts[position].text) + _SEPARATOR

    if outline:
        room = int(available * OUTLINE_SHARE)
        headings = sorted(
            (i for i, p in enumerate(parts) if p.heading), key=lambda i: (parts[i].level, i)
        )
        for position in headings:
            if used + cost(position) > room:
                break  # the outline keeps its first headings, never a later shorter one
            kept[position] = True
            used += cost(position)
    body = sorted(
        (i for i, p in enumerate(parts) if not p.heading), key=lambda i: (parts[i].rank, i)
    )
    result = Plan(kept)

    def cut_short(position: int) -> None:
        nonlocal used
        chain = [h for h in parts[position].chain if not kept[h]]
        room = available - used - sum(cost(h) for h in chain) - _SEPARATOR
        if room >= 80:
            for heading in chain:
                kept[heading] = True
            result.partial, result.partial_text = position, cut_block(parts[position].text, room)
            used += sum(cost(h) for h in chain) + len(result.partial_text) + _SEPARATOR

    for position in body:
        chain = [h for h in parts[position].chain if not kept[h]]
        need = cost(position) + sum(cost(h) for h in chain)
        if used + need <= available:
            for heading in chain:
                kept[heading] = True
            kept[position] = True
            used += need
        elif best_first and position == body[0]:
            cut_short(position)
    if body and result.partial < 0 and not any(kept[i] for i in body):
        cut_short(body[0])
    return result


def cut_block(text: str, limit: int) -> str:
    """A rendered block cut to ``limit`` characters: whole lines when it has several (a
    fenced code block stays closed), else at a word boundary; the cut is marked with an
    ellipsis."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    if len(lines) > 1:
        fence = lines[0] if lines[0].startswith("```") else ""
        closing = ("````" if fence.startswith("````") else "```") if fence else ""
        reserve = len(ELLIPSIS) + 1 + (len(closing) + 1 if closing else 0)
        kept: list[str] = []
        size = 0
        for line in lines[:-1] if closing else lines:
            if size + len(line) + 1 > limit - reserve:
                break
            kept.append(line)
            size += len(line) + 1
        if kept and (not fence or len(kept) > 1):
            return "\n".join([*kept, ELLIPSIS, *([closing] if closing else [])])
    return cut_text(text.replace("\n", " "), limit)


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


def marker(cut_blocks: int, cut_tokens: int, max_tokens: int, *, shortened: bool = False) -> str:
    """The line that ends cut content: how many blocks were cut (and whether one was cut
    short), how many tokens they held, and the budget."""
    noun = "block" if cut_blocks == 1 else "blocks"
    what = f"{cut_blocks} {noun}"
    if shortened:
        what = f"1 block cut short and {what}" if cut_blocks else "1 block cut short"
    return f"[{ELLIPSIS} {what} ({cut_tokens:,} tokens) cut to fit max_tokens={max_tokens:,}]"


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
