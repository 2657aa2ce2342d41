"""The cdpkit pytest plugin: ``browser``, ``context`` and ``page`` fixtures for testing web
apps, registered through the ``pytest11`` entry point (installed with the package; no
conftest needed)::

    from cdpkit import Page, tools

    async def test_title(page: Page) -> None:
        await tools.navigate(page, "http://127.0.0.1:8000/")
        assert "Welcome" in await tools.visible_text(page)

Chrome starts once per test session (or ``--cdpkit-connect`` attaches to a running one).
Each test gets a :class:`~cdpkit.Browser` connected to it on the test's own event loop, so
the fixtures work whatever loop scope pytest-asyncio (auto mode) or anyio gives a test; then
an isolated :class:`~cdpkit.BrowserContext` (``context``: its own cookies and storage) and a
fresh :class:`~cdpkit.Page` in it (``page``).

When a test that used ``page`` fails, a full-page screenshot, the accessibility snapshot
and the console log are saved under ``--cdpkit-artifacts`` (default
``test-results/cdpkit``), and their paths are printed with the failure.

Test suites that are not async use the blocking twins (:mod:`cdpkit.sync`) instead:
``sync_browser``, ``sync_context`` and ``sync_page``, the same fixtures on the same Chrome::

    from cdpkit import sync

    def test_title(sync_page: sync.Page) -> None:
        sync.tools.navigate(sync_page, "http://127.0.0.1:8000/")
        assert "Welcome" in sync.tools.visible_text(sync_page)

Options: ``--headful``, ``--cdpkit-connect ENDPOINT``, ``--cdpkit-chrome PATH``,
``--cdpkit-storage-state PATH`` (cookies and storage, Playwright's ``storage_state``
format, loaded into every ``context``), ``--cdpkit-artifacts DIR``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._browser.starting import connect, launch
from .browser import Browser, BrowserContext
from .page import Page

if TYPE_CHECKING:
    from . import sync

__all__ = ["browser", "context", "page", "sync_browser", "sync_context", "sync_page"]

_ARTIFACTS_DEFAULT = "test-results/cdpkit"
_CALL_REPORT = pytest.StashKey[pytest.TestReport]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cdpkit", "cdpkit browser fixtures")
    group.addoption(
        "--headful",
        action="store_true",
        default=False,
        help="cdpkit: show the browser window (needs a display); headless by default.",
    )
    group.addoption(
        "--cdpkit-connect",
        metavar="ENDPOINT",
        default=None,
        help="cdpkit: attach to this running browser (http://host:port or ws://...) instead "
        "of launching one.",
    )
    group.addoption(
        "--cdpkit-chrome",
        metavar="PATH",
        default=None,
        help="cdpkit: the Chrome or Chromium executable to launch (found automatically otherwise).",
    )
    group.addoption(
        "--cdpkit-storage-state",
        metavar="PATH",
        default=None,
        help="cdpkit: load cookies and storage from this storage_state JSON file into every context.",
    )
    group.addoption(
        "--cdpkit-artifacts",
        metavar="DIR",
        default=_ARTIFACTS_DEFAULT,
        help="cdpkit: where a failing test's screenshot, snapshot and console log are saved "
        f"(default: {_ARTIFACTS_DEFAULT}).",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    # The page fixture's teardown reads the call phase's outcome to decide on artifacts.
    report = yield
    if report.when == "call":
        item.stash[_CALL_REPORT] = report
    return report


class _LaunchedChrome:
    """A Chrome launched for the whole test session, owned by a thread with its own event
    loop, so every test's loop can connect to it. Its owner-death watchdog still kills it
    if pytest itself is killed."""

    def __init__(self, *, headless: bool, executable_path: str | None) -> None:
        self._options: dict[str, Any] = {"headless": headless, "executable_path": executable_path}
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.endpoint: str | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cdpkit-chrome", daemon=True)

    def start(self) -> str:
        self._thread.start()
        self._ready.wait()
        if self.error is not None:
            raise self.error
        assert self.endpoint is not None
        return self.endpoint

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=15)

    def _run(self) -> None:
        asyncio.run(self._own())

    async def _own(self) -> None:
        try:
            async with launch(**self._options) as browser:
                self.endpoint = _endpoint_of(browser)
                self._loop = asyncio.get_running_loop()
                self._stop = asyncio.Event()
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:  # handed to the main thread by start()
            self.error = error
        finally:
            self._ready.set()


def _endpoint_of(browser: Browser) -> str:
    process = browser.process
    assert process is not None
    port = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()[0].strip()
    return f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def cdpkit_endpoint(pytestconfig: pytest.Config) -> Iterator[str]:
    """The DevTools endpoint every test's ``browser`` connects to: ``--cdpkit-connect``, or
    a Chrome launched once for the session (and shut down at its end)."""
    given = pytestconfig.getoption("--cdpkit-connect")
    if given:
        yield str(given)
        return
    chrome = _LaunchedChrome(
        headless=not pytestconfig.getoption("--headful"),
        executable_path=pytestconfig.getoption("--cdpkit-chrome"),
    )
    try:
        yield chrome.start()
    finally:
        chrome.stop()


@pytest.fixture
async def browser(cdpkit_endpoint: str) -> AsyncIterator[Browser]:
    """The session's browser, connected on this test's event loop. Closing it at the end of
    the test closes the pages and contexts the test made, never the browser itself."""
    connected = await connect(cdpkit_endpoint)
    try:
        yield connected
    finally:
        await connected.close()


@pytest.fixture
async def context(browser: Browser, pytestconfig: pytest.Config) -> AsyncIterator[BrowserContext]:
    """An isolated browser context for this test (its own cookies, storage and cache),
    loaded from ``--cdpkit-storage-state`` when given; discarded after the test."""
    created = await browser.new_context()
    try:
        state = pytestconfig.getoption("--cdpkit-storage-state")
        if state:
            from .tools import load_storage_state

            await load_storage_state(created, Path(state))
        yield created
    finally:
        await created.close()


@pytest.fixture
async def page(
    context: BrowserContext, request: pytest.FixtureRequest, pytestconfig: pytest.Config
) -> AsyncIterator[Page]:
    """A fresh page in this test's ``context``. If the test fails, its screenshot, snapshot
    and console log are saved under ``--cdpkit-artifacts`` and named in the report."""
    created = await context.new_page()
    try:
        yield created
    finally:
        report = request.node.stash.get(_CALL_REPORT, None)
        if report is not None and report.failed and not created.closed:
            folder = Path(pytestconfig.getoption("--cdpkit-artifacts")) / _folder_name(
                request.node.nodeid
            )
            saved = await _save_artifacts(created, folder)
            report.sections.append(("cdpkit artifacts", "\n".join(str(path) for path in saved)))


@pytest.fixture
def sync_browser(cdpkit_endpoint: str) -> Iterator[sync.Browser]:
    """``browser`` for tests that are not async: a :class:`cdpkit.sync.Browser` connected
    to the session's Chrome, closed (never the Chrome itself) after the test."""
    from . import sync

    connected = sync.connect(cdpkit_endpoint)
    try:
        yield connected
    finally:
        connected.close()


@pytest.fixture
def sync_context(
    sync_browser: sync.Browser, pytestconfig: pytest.Config
) -> Iterator[sync.BrowserContext]:
    """``context`` for tests that are not async (a :class:`cdpkit.sync.BrowserContext`)."""
    from . import sync

    created = sync_browser.new_context()
    try:
        state = pytestconfig.getoption("--cdpkit-storage-state")
        if state:
            sync.tools.load_storage_state(created, Path(state))
        yield created
    finally:
        created.close()


@pytest.fixture
def sync_page(
    sync_context: sync.BrowserContext, request: pytest.FixtureRequest, pytestconfig: pytest.Config
) -> Iterator[sync.Page]:
    """``page`` for tests that are not async (a :class:`cdpkit.sync.Page`); a failing test's
    artifacts are saved as for ``page``."""
    from .sync import run, unwrap

    created = sync_context.new_page()
    try:
        yield created
    finally:
        report = request.node.stash.get(_CALL_REPORT, None)
        if report is not None and report.failed and not created.closed:
            folder = Path(pytestconfig.getoption("--cdpkit-artifacts")) / _folder_name(
                request.node.nodeid
            )
            saved = run(_save_artifacts(unwrap(created), folder))
            report.sections.append(("cdpkit artifacts", "\n".join(str(path) for path in saved)))


def _folder_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", nodeid).strip("-")[:200] or "test"


@dataclass
class _Artifact:
    name: str
    data: bytes


async def _save_artifacts(page: Page, folder: Path) -> list[Path]:
    """Save what a person debugging the failure looks at first; each part is best effort
    (a crashed page still gives its console log)."""
    from . import tools
    from .errors import CDPError

    artifacts: list[_Artifact] = []
    # A dialog left open stops the page: no screenshot or snapshot would come; it is named
    # in the console log instead.
    dialog = page.open_dialog
    if dialog is None:
        with contextlib.suppress(CDPError, TimeoutError):
            async with asyncio.timeout(15):
                artifacts.append(
                    _Artifact("screenshot.png", await tools.screenshot(page, full_page=True))
                )
        with contextlib.suppress(CDPError, TimeoutError, RuntimeError):
            async with asyncio.timeout(15):
                snapshot = await tools.snapshot(page)
                artifacts.append(_Artifact("snapshot.txt", snapshot.text.encode()))
    with contextlib.suppress(CDPError):
        lines = [
            f"[{m.level}] {m.text}" + (f" ({m.url}:{m.line})" if m.url else "")
            for m in await tools.console_logs(page)
        ]
        if dialog is not None:
            lines.append(f"[dialog] a {dialog.type} dialog was open: {dialog.message!r}")
        artifacts.append(_Artifact("console.log", ("\n".join(lines) + "\n").encode()))
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for artifact in artifacts:
        path = (folder / artifact.name).resolve()
        path.write_bytes(artifact.data)
        saved.append(path)
    return saved
