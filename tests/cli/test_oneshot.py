"""The one-shot commands against local pages: what they print and save, and how they fail
(one line on stderr, non-zero exit, a traceback only with --debug)."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.server import FixtureServer, Handler, closed_port


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def assert_one_line_error(stderr: str, *fragments: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0], stderr
    assert "Traceback" not in stderr


# -- screenshot -------------------------------------------------------------------------------


def test_screenshot_launches_a_browser_and_saves_a_png(cli: CLI, server: FixtureServer) -> None:
    result = cli.run("screenshot", server.url("/cli/index.html"))
    assert result.returncode == 0, result.stderr
    saved = cli.cwd / "screenshot.png"
    assert result.stdout.startswith("Saved screenshot.png (png, ")
    _width, height = png_size(saved.read_bytes())
    assert height < 1500  # the viewport, not the 3000 px page


def test_screenshot_full_page_and_format_from_extension(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    full = cli.run("screenshot", server.url("/cli/index.html"), "--full-page", "-o", "full.png", "--connect", endpoint)
    assert full.returncode == 0, full.stderr
    assert png_size((cli.cwd / "full.png").read_bytes())[1] > 3000

    jpeg = cli.run("screenshot", server.url("/cli/index.html"), "-o", "shot.jpg", "--connect", endpoint)
    assert jpeg.returncode == 0, jpeg.stderr
    assert "(jpeg, " in jpeg.stdout
    assert (cli.cwd / "shot.jpg").read_bytes()[:3] == b"\xff\xd8\xff"

    webp = cli.run("screenshot", server.url("/cli/index.html"), "--format", "webp", "--connect", endpoint)
    assert webp.returncode == 0, webp.stderr
    data = (cli.cwd / "screenshot.webp").read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"


def test_screenshot_to_stdout(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "cdpkit", "screenshot", server.url("/cli/index.html"),
         "-o", "-", "--selector", "#go", "--connect", endpoint],
        capture_output=True, env=cli.env, cwd=cli.cwd, timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    width, height = png_size(completed.stdout)
    assert width < 200 and height < 100  # just the button


def test_screenshot_of_an_element_found_by_locator(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/index.html")
    result = cli.run("screenshot", url, "-o", "go.png", "--element", 'role=button name="Go"', "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    width, height = png_size((cli.cwd / "go.png").read_bytes())
    assert width < 200 and height < 100  # just the button
    missing = cli.run("screenshot", url, "-o", "no.png", "--element", "role=button name=Stop timeout=0.3",
                      "--connect", endpoint)  # fmt: skip
    assert missing.returncode != 0
    assert 'No element with role=button name="Stop" after 0.3 s' in missing.stderr
    assert not (cli.cwd / "no.png").exists()


# -- snapshot, scrape, eval -----------------------------------------------------------------


def test_snapshot_prints_indexed_lines(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run("snapshot", server.url("/cli/index.html"), "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith('[0] RootWebArea "CLI test page" @(')
    assert any('heading "CLI test page"' in line and "[level=1]" in line for line in lines)
    assert any('button "Go"' in line for line in lines)

    controls = cli.run("snapshot", server.url("/cli/index.html"), "-i", "--connect", endpoint)
    assert controls.returncode == 0, controls.stderr
    assert "heading" not in controls.stdout
    assert 'button "Go"' in controls.stdout and 'link "a link"' in controls.stdout


def test_scrape_formats(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/index.html")
    markdown = cli.run("scrape", url, "--wait", "0", "--connect", endpoint)
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("# CLI test page\n")
    assert f"[a link]({server.url('/cli/other.html#part')})" in markdown.stdout
    assert "Footer text" not in markdown.stdout  # page chrome is stripped

    links = cli.run("scrape", url, "--format", "links", "--wait", "0", "--connect", endpoint)
    assert links.returncode == 0, links.stderr
    rows = [line.split("\t") for line in links.stdout.splitlines()]
    assert [server.url("/cli/other.html"), "Other page"] in rows
    assert ["https://example.com/", "another"] in rows

    text = cli.run("scrape", url, "--format", "text", "-o", "page.txt", "--wait", "0", "--connect", endpoint)
    assert text.returncode == 0, text.stderr
    assert text.stdout == ""
    assert "Some text with a link and another." in (cli.cwd / "page.txt").read_text()


def test_scrape_of_a_media_url_needs_an_output_file(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/pic.png")
    refused = cli.run("scrape", url, "--connect", endpoint)
    assert refused.returncode == 1
    assert_one_line_error(refused.stderr, "is a media file (image/png", "-o FILE")

    saved = cli.run("scrape", url, "-o", "pic.png", "--connect", endpoint)
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout.startswith("Saved pic.png (image/png")
    assert (cli.cwd / "pic.png").read_bytes() == (Path(__file__).parents[1] / "pages/cli/pic.png").read_bytes()


def test_scrape_rejects_an_unknown_format(cli: CLI, server: FixtureServer) -> None:
    result = cli.run("scrape", server.url("/cli/index.html"), "--format", "html")
    assert result.returncode == 2
    assert "'html' is not one of" in result.stderr


def test_eval_prints_strings_and_json(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/index.html")
    title = cli.run("eval", url, "document.title", "--connect", endpoint)
    assert (title.returncode, title.stdout) == (0, "CLI test page\n")

    data = cli.run("eval", url, "({n: 1 + 1, links: document.links.length, ok: true})", "--connect", endpoint)
    assert data.returncode == 0, data.stderr
    assert json.loads(data.stdout) == {"n": 2, "links": 3, "ok": True}

    awaited = cli.run("eval", url, "await new Promise(r => setTimeout(() => r(42), 50))", "--connect", endpoint)
    assert (awaited.returncode, awaited.stdout) == (0, "42\n")


def test_eval_javascript_error(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run("eval", server.url("/cli/index.html"), "nope.x", "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "ReferenceError: nope is not defined")


# -- download -------------------------------------------------------------------------------


def test_download_saves_the_file(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run("download", server.url("/cli/pic.png"), "--dir", "out", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    files = list((cli.cwd / "out").iterdir())
    assert len(files) == 1 and files[0].suffix == ".png"
    assert result.stdout == f"Saved out/{files[0].name} (301 bytes, image/png)\n"
    assert files[0].read_bytes() == (Path(__file__).parents[1] / "pages/cli/pic.png").read_bytes()


def test_download_by_selector_and_to_the_default_dir(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run(
        "download", server.url("/cli/index.html"), "--selector", "#pic", "--filename", "picture.png",
        "--connect", endpoint,
    )
    assert result.returncode == 0, result.stderr
    saved = Path(cli.env["XDG_DOWNLOAD_DIR"]) / "picture.png"
    assert result.stdout.startswith(f"Saved {saved} (301 bytes")
    assert saved.exists()


def test_download_from_a_page_carries_its_referer(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    def guarded(handler: Handler) -> None:
        if (handler.headers.get("Referer") or "").startswith(server.url("/cli/index.html")):
            handler.reply(200, b"%PDF-1.4 guarded", "application/pdf")
        else:
            handler.reply(403, "no hotlinking", "text/plain")

    server.route("/cli/guarded.pdf", guarded)
    url = server.url("/cli/guarded.pdf")
    alone = cli.run("download", url, "--dir", "out", "--connect", endpoint)
    assert alone.returncode == 1
    assert_one_line_error(alone.stderr, "Resource fetch failed: 403")

    from_page = cli.run(
        "download", url, "--page", server.url("/cli/index.html"), "--dir", "out", "--connect", endpoint
    )
    assert from_page.returncode == 0, from_page.stderr
    assert from_page.stdout == "Saved out/guarded.pdf (16 bytes, application/pdf)\n"  # the URL's name


def test_download_max_time(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    import time

    def slow(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", "2000000")
        handler.end_headers()
        for _ in range(20):
            handler.wfile.write(b"\0" * 100_000)
            time.sleep(0.2)

    server.route("/cli/slow.bin", slow)
    result = cli.run("download", server.url("/cli/slow.bin"), "--dir", "out", "--max-time", "1", "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "timed out after 1 s")
    assert list((cli.cwd / "out").iterdir()) == []  # no partial file is left


def test_download_failure(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run("download", server.url("/status?code=404"), "--dir", "out", "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "Resource fetch failed: 404")
    assert not (cli.cwd / "out").exists() or list((cli.cwd / "out").iterdir()) == []


# -- failures ------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["not a url", "http://", "http://exa mple.com/", "http://x:99999/", "mailto:a@b"])
def test_bad_url(cli: CLI, url: str) -> None:
    result = cli.run("screenshot", url)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, "Invalid URL")
    assert not (cli.cwd / "screenshot.png").exists()


def test_navigation_error(cli: CLI, endpoint: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    result = cli.run("snapshot", url, "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "Navigation failed: net::ERR_CONNECTION_REFUSED", url)
    assert result.stdout == ""


def test_no_chrome(cli: CLI, server: FixtureServer) -> None:
    for command in (["screenshot", server.url("/cli/index.html")], ["repl"], ["doctor"], ["launch"]):
        result = cli.run(*command, env={"CDPKIT_CHROME": "/nonexistent/chrome"})
        assert result.returncode == 1, (command, result.stderr)
        assert_one_line_error(result.stderr, "Chrome not found at /nonexistent/chrome")


def test_debug_shows_the_traceback(cli: CLI, server: FixtureServer) -> None:
    result = cli.run("snapshot", server.url("/cli/index.html"), "--debug", env={"CDPKIT_CHROME": "/nonexistent"})
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "cdpkit.errors.LaunchError: Chrome not found at /nonexistent" in result.stderr


def test_connect_failures(cli: CLI, server: FixtureServer) -> None:
    refused = cli.run("snapshot", server.url("/cli/index.html"), "--connect", f"http://127.0.0.1:{closed_port()}")
    assert refused.returncode == 1
    assert_one_line_error(refused.stderr, "Could not reach", "/json/version")

    mixed = cli.run("snapshot", server.url("/cli/index.html"), "--connect", "http://127.0.0.1:9", "--headful")
    assert mixed.returncode == 2
    assert_one_line_error(mixed.stderr, "--headful only apply to a launched browser")


def test_http_error_status_is_reported_but_not_a_failure(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    result = cli.run("eval", server.url("/status?code=404"), "document.title", "--connect", endpoint)
    assert result.returncode == 0
    assert result.stdout == "status 404\n"
    assert result.stderr == "note: the page answered HTTP 404\n"


def test_help_and_version(cli: CLI) -> None:
    result = cli.run("--help")
    assert result.returncode == 0
    for command in ("repl", "screenshot", "pdf", "snapshot", "scrape", "download", "eval", "protocol",
                    "gen", "launch", "open-browser", "doctor"):
        assert f"\n  {command} " in result.stdout
    version = cli.run("--version")
    assert version.returncode == 0 and version.stdout.startswith("cdpkit ")


def test_download_shows_progress_for_a_large_file(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    import time

    import pexpect  # type: ignore[import-untyped]

    size = 24 * 1024 * 1024

    def big(handler: Handler) -> None:  # 24 MB in about two seconds
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(size))
        handler.end_headers()
        chunk = b"\0" * (1024 * 1024)
        for _ in range(size // len(chunk)):
            handler.wfile.write(chunk)
            time.sleep(0.08)

    server.route("/cli/big.bin", big)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cdpkit", "download", server.url("/cli/big.bin"), "--dir", "out", "--connect", endpoint],
        env={**cli.env, "TERM": "xterm"},
        cwd=str(cli.cwd),
        encoding="utf-8",
        timeout=60,
        dimensions=(24, 120),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    # A bar with the total from Content-Length, redrawn as the file grows, then removed.
    progress = re.findall(r"Downloading .*? (\d+\.\d)/25\.2 MB", screen)
    assert len(progress) >= 2 and progress[0] != progress[-1], screen
    assert "Saved out/big.bin (25.2 MB, application/octet-stream)" in screen
    assert [p.stat().st_size for p in (cli.cwd / "out").iterdir()] == [size]


def test_import_cdpkit_does_not_load_the_command_line(cli: CLI) -> None:
    code = "import sys, cdpkit, cdpkit.tools; print(sorted(m for m in ('typer', 'rich', 'cdpkit.cli', 'cdpkit.repl') if m in sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli.env, timeout=60
    )
    assert completed.stdout == "[]\n", completed.stderr
