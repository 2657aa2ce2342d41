"""HTML or text to an :class:`Extraction` (a deliberately simple stand-in: the full
pipeline, with selectors, readability, filters, ranking and the token budget, replaces it
with the same two functions)."""

from __future__ import annotations

import json
import urllib.parse

from selectolax.lexbor import LexborHTMLParser

from ._result import BrowseOptions, Extraction, Link, Metadata

__all__ = ["extract_html", "extract_text"]

_BLOCKS = "h1, h2, h3, h4, h5, h6, p, li, pre, td, th, blockquote"
_JS_WORDS = ("enable javascript", "javascript is required", "requires javascript", "turn on javascript")


def _budget(text: str, options: BrowseOptions) -> tuple[str, bool, list[str]]:
    if options.max_tokens is None or len(text) <= options.max_tokens * 4:
        return text, False, []
    limit = options.max_tokens * 4
    cut = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[:limit]
    return cut, True, [f"{len(text) - len(cut)} characters at the end"]


def extract_html(html: str, url: str, options: BrowseOptions) -> Extraction:
    """The title, the text blocks and the links of ``html``; ``javascript_needed`` for an
    empty app root or a ``<noscript>`` asking for JavaScript."""
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = title_node.text(strip=True) if title_node is not None else ""
    noscript = " ".join(node.text(strip=True).lower() for node in tree.css("noscript"))
    for node in tree.css("script, style, noscript, template"):
        node.decompose()
    body = tree.body
    text = body.text(separator=" ", strip=True) if body is not None else ""
    blocks: list[str] = []
    for node in tree.css(_BLOCKS):
        piece = node.text(separator=" ", strip=True)
        if not piece:
            continue
        tag = node.tag or ""
        level = tag[1:] if tag[:1] == "h" and tag[1:].isdigit() else ""
        blocks.append(f"{'#' * int(level)} {piece}" if level and options.format == "markdown" else piece)
    links = []
    for anchor in tree.css("a[href]"):
        href = anchor.attributes.get("href") or ""
        if href.startswith(("javascript:", "#")):
            continue
        links.append(Link(urllib.parse.urljoin(url, href), anchor.text(strip=True)))
    if options.format == "links":
        content = "\n".join(f"{link.url}\t{link.text}" for link in links)
    elif options.format == "json":
        content = json.dumps({"title": title, "blocks": blocks}, ensure_ascii=False)
    else:
        head = f"# {title}\n\n" if title and options.format == "markdown" else ""
        content = head + "\n\n".join(blocks)
    needed = None
    for root in ("#root", "#app", "[ng-app]"):
        app = tree.css_first(root)
        if app is not None and not app.text(strip=True) and len(text) < 200:
            needed = f"an empty app root ({root}) and no rendered text"
    if needed is None and any(word in noscript for word in _JS_WORDS) and len(text) < 500:
        needed = "a <noscript> asks for JavaScript"
    lang = tree.css_first("html")
    meta = tree.css_first('meta[name="description"]')
    metadata = Metadata(
        description=(meta.attributes.get("content") or "") if meta is not None else "",
        language=(lang.attributes.get("lang") or "") if lang is not None else "",
    )
    content, truncated, truncation = _budget(content, options)
    return Extraction(
        title=title,
        content=content,
        links=links,
        metadata=metadata,
        truncated=truncated,
        truncation=truncation,
        text_chars=len(text),
        javascript_needed=needed,
    )


def extract_text(
    text: str, url: str, options: BrowseOptions, *, title: str = "", mime_type: str = "text/plain"
) -> Extraction:
    """Plain text, JSON or a PDF's text, passed through (within the token budget)."""
    content, truncated, truncation = _budget(text, options)
    return Extraction(
        title=title,
        content=content,
        truncated=truncated,
        truncation=truncation,
        text_chars=len(text),
    )
