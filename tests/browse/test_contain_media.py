"""The media cache keeps to the boundaries of an uncached download (issue 41): a cached
image is served only where the same request would be allowed (the MCP server's
``--allowed-origins``) and would carry the same credentials (a session's cookies); its
eviction in a folder the user named deletes only what cdpkit made there; and a video is
read from a stream within the pixel limit, never from a bigger one beside it.

Against real pages on 127.0.0.1: a picture answered 200 only with alice's cookie (403
otherwise), pictures on a second origin, and a video made here with ffmpeg whose first
stream is 32x32 and second 12000x10000."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import cdpkit
from tests.media_pages import noise_png, require_ffmpeg
from tests.server import FixtureServer, Handler

BIG_STREAM = (12000, 10000)  # 120 million pixels: over the documented MAX_PIXELS (64 million)


@pytest.fixture(autouse=True, scope="module")
def _ffmpeg() -> None:
    require_ffmpeg()


def _png(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


ALICE_PNG = _png(400, 300, (200, 30, 30))  # what only alice may see
ELSEWHERE_PNG = _png(300, 200, (30, 200, 30))  # a picture of the origin the MCP server refuses


def _two_stream_video(folder: Path) -> bytes:
    """A Matroska video: stream 0 red 32x32 (1 s), stream 1 blue 12000x10000 (1 s, 5 frames)."""
    path = folder / "two-streams.mkv"
    width, height = BIG_STREAM
    subprocess.run(
        [
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=32x32:d=1",
            "-f", "lavfi", "-i", f"color=c=blue:s={width}x{height}:d=1:r=5", "-map", "0", "-map", "1",
            "-c:v", "mjpeg", "-q:v", "31", "-pix_fmt", "yuvj420p", str(path),
        ],
        check=True, timeout=120,
    )  # fmt: skip
    return path.read_bytes()


def _reply(body: bytes, content_type: str) -> object:
    def route(handler: Handler) -> None:
        handler.reply(200, body, content_type)

    return route


def _login(handler: Handler) -> None:
    who = handler.path.partition("user=")[2] or "nobody"
    handler.reply(200, f"<title>Logged in</title><p>Welcome, {who}.</p>",
                  headers={"Set-Cookie": f"who={who}; Path=/; Max-Age=3600"})  # fmt: skip


def _alice_only(handler: Handler) -> None:
    if "who=alice" not in handler.headers.get("Cookie", ""):
        handler.reply(403, b"forbidden", "text/plain")
        return
    handler.reply(200, ALICE_PNG, "image/png")


@pytest.fixture(scope="module")
def pages(
    server: FixtureServer, other_server: FixtureServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[FixtureServer, FixtureServer]:
    """The routes on ``server`` (the allowed origin) and ``other_server`` (another one)."""
    elsewhere = other_server.url("/contain/elsewhere.png")

    def away(handler: Handler) -> None:
        handler.send_response(302)
        handler.send_header("Location", elsewhere)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    video = _two_stream_video(tmp_path_factory.mktemp("contain-video"))
    routes = {
        "/contain/login": _login,
        "/contain/alice.png": _alice_only,
        "/contain/account.html": _reply(
            b"<title>Account</title><h1>Your account</h1><p>The picture below is shown to alice only.</p>"
            b"<img src='/contain/alice.png' alt='private picture'>",
            "text/html",
        ),
        "/contain/cross.html": _reply(
            f"<title>Cross</title><h1>Two pictures</h1><p>One from another origin, one redirected there.</p>"
            f"<img src='{elsewhere}' alt='direct'><img src='/contain/away.png' alt='redirected'>".encode(),
            "text/html",
        ),
        "/contain/away.png": away,
        "/contain/video.html": _reply(
            b"<title>Video</title><h1>A clip</h1><p>A clip with a small stream and a huge one.</p>"
            b"<video src='/contain/two-streams.mkv' title='two streams'></video>",
            "text/html",
        ),
        "/contain/two-streams.mkv": _reply(video, "video/x-matroska"),
    }
    for index in range(3):
        routes[f"/contain/noise{index}.png"] = _reply(
            noise_png(500, 400, seed=40 + index), "image/png"
        )
        routes[f"/contain/noise{index}.html"] = _reply(
            f"<title>Noise {index}</title><h1>Noise {index}</h1><p>One noisy picture.</p>"
            f"<img src='/contain/noise{index}.png' alt='noise {index}'>".encode(),
            "text/html",
        )
    for path, route in routes.items():
        server.route(path, route)  # type: ignore[arg-type]
    other_server.route("/contain/elsewhere.png", _reply(ELSEWHERE_PNG, "image/png"))  # type: ignore[arg-type]
    return server, other_server


def _hits(server: FixtureServer, path: str) -> int:
    return sum(1 for request in server.requests if request.split("?")[0] == path)


def _pixels(path: str) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """A WebP file's size and the colour at its centre."""
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "WEBP"
        rgb = image.convert("RGB")
        return image.size, rgb.getpixel((image.width // 2, image.height // 2))  # type: ignore[return-value]


# -- the cache is per credentials ------------------------------------------------------------


async def test_a_session_never_gets_the_picture_another_sessions_login_got(
    pages: tuple[FixtureServer, FixtureServer],
) -> None:
    server, _ = pages
    page = server.url("/contain/account.html")
    async with cdpkit.engine() as engine:
        await engine.browse(server.url("/contain/login?user=alice"), session="alice", max_tier=1)
        mine = await engine.browse(page, session="alice", include_media=True, max_tier=1)
        [picture] = mine.media
        assert len(picture.files) == 1 and picture.note == ""
        assert _pixels(picture.files[0])[1][0] > 150  # alice's red picture
        before = _hits(server, "/contain/alice.png")
        again = await engine.browse(page, session="alice", include_media=True, max_tier=1)
        assert again.media[0].files == picture.files  # alice's own cache still serves alice
        assert _hits(server, "/contain/alice.png") == before

        await engine.browse(server.url("/contain/login?user=bob"), session="bob", max_tier=1)
        theirs = await engine.browse(page, session="bob", include_media=True, max_tier=1)
        [refused] = theirs.media
        assert refused.files == () and refused.data is None
        assert "forbidden" in refused.note  # the site's own 403, as bob's request got it
        assert _hits(server, "/contain/alice.png") == before + 1  # asked, not taken from the cache

        anonymous = await engine.browse(page, include_media=True, max_tier=1)  # a throwaway session
        assert anonymous.media[0].files == () and "forbidden" in anonymous.media[0].note


async def test_the_cli_in_another_process_does_not_get_alices_picture(
    pages: tuple[FixtureServer, FixtureServer],
) -> None:
    server, _ = pages
    page = server.url("/contain/account.html")
    async with cdpkit.engine() as engine:
        await engine.browse(server.url("/contain/login?user=alice"), session="alice", max_tier=1)
        result = await engine.browse(page, session="alice", include_media=True, max_tier=1)
    alices = list(result.media[0].files)
    assert len(alices) == 1
    for session in ([], ["--session", "bob"]):
        command = [sys.executable, "-m", "cdpkit", "browse", "--download-media", "--max-tier", "1"]
        completed = await asyncio.to_thread(
            subprocess.run, [*command, *session, page],
            capture_output=True, text=True, env=dict(os.environ), timeout=120, check=False,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        media = completed.stdout.split("## Media files", 1)[1]
        assert alices[0] not in media and ".webp" not in media
        assert "none (" in media and "forbidden" in media


# -- the cache is behind the URL policy --------------------------------------------------------


async def test_an_allowed_origins_server_does_not_return_a_cached_picture_of_another_origin(
    pages: tuple[FixtureServer, FixtureServer],
) -> None:
    from tests.mcp.conftest import McpSession, text_of

    server, other = pages
    page = server.url("/contain/cross.html")
    # A call without a policy (the CLI, the Python API) fills the cache with both pictures.
    warm = await cdpkit.browse(page, include_media=True, max_tier=1)
    assert [len(item.files) for item in warm.media] == [1, 1]
    before = _hits(other, "/contain/elsewhere.png")
    session = await McpSession(["--allowed-origins", server.origin]).start()
    try:
        result = await session.call("browse", {"url": page, "include_media": True, "max_tier": 1})
    finally:
        await session.stop()
    text = text_of(result)
    assert not result.is_error, text
    images = [part for part in result.content if part.type == "image"]
    assert images == [], [base64.b64decode(part.data)[:16] for part in images]
    assert "Two pictures" in text
    assert '"direct": none (' in text and "it is blocked" in text
    # As an uncached request: made, and refused at the hop that leaves the allowed origin.
    assert '"redirected": none (' in text
    assert f"was redirected to {other.url('/contain/elsewhere.png')}, which is blocked" in text
    assert _hits(other, "/contain/elsewhere.png") == before  # and nothing was requested from there


# -- eviction in the user's own folder -------------------------------------------------------------


async def test_eviction_in_a_folder_of_the_users_deletes_only_what_cdpkit_made(
    pages: tuple[FixtureServer, FixtureServer], tmp_path: Path
) -> None:
    server, _ = pages
    folder = tmp_path / "my-pictures"
    (folder / "urls").mkdir(parents=True)
    mine = {
        folder / "notes.txt": b"my notes\n" * 20_000,
        folder / "holiday.webp": noise_png(300, 300, seed=7),
        folder / ("ab" * 32 + ".json"): json.dumps({"my": "own data"}).encode(),
        folder / ("cd" * 32 + "-1.webp"): b"my own file, named as it happens",
        folder / "urls" / "bookmarks.txt": b"https://example.org\n",
    }
    for path, data in mine.items():
        path.write_bytes(data)
    os.chmod(folder, 0o755)
    os.chmod(folder / "urls", 0o755)
    bound_mb = 0.05  # room for about one of the pictures: every call evicts
    made: list[str] = []
    for index in range(3):
        async with cdpkit.engine(
            media={"cache_dir": str(folder), "cache_size_mb": bound_mb}
        ) as engine:
            result = await engine.browse(
                server.url(f"/contain/noise{index}.html"), include_media=True, max_tier=1
            )
        [picture] = result.media
        assert len(picture.files) == 1, picture.note
        made.append(picture.files[0])
    for path, data in mine.items():
        assert path.read_bytes() == data, f"{path.name} was deleted or changed"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "urls").stat().st_mode) == 0o755
    assert Path(made[-1]).is_file() and not Path(made[0]).exists()  # cdpkit's own files are evicted
    assert all(
        stat.S_IMODE(Path(path).stat().st_mode) == 0o600 for path in made if Path(path).exists()
    )


# -- a video's streams -------------------------------------------------------------------------------


async def test_a_video_is_read_from_its_small_stream_not_the_huge_one_beside_it(
    pages: tuple[FixtureServer, FixtureServer],
) -> None:
    server, _ = pages
    result = await cdpkit.browse(server.url("/contain/video.html"), include_media=True, max_tier=1)
    [clip] = result.media
    assert clip.kind == "video"
    if not clip.files:  # refusing the video is within the contract too, with a reason
        assert "pixels" in clip.note, clip.note
        return
    assert (clip.width, clip.height) == (32, 32)
    for path in clip.files:
        size, (red, _, blue) = _pixels(path)
        assert size == (32, 32), f"a frame of {size}: decoded from the {BIG_STREAM} stream"
        assert red > 150 and blue < 100, "a frame of the blue 12000x10000 stream"
