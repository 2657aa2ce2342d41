"""The snapshot's outline computed in the page (``snapshot(engine="page")``, the default).

Chrome's own accessibility tree (``Accessibility.getFullAXTree``, the ``"chrome"`` engine)
costs Chrome most of a snapshot's time: it builds every node, inline text boxes included,
for a page of a few hundred lines. Here one script (``_js/outline.js``, split by concern into
``_js/outline/*.js``: DOM helpers, roles, names, the name from content, states; one function
when assembled) walks each frame's document in the page instead (its composed tree: open shadow roots, slotted content) and
computes roles, names, values, states and boxes itself, with Chrome's role names, so its
lines read like the other engine's (``benchmarks/cases/outline_fidelity.py`` measures the
agreement and the time on the corpus pages).

The script runs in an isolated world of each frame (``Page.createIsolatedWorld``): the
page's scripts share the DOM but not that world's globals, so they can neither read its
registry nor break the walk by replacing built-ins. The world numbers every node it lists,
stably while the node lives (``globalThis.__cdpkitOutline``); a snapshot's index is
resolved back to its element through that number
(:func:`outline_backend_id`). Every
iframe's document (same-origin or not, same process or not) is walked in a world of its own
frame and stitched in under its ``Iframe`` entry, so each node is always numbered by the
same world.

A world belongs to one document: a navigation, a reload, a restore from the back/forward
cache gives the frame a new document and so a new world. The worlds of each session are
followed through Chrome's own reports (``Runtime.executionContextCreated``, ``...Destroyed``,
``executionContextsCleared``; a frame session gets ``Runtime.enable`` for them on first
use), so a walk goes straight to the world of the document the frame shows now, and
``Page.createIsolatedWorld`` is only asked when it has none yet. Every call into a world
goes by its context's ``uniqueId``, never by its number: context numbers are per renderer
process, and after a cross-site navigation the same number names another world, maybe
the page's own, where the script must never run. A call into a world that went with its
document fails instead, and the walk looks the frame's world up again (once). The
script's source (~40 KB) is sent once per world; later walks call it by name.

When a walk fails in a live document (the script throws, no world can be had),
:func:`~cdpkit.tools.snapshot` tries once more in fresh worlds of a new name
(:func:`renew_worlds`), then answers with the ``"chrome"`` engine, with a warning on the
``cdpkit`` logger.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ... import cdp
from ..._browser.frames import frame_tree
from ..._core.secrets import get_logger
from ..._core.wire import decode_message
from ...cdp.runtime import ExecutionContextId, RemoteObjectId
from ...errors import CDPError, ConnectionClosedError, EvaluationError, ProtocolError
from ...page import Page
from ...session import Session
from .._elements import Box, release_remote
from .._scripts import Script, check_exception

__all__ = [
    "OutlineEntry",
    "OutlineSegment",
    "OutlineWorldError",
    "outline_backend_id",
    "outline_number",
    "page_outline",
    "page_segments",
    "renew_worlds",
]

log = get_logger("cdpkit")

# One function, split by concern into parts (_js/outline/*.js) that share its closure.
_OUTLINE = Script(
    "outline", package=__package__, parts=("dom", "roles", "names", "content", "states")
)
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
        world: The unique id of the world that numbered it (its execution context's
            ``uniqueId``: never another world's, even in another process).
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
    world: str


class OutlineWorldError(CDPError):
    """The page engine found no world of its own to walk a frame's document in (Chrome
    did not report one, or it went with its document twice in a row)."""


@dataclass(slots=True)
class _World:
    """The outline world of one document, as Chrome reported its creation."""

    # Its execution context id: unique within one renderer process only, so after a
    # cross-site navigation the same number can name another world (the page's own).
    context: int
    # Its ``uniqueId``: unique across processes. Every call into the world goes by it,
    # so a call never runs in another world: one gone with its document fails instead.
    unique_id: str
    frame_id: str
    name: str
    # The script's function is in it (sent once, called by name afterwards).
    installed: bool = False


@dataclass(slots=True)
class _SessionWorlds:
    """The outline worlds of one session's documents, kept current from Chrome's
    ``Runtime.executionContextCreated/Destroyed`` and ``executionContextsCleared``
    (``session.state(_SessionWorlds)``)."""

    contexts: dict[int, _World] = field(default_factory=dict)
    # (frame id, world name) -> the world in the frame's current document.
    frames: dict[tuple[str, str], _World] = field(default_factory=dict)
    # Chrome's reports reach the methods below (set once).
    listening: bool = False
    # Runtime enabled, so that Chrome reports the contexts (a frame session's; a page
    # keeps it enabled).
    enabled: asyncio.Future[None] | None = None

    def created(self, params: dict[str, Any]) -> None:
        context = params.get("context") or {}
        name = context.get("name")
        aux = context.get("auxData") or {}
        if not (isinstance(name, str) and name.startswith(_WORLD_NAME)) or (
            aux.get("type") != "isolated"
        ):
            return
        world = _World(int(context["id"]), str(context["uniqueId"]), str(aux.get("frameId")), name)
        self.contexts[world.context] = world
        self.frames[(world.frame_id, name)] = world

    def destroyed(self, params: dict[str, Any]) -> None:
        world = self.contexts.get(params.get("executionContextId", -1))
        unique_id = params.get("executionContextUniqueId")
        if world is None or (unique_id is not None and unique_id != world.unique_id):
            return
        del self.contexts[world.context]
        self.forget(world)

    def cleared(self, params: dict[str, Any]) -> None:
        self.contexts.clear()
        self.frames.clear()

    def forget(self, world: _World) -> None:
        """Stop taking ``world`` as its frame's (its document is gone): the next walk
        asks Chrome for the frame's world."""
        key = (world.frame_id, world.name)
        if self.frames.get(key) is world:
            del self.frames[key]


@dataclass(slots=True)
class _Worlds:
    """The page's choice of world: its name. A world that failed is left for a fresh
    one of a new name (:func:`renew_worlds`): asking Chrome for a world by the same name
    gives back the same one while the document lives."""

    generation: int = 0

    @property
    def name(self) -> str:
        return _WORLD_NAME if not self.generation else f"{_WORLD_NAME}-{self.generation}"


def renew_worlds(page: Page) -> None:
    """Walk the page's documents in fresh worlds from now on (the script sent again to
    each): after a walk failed in one. The elements they list get new indices; indices
    given before still reach their element through their own world."""
    page.state(_Worlds).generation += 1


async def _watched(page: Page, session: Session) -> _SessionWorlds:
    """The outline worlds of ``session``, watched from the first call on."""
    worlds = session.state(_SessionWorlds)
    if not worlds.listening:
        session.on_event("Runtime.executionContextCreated", worlds.created)
        session.on_event("Runtime.executionContextDestroyed", worlds.destroyed)
        session.on_event("Runtime.executionContextsCleared", worlds.cleared)
        worlds.listening = True
    if session is page:
        # Pages keep Runtime enabled; their worlds are made after the handlers are set,
        # so each is reported.
        return worlds
    enabled = worlds.enabled
    if enabled is None:
        # A frame session reports its contexts once Runtime is enabled (those there
        # already, before the answer).
        enabled = worlds.enabled = asyncio.ensure_future(session.send(cdp.runtime.enable()))
    elif enabled.done() and not enabled.cancelled() and enabled.exception() is None:
        return worlds
    try:
        await asyncio.shield(enabled)
    except ProtocolError:
        if worlds.enabled is enabled:
            worlds.enabled = None  # tried again next time
        raise
    return worlds


async def _world(page: Page, session: Session, frame_id: str) -> _World:
    """The outline world of the document ``frame_id`` shows now (made on first use)."""
    name = page.state(_Worlds).name
    worlds = await _watched(page, session)
    world = worlds.frames.get((frame_id, name))
    if world is None:
        # The frame's world by that name: made now, or the one its document has.
        created = await session.send(
            cdp.page.create_isolated_world(cdp.page.FrameId(frame_id), world_name=name)
        )
        world = worlds.contexts.get(int(created.execution_context_id))
        if world is None or world.frame_id != frame_id or world.name != name:
            raise OutlineWorldError(f"Chrome did not report the outline world of frame {frame_id}")
    return world


def _context_gone(error: ProtocolError) -> bool:
    # "uniqueContextId not found", "Cannot find context with specified id", "Execution
    # context was destroyed.", "Node with given id does not belong to the document",
    # "Argument should belong to the same JavaScript world as target object".
    message = error.message.lower()
    return "context" in message or "does not belong" in message or "same javascript world" in message


async def _walk(
    page: Page, session: Session, frame_id: str, root: int | None, options: str = "{}"
) -> tuple[str, list[list[Any]]]:
    """Run the outline script in the world of ``frame_id``'s document (on ``root``, a
    backend node id, when given); the world's unique id and the raw entries. The function
    is sent once per world and called by name afterwards. A world whose document went
    meanwhile is looked up again, once."""
    for attempt in range(2):
        world = await _world(page, session, frame_id)
        walk = (
            f"globalThis.{_WALK}"
            if world.installed
            else f"(globalThis.{_WALK} = ({_OUTLINE.source}))"
        )
        try:
            if root is None:
                answer = await session.send_json(
                    cdp.runtime.evaluate(
                        f"{walk}({options}, null)",
                        unique_context_id=world.unique_id,
                        return_by_value=True,
                    )
                )
            else:
                # The node's handle in the world's context (by number: resolveNode takes
                # no other); the call then goes by unique id, and Chrome refuses an
                # argument from another world, so the walk never runs elsewhere.
                resolved = await session.send(
                    cdp.dom.resolve_node(
                        backend_node_id=cdp.dom.BackendNodeId(root),
                        execution_context_id=ExecutionContextId(world.context),
                    )
                )
                object_id = resolved.object.object_id
                if object_id is None:
                    return world.unique_id, []
                try:
                    answer = await session.send_json(
                        cdp.runtime.call_function_on(
                            f"function(root) {{ return {walk}({options}, root); }}",
                            unique_context_id=world.unique_id,
                            arguments=[cdp.runtime.CallArgument(object_id=object_id)],
                            return_by_value=True,
                        )
                    )
                finally:
                    await release_remote(session, object_id)
        except ProtocolError as error:
            if not _context_gone(error):
                raise
            session.state(_SessionWorlds).forget(world)
            if attempt == 0:
                continue
            raise OutlineWorldError(
                f"The outline world of frame {frame_id} went with its document twice: {error}"
            ) from error
        details = answer.get("exceptionDetails")
        if details is not None:
            check_exception(cdp.runtime.ExceptionDetails.model_validate(details))
        world.installed = True
        value = answer["result"].get("value")
        # msgspec first; a lone UTF-16 surrogate in a name goes to the standard library.
        return world.unique_id, decode_message(value) if isinstance(value, str) else []
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
        world: The unique id of the world that numbered the entries.
        entries: The entries.
    """

    session: Session = field(repr=False)
    frame_id: str
    world: str
    entries: list[list[Any]]


async def page_segments(
    page: Page,
    session: Session | None = None,
    frame_id: str | None = None,
    root: int | None = None,
    origin: tuple[float, float] | None = (0.0, 0.0),
    *,
    every_text: bool = False,
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
        every_text: List every shown text run as a ``StaticText`` entry, also the text
            already in its parent's name (a button's label): what ``text=`` locators
            match.

    Raises:
        EvaluationError: The outline script failed in the page.
        TargetClosedError: The page is closed.
    """
    if session is None:
        session = page
    if frame_id is None:
        frame_id = page.target_id if session is page else await _main_frame(session)
    options = '{"everyText": true}' if every_text else "{}"
    return await _collect(page, session, frame_id, root, origin, 0, options)


async def page_outline(
    page: Page,
    session: Session | None = None,
    frame_id: str | None = None,
    root: int | None = None,
    origin: tuple[float, float] | None = (0.0, 0.0),
    *,
    every_text: bool = False,
) -> list[OutlineEntry]:
    """:func:`page_segments` as one :class:`OutlineEntry` per node."""
    return [
        OutlineEntry(
            item[1], item[0], item[2], item[3], item[4],
            tuple(item[5].split()) if item[5] else (),
            None if item[6] is None else Box(item[6], item[7], item[8], item[9]),
            bool(item[10] & FOCUSABLE), segment.session, segment.frame_id, segment.world,
        )
        for segment in await page_segments(
            page, session, frame_id, root, origin, every_text=every_text
        )
        for item in segment.entries
    ]


async def _main_frame(session: Session) -> str:
    return str((await frame_tree(session))["frame"]["id"])


async def _collect(
    page: Page,
    session: Session,
    frame_id: str,
    root: int | None,
    origin: tuple[float, float] | None,
    depth: int,
    options: str = "{}",
) -> list[OutlineSegment]:
    world, raw = await _walk(page, session, frame_id, root, options)
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
        return [OutlineSegment(session, frame_id, world, raw)]
    oopifs = asyncio.ensure_future(page.frame_sessions(session))

    async def inner(item: list[Any]) -> list[OutlineSegment]:
        # Its entry's depth and box are in the page's terms already.
        at = None if item[11] is None or origin is None else (item[11] + dx, item[12] + dy)
        try:
            found = await session.send_json(
                cdp.runtime.evaluate(
                    f"globalThis.__cdpkitOutline.element({int(item[1])})",
                    unique_context_id=world,
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
                return await _collect(
                    page, child, child_frame, None, at, item[0] + 1, options
                )
            return await _collect(page, session, child_frame, None, at, item[0] + 1, options)
        except (ProtocolError, ConnectionClosedError):
            return []  # the frame went away meanwhile: left out
        except (EvaluationError, OutlineWorldError) as error:
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
        segments.append(OutlineSegment(session, frame_id, world, raw[start:position + 1]))
        segments += inside
        start = position + 1
    if start < len(raw):
        segments.append(OutlineSegment(session, frame_id, world, raw[start:]))
    return segments


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


async def outline_number(session: Session, world: str, backend_id: int) -> int:
    """The number the outline world ``world`` (a unique id) of ``session`` gave the node
    ``backend_id``; 0 when no walk listed it, or it is not in that world's document."""
    context = next(
        (found.context for found in session.state(_SessionWorlds).contexts.values()
         if found.unique_id == world),
        None,
    )
    if context is None:
        return 0
    try:
        resolved = await session.send(
            cdp.dom.resolve_node(
                backend_node_id=cdp.dom.BackendNodeId(backend_id),
                execution_context_id=ExecutionContextId(context),
            )
        )
    except ProtocolError:
        return 0  # another document's node, or gone
    object_id = resolved.object.object_id
    if object_id is None:
        return 0
    try:
        answer = await session.send_json(
            cdp.runtime.call_function_on(
                "function() { const r = globalThis.__cdpkitOutline; return r ? r.idOf(this) : 0; }",
                object_id=RemoteObjectId(object_id),
                return_by_value=True,
            )
        )
    except ProtocolError:
        return 0
    finally:
        await release_remote(session, object_id)
    value = answer["result"].get("value")
    return value if isinstance(value, int) else 0
