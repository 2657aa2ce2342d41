"""Snapshot economy against a real headless Chromium: a character budget that cuts whole
subtrees, scopes by selector and by index, diffs, stable indices, stale indices."""

from __future__ import annotations

import re
from typing import Any

import pytest

import cdpkit
from cdpkit.tools import click
from cdpkit.tools._targeting import resolve_element
from cdpkit.tools.accessibility import Snapshot, SnapshotNode, snapshot
from cdpkit.tools.navigation import navigate
from tests.server import FixtureServer

CUT_LINE = re.compile(
    r"^\s*\[(\d+)\] .* … \((\d+) more lines cut; snapshot\(index=(\d+)\) to see them\)$"
)


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def find(snap: Snapshot, role: str, name: str) -> SnapshotNode:
    matches = [n for n in snap.nodes if n.role == role and n.name == name]
    assert len(matches) == 1, (role, name, snap.text)
    return matches[0]


async def economy(page: cdpkit.Page, server: FixtureServer) -> Snapshot:
    await navigate(page, server.url("/snapshot/economy.html"))
    return await snapshot(page)


# -- the budget -------------------------------------------------------------------------------


async def test_budget_cuts_whole_subtrees_and_the_hint_works_with_index(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    assert len(full.text) > 3000
    small = await snapshot(page, max_chars=1200)
    assert len(small.text) <= 1200
    full_lines = {line.strip() for line in full.text.splitlines()}
    cut_lines = []
    for line in small.text.splitlines():
        match = CUT_LINE.match(line)
        if match:
            assert match.group(1) == match.group(3)
            cut_lines.append(match)
            line = line[: line.index(" … (")]
        # Every line shown is a whole line of the full outline, never a part of one.
        assert line.strip() in full_lines, line
    assert cut_lines, small.text
    # The comments list (late, large) is cut; the header (early, small) is not.
    assert any(cut.index == find(full, "list", "Comments").index for cut in small.cut)
    assert "Home" in {n.name for n in small.nodes}
    assert [c.index for c in small.cut] == [int(m.group(1)) for m in cut_lines]
    comments = next(c for c in small.cut if c.role == "list" and c.name == "Comments")
    assert comments.lines == 40 * 2  # 40 items, each with its text
    # The hint's index shows the subtree, with the same indices as the full snapshot.
    scoped = await snapshot(page, index=comments.index)
    assert len(scoped.text.splitlines()) == comments.lines + 1
    assert scoped.nodes[0].index == comments.index
    full_by_index = {n.index: n.name for n in full.nodes}
    assert all(full_by_index[n.index] == n.name for n in scoped.nodes)


@pytest.mark.parametrize("budget", [0, 1, 10, 40, 90, 200])
async def test_tiny_budgets_never_exceed_the_limit_nor_cut_a_line(
    page: cdpkit.Page, server: FixtureServer, budget: int
) -> None:
    full = await economy(page, server)
    small = await snapshot(page, max_chars=budget)
    assert len(small.text) <= budget
    full_lines = {line.strip() for line in full.text.splitlines()}
    for line in small.text.splitlines():
        if line.startswith("… ("):
            assert re.fullmatch(r"… \(\d+ more lines cut; a larger max_chars .*\)", line)
            continue
        shown = line.split(" … (")[0].strip()
        assert shown in full_lines, line
    assert small.cut  # something was cut and said so


async def test_budget_large_enough_changes_nothing(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    same = await snapshot(page, max_chars=len(full.text))
    assert same.text == full.text
    assert same.cut == []
    with pytest.raises(ValueError, match="max_chars must be 0 or more"):
        await snapshot(page, max_chars=-1)


async def test_budget_on_a_flat_filtered_list_keeps_the_first_lines(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await economy(page, server)
    links = await snapshot(page, roles=["link"])
    small = await snapshot(page, roles=["link"], max_chars=150)
    assert len(small.text) <= 150
    lines = small.text.splitlines()
    assert lines[0] == links.text.splitlines()[0]
    assert re.fullmatch(r"… \((\d+) more lines cut; .*\)", lines[-1])


# -- scopes -----------------------------------------------------------------------------------


async def test_scope_by_selector_and_by_index_give_the_same_subtree(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    by_selector = await snapshot(page, selector="nav")
    navigation = find(full, "navigation", "Main")
    by_index = await snapshot(page, index=navigation.index)
    assert by_selector.text == by_index.text
    assert [n.name for n in by_index.nodes] == ["Main", "Home", "About"]
    assert by_index.nodes[0].index == navigation.index
    with pytest.raises(ValueError, match=r"selector or index.*not both"):
        await snapshot(page, selector="nav", index=navigation.index)
    with pytest.raises(cdpkit.ElementNotFoundError, match="out of range"):
        await snapshot(page, index=10_000)


# -- diff -------------------------------------------------------------------------------------


async def test_diff_lists_added_removed_changed_or_unchanged(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    assert (await snapshot(page, diff=True)).text == "unchanged"
    save = find(full, "button", "Save")
    going = find(full, "button", "Going")
    await click(page, selector="#insert")
    await click(page, selector="#rename")
    await click(page, selector="#remove")
    await js(page, "document.getElementById('title').value = 'final'")
    changes = await snapshot(page, diff=True)
    lines = changes.text.splitlines()
    added = [line for line in lines if line.startswith("+ ")]
    assert len(added) == 1 and re.fullmatch(r'\+ \[\d+\] button "Inserted".*', added[0])
    assert int(added[0].split("[")[1].split("]")[0]) >= len(full.nodes)  # a new number
    assert f'- [{going.index}] button "Going"' in "\n".join(lines)
    assert any(line.startswith(f'~ [{save.index}] button "Saved"') for line in lines)
    title = find(full, "textbox", "Title")
    assert any(
        line.startswith(f'~ [{title.index}] textbox "Title"') and 'value="final"' in line
        for line in lines
    )
    # Nothing else but the focus the last click moved: the moves of boxes are not changes.
    [focus] = [line for line in lines if "Remove" in line]
    assert focus.startswith("~ ") and focus.endswith("[focused]")
    assert len(lines) == 5, changes.text
    assert {n.name for n in changes.nodes} == {"Inserted", "Saved", "Title", "Remove"}
    assert (await snapshot(page, diff=True)).text == "unchanged"


async def test_diff_compares_with_the_same_scope(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await economy(page, server)
    await snapshot(page, selector="nav")
    await snapshot(page, interactive_only=True)  # another view: not the diff's base
    await js(page, "document.querySelector('nav').append(Object.assign("
             "document.createElement('a'), {href: '#x', textContent: 'Extra'}))")
    changes = await snapshot(page, selector="nav", diff=True)
    assert re.fullmatch(r'\+ \[\d+\] link "Extra".*', changes.text), changes.text


# -- stable and stale indices -----------------------------------------------------------------


async def test_the_same_button_keeps_its_index_after_a_node_is_inserted_before_it(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    save = find(full, "button", "Save")
    await click(page, selector="#insert")
    again = await snapshot(page)
    assert find(again, "button", "Save").index == save.index
    inserted = find(again, "button", "Inserted")
    assert inserted.index not in {n.index for n in full.nodes}
    # The old index still acts on the same button.
    element = await resolve_element(page, index=save.index)
    assert await element.call("function() { return this.id; }") == "save"


async def test_index_from_before_a_navigation_is_stale(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    save = find(full, "button", "Save")
    await navigate(page, server.url("/snapshot/form.html"))
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=rf"^Element index {save.index} is stale: the page navigated since the snapshot "
        r"that listed it; take a new snapshot$",
    ):
        await click(page, index=save.index)
    # The next snapshot numbers the new document from 0 again.
    fresh = await snapshot(page)
    assert [n.index for n in fresh.nodes] == list(range(len(fresh.nodes)))
    assert find(fresh, "button", "Go now").index < len(fresh.nodes)


async def test_index_of_a_removed_element_is_stale(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    going = find(full, "button", "Going")
    await click(page, selector="#remove")
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=rf"^Element index {going.index} is stale: that element was removed from the page; "
        r"take a new snapshot$",
    ):
        await click(page, index=going.index)
    with pytest.raises(cdpkit.ElementNotFoundError, match="removed from the page"):
        await snapshot(page, index=going.index)


async def test_boxes_only_on_interactive_lines_keep_every_node(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    full = await economy(page, server)
    lean = await snapshot(page, boxes="interactive")
    assert len(lean.text) < len(full.text)
    assert [n.index for n in lean.nodes] == [n.index for n in full.nodes]
    for line, node in zip(lean.text.splitlines(), lean.nodes, strict=True):
        has_box = " @(" in line
        assert has_box == (node.role in {"button", "link", "textbox"}), line
        assert node.box is not None or node.role == "RootWebArea"  # kept on the node
    assert " @(" not in (await snapshot(page, boxes="none")).text
    with pytest.raises(ValueError, match="boxes must be"):
        await snapshot(page, boxes="some")  # type: ignore[arg-type]


async def test_diff_within_a_budget_keeps_whole_lines_and_counts_the_rest(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await economy(page, server)
    await js(page, "for (const n of ['One', 'Two', 'Three']) document.getElementById('slot')"
             ".append(Object.assign(document.createElement('button'), {textContent: n}))")
    changes = await snapshot(page, diff=True, max_chars=100)
    assert len(changes.text) <= 100
    lines = changes.text.splitlines()
    assert re.fullmatch(r'\+ \[\d+\] button "One".*', lines[0])
    assert re.fullmatch(r"… \(\d more lines cut; .*\)", lines[-1])
