"""What a recorded step acts on, read before the action: the element's locator (in code
and in words), whether it is a password field (what is typed there is never written
down), a drag's drop point, a tab's place in the list.

:mod:`._recording` writes the steps with these; :mod:`._recorded_script` renders them.
"""

from __future__ import annotations

import dataclasses
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
# The focused field, followed into open shadow roots and same-origin frames. Focus in a
# frame this page cannot read (another origin) counts as a password field: what cannot be
# seen is not written down.
_FOCUS_IS_PASSWORD = (
    "(() => { " + _SECRET_FIELD + " let field = document.activeElement;"
    " for (;;) {"
    "  if (field && field.shadowRoot && field.shadowRoot.activeElement) {"
    "   field = field.shadowRoot.activeElement; continue; }"
    "  if (field && (field.localName === 'iframe' || field.localName === 'frame')) {"
    "   let inner = null; try { inner = field.contentDocument; } catch (e) {}"
    "   if (!inner) return true;"
    "   field = inner.activeElement; continue; }"
    "  return secretField(field); } })()"
)


async def is_password_field(page: Page, targets: dict[str, Any]) -> bool:
    """Whether the element a ``type_text`` targets (the focused one without a target) is
    a password field."""
    from ._targeting import target_from

    given = {name: value for name, value in targets.items() if value is not None}
    try:
        if not given:
            focused = await page.send_json(
                cdp.runtime.evaluate(_FOCUS_IS_PASSWORD, return_by_value=True)
            )
            return focused["result"].get("value") is True
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
