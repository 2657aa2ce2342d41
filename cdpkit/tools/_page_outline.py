"""The snapshot's outline computed in the page (``snapshot(engine="page")``, the default).

Chrome's own accessibility tree (``Accessibility.getFullAXTree``, the ``"chrome"`` engine)
costs Chrome most of a snapshot's time: it builds every node, inline text boxes included,
for a page of a few hundred lines. Here one script (``_js/outline.js``) walks each frame's
document in the page instead (its composed tree: open shadow roots, slotted content) and
computes roles, names, values, states and boxes itself, with Chrome's role names, so its
lines read like the other engine's (``benchmarks/cases/outline_fidelity.py`` measures the
agreement and the time on the corpus pages).

The script runs in an isolated world of each frame (``Page.createIsolatedWorld``): the
page's scripts share the DOM but not that world's globals, so they can neither read its
registry nor break the walk by replacing built-ins. The world numbers every node it lists,
stably while the node lives (``globalThis.__cdpkitOutline``); a snapshot's index is
resolved back to its element through that number
(:func:`~cdpkit.tools._targeting.outline_backend_id`). Every
iframe's document (same-origin or not, same process or not) is walked in a world of its own
frame and stitched in under its ``Iframe`` entry, so each node is always numbered by the
same world.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .. import cdp
from .._secrets import get_logger
from .._wire import decode_message
from ..cdp.runtime import ExecutionContextId, RemoteObjectId
from ..errors import ConnectionClosedError, EvaluationError, ProtocolError
from ..page import Page
from ..session import Session
from ._scripts import Script, check_exception
from ._targeting import Box, release_remote

__all__ = ["OutlineEntry", "OutlineSegment", "page_outline", "page_segments"]

log = get_logger("cdpkit")

_OUTLINE = Script("outline")
_WORLD_NAME = "cdpkit-outline"
# Where a world keeps the script's function once sent.
_WALK = "__cdpkitOutlineWalk"
# Entry flags (outline.js): the node can take focus; an iframe, followed by where its
# document's viewport starts.
FOCUSABLE = 1
_FRAME = 2


@dataclass(slots=True)
class OutlineEntry:
    """One node of the outline.

    Attributes:
        id: The node's number in its world's registry: the same node keeps it in later
            outlines of its document.
        depth: How many entries it is nested under (0 for the top).
        role: The role, with Chrome's names (``StaticText``, ``RootWebArea``, ``Iframe``...).
        name: The accessible name, whitespace collapsed.
        value: The value of a field, select, slider..., or ``None``.
        states: States such as ``"checked"``, ``"disabled"``, ``"level=2"``.
        box: Its box in CSS pixels of the page's viewport, ``None`` when it has none.
        focusable: Whether it can take focus.
        session: The session of the frame holding it (the page, or an out-of-process
            frame's).
        frame_id: The frame whose document holds it.
        world: The execution context of the world that numbered it.
    """

    id: int
    depth: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    box: Box | None
    focusable: bool
    session: Session = field(repr=False)
    frame_id: str
    world: int


@dataclass(slots=True)
class _Worlds:
    """The page's outline worlds: (id of session, frame id) -> execution context, and the
    contexts already holding the script's function."""

    contexts: dict[tuple[int, str], int] = field(default_factory=dict)
    installed: set[tuple[int, int]] = field(default_factory=set)


def _context_gone(error: ProtocolError) -> bool:
    # "Cannot find context with specified id", "Execution context was destroyed."
    return "context" in error.message.lower()


async def _world(page: Page, session: Session, frame_id: str, fresh: bool) -> int:
    """The outline world's context in ``frame_id`` (made on first use, and again when
    ``fresh``: the document it lived in is gone)."""
    worlds = page.state(_Worlds)
    key = (id(session), frame_id)
    context = worlds.contexts.get(key)
    if context is None or fresh:
        created = await session.send(
            cdp.page.create_isolated_world(cdp.page.FrameId(frame_id), world_name=_WORLD_NAME)
        )
        context = worlds.contexts[key] = int(created.execution_context_id)
    return context


async def _walk(
    page: Page, session: Session, frame_id: str, root: int | None
) -> tuple[int, list[list[Any]]]:
    """Run the outline script in the world of ``frame_id`` (on ``root``, a backend node id,
    when given); the world's context and the raw entries. The function is sent once per
    world and called by name afterwards. A world whose document is gone is made again,
    once."""
    worlds = page.state(_Worlds)
    for attempt in range(2):
        context = await _world(page, session, frame_id, fresh=attempt > 0)
        installed = (id(session), context) in worlds.installed
        walk = f"globalThis.{_WALK}" if installed else f"(globalThis.{_WALK} = ({_OUTLINE.source}))"
        try:
            if root is None:
                answer = await session.send_json(
                    cdp.runtime.evaluate(
                        f"{walk}({{}}, null)",
                        context_id=ExecutionContextId(context),
                        return_by_value=True,
                    )
                )
            else:
                resolved = await session.send(
                    cdp.dom.resolve_node(
                        backend_node_id=cdp.dom.BackendNodeId(root),
                        execution_context_id=ExecutionContextId(context),
                    )
                )
                object_id = resolved.object.object_id
                if object_id is None:
                    return context, []
                try:
                    answer = await session.send_json(
                        cdp.runtime.call_function_on(
                            f"function() {{ return {walk}({{}}, this); }}",
                            object_id=object_id,
                            return_by_value=True,
                        )
                    )
                finally:
                    await release_remote(session, object_id)
        except ProtocolError as error:
            if attempt == 0 and _context_gone(error):
                continue
            raise
        details = answer.get("exceptionDetails")
        if details is not None:
            check_exception(cdp.runtime.ExceptionDetails.model_validate(details))
        worlds.installed.add((id(session), context))
        value = answer["result"].get("value")
        # msgspec first; a lone UTF-16 surrogate in a name goes to the standard library.
        return context, decode_message(value) if isinstance(value, str) else []
    raise AssertionError("unreachable")


@dataclass(slots=True)
class OutlineSegment:
    """A run of entries of one frame's document, as the script wrote them (a list each:
    ``[depth, id, role, name, value, states, x, y, w, h, flags, ...]``) with their depth
    and box already in the page's terms (x ``None``: no box). The snapshot reads these
    directly: an object per entry would cost more than the walk on a big page.

    Attributes:
        session: The session of the frame.
        frame_id: The frame.
        world: The execution context of the world that numbered the entries.
        entries: The entries.
    """

    session: Session = field(repr=False)
    frame_id: str
    world: int
    entries: list[list[Any]]


async def page_segments(
    page: Page,
    session: Session | None = None,
    frame_id: str | None = None,
    root: int | None = None,
    origin: tuple[float, float] | None = (0.0, 0.0),
) -> list[OutlineSegment]:
    """The outline of a frame's document, or of the subtree of ``root`` (a backend node id
    in it), with the documents of its iframes stitched in under their ``Iframe`` entry,
    as segments in document order.

    Args:
        page: The page.
        session: The page (the default) or the session of an out-of-process frame.
        frame_id: The frame, by default the session's main frame.
        root: Only this node and what it holds (it is at depth 0).
        origin: Where the frame's viewport lies in the page's, ``None`` when it is not
            rendered (the entries then have no boxes).

    Raises:
        EvaluationError: The outline script failed in the page.
        TargetClosedError: The page is closed.
    """
    if session is None:
        session = page
    if frame_id is None:
        frame_id = page.target_id if session is page else await _main_frame(session)
    return await _collect(page, session, frame_id, root, origin, 0)


async def page_outline(
    page: Page,
    session: Session | None = None,
    frame_id: str | None = None,
    root: int | None = None,
    origin: tuple[float, float] | None = (0.0, 0.0),
) -> list[OutlineEntry]:
    """:func:`page_segments` as one :class:`OutlineEntry` per node."""
    return [
        OutlineEntry(
            item[1], item[0], item[2], item[3], item[4],
            tuple(item[5].split()) if item[5] else (),
            None if item[6] is None else Box(item[6], item[7], item[8], item[9]),
            bool(item[10] & FOCUSABLE), segment.session, segment.frame_id, segment.world,
        )
        for segment in await page_segments(page, session, frame_id, root, origin)
        for item in segment.entries
    ]


async def _main_frame(session: Session) -> str:
    tree = await session.send_json(cdp.page.get_frame_tree())
    return str(tree["frameTree"]["frame"]["id"])


async def _collect(
    page: Page,
    session: Session,
    frame_id: str,
    root: int | None,
    origin: tuple[float, float] | None,
    depth: int,
) -> list[OutlineSegment]:
    context, raw = await _walk(page, session, frame_id, root)
    dx, dy = origin if origin is not None else (0.0, 0.0)
    if origin is None:
        for item in raw:
            item[0] += depth
            item[6] = None
    elif depth or dx or dy:
        for item in raw:
            item[0] += depth
            if item[6] is not None:
                item[6] += dx
                item[7] += dy
    frames = [position for position, item in enumerate(raw) if item[10] & _FRAME]
    if not frames:
        return [OutlineSegment(session, frame_id, context, raw)]
    oopifs = asyncio.ensure_future(page.frame_sessions(session))

    async def inner(item: list[Any]) -> list[OutlineSegment]:
        # Its entry's depth and box are in the page's terms already.
        at = None if item[11] is None or origin is None else (item[11] + dx, item[12] + dy)
        try:
            found = await session.send_json(
                cdp.runtime.evaluate(
                    f"globalThis.__cdpkitOutline.element({int(item[1])})",
                    context_id=ExecutionContextId(context),
                )
            )
            object_id = found["result"].get("objectId")
            if object_id is None:
                return []  # removed meanwhile
            try:
                described = await session.send_json(
                    cdp.dom.describe_node(object_id=RemoteObjectId(object_id))
                )
            finally:
                await release_remote(session, object_id)
            child_frame = described["node"].get("frameId")
            if child_frame is None:
                return []  # not loaded yet
            out_of_process = dict(await oopifs)
            child = out_of_process.get(child_frame)
            if child is not None:
                return await _collect(page, child, child_frame, None, at, item[0] + 1)
            return await _collect(page, session, child_frame, None, at, item[0] + 1)
        except (ProtocolError, ConnectionClosedError):
            return []  # the frame went away meanwhile: left out
        except EvaluationError as error:
            # One frame's document the script cannot walk does not cost the page's outline.
            log.warning("The outline of frame %s was left out: %s", item[1], error)
            return []

    try:
        children = await asyncio.gather(*(inner(raw[position]) for position in frames))
    finally:
        if not oopifs.done():
            oopifs.cancel()
        await asyncio.gather(oopifs, return_exceptions=True)
    segments: list[OutlineSegment] = []
    start = 0
    for position, inside in zip(frames, children, strict=True):
        segments.append(OutlineSegment(session, frame_id, context, raw[start:position + 1]))
        segments += inside
        start = position + 1
    if start < len(raw):
        segments.append(OutlineSegment(session, frame_id, context, raw[start:]))
    return segments
