"""`cdpkit download` saves the whole file under the server's or the URL's name (like
wget, never overwriting) or fails with one line, a non-zero exit and no file (issues 12
and 20)."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from cdpkit._front.cli_common import human_size
from tests.cli.conftest import CLI
from tests.cli.test_oneshot import assert_one_line_error
from tests.server import DOWNLOADS, FixtureServer


@pytest.mark.parametrize("path", sorted(DOWNLOADS))
def test_download_from_a_blank_page_saves_the_whole_file_under_its_url_name(
    cli: CLI, server: FixtureServer, endpoint: str, path: str
) -> None:
    body, content_type = DOWNLOADS[path]
    name = Path(path).name
    result = cli.run("download", server.url(path), "--dir", "d", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Saved d/{name} ({human_size(len(body))}, {content_type})\n"
    assert (cli.cwd / "d" / name).read_bytes() == body


def test_download_from_another_origin_never_overwrites(
    cli: CLI, server: FixtureServer, other_server: FixtureServer, endpoint: str
) -> None:
    body = DOWNLOADS["/dl/report.pdf"][0]
    page = other_server.url("/status?code=200")
    for expected in ("report.pdf", "report-1.pdf"):
        result = cli.run(
            "download", server.url("/dl/report.pdf"), "--page", page, "--dir", "d", "--connect", endpoint
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"Saved d/{expected} (")
        assert result.stdout.endswith(", application/pdf)\n")
    assert {p.name: p.read_bytes() for p in (cli.cwd / "d").iterdir()} == {
        "report.pdf": body,
        "report-1.pdf": body,
    }


def test_download_names_the_file_as_content_disposition_says(
    cli: CLI, server: FixtureServer, endpoint: str
) -> None:
    disposition = "attachment; filename=\"fallback.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%202026.txt"
    url = server.url("/dl/named?cd=" + urllib.parse.quote(disposition))
    result = cli.run("download", url, "--dir", "d", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Saved d/résumé 2026.txt (10 bytes, text/plain)\n"
    assert (cli.cwd / "d" / "résumé 2026.txt").read_bytes() == b"named body"


@pytest.mark.parametrize(
    ("resource", "reason"),
    [
        ("/dl/chunked?cut=1", "before the end of the body"),
        ("/dl/short", "after 307200 of the 407200 bytes the server announced"),
    ],
)
def test_download_cut_short_fails_with_one_line_and_leaves_no_file(
    cli: CLI, server: FixtureServer, endpoint: str, resource: str, reason: str
) -> None:
    url = server.url(resource)
    result = cli.run("download", url, "--dir", "d", "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, url, reason)
    assert result.stdout == ""
    assert not (cli.cwd / "d").exists() or list((cli.cwd / "d").iterdir()) == []


def test_download_help_says_how_files_are_named(cli: CLI) -> None:
    result = cli.run("download", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "named as the server says (Content-Disposition)" in text
    assert "never overwritten" in text


def test_a_dir_that_is_a_file_is_refused_before_a_browser_starts(cli: CLI) -> None:
    (cli.cwd / "taken").write_text("a file, not a directory")
    # No --connect: had a browser been launched, the URL (a silent local port) would hang.
    result = cli.run("download", "http://127.0.0.1:9/x.pdf", "--dir", "taken/sub")
    assert result.returncode == 2
    assert result.stderr == f"error: Cannot save into taken/sub: {Path('taken')} is a file, not a directory\n"
    assert (cli.cwd / "taken").read_text() == "a file, not a directory"
