"""The MCP ``browse`` tool with ``include_media``, through the official client SDK against a
real server process: the page's image and a video's frames come back as image content
(base64 WebP) beside the text, and a picture redirected to an origin the server does not
allow is never requested."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.media_pages import add_media_routes, require_ffmpeg
from tests.server import FixtureServer, Handler

from .conftest import McpSession, text_of


@pytest.fixture(autouse=True, scope="module")
def _ffmpeg() -> None:
    require_ffmpeg()


@pytest.fixture(scope="module")
def media_server(server: FixtureServer, tmp_path_factory: pytest.TempPathFactory) -> FixtureServer:
    return add_media_routes(server, tmp_path_factory.mktemp("video"))


@pytest.fixture(scope="module")
async def mcp(
    media_server: FixtureServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[McpSession, Path]]:
    folder = tmp_path_factory.mktemp("mcp-media")
    with pytest.MonkeyPatch.context() as patch:  # the server's environment: its own cache and config
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        patch.setenv("CDPKIT_CONFIG", str(folder / "none.toml"))
        session = await McpSession(
            ["--downloads", str(folder), "--allowed-origins", media_server.origin]
        ).start()
    try:
        yield session, folder / "cache"
    finally:
        await session.stop()


def _webp_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "WEBP"
        return image.size


async def test_browse_returns_the_image_and_the_video_frames_as_image_content(
    mcp: tuple[McpSession, Path], media_server: FixtureServer
) -> None:
    session, cache = mcp
    result = await session.call(
        "browse", {"url": media_server.url("/media/page.html"), "include_media": True, "max_tier": 1}
    )
    text = text_of(result)
    assert not result.is_error, text
    assert "A large noisy picture" in text
    images = [part for part in result.content if part.type == "image"]
    assert [part.mime_type for part in images] == ["image/webp"] * 6  # the picture, then 5 frames
    sizes = [_webp_size(base64.b64decode(part.data)) for part in images]
    assert sizes == [(640, 480)] + [(320, 240)] * 5
    assert "[1] image " in text and '"noise picture", 1600x1200: 1 of 1 image shown' in text
    assert "[2] video " in text and "5 of 5 frames shown" in text
    assert str(cache) in text  # the cached files are named
    # Without include_media: no images.
    plain = await session.call("browse", {"url": media_server.url("/media/page.html"), "max_tier": 1})
    assert [part.type for part in plain.content] == ["text"]


async def test_a_picture_redirected_off_the_allowed_origins_is_never_requested(
    mcp: tuple[McpSession, Path], media_server: FixtureServer, other_server: FixtureServer
) -> None:
    session, _ = mcp
    target = other_server.url("/media-elsewhere/secret.png")

    def away(handler: Handler) -> None:
        handler.send_response(302)
        handler.send_header("Location", target)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def page(handler: Handler) -> None:
        handler.reply(
            200,
            "<title>Redirected picture</title><h1>Elsewhere</h1><p>A picture that redirects to another "
            "origin, one the server does not allow.</p><img src='/media/away.png' alt='redirected'>",
        )

    media_server.route("/media/away.png", away)
    media_server.route("/media/away.html", page)
    result = await session.call(
        "browse", {"url": media_server.url("/media/away.html"), "include_media": True, "max_tier": 1}
    )
    text = text_of(result)
    assert not result.is_error, text
    assert [part.type for part in result.content if part.type == "image"] == []
    assert "redirected" in text and f"was redirected to {target}, which is blocked" in text
    assert "/media-elsewhere/secret.png" not in other_server.requests
