"""Downloads: fetch a resource the way the page would, or capture a download the page starts.

:func:`download` makes the page itself request the resource (so its cookies, Referer and
session apply, which anti-hotlinking checks require), pauses that request at the
response with the ``Fetch`` domain, and streams the body to disk with ``IO.read``: the
file is never held in memory. If the page cannot load it (a CSP, a network error in the
page's context), or the body is chunked (Chrome does not tell through ``IO.read`` whether
a chunked body ended with its last chunk), it falls back to a direct request carrying the
page's cookies and its URL as Referer. Either way a body shorter than its
``Content-Length``, or a chunked body cut before its end, is an error, never a file.

:func:`expect_download` captures what the browser downloads by itself (a click on a
download link, a ``Content-Disposition: attachment`` response).

Files land in the download directory (default ``~/Downloads``) under a name that never
overwrites anything; they are written to a hidden ``.part`` file first and only appear
under their final name when complete, so a failed download leaves nothing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import email.message
import email.utils
import mimetypes
import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Unpack, cast

from .. import cdp
from .._browser.frames import frame_ids, frame_tree
from .._core.keywords import TARGET_DEFAULTS, ResourceKeywords, check_keywords, keyword_signature
from .._core.tasks import run_in_background
from .._model import RawEvent
from ..errors import CDPError, DownloadError
from ..page import Page
from ..session import EventStream
from ._fetching import (
    PartFile,
    fetch_directly,
    fetch_in_page,
    run_in_thread,
)
from ._file_names import (
    MAX_NAME_BYTES,
    claim_free_name,
    default_download_dir,
    download_dir,
    extension_for,
    publish,
    sanitize_filename,
)
from ._recording import recorded
from ._scripts import Script
from ._targeting import target_from

if TYPE_CHECKING:
    from ..browser import Browser
    from ..cdp.browser import DownloadProgressJSON, DownloadWillBeginJSON

__all__ = [
    "MAX_NAME_BYTES",
    "DownloadResult",
    "PendingDownload",
    "StandingDownloads",
    "claim_free_name",
    "default_download_dir",
    "download",
    "expect_download",
    "extension_for",
    "resource_url",
    "sanitize_filename",
]

_RESOURCE_URL = Script("resource_url")

# Extensions a URL may end in that say nothing about the content (server scripts).


@dataclass(slots=True)
class _DownloadState:
    """Per page: page-context downloads take turns (each intercepts the page's requests)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)




@dataclass(frozen=True, slots=True)
class DownloadResult:
    """A completed download.

    Attributes:
        success: Always ``True`` (failures raise :class:`~cdpkit.DownloadError`).
        filename: The file's name in the download directory.
        path: Its full path.
        size: Its size in bytes.
        mime_type: The content type: the server's, for a file this module fetched; for a
            browser-managed download (:func:`expect_download`), the type of the name
            Chrome saved it under, or of its first bytes when that name has no extension
            (PDF, PNG, JPEG, GIF, WebP, ZIP, gzip, PostScript); ``None`` if neither says.
        url: The resource's URL.
        suggested_filename: The name the server or page suggested, if any.
    """

    success: bool
    filename: str
    path: str
    size: int
    mime_type: str | None
    url: str
    suggested_filename: str | None = None


@keyword_signature(ResourceKeywords, TARGET_DEFAULTS)
async def resource_url(page: Page, **target: Unpack[ResourceKeywords]) -> str:
    """The absolute URL :func:`download` would fetch for an element: a link's ``href``,
    an image's, video's or audio's current source, an ``<object>``'s data...

    The element is given by ``selector``, ``index`` or a locator (``role`` with ``name``,
    ``text``, ``label``, waited for up to 5 s), as for :func:`~cdpkit.tools.click`.

    Raises:
        ValueError: Not exactly one of ``selector``, ``index`` and a locator.
        ElementNotFoundError: Nothing matches.
        AmbiguousLocatorError: The locator matched several elements.
        DownloadError: The element has no downloadable resource.
    """
    element_target = target_from(target, "resource_url", ResourceKeywords)
    if element_target.ways != 1:
        raise ValueError("Provide one of: selector or index")
    element = await element_target.resolve(page)
    try:
        url = await element.call(_RESOURCE_URL)
    finally:
        await element.release()
    if not url:
        raise DownloadError("Element has no downloadable resource")
    return str(url)


def _check_one_source(
    url: str | None, selector: str | None, index: int | None, located: bool = False
) -> None:
    if (url is not None) + (selector is not None) + (index is not None) + located != 1:
        raise ValueError("Provide one of: url, index, or selector")


@recorded
@keyword_signature(ResourceKeywords, TARGET_DEFAULTS)
async def download(
    page: Page,
    *,
    url: str | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
    filename: str | None = None,
    server_filename: bool = False,
    timeout: float = 30,
    initiation_timeout: float = 10,
    **target: Unpack[ResourceKeywords],
) -> DownloadResult:
    """Download a resource as the page would and stream it to disk.

    The download succeeds only when the whole body is on disk: as long as the
    ``Content-Length`` the server sent, or, for a chunked body, ended by its terminating
    chunk. Anything else raises :class:`~cdpkit.DownloadError` and leaves no file.

    Args:
        page: The page whose cookies, Referer and session the request uses.
        url: The resource's URL (relative URLs resolve against the page).
        selector: Or an element whose resource to download: ``img`` (currentSrc/src),
            ``video``/``audio`` (currentSrc or ``<source>``), ``a``/``link`` (href),
            ``object`` (data), ``embed``/``iframe`` (src), or a CSS background-image.
        index: Or that element by its index in the latest ``snapshot``.
        dest_dir: The directory to save into (created if missing); default ``~/Downloads``.
        filename: A name for the file (sanitized; kept inside ``dest_dir``; never
            overwrites: ``name-1.ext`` if taken). Default ``{ms timestamp}.{ext}``, the
            extension from the URL, else the MIME type, else ``.bin``.
        server_filename: Without ``filename``, name the file as ``wget`` does: the name
            the server gives in ``Content-Disposition`` (``filename*=UTF-8''...`` too),
            else the last segment of the URL's path; the timestamp name only if neither
            gives a usable name. Sanitized and never overwriting, like ``filename``.
        timeout: Seconds for the whole download.
        initiation_timeout: Seconds for the response to start.
        role: Or the element of this role (as the snapshot shows it), optionally with
            ``name`` (waited for up to 5 s).
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Or the element holding this visible text.
        label: Or the form field with this label.

    Returns:
        The saved file's name, path, size and the MIME type the server sent.

    Raises:
        ValueError: Not exactly one of ``url``, ``selector``, ``index``.
        ElementNotFoundError: The selector or index matches nothing.
        DownloadError: "Element has no downloadable resource", "Resource fetch failed:
            404 for URL", "Network request failed for URL: ...", a body cut short, or a
            timeout. Nothing is left on disk and no task keeps running.
    """
    check_keywords("download", target, ResourceKeywords)
    # Counted before the locator is read: with a url, the element keywords are not used.
    located = any(target.get(key) is not None for key in ("role", "text", "label"))
    _check_one_source(url, target.get("selector"), target.get("index"), located)
    if url is None:
        url = await resource_url(page, **target)
    else:
        url = urllib.parse.urljoin(page.url, url) if page.url.startswith("http") else url
    url = urllib.parse.urldefrag(url)[0]
    if not url.startswith(("http://", "https://")):
        if url.startswith("data:"):
            return await _save_data_url(url, download_dir(dest_dir), filename)
        raise DownloadError(f"Cannot download {url!r}: only http(s) and data: URLs")
    directory = download_dir(dest_dir)
    lock = page.state(_DownloadState).lock
    try:
        async with asyncio.timeout(timeout):
            async with lock:
                fetched = await fetch_in_page(page, url, directory, initiation_timeout)
            if fetched is None:
                fetched = await fetch_directly(page, url, directory)
    except TimeoutError:
        raise DownloadError(f"Download of {url} timed out after {timeout:g} s") from None
    suggested = _content_disposition_filename(fetched.headers.get("content-disposition"))
    if filename:
        saved_name: str | None = sanitize_filename(filename)
    elif server_filename:
        saved_name = sanitize_filename(suggested or "") or _url_filename(fetched.url)
    else:
        saved_name = None
    mime_type = fetched.headers.get("content-type") or None
    try:
        final = publish(
            fetched.part.path, directory, saved_name or None, extension_for(fetched.url, mime_type)
        )
    except BaseException:
        fetched.part.discard()
        raise
    return DownloadResult(True, final.name, str(final), fetched.part.size, mime_type, url, suggested)


def _content_disposition_filename(value: str | None) -> str | None:
    """The file name a ``Content-Disposition`` header gives (``filename*`` preferred,
    RFC 5987/2231 decoded), unsanitized; ``None`` if it gives none."""
    if not value:
        return None
    message = email.message.Message()
    message["content-disposition"] = value
    plain: str | None = None
    with contextlib.suppress(Exception):  # a malformed header gives no name, not an error
        for key, param in message.get_params(header="content-disposition") or []:
            if key.lower() != "filename" or not param:
                continue
            if isinstance(param, tuple):  # filename*=charset'lang'value wins (RFC 6266)
                return email.utils.collapse_rfc2231_value(param) or plain
            plain = str(param)
    return plain


def _url_filename(url: str) -> str | None:
    """The sanitized last segment of ``url``'s path (percent-decoded), or ``None``."""
    segment = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    return sanitize_filename(segment) or None


async def _save_data_url(url: str, directory: Path, filename: str | None) -> DownloadResult:
    header, _, payload = url.partition(",")
    mime_type = header[5:].split(";")[0] or "text/plain"
    data = base64.b64decode(payload) if header.endswith(";base64") else urllib.parse.unquote_to_bytes(payload)
    part = PartFile(directory)
    try:
        await part.write(data)
        part.file.close()
    except BaseException:
        part.discard()
        raise
    safe = sanitize_filename(filename) if filename else None
    final = publish(part.path, directory, safe, extension_for("", mime_type))
    return DownloadResult(True, final.name, str(final), part.size, mime_type, url[:100])


@dataclass
class PendingDownload:
    """What :func:`expect_download` yields; :attr:`value` holds the result after the block."""

    _result: DownloadResult | None = field(default=None, repr=False)

    @property
    def value(self) -> DownloadResult:
        """The completed download. Raises ``RuntimeError`` before the block has exited."""
        if self._result is None:
            raise RuntimeError("The download is only available after the block exits")
        return self._result


@contextlib.asynccontextmanager
async def expect_download(
    page: Page,
    *,
    dest_dir: str | os.PathLike[str] | None = None,
    timeout: float = 30,
    initiation_timeout: float = 10,
) -> AsyncIterator[PendingDownload]:
    """Capture the download the page starts inside the block::

        async with tools.expect_download(page) as pending:
            await tools.click(page, selector="a.download")
        print(pending.value.path)

    When the block exits it waits for the download to begin (``initiation_timeout``) and
    complete (``timeout``), then names the file after the server's suggestion (sanitized,
    never overwriting) in ``dest_dir`` (default ``~/Downloads``).

    Raises:
        DownloadError: No download began, it was canceled or failed, or timed out;
            nothing partial is left.
    """
    directory = download_dir(dest_dir)
    directory.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=directory, prefix=".cdpkit-downloads-"))
    browser = page.browser
    context_id = (
        cdp.browser.BrowserContextID(page.context.id) if page.context is not None else None
    )
    pending = PendingDownload()
    restoring: asyncio.Task[None] | None = None
    try:
        # No Network domain: with it on when the request starts, Chrome reports the
        # transfer of the whole body to DevTools, and a 100 MB download takes a tenth
        # longer (even if it is turned off once the download begins). The MIME type is
        # then the one Chrome named the file by (its extension) rather than the header.
        # Raw events read through their generated JSON shapes: the typed fast path (these
        # models' schemas take tens of ms to build on first use, in every fresh process).
        async with browser.listen(_WILL_BEGIN, _PROGRESS, raw=True) as events:
            await browser.send(
                cdp.browser.set_download_behavior(
                    "allowAndName",
                    browser_context_id=context_id,
                    download_path=str(staging),
                    events_enabled=True,
                )
            )
            yield pending
            # Asked now, read when the first download begins: the round trip overlaps
            # the wait for Chrome to decide to download.
            frames = asyncio.ensure_future(_frame_ids(page))
            try:
                pending._result = await _await_download(
                    events, frames, staging, directory, timeout, initiation_timeout
                )
            finally:
                if not frames.done():
                    frames.cancel()
                await asyncio.gather(frames, return_exceptions=True)
                restoring = _start_restoring(browser, context_id)
    finally:
        if restoring is None:
            restoring = _start_restoring(browser, context_id)
        # Once the restoring command is written, whatever the program sends next reaches
        # the browser after it; its answer is not waited for (it came 50 ms after a 100 MB
        # download completed, a seventh of the whole download).
        await asyncio.sleep(0)  # its first step writes the command (see Session.send)
        try:
            staging.rmdir()  # empty once the file is published: no thread needed
        except OSError:
            # A failed download's part, or another download the page started meanwhile:
            # removed once the browser no longer saves anything there.
            await restoring
            await run_in_thread(lambda: shutil.rmtree(staging, ignore_errors=True))


async def _restore_download_behavior(
    browser: Browser, context_id: cdp.browser.BrowserContextID | None
) -> None:
    """Send the browser's (or the context's) downloads back where they went before
    :func:`expect_download`: where the program sends them (:class:`StandingDownloads`),
    else Chrome's default. Does nothing once the browser is gone."""
    if browser.closed:
        return
    standing = browser.state(StandingDownloads).path
    with contextlib.suppress(CDPError):
        if standing is not None and context_id is None:
            await browser.send(
                cdp.browser.set_download_behavior(
                    "allow", download_path=standing, events_enabled=True
                )
            )
        else:
            await browser.send(
                cdp.browser.set_download_behavior("default", browser_context_id=context_id)
            )


# The restoring commands whose answer is still to come (kept so they are not collected).
_restoring: set[asyncio.Task[None]] = set()


def _start_restoring(
    browser: Browser, context_id: cdp.browser.BrowserContextID | None
) -> asyncio.Task[None]:
    return run_in_background(
        _restore_download_behavior(browser, context_id),
        _restoring,
        what="Restoring the download behaviour",
    )


class StandingDownloads:
    """Where a program sends a browser's downloads when no tool is capturing one
    (``browser.state(StandingDownloads).path``; ``None``: Chrome's default).
    :func:`expect_download` puts this back when it is done, instead of Chrome's default."""

    def __init__(self) -> None:
        self.path: str | None = None


async def _frame_ids(page: Page) -> set[str]:
    ids = {page.target_id}
    with contextlib.suppress(CDPError):
        ids |= frame_ids(await frame_tree(page))
    return ids


# The leading bytes of common file types, for a browser-managed download whose name has no
# extension (the server's Content-Type is not read: see expect_download).
_SIGNATURES = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"%!PS", "application/postscript"),
)


def sniffed_type(head: bytes) -> str | None:
    """The type a file's first bytes say (see :data:`_SIGNATURES`), else ``None``."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for signature, kind in _SIGNATURES if head.startswith(signature)), None)


def _sniffed_file_type(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            return sniffed_type(file.read(16))
    except OSError:
        return None


# By wire name: the event classes would load the browser domain's events (3-7 ms in a
# fresh process, inside the first download).
_WILL_BEGIN = "Browser.downloadWillBegin"
_PROGRESS = "Browser.downloadProgress"


async def _await_download(
    events: EventStream[RawEvent],
    frames: asyncio.Future[set[str]],
    staging: Path,
    directory: Path,
    timeout: float,
    initiation_timeout: float,
) -> DownloadResult:
    began: DownloadWillBeginJSON | None = None
    progress: DownloadProgressJSON | None = None
    try:
        async with asyncio.timeout(initiation_timeout) as deadline:
            async for event in events:
                if began is None:
                    if event.method == _WILL_BEGIN:
                        will_begin = cast("DownloadWillBeginJSON", event.params)
                        if will_begin["frameId"] in await frames:
                            began = will_begin
                            deadline.reschedule(asyncio.get_running_loop().time() + timeout)
                    continue
                if event.method != _PROGRESS:
                    continue
                update = cast("DownloadProgressJSON", event.params)
                if update["guid"] != began["guid"]:
                    continue
                if update["state"] == "completed":
                    progress = update
                    break
                if update["state"] == "canceled":
                    raise DownloadError(
                        f"Download of {began['url']} failed: the browser canceled it (blocked, "
                        f"or the connection broke off after {update['receivedBytes']:g} "
                        f"of {update['totalBytes']:g} bytes)"
                    )
    except TimeoutError:
        if began is None:
            raise DownloadError(f"No download began within {initiation_timeout:g} s") from None
        raise DownloadError(f"Download of {began['url']} did not complete within {timeout:g} s") from None
    assert began is not None
    if progress is None:
        raise DownloadError(f"Download of {began['url']} failed: the browser stopped reporting it")
    source = staging / began["guid"]
    # Chrome may call a body "completed" that is shorter than announced: check it.
    received, total = int(progress["receivedBytes"]), int(progress["totalBytes"])
    on_disk = source.stat().st_size if source.exists() else -1
    if (total > 0 and received != total) or on_disk != received:
        raise DownloadError(
            f"Download of {began['url']} failed: incomplete ({max(on_disk, 0)} bytes on "
            f"disk, {received} received of {total} announced)"
        )
    suggested = began["suggestedFilename"] or None
    name = sanitize_filename(suggested) if suggested else None
    mime_type = mimetypes.guess_type(suggested or began["url"])[0] or _sniffed_file_type(source)
    final = publish(source, directory, name, extension_for(began['url'], mime_type))
    return DownloadResult(
        True, final.name, str(final), final.stat().st_size, mime_type, began['url'], suggested
    )
