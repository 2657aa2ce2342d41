"""Where a pointer tool lands: the clickable point of an element (scrolled into view, stable,
in its frame's viewport, across frames) and the hit test saying what covers it.

Also the element handles the input tools share: resolving a target to an element and its
point (``target_and_point``, ``target_point``) and releasing them (``release_elements``). The JavaScript is in
``_js/measure.js``, ``_js/top_hit.js`` and ``_js/hit.js``.
"""

from __future__ import annotations

import asyncio
import contextlib

from .. import cdp
from .._browser.frames import content_origin, frame_tree
from ..errors import ElementNotFoundError, EvaluationError, ProtocolError
from ..page import Page
from ..session import Session
from ._dispatch import check_no_dialog
from ._scripts import Script, evaluate
from ._targeting import Element, Point, Target

# -- where to click ---------------------------------------------------------------------------

_MEASURE = Script("measure", uses=("hit",))
_TOP_HIT = Script("top_hit", uses=("hit",))
DESCRIBE_SCRIPT = Script("describe")
_DOCUMENT_ELEMENT = Script("document_element")
_SCROLL_INTO_VIEW = Script("scroll_into_view")

_STABLE_TIMEOUT_MS = 1000  # an element still moving after this is clicked where it is
_COVERED_RETRIES = (0.05, 0.1, 0.2, 0.3)  # a transient overlay (a fading toast) may go


def _frame_gone(element: Element) -> ElementNotFoundError:
    return ElementNotFoundError(
        f"Element {element.description} is in a frame that is no longer part of the page"
    )


async def frame_ids(page: Page, element: Element) -> tuple[str, str]:
    """The id of the frame holding ``element``, and of the root frame of its session."""
    session = element.session
    document = await element.call_for_element(_DOCUMENT_ELEMENT)
    if document is None:
        raise _frame_gone(element)
    try:
        # A document element's node carries the id of its frame.
        node = (
            await session.send(
                cdp.dom.describe_node(object_id=cdp.runtime.RemoteObjectId(document.object_id))
            )
        ).node
    except ProtocolError:
        raise _frame_gone(element) from None
    finally:
        await release_elements(document)
    # A page's main frame id is its target id.
    root_id = page.target_id if session is page else str((await frame_tree(session))["frame"]["id"])
    return str(node.frame_id or root_id), root_id


async def _scroll_frame_into_view(page: Page, element: Element) -> None:
    """Scroll the ``<iframe>`` holding ``element`` into the page's view, from the side of
    the document that holds the iframe (a frame's own scrolling does not move its parents
    when the element is ``position: fixed``)."""
    frame_id, root_id = await frame_ids(page, element)
    # The owner is in the element's own process, or for the root frame of an
    # out-of-process frame's session, in the page's (the usual case: one level deep).
    session: Session = element.session if frame_id != root_id else page
    with contextlib.suppress(ProtocolError):
        owner = await session.send(cdp.dom.get_frame_owner(cdp.page.FrameId(frame_id)))
        resolved = await session.send(
            cdp.dom.resolve_node(backend_node_id=owner.backend_node_id)
        )
        object_id = resolved.object.object_id
        if object_id is None:
            return
        iframe = Element(session, object_id, element.description)
        try:
            await iframe.call(_SCROLL_INTO_VIEW)
        finally:
            await release_elements(iframe)


async def _frame_origin(page: Page, element: Element) -> Point:
    """Where the viewport of the frame holding ``element`` lies in the page's viewport.

    The origin of a frame is its ``<iframe>``'s content box: inside its border and padding.
    """
    session = element.session
    gone = _frame_gone(element)
    frame_id, root_id = await frame_ids(page, element)
    x = y = 0.0
    if frame_id != root_id:
        try:
            owner = await session.send(cdp.dom.get_frame_owner(cdp.page.FrameId(frame_id)))
        except ProtocolError:
            raise gone from None
        # Box models of a process's nested frames are in its root frame's viewport.
        content = await content_origin(session, owner.backend_node_id)
        if content is None:
            raise gone
        x, y = content
    if session is not page:
        origin = await page.frame_origin(session)
        x, y = x + origin[0], y + origin[1]
    return Point(x, y)


async def clickable_point(page: Page, element: Element, *, check_hit: bool = True) -> Point:
    """Scroll ``element`` into view and return where a click lands on it, in the page's
    viewport: the centre of the visible part of its first box (the first line of a
    wrapped link), once the box stays put across two animation frames.

    With ``check_hit``, the element at that point must be the target, inside it, or its
    label (a text node's parent counts as the text); otherwise the check is retried
    briefly with the element centred, for overlays on their way out and sticky headers.

    Raises:
        ElementNotFoundError: It has no box (hidden), is outside the viewport even after
            scrolling, or (``check_hit``) another element covers it (the message names it).
    """
    force_scroll = frame_scrolled = False
    delays = iter(_COVERED_RETRIES)
    while True:
        try:
            found = await element.call(
                _MEASURE, check_hit, force_scroll, _STABLE_TIMEOUT_MS, await_promise=True
            )
        except EvaluationError:
            found = {"error": "hidden"}  # e.g. a node in a document without a window
        except ProtocolError as exc:
            raise ElementNotFoundError(
                f"Element {element.description} is gone: its document was replaced or its "
                f"frame detached while it was being measured ({exc.message}); find it again"
            ) from None
        error = found.get("error")
        if error == "hidden":
            raise ElementNotFoundError(
                f"Element {element.description} is not visible (it has no box on the page: "
                f"display: none, visibility: hidden, detached, or zero size)"
            )
        if error == "outside":
            raise ElementNotFoundError(
                f"Element {element.description} is outside the viewport and could not be "
                f"scrolled into view"
            )
        point = Point(found["x"], found["y"])
        covering = found.get("covering")
        if not found["top"]:
            origin = await _frame_origin(page, element)
            point = Point(point.x + origin.x, point.y + origin.y)
            if not await _in_viewport(page, point):
                # The frame itself is off-screen: scroll the element again (that scrolls
                # its frame's parents too), then the frame from the parent's side.
                if not force_scroll:
                    force_scroll = True
                    continue
                if not frame_scrolled:
                    frame_scrolled = True
                    await _scroll_frame_into_view(page, element)
                    continue
                raise ElementNotFoundError(
                    f"Element {element.description} is in a frame outside the viewport "
                    f"that could not be scrolled into view"
                )
            if check_hit and covering is None:
                covering = await _top_hit(page, point)
        if covering is None:
            return point
        delay = next(delays, None)
        if delay is None:
            raise ElementNotFoundError(
                f"Element {element.description} is covered by {covering} at "
                f"({point.x:.0f}, {point.y:.0f}): a click there would reach that element "
                f"instead. Close or move what covers it, or click at x/y on purpose"
            )
        await asyncio.sleep(delay)
        force_scroll = True  # centred, it may come out from under a sticky header


async def _top_hit(page: Page, point: Point) -> str | None:
    """What covers the frame at ``point`` in the page's own document, if anything."""
    value = await evaluate(page, _TOP_HIT, point.x, point.y)
    return value if isinstance(value, str) else None


async def _in_viewport(page: Page, point: Point) -> bool:
    metrics = await page.send(cdp.page.get_layout_metrics())
    viewport = metrics.css_visual_viewport
    return 0 <= point.x < viewport.client_width and 0 <= point.y < viewport.client_height


async def release_elements(*elements: Element | None) -> None:
    """Free the page's handles on elements (best effort)."""
    for element in elements:
        if element is not None:
            await element.release()


async def target_point(page: Page, target: Target) -> Point:
    """Where to act on the target (see :func:`target_and_point`); the handle is released."""
    element, point = await target_and_point(page, target)
    await release_elements(element)
    return point


async def target_and_point(
    page: Page, target: Target, *, check_hit: bool = True
) -> tuple[Element, Point]:
    """The targeted element and the viewport point to act at.

    With ``x``/``y`` the point is exactly that; otherwise the element (or the one the
    locator finds within the target's timeout) is scrolled into view and the point is the
    centre of its box.
    """
    target.check()
    check_no_dialog(page)
    element = await target.resolve(page)
    x, y = target.x, target.y
    if x is not None and y is not None:
        return element, Point(x, y)
    try:
        return element, await clickable_point(page, element, check_hit=check_hit)
    except BaseException:
        await release_elements(element)
        raise
