"""Which blocks are shown, and in what order: the keyword filter and the query ranking
(BM25 of :mod:`._rank`; with the ``semantic`` extra also all-MiniLM-L6-v2 embeddings,
:mod:`._semantic`), each block kept with the headings it sits under."""

from __future__ import annotations

from collections.abc import Sequence

from ._block import Block
from ._rank import bm25_scores, keyword_matcher, matches
from ._semantic import semantic_scores
from ._types import BrowseOptions

__all__ = ["keyword_filter", "rank_blocks"]

_SEMANTIC_MATCH = 0.25  # cosine from which a block is about the query (all-MiniLM-L6-v2)


_SEMANTIC_BLOCKS = 24  # blocks the embeddings re-rank, at most (each costs ~15 ms)


_SEMANTIC_HEADINGS = 100  # headings the embeddings read (a few words each)


def keyword_filter(blocks: Sequence[Block], options: BrowseOptions) -> list[int]:
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


def rank_blocks(
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
