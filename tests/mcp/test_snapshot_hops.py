"""browser_snapshot over a tab's life, through the MCP client SDK over stdio: after each of
twenty hops (across 127.0.0.1 and localhost on two ports, back/forward, reload,
pushState, about:blank, data:, document.open/write) a snapshot and a click by its index
work; an index from before a round trip fails as stale and clicks nothing; scoped
snapshots, a cross-site iframe and two tabs in turn; and a server whose page engine
always fails still answers every snapshot (from Chrome's tree)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.lifecycle_site import (
    data_url,
    fill_blank_js,
    frames_url,
    hop_url,
    serve,
    write_page_js,
)
from tests.server import FixtureServer

from .conftest import McpSession, text_of

Call = tuple[str, dict[str, object]]


@pytest.fixture(scope="module")
async def mcp(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpSession]:
    session = McpSession(["--allow-js", "--downloads", str(tmp_path_factory.mktemp("downloads"))])
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


@pytest.fixture
def sites(server: FixtureServer, other_server: FixtureServer) -> tuple[FixtureServer, FixtureServer]:
    serve(server, other_server)
    return server, other_server


async def _ok(mcp: McpSession, name: str, arguments: dict[str, object] | None = None) -> str:
    result = await mcp.call(name, arguments)
    assert not result.is_error, f"{name} {arguments}: {text_of(result)}"
    return text_of(result)


async def _js(mcp: McpSession, expression: str) -> object:
    return json.loads(await _ok(mcp, "browser_execute_js", {"expression": expression}))


def _index(snapshot: str, role: str, name: str) -> int:
    found = re.findall(rf"\[(\d+)\] {role} \"{re.escape(name)}\"", snapshot)
    assert len(found) == 1, f"{role} {name!r} in:\n{snapshot}"
    return int(found[0])


async def _snapshot_and_click(mcp: McpSession, what: str) -> None:
    """browser_snapshot shows the page's button; browser_click by its index records one
    press in the page shown."""
    title = await _js(mcp, "document.title")
    snapshot = await _ok(mcp, "browser_snapshot")
    assert f'RootWebArea "{title}"' in snapshot, (what, snapshot)
    index = _index(snapshot, "button", f"Press {title}")
    before = await _js(mcp, "document.getElementById('log').textContent")
    await _ok(mcp, "browser_click", {"index": index})
    after = await _js(mcp, "document.getElementById('log').textContent")
    assert after == f"{before}pressed {title};", what


def _hops(a: FixtureServer, b: FixtureServer) -> list[list[Call]]:
    def go(server: FixtureServer, host: str, title: str) -> list[Call]:
        return [("browser_navigate", {"url": hop_url(server, host, title)})]

    def js(expression: str) -> list[Call]:
        return [("browser_execute_js", {"expression": expression})]

    return [
        go(a, "127.0.0.1", "one"),
        go(a, "localhost", "two"),
        go(b, "127.0.0.1", "three"),
        go(b, "localhost", "four"),
        [("browser_go_back", {})],
        [("browser_go_forward", {})],
        [("browser_reload", {})],
        js("history.pushState({}, '', '?pushed'); location.search"),
        [("browser_navigate", {"url": "about:blank"}), *js(fill_blank_js("blank"))],
        go(a, "127.0.0.1", "ten"),
        [("browser_navigate", {"url": data_url("data")})],
        go(a, "localhost", "twelve"),
        js(write_page_js("written")),
        go(b, "127.0.0.1", "fourteen"),
        [("browser_go_back", {})],
        [("browser_go_back", {})],
        [("browser_go_forward", {})],
        go(b, "localhost", "eighteen"),
        [("browser_reload", {})],
        go(a, "127.0.0.1", "one"),
    ]


async def test_twenty_hops(mcp: McpSession, sites: tuple[FixtureServer, FixtureServer]) -> None:
    for number, calls in enumerate(_hops(*sites), 1):
        for name, arguments in calls:
            await _ok(mcp, name, arguments)
        await _snapshot_and_click(mcp, f"hop {number}: {calls}")


async def test_an_index_from_before_a_round_trip_is_stale(
    mcp: McpSession, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    await _ok(mcp, "browser_navigate", {"url": hop_url(a, "127.0.0.1", "first")})
    old = _index(await _ok(mcp, "browser_snapshot"), "button", "Press first")
    for server, host in ((a, "localhost"), (b, "127.0.0.1"), (b, "localhost")):
        await _ok(mcp, "browser_navigate", {"url": hop_url(server, host, "away")})
        await _snapshot_and_click(mcp, f"{host}:{server.server_address[1]}")
    await _ok(mcp, "browser_navigate", {"url": hop_url(a, "127.0.0.1", "again", decoy=True)})
    clicked = await mcp.call("browser_click", {"index": old})
    assert clicked.is_error
    assert f"Element index {old} is stale: the page navigated" in text_of(clicked)
    assert await _js(mcp, "document.getElementById('log').textContent") == ""
    await _snapshot_and_click(mcp, "after the round trip")


async def test_scoped_snapshots_after_navigations(
    mcp: McpSession, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    hops = [(a, "127.0.0.1"), (a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1"),
            (b, "localhost"), (a, "127.0.0.1")]
    for number, (server, host) in enumerate(hops):
        title = f"scoped {number}"
        await _ok(mcp, "browser_navigate", {"url": hop_url(server, host, title)})
        by_selector = await _ok(mcp, "browser_snapshot", {"selector": "#panel"})
        panel = _index(by_selector, "region", f"Panel {title}")
        button = _index(by_selector, "button", f"Press {title}")
        by_index = await _ok(mcp, "browser_snapshot", {"index": panel})
        assert _index(by_index, "button", f"Press {title}") == button
        await _ok(mcp, "browser_click", {"index": button})
        assert await _js(mcp, "document.getElementById('log').textContent") == f"pressed {title};"


async def test_an_iframe_navigating_across_sites(
    mcp: McpSession, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    await _ok(mcp, "browser_navigate", {"url": frames_url(a, hop_url(a, "127.0.0.1", "f0"))})
    frames = [(a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1"), (b, "localhost"),
              (a, "localhost"), (a, "127.0.0.1")]
    for number, (server, host) in enumerate(frames):
        title = f"f{number}"
        url = hop_url(server, host, title)
        await _js(mcp, f"""new Promise(resolve => {{
            const frame = document.getElementById('inner');
            if (frame.src === {url!r}) return resolve(true);
            frame.onload = () => resolve(true);
            frame.src = {url!r};
        }})""")
        snapshot = await _ok(mcp, "browser_snapshot")
        for _ in range(50):
            if f"Press {title}" in snapshot:
                break
            snapshot = await _ok(mcp, "browser_snapshot")
        await _ok(mcp, "browser_click", {"index": _index(snapshot, "button", f"Press {title}")})
        log = ""
        for _ in range(100):
            log = str(await _js(mcp, "document.getElementById('log').textContent"))
            if log.endswith(f"pressed {title};"):
                break
        assert log.endswith(f"pressed {title};"), (title, log)


async def test_two_tabs_in_turn(mcp: McpSession, sites: tuple[FixtureServer, FixtureServer]) -> None:
    a, b = sites
    await _ok(mcp, "browser_navigate", {"url": hop_url(a, "127.0.0.1", "tab 0")})
    await _ok(mcp, "browser_tabs", {"action": "new", "url": hop_url(a, "localhost", "tab 1")})
    listed = await _ok(mcp, "browser_tabs", {"action": "list"})
    tab_ids = re.findall(r"\b([0-9A-F]{32})\b", listed)
    assert len(tab_ids) >= 2, listed
    first, second = tab_ids[-2:]
    hops = [(b, "127.0.0.1"), (b, "localhost"), (a, "127.0.0.1"), (a, "localhost")] * 2
    for number, (server, host) in enumerate(hops):
        other = "localhost" if host == "127.0.0.1" else "127.0.0.1"
        for tab_id, where in ((first, host), (second, other)):
            await _ok(mcp, "browser_tabs", {"action": "switch", "tab_id": tab_id})
            await _ok(mcp, "browser_navigate", {"url": hop_url(server, where, f"hop {number}")})
            await _snapshot_and_click(mcp, f"tab {tab_id[:6]} hop {number}")
    await _ok(mcp, "browser_tabs", {"action": "close", "tab_id": second})


# A server whose page engine always throws: its snapshots come from Chrome's tree.
_BROKEN_ENGINE = (
    "import sys, types\n"
    "from cdpkit.tools._snapshot import _page_outline\n"
    "_page_outline._OUTLINE = types.SimpleNamespace(\n"
    "    source=\"function() { throw new Error('broken on purpose'); }\")\n"
    "from cdpkit.mcp_server import main\n"
    "sys.exit(main())\n"
)


async def test_a_server_whose_page_engine_fails_still_snapshots(
    sites: tuple[FixtureServer, FixtureServer], tmp_path: Path
) -> None:
    a, b = sites
    broken = McpSession(["--allow-js", "--downloads", str(tmp_path)], entry=("-c", _BROKEN_ENGINE))
    await broken.start()
    try:
        for server, host in ((a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1")):
            title = f"fallback {host}"
            await _ok(broken, "browser_navigate", {"url": hop_url(server, host, title)})
            await _snapshot_and_click(broken, title)
            scoped = await _ok(broken, "browser_snapshot", {"selector": "#panel"})
            assert f'button "Press {title}"' in scoped
    finally:
        await broken.stop()
