"""A page's media for a browse call with ``include_media``: its first images and videos
downloaded in the call's session (its cookies, identity and proxy, each hop checked, the
``Referer`` Chrome would send) or read from ``data:`` URLs, made small (an image a WebP, a
video its frames) into the media cache (:mod:`._media`); an image resource's own WebP kept
there too."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import urllib.parse
from typing import TYPE_CHECKING, Literal

import anyio

from .._browser import own_requests
from ._http import fetch, http_error
from ._result import BrowseError, BrowseResult, MediaItem

if TYPE_CHECKING:
    from ._call import Call
    from ._media import CachedMedia, MediaCache, Transform

_MAX_MEDIA_FETCHES = 8  # images and videos of a page fetched for include_media (the first ones)
_MEDIA_FETCH_TIMEOUT = 10.0
_VIDEO_FETCH_TIMEOUT = 30.0


def _refused_type(kind: str, mime: str) -> str | None:
    """Why a response of type ``mime`` is not the ``kind`` a page named (``None``: it
    may be; a server that does not say is given the benefit of the doubt, the decoder
    judges)."""
    if mime in ("", "application/octet-stream", "binary/octet-stream"):
        return None
    if mime == "image/svg+xml":
        return "SVG is not rasterized (its scripts and references are a browser's)"
    if kind == "image" and mime.startswith("image/"):
        return None
    if kind == "video" and mime.startswith(("video/", "application/ogg", "audio/ogg")):
        return None
    return f"the server sent {mime}, not an {kind}" if kind == "image" else f"the server sent {mime}, not a video"


def _referer(page_url: str, url: str) -> dict[str, str]:
    """The ``Referer`` Chrome sends for a subresource (its default policy,
    strict-origin-when-cross-origin): the page's URL to its own origin, its origin
    elsewhere, nothing from https to http."""
    page, target = urllib.parse.urlsplit(page_url), urllib.parse.urlsplit(url)
    if page.scheme not in ("http", "https") or (page.scheme == "https" and target.scheme == "http"):
        return {}
    if (page.scheme, page.netloc) == (target.scheme, target.netloc):
        return {"Referer": urllib.parse.urlunsplit((page.scheme, page.netloc, page.path, page.query, ""))}
    return {"Referer": f"{page.scheme}://{page.netloc}/"}


async def with_media(call: Call, result: BrowseResult) -> BrowseResult:
    """With ``include_media``, the page's first images and videos downloaded (in the
    session: its cookies, identity and proxy, each hop checked) and made small into
    the media cache (:mod:`._media`): an image a WebP, a video its frames. An item that
    fails keeps its URL and alt text, its ``note`` and ``truncation`` say why. Done
    once, on the result returned (not for tiers escalated past)."""
    if not call.options.include_media or result.mime_type != "text/html":
        return result
    wanted = [
        index
        for index, item in enumerate(result.media)
        if item.kind in ("image", "video")
        and item.data is None
        and item.url.startswith(("http://", "https://", "data:"))
    ][:_MAX_MEDIA_FETCHES]
    if not wanted:
        return result
    from ._media import MediaCache, MediaRefused, Transform

    settings = call.config.media
    transform = Transform(settings.max_width, settings.max_height, settings.quality, settings.video_frames)
    cache = MediaCache(call.config.media_dir, int(settings.cache_size_mb * 1024 * 1024))

    async def one(index: int) -> MediaItem:
        item = result.media[index]
        try:
            return await _media_item(call, item, result.final_url, cache, transform)
        except MediaRefused as exc:
            raise BrowseError(item.url, "processing.media", str(exc), recoverable=False) from None

    outcomes = await asyncio.gather(*(one(index) for index in wanted), return_exceptions=True)
    items = list(result.media)
    notes: list[str] = []
    for index, outcome in zip(wanted, outcomes, strict=True):
        if isinstance(outcome, MediaItem):
            items[index] = outcome
        elif isinstance(outcome, Exception):
            item = items[index]
            # A BrowseError reads "<url>: <what> [<code>] (<advice>)": the URL is said below.
            said = (
                str(outcome).removeprefix(f"{outcome.url}: ")
                if isinstance(outcome, BrowseError)
                else f"{type(outcome).__name__}: {outcome}"
            )
            items[index] = dataclasses.replace(item, note=said)
            shown = f" ({item.alt!r})" if item.alt else ""
            where = item.url if not item.url.startswith("data:") else "data: URL"
            notes.append(f"{item.kind} {where}{shown}: its URL and alt text only, {said}")
        else:  # cancellation and the like: not the item's fault
            raise outcome
    return dataclasses.replace(
        result, media=items, truncation=[*result.truncation, *notes], timing=call.timing()
    )

async def cached_resource(call: Call, result: BrowseResult, body: bytes) -> BrowseResult:
    """With ``include_media``, an image resource's WebP (made by the document reader)
    kept in the media cache as a page's images are, its item naming the file."""
    if not (call.options.include_media and result.mime_type.startswith("image/") and result.media):
        return result
    item = result.media[0]
    if item.data is None or item.files:
        return result
    from ._media import MediaCache, Transform, content_key

    settings = call.config.media
    transform = Transform(settings.max_width, settings.max_height, settings.quality, settings.video_frames)
    cache = MediaCache(call.config.media_dir, int(settings.cache_size_mb * 1024 * 1024))
    key = content_key(body, transform, "image")
    credentials = call.session.credentials_key()  # noted for this session's credentials only
    cached = await anyio.to_thread.run_sync(cache.by_key, key)
    if cached is None:
        cached = await anyio.to_thread.run_sync(cache.store, key, [item.data], item.width, item.height)
    await anyio.to_thread.run_sync(
        cache.remember_url, item.url, transform, "image", key, credentials, result.final_url
    )
    files = tuple(str(path) for path in cached.files)
    return dataclasses.replace(result, media=[dataclasses.replace(item, files=files), *result.media[1:]])

async def _media_item(
    call: Call, item: MediaItem, page_url: str, cache: MediaCache, transform: Transform
) -> MediaItem:
    """``item`` with its files from the cache, downloaded and made first when the
    cache has none for its URL (or its bytes)."""
    from ._media import MediaRefused, content_key, ffmpeg_missing, image_webp, video_frames

    kind: Literal["image", "video"] = "video" if item.kind == "video" else "image"
    if kind == "video" and (missing := ffmpeg_missing()) is not None:
        raise MediaRefused(missing)  # before anything is downloaded
    is_data = item.url.startswith("data:")
    # What this session's request would carry (before it is sent: a Set-Cookie of its
    # answer is another set of credentials), and the URL check in force: a cached URL
    # is served only as the request would be (see cdpkit._browse._media).
    credentials = call.session.credentials_key()
    refusal = own_requests.current_refusal()
    cached: CachedMedia | None = None
    if not is_data:
        cached = await anyio.to_thread.run_sync(
            cache.by_url, item.url, transform, kind, credentials, refusal
        )
    if cached is None:
        body, final_url = await _media_body(call, item.url, kind, page_url)
        key = content_key(body, transform, kind)
        cached = await anyio.to_thread.run_sync(cache.by_key, key)
        if cached is None:
            width: int | None
            height: int | None
            if kind == "image":
                width, height, webp = await anyio.to_thread.run_sync(
                    image_webp, body, transform, abandon_on_cancel=True
                )
                images = [webp]
            else:
                deadline = time.monotonic() + call.left()
                width, height, images = await anyio.to_thread.run_sync(
                    video_frames, body, transform, deadline, abandon_on_cancel=True
                )
            cached = await anyio.to_thread.run_sync(cache.store, key, images, width, height)
        if not is_data:
            await anyio.to_thread.run_sync(
                cache.remember_url, item.url, transform, kind, key, credentials, final_url
            )
    files = tuple(str(path) for path in cached.files)
    data = None
    if kind == "image":
        data = await anyio.to_thread.run_sync(cached.files[0].read_bytes)
    return dataclasses.replace(
        item,
        width=cached.width or item.width,
        height=cached.height or item.height,
        data=data,
        mime_type="image/webp",
        files=files,
    )

async def _media_body(
    call: Call, url: str, kind: Literal["image", "video"], page_url: str
) -> tuple[bytes, str]:
    """The bytes of a media item's ``url`` (a ``data:`` URL decoded, else downloaded in
    the session) and where its download ended."""
    from ._media import (
        DATA_URL_MAX_BYTES,
        IMAGE_MAX_BYTES,
        VIDEO_MAX_BYTES,
        MediaRefused,
        data_url,
    )

    if url.startswith("data:"):
        if len(url) > DATA_URL_MAX_BYTES * 2:
            raise MediaRefused(f"a data: URL over {DATA_URL_MAX_BYTES // (1024 * 1024)} MiB")
        mime, body = data_url(url)
        refused = _refused_type(kind, mime)
        if refused is not None:
            raise MediaRefused(refused)
        return body, url
    fetched = await fetch(
        call.session.client, url, min(_MEDIA_FETCH_TIMEOUT if kind == "image" else
                                      _VIDEO_FETCH_TIMEOUT, call.left()),
        max_bytes=IMAGE_MAX_BYTES if kind == "image" else VIDEO_MAX_BYTES,
        headers=_referer(page_url, url),
        accept=lambda mime: _refused_type(kind, mime),
    )  # fmt: skip
    if fetched.status >= 400:
        raise http_error(url, fetched.status)
    return fetched.body, fetched.final_url
