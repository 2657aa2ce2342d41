"""Keyword filtering and query ranking of blocks (the pipeline's stages after main content).

Both read a block's plain text. Keywords match case-insensitively as whole words or
phrases (``"web api"`` matches "Web  API" but not "webapi"). Ranking is Okapi BM25
(k1=1.5, b=0.75) over the blocks of one document, each block indexed with the headings it
sits under, so a paragraph under "Installing on Windows" answers "windows install". BM25 is
written here rather than taken from ``bm25s``: a page is a few hundred short blocks, scored
in well under a millisecond in pure Python, without importing numpy/scipy (tens of
milliseconds) into every extraction or depending on a tokenizer we cannot see.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["bm25_scores", "keyword_matcher", "matches", "terms"]

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def keyword_matcher(keywords: Sequence[str], mode: str) -> re.Pattern[str] | None:
    """A pattern finding any of ``keywords`` as whole words/phrases, case-insensitively
    (``None`` when no keyword has a word in it). ``mode`` is read by :func:`matches`."""
    parts = []
    for keyword in keywords:
        words = keyword.split()
        if words:
            parts.append(r"\s+".join(re.escape(word) for word in words))
    if not parts:
        return None
    return re.compile(
        r"(?<!\w)(?:" + "|".join(f"({part})" for part in parts) + r")(?!\w)", re.IGNORECASE
    )


def matches(pattern: re.Pattern[str], text: str, keyword_count: int, mode: str) -> bool:
    """Whether ``text`` has any (``mode="any"``) or every (``"all"``) keyword of ``pattern``."""
    if mode != "all":
        return pattern.search(text) is not None
    found = {
        index
        for match in pattern.finditer(text)
        for index, group in enumerate(match.groups())
        if group
    }
    return len(found) >= keyword_count


def _stem(word: str) -> str:
    """A light English stemmer: enough for "installing"/"installed"/"installs" to meet."""
    for suffix in ("ing", "edly", "ed", "ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    """The indexed terms of ``text``: lower-cased words, stop words dropped, stemmed."""
    return [_stem(word) for word in _WORD.findall(text.lower()) if word not in _STOPWORDS]


def bm25_scores(
    documents: Sequence[str],
    query: str,
    *,
    k1: float = 1.5,
    b: float = 0.75,
    normalized: bool = False,
) -> list[float]:
    """The BM25 score of each document for ``query`` (0.0 for one sharing no term).

    ``normalized`` divides by the score a document would get by holding every query term
    many times (0..1): a block matching only a common word of the query then scores low,
    however it compares with the others, which lets the score be mixed with a cosine.
    """
    query_terms = list(dict.fromkeys(terms(query)))
    if not query_terms or not documents:
        return [0.0] * len(documents)
    bags = [Counter(terms(document)) for document in documents]
    lengths = [sum(bag.values()) for bag in bags]
    average = (sum(lengths) / len(lengths)) or 1.0
    count = len(documents)
    idf = {}
    for term in query_terms:
        frequency = sum(1 for bag in bags if term in bag)
        idf[term] = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
    scores = []
    for bag, length in zip(bags, lengths, strict=True):
        score = 0.0
        for term in query_terms:
            tf = bag.get(term, 0)
            if tf:
                score += idf[term] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
        scores.append(score)
    if normalized:
        ceiling = sum(idf[term] * (k1 + 1) for term in query_terms) or 1.0
        return [score / ceiling for score in scores]
    return scores
