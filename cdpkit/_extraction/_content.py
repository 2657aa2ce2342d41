"""The content in each format, within the token budget: markdown or text (the title line,
then the blocks), the ``links`` list, and the JSON object of :mod:`._formats`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._block import Block, plain
from ._budget import Part, cut_text, describe_cuts, marker, plan, tokens
from ._formats import Renderer
from ._title import has_title_heading
from ._types import BrowseOptions, Extraction, Form, Link, MediaItem, Metadata

__all__ = ["json_content", "links_content", "links_in", "text_content"]

_LINK_MARK = re.compile(r"\x01(\d+)\x02")


def _parts(
    blocks: Sequence[Block], order: Sequence[int], ranks: dict[int, int], texts: Sequence[str]
) -> list[Part]:
    """The blocks ``order`` lists (rendered as ``texts``) as parts for the budget."""
    position_of = {index: position for position, index in enumerate(order)}
    parts = []
    for position, (index, text) in enumerate(zip(order, texts, strict=True)):
        block = blocks[index]
        section = plain(blocks[block.headings[-1]].inline) if block.headings else ""
        chain = tuple(position_of[h] for h in block.headings if h in position_of)
        if block.kind == "heading":
            parts.append(Part(text, heading=True, level=block.level, section=section, chain=chain))
        else:
            rank = ranks.get(index, len(ranks) + position)
            parts.append(Part(text, rank=rank, section=section, chain=chain))
    return parts


def text_content(
    title: str,
    blocks: Sequence[Block],
    order: Sequence[int],
    ranks: dict[int, int],
    renderer: Renderer,
    options: BrowseOptions,
    *,
    title_on_top: bool = False,
) -> tuple[str, list[str]]:
    """Markdown or plain text: the title line, then the blocks, within the budget."""
    rendered = [(index, renderer.block(blocks[index])) for index in order]
    rendered = [(index, text) for index, text in rendered if text]
    title_line = ""
    # Main content (readability) is the article alone, as Readability gives it: the title
    # stays in Extraction.title. A page whose <h1> says its title does not get it twice.
    if (
        title
        and (title_on_top or not options.readability)
        and not has_title_heading(title, blocks, order)
    ):
        title_line = f"# {title}" if renderer.fmt == "markdown" else title
    elif rendered and blocks[rendered[0][0]].kind == "heading" and options.max_tokens is not None:
        # The heading the content starts with is its title: first kept, cut when too long.
        title_line = rendered.pop(0)[1]
    parts = _parts(blocks, [i for i, _ in rendered], ranks, [t for _, t in rendered])
    return _fit_text(title_line, parts, options.max_tokens, ranked=bool(ranks))


def _fit_text(
    title_line: str, parts: list[Part], max_tokens: int | None, *, ranked: bool
) -> tuple[str, list[str]]:
    pieces = [title_line] if title_line else []
    full = "\n\n".join([*pieces, *(part.text for part in parts)])
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    notes: list[str] = []
    # Room for the marker at its longest for these counts (longer still when a block is
    # cut short: then the plan is made again with that room).
    worst_marker = marker(len(parts), tokens(full), max_tokens)
    available = limit - len(worst_marker) - 2
    if not title_line and parts and available < 40:
        # Room for the marker and barely more: the beginning of the first block instead.
        first = min(
            range(len(parts)), key=lambda i: (parts[i].rank, i) if not parts[i].heading else (-1, i)
        )
        kept = cut_text(parts[first].text.replace("\n", " "), limit)
        notes.append(
            f"cut to the first {len(kept)} characters: max_tokens={max_tokens} leaves no room for more"
        )
        return kept, notes
    if len(title_line) > max(available, 0):
        # Not even the title fits with the marker: the title alone, cut to the budget.
        cut_title = cut_text(title_line, limit)
        if len(cut_title) < len(title_line):
            notes.append(
                f"cut the title to {len(cut_title)} characters: max_tokens={max_tokens} is smaller than it"
            )
        else:
            notes.append(f"kept only the title: max_tokens={max_tokens} leaves no room for more")
        if parts:
            notes.extend(describe_cuts(parts, [False] * len(parts)))
        return cut_title, notes
    remaining = available - (len(title_line) + 2 if title_line else 0)
    chosen = plan(parts, remaining, outline=not ranked, best_first=ranked)
    if chosen.partial >= 0:
        longer = len(marker(len(parts), tokens(full), max_tokens, shortened=True)) - len(
            worst_marker
        )
        chosen = plan(parts, remaining - longer, outline=not ranked, best_first=ranked)
    body = []
    for position, (part, stays) in enumerate(zip(parts, chosen.kept, strict=True)):
        if stays:
            body.append(part.text)
        elif position == chosen.partial:
            body.append(chosen.partial_text)
    cut = [not stays and i != chosen.partial for i, stays in enumerate(chosen.kept)]
    cut_tokens = sum(tokens(p.text) for p, c in zip(parts, cut, strict=True) if c)
    if chosen.partial >= 0:
        cut_tokens += tokens(parts[chosen.partial].text) - tokens(chosen.partial_text)
        where = parts[chosen.partial].section
        notes.append(
            f"cut the block under {where!r} short to fit"
            if where
            else "cut the first block short to fit"
        )
    notes.extend(describe_cuts(parts, [not c for c in cut]))
    content = "\n\n".join(
        [*pieces, *body, marker(sum(cut), cut_tokens, max_tokens, shortened=chosen.partial >= 0)]
    )
    if len(content) > limit:  # never: the marker's room was kept; the budget is the rule
        content = cut_text(content, limit)
    return content, notes


def links_in(blocks: Sequence[Block], order: Sequence[int]) -> list[int]:
    """Indexes of the links the blocks of ``order`` hold, in page order, each once."""
    found: dict[int, None] = {}

    def visit(block: Block) -> None:
        texts = [block.inline, *(cell for row in block.rows for cell in row)]
        pending = list(block.items)
        while pending:
            item = pending.pop(0)
            texts.append(item.inline)
            pending.extend(nested for child in item.children for nested in child.items)
        for text in texts:
            for match in _LINK_MARK.finditer(text):
                found.setdefault(int(match.group(1)), None)
        for child in block.children:
            visit(child)

    for index in sorted(order):
        visit(blocks[index])
    return list(found)


def links_content(
    links: Sequence[Link], shown: Iterable[int], max_tokens: int | None
) -> tuple[str, list[str]]:
    """One ``[n] text <url>`` line per link of ``shown`` (``n`` its number on the page),
    the last ones cut to fit the budget."""
    lines = [f"[{i + 1}] {links[i].text} <{links[i].url}>" for i in shown if i < len(links)]
    full = "\n".join(lines)
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    room = limit - len(marker(len(lines), tokens(full), max_tokens)) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    cut = len(lines) - len(kept)
    cut_tokens = tokens(full) - tokens(used)
    content = "\n".join([*kept, marker(cut, cut_tokens, max_tokens)])
    if len(content) > limit:
        content = cut_text(content, limit)
    return content, [f"cut the last {cut} of {len(lines)} links ({cut_tokens:,} tokens)"]


def json_content(
    title: str,
    blocks: Sequence[Block],
    order: Sequence[int],
    ranks: dict[int, int],
    renderer: Renderer,
    extraction: Extraction,
    max_tokens: int | None,
    earlier: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The JSON object of :mod:`._formats`, within the budget: blocks are cut by priority,
    then (when still too long) the links, forms and media lists and the metadata. Its
    ``"truncation"`` holds the ``earlier`` notes and the cuts; the cuts are returned."""
    block_data = [renderer.block_json(blocks[i]) for i in order]
    texts = [_dump(data) for data in block_data]
    document: dict[str, Any] = {
        "title": title,
        "headings": [],
        "blocks": [],
        "links": [
            {"number": n, "text": link.text, "url": link.url}
            for n, link in enumerate(extraction.links, 1)
        ],
        "forms": [_form_json(form) for form in extraction.forms],
        "media": [_media_json(item) for item in extraction.media],
        "metadata": _metadata_json(extraction.metadata),
    }

    def render(kept: Sequence[bool], truncation: list[str]) -> str:
        chosen = [data for data, k in zip(block_data, kept, strict=True) if k]
        document["blocks"] = chosen
        document["headings"] = [
            {"level": d["level"], "text": d["text"]} for d in chosen if d["type"] == "heading"
        ]
        if earlier or truncation:
            document["truncation"] = [*earlier, *truncation]
        else:
            document.pop("truncation", None)
        return _dump(document)

    full = render([True] * len(block_data), [])
    if max_tokens is None or len(full) <= max_tokens * 4:
        return full, []
    limit = max_tokens * 4
    placeholder = ["x" * 160]  # room for the truncation notes, filled in once known
    notes, empty = _drop_lists(
        document, lambda: render([False] * len(block_data), placeholder), limit
    )
    # A heading costs twice: in "blocks" and in "headings".
    costs = [
        text + ("x" * (len(text) + 2) if data["type"] == "heading" else "")
        for text, data in zip(texts, block_data, strict=True)
    ]
    parts = _parts(blocks, order, ranks, costs)
    if len(empty) < limit:
        kept = plan(parts, limit - len(empty), outline=not ranks).kept
    else:
        kept = [False] * len(parts)
    priority = sorted(
        range(len(parts)),
        key=lambda i: (0, parts[i].level, i) if parts[i].heading else (1, parts[i].rank, i),
    )
    while True:
        cuts = [*notes, *(describe_cuts(parts, kept) if not all(kept) else [])]
        content = render(kept, cuts)
        if len(content) <= limit or not any(kept):
            break
        kept[next(i for i in reversed(priority) if kept[i])] = False
    if len(content) > limit:
        content, cut = _title_only(title, limit, max_tokens)
        cuts = [*cuts, cut]
    return content, cuts


def _drop_lists(
    document: dict[str, Any], render_empty: Callable[[], str], limit: int
) -> tuple[list[str], str]:
    """Leave the links, media and forms lists and the metadata out of ``document``, in that
    order, while the document without blocks takes more than half of ``limit``: the notes
    saying what was left out, and the document without blocks as it is then."""
    notes: list[str] = []
    empty = render_empty()
    for key, what in (
        ("links", "links list"),
        ("media", "media list"),
        ("forms", "forms list"),
        ("metadata", "metadata"),
    ):
        if len(empty) <= limit // 2:
            break
        if document[key]:
            document[key] = {} if key == "metadata" else []
            notes.append(f"the {what} left out of the JSON content (result.{key} has it)")
            empty = render_empty()
    return notes, empty


def _title_only(title: str, limit: int, max_tokens: int) -> tuple[str, str]:
    """Not even an empty document fits: the title alone, cut to the budget, and the note."""
    minimal: dict[str, Any] = {"title": "", "truncation": ["cut to the title"]}
    room = limit - len(_dump(minimal))
    minimal["title"] = cut_text(title, room) if room > 0 else ""
    content = _dump(minimal) if room > 0 else "{}"
    return content, (
        f"cut the title to {len(minimal['title'])} characters: max_tokens={max_tokens} is "
        "smaller than it"
    )


def _dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def _form_json(form: Form) -> dict[str, Any]:
    return {
        "action": form.action,
        "method": form.method,
        "name": form.name,
        "fields": [
            {
                "name": f.name,
                "type": f.type,
                "value": f.value,
                "label": f.label,
                "required": f.required,
                "options": list(f.options),
            }
            for f in form.fields
        ],
    }


def _media_json(item: MediaItem) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "url": item.url,
        "alt": item.alt,
        "width": item.width,
        "height": item.height,
    }


def _metadata_json(metadata: Metadata) -> dict[str, Any]:
    return {
        "description": metadata.description,
        "author": metadata.author,
        "published": metadata.published,
        "language": metadata.language,
        "canonical": metadata.canonical,
        "site_name": metadata.site_name,
        "title": metadata.title,
        "authors": list(metadata.authors),
    }
