"""The pytest plugin as a user meets it: a test project in a temp dir, run by pytest in a
subprocess, with the plugin loaded from the installed package's entry point (no conftest)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import cdpkit
from cdpkit.pytest_plugin import _save_artifacts
from tests.server import FixtureServer

TESTS = """\
from cdpkit import Page, tools

async def test_passes(page: Page) -> None:
    result = await tools.navigate(page, "{url}")
    assert result.title == "plugin page"

async def test_fails(page: Page) -> None:
    await tools.navigate(page, "{url}")
    await tools.evaluate(page, "console.error('boom from the page')")
    assert await tools.evaluate(page, "document.title") == "something else"
"""


def _project(tmp_path: Path, ini: str, tests: str, conftest: str = "") -> Path:
    (tmp_path / "pytest.ini").write_text(textwrap.dedent(ini))
    (tmp_path / "test_site.py").write_text(tests)
    if conftest:
        (tmp_path / "conftest.py").write_text(conftest)
    return tmp_path


def _pytest(project: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.fixture
def site(server: FixtureServer) -> str:
    server.route("/plugin", lambda h: h.reply(200, "<title>plugin page</title><h1>Hello</h1><button>Go</button>"))
    return server.url("/plugin")


def _check_failure_artifacts(project: Path, out: str) -> None:
    folder = project / "test-results" / "cdpkit" / "test_site.py-test_fails"
    assert (folder / "screenshot.png").read_bytes().startswith(b"\x89PNG")
    assert 'button "Go"' in (folder / "snapshot.txt").read_text()
    assert "boom from the page" in (folder / "console.log").read_text()
    assert "cdpkit artifacts" in out
    for name in ("screenshot.png", "snapshot.txt", "console.log"):
        assert str(folder / name) in out, out
    # The passing test left nothing.
    assert not (project / "test-results" / "cdpkit" / "test_site.py-test_passes").exists()


def test_with_pytest_asyncio_in_auto_mode_one_passes_one_fails_with_artifacts(
    tmp_path: Path, site: str
) -> None:
    project = _project(tmp_path, "[pytest]\nasyncio_mode = auto\n", TESTS.format(url=site))
    run = _pytest(project, "-p", "no:anyio")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    _check_failure_artifacts(project, out)


def test_with_anyio(tmp_path: Path, site: str) -> None:
    tests = "import pytest\npytestmark = pytest.mark.anyio\n" + TESTS.format(url=site)
    conftest = "import pytest\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
    project = _project(tmp_path, "[pytest]\n", tests, conftest)
    run = _pytest(project, "-p", "no:asyncio")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    _check_failure_artifacts(project, out)


async def test_artifacts_of_a_page_stopped_at_a_dialog(page: cdpkit.Page, tmp_path: Path) -> None:
    """A page stopped at alert() gives no screenshot or snapshot: the plugin does not wait
    for them (15 s each) and names the dialog in the console log."""
    page.dialog_policy = lambda dialog: None  # leave dialogs open
    await cdpkit.tools.evaluate(page, "console.error('boom from the page')")
    await cdpkit.tools.evaluate(page, "setTimeout(() => alert('Still open'), 0)")
    for _ in range(100):
        if page.open_dialog is not None:
            break
        await asyncio.sleep(0.05)
    async with asyncio.timeout(5):
        saved = await _save_artifacts(page, tmp_path / "artifacts")
    assert [path.name for path in saved] == ["console.log"]
    console = saved[0].read_text()
    assert "boom from the page" in console
    assert "[dialog] a alert dialog was open: 'Still open'" in console
    await cdpkit.tools.handle_dialog(page)


SYNC_TESTS = """\
import cdpkit.sync as sync

def test_passes(sync_context: sync.BrowserContext, sync_page: sync.Page) -> None:
    assert sync_page.context is sync_context
    assert sync.tools.navigate(sync_page, "{cookie_url}").title == "who=me"
    assert sync.tools.evaluate(sync_page, "localStorage.getItem('k')") == "v"

def test_fails(sync_page: sync.Page) -> None:
    sync.tools.navigate(sync_page, "{url}")
    sync.tools.evaluate(sync_page, "console.error('boom from the page')")
    assert sync.tools.evaluate(sync_page, "document.title") == "something else"
"""


def _storage_state(folder: Path, server: FixtureServer) -> Path:
    state = folder / "state.json"
    state.write_text(
        json.dumps(
            {
                "cookies": [{"name": "who", "value": "me", "domain": "127.0.0.1", "path": "/"}],
                "origins": [{"origin": server.origin, "localStorage": [{"name": "k", "value": "v"}]}],
            }
        )
    )
    return state


def _cookie_page(server: FixtureServer) -> str:
    server.route("/plugin/cookie", lambda h: h.reply(200, f"<title>{h.headers.get('Cookie', '')}</title>"))
    return server.url("/plugin/cookie")


def test_sync_fixtures_load_the_storage_state_and_save_a_failed_tests_artifacts(
    tmp_path: Path, site: str, server: FixtureServer
) -> None:
    # Not async: no asyncio or anyio plugin; sync_context loads --cdpkit-storage-state and
    # sync_page saves the failed test's screenshot, snapshot and console log.
    tests = SYNC_TESTS.format(url=site, cookie_url=_cookie_page(server))
    project = _project(tmp_path, "[pytest]\n", tests)
    state = _storage_state(tmp_path, server)
    run = _pytest(
        project, "-p", "no:asyncio", "-p", "no:anyio", "--cdpkit-storage-state", str(state)
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "PASSED test_site.py::test_passes" in out, out  # with the storage state loaded
    _check_failure_artifacts(project, out)


FAKE_CHROME = """#!/bin/sh
echo "$@" >> {record}
echo "this is not chrome" >&2
exit 3
"""


@pytest.mark.parametrize("headful", [False, True])
def test_headful_and_the_chrome_path_reach_the_launch(tmp_path: Path, headful: bool) -> None:
    record = tmp_path / "args.txt"
    fake = tmp_path / "fake-chrome"
    fake.write_text(FAKE_CHROME.format(record=record))
    fake.chmod(0o755)
    project = _project(
        tmp_path, "[pytest]\nasyncio_mode = auto\n", "async def test_one(page):\n    pass\n"
    )
    run = _pytest(project, "-p", "no:anyio", "--cdpkit-chrome", str(fake), *(["--headful"] if headful else []))
    out = run.stdout + run.stderr
    assert run.returncode == 1, out  # the error in setup: the fake Chrome exits
    assert "this is not chrome" in out or "exited" in out, out
    args = record.read_text()
    assert ("--headless" in args) is not headful, args


async def test_connect_and_storage_state_options(tmp_path: Path, server: FixtureServer) -> None:
    cookie_url = _cookie_page(server)
    state = _storage_state(tmp_path, server)
    tests = f"""\
from cdpkit import tools

async def test_runs_in_the_given_browser_with_the_state(browser, page):
    assert browser.process is None  # attached, not launched
    assert (await tools.navigate(page, "{cookie_url}")).title == "who=me"
    assert await tools.evaluate(page, "localStorage.getItem('k')") == "v"
"""
    project = _project(tmp_path, "[pytest]\nasyncio_mode = auto\n", tests)
    async with cdpkit.launch() as running:
        port = (running.process.user_data_dir / "DevToolsActivePort").read_text().split()[0]  # type: ignore[union-attr]
        endpoint = f"http://127.0.0.1:{port}"
        before = {t.target_id for t in running.pages}
        run = await _run_in_thread(
            project, "-p", "no:anyio", "--cdpkit-connect", endpoint, "--cdpkit-storage-state", str(state)
        )
        out = run.stdout + run.stderr
        assert run.returncode == 0, out
        assert "1 passed" in out
        # The test's context and page were closed; the browser still runs.
        assert {t.target_id for t in running.pages if not t.closed} <= before
        assert not running.closed if hasattr(running, "closed") else True


async def _run_in_thread(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import anyio

    return await anyio.to_thread.run_sync(lambda: _pytest(project, *args))
