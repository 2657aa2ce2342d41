"""The media pages of the include_media tests (tests/browse/test_media.py, the MCP's and the
benchmark's): a large noisy PNG made with Pillow, a short clip made with ffmpeg, pages
showing them, and what a page may serve that is not a safe image."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.server import FixtureServer, Handler


def require_ffmpeg() -> str:
    """ffmpeg's path; a missing ffmpeg fails the test with what to run (the set-up
    installs it, as it installs the Selenium jar: its absence is not a reason to skip)."""
    found = shutil.which("ffmpeg")
    if found is None or shutil.which("ffprobe") is None:
        import pytest

        pytest.fail("ffmpeg and ffprobe are not on PATH: run `bash scripts/setup.sh --tests`")
    return found


def noise_png(width: int, height: int, seed: int) -> bytes:
    """A PNG of noise: its WebP stays large, so a few fill a small cache."""
    import random

    from PIL import Image

    generator = random.Random(seed)
    image = Image.frombytes("RGB", (width, height), generator.randbytes(width * height * 3))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def make_video(folder: Path) -> bytes:
    """A 2-second 320x240 clip whose picture changes every frame (ffmpeg's test source)."""
    path = folder / "clip.mp4"
    subprocess.run(
        [
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=10",
            "-pix_fmt", "yuv420p", str(path),
        ],
        check=True, timeout=60,
    )  # fmt: skip
    return path.read_bytes()


def _bomb_png() -> bytes:
    """A small PNG that says it is 10000x10000 (100 million pixels)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (10000, 10000)).save(out, "PNG")
    return out.getvalue()


def _file(body: bytes, content_type: str) -> Callable[[Handler], None]:
    def route(handler: Handler) -> None:
        handler.reply(200, body, content_type)

    return route


def _huge(handler: Handler) -> None:
    # Says it is 100 MiB: refused on the header, before the body is read.
    handler.send_response(200)
    handler.send_header("Content-Type", "image/png")
    handler.send_header("Content-Length", str(100 * 1024 * 1024))
    handler.end_headers()
    handler.wfile.write(b"\x89PNG\r\n\x1a\n")
    handler.close_connection = True


def _cookie_picture(handler: Handler) -> None:
    if "pass=from-script" not in handler.headers.get("Cookie", ""):
        handler.reply(403, b"no cookie", "text/plain")
        return
    handler.reply(200, BIG_PNG, "image/png")


BIG_PNG = noise_png(1600, 1200, seed=1)
PAGE = (
    b"<title>Media page</title><h1>A picture and a clip</h1>"
    b"<p>A large noisy picture, then a short test clip, for the media pipeline.</p>"
    b"<img src='/media/big.png' alt='noise picture'>"
    b"<video src='/media/clip.mp4' title='test clip'></video>"
)
GUARDS = (
    b"<title>Guards</title><h1>What a page may serve</h1><p>Five images that are not what they say.</p>"
    b"<img src='/media/drawing.svg' alt='a drawing'><img src='/media/page-not-image' alt='a page'>"
    b"<img src='/media/bomb.png' alt='a bomb'><img src='/media/huge.png' alt='huge'>"
    b"<img src='/media/big.png' alt='a real one'>"
)


def add_media_routes(server: FixtureServer, folder: Path) -> FixtureServer:
    """Serve the media pages on ``server`` (the clip is made in ``folder``)."""
    clip = make_video(folder)
    routes: dict[str, Callable[[Handler], None]] = {
        "/media/page.html": _file(PAGE, "text/html"),
        "/media/big.png": _file(BIG_PNG, "image/png"),
        "/media/clip.mp4": _file(clip, "video/mp4"),
        "/media/guards.html": _file(GUARDS, "text/html"),
        "/media/drawing.svg": _file(b"<svg xmlns='http://www.w3.org/2000/svg'><rect/></svg>", "image/svg+xml"),
        "/media/page-not-image": _file(b"<p>not an image</p>", "text/html"),
        "/media/bomb.png": _file(_bomb_png(), "image/png"),
        "/media/huge.png": _huge,
        "/media/cookie-page.html": _file(
            b"<title>Logged in</title><div id='root'></div><script>document.cookie = 'pass=from-script; path=/';"
            b"document.getElementById('root').innerHTML = '<h1>Members</h1><p>A picture only a visitor with "
            b"the cookie this script set may see.</p><img src=\"/media/members.png\" alt=\"members only\">';"
            b"</script>",
            "text/html",
        ),
        "/media/members.png": _cookie_picture,
    }
    for index in range(4):
        routes[f"/media/noise{index}.png"] = _file(noise_png(800, 600, seed=10 + index), "image/png")
        routes[f"/media/noise{index}.html"] = _file(
            f"<title>Noise {index}</title><h1>Noise {index}</h1><p>One noisy picture on this page.</p>"
            f"<img src='/media/noise{index}.png' alt='noise {index}'>".encode(),
            "text/html",
        )
    inline = "data:video/mp4;base64," + base64.b64encode(clip).decode()
    routes["/media/data-video.html"] = _file(
        f"<title>Inline clip</title><h1>A clip in the page itself</h1><p>The clip is a data: URL.</p>"
        f"<video src='{inline}' title='inline clip'></video>".encode(),
        "text/html",
    )
    for path, route in routes.items():
        server.route(path, route)
    return server


