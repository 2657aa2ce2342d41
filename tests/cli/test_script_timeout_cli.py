"""``cdpkit download --page`` on a page whose parser-blocking scripts never arrive (issue
46): with ``--script-timeout`` the page is given up on its scripts and the download
happens within seconds; without it, the command waits on the stalled script until its
``--timeout``."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.cli.conftest import CLI
from tests.server import DOWNLOADS, FixtureServer
from tests.stalled_pages import StallServer, stall_server


@pytest.fixture
def stalls() -> Iterator[StallServer]:
    with stall_server() as server:
        yield server


def test_download_from_a_stalled_page_with_script_timeout(
    cli: CLI, server: FixtureServer, endpoint: str, stalls: StallServer
) -> None:
    body = DOWNLOADS["/dl/report.pdf"][0]
    page = stalls.url(60)  # its two head scripts answer after 60 s
    started = time.monotonic()
    given = cli.run("download", server.url("/dl/report.pdf"), "--page", page, "--script-timeout", "1",
                    "--dir", "d", "--connect", endpoint, "--timeout", "15")  # fmt: skip
    elapsed = time.monotonic() - started
    assert given.returncode == 0, given.stderr
    assert given.stdout.startswith("Saved d/report.pdf (")
    assert (cli.cwd / "d" / "report.pdf").read_bytes() == body
    assert f"gave up the script {stalls.script(1, 60)}" in given.stderr
    assert elapsed < 12, elapsed  # not the 15 s of --timeout, let alone the scripts' 60
    # Without the flag the page's load waits on the scripts: --timeout ends it, no file.
    waited = cli.run("download", server.url("/dl/report.pdf"), "--page", page, "--dir", "w",
                     "--connect", endpoint, "--timeout", "4")  # fmt: skip
    assert waited.returncode != 0
    assert not (cli.cwd / "w").exists() or not any((cli.cwd / "w").iterdir())
