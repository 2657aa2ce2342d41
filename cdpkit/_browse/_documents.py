"""What a fetched resource is, and how it becomes text: HTML decoding (charset), pages a
browser can get past (bot challenges, script redirects), PDFs, images, plain text and
JSON, and the types only a download can keep.

Synchronous and CPU-only: the engine runs these in a worker thread.
"""

from __future__ import annotations

import io
import posixpath
import re
import urllib.parse
from dataclasses import dataclass

from ._result import BrowseError, BrowseOptions, Extraction, MediaItem

__all__ = [
    "MediaLimits",
    "browser_needed",
    "decode_html",
    "extract_document",
    "image_data",
    "is_html",
    "mime_type_of",
]

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = (
    "application/json", "application/ld+json", "application/xml", "application/javascript",
    "application/x-ndjson", "application/yaml", "application/x-yaml", "application/toml",
)  # fmt: skip
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
# What bot challenges and interstitials a browser passes put in their pages.
_CHALLENGE_MARKERS = (
    "just a moment", "checking your browser", "cf-browser-verification", "challenge-platform",
    "_cf_chl_opt", "cf-chl-", "ddos protection by", "please enable cookies",
    "verify you are human", "attention required", "px-captcha", "_incapsula_resource",
    "enable javascript and cookies to continue",
)  # fmt: skip
_SCRIPT_REDIRECT = re.compile(
    r"(?:window\.|document\.|top\.|self\.)?location(?:\.href)?\s*=(?!=)|location\.(?:replace|assign)\s*\(",
    re.IGNORECASE,
)
_META_REFRESH = re.compile(r"<meta[^>]+http-equiv\s*=\s*[\"']?refresh", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class MediaLimits:
    """How an image becomes a media item's data: the box it is scaled to fit, the WebP
    quality, and whether to make the data at all."""

    include: bool = False
    max_width: int = 640
    max_height: int = 480
    quality: int = 80


def mime_type_of(content_type: str) -> str:
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return content_type.split(";", 1)[0].strip().lower()


def _charset_of(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def is_html(mime_type: str, body: bytes) -> bool:
    """Whether to read the resource as HTML: by its type, or (no type) by its start."""
    if mime_type in _HTML_TYPES:
        return True
    if mime_type in ("", "application/octet-stream"):
        start = body[:512].lstrip().lower()
        return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))
    return False


def decode_html(body: bytes, content_type: str) -> str:
    """The text of an HTML document: the charset of the ``Content-Type`` header, else of
    its ``<meta charset>`` (or ``http-equiv``), else detected, else UTF-8 with
    replacement characters. A byte order mark wins over all of them."""
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8", "replace")
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        return body.decode("utf-16", "replace")
    for charset in (_charset_of(content_type), _meta_charset(body)):
        if charset:
            try:
                return body.decode(charset, "replace")
            except LookupError:
                continue  # an unknown charset name: try the next source
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(body[:200_000]).best()
    if best is not None and best.encoding:
        return body.decode(best.encoding, "replace")
    return body.decode("utf-8", "replace")


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii", "replace") if match else None


def browser_needed(status: int, html: str, text_chars: int) -> str | None:
    """Why a browser may get past this response where HTTP alone did not, or ``None``: a
    bot challenge (``403``/``429``/``503`` with a challenge page, e.g. Cloudflare's "Just
    a moment...") or a page that only redirects with a script or ``<meta refresh>``."""
    lowered = html[:100_000].lower()
    if status in (403, 429, 503) and any(marker in lowered for marker in _CHALLENGE_MARKERS):
        return f"HTTP {status} with a bot challenge page a browser may pass"
    if status < 400 and text_chars < 200:
        if _META_REFRESH.search(lowered):
            return "the page redirects with <meta http-equiv=refresh>"
        if "<script" in lowered and _SCRIPT_REDIRECT.search(lowered):
            return "the page redirects with a script"
    return None


def _filename(url: str) -> str:
    return posixpath.basename(urllib.parse.urlsplit(url).path) or url


def extract_document(
    body: bytes, mime_type: str, url: str, options: BrowseOptions, media: MediaLimits
) -> Extraction:
    """A resource that is not HTML as an :class:`Extraction`: a PDF's text, an image as a
    media item, text and JSON passed through.

    Raises:
        BrowseError: ``processing.pdf`` for a PDF that cannot be read,
            ``processing.unsupported`` for a binary type only a download can keep.
    """
    from .._extraction import extract_text

    if mime_type == "application/pdf" or (not mime_type and body.startswith(b"%PDF-")):
        text, title = _pdf_text(body, url)
        return extract_text(text, url, options, title=title or _filename(url), mime_type="application/pdf")
    if mime_type.startswith("image/"):
        return _image(body, mime_type, url, media)
    if mime_type.startswith("text/") or mime_type in _TEXT_TYPES or mime_type.endswith(("+json", "+xml")):
        text = decode_html(body, f"{mime_type}; charset={_guess_text_charset(body)}")
        return extract_text(text, url, options, title=_filename(url), mime_type=mime_type)
    raise BrowseError(
        url,
        "processing.unsupported",
        f"{mime_type or 'an unknown binary type'} is a file to download, not a page or a "
        "document cdpkit can read",
        recoverable=False,
        suggestion="use cdpkit download to save it",
    )


def _guess_text_charset(body: bytes) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"


def _pdf_text(body: bytes, url: str) -> tuple[str, str]:
    """The text of every page (blank line between pages) and the title of a PDF."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted:
            raise BrowseError(
                url,
                "processing.pdf",
                "the PDF is encrypted",
                recoverable=False,
                suggestion="open it with its password in a PDF reader",
            )
        pages = [page.extract_text() or "" for page in reader.pages]
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title).strip()
    except BrowseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise BrowseError(
            url,
            "processing.pdf",
            f"the PDF could not be read ({exc})",
            recoverable=False,
            suggestion="use cdpkit download to save the file as it is",
        ) from None
    return "\n\n".join(page.strip() for page in pages if page.strip()), title


def image_data(body: bytes, media: MediaLimits) -> tuple[int, int, bytes | None] | None:
    """An image's width and height, and (when ``media.include``) a WebP of it scaled to fit
    ``max_width`` x ``max_height``; ``None`` when it cannot be decoded."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(body)) as image:
            image.load()
            width, height = image.size
            if not media.include:
                return width, height, None
            copy = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
            copy.thumbnail((media.max_width, media.max_height))
            out = io.BytesIO()
            copy.save(out, "WEBP", quality=media.quality)
            return width, height, out.getvalue()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def _image(body: bytes, mime_type: str, url: str, media: MediaLimits) -> Extraction:
    """The image as one media item: its size, and a WebP scaled to fit the box when
    ``media.include``. An image that cannot be decoded is its URL only (no error)."""
    name = _filename(url)
    decoded = image_data(body, media)
    if decoded is None:
        return Extraction(
            title=name,
            content=f"![{name}]({url})",
            media=[MediaItem("image", url, alt=name)],
            truncation=["the image could not be decoded: only its URL is given"],
        )
    width, height, data = decoded
    item = MediaItem(
        "image", url, alt=name, width=width, height=height, data=data,
        mime_type="image/webp" if data is not None else mime_type,
    )  # fmt: skip
    return Extraction(
        title=name,
        content=f"![{name}]({url})\n\n{mime_type} image, {width}x{height} pixels",
        media=[item],
    )
