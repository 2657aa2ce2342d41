"""Resolve the element a tool acts on: exactly one of ``selector=``, ``index=``, ``x=``/``y=``,
or a locator (``role=`` with ``name=``, ``text=``, ``label=``; see ``_locating``).

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
* ``role``/``name``, ``text``, ``label``: what the snapshot shows, matched against the
  page engine's outline; one match is the element, none is waited for up to the tool's
  ``timeout``, several raise :class:`~cdpkit.errors.AmbiguousLocatorError`.

Errors are worded for the person or model that chose the target.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import cdp
from .._browser.frames import frame_tree
from .._core.keywords import TargetKeywords, check_keywords
from ..errors import CDPError, ElementNotFoundError, ProtocolError
from ..page import Page
from ._elements import Box, Element, Point, release_remote
from ._locating import DEFAULT_LOCATOR_TIMEOUT, Locator, locate, locator_from
from ._scripts import Script, evaluate_handle
from ._snapshot import OutlineEntry, SnapshotState, outline_backend_id

__all__ = [
    "Box",
    "Element",
    "Point",
    "SnapshotState",
    "Target",
    "main_document",
    "outline_backend_id",
    "release_remote",
    "resolve_element",
    "stale_message",
    "target_from",
]

TARGET_HELP = "Provide one of: selector, index, x/y, role (with name), text, or label"

_QUERY_SELECTOR = Script("query_selector", uses=("find",))
_ELEMENT_AT_POINT = Script("element_at_point")
_IS_CONNECTED = Script("is_connected")


@dataclass(frozen=True, slots=True)
class Target:
    """The element a tool's target keywords designate, not yet looked for."""

    selector: str | None = None
    index: int | None = None
    x: float | None = None
    y: float | None = None
    locator: Locator | None = None
    timeout: float = DEFAULT_LOCATOR_TIMEOUT

    @property
    def ways(self) -> int:
        """How many ways of targeting are given (one is right; ``x``/``y`` count once)."""
        return (
            (self.selector is not None) + (self.index is not None)
            + (self.x is not None or self.y is not None) + (self.locator is not None)
        )  # fmt: skip

    def check(self, prefix: str = "") -> None:
        """Raise ``ValueError`` unless exactly one way of targeting is given (the
        keywords named with ``prefix``, as ``drag``'s ``to_`` ones)."""
        if self.ways != 1 or (self.x is None) != (self.y is None):
            p = prefix
            raise ValueError(
                TARGET_HELP if not p else f"Provide one of: {p}selector, {p}index, {p}x/{p}y, "
                f"{p}role (with {p}name), {p}text, or {p}label"
            )

    async def resolve(self, page: Page) -> Element:
        """The element (see :func:`resolve_element`)."""
        return await resolve_element(
            page, selector=self.selector, index=self.index, x=self.x, y=self.y,
            locator=self.locator, timeout=self.timeout,
        )  # fmt: skip


def target_from(
    keywords: Mapping[str, Any],
    tool: str | None = None,
    declared: type = TargetKeywords,
    prefix: str = "",
) -> Target:
    """The :class:`Target` of a tool's target keywords (the only reading of them): those
    named ``prefix`` + a key of :class:`TargetKeywords`. With ``tool``, a keyword
    ``declared`` (a ``TypedDict``) does not have is refused as Python refuses one.

    Raises:
        TypeError: An unknown keyword (with ``tool``).
        ValueError: ``name`` without ``role``, an empty role, text or label, several of
            role, text and label.
    """
    if tool is not None:
        check_keywords(tool, keywords, declared)

    def get(key: str, default: Any = None) -> Any:
        return keywords.get(prefix + key, default)

    return Target(
        selector=get("selector"), index=get("index"), x=get("x"), y=get("y"),
        locator=locator_from(get("role"), get("name"), get("exact", True), get("text"), get("label")),
        timeout=get("timeout", DEFAULT_LOCATOR_TIMEOUT),
    )  # fmt: skip



def _index_of(page: Page) -> Callable[[OutlineEntry], int | None]:
    """An entry's index in the page's snapshot numbering (``None``: no snapshot listed it)."""
    state = page.state(SnapshotState)

    def index_of(entry: OutlineEntry) -> int | None:
        indices = state.indices.get(entry.session.session_id or "")
        return None if indices is None else indices.get((entry.world, entry.id))

    return index_of


async def resolve_element(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
    locator: Locator | None = None,
    timeout: float = DEFAULT_LOCATOR_TIMEOUT,
) -> Element:
    """The element designated by exactly one of ``selector``, ``index``, ``x``/``y`` or
    ``locator`` (a role/name, text or label, waited for up to ``timeout`` seconds).

    Raises:
        ValueError: None or several ways given.
        ElementNotFoundError: Nothing matches (a locator: within ``timeout``); an index
            out of range or stale.
        AmbiguousLocatorError: The locator matched several elements.
        TargetClosedError: The page is closed.
    """
    Target(selector, index, x, y, locator).check()
    if locator is not None:
        return await locate(page, locator, timeout=timeout, index_of=_index_of(page))
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
