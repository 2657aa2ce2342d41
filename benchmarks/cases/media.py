"""The media pipeline of ``browse(..., include_media=True)``: images made WebP within 640x480
(``media_images``, images/s) and videos made frames with ffmpeg (``media_video``,
frames/s), each against the same work done by hand in the same run.

The "raw" column is the work itself, with nothing around it: for images, each photo
downloaded with one httpx client and Pillow's ``thumbnail`` + WebP encode, one after the
other; for videos, each clip downloaded, then ``ffprobe`` for its duration and one
``ffmpeg -ss T -i clip -frames:v 1`` per frame, its PNG made WebP by Pillow. The "cdpkit"
column is one ``engine.browse(page, include_media=True)`` of the page showing them, on an
open engine (its HTTP client warm), with an empty media cache: the page fetched and
extracted, every item downloaded in the session, checked, encoded and written to the cache.
Both sides warm up once before timing (the cdpkit side into another cache folder).
"""

from __future__ import annotations

import io
import json
import subprocess
import tempfile
from pathlib import Path

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.common import now
from benchmarks.pages import MEDIA_IMAGES, MEDIA_VIDEOS

_FRAMES = 5  # [media] video_frames' default
_BOX = (640, 480)
# The server makes the photos and clips on the first request (a warm-up): slow on a busy machine.
_WARM_UP_TIMEOUT = 120.0


def _webp(image: object) -> bytes:
    from PIL import Image

    assert isinstance(image, Image.Image)
    copy = image.convert("RGB")
    copy.thumbnail(_BOX)
    out = io.BytesIO()
    copy.save(out, "WEBP", quality=80)
    return out.getvalue()


async def _raw_images(ctx: Ctx) -> dict[str, float]:
    import httpx
    from PIL import Image

    async with httpx.AsyncClient(timeout=_WARM_UP_TIMEOUT) as client:

        async def one(index: int) -> None:
            body = (await client.get(f"{ctx.base_url}/media/photo{index}.png")).content
            with Image.open(io.BytesIO(body)) as image:
                _webp(image)

        await one(0)  # warm-up: the connection, Pillow's codecs
        start = now()
        for index in range(MEDIA_IMAGES):
            await one(index)
        return {"images_s": MEDIA_IMAGES / (now() - start)}


async def _browse_media(ctx: Ctx, path: str, kind: str) -> tuple[float, int]:
    """Seconds of one cold-cache ``browse(include_media=True)`` of ``path``, and how many
    files it made of ``kind`` items (a warm-up browse first, into another cache)."""
    import cdpkit

    with tempfile.TemporaryDirectory(prefix="bench-media-") as folder:
        async with cdpkit.engine(media={"cache_dir": f"{folder}/warm"}) as engine:
            await engine.browse(f"{ctx.base_url}{path}", include_media=True, max_tier=1,
                                timeout=_WARM_UP_TIMEOUT)
        async with cdpkit.engine(media={"cache_dir": f"{folder}/cold"}) as engine:
            await engine.browse(f"{ctx.base_url}/article?warm", max_tier=1)  # the client warm
            start = now()
            result = await engine.browse(f"{ctx.base_url}{path}", include_media=True, max_tier=1)
            seconds = now() - start
    made = sum(len(item.files) for item in result.media if item.kind == kind)
    problems = [item.note for item in result.media if item.note]
    if problems:
        raise RuntimeError(f"media not made: {problems}")
    return seconds, made


async def _cdpkit_images(ctx: Ctx) -> dict[str, float]:
    seconds, made = await _browse_media(ctx, "/media-page", "image")
    if made != MEDIA_IMAGES:
        raise RuntimeError(f"{made} images made, expected {MEDIA_IMAGES}")
    return {"images_s": made / seconds}


def _raw_frames(path: Path) -> int:
    from PIL import Image

    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", str(path)],
        capture_output=True, check=True, timeout=60)
    duration = float(json.loads(probe.stdout)["format"]["duration"])
    made = 0
    for index in range(_FRAMES):
        frame = subprocess.run(
            ["ffmpeg", "-nostdin", "-v", "error", "-ss", f"{duration * (index + 0.5) / _FRAMES:.3f}",
             "-i", str(path), "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1"],
            capture_output=True, check=True, timeout=60)
        with Image.open(io.BytesIO(frame.stdout)) as image:
            _webp(image)
        made += 1
    return made


async def _raw_video(ctx: Ctx) -> dict[str, float]:
    import asyncio

    import httpx

    async with httpx.AsyncClient(timeout=_WARM_UP_TIMEOUT) as client:
        with tempfile.TemporaryDirectory(prefix="bench-video-") as folder:

            async def one(index: int) -> int:
                path = Path(folder) / f"clip{index}.mp4"
                path.write_bytes((await client.get(f"{ctx.base_url}/media/clip{index}.mp4")).content)
                return await asyncio.to_thread(_raw_frames, path)

            await one(0)  # warm-up
            start = now()
            made = 0
            for index in range(MEDIA_VIDEOS):
                made += await one(index)
            return {"frames_s": made / (now() - start)}


async def _cdpkit_video(ctx: Ctx) -> dict[str, float]:
    seconds, made = await _browse_media(ctx, "/media-videos", "video")
    if made != MEDIA_VIDEOS * _FRAMES:
        raise RuntimeError(f"{made} frames made, expected {MEDIA_VIDEOS * _FRAMES}")
    return {"frames_s": made / seconds}


MEDIA_IMAGES_CASE = Case(
    name="media_images",
    metrics=(Metric("images_s", "include_media: 1600x1200 PNGs to WebP within 640x480 (images/s)",
                    Target(ratio_min=0.8)),),
    sides={"raw": _raw_images, "cdpkit": _cdpkit_images},
    transports=("",),  # no browser: tier 1
    needs=("engine",),
    notes=(f"media_images: {MEDIA_IMAGES} distinct 1600x1200 PNGs; raw: httpx GET + Pillow "
           "thumbnail + WebP encode, one after the other; cdpkit: `engine.browse(page, "
           "include_media=True)` with an empty media cache (page fetch and extraction included, "
           "files written 0600). Target: at least 0.8x the raw rate.",),
)

MEDIA_VIDEO_CASE = Case(
    name="media_video",
    metrics=(Metric("frames_s", "include_media: video frames to WebP with ffmpeg (frames/s)",
                    Target(ratio_min=0.8)),),
    sides={"raw": _raw_video, "cdpkit": _cdpkit_video},
    transports=("",),
    needs=("engine",),
    notes=(f"media_video: {MEDIA_VIDEOS} distinct 4 s 640x360 H.264 clips, {_FRAMES} frames each; "
           "raw: download, ffprobe, one ffmpeg seek per frame, Pillow WebP; cdpkit: "
           "`engine.browse(page, include_media=True)` with an empty media cache. Target: at "
           "least 0.8x the raw rate.",),
)

CASES = (MEDIA_IMAGES_CASE, MEDIA_VIDEO_CASE)
