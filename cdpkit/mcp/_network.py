"""The MCP tools that show what the page does: ``browser_network_requests``,
``browser_network_request`` and ``browser_performance_trace``.

They wrap :mod:`cdpkit.tools.network` and :mod:`cdpkit.tools.performance` for a model:
a request list as one short line per request (JSON would cost several times the
tokens), bodies cut to a size, files saved in the server's download directory. The
server starts the network log of every page it works on (:func:`watch_network`), so
the list covers everything since the page's last navigation.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from .. import tools
from ..page import Page
from ..tools.files import claim_free_name, sanitize_filename

__all__ = [
    "browser_network_request",
    "browser_network_requests",
    "browser_performance_trace",
    "watch_network",
]

_DEFAULT_LIMIT = 100


async def watch_network(page: Page) -> None:
    """Start recording ``page``'s requests (nothing if it already is)."""
    await tools.start_network_log(page)


def _size(size: int | None) -> str:
    if size is None:
        return "-"
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def _line(request: tools.NetworkRequest) -> str:
    status = str(request.status) if request.status is not None else "---"
    if request.failed:
        status = f"FAILED {request.failed}"
    elif request.duration_ms is None:
        status += " (loading)" if request.status is not None else "(pending)"
    duration = f"{request.duration_ms:.0f} ms" if request.duration_ms is not None else "-"
    cached = " (cache)" if request.from_cache else ""
    return (
        f"[{request.id}] {request.method} {request.url} -> {status}{cached} "
        f"{request.resource_type} {request.mime_type or '-'} {_size(request.size)} {duration}"
    )


async def browser_network_requests(
    page: Page,
    *,
    url_pattern: str | None = None,
    resource_types: list[str] | None = None,
    failed_only: bool = False,
    limit: int = _DEFAULT_LIMIT,
) -> str:
    """List the network requests the page made since its last navigation (its own
    document request first): one line each with the request id, method, URL, status (or
    why it failed), resource type, MIME type, size received and duration.

    Use it to see which API calls a page made, what failed (4xx/5xx statuses, refused
    connections, blocked requests) and what was slow. Pass an id to
    browser_network_request for that request's headers and body.

    Args:
        page: The page.
        url_pattern: Only URLs matching this: a glob when it holds ``*`` (``*api*``,
            ``*.png``, matched against the whole URL), else a substring (``/api/``).
        resource_types: Only these types: Document, Stylesheet, Script, Image, Font,
            Media, XHR, Fetch, WebSocket, Other (any case).
        failed_only: Only failed requests: no response, or an HTTP status of 400 and up.
        limit: Show at most this many (the most recent).

    Returns:
        One line per request, oldest first, and how many matched.
    """
    found = await tools.network_requests(
        page, url_pattern=url_pattern, resource_types=resource_types, failed_only=failed_only
    )
    if not found:
        return "No request matched since the page's last navigation."
    shown = found[-limit:] if limit > 0 else found
    head = f"{len(found)} requests" + (f" (the last {len(shown)} shown)" if len(shown) < len(found) else "")
    return head + ":\n" + "\n".join(_line(request) for request in shown)


async def browser_network_request(
    page: Page,
    id: str,
    *,
    body: bool = True,
    max_body_chars: int = 20_000,
    save_to: Path | None = None,
) -> dict[str, Any]:
    """Show one network request in full: request and response headers, the post data it
    sent, its timing phases (ms) and the response body.

    A text body (HTML, JSON, JavaScript, CSS...) is returned as text, cut to
    ``max_body_chars``; a binary one (an image, a font...) is saved as a file in the
    server's download directory and its path returned. Chrome may no longer hold a body
    (it drops them when the page navigates or they are large): the result then says so.

    Args:
        page: The page.
        id: The request's id, from browser_network_requests (the text in brackets).
        body: Also return the response body.
        max_body_chars: Cut a text body to this many characters.
        save_to: Where binary bodies go (set by the server, not an MCP argument).

    Returns:
        The request (summary, headers, post data, timing) and its body, body file or a
        note on why there is none.
    """
    details = await tools.network_request(page, id, body=body, save_to=save_to)
    shown = dataclasses.asdict(details)
    text = details.body
    if text is not None and len(text) > max_body_chars:
        shown["body"] = text[:max_body_chars]
        shown["body_note"] = (
            f"cut to {max_body_chars} of {len(text)} characters; pass a larger max_body_chars "
            f"for more"
        )
    return shown


async def browser_performance_trace(
    page: Page,
    *,
    reload: bool = True,
    filename: str | None = None,
    output_dir: Path | None = None,
) -> dict[str, Any]:
    """Record a performance trace of the page (reloading it under trace by default) and
    report its Web Vitals: LCP, CLS, INP (only with interactions; null otherwise), TTFB,
    FCP in milliseconds, and the five longest main-thread tasks with the script they
    ran. The trace is saved as a file that the Chrome DevTools Performance panel opens.

    Args:
        page: The page.
        reload: Reload the page under trace (to measure loading); false records 1 s of
            what the page does now.
        filename: The trace file's name (default ``trace-<timestamp>.json``); it is
            saved in the server's download directory, never over a file already there
            (``name-1.json`` when the name is taken).
        output_dir: The directory (set by the server, not an MCP argument).

    Returns:
        The vitals, the longest tasks and the trace file's path.
    """
    directory = output_dir or Path.cwd()
    name = sanitize_filename(filename) if filename else ""
    # Never over a file already there: a free name (name-1.json...) when it is taken.
    path = claim_free_name(directory, name or f"trace-{int(time.time() * 1000)}.json")
    try:
        report = await tools.performance_trace(page, path, reload=reload)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return dataclasses.asdict(report)
