"""Resolve the element a tool acts on: exactly one of ``selector=``, ``index=`` or ``x=``/``y=``.

* ``selector``: a CSS selector, found by the one finder every tool shares
  (``_js/find.js``): the document first, then each open shadow root in the document
  order of its host (a root nested in a shadow tree right after the root holding its
  host), so components are reachable without piercing syntax. The first match in that
  order is the element; tools listing matches list them in that order. Closed shadow
  roots are not searched, nor are iframes (same-origin or not): a selector names an
  element of the page's own document; reach into a frame with ``index`` or ``x``/``y``.
  A selector the browser rejects is ``ValueError: Invalid CSS selector: '...'`` for
  every tool.
* ``index``: a line of a :func:`~cdpkit.tools.snapshot` of the same page; indices are
  stable while the element lives and the page shows the same document (see
  :class:`SnapshotState`).
* ``x``/``y``: viewport CSS pixels; the element there (``document.elementFromPoint``).

Errors are worded for the person or model that chose the target.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import cdp
from .._frames import frame_tree
from ..cdp.runtime import RemoteObjectId
from ..errors import CDPError, ElementNotFoundError, EvaluationError, ProtocolError
from ..page import Page
from ..session import Session
from ._scripts import Script, call_function, evaluate_handle

if TYPE_CHECKING:
    from .accessibility import Snapshot, SnapshotNode

__all__ = [
    "Box",
    "Element",
    "Point",
    "SnapshotState",
    "check_one_target",
    "main_document",
    "outline_backend_id",
    "release_remote",
    "resolve_element",
    "stale_message",
]

TARGET_HELP = "Provide one of: selector, index, or x/y"

_QUERY_SELECTOR = Script("query_selector", uses=("find",))
_ELEMENT_AT_POINT = Script("element_at_point")
_IS_CONNECTED = Script("is_connected")



@dataclass(frozen=True, slots=True)
class Box:
    """A layout box in CSS pixels, relative to the top-left of the viewport (so ``y`` is
    larger than the viewport's height for content below the fold).

    Attributes:
        x: Left edge.
        y: Top edge.
        width: Width.
        height: Height.
    """

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        """The centre point, usable as ``x=``/``y=`` when it is inside the viewport."""
        return (self.x + self.width / 2, self.y + self.height / 2)


@dataclass(frozen=True, slots=True)
class Point:
    """A point in viewport CSS pixels."""

    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Element:
    """A resolved element: a remote object handle in the session that owns its frame.

    Attributes:
        session: The page session, or the session of the out-of-process frame holding it.
        object_id: The ``Runtime.RemoteObjectId`` of the element.
        description: How it was targeted, for error messages ("selector '#go'").
    """

    session: Session
    object_id: str
    description: str

    async def call(self, function: Script | str, *args: Any, await_promise: bool = False) -> Any:
        """Run ``function`` (a script, or the JS source of a function) with ``this`` bound
        to the element and JSON arguments; return its JSON value.

        Raises:
            EvaluationError: The function threw.
        """
        remote = await call_function(
            self.session, self.object_id, function, *args, await_promise=await_promise
        )
        return remote.value

    async def call_for_element(self, function: Script | str, *args: Any) -> Element | None:
        """Run ``function`` on the element; the element it returns (a new handle, to
        release), or ``None`` when it returns no object or throws."""
        try:
            remote = await call_function(self.session, self.object_id, function, *args, by_value=False)
        except EvaluationError:
            return None
        if remote.object_id is None:
            return None
        return Element(self.session, remote.object_id, self.description)

    async def release(self) -> None:
        """Free the page's handle on the element (best effort: a closed page or a gone
        context has freed it already)."""
        await release_remote(self.session, self.object_id)


def check_one_target(
    selector: str | None, index: int | None, x: float | None, y: float | None
) -> None:
    """Raise ``ValueError`` unless exactly one way of targeting is given."""
    given = (selector is not None) + (index is not None) + (x is not None or y is not None)
    if given != 1 or (x is None) != (y is None):
        raise ValueError(TARGET_HELP)


async def resolve_element(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> Element:
    """The element designated by exactly one of ``selector``, ``index`` or ``x``/``y``.

    Raises:
        ValueError: None or several ways given.
        ElementNotFoundError: Nothing matches; an index out of range or stale.
        TargetClosedError: The page is closed.
    """
    check_one_target(selector, index, x, y)
    if selector is not None:
        return await _by_selector(page, selector)
    if index is not None:
        return await _by_index(page, index)
    assert x is not None and y is not None
    return await _by_point(page, x, y)


async def _by_selector(page: Page, selector: str) -> Element:
    if not selector.strip():
        raise ValueError("The selector is empty")
    remote = await evaluate_handle(page, _QUERY_SELECTOR, selector, selector=selector)
    if remote.object_id is None:
        raise ElementNotFoundError(f"Element not found: {selector}")
    return Element(page, remote.object_id, f"selector {selector!r}")


async def _by_point(page: Page, x: float, y: float) -> Element:
    remote = await evaluate_handle(page, _ELEMENT_AT_POINT, x, y)
    if remote.object_id is None:
        raise ElementNotFoundError(f"No element at ({x:g}, {y:g}) in the viewport")
    return Element(page, remote.object_id, f"point ({x:g}, {y:g})")


@dataclass(slots=True)
class SnapshotState:
    """What :func:`~cdpkit.tools.snapshot` keeps about a page: the latest snapshot, and
    the stable numbering that ``index=`` targets.

    Kept with the page: read it with ``page.state(SnapshotState)``. A DOM node keeps its
    index across the snapshots of the page's document while it lives; new nodes get new
    numbers, never reused. When the page's main frame loads a new document, the next
    snapshot starts the numbering again, and indices from before fail as stale.

    Attributes:
        snapshot: The latest snapshot, ``None`` before the first.
        document: The loader id of the main-frame document the numbering belongs to.
        next_index: The number the next new node gets (how many were given so far).
        indices: Per session id: node key (backend node id, or the frame and accessibility
            id of a node that is not a DOM node) -> its index.
        listed: Index -> the node as the latest snapshot that listed it saw it.
        previous: The latest full outline per set of options (what ``diff=True``
            compares with).
    """

    snapshot: Snapshot | None = None
    document: str | None = None
    next_index: int = 0
    indices: dict[str, dict[Any, int]] = field(default_factory=dict)
    listed: dict[int, SnapshotNode] = field(default_factory=dict)
    previous: dict[Any, Any] = field(default_factory=dict)

    def restart(self, document: str | None) -> None:
        """Start a new numbering for the document ``document`` (a navigation happened)."""
        self.document = document
        self.next_index = 0
        self.indices = {}
        self.listed = {}
        self.previous = {}

    def node(self, index: int) -> SnapshotNode:
        """The node listed as ``[index]`` by a snapshot of the page's current numbering.

        Raises:
            ElementNotFoundError: No snapshot was taken yet, or no snapshot listed
                ``index`` (the message says how many indices were given).
        """
        if self.snapshot is None:
            raise ElementNotFoundError(
                f"Element index {index}: no snapshot of this page yet; take one with snapshot()"
            )
        node = self.listed.get(index)
        if node is None:
            raise ElementNotFoundError(
                f"Element index {index} out of range (snapshot has {self.next_index})"
            )
        return node


async def main_document(page: Page) -> str | None:
    """The loader id of the document the page's main frame shows (``None`` when the page
    cannot say): it changes when a navigation loads a new document, not on a
    same-document one (a fragment, ``history.pushState``)."""
    with contextlib.suppress(CDPError):
        return str((await frame_tree(page))["frame"]["loaderId"])
    return None


def stale_message(index: int, navigated: bool) -> str:
    """Why ``index`` no longer designates an element, and what to do."""
    why = (
        "the page navigated since the snapshot that listed it"
        if navigated
        else "that element was removed from the page"
    )
    return f"Element index {index} is stale: {why}; take a new snapshot"


async def _by_index(page: Page, index: int) -> Element:
    state = page.state(SnapshotState)
    node = state.node(index)
    backend_id = node.backend_node_id
    session = node.session
    # The document is checked on every use: a navigation to another site gets a new
    # renderer, whose backend node ids start again and could name a new node.
    document = await main_document(page)
    if document is not None and state.document is not None and document != state.document:
        raise ElementNotFoundError(stale_message(index, navigated=True))
    stale = ElementNotFoundError(stale_message(index, navigated=False))
    if session is not page and session.closed:
        # Its frame's session ended: the frame went, or navigated to another process.
        raise stale
    if backend_id is None and node._outline is not None:
        # Listed by the page engine: its world knows the element while it lives.
        backend_id = await outline_backend_id(session, *node._outline)
        if backend_id is None:
            raise stale
    if backend_id is None:
        raise ElementNotFoundError(
            f"Element index {index} ({node.role} {node.name!r}) is not a DOM element"
        )
    try:
        resolved = await session.send(
            cdp.dom.resolve_node(backend_node_id=cdp.dom.BackendNodeId(backend_id))
        )
    except ProtocolError:
        raise stale from None
    object_id = resolved.object.object_id
    if object_id is None:
        raise stale
    element = Element(session, object_id, f"index {index}")
    try:
        connected = await element.call(_IS_CONNECTED)
    except CDPError:
        raise stale from None
    if not connected:
        await element.release()
        raise stale
    return element


async def outline_backend_id(session: Session, world: str, node_id: int) -> int | None:
    """The backend node id of the node numbered ``node_id`` in the outline world ``world``
    (its execution context's unique id) of ``session``, or ``None`` when that node is gone
    from the page (removed, or its document replaced: the world went with it, and no other
    world ever has its unique id, so an old number never reaches a new document's node)."""
    try:
        found = await session.send_json(
            cdp.runtime.evaluate(
                f"globalThis.__cdpkitOutline ? globalThis.__cdpkitOutline.element({int(node_id)})"
                " : null",
                unique_context_id=world,
            )
        )
    except ProtocolError:
        return None  # its world went with its document
    object_id = found["result"].get("objectId")
    if object_id is None:
        return None
    try:
        described = await session.send_json(
            cdp.dom.describe_node(object_id=RemoteObjectId(object_id))
        )
    except ProtocolError:
        return None
    finally:
        await release_remote(session, object_id)
    return int(described["node"]["backendNodeId"])


async def release_remote(session: Session, object_id: str) -> None:
    """Free the page's handle on a remote object (best effort: a closed session or a gone
    context has freed it already)."""
    if not session.closed:
        with contextlib.suppress(CDPError):
            await session.send(cdp.runtime.release_object(RemoteObjectId(object_id)))
