"""The extraction pipeline: HTML (or text) in; blocks, main content, markdown, text, JSON
and metadata out. Pure and synchronous: no browser, no network, no engine. It sits below
the tools: ``tools.scrape`` and the browse engine (``cdpkit._browse``) both call it.

The pieces: ``_types`` (options, links, forms, media, metadata), ``_document`` (title,
metadata, forms, JavaScript signals), ``_blocks`` and ``_block`` (HTML to blocks),
``_main_content`` (the article alone, ``readability``), ``_rank`` (keywords, BM25, the
``semantic`` extra), ``_formats`` and ``_content`` (blocks to markdown, text, JSON, links,
within a token budget, ``_budget``), ``_title`` (which heading says the page's title) and
``_extract`` (the stages in order). Importing the package loads none of them: its names
load on first use (selectolax, and trafilatura for ``readability``, cost to import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._core.lazy import lazy_exports

if TYPE_CHECKING:
    from ._extract import extract_html, extract_text
    from ._title import says_title
    from ._types import (
        FORM_HEAD,
        FORMATS,
        LINK_STYLES,
        BrowseFormat,
        BrowseOptions,
        Extraction,
        Form,
        FormField,
        KeywordMode,
        Link,
        LinkStyle,
        MediaItem,
        Metadata,
    )

_HOMES = {
    "BrowseFormat": "_types",
    "BrowseOptions": "_types",
    "Extraction": "_types",
    "FORMATS": "_types",
    "FORM_HEAD": "_types",
    "Form": "_types",
    "FormField": "_types",
    "KeywordMode": "_types",
    "LINK_STYLES": "_types",
    "Link": "_types",
    "LinkStyle": "_types",
    "MediaItem": "_types",
    "Metadata": "_types",
    "extract_html": "_extract",
    "extract_text": "_extract",
    "says_title": "_title",
}

__all__ = [
    "FORMATS",
    "FORM_HEAD",
    "LINK_STYLES",
    "BrowseFormat",
    "BrowseOptions",
    "Extraction",
    "Form",
    "FormField",
    "KeywordMode",
    "Link",
    "LinkStyle",
    "MediaItem",
    "Metadata",
    "extract_html",
    "extract_text",
    "says_title",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
