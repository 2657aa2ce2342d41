"""The Selenium Grid fixtures, one grid of each kind per test session.

Registered by tests/conftest.py, not by tests/grid/conftest.py: a session fixture defined
(or imported) in two places is two fixtures, and the second started a second grid.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.grid.conftest import GridProcesses, _require_components, _wait_ready
from tests.server import free_port


@pytest.fixture(scope="session")
def standalone_grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone grid with two Chrome slots; its URL."""
    _require_components()
    port = free_port()
    grid = GridProcesses(tmp_path_factory.mktemp("grid-standalone"))
    grid.start(
        "standalone", "standalone", "--host", "127.0.0.1", "--port", str(port),
        "--max-sessions", "2", "--selenium-manager", "false",
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, grid, 1)
        yield url
    finally:
        grid.stop()


@pytest.fixture(scope="session")
def hub_and_two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A hub with two nodes of one Chrome slot each; the hub's URL."""
    _require_components()
    port, publish, subscribe = free_port(), free_port(), free_port()
    grid = GridProcesses(tmp_path_factory.mktemp("grid-hub"))
    grid.start(
        "hub", "hub", "--host", "127.0.0.1", "--port", str(port),
        "--publish-events", f"tcp://127.0.0.1:{publish}",
        "--subscribe-events", f"tcp://127.0.0.1:{subscribe}",
    )
    for n in (1, 2):
        grid.start(
            f"node{n}", "node", "--host", "127.0.0.1", "--port", str(free_port()),
            "--publish-events", f"tcp://127.0.0.1:{publish}",
            "--subscribe-events", f"tcp://127.0.0.1:{subscribe}",
            "--max-sessions", "1", "--selenium-manager", "false",
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, grid, 2)
        yield url
    finally:
        grid.stop()
