"""Choosing the locator that finds an element again on a changed page (:func:`locator_for`).

The preference is Playwright codegen's: what a person sees first, what a page's author
keeps stable next, where it is last. Role and name when they are unique; else the label
of a form field; else its visible text; else a CSS selector of attributes kept for tests
and forms (``data-testid`` and kin, a field's ``name``, an id that looks written by hand);
else the point where it is, with a comment saying nothing else identified it. Each
candidate is checked against the page as it is now: it must find exactly this element.
"""

from __future__ import annotations

import re

from .. import cdp
from ..page import Page
from ._elements import Element
from ._locating import Locator, Match, designated_numbers, matches_in
from ._pointing import clickable_point
from ._scripts import Script
from ._snapshot import OutlineEntry, outline_number, page_outline
from ._targeting import resolve_element

__all__ = ["generated_id", "locator_for"]

_STABLE_ATTRIBUTES = Script("stable_attributes")
_ONLY_MATCH = Script("only_match", uses=("find",))

# Entries whose role and name say nothing a person would point at.
_NO_ROLE_LOCATOR = frozenset({"StaticText", "RootWebArea", "Iframe", "generic", "none"})
# Ids frameworks and libraries generate: React's useId (":r1:"), Ember ("ember123"), ExtJS
# ("ext-gen12"), YUI ("yui_3_1"), MUI ("mui-12"), Radix ("radix-:r2:"), Headless UI
# ("headlessui-menu-button-3"), jQuery UI ("ui-id-4"), React Aria ("react-aria-12").
_GENERATED_PREFIX = re.compile(
    r"(ember|ext-gen|ext-comp|yui_|mui-|radix-|headlessui-|ui-id-|react-aria|react-select-"
    r"|rc_|rc-|__)",
    re.IGNORECASE,
)
_HAND_WRITTEN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def generated_id(value: str) -> bool:
    """Whether an element id looks generated (so it will differ on the next render) rather
    than written by hand: punctuation other than ``-``/``_`` (React's ``:r1:``), a
    framework's prefix (``ember123``), a run of three digits or more, a hex-like run
    (a hash, a uuid), or digits scattered through it (``a8xk2q9``)."""
    if not _HAND_WRITTEN.fullmatch(value) or _GENERATED_PREFIX.match(value):
        return True
    if re.search(r"\d{3,}", value):
        return True
    for run in re.findall(r"[0-9a-fA-F]{6,}", value):
        if re.search(r"\d", run):
            return True  # a hash or a uuid piece, not a word such as "facade"
    return len(re.findall(r"\d+", value)) > 2


def _css_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\a ").replace("\r", "\\d ")
    return f'"{escaped}"'


async def locator_for(
    page: Page, *, index: int | None = None, selector: str | None = None
) -> Locator:
    """The most robust locator that finds exactly this element on the page now: the
    element a snapshot ``index`` or a CSS ``selector`` designates.

    In order of preference: ``role`` and ``name`` when no other element has both; else
    ``label`` (a labelled form field); else visible ``text`` when unique (never for an
    editable field, whose text is what typing changes); else a CSS ``selector`` of stable
    attributes (``data-testid``, ``data-test``, ``data-qa``..., the ``name`` of a form
    field, an id that looks written by hand: not React's ``:r1:``, ``ember123``, a uuid,
    a hash, three digits in a row...); else ``x``/``y``
    (the element's centre, scrolled into view) with a ``comment`` saying nothing else
    identified it. Never a snapshot index.

    Raises:
        ValueError: Not exactly one of ``index`` and ``selector``.
        ElementNotFoundError: No such element (an index out of range or stale), or only
            coordinates would identify it and it is not visible.
        TargetClosedError: The page is closed.
    """
    if (index is None) == (selector is None):
        raise ValueError("Provide one of: index or selector")
    element = await resolve_element(page, index=index, selector=selector)
    try:
        return await _choose(page, element)
    finally:
        await element.release()


async def _choose(page: Page, element: Element) -> Locator:
    session = element.session
    described = await session.send(
        cdp.dom.describe_node(object_id=cdp.runtime.RemoteObjectId(element.object_id))
    )
    backend_id = int(described.node.backend_node_id)
    entries = await page_outline(page, every_text=True)
    worlds = {entry.world for entry in entries if entry.session is session}
    world = number = None
    for candidate in worlds:
        found = await outline_number(session, candidate, backend_id)
        if found:
            world, number = candidate, found
            break

    def is_it(matches: list[Match]) -> bool:
        return (
            len(matches) == 1
            and matches[0].session is session
            and matches[0].world == world
            and matches[0].number == number
        )

    own: OutlineEntry | None = None
    if world is not None:
        own = next(
            (entry for entry in entries
             if entry.session is session and entry.world == world and entry.id == number),
            None,
        )
    attributes = await element.call(_STABLE_ATTRIBUTES)
    editable = bool(attributes["editable"])
    if own is not None and own.name and own.role not in _NO_ROLE_LOCATOR:
        locator = Locator(role=own.role, name=own.name)
        if is_it(await matches_in(entries, locator)):
            return locator
    if own is not None and own.name:
        locator = Locator(label=own.name)
        if is_it(await matches_in(entries, locator)):
            return locator
    if not editable:
        # The text runs this element holds itself: a text locator acts on the element
        # holding the text. (Numbering the runs' holders numbers this element too, when
        # the walk did not list it: a plain clickable <span>.)
        for candidate in [world] if world is not None else sorted(worlds):
            runs = [entry for entry in entries if entry.role == "StaticText"
                    and entry.session is session and entry.world == candidate]
            holders = await designated_numbers(runs, "text")
            found = number or await outline_number(session, candidate, backend_id)
            if not found:
                continue
            world, number = candidate, found
            own_texts = [run.name for run, holder in zip(runs, holders, strict=True)
                         if holder == number]
            for text in dict.fromkeys(own_texts):
                locator = Locator(text=text)
                if is_it(await matches_in(entries, locator)):
                    return locator
            break
    if attributes["top"]:
        selectors = [f"[{name}={_css_string(value)}]" for name, value in attributes["tests"]]
        if attributes["name"] is not None:
            selectors.append(f"{attributes['tag']}[name={_css_string(attributes['name'])}]")
        identifier = attributes["id"]
        if identifier is not None and not generated_id(identifier):
            selectors.append(f"#{identifier}")
        for css in selectors:
            if await element.call(_ONLY_MATCH, css):
                return Locator(selector=css)
    point = await clickable_point(page, element, check_hit=False)
    return Locator(
        x=round(point.x, 1),
        y=round(point.y, 1),
        comment=(
            "coordinates: no unique role and name, label, text or stable attribute "
            "identified this element"
        ),
    )

