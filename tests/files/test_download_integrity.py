"""download() saves the whole body or nothing: from any page, through redirects and the
direct fallback; cut bodies, timeouts and lying servers give DownloadError, leave no file
and no task behind (issues 12 and 20)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import cdpkit
from cdpkit.tools.files import download, expect_download
from tests.server import CHUNKED_BODY, DOWNLOADS, FixtureServer

CSP_PAGE = "/dl/no-fetch-page"  # a page whose CSP forbids fetch(): downloads go direct


@pytest.fixture
async def unretrieved() -> AsyncIterator[list[dict[str, Any]]]:
    """What the event loop reports as unhandled ("Task exception was never retrieved")
    while the test runs, checked after a garbage collection."""
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        yield reported
        gc.collect()
        await asyncio.sleep(0.1)
    finally:
        loop.set_exception_handler(previous)


def csp_page(server: FixtureServer) -> str:
    server.route(
        CSP_PAGE,
        lambda h: h.reply(200, "<title>locked</title>", headers={"Content-Security-Policy": "connect-src 'none'"}),
    )
    return server.url(CSP_PAGE)


@pytest.mark.parametrize("path", sorted(DOWNLOADS))
@pytest.mark.parametrize("start", ["about:blank", "other origin"])
async def test_whole_file_and_real_type_from_any_page(
    page: cdpkit.Page,
    server: FixtureServer,
    other_server: FixtureServer,
    tmp_path: Path,
    path: str,
    start: str,
) -> None:
    if start == "other origin":
        await cdpkit.tools.navigate(page, other_server.url("/status?code=200"))
    body, content_type = DOWNLOADS[path]
    result = await download(page, url=server.url(path), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == body
    assert result.size == len(body)
    assert result.mime_type == content_type
    assert result.filename.endswith(Path(path).suffix)
    assert [p.name for p in tmp_path.iterdir()] == [result.filename]


async def test_redirect_to_another_origin_is_followed(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer, tmp_path: Path
) -> None:
    target = other_server.url("/dl/report.pdf")
    server.route("/dl/moved", lambda h: h.reply(302, "", "text/plain", {"Location": target}))
    result = await download(page, url=server.url("/dl/moved"), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
    assert result.mime_type == "application/pdf"


@pytest.mark.parametrize("route", ["page", "direct"])
async def test_complete_chunked_body_is_saved(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, route: str
) -> None:
    if route == "direct":
        await cdpkit.tools.navigate(page, csp_page(server))
    result = await download(page, url=server.url("/dl/chunked"), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == CHUNKED_BODY
    assert result.mime_type == "text/csv"


@pytest.mark.parametrize("route", ["page", "direct"])
@pytest.mark.parametrize(
    ("resource", "reason"),
    [
        ("/dl/chunked?cut=1", "before the end of the body"),
        ("/dl/short", r"after 307200 of the 407200 bytes the server announced|before the end of the body"),
    ],
)
async def test_cut_body_is_an_error_and_leaves_nothing(
    page: cdpkit.Page,
    server: FixtureServer,
    other_server: FixtureServer,
    tmp_path: Path,
    unretrieved: list[dict[str, Any]],
    route: str,
    resource: str,
    reason: str,
) -> None:
    await cdpkit.tools.navigate(page, csp_page(server) if route == "direct" else other_server.url("/status?code=200"))
    url = server.url(resource)
    with pytest.raises(cdpkit.DownloadError, match=reason) as info:
        await download(page, url=url, dest_dir=tmp_path)
    assert url in str(info.value)
    assert list(tmp_path.iterdir()) == []
    assert unretrieved == []


_STALLED = r"Download of .*/dl/stall\?s=60 timed out after 1 s"
_SILENT = r"Download of .*/slow\?s=60 timed out after 1 s"


@pytest.mark.parametrize(
    ("route", "resource", "limits", "reason"),
    [
        ("page", "/dl/stall?s=60", {"timeout": 1}, _STALLED),
        ("direct", "/dl/stall?s=60", {"timeout": 1}, _STALLED),
        ("page", "/slow?s=60", {"timeout": 1}, _SILENT),
        ("direct", "/slow?s=60", {"timeout": 1}, _SILENT),
        ("page", "/slow?s=60", {"initiation_timeout": 1}, r"Download of .*/slow\?s=60 did not start within 1 s"),
    ],
)
async def test_timeout_leaves_no_file_and_no_task(
    page: cdpkit.Page,
    server: FixtureServer,
    tmp_path: Path,
    unretrieved: list[dict[str, Any]],
    route: str,
    resource: str,
    limits: dict[str, float],
    reason: str,
) -> None:
    await cdpkit.tools.navigate(page, csp_page(server) if route == "direct" else server.url("/status?code=200"))
    before = asyncio.all_tasks()
    started = time.monotonic()
    with pytest.raises(cdpkit.DownloadError, match=reason):
        await download(page, url=server.url(resource), dest_dir=tmp_path, **limits)
    assert time.monotonic() - started < 1 + 15  # the limit ended it, not the 60 s stall
    await asyncio.sleep(0.2)
    assert asyncio.all_tasks() - before == set()
    assert list(tmp_path.iterdir()) == []
    assert unretrieved == []
    # The page still works and can download again.
    result = await download(page, url=server.url("/dl/data.json"), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == DOWNLOADS["/dl/data.json"][0]


@pytest.mark.parametrize(
    ("disposition", "expected"),
    [
        ("attachment; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt", "naïve résumé.txt"),
        ('attachment; filename="plain.txt"; filename*=UTF-8\'\'%E2%9C%93.txt', "✓.txt"),
        ('attachment; filename="../../etc/passwd"', "___etc_passwd"),
        ('inline; filename="quarterly report.txt"', "quarterly report.txt"),
    ],
)
async def test_server_filename_from_content_disposition(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, disposition: str, expected: str
) -> None:
    from urllib.parse import quote

    url = server.url("/dl/named?cd=" + quote(disposition))
    result = await download(page, url=url, dest_dir=tmp_path, server_filename=True)
    assert result.filename == expected
    assert Path(result.path).parent == tmp_path
    assert Path(result.path).read_bytes() == b"named body"


async def test_server_filename_from_url_never_overwrites(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    url = server.url("/dl/report.pdf")
    names = [(await download(page, url=url, dest_dir=tmp_path, server_filename=True)).filename for _ in range(3)]
    assert names == ["report.pdf", "report-1.pdf", "report-2.pdf"]
    # Without the knob the library keeps its timestamp names.
    plain = await download(page, url=url, dest_dir=tmp_path)
    assert plain.filename[:13].isdigit() and plain.filename.endswith(".pdf")


@pytest.mark.parametrize("resource", ["/dl/chunked?cut=1", "/dl/short"])
async def test_browser_managed_download_cut_short_is_an_error(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, resource: str
) -> None:
    server.route(
        "/dl/attachment-page",
        lambda h: h.reply(200, f'<a id="get" href="{resource}" download="cut.csv">get</a>'),
    )
    await cdpkit.tools.navigate(page, server.url("/dl/attachment-page"))
    with pytest.raises(cdpkit.DownloadError, match=r"Download of .*/dl/.* failed"):
        async with expect_download(page, dest_dir=tmp_path, timeout=20):
            await page.call("Runtime.evaluate", {"expression": "document.getElementById('get').click()"})
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("send_headers", [False, True])
async def test_timed_out_direct_request_closes_its_connection(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, send_headers: bool
) -> None:
    """Nothing keeps downloading after the call: the server sees the connection close."""
    closed_after: list[float] = []

    def hold(h: Any) -> None:
        if send_headers:
            h.send_response(200)
            h.send_header("Content-Length", "1000")
            h.end_headers()
            h.wfile.flush()
        started = time.monotonic()
        h.connection.settimeout(15)
        with contextlib.suppress(OSError):
            h.connection.recv(1)  # returns b"" (or fails) when the client closes
        closed_after.append(time.monotonic() - started)

    server.route("/dl/hold", hold)
    await cdpkit.tools.navigate(page, csp_page(server))
    with pytest.raises(cdpkit.DownloadError, match="timed out after 1 s"):
        await download(page, url=server.url("/dl/hold"), dest_dir=tmp_path, timeout=1)
    for _ in range(200):
        if closed_after:
            break
        await asyncio.sleep(0.05)
    assert closed_after and closed_after[0] < 1 + 8  # the server would hold it 15 s
    assert list(tmp_path.iterdir()) == []
