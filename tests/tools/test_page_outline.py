"""The in-page outline engine (``cdpkit.tools._snapshot._page_outline``, ``_js/outline.js``, the
snapshot's default engine): roles, names, values, states and boxes computed in the page,
checked on a page of common controls, hidden content, a shadow root and iframes, and
against Chrome's own accessibility tree (by DOM node, as
``benchmarks/cases/outline_fidelity.py`` compares)."""

from __future__ import annotations

import pytest

import cdpkit
from benchmarks.cases.outline_fidelity import CONTROL_ROLES, chrome_lines, engine_lines
from cdpkit import cdp, tools
from cdpkit.tools._snapshot._page_outline import OutlineEntry, page_outline
from cdpkit.tools._targeting import outline_backend_id, resolve_element
from tests.server import FixtureServer

PAGE = "/outline/controls.html"


async def _outline(page: cdpkit.Page, server: FixtureServer) -> list[OutlineEntry]:
    await tools.navigate(page, server.url(PAGE))
    # The iframe's document and the custom element's shadow root are in place.
    await tools.wait_for(page, selector="card-box")
    return await page_outline(page)


async def _node(entry: OutlineEntry) -> cdp.dom.Node:
    """The DOM node an entry stands for, found through its world's registry."""
    backend_id = await outline_backend_id(entry.session, entry.world, entry.id)
    assert backend_id is not None, entry
    described = await entry.session.send(
        cdp.dom.describe_node(backend_node_id=cdp.dom.BackendNodeId(backend_id))
    )
    return described.node


def _named(entries: list[OutlineEntry], name: str) -> OutlineEntry:
    found = [entry for entry in entries if entry.name == name and entry.role != "StaticText"]
    assert len(found) == 1, f"{name!r}: {found}"
    return found[0]


async def test_roles_names_values_and_states_of_the_common_controls(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    entries = await _outline(page, server)
    expected = {
        # name: (role, value, states)
        "Home": ("link", None, ()),
        "About": ("link", None, ()),  # its text, not its title
        "Outline test": ("heading", None, ("level=1",)),
        "Sub heading": ("heading", None, ("level=3",)),  # aria-level; whitespace collapsed
        "Email address": ("textbox", "a@b.c", ("required",)),  # label[for]
        "Accept terms": ("checkbox", None, ("checked",)),  # the label around it
        "Some of them": ("checkbox", None, ("mixed",)),  # indeterminate
        "Plan": ("group", None, ()),  # fieldset named by its legend
        "Free": ("radio", None, ()),
        "Pro": ("radio", None, ("checked",)),
        "Country": ("combobox", "Japan", ("collapsed",)),
        "Comment": ("textbox", "Nice page", ("readonly",)),
        "Search the site": ("searchbox", None, ()),  # placeholder, last resort
        "Count": ("spinbutton", "3", ()),
        "Volume": ("slider", "40", ()),
        "Secret": ("textbox", "•••", ()),  # a password's value is masked
        "Send": ("button", None, ()),  # an input button's value
        "Disabled button": ("button", None, ("disabled",)),
        "Menu": ("button", None, ("collapsed",)),
        "Bold": ("button", None, ("pressed",)),
        "Labelled by two": ("button", None, ()),  # aria-labelledby, hidden part included
        "More": ("DisclosureTriangle", None, ("collapsed",)),
        "A pixel": ("image", None, ()),
        "Loading": ("progressbar", "30", ()),
        "Scores": ("table", None, ()),  # its caption
        "Name": ("columnheader", None, ()),
        "Ann": ("cell", None, ()),
    }
    for name, (role, value, states) in expected.items():
        entry = _named(entries, name)
        assert (entry.role, entry.value, entry.states) == (role, value, states), name
    options = [(e.name, e.states) for e in entries if e.role == "option"]
    assert options == [("France", ()), ("Japan", ("selected",))]
    # Text already in a control's name is not repeated under it; other text is listed.
    texts = [e.name for e in entries if e.role == "StaticText"]
    assert "Accept terms" not in texts and "Labelled" in texts and "paragraph." in texts
    assert entries[0].role == "RootWebArea" and entries[0].name == "Outline controls"
    assert entries[0].depth == 0 and all(e.depth > 0 for e in entries[1:])


async def test_hidden_content_is_left_out(page: cdpkit.Page, server: FixtureServer) -> None:
    entries = await _outline(page, server)
    names = " | ".join(e.name for e in entries)
    for hidden in ("Display none button", "Visibility hidden button", "Aria hidden button",
                   "Hidden attribute button", "Inert button", "Inside details"):
        assert hidden not in names
    # A visible element inside a visibility:hidden one is shown.
    assert _named(entries, "Visible inside hidden").role == "link"
    # An image with alt="" is decoration: not listed (the others are).
    listed_images = set()
    for entry in entries:
        node = await _node(entry)
        if node.node_name == "IMG":
            attributes = node.attributes or []
            listed_images.add(dict(zip(attributes[::2], attributes[1::2], strict=True))["alt"])
    assert listed_images == {"A pixel", "Figure pixel", "Icon"}


async def test_shadow_content_in_slot_order_and_same_origin_iframe(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    entries = await _outline(page, server)
    order = [e.name for e in entries]
    # The shadow root's content, then the slotted light children in slot order (the
    # named slot first, though the link comes after nothing in the light DOM).
    card = order.index("Card title")
    assert order[card:card + 4] == ["Card title", "Shadow button", "Slotted link", "Light text"]
    assert _named(entries, "Shadow button").role == "button"

    frame = _named(entries, "Inner frame")
    assert frame.role == "Iframe"
    at = entries.index(frame)
    document, button = entries[at + 1], entries[at + 2]
    assert (document.role, document.name, document.depth) == (
        "RootWebArea", "Frame doc", frame.depth + 1)
    assert (button.role, button.name, button.depth) == ("button", "Frame button", frame.depth + 2)
    # Boxes are in the top viewport: inside the iframe's border (4 px) and padding (6 px),
    # plus the button's margin.
    assert frame.box is not None and button.box is not None
    assert round(button.box.x - frame.box.x) == 4 + 6 + 20
    assert round(button.box.y - frame.box.y) == 4 + 6 + 10
    # What the box says is what is there: the point at its centre hits that button.
    hit = await tools.evaluate(
        page,
        f"(() => {{ const f = document.querySelector('iframe'); const r = f.getBoundingClientRect();"
        f" return f.contentDocument.elementFromPoint("
        f"{button.box.x + button.box.width / 2} - r.x - 10,"
        f" {button.box.y + button.box.height / 2} - r.y - 10).textContent; }})()",
    )
    assert hit == "Frame button"


async def test_every_control_agrees_with_chromes_accessibility_tree(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await _outline(page, server)
    chrome = await chrome_lines(page)
    engine = await engine_lines(page)
    controls = {key: line for key, line in chrome.items() if line.role in CONTROL_ROLES}
    assert len(controls) >= 25
    for key, theirs in controls.items():
        ours = engine.get(key)
        assert ours is not None, f"the engine leaves out {theirs}"
        assert (ours.role, ours.name, ours.value, set(ours.states)) == (
            theirs.role, theirs.name, theirs.value, set(theirs.states)), theirs
    # And the whole outline: the same lines, roles and names.
    assert chrome.keys() == engine.keys()
    assert {k: (v.role, v.name) for k, v in chrome.items()} == {
        k: (v.role, v.name) for k, v in engine.items()}


async def test_ids_are_stable_and_resolve_to_their_element(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    first = await _outline(page, server)
    await tools.evaluate(page, "document.querySelector('h1').before(document.createElement('hr'))")
    second = await page_outline(page)
    send = _named(second, "Send")
    assert send.id == _named(first, "Send").id
    assert "separator" in [e.role for e in second] and len(second) == len(first) + 1

    node = await _node(send)
    assert node.node_name == "INPUT"
    attributes = node.attributes or []
    assert dict(zip(attributes[::2], attributes[1::2], strict=True))["value"] == "Send"
    assert await outline_backend_id(page, send.world, 10_000_000) is None
    # A removed node is gone from the registry's answers, though it kept its number.
    await tools.evaluate(page, "document.querySelector('input[value=Send]').remove()")
    assert await outline_backend_id(page, send.world, send.id) is None


async def test_page_scripts_cannot_see_or_break_the_engine(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """It runs in its own world: the page's globals and prototypes are not the ones it
    uses, and its registry is not visible to the page."""
    before = await _outline(page, server)
    await tools.evaluate(page, """(() => {
        window.getComputedStyle = () => { throw new Error('page broke getComputedStyle'); };
        Array.prototype.push = function() { throw new Error('page broke push'); };
        window.WeakMap = null;
        Element.prototype.getAttribute = () => 'page';
    })()""")
    after = await page_outline(page)
    assert [(e.id, e.role, e.name) for e in after] == [(e.id, e.role, e.name) for e in before]
    assert await tools.evaluate(page, "typeof globalThis.__cdpkitOutline") == "undefined"


async def test_a_new_document_gets_a_new_world(page: cdpkit.Page, server: FixtureServer) -> None:
    await _outline(page, server)
    await tools.navigate(page, server.url("/outline/frame.html"))
    entries = await page_outline(page)
    assert [(e.role, e.name) for e in entries] == [
        ("RootWebArea", "Frame doc"), ("button", "Frame button"), ("link", "Frame link")]


async def test_a_cross_origin_iframe_is_walked_in_its_own_world_and_stitched_in(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    """Another origin's document is out of the page world's reach: it is walked in a world
    of its own frame, listed under its iframe with boxes in the page's viewport, and the
    walk goes on after it."""
    await tools.navigate(page, server.url("/outline/frame.html"))
    await tools.evaluate(page, f"""new Promise(resolve => {{
        const frame = document.createElement('iframe');
        frame.title = 'Elsewhere';
        frame.style = 'border: 3px solid; padding: 5px; margin-left: 40px';
        frame.onload = () => resolve(true);
        frame.src = {other_server.url('/outline/frame.html')!r};
        document.body.append(frame);
        const after = document.createElement('button');
        after.textContent = 'After the frame';
        document.body.append(after);
    }})""")
    entries = await page_outline(page)
    roles = [(e.role, e.name, e.depth) for e in entries]
    at = roles.index(("Iframe", "Elsewhere", 1))
    assert roles[at:] == [
        ("Iframe", "Elsewhere", 1), ("RootWebArea", "Frame doc", 2),
        ("button", "Frame button", 3), ("link", "Frame link", 3),
        ("button", "After the frame", 1),
    ]
    frame, button = entries[at], entries[at + 2]
    assert button.frame_id != frame.frame_id and button.world != frame.world
    assert frame.box is not None and button.box is not None
    # Inside the iframe's border and padding, plus the button's margin (20, 10).
    assert (round(button.box.x - frame.box.x), round(button.box.y - frame.box.y)) == (
        3 + 5 + 20, 3 + 5 + 10)
    assert (await _node(button)).node_name == "BUTTON"


async def test_indices_of_a_full_snapshot_still_work_after_a_scoped_one(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """A scoped snapshot walks only its subtree; the elements the full one listed outside
    it keep their index, and it still reaches them (in the frame's world too)."""
    await _outline(page, server)
    full = await tools.snapshot(page)
    frame_button = next(n for n in full.nodes if n.name == "Frame button")
    send = next(n for n in full.nodes if n.role == "button" and n.name == "Send")
    scoped = await tools.snapshot(page, selector="fieldset")
    assert "Send" not in scoped.text and "Frame button" not in scoped.text
    for node in (send, frame_button):
        element = await resolve_element(page, index=node.index)
        try:
            assert await element.call("function() { return this.localName; }") in (
                "input", "button")
        finally:
            await element.release()
    # The same elements get the same indices in the next full snapshot.
    again = await tools.snapshot(page)
    assert [(n.index, n.name) for n in again.nodes] == [(n.index, n.name) for n in full.nodes]


async def test_a_frame_that_loads_another_document_gets_new_indices(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """The new document's elements are new elements: new indices; the old ones fail as
    removed, never reaching an element of the new document."""
    await _outline(page, server)
    before = await tools.snapshot(page)
    old = next(n for n in before.nodes if n.name == "Frame button")
    await tools.evaluate(page, """new Promise(resolve => {
        const frame = document.querySelector('iframe');
        frame.onload = () => resolve(true);
        frame.src = 'frame.html?again';
    })""")
    after = await tools.snapshot(page)
    new = next(n for n in after.nodes if n.name == "Frame button")
    assert new.index != old.index and new.index > max(n.index for n in before.nodes)
    with pytest.raises(cdpkit.ElementNotFoundError, match="that element was removed"):
        await resolve_element(page, index=old.index)
    element = await resolve_element(page, index=new.index)
    await element.release()


async def test_a_snapshot_scoped_to_an_iframe_or_a_document_keeps_the_indices(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """Scoped by the index of an Iframe line: the frame's document under it, with the
    indices and boxes of the full snapshot; scoped by the top document's: the whole page."""
    await _outline(page, server)
    full = await tools.snapshot(page)
    lines = {n.index: (n.role, n.name, n.box) for n in full.nodes}
    frame = next(n for n in full.nodes if n.role == "Iframe")
    scoped = await tools.snapshot(page, index=frame.index)
    assert [(n.role, n.name) for n in scoped.nodes] == [
        ("Iframe", "Inner frame"), ("RootWebArea", "Frame doc"), ("button", "Frame button"),
        ("link", "Frame link")]
    assert all(lines[n.index] == (n.role, n.name, n.box) for n in scoped.nodes)
    assert [n.depth for n in scoped.nodes] == [0, 1, 2, 2]
    whole = await tools.snapshot(page, index=full.nodes[0].index)
    assert whole.text == full.text


async def _user_agent_shadow_nodes(page: cdpkit.Page) -> set[int]:
    """The backend ids of the nodes inside user-agent shadow roots (a media element's
    controls, a <use>'s copy of its symbol): Chrome lists some, out of the engine's reach."""
    document = (await page.send(cdp.dom.get_document(depth=-1, pierce=True))).root
    inside: set[int] = set()

    def visit(node: cdp.dom.Node, hidden: bool) -> None:
        if hidden:
            inside.add(int(node.backend_node_id))
        for child in node.children or []:
            visit(child, hidden)
        for root in node.shadow_roots or []:
            visit(root, hidden or root.shadow_root_type == "user-agent")

    visit(document, False)
    return inside


_Lines = dict[int, tuple[str, str, tuple[str, ...]]]


async def _compare_with_chrome(page: cdpkit.Page) -> tuple[_Lines, _Lines]:
    """Both outlines of the page, by DOM node: (role, name, states) of each line, the
    lines Chrome lists from user-agent shadow roots left out."""
    chrome = await chrome_lines(page)
    engine = await engine_lines(page)
    hidden = await _user_agent_shadow_nodes(page)
    return (
        {key: (line.role, line.name, tuple(sorted(line.states)))
         for key, line in chrome.items() if key not in hidden},
        {key: (line.role, line.name, tuple(sorted(line.states))) for key, line in engine.items()},
    )


async def test_names_are_joined_as_chrome_joins_them(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """Parts of a name taken from content: a space between boxes of their own (a block,
    an inline-block, display: contents), controls and parts named by an attribute; none
    between inline text, nor for white space Chrome leaves out (next to a comment,
    hidden content or an empty element)."""
    await tools.navigate(page, server.url("/outline/joins.html"))
    chrome, engine = await _compare_with_chrome(page)
    assert engine == chrome
    names = {name for role, name, _ in engine.values() if role in ("link", "heading", "button")}
    for expected in (
        "37/50All aboard the iron ore train", "Kept apart", "Ethnic groups (2018)", "Joinedup", "Hiddenbetween",
        "Plaininlinebold", "Before contents after", "Before block after",
        "Emptyinline-block", "Empty block", "Word labelled here", "Deep labelled inside",
        "Outerinner labelledafter", "By Other reference", "Icon button text",
        "Decorationgone", "Picture alt text", "Break here", "Seenshownend",
        "Liveregionsout", "Meter 5 value", "Progress 4 value", "Ruby 漢 text", "Starred",
    ):
        assert expected in names, expected


async def test_media_elements_are_named_as_chrome_names_them(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """A <video>/<audio> that cannot play is "Unable to play media." and disabled, in
    place of its own name (Chrome's words); one that can play keeps its name. Their
    controls are in a closed user-agent shadow root: listed by Chrome, not by the engine
    (no node of theirs to number or measure), the element stands for them."""
    await tools.navigate(page, server.url("/outline/media.html"))
    # The sound loaded, the missing clip failed.
    settled = await tools.evaluate(page, """new Promise(resolve => {
        const started = Date.now();
        const check = () => {
            const ready = [...document.querySelectorAll('audio[src]')]
                .every(audio => audio.readyState >= 1) &&
                document.querySelector('video[src]').error !== null;
            if (ready || Date.now() - started > 5000) resolve(ready);
            else setTimeout(check, 20);
        };
        check();
    })""")
    assert settled is True
    chrome, engine = await _compare_with_chrome(page)
    assert engine == chrome
    media = sorted((role, name, states) for role, name, states in engine.values()
                   if role in ("Video", "Audio"))
    assert media == sorted([
        ("Video", "Unable to play media.", ("disabled",)),
        ("Audio", "Unable to play media.", ("disabled",)),
        ("Video", "Unable to play media.", ("disabled",)),
        ("Audio", "Unable to play media.", ("disabled",)),
        ("Audio", "Chime", ()),
        ("Audio", "", ()),
    ])
    assert ("link", "Anthem Unable to play media. recording", ()) in engine.values()


async def test_svg_parts_and_uses_are_listed_as_chrome_lists_them(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """An svg of unnamed shapes is one image, an empty one nothing; named groups and
    shapes make it a document of its own (SvgRoot) listing them; a <use> of a titled
    symbol is that symbol's group (Chrome lists the user-agent copy of the symbol, the
    engine the <use> element, which has a box)."""
    await tools.navigate(page, server.url("/outline/svg.html"))
    chrome, engine = await _compare_with_chrome(page)
    uses = {key: line for key, line in engine.items() if line[:2] == ("group", "Star")}
    assert len(uses) == 2
    for key in uses:
        assert (await page.send(cdp.dom.describe_node(
            backend_node_id=cdp.dom.BackendNodeId(key)))).node.node_name == "use"
    assert {k: v for k, v in engine.items() if k not in uses} == chrome
    lines = [(role, name) for role, name, _ in engine.values() if role != "StaticText"]
    assert lines == [
        ("RootWebArea", "Outline svg"), ("image", ""),  # the definitions' svg: no box
        ("image", ""), ("link", "Emptysvg"),
        ("SvgRoot", ""), ("group", "Group title"), ("SvgRoot", ""), ("group", "Labelled group"),
        ("SvgRoot", ""), ("graphics-symbol", "Square"), ("SvgRoot", ""),
        ("graphics-symbol", "Circle"), ("SvgRoot", ""), ("image", "Drawn image"),
        ("SvgRoot", ""), ("group", "Star"), ("image", ""),
        ("link", "Star Favourite"), ("SvgRoot", ""), ("group", "Star"),
        ("image", "Titled"), ("button", "Close"), ("image", "Close"),
    ]


async def test_empty_paragraphs_are_left_out_as_chrome_leaves_them_out(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """A <p> with nothing laid out inside is left out, unless an id, an ARIA attribute
    or focus may make it matter; other empty blocks stay."""
    await tools.navigate(page, server.url("/outline/paragraphs.html"))
    chrome, engine = await _compare_with_chrome(page)
    assert engine == chrome
    assert sum(role == "paragraph" for role, _, _ in engine.values()) == 7


async def test_labels_references_and_fields_name_as_in_chrome(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """An element labelled by itself is named by its content, each reference on its own;
    an empty field inside a name gives its label or placeholder; a label is not named by
    its text and a plain one for a checkbox or radio is left out; an empty label names an
    image button; an image's text is listed but not given to its link; an explicitly empty
    value or alt leaves a button or image unnamed, its title notwithstanding; a label naming
    its checkbox alone is left out; a name stops at Chrome's 100 nodes."""
    await tools.navigate(page, server.url("/outline/naming.html"))
    chrome, engine = await _compare_with_chrome(page)
    assert engine == chrome
    lines = [(role, name) for role, name, _ in engine.values()]
    for expected in (
        ("dialog", "Previous image Next image"),
        ("region", "Area title Area body Area title"),
        ("link", "Find Query now"), ("link", "Type a word here"), ("link", "Say hello aloud"),
        ("LabelText", ""), ("StaticText", "Show"), ("checkbox", "Show menu"),
        ("button", ""), ("link", "Sunny"), ("StaticText", "☀"), ("link", "Labelled link"),
        ("PluginObject", ""),
    ):
        assert expected in lines, expected
    assert ("StaticText", "Light") not in lines and ("radio", "Light") in lines
    assert ("button", "Search") not in lines and ("image", "Decorative") not in lines
    assert [name for role, name in lines if role in ("button", "image")].count("") == 5
    texts = [name for role, name in lines if role == "StaticText"]
    assert "Accept terms" not in texts and ("checkbox", "Accept terms") in lines
    assert "Notify me. You can" in texts and "Email" in texts
    # Each word a code element, its text and a blank: the name stops past 100 nodes.
    heading = [name for role, name in lines if role == "heading"][-1]
    assert heading.startswith("w0 w1 ") and heading.endswith(" w32")
    assert "w33" not in heading and "w79" in texts
