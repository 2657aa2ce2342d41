"""How :func:`~cdpkit.tools.download` gets a body onto disk: through a request the page
makes itself (paused at the response with ``Fetch``, streamed with ``IO.read``), or a
direct request with the page's cookies (cdpkit's own client, :mod:`cdpkit._browser.own_requests`);
redirects followed, every byte accounted for.

Either way the body goes to a hidden ``.part`` file in the download directory
(:class:`PartFile`) and is complete, or the fetch raises :class:`~cdpkit.DownloadError`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import os
import re
import tempfile
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

from .. import cdp
from .._browser import own_requests
from .._browser.settings import Proxy
from .._model import RawEvent
from ..errors import CDPError, DownloadError
from ..page import Page
from ._scripts import Script, evaluate

if TYPE_CHECKING:
    from ..cdp.fetch import RequestPausedJSON
    from ..cdp.io import ReadResultJSON

T = TypeVar("T")

__all__ = [
    "CHUNK_SIZE",
    "Fetched",
    "PartFile",
    "cancel_and_wait",
    "fetch_directly",
    "fetch_in_page",
    "run_in_thread",
]

# Measured: 256 KiB reads stream as fast as any size and keep memory flat (4 MiB: half speed).
CHUNK_SIZE = 256 * 1024

_PAGE_FETCH = Script("page_fetch")
_USER_AGENT = Script("user_agent")


async def run_in_thread(function: Callable[[], T]) -> T:
    """Run ``function`` in a worker thread and return what it returns.

    A cancelled caller still waits for ``function`` to finish before the cancellation goes
    on, so nothing writes to a file after the caller closed or removed it. (The same as
    ``anyio.to_thread.run_sync``, without its first-use cost: loading anyio's asyncio
    backend took 30-100 ms, a tenth of a 100 MB download.)
    """
    future = asyncio.get_running_loop().run_in_executor(None, function)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([future])
        if not future.cancelled():
            future.exception()  # retrieved: the cancellation is what the caller gets
        raise


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


class PartFile:
    """A hidden temporary file in the download directory, removed unless published."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=directory, prefix=".cdpkit-", suffix=".part")
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it 0600; a download is an ordinary file
        self.path = Path(name)
        self.file: IO[bytes] = os.fdopen(fd, "wb")
        self.size = 0

    async def write(self, data: bytes) -> None:
        await run_in_thread(functools.partial(self.file.write, data))
        self.size += len(data)

    def discard(self) -> None:
        self.file.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


@dataclass
class Fetched:
    """A complete body in its ``.part`` file, the response's headers (lower-case
    names) and the URL that answered (after redirects)."""

    part: PartFile
    headers: dict[str, str]
    url: str


def _fetch_pattern(url: str) -> str:
    # Fetch URL patterns treat * and ? as wildcards; backslash escapes them.
    return re.sub(r"([*?\\])", r"\\\1", url)


_MAX_REDIRECTS = 20
_REDIRECT_STATUSES = (301, 302, 303, 307, 308)


async def fetch_in_page(
    page: Page, url: str, directory: Path, initiation_timeout: float
) -> Fetched | None:
    """Stream ``url`` through requests the page makes itself, following redirects;
    ``None`` if the direct request must do it (see :func:`_page_request`)."""
    target = url
    for _ in range(_MAX_REDIRECTS + 1):
        outcome = await _page_request(page, target, directory, initiation_timeout)
        if not isinstance(outcome, str):
            return outcome
        _check_hop(url, outcome)  # before the page is asked for it
        target = outcome
    raise DownloadError(f"Download of {url} failed: more than {_MAX_REDIRECTS} redirects")


def _check_hop(url: str, hop: str) -> None:
    """Refuse ``hop`` (where ``url`` redirected) if the check in force
    (:func:`cdpkit._browser.own_requests.checked_by`) does: nothing is requested from there."""
    try:
        own_requests.check(hop)
    except own_requests.RequestRefused as exc:
        raise _download_error(url, exc, False, 0) from None


def page_proxy(page: Page) -> Proxy | None:
    """The proxy the page's requests go through (its context's, else the browser's)."""
    settings = (page.context.settings if page.context is not None else None) or page.browser.settings
    return settings.proxy if settings is not None else None


async def cancel_and_wait(*tasks: asyncio.Future[Any]) -> None:
    """Cancel ``tasks`` and wait for them, so none outlives the caller or leaves an
    exception nobody retrieves."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _page_request(
    page: Page, url: str, directory: Path, initiation_timeout: float
) -> Fetched | str | None:
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
    # Raw events read through their generated JSON shape: a fast path (the RequestPaused
    # model's schema alone takes ~50 ms to build on first use, in every fresh process).
    async with page.listen(cdp.fetch.RequestPaused, raw=True) as paused:
        # page.fetch_enable: a page answering its proxy's credential challenges keeps
        # doing so (and continues its requests' request-stage pauses itself).
        await page.send(
            page.fetch_enable(
                [cdp.fetch.RequestPattern(url_pattern=_fetch_pattern(url), request_stage="Response")]
            )
        )
        attempt = asyncio.ensure_future(
            evaluate(page, _PAGE_FETCH, url, await_promise=True)
        )
        next_pause: asyncio.Future[RawEvent] | None = None
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
                        pause = _paused(next_pause.result())
                        next_pause = None
                        if "responseStatusCode" not in pause and "responseErrorReason" not in pause:
                            continue  # a request-stage pause: the page's own (see above)
                        if pause["request"]["url"] == url and pause["resourceType"] in (
                            "XHR",
                            "Fetch",
                        ):
                            break
                        await page.send(cdp.fetch.continue_request(pause["requestId"]))
            except TimeoutError:
                raise DownloadError(
                    f"Download of {url} did not start within {initiation_timeout:g} s"
                ) from None
            headers = {h["name"].lower(): h["value"] for h in pause.get("responseHeaders", [])}
            status = pause.get("responseStatusCode")
            location = headers.get("location")
            if status in _REDIRECT_STATUSES and location:
                await _abort(page, pause["requestId"])
                return str(urllib.parse.urldefrag(urllib.parse.urljoin(url, location))[0])
            if (
                not pause.get("responseErrorReason")
                and status is not None
                and status < 400
                and "chunked" in headers.get("transfer-encoding", "").lower()
            ):
                await _abort(page, pause["requestId"])
                return None
            part = await _take_body(page, pause, headers, url, directory)
            return Fetched(part, headers, url)
        finally:
            await cancel_and_wait(attempt, *([next_pause] if next_pause is not None else []))
            await page.fetch_release()


def _paused(event: RawEvent) -> RequestPausedJSON:
    return cast("RequestPausedJSON", event.params)


async def _abort(page: Page, request_id: cdp.fetch.RequestId) -> None:
    with contextlib.suppress(CDPError):
        await page.send(cdp.fetch.fail_request(request_id, "Aborted"))


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
    page: Page,
    pause: RequestPausedJSON,
    headers: dict[str, str],
    url: str,
    directory: Path,
) -> PartFile:
    request_id = pause["requestId"]
    status = pause.get("responseStatusCode")
    error = pause.get("responseErrorReason")
    if error or not status or status >= 400:
        await _abort(page, request_id)
        if error:
            raise DownloadError(f"Network request failed for {url}: {error}")
        raise DownloadError(f"Resource fetch failed: {status} for {url}")
    stream: cdp.io.StreamHandle | None = None
    part = PartFile(directory)
    next_read: asyncio.Future[ReadResultJSON] | None = None
    try:
        stream = (await page.send(cdp.fetch.take_response_body_as_stream(request_id))).stream
        # send_json: a 256 KiB chunk is not copied into a model (the typed fast path).
        read = cdp.io.read(stream, size=CHUNK_SIZE)
        next_read = asyncio.ensure_future(page.send_json(read))
        while True:
            chunk = await next_read
            # Ask for the next chunk before writing this one: Chrome reads while the disk
            # writes (at most two chunks in memory), instead of waiting on each other.
            next_read = None if chunk["eof"] else asyncio.ensure_future(page.send_json(read))
            data = chunk["data"]
            await part.write(
                base64.b64decode(data) if chunk.get("base64Encoded") else data.encode()
            )
            if next_read is None:
                break
        part.file.close()
        short = _short_body_error(url, part.size, headers)
        if short is not None:
            raise short
    except BaseException:
        part.discard()
        raise
    finally:
        if next_read is not None:
            await cancel_and_wait(next_read)
        if stream is not None:
            with contextlib.suppress(CDPError):
                await page.send(cdp.io.close(stream))
        await _abort(page, request_id)
    return part


async def fetch_directly(page: Page, url: str, directory: Path) -> Fetched:
    """The fallback: a direct request with the page's cookies for ``url`` and the page's
    URL as Referer, through cdpkit's own client (:func:`cdpkit._browser.own_requests.client`: the
    page's proxy, HTTP or SOCKS; each hop put to the check in force), streamed to disk.

    A body shorter than its ``Content-Length`` or a chunked body without its terminating
    chunk raises :class:`DownloadError`. If the call is cancelled (a timeout), the
    connection is closed with it."""
    cookies = (await page.send(cdp.network.get_cookies(urls=[url]))).cookies
    cookie_header = "; ".join(f"{c.name}={c.value}" for c in cookies)
    user_agent = await evaluate(page, _USER_AGENT)
    # identity: the bytes saved are the bytes the server holds (as urllib asked before).
    request_headers = {"User-Agent": str(user_agent or "cdpkit"), "Accept-Encoding": "identity"}
    if page.url.startswith("http"):
        request_headers["Referer"] = page.url
    if cookie_header:
        request_headers["Cookie"] = cookie_header
    try:
        client = own_requests.client(page_proxy(page), max_redirects=_MAX_REDIRECTS)
    except ValueError as exc:  # a SOCKS proxy without the SOCKS support
        raise DownloadError(
            f"Download of {url} failed: the page could not fetch it, and {exc}"
        ) from None
    part = PartFile(directory)
    answered = False

    def wanted(answer: own_requests.Fetched) -> bool:
        nonlocal answered
        answered = True
        if answer.status >= 400:
            raise DownloadError(f"Resource fetch failed: {answer.status} for {url}")
        return True

    try:
        async with client:
            fetched = await own_requests.fetch(
                client,
                url,
                30,
                headers=request_headers,
                read=wanted,
                into=part.write,
                chunk_size=CHUNK_SIZE,
            )
        part.file.close()
        short = _short_body_error(url, part.size, dict(fetched.headers))
        if short is not None:
            raise short
    except BaseException as exc:
        part.discard()
        raise _download_error(url, exc, answered, part.size) from None
    return Fetched(part, dict(fetched.headers), fetched.final_url)


def _download_error(url: str, exc: BaseException, answered: bool, size: int) -> BaseException:
    """What a failed direct request raises: a :class:`DownloadError` in the download's
    words; a cancellation or another error as it is."""
    import httpx

    if isinstance(exc, own_requests.RequestRefused):
        how = "is" if exc.url == url else f"was redirected to {exc.url}, which is"
        return DownloadError(
            f"Download of {url} {how} blocked: {exc.reason}. Nothing was requested from there."
        )
    if isinstance(exc, httpx.TooManyRedirects):
        return DownloadError(f"Download of {url} failed: more than {_MAX_REDIRECTS} redirects")
    if answered and isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return DownloadError(
            f"Download of {url} failed: the connection closed after {size} "
            "bytes, before the end of the body (a chunked body without its last chunk, or "
            "fewer bytes than Content-Length)"
        )
    if isinstance(exc, httpx.HTTPError):
        reason = str(exc) or type(exc).__name__
        return DownloadError(f"Network request failed for {url}: {reason}")
    return exc
