"""download() and expect_download() against real Chromium and local servers."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

import cdpkit
from cdpkit.tools.files import download, expect_download
from tests.server import FixtureServer, Handler, closed_port

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400


def protected_image(server: FixtureServer) -> str:
    """An image served only with the page's cookie and a Referer from the server."""

    def handler(h: Handler) -> None:
        cookie_ok = "session=s3cret" in (h.headers.get("Cookie") or "")
        referer_ok = (h.headers.get("Referer") or "").startswith(server.origin)
        if cookie_ok and referer_ok:
            h.reply(200, PNG, "image/png")
        else:
            h.reply(403, "hotlinking forbidden", "text/plain")

    server.route("/protected/photo", handler)
    return server.url("/protected/photo")


def gallery(server: FixtureServer) -> str:
    html = """<!doctype html><title>gallery</title>
    <img id="photo" src="/protected/photo">
    <video id="clip"><source src="/media/clip.mp4" type="video/mp4"></video>
    <a id="doc" href="/files/report.pdf">report</a>
    <div id="hero" style="background-image: url('/media/hero.webp'); width: 10px; height: 10px"></div>
    <p id="plain">no resource here</p>
    <script>document.cookie = "session=s3cret; path=/";</script>"""
    server.route("/gallery", lambda h: h.reply(200, html))
    server.route("/media/clip.mp4", lambda h: h.reply(200, b"\x00\x00\x00\x18ftypmp42", "video/mp4"))
    server.route("/media/hero.webp", lambda h: h.reply(200, b"RIFF\x00\x00\x00\x00WEBP", "image/webp"))
    server.route("/files/report.pdf", lambda h: h.reply(200, b"%PDF-1.4 fake", "application/pdf"))
    protected_image(server)
    return server.url("/gallery")


async def test_page_context_download_passes_cookie_and_referer_checks(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    result = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path)
    assert result.success and result.size == len(PNG)
    assert Path(result.path).read_bytes() == PNG
    assert result.mime_type == "image/png"
    assert re.fullmatch(r"\d{13}\.png", result.filename)
    # The same URL without the page's cookie and Referer is refused.
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(server.url("/protected/photo"))
    assert info.value.code == 403
    assert [p.name for p in tmp_path.iterdir()] == [result.filename]


@pytest.mark.parametrize(
    ("selector", "expected_bytes", "extension"),
    [
        ("#photo", PNG, ".png"),
        ("#clip", b"\x00\x00\x00\x18ftypmp42", ".mp4"),
        ("#doc", b"%PDF-1.4 fake", ".pdf"),
        ("#hero", b"RIFF\x00\x00\x00\x00WEBP", ".webp"),
    ],
)
async def test_download_the_resource_of_an_element(
    page: cdpkit.Page,
    server: FixtureServer,
    tmp_path: Path,
    selector: str,
    expected_bytes: bytes,
    extension: str,
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    result = await download(page, selector=selector, dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == expected_bytes
    assert result.filename.endswith(extension)


async def test_download_target_errors(page: cdpkit.Page, server: FixtureServer, tmp_path: Path) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    with pytest.raises(ValueError, match="Provide one of: url, index, or selector"):
        await download(page, dest_dir=tmp_path)
    with pytest.raises(ValueError, match="Provide one of: url, index, or selector"):
        await download(page, url="x", selector="y", dest_dir=tmp_path)
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found: #nope"):
        await download(page, selector="#nope", dest_dir=tmp_path)
    with pytest.raises(cdpkit.DownloadError, match="Element has no downloadable resource"):
        await download(page, selector="#plain", dest_dir=tmp_path)
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element index 3"):
        await download(page, index=3, dest_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


async def test_http_error_is_reported_and_leaves_nothing(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, server.url("/status?code=200"))
    with pytest.raises(cdpkit.DownloadError, match="Resource fetch failed: 404"):
        await download(page, url=server.url("/status?code=404"), dest_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


async def test_resource_that_never_answers_times_out_and_leaves_nothing(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, server.url("/status?code=200"))
    started = time.monotonic()
    with pytest.raises(cdpkit.DownloadError, match="did not start within 1 s"):
        await download(page, url=server.url("/slow?s=60"), dest_dir=tmp_path, initiation_timeout=1)
    assert time.monotonic() - started < 1 + 15  # the limit ended it, not the 60 s answer
    assert list(tmp_path.iterdir()) == []
    # The page is usable afterwards (interception was switched off).
    result = await cdpkit.tools.navigate(page, server.url("/status?code=200"))
    assert result.status == 200


async def test_unreachable_resource_is_a_network_error(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, server.url("/status?code=200"))
    with pytest.raises(cdpkit.DownloadError, match="Network request failed"):
        await download(page, url=f"http://127.0.0.1:{closed_port()}/f.bin", dest_dir=tmp_path, timeout=10)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("hostile", "expected"),
    [
        ("../../x.png", "___x.png"),
        ("/etc/x", "_etc_x"),
        ("a\0b.png", "ab.png"),
        ("y" * 300 + ".png", "y" * 251 + ".png"),
    ],
)
async def test_hostile_filenames_stay_inside_the_directory(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, hostile: str, expected: str
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    result = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path, filename=hostile)
    path = Path(result.path)
    assert path.parent == tmp_path
    assert result.filename == expected
    assert len(result.filename.encode()) <= 255
    assert path.read_bytes() == PNG


@pytest.mark.parametrize("unusable", ["..", "...", "\0"])
async def test_unusable_filename_falls_back_to_timestamp_name(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, unusable: str
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    result = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path, filename=unusable)
    assert re.fullmatch(r"\d{13}\.png", result.filename)
    assert Path(result.path).parent == tmp_path


async def test_names_never_overwrite(page: cdpkit.Page, server: FixtureServer, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.123)  # every call in the same ms
    first = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path)
    second = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path)
    assert first.filename == "1700000000123.png" and second.filename == "1700000000124.png"
    named = [await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path, filename="photo.png")
             for _ in range(2)]
    assert [r.filename for r in named] == ["photo.png", "photo-1.png"]
    assert len(list(tmp_path.iterdir())) == 4


async def test_browser_managed_download_of_an_attachment(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    body = os.urandom(300_000)
    server.route(
        "/export",
        lambda h: h.reply(200, body, "application/octet-stream",
                          {"Content-Disposition": 'attachment; filename="report 2026.csv"'}),
    )
    server.route("/exports", lambda h: h.reply(200, '<a id="get" href="/export">Export</a>'))
    await cdpkit.tools.navigate(page, server.url("/exports"))
    async with expect_download(page, dest_dir=tmp_path) as pending:
        await page.call("Runtime.evaluate", {"expression": "document.getElementById('get').click()"})
    result = pending.value
    assert result.suggested_filename == "report 2026.csv"
    assert result.filename == "report 2026.csv"
    assert result.mime_type == "text/csv"  # the type of the name Chrome saved it under
    assert Path(result.path).read_bytes() == body and result.size == len(body)
    assert [p.name for p in tmp_path.iterdir()] == ["report 2026.csv"]  # no staging left


async def test_interrupted_browser_download_is_reported_and_leaves_nothing(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    def truncated(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/zip")
        h.send_header("Content-Disposition", 'attachment; filename="big.zip"')
        h.send_header("Content-Length", str(10_000_000))
        h.end_headers()
        h.wfile.write(b"P" * 100_000)
        h.wfile.flush()
        h.close_connection = True  # the server dies mid-file

    server.route("/broken.zip", truncated)
    server.route("/broken", lambda h: h.reply(200, '<a id="get" href="/broken.zip">get</a>'))
    await cdpkit.tools.navigate(page, server.url("/broken"))
    with pytest.raises(cdpkit.DownloadError, match=r"Download of .*/broken.zip failed"):
        async with expect_download(page, dest_dir=tmp_path, timeout=20):
            await page.call("Runtime.evaluate", {"expression": "document.getElementById('get').click()"})
    assert list(tmp_path.iterdir()) == []


async def test_a_browser_download_never_turns_the_network_domain_on(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    # With the Network domain on when the request starts, Chrome reports the whole body's
    # transfer to DevTools and the download takes a tenth longer: it stays off, from the
    # first byte to the last. The type is then the one of the name Chrome gave the file,
    # or, when that has no extension, of the file's first bytes.
    body = b"%PDF-1.7\n" + os.urandom(300_000)
    halfway = threading.Event()
    network_while_saving: list[int] = []
    enables: list[str] = []

    def trickled(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/pdf")
        h.send_header("Content-Disposition", 'attachment; filename="statement"')
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body[:1000])
        h.wfile.flush()
        halfway.wait(10)
        h.wfile.write(body[1000:])
        h.wfile.flush()

    async def release_halfway() -> None:
        await asyncio.sleep(1.0)
        network_while_saving.append(page._domain_users.get("Network", 0))
        halfway.set()

    server.route("/statement", trickled)
    assert page.url == "about:blank"
    connection = page.browser._connection
    send_now, send_text = connection.send_now, connection.send_text

    def recording_send_now(text: str) -> bool:
        if '"Network.enable"' in text:
            enables.append(text)
        return send_now(text)

    async def recording_send_text(text: str) -> None:
        if '"Network.enable"' in text:
            enables.append(text)
        await send_text(text)

    connection.send_now = recording_send_now  # type: ignore[method-assign]
    connection.send_text = recording_send_text  # type: ignore[method-assign]
    releasing = asyncio.ensure_future(release_halfway())
    try:
        async with expect_download(page, dest_dir=tmp_path, timeout=20) as pending:
            await page.send(cdpkit.cdp.page.navigate(server.url("/statement")))
    finally:
        connection.send_now, connection.send_text = send_now, send_text  # type: ignore[method-assign]
        halfway.set()
        await releasing
    result = pending.value
    assert Path(result.path).read_bytes() == body
    assert (result.filename, result.mime_type) == ("statement", "application/pdf")
    assert network_while_saving == [0] and enables == []


async def test_a_browser_download_is_handed_over_without_waiting_for_the_restored_behaviour(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    # Leaving the block puts the browser's download behaviour back. Chrome answers that
    # when it gets to it (50 ms after a 100 MB download): the block does not wait for the
    # answer (held here until the end), and what the program sends next still reaches the
    # browser after the command.
    body = os.urandom(100_000)
    server.route("/attachment", lambda h: h.reply(
        200, body, "application/octet-stream", {"Content-Disposition": 'attachment; filename="a.bin"'}))
    browser = page.browser
    connection = browser._connection
    sent: list[str] = []
    restoring_ids: set[int] = set()
    held: list[tuple[int, dict[str, object]]] = []

    def record(text: str) -> None:
        sent.append(text)
        if '"Browser.setDownloadBehavior"' in text and '"behavior":"default"' in text:
            restoring_ids.add(json.loads(text)["id"])

    send_now, send_text, resolve = connection.send_now, connection.send_text, browser._resolve

    def recording_send_now(text: str) -> bool:
        written = send_now(text)
        if written:  # else it goes through send_text
            record(text)
        return written

    async def recording_send_text(text: str) -> None:
        record(text)
        await send_text(text)

    def holding_resolve(message_id: int, message: dict[str, object]) -> None:
        if message_id in restoring_ids:
            held.append((message_id, message))
        else:
            resolve(message_id, message)

    connection.send_now = recording_send_now  # type: ignore[method-assign]
    connection.send_text = recording_send_text  # type: ignore[method-assign]
    browser._resolve = holding_resolve  # type: ignore[method-assign]
    try:
        async with asyncio.timeout(10):  # the restoring call alone would wait 30 s
            async with expect_download(page, dest_dir=tmp_path) as pending:
                await page.send(cdpkit.cdp.page.navigate(server.url("/attachment")))
        assert Path(pending.value.path).read_bytes() == body
        assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]  # no staging left
        await browser.send(cdpkit.cdp.browser.get_version())
        restoring_at = next(i for i, text in enumerate(sent) if json.loads(text)["id"] in restoring_ids)
        assert '"Browser.getVersion"' in sent[-1] and restoring_at < len(sent) - 1
        assert [message_id for message_id, _ in held] == sorted(restoring_ids)
    finally:
        del connection.send_now, connection.send_text, browser._resolve
        for message_id, message in held:
            resolve(message_id, message)


async def test_expect_download_reports_when_nothing_downloads(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, server.url("/status?code=200"))
    with pytest.raises(cdpkit.DownloadError, match="No download began"):
        async with expect_download(page, dest_dir=tmp_path, initiation_timeout=0.5):
            pass
    assert list(tmp_path.iterdir()) == []


def test_two_hundred_megabytes_stream_with_small_memory_growth(tmp_path: Path) -> None:
    """Measured in a child process so the test suite's own memory does not interfere."""
    script = tmp_path / "big.py"
    script.write_text(textwrap.dedent(
        """
        import asyncio, hashlib, resource, sys
        sys.path.insert(0, sys.argv[1])
        import cdpkit
        from cdpkit.tools.files import download
        from tests.server import start_server

        SIZE, BLOCK = 200 * 1024 * 1024, b"0123456789abcdef" * 65536

        def big(h):
            h.send_response(200)
            h.send_header("Content-Type", "application/octet-stream")
            h.send_header("Content-Length", str(SIZE))
            h.end_headers()
            for _ in range(SIZE // len(BLOCK)):
                h.wfile.write(BLOCK)

        async def main():
            server = start_server()
            server.route("/big.bin", big)
            server.route("/small.bin", lambda h: h.reply(200, b"x" * 1000, "application/octet-stream"))
            async with cdpkit.launch() as browser:
                page = await browser.new_page(server.url("/status?code=200"))
                await download(page, url=server.url("/small.bin"), dest_dir=sys.argv[2])
                before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                result = await download(page, url=server.url("/big.bin"), dest_dir=sys.argv[2], timeout=120)
                after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(result.size, (after - before) // 1024, result.path)

        asyncio.run(main())
        """
    ))
    out_dir = tmp_path / "out"
    completed = subprocess.run(
        [sys.executable, str(script), str(Path(__file__).parents[2]), str(out_dir)],
        capture_output=True, text=True, timeout=300, check=True,
    )
    size, growth_mb, path = completed.stdout.split()
    assert int(size) == 200 * 1024 * 1024
    assert int(growth_mb) < 50, f"peak RSS grew by {growth_mb} MB"
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    expected = hashlib.sha256(b"0123456789abcdef" * 65536 * 200).hexdigest()
    assert digest.hexdigest() == expected


async def test_downloaded_files_get_ordinary_permissions(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    located = await download(page, role="link", name="report", dest_dir=tmp_path)
    assert Path(located.path).read_bytes() == b"%PDF-1.4 fake"
    result = await download(page, url=server.url("/protected/photo"), dest_dir=tmp_path)
    umask = os.umask(0o022)
    os.umask(umask)
    assert Path(result.path).stat().st_mode & 0o777 == 0o666 & ~umask


async def test_resource_url_names_what_download_would_fetch(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    resource_url = cdpkit.tools.resource_url
    assert await resource_url(page, selector="#photo") == server.url("/protected/photo")
    assert await resource_url(page, selector="#clip") == server.url("/media/clip.mp4")
    assert await resource_url(page, selector="#doc") == server.url("/files/report.pdf")
    assert await resource_url(page, selector="#hero") == server.url("/media/hero.webp")
    with pytest.raises(cdpkit.DownloadError, match="Element has no downloadable resource"):
        await resource_url(page, selector="#plain")
    with pytest.raises(ValueError, match="Provide one of: selector or index"):
        await resource_url(page)
    # By what a person sees: the link's role and name, its text.
    assert await resource_url(page, role="link", name="report") == server.url("/files/report.pdf")
    assert await resource_url(page, text="report") == server.url("/files/report.pdf")


async def test_a_300_character_name_downloaded_twice_gets_two_files(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await cdpkit.tools.navigate(page, gallery(server))
    long_name = "é" * 296 + ".pdf"  # 300 characters, 596 bytes of UTF-8
    results = [
        await download(page, url=server.url("/files/report.pdf"), dest_dir=tmp_path, filename=long_name)
        for _ in range(2)
    ]
    first, second = (r.filename for r in results)
    assert first != second and first.endswith("é.pdf") and second.endswith("é-1.pdf")
    assert all(len(name.encode()) <= 255 for name in (first, second))
    assert first.startswith("éééé") and first.encode().decode() == first  # cut between characters
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first, second])
    assert all(Path(r.path).read_bytes() == b"%PDF-1.4 fake" for r in results)


@pytest.mark.parametrize(
    "invisible", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\ufeff"]
)
async def test_bidirectional_and_invisible_characters_never_stay_in_a_name(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, invisible: str
) -> None:
    # invoice\u202etxt.exe shows as invoiceexe.txt; Chrome saves it as invoice_txt.exe.
    quoted = urllib.parse.quote(f"invoice{invisible}txt.exe")
    server.route(
        "/invoice",
        lambda h: h.reply(200, b"MZ", "application/octet-stream",
                          {"Content-Disposition": f"attachment; filename*=UTF-8''{quoted}"}),
    )
    await cdpkit.tools.navigate(page, gallery(server))
    result = await download(page, url=server.url("/invoice"), dest_dir=tmp_path, server_filename=True)
    assert result.filename == "invoice_txt.exe"
    named = await download(page, url=server.url("/invoice"), dest_dir=tmp_path,
                           filename=f"report{invisible}fdp.pdf")
    assert named.filename == "report_fdp.pdf"


async def test_a_relative_dest_dir_gives_absolute_paths(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    await cdpkit.tools.navigate(page, gallery(server))
    fetched = await download(page, url=server.url("/files/report.pdf"), dest_dir="saved")
    inline = await download(page, url="data:text/plain,hello", dest_dir="saved")
    async with expect_download(page, dest_dir="saved/clicked") as pending:
        await cdpkit.tools.evaluate(
            page, "Object.assign(document.createElement('a'), {href: '/files/report.pdf', "
                  "download: 'r.pdf'}).click()"
        )
    for result in (fetched, inline, pending.value):
        path = Path(result.path)
        assert path.is_absolute(), result.path
        assert path.is_file() and path.is_relative_to(tmp_path / "saved")
