"""What makes the snapshot of a big page cheap must not change what it says.

It decodes Chrome's accessibility trees and layout captures with decoders that read only
the fields the outline uses (cdpkit/tools/_snapshot/_chrome_outline.py ``ax_tree_decoder``,
``capture_decoder``): what it writes must be
exactly what the full ``json.loads`` decoding gives, on pages with every kind of state,
value and frame; and text msgspec refuses (a lone surrogate, which Chrome sends as a
``\\ud800`` escape) still comes through, decoded by ``json.loads``. And the trees are
freed before the garbage collector, paused meanwhile, runs again: otherwise its first pass
walks every object of them.
"""

from __future__ import annotations

import gc
import json
from typing import Any, Literal

import pytest

import cdpkit
from cdpkit import cdp
from cdpkit.tools import accessibility
from cdpkit.tools._snapshot import _chrome_outline
from cdpkit.tools.accessibility import Snapshot, snapshot
from cdpkit.tools.navigation import navigate
from tests.server import FixtureServer


def _summary(snap: Snapshot) -> list[tuple[Any, ...]]:
    return [
        (n.index, n.role, n.name, n.value, n.states, n.depth, n.box, n.backend_node_id,
         n.frame_id, n.session.session_id)
        for n in snap.nodes
    ]


async def _same_with_and_without_the_decoder(
    page: cdpkit.Page, monkeypatch: pytest.MonkeyPatch
) -> Snapshot:
    decoder = _chrome_outline.ax_tree_decoder()
    assert decoder is not None  # msgspec is installed
    decoded: list[Any] = []

    def counting(data: str | bytes) -> Any:
        decoded.append(answer := decoder(data))
        return answer

    with monkeypatch.context() as patched:
        patched.setattr(_chrome_outline, "ax_tree_decoder", lambda: counting)
        fast = await snapshot(page, engine="chrome")
    # Chrome's answers reached the decoder (one per document), which kept their session.
    assert decoded and all("result" in answer for answer in decoded)
    with monkeypatch.context() as patched:
        patched.setattr(_chrome_outline, "ax_tree_decoder", lambda: None)
        patched.setattr(_chrome_outline, "capture_decoder", lambda: None)
        full = await snapshot(page, engine="chrome")
    assert fast.text == full.text
    assert _summary(fast) == _summary(full)
    return fast


async def test_states_and_values_read_as_from_the_full_tree(
    page: cdpkit.Page, server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    snap = await _same_with_and_without_the_decoder(page, monkeypatch)
    assert 'checkbox "Terms"' in snap.text and "[checked]" in snap.text
    assert 'value="a@example.com" [required]' in snap.text
    assert 'combobox "Colour"' in snap.text and 'value="Green" [collapsed]' in snap.text


async def test_frames_of_every_kind_read_as_from_the_full_tree(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = server.server_address[1]
    await navigate(
        page,
        server.url(f"/snapshot/frames.html?cross={other_server.origin}&oop=http://localhost:{port}"),
    )
    snap = await _same_with_and_without_the_decoder(page, monkeypatch)
    assert snap.text.count('button "Inner button"') == 3


async def test_the_decoder_leaves_out_what_the_outline_never_reads(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    full = await page.send_json(cdp.accessibility.get_full_ax_tree())
    decoder = _chrome_outline.ax_tree_decoder()
    assert decoder is not None
    answer = decoder(json.dumps({"id": 1, "result": full}, separators=(",", ":")))
    assert json.loads(json.dumps(answer)) == answer  # plain JSON values, like json.loads'
    nodes = answer["result"]["nodes"]
    assert len(nodes) == len(full["nodes"])
    assert any("sources" in node.get("name", {}) for node in full["nodes"])
    assert not any("sources" in node.get("name", {}) for node in nodes)
    assert [n["nodeId"] for n in nodes] == [n["nodeId"] for n in full["nodes"]]


async def test_the_capture_decoder_keeps_the_boxes_as_chrome_wrote_them(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    full = await page.send_json(cdp.dom_snapshot.capture_snapshot(computed_styles=[]))
    decoder = _chrome_outline.capture_decoder()
    assert decoder is not None
    answer = decoder(json.dumps({"id": 1, "result": full}, separators=(",", ":")))
    (document,) = answer["result"]["documents"]
    (chrome_document,) = full["documents"]
    assert document["layout"] == {
        "nodeIndex": chrome_document["layout"]["nodeIndex"],
        "bounds": chrome_document["layout"]["bounds"],
    }
    # Whole numbers stay ints (a box reads width=120, not 120.0), as json.loads gives them.
    assert [type(v) for b in document["layout"]["bounds"] for v in b] == [
        type(v) for b in chrome_document["layout"]["bounds"] for v in b
    ]
    assert document["nodes"]["backendNodeId"] == chrome_document["nodes"]["backendNodeId"]
    assert "nodeName" in chrome_document["nodes"] and "nodeName" not in document["nodes"]


@pytest.mark.parametrize("engine", ["page", "chrome"])
async def test_a_name_with_a_lone_surrogate_comes_through(
    page: cdpkit.Page, engine: Literal["page", "chrome"]
) -> None:
    await page.send(cdp.runtime.evaluate(
        "document.body.innerHTML = '<button>x</button>';"
        "document.querySelector('button').textContent = 'Lone \\ud800 half'"
    ))
    snap = await snapshot(page, engine=engine)
    (button,) = [n for n in snap.nodes if n.role == "button"]
    assert button.name == "Lone \ud800 half"
    assert 'button "Lone \ud800 half"' in snap.text


async def test_the_trees_are_freed_before_the_collector_runs_again(
    page: cdpkit.Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    await page.send(cdp.runtime.evaluate(
        "document.body.innerHTML = Array.from({length: 500}, (_, i) =>"
        " `<button>Button ${i}</button><a href='#${i}'>Link ${i}</a>`).join('')"
    ))
    tracked_at_resume: list[int] = []

    class _Collector:
        """The gc module, counting the objects it would walk first when resumed."""

        def __getattr__(self, name: str) -> Any:
            return getattr(gc, name)

        def enable(self) -> None:
            tracked_at_resume.append(len(gc.get_objects(generation=0)))
            gc.enable()

    monkeypatch.setattr(accessibility, "gc", _Collector())
    tree_size = len((await page.send_json(cdp.accessibility.get_full_ax_tree()))["nodes"])
    snap = await snapshot(page, engine="chrome")
    assert len(snap.nodes) > 1000 and tree_size > 3000
    # What is left is about the outline (its nodes and boxes): ~1.5 objects per tree node;
    # the decoded tree alone would be ~4 more (its dicts, lists and role/name/value dicts).
    (tracked,) = tracked_at_resume
    assert tracked < 3 * tree_size, (tracked, tree_size)
