"""``browse(..., include_media=True)`` against real pages on 127.0.0.1: a large PNG made
with Pillow and a short video made with ffmpeg, both here; WebP files within the box, a
video's frames, the media cache (reused, bounded, private), the guards against what a page
may serve, the browser's session at tier 3, and ``cdpkit browse --download-media``."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import cdpkit
from tests.media_pages import add_media_routes, require_ffmpeg
from tests.server import FixtureServer

FFMPEG = shutil.which("ffmpeg")


@pytest.fixture(autouse=True, scope="module")
def _ffmpeg() -> None:
    require_ffmpeg()


@pytest.fixture(scope="module")
def media_server(server: FixtureServer, tmp_path_factory: pytest.TempPathFactory) -> FixtureServer:
    return add_media_routes(server, tmp_path_factory.mktemp("video"))


def _hits(server: FixtureServer, path: str) -> int:
    return sum(1 for request in server.requests if request.split("?")[0] == path)


def _cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "cdpkit" / "media"  # XDG_CACHE_HOME is tmp_path/cache (conftest)


def _webp_size(path: str) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "WEBP"
        return image.size


async def test_images_and_video_frames_land_in_the_cache_as_webp(
    media_server: FixtureServer, tmp_path: Path
) -> None:
    from PIL import Image

    result = await cdpkit.browse(media_server.url("/media/page.html"), include_media=True, max_tier=1)
    picture, clip = result.media
    assert (picture.kind, picture.alt, picture.width, picture.height) == ("image", "noise picture", 1600, 1200)
    [webp] = picture.files
    assert _webp_size(webp) == (640, 480)  # 4:3 fitted into 640x480
    assert picture.data == Path(webp).read_bytes() and picture.mime_type == "image/webp"
    assert (clip.kind, clip.alt, clip.width, clip.height) == ("video", "test clip", 320, 240)
    assert len(clip.files) == 5 and clip.note == ""
    frames = []
    for path in clip.files:
        assert _webp_size(path) == (320, 240)  # within the box: not scaled up
        with Image.open(path) as frame:
            frames.append(frame.convert("RGB").tobytes())
    assert len(set(frames)) == 5  # five different moments of the clip, not one frame five times
    cache = _cache_dir(tmp_path)
    assert all(Path(path).parent == cache for path in (webp, *clip.files))
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.parent.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in cache.rglob("*") if path.is_file())
    assert stat.S_IMODE((cache / "urls").stat().st_mode) == 0o700


async def test_video_frames_follow_the_config(media_server: FixtureServer, tmp_path: Path) -> None:
    async with cdpkit.engine(media={"video_frames": 3, "max_width": 160, "max_height": 160}) as engine:
        result = await engine.browse(media_server.url("/media/page.html"), include_media=True, max_tier=1)
    picture, clip = result.media
    assert _webp_size(picture.files[0]) == (160, 120)
    assert len(clip.files) == 3 and all(_webp_size(path) == (160, 120) for path in clip.files)


async def test_a_later_call_takes_the_media_from_the_cache(media_server: FixtureServer) -> None:
    url = media_server.url("/media/page.html")
    media_server.requests.clear()
    first = await cdpkit.browse(url, include_media=True, max_tier=1)
    assert (_hits(media_server, "/media/big.png"), _hits(media_server, "/media/clip.mp4")) == (1, 1)
    second = await cdpkit.browse(url, include_media=True, max_tier=1)  # another engine: the disk cache
    assert _hits(media_server, "/media/page.html") == 2
    assert (_hits(media_server, "/media/big.png"), _hits(media_server, "/media/clip.mp4")) == (1, 1)
    assert [item.files for item in second.media] == [item.files for item in first.media]
    assert second.media[0].data == first.media[0].data
    # Other settings are other files: made anew, not taken for these.
    async with cdpkit.engine(media={"max_width": 100}) as engine:
        smaller = await engine.browse(url, include_media=True, max_tier=1)
    assert _hits(media_server, "/media/big.png") == 2
    assert smaller.media[0].files != first.media[0].files


async def test_the_cache_keeps_within_its_bound_dropping_the_least_recently_used(
    media_server: FixtureServer, tmp_path: Path
) -> None:
    cache = _cache_dir(tmp_path)

    async def browse(index: int, bound_mb: float) -> list[str]:
        async with cdpkit.engine(media={"cache_size_mb": bound_mb}) as engine:
            result = await engine.browse(media_server.url(f"/media/noise{index}.html"), include_media=True)
        return list(result.media[0].files)

    [first] = await browse(0, 100)
    entry = Path(first).stat().st_size + (cache / (Path(first).name[:64] + ".json")).stat().st_size
    bound = entry * 2.5 / (1024 * 1024)  # room for two entries, not three
    [second] = await browse(1, bound)
    assert Path(first).exists() and Path(second).exists()
    await browse(0, bound)  # the first is used again: now the second is the least recently used
    [third] = await browse(2, bound)
    assert Path(first).exists() and Path(third).exists()
    assert not Path(second).exists()
    total = sum(path.stat().st_size for path in cache.iterdir() if path.is_file())
    assert total <= bound * 1024 * 1024


async def test_without_ffmpeg_a_video_says_so_and_images_still_work(
    media_server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    media_server.requests.clear()
    result = await cdpkit.browse(media_server.url("/media/page.html"), include_media=True, max_tier=1)
    picture, clip = result.media
    assert len(picture.files) == 1 and _webp_size(picture.files[0]) == (640, 480)
    assert clip.files == () and "ffmpeg" in clip.note and "apt install ffmpeg" in clip.note
    [note] = result.truncation
    assert "clip.mp4" in note and "'test clip'" in note and "video frames need ffmpeg" in note
    assert _hits(media_server, "/media/clip.mp4") == 0  # not downloaded for nothing


async def test_what_is_not_a_safe_image_is_skipped_with_a_note(media_server: FixtureServer) -> None:
    media_server.requests.clear()
    result = await cdpkit.browse(media_server.url("/media/guards.html"), include_media=True, max_tier=1)
    notes = {item.alt: item.note for item in result.media}
    assert "SVG is not rasterized" in notes["a drawing"]
    assert "text/html, not an image" in notes["a page"]
    assert "10000x10000 pixels" in notes["a bomb"]
    assert "over 32 MiB" in notes["huge"]
    assert [item.alt for item in result.media if item.files] == ["a real one"]
    assert len(result.truncation) == 4


async def test_a_video_in_a_data_url_is_decoded_and_made_frames(media_server: FixtureServer) -> None:
    media_server.requests.clear()
    result = await cdpkit.browse(media_server.url("/media/data-video.html"), include_media=True, max_tier=1)
    [clip] = result.media
    assert clip.url.startswith("data:video/mp4;base64,") and clip.alt == "inline clip"
    assert len(clip.files) == 5 and all(_webp_size(path) == (320, 240) for path in clip.files)
    assert media_server.requests == ["/media/data-video.html"]


def test_data_urls_are_decoded_within_a_bound() -> None:
    from cdpkit._browse._media import DATA_URL_MAX_BYTES, MediaRefused, data_url

    assert data_url("data:image/png;base64,aGVsbG8=") == ("image/png", b"hello")
    assert data_url("data:,a%20b") == ("text/plain", b"a b")
    with pytest.raises(MediaRefused, match="over 8 MiB"):
        data_url("data:image/png;base64," + "A" * (DATA_URL_MAX_BYTES * 2))


async def test_at_tier_3_the_media_come_with_the_browsers_cookies(
    browser: cdpkit.Browser, media_server: FixtureServer
) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(media_server.url("/media/cookie-page.html"), include_media=True, tier=3)
    [picture] = result.media
    assert picture.alt == "members only"
    assert picture.note == "" and len(picture.files) == 1  # the script's cookie went with the download


def test_cli_download_media_lists_the_files(media_server: FixtureServer, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cli-cache"),
        "CDPKIT_CONFIG": str(tmp_path / "none.toml"),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", "--download-media", "--video-frames", "2", "--max-tier", "1",
         media_server.url("/media/page.html")],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "A large noisy picture" in out
    files = out.split("## Media files", 1)[1]
    image_line, video_line = files.strip().splitlines()
    assert image_line.startswith("- image 1600x1200 ") and image_line.endswith(".webp")
    frames = video_line.split(" -> ", 1)[1].split()
    assert len(frames) == 2
    assert all(Path(frame).is_file() and str(tmp_path / "cli-cache") in frame for frame in frames)
    # Without ffmpeg on the PATH: the video says why, the image is still there.
    env["PATH"] = str(Path(sys.executable).parent)
    completed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", "--download-media", "--max-tier", "1",
         media_server.url("/media/page.html")],
        capture_output=True, text=True, env={**env, "XDG_CACHE_HOME": str(tmp_path / "other")}, timeout=120,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.split("## Media files", 1)[1].strip().splitlines()
    assert lines[0].startswith("- image 1600x1200 ") and lines[0].endswith(".webp")
    assert lines[1].startswith("- video ") and "none (video frames need ffmpeg" in lines[1]


async def test_an_image_url_itself_is_kept_in_the_cache_too(media_server: FixtureServer, tmp_path: Path) -> None:
    result = await cdpkit.browse(media_server.url("/media/big.png"), include_media=True)
    [item] = result.media
    [webp] = item.files
    assert Path(webp).parent == _cache_dir(tmp_path)
    assert _webp_size(webp) == (640, 480) and Path(webp).read_bytes() == item.data
