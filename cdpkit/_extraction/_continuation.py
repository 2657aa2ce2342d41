"""An article a page splits into several containers (an ad row, a pull quote or a "most
popular" rail between them): joined into the first before its main content is looked for,
so the extractor, which keeps one container, keeps all of the article.

The signal is the page's own markup, not its words: containers that repeat the same tag
and class (``<div class="article__body">`` twice, a full-width ad row between them), none
inside another, each holding paragraphs of prose. Teaser cards and comments repeat their
class too, but their paragraphs are one short line each (or they are named as comments and
gone already, :mod:`._boilerplate`).
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = ["join_split_article"]

# A paragraph of prose: this many characters (a teaser's line is shorter).
_PROSE_CHARS = 120
# Paragraphs of prose a container needs, as children of its own, to be part of an article.
_PROSE_PARAGRAPHS = 2


def _prose(node: LexborNode) -> int:
    """How many of ``node``'s own child paragraphs are prose."""
    return sum(
        1
        for child in node.iter()
        if child.tag == "p" and len(" ".join((child.text() or "").split())) >= _PROSE_CHARS
    )


def _inside(node: LexborNode, other: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.mem_id == other.mem_id:
            return True
        parent = parent.parent
    return False


def join_split_article(tree: LexborHTMLParser) -> None:
    """Move into the first of each set of same-class prose containers the children of the
    others (document order kept)."""
    body = tree.body
    if body is None:
        return
    groups: dict[tuple[str, str], list[LexborNode]] = {}
    for node in body.css("div[class], section[class]"):
        signature = (node.tag or "", " ".join((node.attributes.get("class") or "").split()))
        if signature[1] and _prose(node) >= _PROSE_PARAGRAPHS:
            groups.setdefault(signature, []).append(node)
    for found in groups.values():
        # The outermost only: a container inside another of its set moves with it.
        members = [n for n in found if not any(_inside(n, m) for m in found if m is not n)]
        if len(members) < 2:
            continue
        first, *rest = members
        for other in rest:
            for child in list(other.iter(include_text=True)):
                first.insert_child(child)
            other.decompose()
