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


SIGNUP_FORM = """**Form** (POST {origin}/browse/join)
- Email address: [____] (email, required)
- Full name: [Ada Leaf]
- Your city: [____]
- Phone number: [____] (tel)
- Password: [____] (password)
- Country: ( ) France (\u2022) United Kingdom ( ) Germany
- Plan: ( ) Free (\u2022) Pro
- [x] Send me the newsletter
- [ ] I accept the terms
- About you: [I like green tea.] (textarea)
- [Create account]
- [Start over] (reset)"""


def test_a_form_shows_its_fields_labels_choices_and_buttons(browse_server: FixtureServer, tmp_path: Path) -> None:
    done = _run(browse_server.url("/browse/signup.html"), home=tmp_path)
    assert done.returncode == 0, done.stderr
    # The labels come from <label for>, a wrapping <label>, aria-label, else the placeholder;
    # the hidden token stays out; the fieldset's legend names the radio group once.
    assert SIGNUP_FORM.format(origin=browse_server.origin) in done.stdout
    assert "abc123" not in done.stdout and "Plan\n" not in done.stdout
    text = _run(browse_server.url("/browse/signup.html"), "--format", "text", home=tmp_path)
    assert "Form (POST " in text.stdout and "- [x] Send me the newsletter" in text.stdout


def test_the_title_is_not_repeated_when_the_first_heading_says_it(
    browse_server: FixtureServer, tmp_path: Path
) -> None:
    # "Create your account  -  The Kettle Journal" is said by <h1>Create   your account</h1>.
    done = _run(browse_server.url("/browse/signup.html"), home=tmp_path)
    assert done.stdout.startswith("# Create your account\n\nOne account"), done.stdout[:200]
    assert "Kettle Journal" not in done.stdout
    # A heading holding more than the title does not say it: the title stays on top.
    done = _run(browse_server.url("/browse/apple.html"), home=tmp_path)
    assert done.stdout.startswith("# Apple\n\n# Apple pie recipes\n"), done.stdout[:200]
