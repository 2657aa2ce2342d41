"""The snapshot's outline model: its lines (:class:`SnapshotNode`), the snapshot
(:class:`Snapshot`) and what its budget cut (:class:`SnapshotCut`), what a page's snapshots
keep (:class:`SnapshotState`), the roles it groups, how a name or value is written, and the
filters both engines apply (:class:`Filters`, :class:`SnapshotScope`).

The types every module of the snapshot (and ``index=`` targeting) shares live here, below
all of them: this module imports none of theirs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import ElementNotFoundError
from ...session import Session
from .._elements import Box

if TYPE_CHECKING:
    # The raw JSON shape of Chrome's AX properties, checked by the type checker only: the
    # snapshot reads them through Session.send_json, the typed fast path (building the
    # models of 19,000 AX nodes would cost more than the call; see send_json).
    from ...cdp.accessibility import AXPropertyJSON

__all__ = [
    "INTERACTIVE_ROLES",
    "MAX_TEXT",
    "Filters",
    "Snapshot",
    "SnapshotCut",
    "SnapshotNode",
    "SnapshotScope",
    "SnapshotState",
    "ax_focusable",
    "filter_matches",
    "lowered_roles",
    "quote_text",
]

# Roles that are controls a user operates.
INTERACTIVE_ROLES = frozenset({
    "button", "checkbox", "combobox", "link", "listbox", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "scrollbar", "searchbox", "slider", "spinbutton",
    "switch", "tab", "textbox", "treeitem", "ToggleButton", "PopUpButton", "DisclosureTriangle",
})
# Containers that say nothing by themselves: left out unless named or focusable.
UNNAMED_NOISE = frozenset({
    "generic", "none", "presentation", "LabelText", "MenuListPopup", "Unknown", "Section",
})
# Never shown: their content is already in the parent's name.
DROPPED = frozenset({"InlineTextBox", "ListMarker", "LineBreak"})
# Their AX children are the control's own inner editor: the value says it all.
LEAF_CONTROLS = frozenset({"textbox", "searchbox", "spinbutton", "slider"})
NOT_INTERACTIVE = frozenset({"RootWebArea", "WebArea", "Iframe", "IframePresentational"})
TEXT_ROLES = frozenset({"StaticText"})

# Longest name or value written in the text (the node keeps the full one).
MAX_TEXT = 200


@dataclass(slots=True)
class SnapshotNode:
    """One line of a snapshot.

    Attributes:
        index: Its ``[index]``: pass it as ``index=`` to element tools while the
            element lives and the page shows the same document; it stays the same in
            later snapshots.
        role: The accessibility role (ARIA roles such as ``button`` or ``heading``, plus
            Chrome's own: ``StaticText`` for text, ``RootWebArea`` for a document,
            ``Iframe``...).
        name: The accessible name (a button's label, a link's text, a heading's text).
        value: The current value of a field, select, slider..., or ``None``.
        states: States such as ``"checked"``, ``"disabled"``, ``"expanded"``,
            ``"collapsed"``, ``"selected"``, ``"required"``, ``"focused"``, ``"level=2"``.
        depth: Indentation level in :attr:`Snapshot.text` (0 for the top).
        box: Where it is on screen, ``None`` when it has no layout box (e.g. the options
            of a closed select).
        backend_node_id: The DOM node (``DOM.BackendNodeId``) in :attr:`session`, or
            ``None`` for nodes that are not DOM nodes, and for every node of the ``"page"``
            engine (the index reaches its element: ``index=``).
        session: The session owning the node: the page, or the session of the
            out-of-process iframe it is in.
        frame_id: The frame whose document holds the node.
    """

    index: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    depth: int
    box: Box | None
    backend_node_id: int | None
    session: Session = field(repr=False)
    frame_id: str | None = None
    # (outline world, node number) of a node the page engine listed: how its index is
    # resolved (its backend node id is looked up then).
    _outline: tuple[str, int] | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class SnapshotCut:
    """A subtree a snapshot's ``max_chars`` budget left out.

    Attributes:
        index: The index of the subtree's top node: its line is kept (ending with the
            ``… (N more lines cut; snapshot(index=I) to see them)`` hint) unless the
            budget could not hold even that; ``snapshot(index=I)`` lists the subtree.
        role: That node's role.
        name: That node's name.
        lines: How many lines under it were left out (the top line not counted when it
            is shown).
    """

    index: int
    role: str
    name: str
    lines: int


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An accessibility snapshot of a page.

    Attributes:
        text: One line per node, indented by depth:
            ``[index] role "name" @(x,y,w,h) value="..." [state]...``; with ``diff``,
            the change lines (or ``unchanged``).
        nodes: The nodes of those lines, in order. Indices are stable, not positions:
            the same element keeps its index across snapshots of the page.
        cut: The subtrees a ``max_chars`` budget left out, in document order.
    """

    text: str
    nodes: list[SnapshotNode]
    cut: list[SnapshotCut] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text


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


@dataclass(slots=True)
class SnapshotScope:
    """The element scoping a snapshot."""

    session: Session
    backend_id: int
    # For the page engine: the frame holding it, and where that frame's viewport lies in
    # the page's (None: not rendered).
    frame_id: str | None = None
    origin: tuple[float, float] | None = None

    @property
    def key(self) -> tuple[int, int]:
        return (id(self.session), self.backend_id)


def quote_text(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ax_focusable(properties: list[AXPropertyJSON] | None) -> bool:
    for prop in properties or ():
        if prop["name"] == "focusable":
            return bool(prop["value"].get("value"))
    return False


@dataclass(slots=True)
class Filters:
    roles: frozenset[str] | None
    name: str | None
    interactive_only: bool
    depth: int | None
    root: SnapshotScope | None  # the element scoping the snapshot
    boxes: str = "all"  # which lines show their box: "all", "interactive", "none"

    @property
    def any(self) -> bool:
        return self.roles is not None or self.name is not None or self.interactive_only


def filter_matches(
    filters: Filters, role: str, name: str, properties: list[AXPropertyJSON] | None
) -> bool:
    if filters.roles is not None and role.lower() not in filters.roles:
        return False
    if filters.name is not None and filters.name not in name.lower():
        return False
    return not filters.interactive_only or role in INTERACTIVE_ROLES or (
        role not in NOT_INTERACTIVE and ax_focusable(properties)
    )


def lowered_roles(roles: Iterable[str] | None) -> frozenset[str] | None:
    if roles is None:
        return None
    if isinstance(roles, str):
        roles = [roles]
    return frozenset(role.lower() for role in roles)
