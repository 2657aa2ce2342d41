"""Shared fixtures: one headless Chromium per test session, a fresh isolated context and
page per test, and the fixture pages served on two 127.0.0.1 ports."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator

import pytest

import cdpkit
from cdpkit import _secrets
from tests import _head_start
from tests.grid._fixtures import hub_and_two_nodes, standalone_grid
from tests.server import FixtureServer, start_server

# Signals ignored by whatever started the suite (a background job, nohup) stay ignored in
# every process it spawns, and the tests that interrupt or hang up a cdpkit process would
# then test nothing: give the suite, and so its children, the default dispositions.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

# The grids, defined once for every directory (one of each per session).
__all__ = ["hub_and_two_nodes", "standalone_grid"]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the slow, mostly waiting setups the selected tests need (tests/_head_start.py)."""
    if not session.config.option.collectonly:
        _head_start.start_wanted(session.items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    _head_start.stop_all()


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
