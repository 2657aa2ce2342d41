"""``cdpkit browse URL`` as a user runs it: a subprocess, content on stdout, ``--json``,
and failures as one line with the error's code and what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.server import FixtureServer, closed_port


def _run(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CDPKIT_CONFIG": str(home / "config.toml"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "HOME": str(home),
    }
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=home,
    )  # fmt: skip


def test_a_static_page_prints_its_content(browse_server: FixtureServer, tmp_path: Path) -> None:
    done = _run(browse_server.url("/browse/article.html"), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "A static article" in done.stdout
    assert "HTTP client alone can read it" in done.stdout
    assert done.stderr == ""


def test_json_prints_the_whole_result(browse_server: FixtureServer, tmp_path: Path) -> None:
    done = _run(browse_server.url("/browse/app.html"), "--json", "--max-tier", "1", "--format", "text",
                home=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["url"] == browse_server.url("/browse/app.html")
    assert (data["tier_used"], data["format"], data["status"]) == (1, "text", 200)
    assert "max_tier=1" in data["escalations"][0]
    assert set(data["timing"]) == {"fetch_ms", "extract_ms", "total_ms"}
    assert {"title", "content", "links", "forms", "media", "metadata", "truncated", "truncation"} <= data.keys()


def test_an_error_is_one_line_with_its_code_and_exit_1(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/page"
    done = _run(url, home=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and url in line
    assert "[network.refused]" in line and "is the server running" in line


def test_a_404_exits_1_naming_the_status(browse_server: FixtureServer, tmp_path: Path) -> None:
    done = _run(browse_server.url("/status?code=404"), home=tmp_path)
    assert done.returncode == 1
    assert "[http.404]" in done.stderr and "check the URL" in done.stderr


def test_a_named_session_keeps_its_cookies_across_runs(browse_server: FixtureServer, tmp_path: Path) -> None:
    assert _run(browse_server.url("/browse/set-cookie"), "--session", "me", home=tmp_path).returncode == 0
    again = _run(browse_server.url("/browse/echo-cookie"), "--session", "me", "--format", "text", home=tmp_path)
    other = _run(browse_server.url("/browse/echo-cookie"), "--format", "text", home=tmp_path)
    assert "visit=header-cookie" in again.stdout
    assert "visit=header-cookie" not in other.stdout


def test_a_wrong_config_file_is_named_with_exit_2(browse_server: FixtureServer, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[output]\nformat = 'pdf'\n")
    done = _run(browse_server.url("/browse/article.html"), home=tmp_path)
    assert done.returncode == 2
    assert str(tmp_path / "config.toml") in done.stderr and "[output] format" in done.stderr
