"""The snapshot's ``"chrome"`` engine: the outline read from Chrome's own accessibility tree.

One ``Accessibility.getFullAXTree`` per document gives roles, names, values and states; one
``DOMSnapshot.captureSnapshot`` per renderer process gives the layout box of every node in
the same round trip: it is sent second, so Chrome captures the layout while Python decodes
the (much larger) accessibility tree, with a decoder that reads only the fields the outline
uses (:func:`ax_tree_decoder`). Frames are stitched under their ``<iframe>``: same-process
ones (same site) through their frame id, out-of-process ones (another site) through their
own session (:meth:`cdpkit.Page.frame_sessions`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import msgspec

from ... import cdp
from ..._browser.frames import content_origin
from ...errors import ConnectionClosedError, ProtocolError
from ...page import Page
from ...session import Session
from .._elements import Box

if TYPE_CHECKING:
    # The raw JSON shapes of the two big results, checked by the type checker only: the
    # snapshot reads them through Session.send_json, the typed fast path (building the
    # models of 19,000 AX nodes would cost more than the call; see send_json).
    from ...cdp.accessibility import AXNodeJSON, AXPropertyJSON
    from ...cdp.dom_snapshot import CaptureSnapshotResultJSON, DocumentSnapshotJSON

from ._outline_model import (
    DROPPED,
    INTERACTIVE_ROLES,
    LEAF_CONTROLS,
    NOT_INTERACTIVE,
    TEXT_ROLES,
    UNNAMED_NOISE,
    Filters,
    SnapshotNode,
    SnapshotState,
    ax_focusable,
    filter_matches,
    quote_text,
)

__all__ = ["Collected", "ax_tree_decoder", "build_outline", "capture_decoder", "collect_session"]

# -- collecting the trees ---------------------------------------------------------------------


@dataclass(slots=True)
class _Tree:
    """The accessibility tree of one document, and how to place its boxes on screen."""

    session: Session
    frame_id: str | None
    nodes: list[AXNodeJSON]
    boxes: dict[int, list[float]]  # backend node id -> [x, y, w, h] in document coordinates
    offset: tuple[float, float] | None  # document -> viewport; None when not on screen


@dataclass(slots=True)
class Collected:
    root: _Tree | None = None
    # Documents inside an <iframe>, by (session of the iframe element, its backend node id).
    children: dict[tuple[int, int], _Tree] = field(default_factory=dict)


# The parts of an ``Accessibility.getFullAXTree`` answer the outline reads. Decoded to this
# shape, the answer of a 5,000-element page leaves out the name sources and ignored
# reasons: half of its 500,000 objects, which decoding, then freeing, would cost ~60 ms.
class _AXValue(TypedDict, total=False):
    type: str
    value: Any


class _AXProperty(TypedDict):
    name: str
    value: _AXValue


class _AXNode(TypedDict):
    nodeId: str
    ignored: NotRequired[bool]
    role: NotRequired[_AXValue]
    name: NotRequired[_AXValue]
    value: NotRequired[_AXValue]
    properties: NotRequired[list[_AXProperty]]
    parentId: NotRequired[str]
    childIds: NotRequired[list[str]]
    backendDOMNodeId: NotRequired[int]
    frameId: NotRequired[str]


class _AXTreeResult(TypedDict):
    nodes: list[_AXNode]


class _AXTreeAnswer(TypedDict, total=False):
    id: int
    result: _AXTreeResult
    error: Any
    sessionId: str


# The parts of a ``DOMSnapshot.captureSnapshot`` answer the boxes come from (no names,
# values, attributes or text boxes of the page's nodes). Numbers stay as Chrome wrote them.
class _CapturedIndices(TypedDict):
    index: list[int]
    value: list[int]


class _CapturedNodes(TypedDict, total=False):
    backendNodeId: list[int]
    contentDocumentIndex: _CapturedIndices


class _CapturedLayout(TypedDict):
    nodeIndex: list[int]
    bounds: list[list[Any]]


class _CapturedDocument(TypedDict, total=False):
    nodes: _CapturedNodes
    layout: _CapturedLayout
    frameId: int
    scrollOffsetX: Any
    scrollOffsetY: Any


class _CaptureResult(TypedDict, total=False):
    documents: list[_CapturedDocument]
    strings: list[str]


class _CaptureAnswer(TypedDict, total=False):
    id: int
    result: _CaptureResult
    error: Any
    sessionId: str


@functools.cache
def capture_decoder() -> Callable[[str | bytes], Any]:
    """Decodes a captureSnapshot answer to the fields the boxes come from, like
    :func:`ax_tree_decoder`."""
    return msgspec.json.Decoder(_CaptureAnswer).decode


@functools.cache
def ax_tree_decoder() -> Callable[[str | bytes], Any]:
    """Decodes a getFullAXTree answer to the fields the outline reads (msgspec skips the
    others without building them). Anything msgspec refuses (a lone surrogate, a field of
    another type) goes to ``json.loads`` (see :meth:`cdpkit.Session.call`)."""
    return msgspec.json.Decoder(_AXTreeAnswer).decode


async def _ax_tree(session: Session, frame_id: str | None = None) -> list[AXNodeJSON]:
    """The accessibility tree of ``session``'s main document (or of its same-process frame
    ``frame_id``), as the fields the outline reads."""
    command = cdp.accessibility.get_full_ax_tree(
        frame_id=None if frame_id is None else cdp.page.FrameId(frame_id)
    )
    tree = await session.send_json(command, decoder=ax_tree_decoder())
    return tree["nodes"]


def _documents(capture: CaptureSnapshotResultJSON) -> list[DocumentSnapshotJSON]:
    return capture.get("documents") or []


def _layout_boxes(document: DocumentSnapshotJSON) -> dict[int, list[float]]:
    backend = document["nodes"]["backendNodeId"]
    layout = document["layout"]
    return dict(zip(map(backend.__getitem__, layout["nodeIndex"]), layout["bounds"], strict=False))


def _scroll(document: DocumentSnapshotJSON) -> tuple[float, float]:
    return (float(document.get("scrollOffsetX", 0)), float(document.get("scrollOffsetY", 0)))


async def collect_session(
    page: Page,
    session: Session,
    origin: tuple[float, float] | None,
    collected: Collected,
    owner: tuple[int, int] | None,
) -> None:
    """Collect the documents of ``session`` (and, recursively, of its out-of-process
    frames). ``origin``: where the session's viewport is in the page's viewport."""
    attach = asyncio.ensure_future(page.frame_sessions(session))
    try:
        # The accessibility tree first: Chrome captures the layout while Python decodes it.
        ax_nodes, capture = await asyncio.gather(
            _ax_tree(session),
            session.send_json(
                cdp.dom_snapshot.capture_snapshot(computed_styles=[]), decoder=capture_decoder()
            ),
        )
        frames = await attach
    except BaseException:
        attach.cancel()
        await asyncio.gather(attach, return_exceptions=True)
        raise
    documents, strings = _documents(capture), capture.get("strings") or []
    if not documents:
        return
    session_key = id(session)

    def offset(
        document: DocumentSnapshotJSON, at: tuple[float, float] | None
    ) -> tuple[float, float] | None:
        if at is None:
            return None
        sx, sy = _scroll(document)
        return (at[0] - sx, at[1] - sy)

    main = documents[0]
    tree = _Tree(
        session, _frame_of(ax_nodes), ax_nodes, _layout_boxes(main), offset(main, origin)
    )
    if owner is None:
        collected.root = tree
    else:
        collected.children[owner] = tree

    # Same-process child documents: their <iframe> element, by document index.
    owners: dict[int, int] = {}
    for document in documents:
        content = document["nodes"].get("contentDocumentIndex")
        if content:
            backend = document["nodes"]["backendNodeId"]
            for node_index, document_index in zip(content["index"], content["value"], strict=False):
                owners[document_index] = backend[node_index]

    async def child_document(index: int, document: DocumentSnapshotJSON) -> None:
        backend_id = owners.get(index)
        frame_index = document.get("frameId")
        if backend_id is None or frame_index is None:
            return
        frame_id = strings[frame_index]
        with contextlib.suppress(ProtocolError):
            child_nodes, at = await asyncio.gather(
                _ax_tree(session, frame_id),
                content_origin(session, cdp.dom.BackendNodeId(backend_id)),
            )
            if at is not None and origin is not None:
                at = (at[0] + origin[0], at[1] + origin[1])
            else:
                at = None
            collected.children[(session_key, backend_id)] = _Tree(
                session, frame_id, child_nodes, _layout_boxes(document), offset(document, at)
            )

    async def out_of_process(frame_id: str, child: Session) -> None:
        try:
            owner = await session.send(cdp.dom.get_frame_owner(cdp.page.FrameId(frame_id)))
            owner_id = owner.backend_node_id
            at = await content_origin(session, owner_id)
            if at is not None and origin is not None:
                at = (at[0] + origin[0], at[1] + origin[1])
            else:
                at = None
            await collect_session(page, child, at, collected, (session_key, owner_id))
        except (ProtocolError, ConnectionClosedError):
            pass  # the frame went away meanwhile: left out

    await asyncio.gather(
        *(child_document(i, d) for i, d in enumerate(documents) if i > 0),
        *(out_of_process(f, s) for f, s in frames),
    )


def _frame_of(nodes: list[AXNodeJSON]) -> str | None:
    if nodes:
        frame_id = nodes[0].get("frameId")
        if isinstance(frame_id, str):
            return frame_id
    return None


# A node's accessibility id: itemgetter indexes 19,000 nodes without a Python call each.
_node_id: Callable[[AXNodeJSON], str] = itemgetter("nodeId")


# -- building the outline ---------------------------------------------------------------------


# List items carry a nesting level that the indentation already shows.
_UNLEVELLED = frozenset({"listitem", "list"})
_FLAG_STATES = frozenset(
    {"disabled", "selected", "required", "readonly", "focused", "modal", "busy", "multiselectable"}
)
_STATE_NAMES = _FLAG_STATES | {"checked", "pressed", "expanded", "level", "invalid"}


def _states(role: str, properties: list[AXPropertyJSON]) -> tuple[str, ...]:
    states: list[str] = []
    for prop in properties:
        name = prop["name"]
        if name not in _STATE_NAMES:
            continue
        value = prop["value"].get("value")
        if name in _FLAG_STATES:
            if value is True:
                states.append(name)
        elif name == "checked" or name == "pressed":
            if value == "true" or value is True:
                states.append(name)
            elif value == "mixed":
                states.append("mixed")
        elif name == "expanded":
            states.append("expanded" if value else "collapsed")
        elif name == "level":
            if role not in _UNLEVELLED:
                states.append(f"level={value}")
        elif value not in ("false", False, None):  # invalid
            states.append("invalid")
    return tuple(states) if states else ()


def _value(node: AXNodeJSON) -> str | None:
    value = node.get("value")
    if value is None:
        return None
    raw = value.get("value")
    if raw is None or raw == "":
        return None
    return str(raw)


def build_outline(
    collected: Collected, filters: Filters, state: SnapshotState
) -> tuple[list[str], list[SnapshotNode]]:
    """Walk the trees depth-first in document order and write one line per kept node,
    numbered by ``state``'s stable numbering (a node seen before keeps its index)."""
    nodes: list[SnapshotNode] = []
    lines: list[str] = []
    if collected.root is None:
        return lines, nodes
    next_index, listed, numbering = state.next_index, state.listed, state.indices
    children, filtering, boxes, max_depth = collected.children, filters.any, filters.boxes, filters.depth
    selection = filters.root.key if filters.root is not None else None
    add_node, add_line = nodes.append, lines.append
    # Hot loop (a node of the tree per turn): everything it uses is local.
    dropped, text_roles, leaf_controls, noise = DROPPED, TEXT_ROLES, LEAF_CONTROLS, UNNAMED_NOISE
    focusable, matches = ax_focusable, filter_matches
    # An explicit stack of (node, context); siblings share their context: (tree, nodes by
    # id, tree depth, display depth, parent's text, inside the selection, the numbering
    # of the tree's session).
    Context = tuple[_Tree, dict[str, "AXNodeJSON"], int, int, str, bool, dict[Any, int]]
    stack: list[tuple[AXNodeJSON, Context]] = []
    push, pop, extend = stack.append, stack.pop, stack.extend

    def push_tree(tree: _Tree, depth: int, display: int, selected: bool) -> None:
        top = _tree_top(tree, numbering)
        if top is not None:
            root, by_id, indices = top
            push((root, (tree, by_id, depth, display, "", selected, indices)))

    push_tree(collected.root, 0, 0, selection is None)
    while stack:
        node, context = pop()
        tree, by_id, depth, display, parent_text, selected, indices = context
        backend_id: int | None = node.get("backendDOMNodeId")
        if not selected and backend_id is not None and (id(tree.session), backend_id) == selection:
            selected = True
            depth = display = 0
            context = (tree, by_id, 0, 0, parent_text, True, indices)
        if node.get("ignored"):
            if backend_id is not None and children:
                inner = children.get((id(tree.session), backend_id))
                if inner is not None:  # an ignored <iframe>
                    push_tree(inner, depth, display, selected)
                    continue
        else:
            role: str = node["role"]["value"]
            if role in dropped:
                continue
            name = node["name"]["value"] if "name" in node else ""
            if type(name) is not str:
                name = str(name)
            properties = node.get("properties")
            if role in text_roles and (name == "" or name.isspace() or name.strip() in parent_text):
                continue  # text its parent's name already says
            if not (role in noise and not name) or focusable(properties):
                if selected and max_depth is not None and depth > max_depth:
                    continue
                shown = selected and (not filtering or matches(filters, role, name, properties))
                if shown:
                    # Stable: a DOM node keeps its number while it lives; a node that is
                    # not one is known by its frame and accessibility id.
                    node_key: Any = backend_id if backend_id is not None else (tree.frame_id, node["nodeId"])
                    index = indices.get(node_key)
                    if index is None:
                        index = indices[node_key] = next_index
                        next_index += 1
                    line, listed_node = _written(node, tree, index, role, name, properties, display, backend_id, boxes)
                    add_line(line)
                    listed[index] = listed_node
                    add_node(listed_node)
                if role in text_roles or role in leaf_controls:
                    continue  # inline text boxes, a field's inner editor
                # an editable's text is its value
                text = f"{name} {node['value'].get('value', '')}" if "value" in node else name
                context = (
                    tree, by_id, depth + 1, display + 1 if shown else display, text, selected,
                    indices,
                )
            if role == "Iframe" and backend_id is not None:
                inner = children.get((id(tree.session), backend_id))
                if inner is not None:
                    push_tree(inner, context[2], context[3], selected)
                    continue
        child_ids = node.get("childIds")
        if child_ids:
            extend(zip([by_id[i] for i in reversed(child_ids) if i in by_id], repeat(context)))
    state.next_index = next_index
    return lines, nodes


def _tree_top(
    tree: _Tree, numbering: dict[str, dict[Any, int]]
) -> tuple[AXNodeJSON, dict[str, AXNodeJSON], dict[Any, int]] | None:
    """A tree's root node, its nodes by id and its session's numbering; ``None`` for an
    empty tree."""
    if not tree.nodes:
        return None
    by_id = dict(zip(map(_node_id, tree.nodes), tree.nodes, strict=True))
    root = tree.nodes[0]
    if "parentId" in root:
        root = next((n for n in tree.nodes if "parentId" not in n), root)
    key = tree.session.session_id or ""
    indices = numbering.get(key)
    if indices is None:
        indices = numbering[key] = {}
    return root, by_id, indices


def _written(
    node: AXNodeJSON, tree: _Tree, index: int, role: str, name: str, properties: Any,
    display: int, backend_id: int | None, boxes: str | None,
) -> tuple[str, SnapshotNode]:
    """A kept node's line (``[index] role "name" @(box) value=... [states]``) and its
    :class:`SnapshotNode`."""
    value = _value(node) if "value" in node else None
    if value is not None and value == name:
        value = None
    states = _states(role, properties) if properties else ()
    box = None
    line = f"{'  ' * display}[{index}] {role}"
    if name:
        line += " " + quote_text(name)
    if backend_id is not None:
        bounds = tree.boxes.get(backend_id)
        if bounds is not None and tree.offset is not None:
            dx, dy = tree.offset
            box = Box(bounds[0] + dx, bounds[1] + dy, bounds[2], bounds[3])
            if boxes == "all" or (boxes == "interactive" and (role in INTERACTIVE_ROLES or (
                role not in NOT_INTERACTIVE and ax_focusable(properties)
            ))):  # fmt: skip
                line += f" @({round(box.x)},{round(box.y)},{round(box.width)},{round(box.height)})"
    if value is not None:
        line += " value=" + quote_text(value)
    if states:
        line += " [" + "] [".join(states) + "]"
    listed = SnapshotNode(
        index, role, name, value, states, display, box, backend_id, tree.session, tree.frame_id
    )
    return line, listed
