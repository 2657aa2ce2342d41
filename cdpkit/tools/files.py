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
import re
import shutil
import tempfile
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Unpack, cast

import platformdirs

from .. import cdp
from .._frames import frame_ids, frame_tree
from .._keywords import TARGET_DEFAULTS, ResourceKeywords, check_keywords, keyword_signature
from .._model import RawEvent
from .._tasks import run_in_background
from ..errors import CDPError, DownloadError
from ..page import Page
from ..session import EventStream
from ._fetching import (
    PartFile,
    fetch_directly,
    fetch_in_page,
    run_in_thread,
)
from ._recording import recorded
from ._scripts import Script
from ._targeting import target_from

if TYPE_CHECKING:
    from ..browser import Browser
    from ..cdp.browser import DownloadProgressJSON, DownloadWillBeginJSON

__all__ = [
    "DownloadResult",
    "PendingDownload",
    "StandingDownloads",
    "download",
    "expect_download",
    "resource_url",
]

MAX_NAME_BYTES = 255

_RESOURCE_URL = Script("resource_url")

# Extensions a URL may end in that say nothing about the content (server scripts).


@dataclass(slots=True)
class _DownloadState:
    """Per page: page-context downloads take turns (each intercepts the page's requests)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


_SCRIPT_EXTENSIONS = {".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".py", ".do", ".action"}
_PREFERRED_EXTENSIONS = {"image/jpeg": ".jpg", "text/plain": ".txt", "audio/mpeg": ".mp3"}


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


def default_download_dir() -> Path:
    """The user's download folder: ``$XDG_DOWNLOAD_DIR`` if set (an absolute path), else
    the one ``~/.config/user-dirs.dirs`` names, else ``~/Downloads`` (Windows: the
    Downloads known folder)."""
    return platformdirs.user_downloads_path()


def _download_dir(dest_dir: str | os.PathLike[str] | None) -> Path:
    """``dest_dir`` (``~`` expanded) or the default download folder, as an absolute path:
    results name where the file is, whatever the working directory becomes."""
    return Path(os.path.abspath(Path(dest_dir).expanduser() if dest_dir else default_download_dir()))


def _invisible(char: str) -> bool:
    """Whether ``char`` is one Chrome replaces by ``_`` in a download's name
    (``IllegalCharacters`` in base/i18n/file_util_icu.cc) beyond the control characters
    (which cdpkit drops): a format character (the bidirectional controls among them, which
    make ``invoice\\u202etxt.exe`` show as ``invoiceexe.txt``; zero-width ones) or a
    non-character; a lone surrogate is no character either."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cf", "Cs")
        or 0xFDD0 <= code <= 0xFDEF
        or code & 0xFFFE == 0xFFFE
    )


def _split_extension(name: str) -> tuple[str, str]:
    """``(stem, extension)``; an "extension" over 32 bytes is part of the stem."""
    stem, ext = os.path.splitext(name)
    return (name, "") if len(ext.encode()) > 32 else (stem, ext)


def _fit(stem: str, ext: str, suffix: str, limit: int) -> str:
    """``stem + suffix + ext`` in at most ``limit`` bytes of UTF-8: the stem is cut, on
    a character boundary, so that the extension and the suffix stay whole."""
    room = max(limit - len((suffix + ext).encode()), 0)
    encoded = stem.encode()
    if len(encoded) > room:
        stem = encoded[:room].decode(errors="ignore")  # drops a character cut in two
    return stem + suffix + ext


def sanitize_filename(name: str) -> str:
    """A safe file name: no path separators, no ``..``, no NUL or control characters;
    format characters (bidirectional controls, zero-width characters) and non-characters
    replaced by ``_`` as Chrome does; at most 255 bytes (extension kept). Empty if
    nothing usable is left."""
    name = "".join(
        "_" if _invisible(ch) else ch for ch in name if unicodedata.category(ch) != "Cc"
    )
    name = re.sub(r"[/\\:]+", "_", name).strip().strip(".")
    name = name.replace("..", "_")
    if len(name.encode()) > MAX_NAME_BYTES:
        name = _fit(*_split_extension(name), "", MAX_NAME_BYTES)
    return name


def _name_limit(directory: Path) -> int:
    """The longest file name ``directory``'s filesystem takes, in bytes (at most 255)."""
    try:
        return min(MAX_NAME_BYTES, os.pathconf(directory, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or no answer
        return MAX_NAME_BYTES


def _free_names(directory: Path, filename: str | None, extension: str) -> Iterator[str]:
    """The names to try, in order, for a file in ``directory``: ``filename``, then
    ``name-1.ext``, ``name-2.ext``... (the stem cut to fit the filesystem's limit, the
    extension and the number kept); with no ``filename``, ``{13-digit ms timestamp}{ext}``
    then the next milliseconds."""
    if filename:
        stem, ext = _split_extension(filename)
        limit = _name_limit(directory)
        return (_fit(stem, ext, f"-{i}" if i else "", limit) for i in range(10_000))
    start = int(time.time() * 1000)
    return (f"{start + i:013d}{extension}" for i in range(10_000))


def claim_free_name(directory: Path, filename: str, *, mode: int = 0o666) -> Path:
    """Create an empty file in ``directory`` under ``filename`` (sanitized), or the first
    free ``name-N.ext``, exclusively: an existing file is never replaced. The caller then
    writes (or atomically replaces) that file, which is its own.

    Args:
        directory: Where (created if missing).
        filename: The wanted name.
        mode: Its permissions (less the umask); 0o600 for a file holding credentials.

    Raises:
        DownloadError: Every candidate name is taken.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for candidate in _free_names(directory, sanitize_filename(filename) or "file", ""):
        final = directory / candidate
        try:
            os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))
        except FileExistsError:
            continue
        return final.resolve()
    raise DownloadError(f"No free file name left in {directory}")


def extension_for(url: str, mime_type: str | None) -> str:
    """The extension a file fetched from ``url`` as ``mime_type`` is saved with (".bin" if
    neither says; never one the system would run as a script)."""
    suffix = PurePosixPath(urllib.parse.urlsplit(url).path).suffix.lower()
    known = suffix in mimetypes.types_map or mime_type is None
    if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) and suffix not in _SCRIPT_EXTENSIONS and known:
        return suffix
    if mime_type:
        essence = mime_type.split(";")[0].strip().lower()
        guessed = _PREFERRED_EXTENSIONS.get(essence) or mimetypes.guess_extension(essence)
        if guessed:
            return guessed
    return ".bin"


def _publish(part: Path, directory: Path, filename: str | None, extension: str) -> Path:
    """Give the finished ``part`` file its final name without ever replacing a file.

    With no ``filename``: ``{13-digit ms timestamp}{extension}``, the next millisecond if
    taken. With one: that name, then ``name-1.ext``, ``name-2.ext``... (see
    :func:`_free_names`).
    """
    candidates = _free_names(directory, filename, extension)
    for candidate in candidates:
        final = directory / candidate
        try:
            os.link(part, final)  # fails if the name exists: never overwrites
        except FileExistsError:
            continue
        except OSError:
            # Filesystems without hard links: claim the name exclusively, then replace.
            try:
                os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            os.replace(part, final)
            return final
        part.unlink()
        return final
    raise DownloadError(f"No free file name left in {directory}")


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
            return await _save_data_url(url, _download_dir(dest_dir), filename)
        raise DownloadError(f"Cannot download {url!r}: only http(s) and data: URLs")
    directory = _download_dir(dest_dir)
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
        final = _publish(
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
    final = _publish(part.path, directory, safe, extension_for("", mime_type))
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
    directory = _download_dir(dest_dir)
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
    final = _publish(source, directory, name, extension_for(began['url'], mime_type))
    return DownloadResult(
        True, final.name, str(final), final.stat().st_size, mime_type, began['url'], suggested
    )
