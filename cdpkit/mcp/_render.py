"""How each tool's result becomes MCP result parts: images as images, PDFs and files up
to :data:`MAX_INLINE_BYTES` as embedded blobs (larger ones by path), the rest as text
or JSON.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import tools
from ..tools.files import claim_free_name, sanitize_filename, sniffed_type
from ._schema import Blob, Image, Part, Text, to_json
from ._urls import UrlBlockedError

if typing.TYPE_CHECKING:
    from ._session import BrowserSession

# Files and media up to this size are embedded in results; larger ones are reported by
# path and metadata only.
MAX_INLINE_BYTES = 5 * 1024 * 1024

# A tool's result and the session -> the parts of the MCP result.
Render = Callable[[Any, "BrowserSession"], list[Part]]


def render_default(result: Any, session: BrowserSession) -> list[Part]:
    """``None`` as ``Done.``, a string as it is, anything else as JSON."""
    if result is None:
        return [Text("Done.")]
    if isinstance(result, str):
        return [Text(result)]
    return [Text(to_json(result))]


def render_json(result: Any, session: BrowserSession) -> list[Part]:
    return [Text(to_json(result))]


# Pending requests named in a navigation's result; more are only counted.
_PENDING_SHOWN = 5


def render_navigation(result: Any, session: BrowserSession) -> list[Part]:
    if result is None:
        return [Text("No page that way in the history: nothing happened.")]
    pending: tuple[str, ...] = result.pending
    parts: list[Part] = [
        Text(to_json({"url": result.url, "status": result.status, "title": result.title}))
    ]
    if result.nothing_rendered:  # the page shows nothing: say why before anything else
        parts.append(Text(f"The page shows nothing: {result.nothing_rendered}."))
    if pending:
        shown = "\n".join(f"- {url}" for url in pending[:_PENDING_SHOWN])
        more = len(pending) - _PENDING_SHOWN
        state = "The page is not rendered yet" if result.nothing_rendered else "The page is usable"
        parts.append(
            Text(
                f"{state}; {len(pending)} request(s) still loading (not waited "
                f"for):\n{shown}" + (f"\n... and {more} more" if more > 0 else "")
            )
        )
    if result.given_up:
        shown = "\n".join(f"- {url}" for url in result.given_up)
        parts.append(
            Text(
                f"Given up (parser-blocking scripts not loaded within --script-timeout; the "
                f"page went on as if they had failed to load):\n{shown}"
            )
        )
    return parts


def render_snapshot(result: tools.Snapshot, session: BrowserSession) -> list[Part]:
    """The outline (its cut hints in MCP words), and a line on what the budget cut."""
    text = result.text.replace("; snapshot(index=", "; browser_snapshot(index=")
    parts: list[Part] = [Text(text or "(no node matched)")]
    if result.cut:
        lines = sum(cut.lines for cut in result.cut)
        parts.append(
            Text(
                f"({len(result.cut)} subtrees, {lines} lines, were cut to fit max_chars: see "
                f"one with browser_snapshot index=N, or pass a larger max_chars.)"
            )
        )
    return parts


def render_screenshot(result: bytes, session: BrowserSession) -> list[Part]:
    return [Image(result, sniffed_type(result) or "image/png")]


def render_console(result: list[tools.ConsoleMessage], session: BrowserSession) -> list[Part]:
    if not result:
        return [Text("No console messages.")]
    return [Text("\n".join(str(message) for message in result))]


def render_pdf(result: bytes, session: BrowserSession) -> list[Part]:
    return [
        Text(to_json({"mime_type": "application/pdf", "size": len(result)})),
        Blob(result, "application/pdf", f"cdpkit://pdf/{int(time.time() * 1000)}.pdf"),
    ]


def _file_parts(path: Path, mime_type: str | None, size: int) -> list[Part]:
    """A saved file as content: an image, or an embedded blob; nothing when too large."""
    if size > MAX_INLINE_BYTES:
        return []
    data = path.read_bytes()
    if mime_type is not None and mime_type.startswith("image/") and mime_type != "image/svg+xml":
        return [Image(data, mime_type.split(";")[0].strip())]
    return [
        Blob(data, (mime_type or "application/octet-stream").split(";")[0].strip(), path.as_uri())
    ]


def render_download(result: tools.DownloadResult, session: BrowserSession) -> list[Part]:
    if session.downloads is not None:
        session.downloads.saved(result)  # browser_downloads lists it with the pages' ones
    parts: list[Part] = [Text(to_json(result))]
    embedded = _file_parts(Path(result.path), result.mime_type, result.size)
    if not embedded:
        parts.append(
            Text(
                f"The file is larger than {MAX_INLINE_BYTES // (1024 * 1024)} MiB: it is not "
                f"embedded here; it is saved at {result.path}."
            )
        )
    return parts + embedded


def render_scrape(result: tools.ScrapeResult, session: BrowserSession) -> list[Part]:
    # A media file is fetched without the tab: its redirects are only seen here.
    reason = session.options.url_policy.refusal(result.final_url)
    if reason is not None:
        raise UrlBlockedError(
            f"Navigation to {result.url} was redirected to {result.final_url}, which is "
            f"blocked: {reason}."
        )
    meta = {
        "url": result.url,
        "final_url": result.final_url,
        "status": result.status,
        "title": result.title,
        "format": result.format,
    }
    if result.format == "links":
        return [Text(to_json({**meta, "links": result.links}))]
    if result.content is not None:
        return [Text(to_json({**meta, "truncated": result.truncated})), Text(result.content)]
    data = result.data or b""
    mime_type = result.mime_type or "application/octet-stream"
    meta.update(mime_type=mime_type, size=len(data))
    if (
        mime_type.startswith("image/")
        and mime_type != "image/svg+xml"
        and len(data) <= MAX_INLINE_BYTES
    ):
        return [Text(to_json(meta)), Image(data, mime_type)]
    if len(data) <= MAX_INLINE_BYTES:
        return [Text(to_json(meta)), Blob(data, mime_type, result.final_url)]
    directory = session.options.download_dir
    directory.mkdir(parents=True, exist_ok=True)
    name = sanitize_filename(Path(result.final_url.split("?")[0]).name) or "media"
    path = claim_free_name(directory, f"{int(time.time() * 1000)}-{name}")  # never over a file
    path.write_bytes(data)
    meta["path"] = str(path)
    return [Text(to_json(meta)), Text(f"The media is too large to embed; it is saved at {path}.")]


