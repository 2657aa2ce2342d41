"""The snapshot's outline model: its lines (:class:`SnapshotNode`), the snapshot
(:class:`Snapshot`), the roles it groups, how a name or value is written, and the filters
both engines apply (:class:`Filters`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..session import Session
from ._elements import Box
from ._snapshot_views import SnapshotCut

if TYPE_CHECKING:
    # The raw JSON shapes of the two big results, checked by the type checker only: the
    # snapshot reads them through Session.send_json, the typed fast path (building the
    # models of 19,000 AX nodes would cost more than the call; see send_json).
    from ..cdp.accessibility import AXPropertyJSON


if TYPE_CHECKING:
    from ._snapshot_views import SnapshotCut
    from .accessibility import SnapshotScope

__all__ = [
    "INTERACTIVE_ROLES",
    "MAX_TEXT",
    "Filters",
    "Snapshot",
    "SnapshotNode",
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
