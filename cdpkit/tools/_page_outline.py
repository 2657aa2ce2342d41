"""A prototype outline engine that computes the page's accessibility outline in the page.

``tools.snapshot`` asks Chrome for its whole accessibility tree (``getFullAXTree``), which
costs Chrome most of the snapshot's time. :func:`page_outline` instead runs one script
(``_js/outline.js``) that walks the document's composed tree (open shadow roots, slotted
content, same-origin iframes) and computes roles, names, values, states and boxes itself,
with Chrome's role names, so that its lines read like the snapshot's. It is measured
against Chrome's tree by ``benchmarks/cases/outline_fidelity.py``, and is not yet what
``tools.snapshot`` or the MCP server use.

The script runs in an isolated world of the main frame (``Page.createIsolatedWorld``), so
the page's own scripts can neither see its registry nor break it by replacing built-ins.
That world keeps, while the document lives, a stable number per node
(``globalThis.__cdpkitOutline``): :func:`outline_element` resolves a number from the last
walk back to a handle on its node.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from .. import cdp
from ..cdp.runtime import ExecutionContextId, RemoteObject
from ..errors import ProtocolError
from ..page import Page
from ._scripts import Script, check_exception
from ._targeting import Box

__all__ = ["OutlineEntry", "outline_element", "outline_text", "page_outline"]

_OUTLINE = Script("outline")
_WORLD_NAME = "cdpkit-outline"
# Where the world keeps the script's function once sent.
_WALK = "__cdpkitOutlineWalk"
# Longest name or value written in a line (the entry keeps the full one), as the snapshot.
_MAX_TEXT = 200


@dataclass(slots=True)
class OutlineEntry:
    """One node of the in-page outline.

    Attributes:
        id: The node's number in the outline world's registry: the same node keeps it in
            later outlines of the document (see :func:`outline_element`).
        depth: How many entries it is nested under (0 for the document).
        role: The role, with Chrome's names (``StaticText``, ``RootWebArea``, ``Iframe``...).
        name: The accessible name, whitespace collapsed.
        value: The value of a field, select, slider..., or ``None``.
        states: States such as ``"checked"``, ``"disabled"``, ``"level=2"``.
        box: Its box in CSS pixels of the top viewport, ``None`` when it has none.
    """

    id: int
    depth: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    box: Box | None


# An entry as the script writes it: [depth, id, role, name, value, states, x, y, w, h]
# (x, y are null when the node has no box).
_RawEntry = tuple[int, int, str, str, "str | None", str, "float | None", float, float, float]


@dataclass(slots=True)
class _OutlineWorld:
    """The isolated world the outline runs in: its context in the page's main frame."""

    context_id: int | None = None
    installed_in: int | None = None  # the context holding the script's function, if any


async def _world(page: Page, fresh: bool = False) -> int:
    """The execution context of the outline's world in ``page``'s main frame, created on
    first use (and again when ``fresh``: the document it lived in is gone)."""
    state = page.state(_OutlineWorld)
    if state.context_id is None or fresh:
        tree = await page.send(cdp.page.get_frame_tree())
        created = await page.send(
            cdp.page.create_isolated_world(tree.frame_tree.frame.id, world_name=_WORLD_NAME)
        )
        state.context_id = int(created.execution_context_id)
    return state.context_id


async def _walk(page: Page) -> RemoteObject:
    """Run the outline script in its world; its result (a JSON string). The script's
    function is sent once per world and kept there (a page of a few elements then costs
    one short call, not the compilation of the script each time). When the page has
    loaded another document since, the world is gone with it: made again, once."""
    state = page.state(_OutlineWorld)
    for attempt in range(2):
        context = await _world(page, fresh=attempt > 0)
        if state.installed_in == context:
            expression = f"globalThis.{_WALK}({{}})"
        else:
            expression = f"(globalThis.{_WALK} = ({_OUTLINE.source}))({{}})"
        try:
            result = await page.send(
                cdp.runtime.evaluate(
                    expression, context_id=ExecutionContextId(context), return_by_value=True
                )
            )
        except ProtocolError as error:
            if attempt == 0 and "context" in error.message.lower():
                continue
            raise
        check_exception(result.exception_details)
        state.installed_in = context
        return result.result
    raise AssertionError("unreachable")


async def page_outline(page: Page) -> list[OutlineEntry]:
    """The page's outline computed in the page: one entry per node the snapshot would list
    (controls, landmarks, headings, text...), in document order, same-origin iframes'
    documents under their ``Iframe`` entry (other iframes: that entry alone).

    Raises:
        EvaluationError: The outline script failed in the page.
        TargetClosedError: The page is closed.
    """
    result = await _walk(page)
    if not isinstance(result.value, str):
        return []
    raw: list[_RawEntry] = msgspec.json.decode(result.value)
    entry, box = OutlineEntry, Box
    return [
        entry(node_id, depth, role, name, value, tuple(states.split()) if states else (),
              None if x is None else box(x, y, width, height))
        for depth, node_id, role, name, value, states, x, y, width, height in raw
    ]


async def outline_element(page: Page, node_id: int) -> str | None:
    """A ``Runtime.RemoteObjectId`` (in the outline's world) of the node numbered ``node_id``
    by the latest :func:`page_outline` of the page, or ``None`` when that walk did not list it
    (or the page has loaded another document since)."""
    state = page.state(_OutlineWorld)
    if state.context_id is None:
        return None
    try:
        result = await page.send(
            cdp.runtime.evaluate(
                f"globalThis.__cdpkitOutline ? globalThis.__cdpkitOutline.element({int(node_id)})"
                " : null",
                context_id=ExecutionContextId(state.context_id),
            )
        )
    except ProtocolError:
        return None
    check_exception(result.exception_details)
    return None if result.result.object_id is None else str(result.result.object_id)


def _quote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def outline_text(entries: list[OutlineEntry]) -> str:
    """The entries as the snapshot writes its lines, one per entry, indented by depth:
    ``[id] role "name" @(x,y,w,h) value="..." [state]...``."""
    lines = []
    for entry in entries:
        line = f"{'  ' * entry.depth}[{entry.id}] {entry.role}"
        if entry.name:
            line += " " + _quote(entry.name)
        box = entry.box
        if box is not None:
            line += f" @({round(box.x)},{round(box.y)},{round(box.width)},{round(box.height)})"
        if entry.value is not None:
            line += " value=" + _quote(entry.value)
        if entry.states:
            line += " [" + "] [".join(entry.states) + "]"
        lines.append(line)
    return "\n".join(lines)
