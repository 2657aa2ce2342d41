"""The commands on a page whose parser-blocking scripts never arrive (issue 46).

``cdpkit download --page``: with ``--script-timeout`` the page is given up on its scripts
and the download happens within seconds; without it, the command waits on the stalled
script until its ``--timeout``. ``screenshot``, ``pdf``, ``eval`` and ``scrape`` take the
flag too, and ``[browser] script_timeout`` and ``$CDPKIT_SCRIPT_TIMEOUT`` set it. Without
it, a command whose page load times out says which script the parser waits on (one
written by ``document.write`` too) and names the flag.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.server import DOWNLOADS, FixtureServer
from tests.stalled_pages import StallServer, stall_server


@pytest.fixture(scope="module")
def module_stalls() -> Iterator[StallServer]:
    """One stall server for the cheap tests of this module."""
    with stall_server() as server:
        yield server


def test_download_from_a_stalled_page_with_script_timeout(
    cli: CLI, server: FixtureServer, endpoint: str, stalls: StallServer
) -> None:
    body = DOWNLOADS["/dl/report.pdf"][0]
    page = stalls.url(60)  # its two head scripts answer after 60 s
    started = time.monotonic()
    given = cli.run("download", server.url("/dl/report.pdf"), "--page", page, "--script-timeout", "1",
                    "--dir", "d", "--connect", endpoint, "--timeout", "40")  # fmt: skip
    elapsed = time.monotonic() - started
    assert given.returncode == 0, given.stderr
    assert given.stdout.startswith("Saved d/report.pdf (")
    assert (cli.cwd / "d" / "report.pdf").read_bytes() == body
    assert f"gave up the script {stalls.script(1, 60)}" in given.stderr
    assert elapsed < 30, elapsed  # not the 40 s of --timeout, let alone the scripts' 60
    # Without the flag the page's load waits on the scripts: --timeout ends it, no file.
    waited = cli.run("download", server.url("/dl/report.pdf"), "--page", page, "--dir", "w",
                     "--connect", endpoint, "--timeout", "4")  # fmt: skip
    assert waited.returncode != 0
    assert not (cli.cwd / "w").exists() or not any((cli.cwd / "w").iterdir())


@pytest.mark.parametrize(
    ("command", "kind"), [("snapshot", "stalled"), ("snapshot", "written"), ("scrape", "written")]
)
def test_a_load_that_times_out_names_the_script_the_parser_waits_on_and_the_flag(
    cli: CLI, endpoint: str, module_stalls: StallServer, command: str, kind: str
) -> None:
    page = module_stalls.url(60, kind)  # "written": its script comes from document.write
    timed_out = cli.run(command, page, "--connect", endpoint, "--timeout", "4")
    assert timed_out.returncode == 1, timed_out.stderr
    error = timed_out.stderr.strip()
    assert error.startswith(f"error: Timed out after 4 s waiting for the navigation to {page}"), error
    assert f"; the parser waits on <script src={module_stalls.script(1, 60)}> for " in error
    assert error.endswith("; --script-timeout SECONDS gives such scripts up"), error
    assert "script_timeout" not in error  # the library's word: the CLI names its flag


# Each case: the command, its arguments after the URL, and what shows the page rendered
# (scrape with its smart wait, and with a fixed --wait).
_COMMANDS = {
    "screenshot": ("screenshot", ["-o", "s.png", "--wait", "0"], "s.png"),
    "pdf": ("pdf", ["-o", "s.pdf", "--wait", "0"], "s.pdf"),
    "eval": ("eval", ["document.querySelector('h1').textContent", "--wait", "0"], "Stalled story"),
    "scrape": ("scrape", ["--format", "text"], "Stalled story"),
    "scrape-wait": ("scrape", ["--format", "text", "--wait", "500"], "Stalled story"),
}


@pytest.mark.parametrize("case", list(_COMMANDS))
def test_commands_take_script_timeout(cli: CLI, endpoint: str, module_stalls: StallServer, case: str) -> None:
    command, arguments, shown = _COMMANDS[case]
    started = time.monotonic()
    given = cli.run(command, module_stalls.url(60), *arguments, "--script-timeout", "1",
                    "--connect", endpoint, "--timeout", "20")  # fmt: skip
    assert given.returncode == 0, given.stderr
    assert time.monotonic() - started < 18  # not --timeout, let alone the script's 60 s
    if shown.endswith((".png", ".pdf")):
        assert (cli.cwd / shown).stat().st_size > 0
    else:
        assert shown in given.stdout
    if command != "scrape":  # scrape's wait gives up the script without a note
        assert f"gave up the script {module_stalls.script(1, 60)}" in given.stderr


@pytest.mark.parametrize("source", ["config", "environment"])
def test_script_timeout_from_the_config_file_or_the_environment(
    cli: CLI, endpoint: str, module_stalls: StallServer, tmp_path: Path, source: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[browser]\nscript_timeout = 1\n" if source == "config" else "")
    env = {"CDPKIT_CONFIG": str(config)}
    if source == "environment":
        env["CDPKIT_SCRIPT_TIMEOUT"] = "1"
    given = cli.run("eval", module_stalls.url(60), "document.querySelector('h1').textContent", "--wait", "0",
                    "--connect", endpoint, "--timeout", "20", env=env)  # fmt: skip
    assert given.returncode == 0, given.stderr
    assert given.stdout.strip() == "Stalled story"
    assert f"gave up the script {module_stalls.script(1, 60)}" in given.stderr
