"""Downloads: fetch a resource the way the page would, or capture a download the page starts.

:func:`download` makes the page itself request the resource (so its cookies, Referer and
session apply, which anti-hotlinking checks require), pauses that request at the
response with the ``Fetch`` domain, and streams the body to disk with ``IO.read``: the
file is never held in memory. If the page cannot load it (a CSP, a network error in the
page's context), it falls back to a direct request carrying the page's cookies and its URL
as Referer.

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
import json
import mimetypes
import os
import re
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

import anyio

from ..errors import CDPError, DownloadError
from ..page import Page
from ._targeting import resolve_element

__all__ = ["DownloadResult", "PendingDownload", "download", "expect_download"]

# Measured: 256 KiB reads stream as fast as any size and keep memory flat (4 MiB: half speed).
CHUNK_SIZE = 256 * 1024
MAX_NAME_BYTES = 255

# The URL of an element's resource, resolved against the document, or null.
_RESOURCE_URL_JS = """function() {
  const el = this, tag = el.tagName.toLowerCase();
  const abs = (u) => { try { return u ? new URL(u, document.baseURI).href : null; } catch { return null; } };
  if (tag === 'img') return el.currentSrc || abs(el.getAttribute('src'));
  if (tag === 'video' || tag === 'audio') {
    if (el.currentSrc) return el.currentSrc;
    const source = el.getAttribute('src') || el.querySelector('source[src]')?.getAttribute('src');
    return abs(source);
  }
  if (tag === 'source') return abs(el.getAttribute('src'));
  if (tag === 'a' || tag === 'area' || tag === 'link') return el.href || null;
  if (tag === 'object') return abs(el.getAttribute('data'));
  if (tag === 'embed' || tag === 'iframe') return abs(el.getAttribute('src'));
  const background = getComputedStyle(el).backgroundImage;
  const match = background && background.match(/url\\(["']?(.*?)["']?\\)/);
  return match ? abs(match[1]) : null;
}"""

# Extensions a URL may end in that say nothing about the content (server scripts).
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
        mime_type: The content type the server sent (or guessed from the name).
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
    """``$XDG_DOWNLOAD_DIR`` if set, else ``~/Downloads``."""
    configured = os.environ.get("XDG_DOWNLOAD_DIR")
    return Path(configured).expanduser() if configured else Path.home() / "Downloads"


def sanitize_filename(name: str) -> str:
    """A safe file name: no path separators, no ``..``, no NUL or control characters,
    at most 255 bytes (extension kept). Empty if nothing usable is left."""
    name = "".join(ch for ch in name if ch >= " " and ch != "\x7f")
    name = re.sub(r"[/\\:]+", "_", name).strip().strip(".")
    name = name.replace("..", "_")
    if len(name.encode()) > MAX_NAME_BYTES:
        stem, ext = os.path.splitext(name)
        if len(ext.encode()) > 32:
            stem, ext = name, ""
        budget = MAX_NAME_BYTES - len(ext.encode())
        stem = stem.encode()[:budget].decode(errors="ignore")
        name = stem + ext
    return name


def _extension(url: str, mime_type: str | None) -> str:
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
    taken. With one: that name, then ``name-1.ext``, ``name-2.ext``...
    """
    if filename:
        stem, ext = os.path.splitext(filename)
        candidates = (filename if i == 0 else sanitize_filename(f"{stem}-{i}{ext}") for i in range(10_000))
    else:
        start = int(time.time() * 1000)
        candidates = (f"{start + i:013d}{extension}" for i in range(10_000))
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


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


class _PartFile:
    """A hidden temporary file in the download directory, removed unless published."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=directory, prefix=".cdpkit-", suffix=".part")
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it 0600; a download is an ordinary file
        self.path = Path(name)
        self.file: IO[bytes] = os.fdopen(fd, "wb")
        self.size = 0

    async def write(self, data: bytes) -> None:
        await anyio.to_thread.run_sync(self.file.write, data)
        self.size += len(data)

    def discard(self) -> None:
        self.file.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _check_one_source(url: str | None, selector: str | None, index: int | None) -> None:
    if (url is not None) + (selector is not None) + (index is not None) != 1:
        raise ValueError("Provide one of: url, index, or selector")


async def download(
    page: Page,
    *,
    url: str | None = None,
    selector: str | None = None,
    index: int | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
    filename: str | None = None,
    timeout: float = 30,
    initiation_timeout: float = 10,
) -> DownloadResult:
    """Download a resource as the page would and stream it to disk.

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
        timeout: Seconds for the whole download.
        initiation_timeout: Seconds for the response to start.

    Returns:
        The saved file's name, path, size and MIME type.

    Raises:
        ValueError: Not exactly one of ``url``, ``selector``, ``index``.
        ElementNotFoundError: The selector or index matches nothing.
        DownloadError: "Element has no downloadable resource", "Resource fetch failed:
            404", "Network request failed: ...", or a timeout. Nothing is left on disk.
    """
    _check_one_source(url, selector, index)
    if url is None:
        element = await resolve_element(page, selector=selector, index=index)
        url = await element.call(_RESOURCE_URL_JS)
        if not url:
            raise DownloadError("Element has no downloadable resource")
    else:
        url = urllib.parse.urljoin(page.url, url) if page.url.startswith("http") else url
    url = urllib.parse.urldefrag(url)[0]
    if not url.startswith(("http://", "https://")):
        if url.startswith("data:"):
            return await _save_data_url(url, Path(dest_dir or default_download_dir()), filename)
        raise DownloadError(f"Cannot download {url!r}: only http(s) and data: URLs")
    directory = Path(dest_dir).expanduser() if dest_dir else default_download_dir()
    safe_name = sanitize_filename(filename) if filename else None
    lock = page.tool_state.setdefault("download_lock", asyncio.Lock())
    try:
        async with asyncio.timeout(timeout):
            async with lock:
                fetched = await _fetch_in_page(page, url, directory, initiation_timeout)
            if fetched is None:
                fetched = await _fetch_directly(page, url, directory)
    except TimeoutError:
        raise DownloadError(f"Download of {url} timed out after {timeout:g} s") from None
    part, mime_type = fetched
    final = _publish(part.path, directory, safe_name, _extension(url, mime_type))
    return DownloadResult(True, final.name, str(final), part.size, mime_type, url)


def _fetch_pattern(url: str) -> str:
    # Fetch URL patterns treat * and ? as wildcards; backslash escapes them.
    return re.sub(r"([*?\\])", r"\\\1", url)


async def _fetch_in_page(
    page: Page, url: str, directory: Path, initiation_timeout: float
) -> tuple[_PartFile, str | None] | None:
    """Stream ``url`` through a request the page makes itself; ``None`` if the page's
    context could not load it at all (then the caller falls back)."""
    script = (
        f"fetch({json.dumps(url)}, {{credentials: 'include', mode: 'no-cors', cache: 'no-store'}})"
        ".then(() => null, (e) => String(e && e.message || e))"
    )
    ours: str | None = None  # the network id of our request, across redirects
    async with page.listen("Fetch.requestPaused", raw=True) as paused:
        await page.call("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Response"}]})
        try:
            attempt = asyncio.ensure_future(
                page.call("Runtime.evaluate", {"expression": script, "awaitPromise": True})
            )
            try:
                async with asyncio.timeout(initiation_timeout):
                    while True:
                        next_pause = asyncio.ensure_future(anext(paused))
                        done, _ = await asyncio.wait(
                            {next_pause, attempt}, return_when=asyncio.FIRST_COMPLETED
                        )
                        if next_pause not in done:
                            next_pause.cancel()
                            # The page's fetch settled without reaching a response.
                            return None
                        params = next_pause.result().params
                        request = params.get("request", {})
                        mine = ours is not None and params.get("networkId") == ours
                        if not mine and request.get("url") == url and params.get("resourceType") in ("XHR", "Fetch"):
                            mine = True
                        if not mine:
                            await page.call("Fetch.continueRequest", {"requestId": params["requestId"]})
                            continue
                        ours = params.get("networkId")
                        status = params.get("responseStatusCode")
                        if status in (301, 302, 303, 307, 308):
                            await page.call("Fetch.continueRequest", {"requestId": params["requestId"]})
                            continue
                        break
            except TimeoutError:
                raise DownloadError(
                    f"Download of {url} did not start within {initiation_timeout:g} s"
                ) from None
            finally:
                attempt.cancel()
            return await _take_body(page, params, url, directory)
        finally:
            if not page.closed:
                with contextlib.suppress(CDPError):
                    await page.call("Fetch.disable")


async def _take_body(
    page: Page, params: dict[str, Any], url: str, directory: Path
) -> tuple[_PartFile, str | None]:
    request_id = params["requestId"]
    status = params.get("responseStatusCode")
    error = params.get("responseErrorReason")
    if error or not status or status >= 400:
        with contextlib.suppress(CDPError):
            await page.call("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"})
        if error:
            raise DownloadError(f"Network request failed: {error}")
        raise DownloadError(f"Resource fetch failed: {status}")
    headers = {h["name"].lower(): h["value"] for h in params.get("responseHeaders") or []}
    stream = (await page.call("Fetch.takeResponseBodyAsStream", {"requestId": request_id}))["stream"]
    part = _PartFile(directory)
    try:
        while True:
            chunk = await page.call("IO.read", {"handle": stream, "size": CHUNK_SIZE})
            data = chunk.get("data", "")
            await part.write(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode())
            if chunk.get("eof"):
                break
        part.file.close()
        expected = headers.get("content-length", "")
        if expected.isdigit() and "content-encoding" not in headers and part.size != int(expected):
            raise DownloadError(
                f"Network request failed: the response was cut short ({part.size} of {expected} bytes)"
            )
    except BaseException:
        part.discard()
        raise
    finally:
        with contextlib.suppress(CDPError):
            await page.call("IO.close", {"handle": stream})
        with contextlib.suppress(CDPError):
            await page.call("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"})
    return part, headers.get("content-type")


async def _fetch_directly(page: Page, url: str, directory: Path) -> tuple[_PartFile, str | None]:
    """The fallback: a direct request with the page's cookies for ``url`` and the page's
    URL as Referer, streamed to disk from a worker thread."""
    cookies = await page.call("Network.getCookies", {"urls": [url]})
    cookie_header = "; ".join(f"{c['name']}={c['value']}" for c in cookies.get("cookies", []))
    user_agent = (await page.call("Runtime.evaluate", {"expression": "navigator.userAgent", "returnByValue": True}))
    headers = {"User-Agent": str(user_agent.get("result", {}).get("value", "cdpkit"))}
    if page.url.startswith("http"):
        headers["Referer"] = page.url
    if cookie_header:
        headers["Cookie"] = cookie_header
    part = _PartFile(directory)

    def fetch() -> str | None:
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            while True:
                data = response.read(CHUNK_SIZE)
                if not data:
                    break
                part.file.write(data)
                part.size += len(data)
            part.file.close()
            content_type = response.headers.get("Content-Type")
            return str(content_type) if content_type else None

    try:
        mime_type = await anyio.to_thread.run_sync(fetch, abandon_on_cancel=True)
    except urllib.error.HTTPError as exc:
        part.discard()
        raise DownloadError(f"Resource fetch failed: {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        part.discard()
        raise DownloadError(f"Network request failed: {getattr(exc, 'reason', exc)}") from None
    except BaseException:
        part.discard()
        raise
    return part, mime_type


async def _save_data_url(url: str, directory: Path, filename: str | None) -> DownloadResult:
    header, _, payload = url.partition(",")
    mime_type = header[5:].split(";")[0] or "text/plain"
    data = base64.b64decode(payload) if header.endswith(";base64") else urllib.parse.unquote_to_bytes(payload)
    part = _PartFile(directory)
    try:
        await part.write(data)
        part.file.close()
    except BaseException:
        part.discard()
        raise
    safe = sanitize_filename(filename) if filename else None
    final = _publish(part.path, directory, safe, _extension("", mime_type))
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
    directory = Path(dest_dir).expanduser() if dest_dir else default_download_dir()
    directory.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=directory, prefix=".cdpkit-downloads-"))
    browser = page.browser
    context_params = {"browserContextId": page.context.id} if page.context is not None else {}
    pending = PendingDownload()
    try:
        async with browser.listen(
            "Browser.downloadWillBegin", "Browser.downloadProgress", raw=True
        ) as events:
            await browser.call(
                "Browser.setDownloadBehavior",
                {"behavior": "allowAndName", "downloadPath": str(staging), "eventsEnabled": True, **context_params},
            )
            yield pending
            frames = await _frame_ids(page)
            pending._result = await _await_download(events, frames, staging, directory, timeout, initiation_timeout)
    finally:
        if not browser.closed:
            with contextlib.suppress(CDPError):
                await browser.call("Browser.setDownloadBehavior", {"behavior": "default", **context_params})
        await anyio.to_thread.run_sync(lambda: shutil.rmtree(staging, ignore_errors=True))


async def _frame_ids(page: Page) -> set[str]:
    ids = {page.target_id}
    with contextlib.suppress(CDPError):
        tree = await page.call("Page.getFrameTree")
        stack = [tree["frameTree"]]
        while stack:
            node = stack.pop()
            ids.add(node["frame"]["id"])
            stack.extend(node.get("childFrames", []))
    return ids


async def _await_download(
    events: Any,
    frames: set[str],
    staging: Path,
    directory: Path,
    timeout: float,
    initiation_timeout: float,
) -> DownloadResult:
    began: dict[str, Any] | None = None
    try:
        async with asyncio.timeout(initiation_timeout) as deadline:
            async for event in events:
                params = event.params
                if began is None:
                    if event.method == "Browser.downloadWillBegin" and params.get("frameId") in frames:
                        began = params
                        deadline.reschedule(asyncio.get_running_loop().time() + timeout)
                    continue
                if params.get("guid") != began["guid"] or event.method != "Browser.downloadProgress":
                    continue
                state = params.get("state")
                if state == "completed":
                    break
                if state == "canceled":
                    raise DownloadError(f"Download of {began.get('url')} was canceled or blocked by the browser")
    except TimeoutError:
        if began is None:
            raise DownloadError(f"No download began within {initiation_timeout:g} s") from None
        raise DownloadError(f"Download of {began.get('url')} did not complete within {timeout:g} s") from None
    assert began is not None
    source = staging / began["guid"]
    suggested = began.get("suggestedFilename") or None
    name = sanitize_filename(suggested) if suggested else None
    mime_type = mimetypes.guess_type(suggested or began.get("url", ""))[0]
    final = _publish(source, directory, name, _extension(began.get("url", ""), mime_type))
    return DownloadResult(
        True, final.name, str(final), final.stat().st_size, mime_type, began.get("url", ""), suggested
    )
