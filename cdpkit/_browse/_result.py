"""What :func:`cdpkit.browse` takes and gives back: its options, its result and its errors.

The options and what one extraction finds (links, forms, media, metadata) are the
extraction package's (:mod:`cdpkit._extraction`), named here again for the engine's callers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from .._extraction import (
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
from ..errors import CDPError

__all__ = [
    "FORMATS",
    "FORM_HEAD",
    "LINK_STYLES",
    "BrowseCall",
    "BrowseError",
    "BrowseFormat",
    "BrowseOptions",
    "BrowseResult",
    "ErrorFamily",
    "Extraction",
    "Form",
    "FormField",
    "KeywordMode",
    "Link",
    "LinkStyle",
    "MediaItem",
    "Metadata",
    "Timing",
]

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
class Timing:
    """Milliseconds spent fetching (all tiers tried), extracting, and in all."""

    fetch_ms: float = 0.0
    extract_ms: float = 0.0
    total_ms: float = 0.0


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
