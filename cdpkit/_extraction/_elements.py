"""What an element is, read from its tag and attributes alone: skipped, a container, a
block, page chrome, hidden by a class, a layout table; an image's best source; a code
block's language. :class:`._blocks.BlockReader` asks these while it walks."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from ._block import collapse, resolve_url
from ._types import MediaItem

__all__ = [
    "BLOCK_TAGS",
    "CHROME_ROLES",
    "CHROME_TAGS",
    "CONTAINER_TAGS",
    "COOKIE_BANNER",
    "HIDDEN_STYLE",
    "SECTIONING",
    "SKIPPED_TAGS",
    "code_language",
    "hidden_by_class",
    "image_item",
    "int_attr",
    "is_layout_table",
]

_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight-source|brush:?)-?([\w+#.-]+)")


COOKIE_BANNER = re.compile(r"cookie|consent|gdpr|onetrust|cookiebot", re.IGNORECASE)


HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


SKIPPED_TAGS = frozenset(
    [
        "script",
        "style",
        "template",
        "noscript",
        "head",
        "title",
        "meta",
        "link",
        "base",
        "svg",
        "canvas",
        "iframe",
        "object",
        "embed",
        "button",
        "input",
        "select",
        "textarea",
        "option",
        "optgroup",
        "datalist",
        "map",
        "area",
        "source",
        "track",
        "param",
        "frame",
        "frameset",
        "applet",
        "portal",
        "slot",
        "label",
        # MathML's other forms of a formula (its TeX source...): never shown, the
        # presentation markup is.
        "annotation",
        "annotation-xml",
    ]
)


CONTAINER_TAGS = frozenset(
    [
        "html",
        "body",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "nav",
        "aside",
        "address",
        "details",
        "summary",
        "fieldset",
        "legend",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "center",
        "hgroup",
        "form",
        "search",
        "dialog",
        "caption",
        "li",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "td",
        "th",
    ]
)


BLOCK_TAGS = (
    frozenset(
        [
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "p",
            "pre",
            "ul",
            "ol",
            "menu",
            "table",
            "blockquote",
            "hr",
            "video",
            "audio",
        ]
    )
    | CONTAINER_TAGS
)


CHROME_TAGS = frozenset({"nav", "footer", "aside"})


CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})


SECTIONING = frozenset({"article", "main", "section"})


# Classes that hide an element in the usual CSS frameworks (Bootstrap, Tailwind, WordPress).
_HIDING_CLASSES = frozenset(
    {
        "sr-only",
        "visually-hidden",
        "screen-reader-text",
        "d-none",
        "is-hidden",
        "u-hidden",
        "hidden",
    }
)


def hidden_by_class(classes: str) -> bool:
    """Whether ``classes`` hide the element (``hidden`` only without a responsive
    ``md:block``-style class that shows it again)."""
    names = classes.split()
    for name in names:
        if name in _HIDING_CLASSES:
            return name != "hidden" or not any(":" in other for other in names)
    return False


def int_attr(value: str | None) -> int | None:
    if not value:
        return None
    match = re.match(r"\s*(\d+)", value)
    return int(match.group(1)) if match else None


def image_item(node: LexborNode, base_url: str, *, data: bool = False) -> MediaItem | None:
    """An ``<img>`` as a media item (absolute best source, alt, size), or ``None`` when it
    has no source but a ``data:`` placeholder (kept as its source when ``data``)."""
    attrs = node.attributes
    url = _image_source(attrs)
    if not url and data:
        url = next(
            (
                value.strip()
                for name in ("src", "data-src")
                if (value := attrs.get(name) or "").strip()
            ),
            "",
        )
    if not url:
        return None
    return MediaItem(
        kind="image",
        url=resolve_url(base_url, url),
        alt=collapse(attrs.get("alt") or attrs.get("title") or "").strip(),
        width=int_attr(attrs.get("width")),
        height=int_attr(attrs.get("height")),
    )


def _image_source(attrs: dict[str, str | None]) -> str:
    """The best URL of an image: the largest ``srcset`` candidate, else ``src``, else the
    lazy-loading attributes; never a ``data:`` placeholder."""
    best, best_size = "", -1.0
    for name in ("srcset", "data-srcset"):
        srcset = attrs.get(name)
        if not srcset:
            continue
        for candidate in re.split(r",\s+(?=\S)", srcset.strip()):
            pieces = candidate.strip(" ,").split()
            if not pieces or pieces[0].startswith("data:") or not pieces[0].strip(","):
                continue
            size = 1.0
            if len(pieces) > 1:
                descriptor = pieces[1].lower()
                try:
                    size = float(descriptor[:-1]) * (1 if descriptor.endswith("w") else 1000)
                except ValueError:
                    size = 1.0
            if size > best_size:
                best, best_size = pieces[0], size
    if best:
        return best
    for name in ("src", "data-src", "data-original", "data-lazy-src"):
        value = (attrs.get(name) or "").strip()
        if value and not value.startswith("data:"):
            return value
    return ""


def code_language(node: LexborNode) -> str:
    """A ``<pre>``'s language: ``data-lang``, or a ``language-*``/``lang-*`` class on it, its
    ``<code>`` or its wrapper ``<div>``; ``""`` when none says."""
    candidates = [node]
    code = node.css_first("code")
    if code is not None:
        candidates.append(code)
    parent = node.parent
    if parent is not None and parent.tag == "div":
        candidates.append(parent)  # GitHub: <div class="highlight-source-python"><pre>
    for element in candidates:
        attrs = element.attributes
        language = attrs.get("data-lang") or attrs.get("data-language")
        if language:
            return language.strip().lower()
        match = _LANGUAGE_CLASS.search(attrs.get("class") or "")
        if match:
            return match.group(1).lower()
    return ""


def is_layout_table(node: LexborNode) -> bool:
    """Whether a ``<table>`` lays out a page rather than holding data: it nests a table,
    says it is a presentation, or holds headings, code or quotes in its cells."""
    attrs = node.attributes
    if attrs.get("role") in ("presentation", "none"):
        return True
    if any(inner.mem_id != node.mem_id for inner in node.css("table")):
        return True
    return node.css_first("h1, h2, h3, h4, h5, h6, pre, blockquote, article") is not None
