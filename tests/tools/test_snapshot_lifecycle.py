"""The page engine's snapshot over a tab's life: any sequence of navigations (across
sites and back, back/forward, reload, pushState, about:blank, data:, document.open/write),
iframes navigating across sites, several tabs and contexts: a snapshot and a click by its
index work after each; an index from an older document fails as stale and presses
nothing; a broken page world is replaced, then the chrome engine answers."""

from __future__ import annotations

import logging
import types
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import cdpkit
from cdpkit import cdp, tools
from cdpkit.session import Session
from cdpkit.tools._snapshot import _page_outline
from tests.lifecycle_site import (
    data_url,
    fill_blank_js,
    frames_url,
    hop_url,
    serve,
    write_page_js,
)
from tests.server import FixtureServer

Hop = Callable[[cdpkit.Page], Awaitable[object]]


@pytest.fixture
def sites(server: FixtureServer, other_server: FixtureServer) -> tuple[FixtureServer, FixtureServer]:
    serve(server, other_server)
    return server, other_server


def _hops(a: FixtureServer, b: FixtureServer) -> list[tuple[str, Hop]]:
    """Twenty hops across 127.0.0.1 and localhost on two ports, and every other way a
    tab changes (or keeps) its document."""

    def go(server: FixtureServer, host: str, title: str) -> tuple[str, Hop]:
        url = hop_url(server, host, title)
        return (f"navigate {url}", lambda page: tools.navigate(page, url))

    def run(what: str, js: str) -> tuple[str, Hop]:
        return (what, lambda page: tools.evaluate(page, js))

    async def blank(page: cdpkit.Page) -> None:
        await tools.navigate(page, "about:blank")
        await tools.evaluate(page, fill_blank_js("blank"))

    return [
        go(a, "127.0.0.1", "one"),
        go(a, "localhost", "two"),
        go(b, "127.0.0.1", "three"),  # back on the first site, in another process
        go(b, "localhost", "four"),
        ("back", tools.go_back),
        ("forward", tools.go_forward),
        ("reload", tools.reload),
        run("pushState", "history.pushState({}, '', '?pushed'); location.search"),
        ("about:blank", blank),
        go(a, "127.0.0.1", "ten"),
        ("data:", lambda page: tools.navigate(page, data_url("data"))),
        go(a, "localhost", "twelve"),
        run("document.open/write", write_page_js("written")),
        go(b, "127.0.0.1", "fourteen"),
        ("back", tools.go_back),
        ("back", tools.go_back),
        ("forward", tools.go_forward),
        go(b, "localhost", "eighteen"),
        ("reload", tools.reload),
        go(a, "127.0.0.1", "one"),
    ]


async def _presses(page: cdpkit.Page) -> str:
    return str(await tools.evaluate(page, "document.getElementById('log').textContent"))


async def _snapshot_and_press(page: cdpkit.Page, what: str) -> None:
    """A snapshot of the page shows its button; pressing it by index records one press
    in the page shown."""
    title = await tools.evaluate(page, "document.title")
    shot = await tools.snapshot(page)
    assert shot.nodes[0].role == "RootWebArea" and shot.nodes[0].name == title, (what, shot.text)
    button = [n for n in shot.nodes if n.role == "button" and n.name == f"Press {title}"]
    assert len(button) == 1, (what, shot.text)
    before = await _presses(page)
    await tools.click(page, index=button[0].index)
    assert await _presses(page) == before + f"pressed {title};", what


async def test_twenty_hops_across_sites_and_documents(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    for number, (what, hop) in enumerate(_hops(*sites), 1):
        await hop(page)
        await _snapshot_and_press(page, f"hop {number}: {what}")


async def test_an_index_from_before_a_round_trip_is_stale_and_presses_nothing(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    await tools.navigate(page, hop_url(a, "127.0.0.1", "first"))
    first = await tools.snapshot(page)
    old = next(n for n in first.nodes if n.name == "Press first")
    for server, host in ((a, "localhost"), (b, "127.0.0.1"), (b, "localhost")):
        await tools.navigate(page, hop_url(server, host, "away"))
        await _snapshot_and_press(page, f"{host}:{server.server_address[1]}")
    # Back on the first origin, with another button where the old index's button was.
    await tools.navigate(page, hop_url(a, "127.0.0.1", "again", decoy=True))
    for attempt in (tools.click(page, index=old.index), tools.snapshot(page, index=old.index)):
        with pytest.raises(cdpkit.ElementNotFoundError, match=f"Element index {old.index} is stale"):
            await attempt
    assert await _presses(page) == ""
    await _snapshot_and_press(page, "after the round trip")
    assert "decoy" not in await _presses(page)


async def test_an_index_of_a_frame_from_before_it_navigated_presses_nothing(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    """The frame's documents come and go while the page's stays: an index of the old
    frame document fails as removed, never reaching the new document's buttons."""
    a, b = sites
    await tools.navigate(page, frames_url(a, hop_url(a, "localhost", "inner")))
    await tools.wait_for(page, text="Around the frame")
    await _frame_loaded(page, "inner")
    shot = await tools.snapshot(page)
    old = next(n for n in shot.nodes if n.name == "Press inner")
    for server, host in ((a, "127.0.0.1"), (b, "localhost"), (a, "localhost")):
        await _frame_to(page, hop_url(server, host, "inner", decoy=True))
        with pytest.raises(cdpkit.ElementNotFoundError, match="that element was removed"):
            await tools.click(page, index=old.index)
        await _press_in_frame(page, "inner")
    assert "decoy" not in await _presses(page)


async def test_scoped_snapshots_after_each_navigation(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    """``selector=`` and ``index=`` scopes, as the first snapshot of each new document."""
    a, b = sites
    hops = [(a, "127.0.0.1"), (a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1"),
            (b, "localhost"), (a, "127.0.0.1")]
    for number, (server, host) in enumerate(hops):
        title = f"scoped {number}"
        await tools.navigate(page, hop_url(server, host, title))
        by_selector = await tools.snapshot(page, selector="#panel")
        panel, button = by_selector.nodes[0], by_selector.nodes[-1]
        assert (panel.role, panel.name) == ("region", f"Panel {title}"), by_selector.text
        assert (button.role, button.name) == ("button", f"Press {title}"), by_selector.text
        by_index = await tools.snapshot(page, index=panel.index)
        assert by_index.text == by_selector.text
        await tools.click(page, index=button.index)
        assert await _presses(page) == f"pressed {title};"
    await tools.go_back(page)
    shot = await tools.snapshot(page, selector="#press")
    assert shot.nodes[0].name == f"Press scoped {len(hops) - 2}", shot.text


async def _frame_loaded(page: cdpkit.Page, title: str) -> None:
    """Wait until the page's iframe shows a document titled ``title`` (its button listed)."""
    for _ in range(100):
        shot = await tools.snapshot(page, roles=["button"])
        if f"Press {title}" in shot.text:
            return
        await tools.wait(page, 50)
    raise AssertionError(f"the frame never showed {title!r}: {shot.text}")


async def _frame_to(page: cdpkit.Page, url: str) -> None:
    """Send the page's iframe to ``url`` and wait for it to load."""
    await tools.evaluate(page, f"""new Promise(resolve => {{
        const frame = document.getElementById('inner');
        frame.onload = () => resolve(true);
        frame.src = {url!r};
    }})""")


async def _press_in_frame(page: cdpkit.Page, title: str) -> None:
    """Press the frame's button by its snapshot index: the frame tells the page."""
    shot = await tools.snapshot(page)
    button = [n for n in shot.nodes if n.role == "button" and n.name == f"Press {title}"]
    assert len(button) == 1, shot.text
    frame_line = next(n for n in shot.nodes if n.role == "Iframe")
    assert button[0].depth > frame_line.depth, shot.text
    before = await _presses(page)
    await tools.click(page, index=button[0].index)
    for _ in range(100):
        if await _presses(page) != before:
            break
        await tools.wait(page, 20)
    assert await _presses(page) == before + f"pressed {title};"


async def test_an_iframe_navigating_across_sites(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    await tools.navigate(page, frames_url(a, hop_url(a, "127.0.0.1", "f0")))
    await _frame_loaded(page, "f0")
    await _press_in_frame(page, "f0")
    frames = [(a, "localhost"), (b, "127.0.0.1"), (b, "localhost"), (a, "localhost"),
              (a, "127.0.0.1"), (b, "localhost")]
    for number, (server, host) in enumerate(frames, 1):
        title = f"f{number}"
        await _frame_to(page, hop_url(server, host, title))
        await _press_in_frame(page, title)
    # The page around it navigates across sites too, and back.
    await tools.navigate(page, hop_url(a, "localhost", "between"))
    await _snapshot_and_press(page, "between")
    await tools.navigate(page, frames_url(b, hop_url(a, "localhost", "f-last")))
    await _frame_loaded(page, "f-last")
    await _press_in_frame(page, "f-last")


async def test_two_tabs_hopping_in_turn(
    context: cdpkit.BrowserContext, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    tabs = [await context.new_page(), await context.new_page()]
    hops = [(a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1"), (b, "localhost")] * 2
    for number, (server, host) in enumerate(hops):
        for tab_number, tab in enumerate(tabs):
            # The tabs are on different sites at each step.
            other_host = "localhost" if host == "127.0.0.1" else "127.0.0.1"
            where = host if tab_number == 0 else other_host
            await tools.navigate(tab, hop_url(server, where, f"tab {tab_number} hop {number}"))
        for tab_number, tab in enumerate(tabs):
            await _snapshot_and_press(tab, f"tab {tab_number} hop {number}")


async def test_a_new_context_after_hops_in_another(
    browser: cdpkit.Browser, page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    a, b = sites
    for server, host in ((a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1")):
        await tools.navigate(page, hop_url(server, host, f"old {host}"))
        await _snapshot_and_press(page, f"old context {host}")
    async with await browser.new_context() as fresh:
        tab = await fresh.new_page()
        for server, host in ((b, "localhost"), (a, "127.0.0.1"), (a, "localhost"),
                             (b, "127.0.0.1")):
            await tools.navigate(tab, hop_url(server, host, f"new {host}"))
            await _snapshot_and_press(tab, f"new context {host}")
            await tools.navigate(page, hop_url(server, host, f"old {host} again"))
            await _snapshot_and_press(page, f"old context {host} again")


# -- a broken page world ----------------------------------------------------------------------


async def _break_the_world(page: cdpkit.Page) -> None:
    """Replace the walk in the page engine's world of the main frame with one that throws
    (the world asked for by its name: Chrome gives back the document's one)."""
    created = await page.send(
        cdp.page.create_isolated_world(cdp.page.FrameId(page.target_id), world_name="cdpkit-outline")
    )
    await page.send(cdp.runtime.evaluate(
        "globalThis.__cdpkitOutlineWalk = function() { throw new Error('broken on purpose'); }",
        context_id=created.execution_context_id,
    ))


async def test_a_broken_world_is_replaced_by_a_fresh_one(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer], caplog: pytest.LogCaptureFixture
) -> None:
    a, _ = sites
    await tools.navigate(page, hop_url(a, "127.0.0.1", "broken once"))
    await _snapshot_and_press(page, "before")
    await _break_the_world(page)
    with caplog.at_level(logging.INFO, logger="cdpkit"):
        await _snapshot_and_press(page, "broken world")
    assert any("trying again in fresh worlds" in r.getMessage() for r in caplog.records)
    # Answered by the page engine: its own boxes mode and names, no fallback warning.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    await _snapshot_and_press(page, "afterwards")


async def test_an_engine_that_always_fails_is_answered_by_chrome(
    page: cdpkit.Page,
    sites: tuple[FixtureServer, FixtureServer],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = sites
    monkeypatch.setattr(
        _page_outline, "_OUTLINE",
        types.SimpleNamespace(source="function() { throw new Error('broken on purpose'); }"),
    )
    for server, host in ((a, "127.0.0.1"), (a, "localhost"), (b, "127.0.0.1")):
        await tools.navigate(page, hop_url(server, host, f"fallback {host}"))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="cdpkit"):
            await _snapshot_and_press(page, f"fallback {host}")
            scoped = await tools.snapshot(page, selector="#panel")
        assert f'button "Press fallback {host}"' in scoped.text
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert warnings and all("Chrome's accessibility tree" in w for w in warnings), warnings
        assert "broken on purpose" in warnings[0]
    # Genuine errors are still errors.
    with pytest.raises(ValueError, match="Invalid CSS selector"):
        await tools.snapshot(page, selector="#panel[")
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found"):
        await tools.snapshot(page, selector="#nothing-here")
    await page.close()
    with pytest.raises(cdpkit.TargetClosedError):
        await tools.snapshot(page)


# -- the cost ---------------------------------------------------------------------------------


async def test_the_script_is_sent_once_per_document_then_called_by_name(
    page: cdpkit.Page, sites: tuple[FixtureServer, FixtureServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keeping up with the documents costs no command on the way: a snapshot of a page seen
    before is one call of the script by name (and the main frame's document id)."""
    a, _ = sites
    end_of_script = _page_outline._OUTLINE.source[-300:]
    sent: list[tuple[str, bool]] = []
    begin = Session._begin

    def recording(self: Session, method: str, params: Any, timeout: float | None) -> Any:
        code = (params or {}).get("expression") or (params or {}).get("functionDeclaration") or ""
        sent.append((method, end_of_script in code))
        return begin(self, method, params, timeout)

    monkeypatch.setattr(Session, "_begin", recording)
    for host in ("127.0.0.1", "localhost", "127.0.0.1"):
        await tools.navigate(page, hop_url(a, host, f"cost {host}"))
        sent.clear()
        await tools.snapshot(page)
        assert sum(source for _, source in sent) == 1, sent
        for _ in range(2):
            sent.clear()
            await tools.snapshot(page)
            assert sorted(sent) == [("Page.getFrameTree", False), ("Runtime.evaluate", False)]
