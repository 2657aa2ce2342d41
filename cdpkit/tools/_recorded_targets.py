"""What a recorded step acts on, read before the action: the element's locator (in code
and in words), whether it is a password field (what is typed there is never written
down), a drag's drop point, a tab's place in the list.

:mod:`._recording` writes the steps with these; :mod:`._recorded_script` renders them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

from .. import cdp
from ..browser import Browser
from ..errors import CDPError
from ..page import Page
from ._keys import lookup_key, parse_combo
from ._recorded_script import Step


def types_text(key: str) -> bool:
    """Whether pressing ``key`` (a press_key argument) types a character: what it types
    into a password field is the password."""
    try:
        modifiers, main = parse_combo(key)
        definition, _ = lookup_key(main)
    except ValueError:
        return False  # the tool refuses it
    shortcut = any(modifier != "Shift" for modifier in modifiers)
    return bool(definition.text) and definition.text != "\r" and not shortcut


def summary(action: str, what: str) -> str:
    words = action.replace("_", " ").capitalize()
    return f"{words}: {what}." if what else f"{words}."


def element_words(locator: dict[str, Any]) -> str:
    """The element a locator finds, in words, for the step's comment."""
    if locator.get("role") is not None:
        name = locator.get("name")
        return f'the {locator["role"]} "{name}"' if name is not None else f'a {locator["role"]}'
    if locator.get("label") is not None:
        return f'the field labelled "{locator["label"]}"'
    if locator.get("text") is not None:
        return f'the element reading "{locator["text"]}"'
    if locator.get("selector") is not None:
        return f"the element {locator['selector']}"
    return f"the point ({locator.get('x')}, {locator.get('y')})"


# What is typed into such a field is never written down: an input of type password, or one
# the page marks for a password (autocomplete current-password / new-password). By tag and
# type rather than instanceof: a field of another frame has that frame's classes.
_SECRET_FIELD = (
    "const secretField = (field) => !!field && field.localName === 'input'"
    " && (field.type === 'password'"
    " || /\\b(current|new)-password\\b/i.test(field.getAttribute('autocomplete') || ''));"
)
_IS_PASSWORD = "function() { " + _SECRET_FIELD + " return secretField(this.control || this); }"
# The elements a page may attach a shadow root to (the DOM standard's list, and custom
# elements): focus on one whose root is not open may be inside a closed root.
_MAY_HOST_SHADOW = (
    "const mayHostShadow = (el) => el.localName.includes('-') || ['article', 'aside',"
    " 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',"
    " 'main', 'nav', 'p', 'section', 'span'].includes(el.localName);"
)
# The focused field, followed into open shadow roots and same-origin frames: whether it is
# a password field, or the element that may hold it in a closed shadow root (read over
# CDP, which sees closed roots). Focus in a frame this page cannot read (another origin;
# an <object> or <embed> too) counts as a password field: what cannot be seen is not
# written down.
_FOLLOW_FOCUS = (
    _SECRET_FIELD + _MAY_HOST_SHADOW + " const followFocus = (field) => { for (;;) {"
    "  if (!field) return false;"
    "  const open = field.shadowRoot;"
    "  if (open) { if (!open.activeElement) return secretField(field);"
    "   field = open.activeElement; continue; }"
    "  if (['iframe', 'frame', 'object', 'embed'].includes(field.localName)) {"
    "   let inner = null;"
    "   try { inner = field.contentDocument || field.getSVGDocument(); } catch (e) {}"
    "   if (!inner) return true;"
    "   field = inner.activeElement; continue; }"
    "  return mayHostShadow(field) ? field : secretField(field); } };"
)
_FOCUS_IS_PASSWORD = (
    "(() => { " + _FOLLOW_FOCUS + " return followFocus(document.activeElement); })()"
)
# The same from a shadow root, ``this`` (its host itself focused: no active element).
_ROOT_FOCUS_IS_PASSWORD = (
    "function() { " + _FOLLOW_FOCUS + " return followFocus(this.activeElement); }"
)

_check_groups = itertools.count(1)


def _focus_found(result: cdp.runtime.RemoteObjectJSON) -> bool | str:
    """What :data:`_FOLLOW_FOCUS` answered: whether the field is a password field, or the
    object id of the element that may hold the focus in a closed shadow root."""
    if result.get("subtype") == "node" and "objectId" in result:
        return result["objectId"]
    return result.get("value") is True


async def _inside_closed_root(page: Page, host_id: str, group: str) -> bool | str | None:
    """Where the focus is inside the shadow root of the host ``host_id`` (one the page
    cannot open), as :func:`_focus_found` says; ``None`` when that cannot be read."""
    try:
        described = await page.send_json(
            cdp.dom.describe_node(
                object_id=cdp.runtime.RemoteObjectId(host_id), depth=0, pierce=True
            )
        )
        roots = [
            root
            for root in described["node"].get("shadowRoots", [])
            if root.get("shadowRootType") != "user-agent"
        ]
        if not roots:
            return False  # no root: the host itself has the focus, and it is no field
        resolved = await page.send_json(
            cdp.dom.resolve_node(
                backend_node_id=cdp.dom.BackendNodeId(roots[0]["backendNodeId"]), object_group=group
            )
        )
        root_id = resolved["object"].get("objectId")
        if root_id is None:
            return None
        called = await page.send_json(
            cdp.runtime.call_function_on(
                _ROOT_FOCUS_IS_PASSWORD, object_id=cdp.runtime.RemoteObjectId(root_id)
            )
        )
    except CDPError:
        return None
    if "exceptionDetails" in called:
        return None
    return _focus_found(called["result"])


async def _focus_is_password(page: Page) -> bool:
    """Whether the focused element of the page is a password field, followed into shadow
    roots (closed ones too) and same-origin frames. One call, unless the focus rests on an
    element that may host a closed shadow root (or on the body: nothing focused)."""
    group = f"cdpkit-password-check-{next(_check_groups)}"
    try:
        evaluated = await page.send_json(
            cdp.runtime.evaluate(_FOCUS_IS_PASSWORD, object_group=group)
        )
    except CDPError:
        return False  # the page is gone: the tool fails and nothing is written
    held = "objectId" in evaluated["result"]  # an element or a thrown error: released after
    found: bool | str | None = (
        None if "exceptionDetails" in evaluated else _focus_found(evaluated["result"])
    )
    try:
        while isinstance(found, str):
            found = await _inside_closed_root(page, found, group)
        # A root that cannot be read counts as a password field, as another origin's frame.
        return found is None or found
    finally:
        if held:
            with contextlib.suppress(CDPError):
                await page.send(cdp.runtime.release_object_group(group))


async def is_password_field(page: Page, targets: dict[str, Any]) -> bool:
    """Whether the element a ``type_text`` targets (the focused one without a target) is
    a password field."""
    from ._targeting import target_from

    given = {name: value for name, value in targets.items() if value is not None}
    if not given:
        return await _focus_is_password(page)
    try:
        element = await dataclasses.replace(target_from(given), timeout=0).resolve(page)
    except (CDPError, ValueError):
        return False  # not there yet: the tool waits for it and says what went wrong
    try:
        return bool(await element.call(_IS_PASSWORD))
    except CDPError:
        return False
    finally:
        await element.release()


async def locate(page: Page, targets: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The keyword arguments finding the targeted element in another run, and comments."""
    from ._locator_for import locator_for  # it uses the tools this module wraps

    given = {name: value for name, value in targets.items() if value is not None}
    if any(name in given for name in ("role", "text", "label")):
        return given, []  # already a locator a person chose: kept as written
    if "x" in given or "y" in given:
        return given, ["Coordinates, as targeted: nothing else identifies the element."]
    if "index" in given:
        locator = await locator_for(page, index=given["index"])
    else:
        locator = await locator_for(page, selector=given["selector"])
    comments = [locator.comment] if locator.comment else []
    return dict(locator.as_kwargs()), comments


async def drop_point(page: Page, keywords: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A drag's destination, written without a snapshot index."""
    from ._locator_for import locator_for

    if keywords.get("to_index") is None:
        return {}, []
    index = keywords.pop("to_index")
    locator = await locator_for(page, index=index)
    if locator.selector is not None:
        return {"to_selector": locator.selector}, []
    from .accessibility import SnapshotState

    box = page.state(SnapshotState).node(index).box
    if box is None:
        raise ValueError(f"the drop target (index {index}) has no box on screen")
    x, y = box.center
    return (
        {"to_x": round(x, 1), "to_y": round(y, 1)},
        ["The drop point is coordinates: the drop target has no stable selector."],
    )


async def tab_step(
    action: str, browser: Browser, positional: list[Any]
) -> Callable[[Any, float | None], Step]:
    """A tab switch or close, by the tab's place in the list (its id is this run's)."""
    tab_id = positional[0]
    page = next((page for page in browser.pages if page.target_id == tab_id), None)
    if page is None:
        raise ValueError(f"no open tab has the id {tab_id!r}")
    # Its place among its browser context's tabs (list_tabs' order): the replay's browser
    # has those only.
    tabs = page.context.pages if page.context is not None else browser.pages
    place = [tab.target_id for tab in tabs if not tab.closed].index(tab_id)
    which = f"(await tools.list_tabs(browser))[{place}].id"

    def build(result: Any, waited: float | None) -> Step:
        if action == "switch_tab":
            return Step(
                f"tools.switch_tab(browser, {which})",
                assign="page",
                comments=[f"Switch to tab {place} (in the order the tabs were opened)."],
                action=action,
            )
        return Step(
            f"tools.close_tab(browser, {which})",
            comments=[f"Close tab {place}; the previously active one becomes active."],
            after=["page = current_tab(browser)"],
            uses=frozenset({"current_tab"}),
            action=action,
        )

    return build
