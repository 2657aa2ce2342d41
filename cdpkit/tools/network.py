"""The page's network requests: what it loaded since its last navigation, and one request's
headers and body.

Recording starts the first time a page is asked: call :func:`start_network_log` before
navigating to see everything, including the navigation's own document request.
(:func:`network_requests` starts it too, but then shows only what comes after.) The MCP
server starts it for every page it works on. The log keeps the last 5,000 requests of a
page; a main-frame navigation empties it, keeping only the new document's request.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import fnmatch
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cdp
from .._model import RawEvent
from ..errors import CDPError, ProtocolError
from ..page import Page
from ..session import EventStream
from ._network_log import EVENTS, MAX_ENTRIES, Entry, NetworkLog, drain, follow
from .files import claim_free_name, extension_for, sanitize_filename

if TYPE_CHECKING:
    from ..cdp.network import ResourceTimingJSON

__all__ = [
    "NetworkRequest",
    "NetworkRequestDetails",
    "network_request",
    "network_requests",
    "start_network_log",
]

# Bodies of these types are text even when Chrome sends them base64-encoded.
_TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/xml",
               "application/x-javascript", "application/ecmascript", "image/svg+xml")  # fmt: skip


@dataclass(slots=True)
class _NetworkLogState:
    """Per page: the running request log (see :func:`start_network_log`)."""

    log: NetworkLog | None = None
    stream: EventStream[RawEvent] | None = None
    task: asyncio.Future[None] | None = None
    network: contextlib.AbstractAsyncContextManager[None] | None = None  # kept: not collected
    starting: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(frozen=True, slots=True)
class NetworkRequest:
    """One request the page made.

    Attributes:
        id: The request's id, for :func:`network_request` (a redirect hop's id ends in
            ``.redirectN``).
        method: ``GET``, ``POST``...
        url: The URL requested.
        status: The HTTP status, ``None`` while waiting or when no response came.
        status_text: The status line's text (``"Not Found"``), empty with HTTP/2.
        resource_type: ``Document``, ``Script``, ``XHR``, ``Fetch``, ``Image``,
            ``Stylesheet``, ``Font``, ``Media``, ``Other``...
        mime_type: The response's MIME type, ``None`` without a response.
        size: Bytes received over the network (headers and encoded body), ``None``
            until the request finished.
        duration_ms: Milliseconds from the request's start to its end, ``None`` while
            it is still loading.
        started: When it started, in seconds since the epoch.
        failed: Why no response came (Chrome's error text, e.g.
            ``net::ERR_CONNECTION_REFUSED``), or ``None``. An HTTP error status is a
            response: see :attr:`status`.
        from_cache: Served from the browser's cache.
        remote_address: The server's ``IP:port``, when known.
    """

    id: str
    method: str
    url: str
    status: int | None
    status_text: str
    resource_type: str
    mime_type: str | None
    size: int | None
    duration_ms: float | None
    started: float
    failed: str | None
    from_cache: bool
    remote_address: str | None


@dataclass(frozen=True, slots=True)
class NetworkRequestDetails:
    """One request in full: :func:`network_request`'s answer.

    Attributes:
        request: The summary, as :func:`network_requests` lists it.
        request_headers: The headers sent (the raw ones from the network stack when
            Chrome reported them, cookies included); a credentials header
            (``Authorization``, ``Proxy-Authorization``) shows its scheme only
            (``Basic ***``).
        response_headers: The headers received, ``{}`` without a response.
        post_data: The request's body (POST, PUT...), ``None`` if it had none.
        timing: Milliseconds per phase (``blocked``, ``dns``, ``connect``, ``ssl``,
            ``send``, ``wait``, ``receive``; ``-1`` when it did not apply), ``None``
            without a response.
        body: The response body as text, when it is textual.
        body_path: Where a binary body was saved.
        body_note: Why there is no body, when there is none (not asked for, no
            response yet, a redirect, or Chrome no longer holds it).
    """

    request: NetworkRequest
    request_headers: dict[str, str]
    response_headers: dict[str, str]
    post_data: str | None
    timing: dict[str, float] | None
    body: str | None = None
    body_path: str | None = None
    body_note: str | None = None


async def start_network_log(page: Page) -> None:
    """Start recording ``page``'s requests, if it is not already (then this does nothing).

    Call it before navigating to see everything, the navigation's own document request
    included. Recording lasts as long as the page; the log keeps the last 5,000
    requests and a main-frame navigation empties it (keeping the new document's request).
    """
    state = page.state(_NetworkLogState)
    async with state.starting:
        if state.task is not None and not state.task.done():
            return
        log = NetworkLog(main_frame=page.target_id, limit=MAX_ENTRIES)
        stream = page.listen(*EVENTS, raw=True)  # subscribed before enabling
        try:
            # Held for the page's life: it stays enabled whatever other tools enable or not.
            network = page.enabled("Network")
            await network.__aenter__()
        except BaseException:
            await stream.aclose()
            raise
        state.log, state.stream, state.network = log, stream, network
        state.task = asyncio.ensure_future(follow(stream, log))


async def _current_log(page: Page) -> NetworkLog:
    await start_network_log(page)
    state = page.state(_NetworkLogState)
    assert state.log is not None and state.stream is not None
    await drain(state.stream, state.log)  # what arrived but the task has not read yet
    return state.log


def summarize(entry: Entry) -> NetworkRequest:
    """The :class:`NetworkRequest` of a log entry."""
    sent = entry.sent
    request = sent["request"]
    response = entry.response
    status = status_text = mime_type = remote = None
    if response is not None:
        status, status_text, mime_type = response["status"], response["statusText"], response["mimeType"]
        if "remoteIPAddress" in response:
            ip = response["remoteIPAddress"]
            ip = f"[{ip}]" if ":" in ip else ip
            remote = f"{ip}:{response['remotePort']}" if "remotePort" in response else ip
    if entry.response_extra is not None and status is not None:
        status = entry.response_extra.get("statusCode", status)
    duration = (entry.end - float(sent["timestamp"])) * 1000 if entry.end is not None else None
    return NetworkRequest(
        id=entry.id,
        method=request["method"],
        url=request["url"] + request.get("urlFragment", ""),
        status=status,
        status_text=status_text or "",
        resource_type=entry.resource_type,
        mime_type=mime_type,
        size=int(entry.encoded_size) if entry.encoded_size is not None else None,
        duration_ms=round(duration, 3) if duration is not None else None,
        started=float(sent["wallTime"]),
        failed=entry.failed,
        from_cache=entry.from_cache or bool(response and response.get("fromServiceWorker")),
        remote_address=remote,
    )


async def network_requests(
    page: Page,
    *,
    url_pattern: str | None = None,
    resource_types: Iterable[str] | None = None,
    failed_only: bool = False,
) -> list[NetworkRequest]:
    """The requests the page made since its last main-frame navigation, oldest first.

    The navigation's own document request is included. Recording starts with the first
    call for a page (or :func:`start_network_log`): call one of them before navigating
    to see everything. At most the last 5,000 requests are kept.

    Args:
        page: The page.
        url_pattern: Only URLs matching this: a glob when it holds ``*``, ``?`` or ``[``
            (``*api*``, ``*.png``; matched against the whole URL), else a substring
            (``/api/``). Case-sensitive.
        resource_types: Only these types (``Document``, ``Stylesheet``, ``Script``,
            ``Image``, ``Font``, ``Media``, ``XHR``, ``Fetch``, ``WebSocket``, ``Other``...),
            case-insensitive.
        failed_only: Only requests that failed: no response (``failed`` says why) or an
            HTTP error status (400 and up).

    Returns:
        One record per request: id (for :func:`network_request`), method, URL, status,
        type, MIME type, size, duration, start time, failure, cache use, server address.
    """
    log = await _current_log(page)
    types = {kind.lower() for kind in resource_types} if resource_types is not None else None
    if isinstance(resource_types, str):
        types = {resource_types.lower()}
    found = []
    for entry in log.entries.values():
        record = summarize(entry)
        if url_pattern is not None and not _url_matches(record.url, url_pattern):
            continue
        if types is not None and record.resource_type.lower() not in types:
            continue
        if failed_only and record.failed is None and (record.status or 0) < 400:
            continue
        found.append(record)
    return found


def _url_matches(url: str, pattern: str) -> bool:
    if any(char in pattern for char in "*?["):
        return fnmatch.fnmatchcase(url, pattern)
    return pattern in url


async def network_request(
    page: Page,
    id: str,
    *,
    body: bool = True,
    save_to: str | Path | None = None,
) -> NetworkRequestDetails:
    """One request's headers, post data, timing and response body.

    A textual body (HTML, JSON, JavaScript, CSS, XML, SVG, plain text) comes back as text.
    A binary one (an image, a font, a zip) is saved to a file in ``save_to`` and its path
    returned. Chrome keeps bodies in a limited buffer and forgets them when the page
    navigates; a body it no longer holds is said so in ``body_note``, not raised.

    Args:
        page: The page.
        id: The request's id, from :func:`network_requests`.
        body: Fetch the response body too.
        save_to: The directory for binary bodies (created if missing); default a new
            temporary directory.

    Returns:
        The request's summary, request and response headers, post data, timing phases
        in milliseconds, and its body (text, or a saved file's path).

    Raises:
        ValueError: No request with this id since the last navigation; the message says
            how to get ids.
    """
    log = await _current_log(page)
    entry = log.entries.get(id)
    if entry is None:
        raise ValueError(
            f"No request with id {id!r} since the page's last navigation. Get ids from "
            f"network_requests(page) (MCP: browser_network_requests); a navigation forgets "
            f"the requests before it, and only the last {log.limit} are kept."
        )
    record = summarize(entry)
    request_headers = dict(entry.sent["request"]["headers"])
    if entry.request_extra is not None:
        request_headers = dict(entry.request_extra["headers"])
    response_headers: dict[str, str] = {}
    if entry.response_extra is not None:
        response_headers = dict(entry.response_extra["headers"])
    elif entry.response is not None:
        response_headers = dict(entry.response["headers"])
    post_data = await request_post_data(page, entry)
    timing = None
    if entry.response is not None and "timing" in entry.response:
        timing = timing_phases(entry.response["timing"], entry.end)
    details = NetworkRequestDetails(record, request_headers, response_headers, post_data, timing)
    if not body:
        return _with_note(details, "not asked for (body=False)")
    if entry.redirected:
        return _with_note(details, f"a redirect ({record.status}): it has no body to show")
    if entry.failed is not None:
        return _with_note(details, f"the request failed ({entry.failed}): no body")
    if not entry.finished:
        return _with_note(details, "the response has not finished loading yet; ask again")
    content = await response_body(page, entry)
    if content is None:
        return _with_note(
            details,
            "Chrome no longer holds this body (it keeps bodies in a limited buffer and "
            "drops them when they are too large or the page moved on)",
        )
    data, is_text = content
    if is_text:
        return dataclasses.replace(details, body=data.decode("utf-8", "replace"))
    directory = Path(save_to) if save_to is not None else Path(tempfile.mkdtemp(prefix="cdpkit-body-"))
    directory.mkdir(parents=True, exist_ok=True)
    stem = sanitize_filename(Path(record.url.split("?")[0]).stem) or "body"
    # Never over a file already there (the folder may be the user's downloads).
    path = claim_free_name(directory, f"{stem}-{entry.id}{extension_for(record.url, record.mime_type)}")
    path.write_bytes(data)
    return dataclasses.replace(details, body_path=str(path.resolve()))


def _with_note(details: NetworkRequestDetails, note: str) -> NetworkRequestDetails:
    return dataclasses.replace(details, body_note=note)


def is_textual(mime_type: str | None) -> bool:
    """Whether a body of this MIME type reads as text."""
    essence = (mime_type or "").split(";")[0].strip().lower()
    return essence.startswith(_TEXT_TYPES) or essence.endswith(("+json", "+xml"))


async def response_body(page: Page, entry: Entry) -> tuple[bytes, bool] | None:
    """The response body of a finished request and whether it is text, or ``None`` when
    Chrome no longer holds it."""
    try:
        got = await page.send_json(cdp.network.get_response_body(cdp.network.RequestId(entry.id)))
    except ProtocolError:
        return None  # "No resource with given identifier found" / "No data found..."
    text = got["body"]
    mime_type = entry.response["mimeType"] if entry.response is not None else None
    if got["base64Encoded"]:
        data = base64.b64decode(text)
        if is_textual(mime_type):
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return data, False
            return data, True
        return data, False
    return text.encode("utf-8"), True


async def request_post_data(page: Page, entry: Entry) -> str | None:
    """The body the request sent, or ``None``."""
    request = entry.sent["request"]
    if "postData" in request:
        return request["postData"]
    if not request.get("hasPostData"):
        return None
    try:
        got = await page.send_json(cdp.network.get_request_post_data(cdp.network.RequestId(entry.id.split(".")[0])))
    except CDPError:
        return None
    return got["postData"]


def timing_phases(timing: ResourceTimingJSON, end: float | None) -> dict[str, float]:
    """The HAR timing phases, in milliseconds (``-1`` when a phase did not apply), from
    Chrome's ``ResourceTiming`` (offsets in ms from ``requestTime``, ``-1`` when unset)
    and the end of loading (monotonic seconds)."""

    def span(start: float, stop: float) -> float:
        return round(stop - start, 3) if start >= 0 and stop >= 0 else -1.0

    dns = span(timing["dnsStart"], timing["dnsEnd"])
    connect = span(timing["connectStart"], timing["connectEnd"])
    ssl = span(timing["sslStart"], timing["sslEnd"])
    send_start = timing["sendStart"]
    first = [value for value in (timing["dnsStart"], timing["connectStart"], send_start) if value >= 0]
    blocked = round(min(first), 3) if first else -1.0
    send = span(send_start, timing["sendEnd"])
    headers_end = timing["receiveHeadersEnd"]
    wait = span(timing["sendEnd"], headers_end)
    receive = -1.0
    if end is not None and headers_end >= 0:
        receive = round(max(0.0, (end - timing["requestTime"]) * 1000 - headers_end), 3)
    return {
        "blocked": blocked,
        "dns": dns,
        "connect": connect,
        "ssl": ssl,
        "send": max(send, 0.0) if send != -1 else 0.0,
        "wait": max(wait, 0.0) if wait != -1 else 0.0,
        "receive": receive if receive != -1 else 0.0,
    }
