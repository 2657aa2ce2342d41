"""Shared fixtures: one headless Chromium per test session, a fresh isolated context and
page per test, and the fixture pages served on two 127.0.0.1 ports."""

from __future__ import annotations

import shutil
import signal
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import cdpkit
from cdpkit._core import secrets as _secrets
from tests import _head_start
from tests.grid._fixtures import hub_and_two_nodes, standalone_grid
from tests.server import FixtureServer, start_server
from tests.stalled_pages import StallServer, stall_server

# Signals ignored by whatever started the suite (a background job, nohup) stay ignored in
# every process it spawns, and the tests that interrupt or hang up a cdpkit process would
# then test nothing: give the suite, and so its children, the default dispositions.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

# The grids, defined once for every directory (one of each per session).
__all__ = ["hub_and_two_nodes", "standalone_grid"]


# Run in parallel (pytest-xdist, `-n N --dist loadfile`, the README's command), each test
# module stays on one worker, so that its module-scoped browser or server starts once; the
# modules that use the Selenium grids share one worker, so that each grid starts once.
_GRID_MODULES = {
    "tests/grid/test_browse_grid.py",
    "tests/grid/test_grid.py",
    "tests/grid/test_grid_programs.py",
    "tests/runtime/test_pool_sizing.py",
}
_HEAD_START_FOLDER = "cdpkit_head_start"  # the key of the workers' shared folder in workerinput


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, but with the grid modules as one unit (xdist_group marks cannot
    do it: ``--dist loadgroup`` renames node ids, which pytest 9.2 no longer lets it)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "grid" if module in _GRID_MODULES else module

    return ModuleScheduling(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """The xdist controller, for each worker: the folder they share the head starts in."""
    config = node.config
    folder = getattr(config, "_cdpkit_head_start", None)
    if folder is None:
        folder = config._cdpkit_head_start = tempfile.mkdtemp(prefix="cdpkit-test-head-starts-")
    node.workerinput[_HEAD_START_FOLDER] = folder


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is not None and _HEAD_START_FOLDER in worker:
        _head_start.share_between_workers(
            Path(worker[_HEAD_START_FOLDER]), leader=worker["workerid"] == "gw0"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow, mostly waiting setups the selected tests need (tests/_head_start.py)."""
    if not session.config.option.collectonly:
        _head_start.start_wanted(session.items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop)
    _head_start.stop_all(others_may_wait=not interrupted)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "_cdpkit_head_start", None)
    if folder is not None:  # the xdist controller, after every worker ended
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _forget_remembered_secrets() -> Iterator[None]:
    """A proxy password a test gave stays masked for the rest of the process (as it should
    in a program): forgotten after the test, so that "p" in one test does not turn every
    "p" of another test's messages into "***"."""
    remembered = _secrets._secrets
    yield
    _secrets._secrets = remembered


@pytest.fixture(scope="session")
def server() -> Iterator[FixtureServer]:
    srv = start_server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def other_server() -> Iterator[FixtureServer]:
    """A second origin (another port) for cross-origin tests."""
    srv = start_server()
    yield srv
    srv.stop()


@pytest.fixture
def stalls() -> Iterator[StallServer]:
    """A server of pages whose parser-blocking scripts answer late (tests/stalled_pages.py)."""
    with stall_server() as server:
        yield server


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[cdpkit.Browser]:
    async with cdpkit.launch() as b:
        yield b


@pytest.fixture
async def context(browser: cdpkit.Browser) -> AsyncIterator[cdpkit.BrowserContext]:
    async with await browser.new_context() as ctx:
        yield ctx


@pytest.fixture
async def page(context: cdpkit.BrowserContext) -> AsyncIterator[cdpkit.Page]:
    yield await context.new_page()
