"""Out-of-process iframes of a page: which session holds each one, and where it lies.

A frame from another site runs in its own renderer process, so its document is reached
through its own flattened session, not through the page's. :class:`FrameTracker` asks Chrome
(``Target.setAutoAttach``) to attach such frames of a session as sessions, remembers which
frame each child session holds and who its parent is, and measures where a child
session's viewport lies in the page's viewport. :class:`~cdpkit.Page` owns one and offers
it as :meth:`Page.frame_sessions` and :meth:`Page.frame_origin`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .. import cdp
from ..errors import ElementNotFoundError, ProtocolError

if TYPE_CHECKING:
    from ..cdp.page import FrameTreeJSON
    from ..connection import Connection
    from ..session import Session

__all__ = ["frame_ids", "frame_tree"]


async def frame_tree(session: Session, timeout: float | None = None) -> FrameTreeJSON:
    """The frame tree of ``session``'s document (``Page.getFrameTree``), as Chrome sends it:
    the one way cdpkit asks for it. Wire JSON (``send_json``): callers read an id, a URL or
    a loader id, and the ``Frame`` model is costly to build on first use.

    Raises:
        CDPError: The session is gone or Chrome refused (no page domain there).
    """
    return (await session.send_json(cdp.page.get_frame_tree(), timeout))["frameTree"]


def frame_ids(tree: FrameTreeJSON) -> set[str]:
    """The ids of every frame in ``tree``."""
    ids: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        ids.add(node["frame"]["id"])
        stack.extend(node.get("childFrames", []))
    return ids


def _retrieve(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: the caller that awaited it saw it


class FrameTracker:
    """The out-of-process frames of one page, tracked per session on first use."""

    __slots__ = ("_attaching", "_children", "_connection", "_page", "_parents")

    def __init__(self, page: Session, connection: Connection) -> None:
        self._page = page
        self._connection = connection
        # Session id ("" for the page) -> its Target.setAutoAttach call, once per session.
        self._attaching: dict[str, asyncio.Future[None]] = {}
        # Session id -> {frame id: the child session holding that frame}.
        self._children: dict[str, dict[str, Session]] = {}
        # Child session id -> (parent session, id of the frame the child holds).
        self._parents: dict[str, tuple[Session, str]] = {}

    def _track(self, session: Session) -> asyncio.Future[None]:
        """Start auto-attaching the out-of-process frames of ``session`` (once; again
        after a failed try); the future of that request."""
        key = session.session_id or ""
        attaching = self._attaching.get(key)
        if attaching is not None and not (
            attaching.done() and (attaching.cancelled() or attaching.exception() is not None)
        ):
            return attaching
        if key not in self._children:
            self._listen(session, key)
        attaching = self._attaching[key] = asyncio.ensure_future(
            # Frames already there are attached (and reported) before this answers.
            session.send(
                cdp.target.set_auto_attach(
                    True,
                    False,
                    flatten=True,
                    filter=[cdp.target.FilterEntry(type="iframe", exclude=False)],
                )
            )
        )
        attaching.add_done_callback(_retrieve)
        return attaching

    def _listen(self, session: Session, key: str) -> None:
        children: dict[str, Session] = {}
        self._children[key] = children
        parents = self._parents
        connection = self._connection

        # Raw handlers, run by the reader in arrival order: a child is known before any
        # later command of ours can be answered.
        def attached(params: dict[str, Any]) -> None:
            info = params.get("targetInfo") or {}
            session_id = str(params.get("sessionId"))
            child = connection.session(session_id)
            if info.get("type") == "iframe" and child is not None:
                frame_id = str(info.get("targetId"))
                children[frame_id] = child
                parents[session_id] = (session, frame_id)

        def detached(params: dict[str, Any]) -> None:
            session_id = str(params.get("sessionId"))
            parents.pop(session_id, None)
            self._attaching.pop(session_id, None)
            self._children.pop(session_id, None)
            for frame_id, child in list(children.items()):
                if child.session_id == session_id:
                    del children[frame_id]

        session._on("Target.attachedToTarget", attached)
        session._on("Target.detachedFromTarget", detached)

    async def sessions(self, session: Session) -> list[tuple[str, Session]]:
        await asyncio.shield(self._track(session))
        children = self._children.get(session.session_id or "", {})
        return [(frame_id, child) for frame_id, child in children.items() if not child.closed]

    async def origin(self, session: Session) -> tuple[float, float]:
        x = y = 0.0
        current = session
        while current is not self._page:
            link = self._parents.get(current.session_id or "")
            gone = ElementNotFoundError("The element's frame is no longer part of the page")
            if link is None:
                raise gone
            parent, frame_id = link
            try:
                owner = await parent.send(cdp.dom.get_frame_owner(cdp.page.FrameId(frame_id)))
            except ProtocolError:
                raise gone from None
            origin = await content_origin(parent, owner.backend_node_id)
            if origin is None:
                raise ElementNotFoundError("The element is inside a frame that is not rendered")
            x += origin[0]
            y += origin[1]
            current = parent
        return (x, y)


async def content_origin(
    session: Session, backend_node_id: cdp.dom.BackendNodeId
) -> tuple[float, float] | None:
    """The top-left corner of a node's content box (inside border and padding) in its
    session's viewport, or ``None`` when the node is not rendered (``display: none``...).

    For an ``<iframe>`` this is where the frame's own viewport starts.
    """
    try:
        model = await session.send(cdp.dom.get_box_model(backend_node_id=backend_node_id))
    except ProtocolError:
        return None
    quad = model.model.content
    return (float(quad[0]), float(quad[1]))
