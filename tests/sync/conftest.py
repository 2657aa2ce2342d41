"""Pages the sync tests serve on 127.0.0.1, and a check that Chrome is gone."""

from __future__ import annotations

import time

import pytest

from tests.core.test_launch import group_alive
from tests.server import FixtureServer

FORM = """<title>Sync form</title>
<label>Name <input id="name"></label>
<button onclick="document.querySelector('#out').textContent = 'Hello ' +
  document.querySelector('#name').value">Greet</button>
<p id="out"></p>"""


@pytest.fixture
def site(server: FixtureServer) -> FixtureServer:
    server.route("/sync/form", lambda h: h.reply(200, FORM))
    for n in range(4):
        server.route(
            f"/sync/page-{n}",
            lambda h, n=n: h.reply(200, f"<title>page {n}</title><p>Page number {n}</p>"),
        )
    return server


def gone_within(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not group_alive(pgid)
