"""HAR: record what a page loads into a HAR 1.2 file, the format Chrome DevTools ("Import
HAR file"), Firefox, Playwright (``routeFromHAR``) and HAR viewers read.

Each main-frame navigation of the recording is a page (title, DOMContentLoaded and load
times); each request an entry with its headers, cookies, timings (from Chrome's
``ResourceTiming``), server address and, up to a size limit, its body.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import json
import os
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from .. import cdp
from .._core.files import write_private
from ..errors import CDPError, ConnectionClosedError
from ..page import Page
from ._network_log import MAX_ENTRIES, Entry, NetworkLog, PageLoad, recording
from .network import NetworkRequest, request_post_data, response_body, summarize, timing_phases

__all__ = ["record_har"]

_BODY_FETCHES = 8  # bodies asked of Chrome at once when the recording ends
_BODY_TIMEOUT = 10.0


@contextlib.asynccontextmanager
async def record_har(
    page: Page,
    path: str | os.PathLike[str],
    *,
    max_body_size: int = 1_000_000,
    content: bool = True,
) -> AsyncIterator[None]:
    """Record the page's requests for the block and write them as a HAR 1.2 file at its end::

        async with tools.record_har(page, "run.har"):
            await tools.navigate(page, "https://example.com")

    The file is written when the block ends, also when it raises (the exception then
    goes on), and replaces ``path`` whole (written beside it, then renamed), so it is
    never half-written; it holds the cookies sent and set, so it is made readable by its
    owner only (mode 0600); credentials headers (``Authorization``, ``Proxy-Authorization``,
    which carries the proxy's password) are written with their scheme only (``Basic ***``).
    Each main-frame navigation in the block is a ``page`` of the HAR;
    requests are its ``entries`` (the last 5,000 are kept), with request and response
    headers, cookies, post data, timings (``blocked``, ``dns``, ``connect``, ``ssl``,
    ``send``, ``wait``, ``receive``; ``-1`` where a phase did not apply), the server's
    address and the resource type (``_resourceType``). A request that got no response
    has status 0 and its error in ``_error``.

    Args:
        page: The page to record.
        path: The HAR file to write (its directory must exist).
        max_body_size: Response bodies up to this many bytes are stored (text as is,
            binary as base64 with ``"encoding": "base64"``); larger ones are left out,
            with a ``comment`` saying so.
        content: Store response bodies at all.

    Raises:
        OSError: ``path`` could not be written (raised at the block's end).
    """
    destination = Path(path)
    log = NetworkLog(main_frame=page.target_id, per_navigation=False, limit=MAX_ENTRIES)
    bodies = _Bodies(page, max_body_size if content else -1)
    log.on_finished = bodies.fetch
    try:
        async with recording(page, log), _titling(page, log):
            yield
    finally:
        await bodies.settle()
        har = await _build(page, log, bodies)
        _write_whole(destination, har)


class _Bodies:
    """Response bodies, asked of Chrome as each request finishes (it drops a document's
    bodies when the page navigates), kept only up to ``max_body_size`` bytes each."""

    def __init__(self, page: Page, max_body_size: int) -> None:
        self.page = page
        self.max_body_size = max_body_size
        self.found: dict[str, tuple[bytes, bool] | int | None] = {}  # a size when left out
        self._pending: set[asyncio.Future[None]] = set()
        self._fetching = asyncio.Semaphore(_BODY_FETCHES)
        self.gave_up = False  # the page did not answer in time: ask it nothing more

    def fetch(self, entry: Entry) -> None:
        if self.max_body_size < 0 or entry.failed is not None or entry.redirected:
            return
        task = asyncio.ensure_future(self._fetch(entry))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _fetch(self, entry: Entry) -> None:
        async with self._fetching:
            got = await _quietly(response_body(self.page, entry)) if not self.page.closed else None
        if got is not None and len(got[0]) > self.max_body_size:
            self.found[entry.id] = len(got[0])
        else:
            self.found[entry.id] = got

    async def settle(self) -> None:
        """Wait for the bodies being fetched, at most ``_BODY_TIMEOUT`` seconds in all (a
        hung page must not hold the file back); those still missing are left out."""
        if self._pending:
            _, late = await asyncio.wait(set(self._pending), timeout=_BODY_TIMEOUT)
            for task in late:
                task.cancel()
            if late:
                self.gave_up = True
                await asyncio.gather(*late, return_exceptions=True)


@contextlib.asynccontextmanager
async def _titling(page: Page, log: NetworkLog) -> AsyncIterator[None]:
    """Name each page of the recording by its document's title, read when it has loaded."""

    async def name_loads() -> None:
        with contextlib.suppress(ConnectionClosedError):
            async for _ in loaded:
                if log.loads:
                    load = log.loads[-1]
                    load.title = await _title(page) or load.title

    async with page.listen(cdp.page.DomContentEventFired, cdp.page.LoadEventFired, raw=True) as loaded:
        task = asyncio.ensure_future(name_loads())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if log.loads and not page.closed:
                log.loads[-1].title = await _title(page) or log.loads[-1].title


async def _title(page: Page) -> str | None:
    got = await _quietly(
        page.send_json(cdp.runtime.evaluate("document.title", return_by_value=True), timeout=_BODY_TIMEOUT)
    )
    value = got["result"].get("value") if got is not None else None
    return value if isinstance(value, str) and value else None


def _write_whole(path: Path, har: dict[str, Any]) -> None:
    # Cookies and Set-Cookie values are in it: readable by its owner only.
    write_private(path, json.dumps(har, indent=1, ensure_ascii=False))


async def _build(page: Page, log: NetworkLog, bodies: _Bodies) -> dict[str, Any]:
    from .. import __version__

    entries = list(log.entries.values())
    fetches = asyncio.Semaphore(_BODY_FETCHES)

    async def entry_of(entry: Entry) -> dict[str, Any]:
        async with fetches:
            return await _entry(page, entry, log, bodies)

    built = await asyncio.gather(*(entry_of(entry) for entry in entries))
    har_log: dict[str, Any] = {
        "version": "1.2",
        "creator": {"name": "cdpkit", "version": __version__},
        "pages": [_page(load, index) for index, load in enumerate(log.loads)],
        "entries": sorted(built, key=lambda item: item["startedDateTime"]),
    }
    if log.dropped:
        har_log["comment"] = f"The first {log.dropped} requests were dropped: only the last {log.limit} are kept."
    return {"log": har_log}


def _iso(wall_time: float) -> str:
    moment = datetime.datetime.fromtimestamp(wall_time, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _since(start: float, stamp: float | None) -> float:
    return round((stamp - start) * 1000, 3) if stamp is not None else -1


def _page(load: PageLoad, index: int) -> dict[str, Any]:
    return {
        "startedDateTime": _iso(load.wall_time),
        "id": f"page_{index + 1}",
        "title": load.title or load.url,
        "pageTimings": {
            "onContentLoad": _since(load.started, load.content_loaded),
            "onLoad": _since(load.started, load.loaded),
        },
    }


def _pageref(entry: Entry, log: NetworkLog) -> str | None:
    """The page an entry belongs to: the last load started before it."""
    started = float(entry.sent["timestamp"])
    found = None
    for index, load in enumerate(log.loads):
        if load.started <= started or load.loader_id == entry.sent["loaderId"]:
            found = f"page_{index + 1}"
    return found


def _headers(headers: Any) -> list[dict[str, str]]:
    """HAR headers from Chrome's (one value per name, repeated ones joined by newlines)."""
    listed = []
    for name, value in dict(headers).items():
        for line in str(value).split("\n"):
            listed.append({"name": name, "value": line})
    return listed


def _header(headers: list[dict[str, str]], name: str) -> str | None:
    wanted = name.lower()
    return next((h["value"] for h in headers if h["name"].lower() == wanted), None)


def _http_version(protocol: str | None) -> str:
    if not protocol:
        return ""
    return protocol.upper() if protocol.lower().startswith("http/") else protocol


def _set_cookies(headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    cookies = []
    for header in headers:
        if header["name"].lower() != "set-cookie":
            continue
        name_value, *attributes = header["value"].split(";")
        name, _, value = name_value.partition("=")
        cookie: dict[str, Any] = {"name": name.strip(), "value": value.strip()}
        for attribute in attributes:
            key, _, setting = attribute.strip().partition("=")
            key = key.lower()
            if key in ("path", "domain", "expires"):
                cookie[key] = setting
            elif key == "httponly":
                cookie["httpOnly"] = True
            elif key == "secure":
                cookie["secure"] = True
            elif key == "samesite":
                cookie["sameSite"] = setting
        cookies.append(cookie)
    return cookies


def _sent_cookies(entry: Entry, headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    if entry.request_extra is not None:
        cookies = []
        for associated in entry.request_extra["associatedCookies"]:
            if associated["blockedReasons"]:
                continue
            cookie = associated["cookie"]
            cookies.append(
                {
                    "name": cookie["name"],
                    "value": cookie["value"],
                    "path": cookie["path"],
                    "domain": cookie["domain"],
                    "httpOnly": cookie["httpOnly"],
                    "secure": cookie["secure"],
                }
            )
        return cookies
    header = _header(headers, "cookie") or ""
    pairs = (part.strip().partition("=") for part in header.split(";") if part.strip())
    return [{"name": name, "value": value} for name, _, value in pairs]


async def _entry(page: Page, entry: Entry, log: NetworkLog, bodies: _Bodies) -> dict[str, Any]:
    record = summarize(entry)
    sent = entry.sent
    request = sent["request"]
    response = entry.response
    request_headers = _headers(
        entry.request_extra["headers"] if entry.request_extra is not None else request["headers"]
    )
    if response is not None and "requestHeaders" in response:
        request_headers = _headers(response["requestHeaders"])
    protocol = _http_version(response.get("protocol") if response is not None else None)
    har_request = await _request(page, entry, record, request_headers, protocol, bodies)
    response_headers = _headers(
        entry.response_extra["headers"]
        if entry.response_extra is not None
        else response["headers"] if response is not None else {}
    )
    headers_text = None
    if entry.response_extra is not None:
        headers_text = entry.response_extra.get("headersText")
    if headers_text is None and response is not None:
        headers_text = response.get("headersText")
    headers_size = len(headers_text) if headers_text else -1
    har_content, body_size = _content(entry, record, response_headers, headers_size, bodies)
    timings: dict[str, float] = (
        timing_phases(response["timing"], entry.end)
        if response is not None and "timing" in response
        else {"blocked": -1.0, "dns": -1.0, "connect": -1.0, "ssl": -1.0, "send": 0.0, "wait": 0.0, "receive": 0.0}
    )
    if response is not None and "timing" not in response and record.duration_ms is not None:
        timings["wait"] = record.duration_ms  # a response from cache or a service worker
    har_entry: dict[str, Any] = {
        "startedDateTime": _iso(record.started),
        "time": round(sum(value for name, value in timings.items() if name != "ssl" and value > 0), 3),
        "request": har_request,
        "response": {
            "status": record.status or 0,
            "statusText": record.status_text,
            "httpVersion": protocol,
            "cookies": _set_cookies(response_headers),
            "headers": response_headers,
            "content": har_content,
            "redirectURL": _header(response_headers, "location") or "",
            "headersSize": headers_size,
            "bodySize": body_size,
            "_transferSize": record.size if record.size is not None else -1,
        },
        "cache": {},
        "timings": timings,
        "_resourceType": record.resource_type.lower(),
        "_priority": request.get("initialPriority", ""),
    }
    pageref = _pageref(entry, log)
    if pageref is not None:
        har_entry["pageref"] = pageref
    if response is not None and "remoteIPAddress" in response:
        har_entry["serverIPAddress"] = response["remoteIPAddress"].strip("[]")
        har_entry["connection"] = str(int(response["connectionId"]))
    if entry.failed is not None:
        har_entry["_error"] = entry.failed
    return har_entry


async def _request(
    page: Page, entry: Entry, record: NetworkRequest, request_headers: list[dict[str, str]], protocol: str,
    bodies: _Bodies,
) -> dict[str, Any]:
    """The HAR ``request`` of ``entry``, its posted body read from the page if need be."""
    request = entry.sent["request"]
    response = entry.response
    query = urllib.parse.parse_qsl(urllib.parse.urlsplit(record.url).query, keep_blank_values=True)
    har_request: dict[str, Any] = {
        "method": record.method,
        "url": record.url,
        "httpVersion": protocol,
        "cookies": _sent_cookies(entry, request_headers),
        "headers": request_headers,
        "queryString": [{"name": name, "value": value} for name, value in query],
        "headersSize": len(response["requestHeadersText"]) if response and "requestHeadersText" in response else -1,
        "bodySize": 0,
    }
    post_data = request.get("postData")
    if post_data is None and request.get("hasPostData") and not page.closed and not bodies.gave_up:
        post_data = await _quietly(request_post_data(page, entry))
    if post_data is not None:
        har_request["bodySize"] = len(post_data.encode())
        har_request["postData"] = {
            "mimeType": _header(request_headers, "content-type") or "",
            "text": post_data,
        }
    return har_request


def _content(
    entry: Entry, record: NetworkRequest, response_headers: list[dict[str, str]], headers_size: int,
    bodies: _Bodies,
) -> tuple[dict[str, Any], int]:
    """The HAR ``response.content`` of ``entry`` and the response's body size (-1: unknown)."""
    har_content: dict[str, Any] = {
        "size": 0,
        "mimeType": _header(response_headers, "content-type") or record.mime_type or "x-unknown",
    }
    body_size = -1
    if entry.body_size is not None:
        body_size = int(entry.body_size)
    elif entry.encoded_size is not None and headers_size >= 0:
        body_size = max(0, int(entry.encoded_size) - headers_size)
    if record.status == 304 or entry.from_cache:
        body_size = 0
    if body_size >= 0:
        har_content["size"] = body_size
    if entry.id in bodies.found:
        _add_body(har_content, bodies.found[entry.id], bodies.max_body_size)
    return har_content, body_size


async def _quietly(work: Any) -> Any:
    """``work``'s result, or ``None`` if the page cannot answer (closed, slow, gone)."""
    try:
        async with asyncio.timeout(_BODY_TIMEOUT):
            return await work
    except (CDPError, TimeoutError):
        return None


def _add_body(content: dict[str, Any], body: tuple[bytes, bool] | int | None, limit: int) -> None:
    if body is None:
        content["comment"] = "body not available: Chrome no longer held it"
    elif isinstance(body, int):
        content["size"] = body
        content["comment"] = f"body of {body} bytes left out: larger than max_body_size={limit}"
    else:
        data, is_text = body
        content["size"] = len(data)
        if is_text:
            content["text"] = data.decode("utf-8", "replace")
        else:
            content["text"] = base64.b64encode(data).decode("ascii")
            content["encoding"] = "base64"
