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
import http.client
import mimetypes
import os
import re
import shutil
import socket
import ssl
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

import anyio
import platformdirs

from ..errors import CDPError, DownloadError
from ..page import Page
from ._scripts import Script, evaluate
from ._targeting import resolve_element

__all__ = ["DownloadResult", "PendingDownload", "download", "expect_download"]

# Measured: 256 KiB reads stream as fast as any size and keep memory flat (4 MiB: half speed).
CHUNK_SIZE = 256 * 1024
MAX_NAME_BYTES = 255

_RESOURCE_URL = Script("resource_url")
_RESOURCE_URL_JS = _RESOURCE_URL  # the name _mcp_tools imports
_PAGE_FETCH = Script("page_fetch")
_USER_AGENT = Script("user_agent")

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
    """The user's download folder: ``$XDG_DOWNLOAD_DIR`` if set (an absolute path), else
    the one ``~/.config/user-dirs.dirs`` names, else ``~/Downloads`` (Windows: the
    Downloads known folder)."""
    return platformdirs.user_downloads_path()


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
    server_filename: bool = False,
    timeout: float = 30,
    initiation_timeout: float = 10,
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

    Returns:
        The saved file's name, path, size and the MIME type the server sent.

    Raises:
        ValueError: Not exactly one of ``url``, ``selector``, ``index``.
        ElementNotFoundError: The selector or index matches nothing.
        DownloadError: "Element has no downloadable resource", "Resource fetch failed:
            404 for URL", "Network request failed for URL: ...", a body cut short, or a
            timeout. Nothing is left on disk and no task keeps running.
    """
    _check_one_source(url, selector, index)
    if url is None:
        element = await resolve_element(page, selector=selector, index=index)
        try:
            url = await element.call(_RESOURCE_URL)
        finally:
            await element.release()
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
    lock = page.state(_DownloadState).lock
    try:
        async with asyncio.timeout(timeout):
            async with lock:
                fetched = await _fetch_in_page(page, url, directory, initiation_timeout)
            if fetched is None:
                fetched = await _fetch_directly(page, url, directory)
    except TimeoutError:
        raise DownloadError(f"Download of {url} timed out after {timeout:g} s") from None
    suggested = _content_disposition_filename(fetched.headers.get("content-disposition"))
    if filename:
        name: str | None = sanitize_filename(filename)
    elif server_filename:
        name = sanitize_filename(suggested or "") or _url_filename(fetched.url)
    else:
        name = None
    mime_type = fetched.headers.get("content-type") or None
    try:
        final = _publish(fetched.part.path, directory, name or None, _extension(fetched.url, mime_type))
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


@dataclass
class _Fetched:
    """A complete body in its ``.part`` file, the response's headers (lower-case
    names) and the URL that answered (after redirects)."""

    part: _PartFile
    headers: dict[str, str]
    url: str


def _fetch_pattern(url: str) -> str:
    # Fetch URL patterns treat * and ? as wildcards; backslash escapes them.
    return re.sub(r"([*?\\])", r"\\\1", url)


_MAX_REDIRECTS = 20
_REDIRECT_STATUSES = (301, 302, 303, 307, 308)


async def _fetch_in_page(
    page: Page, url: str, directory: Path, initiation_timeout: float
) -> _Fetched | None:
    """Stream ``url`` through requests the page makes itself, following redirects;
    ``None`` if the direct request must do it (see :func:`_page_request`)."""
    target = url
    for _ in range(_MAX_REDIRECTS + 1):
        outcome = await _page_request(page, target, directory, initiation_timeout)
        if not isinstance(outcome, str):
            return outcome
        target = outcome
    raise DownloadError(f"Download of {url} failed: more than {_MAX_REDIRECTS} redirects")


async def _cancel_and_wait(*tasks: asyncio.Future[Any]) -> None:
    """Cancel ``tasks`` and wait for them, so none outlives the caller or leaves an
    exception nobody retrieves."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _page_request(
    page: Page, url: str, directory: Path, initiation_timeout: float
) -> _Fetched | str | None:
    """Make the page fetch ``url`` and take the response body at the network level.

    The fetch uses ``mode: 'cors'``: a ``no-cors`` response to another origin (or from
    ``about:blank``) is opaque, and Chrome's Opaque Response Blocking empties its headers
    and body before the ``Fetch`` domain sees it (a 0-byte "download"). In ``cors`` mode
    the paused response is the real one; the page's own CORS check never runs because
    the request is aborted once its body is taken. That check would reject a redirect to
    another origin, so a redirect is answered by returning its target for a new request
    (the page's Referer stays, as across any redirect).

    Returns:
        The fetched body; a redirect's absolute target URL; or ``None`` when the direct
        request must fetch ``url``: the page could not load it (a CSP, a network error)
        or the body is chunked, whose terminating chunk Chrome does not report through
        ``IO.read`` (a cut chunked body reads to a clean end of file).
    """
    async with page.listen("Fetch.requestPaused", raw=True) as paused:
        await page.call(
            "Fetch.enable", {"patterns": [{"urlPattern": _fetch_pattern(url), "requestStage": "Response"}]}
        )
        attempt = asyncio.ensure_future(
            evaluate(page, _PAGE_FETCH, url, await_promise=True)
        )
        next_pause: asyncio.Future[Any] | None = None
        try:
            try:
                async with asyncio.timeout(initiation_timeout):
                    while True:
                        next_pause = asyncio.ensure_future(anext(paused))
                        done, _ = await asyncio.wait(
                            {next_pause, attempt}, return_when=asyncio.FIRST_COMPLETED
                        )
                        if next_pause not in done:
                            return None  # the page's fetch settled without reaching a response
                        params = next_pause.result().params
                        next_pause = None
                        request = params.get("request", {})
                        if request.get("url") == url and params.get("resourceType") in ("XHR", "Fetch"):
                            break
                        await page.call("Fetch.continueRequest", {"requestId": params["requestId"]})
            except TimeoutError:
                raise DownloadError(
                    f"Download of {url} did not start within {initiation_timeout:g} s"
                ) from None
            headers = {h["name"].lower(): h["value"] for h in params.get("responseHeaders") or []}
            status = params.get("responseStatusCode")
            location = headers.get("location")
            if status in _REDIRECT_STATUSES and location:
                await _abort(page, params["requestId"])
                return str(urllib.parse.urldefrag(urllib.parse.urljoin(url, location))[0])
            if (
                not params.get("responseErrorReason")
                and status is not None
                and status < 400
                and "chunked" in headers.get("transfer-encoding", "").lower()
            ):
                await _abort(page, params["requestId"])
                return None
            part = await _take_body(page, params, headers, url, directory)
            return _Fetched(part, headers, url)
        finally:
            await _cancel_and_wait(attempt, *([next_pause] if next_pause is not None else []))
            if not page.closed:
                with contextlib.suppress(CDPError):
                    await page.call("Fetch.disable")


async def _abort(page: Page, request_id: str) -> None:
    with contextlib.suppress(CDPError):
        await page.call("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"})


def _short_body_error(url: str, size: int, headers: dict[str, str]) -> DownloadError | None:
    """The error for a body shorter than its ``Content-Length`` (checkable only when
    the body is not re-encoded), else ``None``."""
    expected = headers.get("content-length", "").strip()
    encoded = headers.get("content-encoding", "identity").strip().lower() != "identity"
    if expected.isdigit() and not encoded and size != int(expected):
        return DownloadError(
            f"Download of {url} failed: the connection closed after {size} of the "
            f"{expected} bytes the server announced (Content-Length)"
        )
    return None


async def _take_body(
    page: Page, params: dict[str, Any], headers: dict[str, str], url: str, directory: Path
) -> _PartFile:
    request_id = params["requestId"]
    status = params.get("responseStatusCode")
    error = params.get("responseErrorReason")
    if error or not status or status >= 400:
        await _abort(page, request_id)
        if error:
            raise DownloadError(f"Network request failed for {url}: {error}")
        raise DownloadError(f"Resource fetch failed: {status} for {url}")
    stream: str | None = None
    part = _PartFile(directory)
    try:
        stream = (await page.call("Fetch.takeResponseBodyAsStream", {"requestId": request_id}))["stream"]
        while True:
            chunk = await page.call("IO.read", {"handle": stream, "size": CHUNK_SIZE})
            data = chunk.get("data", "")
            await part.write(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode())
            if chunk.get("eof"):
                break
        part.file.close()
        short = _short_body_error(url, part.size, headers)
        if short is not None:
            raise short
    except BaseException:
        part.discard()
        raise
    finally:
        if stream is not None:
            with contextlib.suppress(CDPError):
                await page.call("IO.close", {"handle": stream})
        await _abort(page, request_id)
    return part


async def _fetch_directly(page: Page, url: str, directory: Path) -> _Fetched:
    """The fallback: a direct request with the page's cookies for ``url`` and the page's
    URL as Referer, streamed to disk from a worker thread.

    A body shorter than its ``Content-Length`` or a chunked body without its terminating
    chunk raises :class:`DownloadError`. If the call is cancelled (a timeout), the
    connection is shut down so the worker thread ends too."""
    cookies = await page.call("Network.getCookies", {"urls": [url]})
    cookie_header = "; ".join(f"{c['name']}={c['value']}" for c in cookies.get("cookies", []))
    user_agent = await evaluate(page, _USER_AGENT)
    request_headers = {"User-Agent": str(user_agent or "cdpkit")}
    if page.url.startswith("http"):
        request_headers["Referer"] = page.url
    if cookie_header:
        request_headers["Cookie"] = cookie_header
    part = _PartFile(directory)
    cancelled = threading.Event()
    sockets: list[socket.socket] = []

    opener = _tracking_opener(sockets, cancelled)

    def fetch() -> tuple[dict[str, str], str]:
        request = urllib.request.Request(url, headers=request_headers)
        with opener.open(request, timeout=30) as response:
            while data := response.read(CHUNK_SIZE):
                if cancelled.is_set():
                    raise TimeoutError
                part.file.write(data)
                part.size += len(data)
            part.file.close()
            headers = {name.lower(): value for name, value in response.headers.items()}
            return headers, str(response.geturl())

    future = asyncio.get_running_loop().run_in_executor(None, fetch)
    try:
        headers, final_url = await asyncio.shield(future)
        short = _short_body_error(url, part.size, headers)
        if short is not None:
            raise short
    except asyncio.CancelledError:
        cancelled.set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        # Give the thread a moment to see the shutdown; it cannot be interrupted while
        # still connecting, and then ends within the connect timeout, writing nothing.
        await asyncio.wait({future}, timeout=1)
        if future.done():
            future.exception()  # retrieved: the cancellation is what the caller sees
        else:
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
        part.discard()
        raise
    except urllib.error.HTTPError as exc:
        part.discard()
        raise DownloadError(f"Resource fetch failed: {exc.code} for {url}") from None
    except http.client.IncompleteRead as exc:
        part.discard()
        raise DownloadError(
            f"Download of {url} failed: the connection closed after {part.size + len(exc.partial)} "
            "bytes, before the end of the body (a chunked body without its last chunk, or "
            "fewer bytes than Content-Length)"
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        part.discard()
        reason = getattr(exc, "reason", None) or exc or type(exc).__name__
        raise DownloadError(f"Network request failed for {url}: {reason}") from None
    except BaseException:
        part.discard()
        raise
    return _Fetched(part, headers, final_url)


def _tracking_opener(sockets: list[socket.socket], cancelled: threading.Event) -> urllib.request.OpenerDirector:
    """A urllib opener whose connections add their sockets to ``sockets`` once connected
    (and give up if ``cancelled`` is set), so a cancelled download can shut them down
    from another thread, even while the request still waits for the response."""

    def track(sock: socket.socket | None) -> None:
        if sock is not None:
            sockets.append(sock)
        if cancelled.is_set():
            raise TimeoutError("the download was cancelled")

    class Connection(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            track(self.sock)

    class TLSConnection(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            track(self.sock)

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(Connection, req)

    class TLSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(TLSConnection, req, context=ssl.create_default_context())

    return urllib.request.build_opener(Handler(), TLSHandler())


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
        # The page's responses give the download's real MIME type (Browser events do not).
        async with page.enabled("Network"), page.listen(
            "Network.responseReceived", raw=True
        ) as responses, browser.listen(
            "Browser.downloadWillBegin", "Browser.downloadProgress", raw=True
        ) as events:
            await browser.call(
                "Browser.setDownloadBehavior",
                {"behavior": "allowAndName", "downloadPath": str(staging), "eventsEnabled": True, **context_params},
            )
            yield pending
            frames = await _frame_ids(page)
            pending._result = await _await_download(
                events, responses, frames, staging, directory, timeout, initiation_timeout
            )
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


async def _response_type(responses: Any, url: str) -> str | None:
    """The Content-Type of the page's last response for ``url`` among the buffered
    ``Network.responseReceived`` events (the stream is closed, so this never waits)."""
    await responses.aclose()
    mime_type: str | None = None
    async for event in responses:
        response = event.params.get("response", {})
        if response.get("url") == url:
            headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
            mime_type = headers.get("content-type") or response.get("mimeType") or mime_type
    return mime_type


async def _await_download(
    events: Any,
    responses: Any,
    frames: set[str],
    staging: Path,
    directory: Path,
    timeout: float,
    initiation_timeout: float,
) -> DownloadResult:
    began: dict[str, Any] | None = None
    progress: dict[str, Any] = {}
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
                    progress = params
                    break
                if state == "canceled":
                    raise DownloadError(
                        f"Download of {began.get('url')} failed: the browser canceled it (blocked, "
                        f"or the connection broke off after {params.get('receivedBytes', 0):g} "
                        f"of {params.get('totalBytes', 0):g} bytes)"
                    )
    except TimeoutError:
        if began is None:
            raise DownloadError(f"No download began within {initiation_timeout:g} s") from None
        raise DownloadError(f"Download of {began.get('url')} did not complete within {timeout:g} s") from None
    assert began is not None
    source = staging / began["guid"]
    # Chrome may call a body "completed" that is shorter than announced: check it.
    received, total = int(progress.get("receivedBytes", 0)), int(progress.get("totalBytes", 0))
    on_disk = source.stat().st_size if source.exists() else -1
    if (total > 0 and received != total) or on_disk != received:
        raise DownloadError(
            f"Download of {began.get('url')} failed: incomplete ({max(on_disk, 0)} bytes on "
            f"disk, {received} received of {total} announced)"
        )
    suggested = began.get("suggestedFilename") or None
    name = sanitize_filename(suggested) if suggested else None
    mime_type = await _response_type(responses, began.get("url", "")) or mimetypes.guess_type(
        suggested or began.get("url", "")
    )[0]
    final = _publish(source, directory, name, _extension(began.get("url", ""), mime_type))
    return DownloadResult(
        True, final.name, str(final), final.stat().st_size, mime_type, began.get("url", ""), suggested
    )
