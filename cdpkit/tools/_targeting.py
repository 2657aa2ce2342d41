"""Resolve the element a tool acts on: exactly one of ``selector=``, ``index=`` or ``x=``/``y=``.

* ``selector``: a CSS selector, matched in the main frame's document and, failing that, in
  open shadow roots (so components are reachable without piercing syntax).
* ``index``: a line of the latest :func:`~cdpkit.tools.snapshot` of the same page.
* ``x``/``y``: viewport CSS pixels; the element there (``document.elementFromPoint``).

Errors are worded for the person or model that chose the target.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import cdp
from ..errors import CDPError, ElementNotFoundError, EvaluationError, ProtocolError
from ..page import Page
from ..session import Session

if TYPE_CHECKING:
    from .accessibility import Snapshot, SnapshotNode

__all__ = [
    "Box",
    "Element",
    "Point",
    "SnapshotState",
    "check_one_target",
    "resolve_element",
]

TARGET_HELP = "Provide one of: selector, index, or x/y"

# Finds the first match in the document, then in open shadow roots (depth-first).
_QUERY_JS = """(selector) => {
  const first = document.querySelector(selector);
  if (first) return first;
  const roots = [document];
  while (roots.length) {
    const root = roots.pop();
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        const found = el.shadowRoot.querySelector(selector);
        if (found) return found;
        roots.push(el.shadowRoot);
      }
    }
  }
  return null;
}"""


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

    async def call(self, function: str, *args: Any, await_promise: bool = False) -> Any:
        """Run ``function`` (JS source of a function) with ``this`` bound to the element and
        JSON arguments; return its JSON value."""
        result = await self.session.call(
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": function,
                "objectId": self.object_id,
                "arguments": [{"value": arg} for arg in args],
                "returnByValue": True,
                "awaitPromise": await_promise,
            },
        )
        details = result.get("exceptionDetails")
        if details:
            raise EvaluationError(exception_text(details), details.get("lineNumber"),
                                  details.get("columnNumber"))
        return result.get("result", {}).get("value")


def exception_text(details: dict[str, Any]) -> str:
    exception = details.get("exception") or {}
    return str(exception.get("description") or details.get("text") or "JavaScript error")


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
    result = await page.call(
        "Runtime.evaluate",
        {"expression": f"({_QUERY_JS})({json.dumps(selector)})"},
    )
    details = result.get("exceptionDetails")
    if details:
        text = exception_text(details)
        if "SyntaxError" in text or "not a valid selector" in text:
            raise ValueError(f"Invalid CSS selector: {selector!r}") from None
        raise EvaluationError(text)
    remote = result.get("result", {})
    if remote.get("subtype") == "null" or "objectId" not in remote:
        raise ElementNotFoundError(f"Element not found: {selector}")
    return Element(page, remote["objectId"], f"selector {selector!r}")


async def _by_point(page: Page, x: float, y: float) -> Element:
    result = await page.call(
        "Runtime.evaluate", {"expression": f"document.elementFromPoint({x:g}, {y:g})"}
    )
    remote = result.get("result", {})
    if remote.get("subtype") == "null" or "objectId" not in remote:
        raise ElementNotFoundError(f"No element at ({x:g}, {y:g}) in the viewport")
    return Element(page, remote["objectId"], f"point ({x:g}, {y:g})")


@dataclass(slots=True)
class SnapshotState:
    """The latest :func:`~cdpkit.tools.snapshot` of a page, which ``index=`` targets.

    Kept with the page: read it with ``page.state(SnapshotState)``. Each snapshot of the
    page replaces the previous one, so indices always mean the lines of the latest.

    Attributes:
        snapshot: The latest snapshot, ``None`` before the first.
    """

    snapshot: Snapshot | None = None

    def node(self, index: int) -> SnapshotNode:
        """The node on line ``[index]`` of the latest snapshot.

        Raises:
            ElementNotFoundError: No snapshot was taken yet, or ``index`` is out of range
                (the message says how many lines there are).
        """
        snapshot = self.snapshot
        if snapshot is None:
            raise ElementNotFoundError(
                f"Element index {index}: no snapshot of this page yet; take one with snapshot()"
            )
        nodes = snapshot.nodes
        if not 0 <= index < len(nodes):
            raise ElementNotFoundError(
                f"Element index {index} out of range (snapshot has {len(nodes)})"
            )
        return nodes[index]


async def _by_index(page: Page, index: int) -> Element:
    node = page.state(SnapshotState).node(index)
    stale = ElementNotFoundError(f"Element index {index} is stale; take a new snapshot")
    backend_id = node.backend_node_id
    session = node.session
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
        connected = await element.call("function() { return this.isConnected; }")
    except CDPError:
        raise stale from None
    if not connected:
        raise stale
    return element
