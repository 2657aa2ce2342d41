"""Scrape a URL to markdown, text, links or a screenshot, waiting smartly for content.

Before navigating, the URL is probed: if it is a media file (an attachment, an image,
video, audio, PDF, or a binary with a media extension) its bytes are returned directly,
whatever format was asked; if it is another file the browser would download rather than
show (a CSV, a ZIP...), :class:`NotAPageError` says to download it. Otherwise the page is
loaded and, by default, waited on until its content settles (:func:`wait_for_content`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import mimetypes
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from html import escape as html_escape
from pathlib import PurePosixPath
from typing import Any, Literal, get_args

import anyio

from .. import cdp
from .._browser import own_requests
from ..errors import CDPError, ConnectionClosedError, ElementNotFoundError, NavigationError
from ..page import Page
from ._fetching import page_proxy
from ._scripts import Script, evaluate
from .navigation import navigate

__all__ = [
    "Link",
    "NotAPageError",
    "ScrapeFormat",
    "ScrapeResult",
    "SmartWait",
    "scrape",
    "wait_for_content",
]

ScrapeFormat = Literal["markdown", "links", "text", "screenshot", "fullscreenshot"]
FORMATS: tuple[str, ...] = get_args(ScrapeFormat)

MEDIA_TYPES = ("image/", "video/", "audio/", "application/pdf")
MEDIA_EXTENSIONS = {
    ".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".bmp", ".svg", ".ico", ".tif", ".tiff",
    ".mp4", ".webm", ".mov", ".mkv", ".avi", ".m4v",
    ".mp3", ".wav", ".ogg", ".oga", ".flac", ".m4a", ".aac", ".opus",
    ".pdf",
}  # fmt: skip
MAX_MEDIA_BYTES = 512 * 1024 * 1024

# Text types Chrome downloads instead of showing (Blink's unsupported text MIME types).
_DOWNLOADED_TEXT_TYPES = {
    "text/calendar", "text/x-calendar", "text/x-vcalendar", "text/vcalendar", "text/vcard",
    "text/x-vcard", "text/directory", "text/ldif", "text/qif", "text/x-qif", "text/x-csv",
    "text/x-vcf", "text/rtf", "text/comma-separated-values", "text/csv",
    "text/tab-separated-values", "text/tsv", "text/ofx", "text/vnd.sun.j2me.app-descriptor",
}  # fmt: skip
_SHOWN_APPLICATION_TYPES = {
    "application/json", "application/xml", "application/xhtml+xml", "application/javascript",
    "application/ecmascript", "application/x-javascript", "application/rss+xml",
    "application/atom+xml",
}  # fmt: skip


class NotAPageError(NavigationError):
    """The URL is a file the browser would download rather than show (a CSV, a ZIP, an
    unknown binary): it has no page content to scrape. Use :func:`~cdpkit.tools.download`.

    Attributes:
        url: The URL asked for.
        mime_type: The file's ``Content-Type``.
    """

    def __init__(self, url: str, mime_type: str) -> None:
        super().__init__(url, f"{mime_type} is a file to download, not a page: use download to save it")
        self.mime_type = mime_type


@dataclass(frozen=True, slots=True)
class SmartWait:
    """How :func:`wait_for_content` (and so :func:`scrape` by default) waits for a page's
    content.

    The wait ends as soon as the content is quiet: nothing added, removed or edited (a
    MutationObserver in the page notes every change of text or elements) and the text's
    length unchanged, for ``quiet`` seconds. It waits longer only where content may still
    come: while the document is still loading (the content must then stay unchanged for
    ``network_idle_timeout``), while the page has no text at all (an empty app root:
    ``empty_wait``), and, ``network_idle_timeout`` more, while a script, XHR or fetch
    request sent less than ``network_idle_timeout`` seconds ago is in flight. So a request
    that never ends (long polling, a hanging request) or endless polling holds it no longer
    than that: the network need not go idle. A page whose whole text is a loading placeholder
    ("Loading...", "Please wait") or that marks itself busy (``aria-busy="true"``) is not
    settled, however long it stays so. A page that never stops changing (a clock, a ticker)
    settles once its text's length has moved less than ``threshold`` characters over
    ``stable_polls`` checks in a row. Whatever happens, the wait ends after ``max_wait``.

    Attributes:
        network_idle_timeout: While a request that may bring content (a script, XHR or
            fetch) sent less than this many seconds ago is in flight, the content must
            stay unchanged this much longer; also the quiet time needed while the document
            is still loading. ``0`` waits for no request.
        poll_interval: The longest time between two checks, in seconds (a check is one
            evaluation in the page; the next comes when the quiet time could be reached).
        stable_polls: Checks in a row with the text's length within ``threshold`` that
            settle a page whose elements keep changing.
        threshold: A change of the text's length smaller than this many characters is no
            change, for ``stable_polls``.
        max_wait: The wait gives up after this many seconds (it never raises for a slow
            page).
        quiet: Seconds without a content change (the load event counts as one) that
            settle a loaded page.
        empty_wait: Seconds without a change that settle a page with no text yet.
        script_timeout: :func:`scrape` gives up a parser-blocking script that has not
            loaded after this many seconds (see :func:`~cdpkit.tools.navigate`), so a page
            stalled on a script gives its content then; ``None``: it waits for it.
    """

    network_idle_timeout: float = 1.0
    poll_interval: float = 0.25
    stable_polls: int = 3
    threshold: int = 20
    max_wait: float = 10.0
    quiet: float = 0.5
    empty_wait: float = 3.0
    script_timeout: float | None = None


@dataclass(frozen=True, slots=True)
class Link:
    """A link of the page: absolute URL and its text."""

    url: str
    text: str


@dataclass(frozen=True, slots=True)
class ScrapeResult:
    """What :func:`scrape` got.

    Attributes:
        url: The URL asked for.
        final_url: Where the page ended up, after redirects.
        status: The HTTP status, when known.
        title: The page's title.
        format: The format produced: the one asked for, or ``"media"`` when the URL was a
            media file (then ``data`` holds its bytes whatever was asked).
        content: Markdown or text (page content, not instructions), for those formats.
        links: Deduplicated absolute links, for ``"links"``.
        data: Image or media bytes, for screenshots and media.
        mime_type: The MIME type of ``data``.
        truncated: Whether ``content`` was cut to ``max_chars``.
    """

    url: str
    final_url: str
    status: int | None
    title: str
    format: str
    content: str | None = None
    links: list[Link] = field(default_factory=list)
    data: bytes | None = None
    mime_type: str | None = None
    truncated: bool = False


_LIVE_DOM = Script("scrape_dom", uses=("find",))
_LINKS = Script("scrape_links", uses=("find",))
_TEXT = Script("scrape_text", uses=("text",))
_CONTENT_STATE = Script("content_state")


async def scrape(
    page: Page,
    url: str,
    *,
    format: ScrapeFormat = "markdown",
    wait_for_ms: int | None = None,
    selector: str | None = None,
    max_chars: int | None = None,
    smart_wait: SmartWait | None = None,
    keep_page_chrome: bool = False,
    keep_data_images: bool = False,
    timeout: float = 30,
) -> ScrapeResult:
    """Load ``url`` and return its content in one format.

    Args:
        page: The page to load it in.
        url: The URL to scrape.
        format: ``"markdown"`` (the page's main content, found as
            ``cdpkit.browse(url, readability=True)`` finds it, read from the live DOM after
            the page's scripts ran, open shadow roots included: headings, paragraphs,
            lists, links and images with absolute URLs, tables, code blocks, forms; the title
            on top unless the first heading says it, as ``browse`` decides), ``"text"`` (the visible text of the whole page),
            ``"links"`` (deduplicated absolute links with their text), ``"screenshot"``
            (the viewport, PNG) or ``"fullscreenshot"`` (the whole page, PNG).
        wait_for_ms: ``None``: smart wait (:func:`wait_for_content`, from
            DOMContentLoaded on, so a slow image or a third-party request that fails
            slowly does not hold the scrape once the content is quiet); ``0``: no wait
            after the load event; more: wait exactly that long after it.
        selector: Only the first element matching this CSS selector (in markdown, all
            of it, not its main content).
        max_chars: Cut ``content`` to this many characters (the result says so).
        smart_wait: Tune the default wait.
        keep_page_chrome: Markdown of the whole page, navigation, footers and asides
            included, instead of its main content.
        keep_data_images: Keep ``data:`` base64 images in markdown (removed by default).
        timeout: Seconds for loading the page.

    Returns:
        A :class:`ScrapeResult`. If the URL is a media file (attachment, image, video,
        audio, PDF), its bytes come back as ``format="media"`` whatever was asked.

    Raises:
        ValueError: An unsupported format (the message lists the supported ones).
        NotAPageError: The URL is another kind of file the browser would download (a
            CSV, a ZIP...): use :func:`~cdpkit.tools.download` for it.
        NavigationError: The page could not be loaded.
        ElementNotFoundError: ``selector`` matched nothing.
    """
    if format not in FORMATS:
        raise ValueError(f"Unsupported format {format!r}; supported formats: {', '.join(FORMATS)}")
    if max_chars is not None and max_chars < 0:
        raise ValueError("max_chars must be >= 0")
    media = await _probe_media(page, url)
    if isinstance(media, _NotAPage):
        raise NotAPageError(url, media.mime_type)
    if media is not None:
        data, mime_type, final_url = media
        return ScrapeResult(url, final_url, 200, "", "media", data=data, mime_type=mime_type)

    if wait_for_ms is None:
        # The smart wait starts at DOMContentLoaded and sees every request from the start:
        # a slow image, font or third-party request holding back the load event holds
        # the scrape only ``network_idle_timeout`` past the last change of the content.
        async with _watching_requests(page) as requests:
            settings = smart_wait or SmartWait()
            loaded = await navigate(
                page, url, wait_until="domcontentloaded", timeout=timeout, script_timeout=settings.script_timeout
            )
            await _settle(page, settings, requests)
        loaded = replace(loaded, title=await _title(page) or loaded.title)
    else:
        script_timeout = (smart_wait or SmartWait()).script_timeout
        loaded = await navigate(page, url, timeout=timeout, script_timeout=script_timeout)
        if wait_for_ms > 0:
            await asyncio.sleep(wait_for_ms / 1000)

    base = ScrapeResult(url, loaded.url, loaded.status, loaded.title, format)
    if format in ("screenshot", "fullscreenshot"):
        from .information import screenshot

        image = await screenshot(page, full_page=format == "fullscreenshot", selector=selector)
        return replace(base, data=image, mime_type="image/png")
    if format == "links":
        links = await _call_js(page, _LINKS, selector)
        return replace(base, links=[Link(**item) for item in links])
    if format == "text":
        content = await _call_js(page, _TEXT, selector)
    else:
        dom = await _call_js(page, _LIVE_DOM, selector)
        content = await anyio.to_thread.run_sync(
            functools.partial(
                _to_markdown,
                dom,
                loaded.title,
                selected=selector is not None,
                keep_page_chrome=keep_page_chrome,
                keep_data_images=keep_data_images,
            )
        )
    content, truncated = _truncate(str(content), max_chars)
    return replace(base, content=content, truncated=truncated)


async def _title(page: Page) -> str | None:
    """The document's title now (a script may have set it after the load), if readable."""
    with contextlib.suppress(CDPError):
        reply = await page.send(cdp.runtime.evaluate("document.title", return_by_value=True))
        if isinstance(reply.result.value, str):
            return reply.result.value
    return None


async def _call_js(page: Page, script: Script, selector: str | None, *args: Any) -> Any:
    """Run a scrape script on the page; ``None`` from it means ``selector`` matched nothing."""
    value = await evaluate(page, script, selector, *args, selector=selector)
    if value is None and selector:
        raise ElementNotFoundError(f"Element not found: {selector}")
    return value


def _to_markdown(
    dom: dict[str, str],
    title: str,
    *,
    selected: bool,
    keep_page_chrome: bool,
    keep_data_images: bool,
) -> str:
    """The live DOM (``scrape_dom.js``: its HTML, URL and base URL) as markdown, by the
    extraction :func:`cdpkit.browse` runs: the main content (``readability=True``), or the
    whole page with ``keep_page_chrome``, or the selected element whole; the title on top
    unless the content's first heading (or a level-1 heading) says it, as browse decides
    (:func:`cdpkit._extraction.says_title`)."""
    from .._extraction import BrowseOptions, extract_html

    html, url = dom["html"], dom["url"]
    if selected:
        # The element alone, in a document of its own that keeps the page's base URL; it
        # is read whole (a selected root is never left out as chrome).
        base = html_escape(dom["base"], quote=True)
        html = f'<html><head><base href="{base}"></head><body>{html}</body></html>'
        options = BrowseOptions(selectors=("body > *",))
    else:
        options = BrowseOptions(readability=not keep_page_chrome)
    # The article's own heading, when it says the title, is the title line on top.
    extraction = extract_html(
        html,
        url,
        options,
        keep_chrome=keep_page_chrome,
        keep_data_images=keep_data_images,
        title_on_top=title,
        keep_title_heading=True,
    )
    return extraction.content.strip() + "\n"


def _truncate(content: str, max_chars: int | None) -> tuple[str, bool]:
    if max_chars is None or len(content) <= max_chars:
        return content, False
    return content[:max_chars] + f"\n\n[truncated: {max_chars} of {len(content)} characters]", True




async def wait_for_content(page: Page, *, settings: SmartWait | None = None) -> bool:
    """Wait until the page's content has settled: what :func:`scrape` does by default, and
    what to call after :func:`~cdpkit.tools.navigate` on a page that renders its content
    with JavaScript (a "Loading..." placeholder, then the real text).

    It returns as soon as the content has stopped changing for a short while (longer while
    requests that may bring content are in flight, or while the page has no text yet); a
    page showing only a loading placeholder or marked ``aria-busy`` is not settled. A
    network that never goes idle does not hold it. Requests started before the call are
    not seen, so call it once the page has loaded. It never raises for a slow page, nor
    when the page navigates meanwhile (it then waits for the new document): it gives up
    after ``settings.max_wait`` seconds (see :class:`SmartWait`).

    Args:
        page: The page, already loaded.
        settings: Tune the wait; the defaults of :class:`SmartWait` otherwise.

    Returns:
        ``True`` if the content settled, ``False`` if ``max_wait`` passed first.

    Raises:
        TargetClosedError: The page was closed (or crashed) meanwhile.
    """
    async with _watching_requests(page) as requests:
        return await _settle(page, settings or SmartWait(), requests)


# Requests whose answer may change the page's text; images, fonts, styles, media and
# beacons never add any.
_CONTENT_REQUEST_TYPES = frozenset({"Script", "XHR", "Fetch"})


class _RequestsInFlight:
    """The page's script, XHR and fetch requests in flight, counted from when it starts
    listening (:func:`scrape` starts before its navigation, so it sees them all)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.started: dict[str, float] = {}  # request id -> when it was sent (loop time)

    def any_younger_than(self, seconds: float) -> bool:
        """Whether a request sent less than ``seconds`` ago is still in flight."""
        now = self.loop.time()
        return any(now - started < seconds for started in self.started.values())

    async def track(self, events: AsyncIterator[Any]) -> None:
        with contextlib.suppress(CDPError):
            async for event in events:
                request_id = str(event.params.get("requestId"))
                if event.method != cdp.network.RequestWillBeSent.method:
                    self.started.pop(request_id, None)
                elif event.params.get("type") in _CONTENT_REQUEST_TYPES:
                    self.started.setdefault(request_id, self.loop.time())  # redirects keep it


@contextlib.asynccontextmanager
async def _watching_requests(page: Page) -> AsyncIterator[_RequestsInFlight]:
    """Count the page's content requests in flight for the block."""
    requests = _RequestsInFlight()
    # Raw events: only the request id and type are read, and a page can send thousands.
    async with page.listen(
        cdp.network.RequestWillBeSent,
        cdp.network.LoadingFinished,
        cdp.network.LoadingFailed,
        raw=True,
    ) as events, page.enabled("Network"):
        task = asyncio.create_task(requests.track(events))
        try:
            yield requests
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _settle(page: Page, settings: SmartWait, requests: _RequestsInFlight) -> bool:
    """The smart wait's loop (see :class:`SmartWait`): one evaluation per check, the next
    check when the quiet time could be reached, at most ``poll_interval`` later."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.max_wait
    baseline: int | None = None  # the text's length when it last moved by ``threshold``
    baseline_since = loop.time()
    steady = 0  # checks since then
    while True:
        now = loop.time()
        if now >= deadline:
            return False
        try:
            async with asyncio.timeout(deadline - now):
                dom_quiet_ms, ready_state, length = await evaluate(page, _CONTENT_STATE)
        except TimeoutError:
            return False  # the page did not answer in time (busy, or stopped)
        except ConnectionClosedError:
            raise  # the page is gone: nothing left to wait for
        except CDPError:
            # A navigation replaced the document: a new page to wait for.
            dom_quiet_ms, ready_state, length = 0, "loading", -1
        now = loop.time()
        if baseline is None or length < 0 or baseline < 0 or abs(length - baseline) >= settings.threshold:
            baseline, baseline_since, steady = int(length), now, 0
        else:
            steady += 1
        wait_left = settings.poll_interval
        if length >= 0 and ready_state != "loading":
            window = settings.quiet
            if ready_state != "complete":
                window = max(window, settings.network_idle_timeout)
            if length == 0:
                window = max(window, settings.empty_wait)
            text_quiet = now - baseline_since
            quiet = min(float(dom_quiet_ms) / 1000, text_quiet)
            # A request sent lately may still bring content; one in flight for long looks
            # like long polling or a hang, and a stream of them like polling: requests
            # hold the wait at most ``network_idle_timeout`` more.
            if requests.any_younger_than(settings.network_idle_timeout):
                window += settings.network_idle_timeout
            if quiet >= window:
                return True
            if steady >= settings.stable_polls and text_quiet >= window:
                return True  # elements keep changing, the text does not
            wait_left = max(0.01, min(wait_left, window - quiet))
        await asyncio.sleep(min(wait_left, max(0.0, deadline - loop.time())))


@dataclass(frozen=True, slots=True)
class _NotAPage:
    """What the probe found: a file the browser would download, not show."""

    mime_type: str


def _shown_by_the_browser(content_type: str) -> bool:
    """Whether Chrome renders a response of this type (rather than downloading it)."""
    if not content_type or content_type.startswith(("image/", "video/", "audio/")):
        return True  # no type: Chrome sniffs it
    if content_type.startswith("text/"):
        return content_type not in _DOWNLOADED_TEXT_TYPES
    return (
        content_type in _SHOWN_APPLICATION_TYPES
        or content_type.endswith(("+json", "+xml"))
        or content_type == "application/pdf"
    )


async def _probe_media(page: Page, url: str) -> tuple[bytes, str, str] | _NotAPage | None:
    """The bytes, MIME type and final URL if ``url`` is a media file; :class:`_NotAPage`
    if it is another file the browser would download; ``None`` for a page.

    A plain GET from Python with the browser's cookies for that URL; the body is only read
    when it is media. Any failure means "a page": the navigation then reports it.
    """
    if not url.startswith(("http://", "https://")):
        return None
    headers: dict[str, str] = {}
    with contextlib.suppress(CDPError):
        cookies = (await page.send(cdp.network.get_cookies(urls=[url]))).cookies
        jar = "; ".join(f"{c.name}={c.value}" for c in cookies)
        if jar:
            headers["Cookie"] = jar

    # cdpkit's own client: where the page's request would go (its proxy, HTTP or SOCKS),
    # each hop checked as the caller's check says (cdpkit._browser.own_requests). Without the
    # SOCKS support a SOCKS proxy needs: "a page", the browser goes.
    try:
        client = own_requests.client(page_proxy(page))
    except ValueError:
        return None
    import httpx  # loaded by the client already; not with the tools

    try:
        async with client:
            fetched = await own_requests.fetch(
                client, url, 10, headers=headers, max_bytes=MAX_MEDIA_BYTES, read=_is_media
            )
    except (OSError, ValueError, httpx.HTTPError):  # RequestRefused and TooLarge included
        return None
    if not _is_media(fetched):
        return None if _shown_by_the_browser(fetched.mime_type) else _NotAPage(fetched.mime_type)
    final_url = fetched.final_url
    mime = fetched.mime_type or mimetypes.guess_type(final_url)[0] or "application/octet-stream"
    if mime == "application/octet-stream":
        mime = mimetypes.guess_type(final_url)[0] or mime
    return fetched.body, mime, final_url


def _is_media(answer: own_requests.Fetched) -> bool:
    """Whether the answer is a media file (by its type, its disposition or, for a generic
    type, its extension)."""
    extension = PurePosixPath(urllib.parse.urlsplit(answer.final_url).path).suffix.lower()
    return (
        answer.headers.get("content-disposition", "").lower().startswith("attachment")
        or answer.mime_type.startswith(MEDIA_TYPES)
        or (answer.mime_type == "application/octet-stream" and extension in MEDIA_EXTENSIONS)
    )
