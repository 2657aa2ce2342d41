"""The media of a browsed page (``include_media``), made small and kept: each image as a
WebP within ``[media] max_width`` x ``max_height``, each video as ``video_frames`` WebP
frames evenly spaced over its duration (Debian's ``ffmpeg`` and ``ffprobe``).

Everything goes to the media cache (:class:`MediaCache`), under the user's cache
directory: content-addressed (the SHA-256 of the downloaded bytes and of the transform
settings names the files), reused by later calls (a URL seen within a day is not
downloaded again, the same bytes are not encoded again), and bounded in size (the least
recently used entries go first). The folders it makes are 0700 and its files 0600.

A cached item is served only where the same request would be allowed and would carry the
same credentials. A URL's note is keyed by the requesting session's credentials (its
cookie jar, headers and proxy: :meth:`BrowseSession.credentials_key
<cdpkit._browse._sessions.BrowseSession.credentials_key>`), so a session never gets what
another one's login got (a session with no cookies shares only with others with none); and
it is looked up only after the check every request cdpkit makes is put to (the MCP
server's ``--allowed-origins``, :mod:`cdpkit._browser.own_requests`) allows the URL and where its
download ended: otherwise it is a miss, and the request is made, and refused, as an
uncached one. Reusing an encoding by the bytes' hash needs no such key: the caller has
just downloaded those bytes itself.

``[media] cache_dir`` may name a folder of the user's: eviction removes only the records
of this cache (``<key>.json``, each listing its ``<key>-<n>.webp`` files before they are
written) and the files they list, never another file there, and a folder that exists is
never chmodded.

What a page gives is the attacker's: every download is bounded in size and in time and
must say it is an image (or a video); a picture is measured before it is decoded (no
decompression bombs); SVG is skipped (its scripts and external references are a browser's
business); ``data:`` URLs are decoded within a bound; ``ffmpeg`` reads local files only
(``-protocol_whitelist file``) and only container formats of real videos (no playlists
that would make it fetch or read anything else); every video stream is probed, the frames
come from the first one (``-map``), refused when over :data:`MAX_PIXELS`, and neither
``ffprobe`` nor ``ffmpeg`` decodes a frame over it (``-max_pixels``). The downloads themselves are the
engine's (the session's HTTP client: its cookies, identity and proxy, every hop checked by
:mod:`cdpkit._browser.own_requests`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._browser import own_requests
from .._browser.own_requests import Refusal
from .._core.files import write_private

__all__ = [
    "DATA_URL_MAX_BYTES",
    "IMAGE_MAX_BYTES",
    "MAX_PIXELS",
    "URL_FRESH_SECONDS",
    "VIDEO_MAX_BYTES",
    "CachedMedia",
    "MediaCache",
    "MediaRefused",
    "Transform",
    "data_url",
    "ffmpeg_missing",
    "image_webp",
    "video_frames",
]

IMAGE_MAX_BYTES = 32 * 1024 * 1024  # a bigger "image" is not one an agent needs to see
VIDEO_MAX_BYTES = 64 * 1024 * 1024  # as a page body (cdpkit._browse._http.MAX_BODY_BYTES)
DATA_URL_MAX_BYTES = 8 * 1024 * 1024
MAX_PIXELS = 64_000_000  # 8000x8000: beyond it, decoding alone could take gigabytes
URL_FRESH_SECONDS = 24 * 3600  # a URL's media is downloaded again after a day
_FFMPEG_TIMEOUT = 30.0
# ffprobe's names of the containers a <video> plays; anything else (HLS and DASH
# playlists, concat lists, image sequences...) could make ffmpeg read other files.
_VIDEO_FORMATS = frozenset(
    {"mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "mpeg", "mpegts", "ogg", "flv", "asf"}
)

Kind = Literal["image", "video"]


class MediaRefused(Exception):
    """A media item that is not turned into files, and why (in words for the result)."""


@dataclass(frozen=True, slots=True)
class Transform:
    """What an item is made into; part of every cache key, so other settings never reuse
    files made with these."""

    max_width: int = 640
    max_height: int = 480
    quality: int = 80
    video_frames: int = 5

    def tag(self, kind: Kind) -> str:
        """The settings that matter for ``kind``, as text hashed into its key."""
        box = f"webp:{self.max_width}x{self.max_height}:q{self.quality}"
        return f"video:{box}:frames{self.video_frames}" if kind == "video" else f"image:{box}"


@dataclass(frozen=True, slots=True)
class CachedMedia:
    """One item in the cache: its files (an image's WebP, a video's frames in order) and
    the size of the original picture or video."""

    files: tuple[Path, ...]
    width: int | None
    height: int | None


def content_key(body: bytes, transform: Transform, kind: Kind) -> str:
    """The cache key of ``body`` made into ``kind`` with ``transform``."""
    digest = hashlib.sha256(body)
    digest.update(b"\0" + transform.tag(kind).encode())
    return digest.hexdigest()


class MediaCache:
    """The media cache at ``root``, at most ``max_bytes`` (see the module docstring).

    Layout: ``<key>.json`` (the entry's record: its files; its modification time is when
    it was last used) beside ``<key>-<n>.webp``; ``urls/<hash>.json`` names the key a URL
    gave, when, and where it ended, for one set of credentials and settings. Safe across
    processes: every file is written whole and renamed into place, and a missing file is
    a miss. ``root`` may be a folder of the user's: eviction removes only records of this
    cache and the files they list, and only folders made here are set to 0700.
    """

    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes

    def _url_entry(self, url: str, transform: Transform, kind: Kind, credentials: str) -> Path:
        text = f"{kind}\0{transform.tag(kind)}\0{credentials}\0{url}"
        return self.root / "urls" / f"{hashlib.sha256(text.encode()).hexdigest()}.json"

    def by_url(
        self, url: str, transform: Transform, kind: Kind, credentials: str, refusal: Refusal | None
    ) -> CachedMedia | None:
        """What ``url`` gave within the last day to a request carrying ``credentials``
        (:meth:`BrowseSession.credentials_key <cdpkit._browse._sessions.BrowseSession.credentials_key>`),
        or ``None``. ``refusal`` is the check every request cdpkit makes is put to
        (:func:`cdpkit._browser.own_requests.current_refusal`): a URL it refuses, or one whose
        download ended (after redirects) where it refuses, is a miss, so the request is
        made and refused as an uncached one is."""
        try:
            own_requests.check(url, refusal)
            note = self._url_entry(url, transform, kind, credentials)
            record = json.loads(note.read_text(encoding="utf-8"))
            if time.time() - float(record["time"]) > URL_FRESH_SECONDS:
                return None
            own_requests.check(str(record["final"]), refusal)
            return self.by_key(str(record["key"]))
        except (OSError, ValueError, KeyError, TypeError):  # RequestRefused is a ValueError
            return None

    def by_key(self, key: str) -> CachedMedia | None:
        """The entry ``key``, marked as just used, or ``None``."""
        meta = self.root / f"{key}.json"
        try:
            record = json.loads(meta.read_text(encoding="utf-8"))
            files = tuple(self.root / name for name in _listed(key, record))
            if not files or not all(path.is_file() for path in files):
                return None
            os.utime(meta)  # least recently used is by this time
            return CachedMedia(files, record.get("width"), record.get("height"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def remember_url(
        self, url: str, transform: Transform, kind: Kind, key: str, credentials: str, final_url: str
    ) -> None:
        """Note that ``url``, requested with ``credentials``, gave the entry ``key`` now,
        having ended at ``final_url``."""
        _own_dir(self.root / "urls")
        record = {"key": key, "time": time.time(), "final": final_url}
        write_private(self._url_entry(url, transform, kind, credentials), json.dumps(record))

    def store(self, key: str, images: list[bytes], width: int | None, height: int | None) -> CachedMedia:
        """Keep ``images`` (WebP files) as the entry ``key``; then evict the least
        recently used entries beyond the bound (never this one)."""
        _own_dir(self.root)
        names = [f"{key}-{number}.webp" for number in range(1, len(images) + 1)]
        record = {"files": names, "width": width, "height": height}
        # The record first: every file this cache writes is listed before it exists, so
        # eviction (which deletes only what a record lists) can always find it again.
        # Until the last file is there, a reader finds one missing: a miss.
        write_private(self.root / f"{key}.json", json.dumps(record))
        for name, data in zip(names, images, strict=True):
            write_private(self.root / name, data)
        self.evict(keep=key)
        return CachedMedia(tuple(self.root / name for name in names), width, height)

    def _candidates(self) -> dict[str, list[Path]]:
        """The files named as this cache names them, by key (a user's file may be among
        them: only :meth:`_entries` decides what is an entry)."""
        groups: dict[str, list[Path]] = {}
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for path in self.root.iterdir():
                if _FILE_NAME.fullmatch(path.name) and path.is_file():
                    groups.setdefault(path.name[:64], []).append(path)
        return groups

    def _entries(self) -> Iterator[tuple[str, float, int, list[Path]]]:
        """(key, last used, bytes, its files) of every entry: a record of this cache and
        the files it lists (the record last)."""
        for key in self._candidates():
            meta = self.root / f"{key}.json"
            try:
                used = meta.stat().st_mtime
                record = json.loads(meta.read_text(encoding="utf-8"))
                paths = [self.root / name for name in _listed(key, record)]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # no record, or not one of this cache's: nothing of it is touched
            size = 0
            for path in (*paths, meta):
                with contextlib.suppress(OSError):
                    size += path.stat().st_size
            yield key, used, size, [*paths, meta]

    def size(self) -> int:
        """Bytes the entries take."""
        return sum(size for _, _, size, _ in self._entries())

    def evict(self, keep: str | None = None) -> list[str]:
        """Remove the least recently used entries until the cache is within its bound;
        the keys removed. Only a record of this cache and the files it lists are ever
        removed; URL notes older than a day go too."""
        self._drop_stale_url_notes()
        named = sum(_size(path) for paths in self._candidates().values() for path in paths)
        if named <= self.max_bytes:
            return []  # without reading a record: what is named so is within the bound
        entries = sorted(self._entries(), key=lambda entry: entry[1])
        total = sum(size for _, _, size, _ in entries)
        removed: list[str] = []
        for key, _, size, paths in entries:
            if total <= self.max_bytes:
                break
            if key == keep:
                continue
            # The record last: a file is never left that no record lists.
            for path in paths:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            total -= size
            removed.append(key)
        return removed

    def _drop_stale_url_notes(self) -> None:
        folder = self.root / "urls"
        now = time.time()
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for path in folder.iterdir():
                if _URL_NOTE.fullmatch(path.name) and path.is_file():
                    with contextlib.suppress(OSError):
                        if now - path.stat().st_mtime > URL_FRESH_SECONDS:
                            path.unlink()


_FILE_NAME = re.compile(r"[0-9a-f]{64}(\.json|-[1-9][0-9]{0,3}\.webp)")
_URL_NOTE = re.compile(r"[0-9a-f]{64}\.json")


def _listed(key: str, record: object) -> list[str]:
    """The file names a record of the entry ``key`` lists (each ``<key>-<n>.webp``).

    Raises:
        ValueError: ``record`` is not a record of this cache.
    """
    if not isinstance(record, dict) or not isinstance(record.get("files"), list):
        raise ValueError("not a record of the media cache")
    names = [str(name) for name in record["files"]]
    ours = (name.startswith(f"{key}-") and _FILE_NAME.fullmatch(name) for name in names)
    if not names or not all(ours):
        raise ValueError("not a record of the media cache")
    return names


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _own_dir(path: Path) -> None:
    """``path`` as a directory, its missing parents made too; those made now are 0700.
    One that exists is left as it is: it may be the user's own folder (``[media]
    cache_dir``), whose mode is theirs."""
    missing: list[Path] = []
    for parent in (path, *path.parents):
        if parent.is_dir():
            break
        missing.append(parent)
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by another process: not ours to change
        os.chmod(directory, 0o700)  # whatever the umask
    if not path.is_dir():
        raise NotADirectoryError(f"{path} is not a directory")


# -- the transforms (run in a worker thread) ----------------------------------------------------


def data_url(url: str) -> tuple[str, bytes]:
    """The MIME type and bytes of a ``data:`` URL.

    Raises:
        MediaRefused: It is malformed, or over :data:`DATA_URL_MAX_BYTES`.
    """
    header, comma, payload = url[5:].partition(",")
    if not comma:
        raise MediaRefused("a data: URL without a comma")
    if len(payload) > DATA_URL_MAX_BYTES * 4 // 3 + 4:
        raise MediaRefused(f"a data: URL over {DATA_URL_MAX_BYTES // (1024 * 1024)} MiB")
    parts = [part.strip() for part in header.split(";")]
    mime = parts[0].lower() or "text/plain"
    try:
        body = (
            base64.b64decode(urllib.parse.unquote_to_bytes(payload), validate=False)
            if "base64" in (part.lower() for part in parts[1:])
            else urllib.parse.unquote_to_bytes(payload)
        )
    except (binascii.Error, ValueError):
        raise MediaRefused("a data: URL whose base64 does not decode") from None
    if len(body) > DATA_URL_MAX_BYTES:
        raise MediaRefused(f"a data: URL over {DATA_URL_MAX_BYTES // (1024 * 1024)} MiB")
    return mime, body


def _webp(image: object, transform: Transform) -> bytes:
    """``image`` (a Pillow image) within the box, as WebP."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    copy = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P", "PA") else "RGB")
    copy.thumbnail((transform.max_width, transform.max_height))
    out = io.BytesIO()
    copy.save(out, "WEBP", quality=transform.quality)
    return out.getvalue()


def image_webp(body: bytes, transform: Transform) -> tuple[int, int, bytes]:
    """The image's width and height and its WebP within the box (an animation's first
    frame).

    Raises:
        MediaRefused: Not an image Pillow decodes, SVG, or over :data:`MAX_PIXELS`.
    """
    from PIL import Image, UnidentifiedImageError

    head = body[:512].lstrip().lower()
    if head.startswith((b"<svg", b"<?xml")) or b"<svg" in head:
        raise MediaRefused("SVG is not rasterized (its scripts and references are a browser's)")
    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 megapixels; the bound below is this module's own.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(body))
        with image:
            width, height = image.size  # read from the header: nothing decoded yet
            if width * height > MAX_PIXELS:
                raise MediaRefused(f"{width}x{height} pixels is over the {MAX_PIXELS:,} pixels decoded")
            if image.format == "JPEG":
                image.draft("RGB", (transform.max_width, transform.max_height))  # decode it smaller
            image.load()
            return width, height, _webp(image, transform)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError, SyntaxError):
        raise MediaRefused("not an image it could decode") from None


def ffmpeg_missing() -> str | None:
    """Why video frames cannot be made here (``ffmpeg`` or ``ffprobe`` not on the PATH),
    or ``None``."""
    missing = [name for name in ("ffmpeg", "ffprobe") if shutil.which(name) is None]
    if not missing:
        return None
    return (
        f"video frames need {' and '.join(missing)}, not found on the PATH "
        "(Debian/Ubuntu: sudo apt install ffmpeg; bash scripts/setup.sh installs it)"
    )


def _probe(path: Path, timeout: float) -> tuple[float | None, int, int, int]:
    """The video's duration in seconds (``None``: unknown), the index of the stream its
    frames are taken from (its first video stream that is not a cover picture) and that
    stream's frame size.

    Every video stream is listed, and ffprobe itself decodes within :data:`MAX_PIXELS`
    (``-max_pixels``: a stream it would have to decode bigger to measure is reported
    0x0, and refused here).
    """
    completed = subprocess.run(
        [
            "ffprobe", "-v", "error", "-protocol_whitelist", "file", "-max_pixels", str(MAX_PIXELS),
            "-select_streams", "v",
            "-show_entries", "format=format_name,duration:stream=index,width,height:stream_disposition=attached_pic",
            "-of", "json", str(path),
        ],
        capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    if completed.returncode != 0:
        raise MediaRefused("not a video ffprobe reads")
    try:
        info = json.loads(completed.stdout)
    except ValueError:
        raise MediaRefused("not a video ffprobe reads") from None
    container = info.get("format", {})
    names = set(str(container.get("format_name", "")).split(","))
    if not names & _VIDEO_FORMATS:
        raise MediaRefused(f"a {container.get('format_name') or 'unknown'} file is not read as a video")
    streams = [
        stream
        for stream in info.get("streams") or []
        if isinstance(stream, dict) and not (stream.get("disposition") or {}).get("attached_pic")
    ]
    if not streams or not isinstance(streams[0].get("index"), int):
        raise MediaRefused("a file with no video in it")
    stream = streams[0]  # the one a browser plays; no other stream is ever decoded
    width, height = stream.get("width"), stream.get("height")
    if not (isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0):
        raise MediaRefused(
            f"a video whose frame size is unknown, or over the {MAX_PIXELS:,} pixels decoded"
        )
    if width * height > MAX_PIXELS:
        raise MediaRefused(
            f"{width}x{height} pixels a frame is over the {MAX_PIXELS:,} pixels decoded"
        )
    try:
        duration: float | None = float(container["duration"])
    except (KeyError, TypeError, ValueError):
        duration = None
    return duration, int(stream["index"]), width, height


def video_frames(body: bytes, transform: Transform, deadline: float) -> tuple[int | None, int | None, list[bytes]]:
    """The video's frame size and ``transform.video_frames`` WebP frames, evenly spaced
    over its duration (the middle of each of that many equal parts); one frame, the
    first, when the duration is unknown. ``deadline`` is :func:`time.monotonic`'s.

    The frames are those of the stream :func:`_probe` chose, within the pixel limit:
    ffmpeg is told to read that stream alone (``-map``, not its own pick, which is the
    biggest) and to decode no frame over :data:`MAX_PIXELS` (``-max_pixels``: a stream
    that grows mid-way is cut there).

    Raises:
        MediaRefused: ffmpeg is missing, the file is not a video it may read, its
            stream is over the pixel limit, or no frame could be taken.
    """
    missing = ffmpeg_missing()
    if missing is not None:
        raise MediaRefused(missing)
    with tempfile.TemporaryDirectory(prefix="cdpkit-video-") as folder:  # 0700
        source = Path(folder) / "video"
        write_private(source, body)
        try:
            duration, stream, width, height = _probe(source, min(_FFMPEG_TIMEOUT, _left(deadline)))
            times = (
                [duration * (index + 0.5) / transform.video_frames for index in range(transform.video_frames)]
                if duration and duration > 0
                else [0.0]
            )
            frames = [
                frame for at in times if (frame := _frame(source, stream, at, transform, deadline))
            ]
        except subprocess.TimeoutExpired:
            raise MediaRefused("ffmpeg did not finish in time") from None
    if not frames:
        raise MediaRefused("ffmpeg could not take a frame of it")
    return width, height, frames


def _frame(
    source: Path, stream: int, at: float, transform: Transform, deadline: float
) -> bytes | None:
    """The WebP of stream ``stream``'s frame at ``at`` seconds, or ``None``."""
    from PIL import Image

    box = f"scale='min(iw,{transform.max_width})':'min(ih,{transform.max_height})'" \
          ":force_original_aspect_ratio=decrease"  # fmt: skip
    completed = subprocess.run(
        [
            "ffmpeg", "-nostdin", "-v", "error", "-protocol_whitelist", "file",
            "-max_pixels", str(MAX_PIXELS), "-ss", f"{at:.3f}", "-i", str(source),
            "-map", f"0:{stream}", "-frames:v", "1", "-vf", box,
            "-f", "image2pipe", "-c:v", "png", "pipe:1",
        ],
        capture_output=True, timeout=min(_FFMPEG_TIMEOUT, _left(deadline)), check=False,
    )  # fmt: skip
    if completed.returncode != 0 or not completed.stdout:
        return None
    try:
        with Image.open(io.BytesIO(completed.stdout)) as frame:
            frame.load()
            return _webp(frame, transform)
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise MediaRefused("the time ran out")
    return left
