"""The accessibility snapshot against a real headless Chromium: lines, boxes, states,
filters, frames (same-origin, cross-origin, out-of-process) and shadow DOM, with each
engine (every test runs with ``engine="page"``, the default, and ``engine="chrome"``)."""

from __future__ import annotations

import asyncio
import gc
import re
from typing import Any

import pytest

import cdpkit
from cdpkit.tools import Box, SnapshotState, accessibility, handle_dialog
from cdpkit.tools._targeting import resolve_element
from cdpkit.tools.accessibility import Snapshot, SnapshotNode, snapshot
from cdpkit.tools.navigation import navigate
from tests.server import FixtureServer


@pytest.fixture(autouse=True, params=["page", "chrome"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test with each engine: the one ``snapshot`` uses unless told (the module's
    tests call it without ``engine``)."""
    defaults = dict(accessibility.snapshot.__kwdefaults__ or {})
    defaults["engine"] = request.param
    monkeypatch.setattr(accessibility.snapshot, "__kwdefaults__", defaults)
    return str(request.param)


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def line_of(snap: Snapshot, node: SnapshotNode) -> str:
    return snap.text.splitlines()[node.index]


def find(snap: Snapshot, role: str, name: str) -> SnapshotNode:
    matches = [n for n in snap.nodes if n.role == role and n.name == name]
    assert len(matches) == 1, (role, name, snap.text)
    return matches[0]


async def click_at(page: cdpkit.Page, x: float, y: float) -> None:
    for kind in ("mousePressed", "mouseReleased"):
        await page.call(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
        )


async def frames_page(page: cdpkit.Page, server: FixtureServer, other: FixtureServer) -> None:
    port = server.server_address[1]
    await navigate(
        page,
        server.url(f"/snapshot/frames.html?cross={other.origin}&oop=http://localhost:{port}"),
    )


# -- lines, boxes, states ---------------------------------------------------------------------


async def test_button_line_has_index_role_name_and_real_box(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page)
    button = find(snap, "button", "Go now")
    # #go is absolutely positioned at left 40, top 30, 120 x 40 CSS px.
    assert line_of(snap, button) == f'  [{button.index}] button "Go now" @(40,30,120,40)'
    assert button.box == Box(40, 30, 120, 40)
    rect = await js(page, "JSON.stringify(document.getElementById('go').getBoundingClientRect())")
    assert '"x":40,"y":30,"width":120,"height":40' in rect
    assert snap.text.splitlines()[0].startswith('[0] RootWebArea "Snapshot form" @(0,0,')
    assert [n.index for n in snap.nodes] == list(range(len(snap.nodes)))
    assert page.state(SnapshotState).snapshot is snap


async def test_states_values_and_hidden_elements(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page)
    expected = {
        ("checkbox", "Terms"): "[checked]",
        ("textbox", "Email"): 'value="a@example.com" [required]',
        ("button", "Disabled action"): "[disabled]",
        ("heading", "Settings"): "[level=2]",
        ("combobox", "Colour"): 'value="Green" [collapsed]',
        ("option", "Green"): "[selected]",
        ("button", "Menu"): "[expanded]",
        ("tab", "Tab A"): "[selected]",
        ("textbox", "Notes"): 'value="Some notes"',
    }
    for (role, name), tail in expected.items():
        assert line_of(snap, find(snap, role, name)).endswith(tail), (role, name, snap.text)
    assert "[checked]" not in line_of(snap, find(snap, "checkbox", "Newsletter"))
    assert find(snap, "checkbox", "Terms").states == ("checked",)
    assert "Invisible button" not in snap.text  # display: none
    assert "InlineTextBox" not in snap.text and "ListMarker" not in snap.text
    # Text inside a button is its name, not a line of its own; free text is a line.
    assert 'StaticText "Go now"' not in snap.text
    assert find(snap, "StaticText", "Plain paragraph text.").depth == 2


async def test_clicked_checkbox_shows_checked_in_next_snapshot(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    before = find(await snapshot(page), "checkbox", "Newsletter")
    assert before.box is not None and "checked" not in before.states
    await click_at(page, *before.box.center)  # a real click where the snapshot says it is
    after = await snapshot(page)
    assert "checked" in find(after, "checkbox", "Newsletter").states
    assert await js(page, "document.getElementById('news').checked") is True


async def test_boxes_are_viewport_coordinates_after_scrolling(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    await js(page, "document.body.style.height = '3000px'; scrollTo(0, 100); scrollY")
    snap = await snapshot(page)
    assert find(snap, "button", "Go now").box == Box(40, -70, 120, 40)


async def test_index_targets_the_node_and_indices_stay_across_snapshots(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page)
    element = await resolve_element(page, index=find(snap, "textbox", "Email").index)
    assert await element.call("function() { return this.id; }") == "email"
    buttons = await snapshot(page, roles=["button"])
    assert buttons.nodes[0].name == "Go now"
    # The button keeps the index the full snapshot gave it.
    assert buttons.nodes[0].index == find(snap, "button", "Go now").index
    element = await resolve_element(page, index=buttons.nodes[0].index)
    assert await element.call("function() { return this.id; }") == "go"


async def test_index_out_of_range_says_how_many(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page)
    with pytest.raises(cdpkit.ElementNotFoundError, match=(
        rf"Element index 999 out of range \(snapshot has {len(snap.nodes)}\)"
    )):
        await resolve_element(page, index=999)


# -- filters ----------------------------------------------------------------------------------


async def test_role_and_name_filters(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    buttons = await snapshot(page, roles=["BUTTON", "link"])
    assert {n.role for n in buttons.nodes} == {"button", "link"}
    assert {n.name for n in buttons.nodes} >= {"Go now", "Menu", "First link", "Custom control"}
    assert all(n.depth == 0 for n in buttons.nodes)
    assert buttons.text.splitlines()[0] == '[0] button "Go now" @(40,30,120,40)'
    named = await snapshot(page, name="LINK")
    assert [n.name for n in named.nodes] == ["First link", "Second link"]
    none = await snapshot(page, name="no such text")
    assert none.nodes == [] and none.text == ""


async def test_interactive_only_lists_controls(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page, interactive_only=True)
    roles = {n.role for n in snap.nodes}
    assert roles == {"button", "checkbox", "textbox", "combobox", "option", "link", "tab"}
    assert "Custom control" in {n.name for n in snap.nodes}  # role=button on a div


async def test_depth(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    top = await snapshot(page, depth=1)
    assert max(n.depth for n in top.nodes) == 1
    assert "option" not in {n.role for n in top.nodes}  # depth 2, under the combobox
    assert find(top, "button", "Go now").depth == 1
    with pytest.raises(ValueError, match="depth must be 0 or more"):
        await snapshot(page, depth=-1)
    # max_depth, the former name, still works.
    assert (await snapshot(page, max_depth=1)).text == top.text


async def test_selector_limits_to_subtree(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await snapshot(page, selector="#menu-list")
    assert snap.text.splitlines()[0].startswith("[0] list @(")
    assert [n.name for n in snap.nodes if n.role == "link"] == ["First link", "Second link"]
    assert "Go now" not in snap.text
    shallow = await snapshot(page, selector="#menu-list", max_depth=1)
    assert {n.role for n in shallow.nodes} == {"list", "listitem"}
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found: #nope"):
        await snapshot(page, selector="#nope")
    with pytest.raises(ValueError, match="Invalid CSS selector"):
        await snapshot(page, selector="#[bad")


# -- frames and shadow DOM --------------------------------------------------------------------


async def test_iframes_of_every_kind_are_inlined_with_page_coordinates(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    await frames_page(page, server, other_server)
    snap = await snapshot(page)
    lines = snap.text.splitlines()
    # Each frame's 5 px border puts its content at (25, top + 5); the button is at (10, 20).
    for title, top in (("Same origin", 50), ("Cross origin", 250), ("Other site", 450)):
        frame = find(snap, "Iframe", title)
        assert line_of(snap, frame).endswith(f'Iframe "{title}" @(20,{top},310,130)')
        document = snap.nodes[frame.index + 1]
        button = snap.nodes[frame.index + 2]
        assert (document.role, document.depth) == ("RootWebArea", frame.depth + 1)
        assert lines[button.index].endswith(f'button "Inner button" @(35,{top + 25},100,30)')
        assert button.depth == frame.depth + 2
    out_of_process = snap.nodes[find(snap, "Iframe", "Other site").index + 2]
    same_process = snap.nodes[find(snap, "Iframe", "Cross origin").index + 2]
    assert out_of_process.session is not page  # localhost is another site: its own target
    assert same_process.session is page


async def test_index_reaches_into_out_of_process_iframe(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    await frames_page(page, server, other_server)
    snap = await snapshot(page)
    button = snap.nodes[find(snap, "Iframe", "Other site").index + 2]
    element = await resolve_element(page, index=button.index)
    await element.call("function() { this.click(); }")
    after = await snapshot(page, name="clicked")
    assert [n.name for n in after.nodes] == ["Clicked localhost"]


async def test_out_of_process_iframe_found_again_after_navigation(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    await frames_page(page, server, other_server)
    assert len((await snapshot(page, name="inner button")).nodes) == 3
    await navigate(page, server.url("/snapshot/form.html"))
    assert (await snapshot(page, name="inner button")).nodes == []
    await frames_page(page, server, other_server)
    snap = await snapshot(page, name="inner button")
    assert [n.box for n in snap.nodes] == [
        Box(35, 75, 100, 30), Box(35, 275, 100, 30), Box(35, 475, 100, 30)
    ]


async def test_open_shadow_roots_are_included(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/shadow.html"))
    snap = await snapshot(page)
    button = find(snap, "button", "Shadow button")
    assert button.box is not None and button.box.width > 0
    assert re.search(r'textbox "Nested field" @\(\d+,\d+,\d+,\d+\) value="deep"', snap.text)
    element = await resolve_element(page, index=button.index)
    assert await element.call("function() { return this.id; }") == "shadow-button"
    inner = await snapshot(page, selector="#shadow-button")
    assert [(n.role, n.name) for n in inner.nodes] == [("button", "Shadow button")]


async def test_an_open_dialog_is_named_instead_of_waiting(page: cdpkit.Page) -> None:
    """A page stopped at alert() answers no script and builds no tree: the snapshot says
    so at once, and works again once the dialog is answered."""
    page.dialog_policy = lambda dialog: None  # leave dialogs open
    await js(page, "document.body.innerHTML = '<button>Behind</button>'; 1")
    await js(page, "setTimeout(() => alert('Stop here'), 0); 1")
    for _ in range(100):
        if page.open_dialog is not None:
            break
        await asyncio.sleep(0.05)
    async with asyncio.timeout(2):
        with pytest.raises(RuntimeError, match=r"alert dialog is open \('Stop here'\)"):
            await snapshot(page)
    await handle_dialog(page)
    assert 'button "Behind"' in (await snapshot(page)).text


async def test_closed_page_raises_target_closed(page: cdpkit.Page) -> None:
    await page.close()
    with pytest.raises(cdpkit.TargetClosedError):
        await snapshot(page)


# -- the garbage collector pause (decoding Chrome's big tree must not run it dozens of times) -


async def test_collector_paused_while_the_tree_is_decoded_and_restored_after(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    assert gc.isenabled()
    seen: list[bool] = []
    task = asyncio.ensure_future(snapshot(page, engine="chrome"))
    while not task.done():
        seen.append(gc.isenabled())
        await asyncio.sleep(0)
    snap = task.result()
    assert find(snap, "button", "Go now").box == Box(40, 30, 120, 40)
    assert False in seen  # paused while Chrome's answers were decoded and walked
    assert gc.isenabled()  # and running again once the snapshot returned


async def test_collector_comes_back_after_cancelled_and_concurrent_snapshots(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    first, second = await asyncio.gather(snapshot(page, engine="chrome"), snapshot(page, engine="chrome"))
    assert first.text == second.text
    assert gc.isenabled()
    task = asyncio.ensure_future(snapshot(page, engine="chrome"))
    for _ in range(100_000):  # until the snapshot waits for Chrome, collector paused
        if not gc.isenabled():
            break
        await asyncio.sleep(0)
    assert not gc.isenabled()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gc.isenabled()


async def test_collector_the_program_disabled_stays_disabled(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    gc.disable()
    try:
        await snapshot(page)
        assert not gc.isenabled()
    finally:
        gc.enable()
