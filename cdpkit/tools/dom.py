"""DOM exploration tools: query elements, read what a user sees, inspect styles, visibility,
attributes, forms and metadata.

Every tool reads the live page and changes nothing. Results are small frozen dataclasses
(or plain dicts where the shape is open), serializable with :func:`dataclasses.asdict`.
Selectors are matched by the finder every tool shares: the document first, then open
shadow roots in document order (see :mod:`cdpkit.tools._targeting`). Where a result names an
element by ``selector``, that is a CSS selector unique on the page at that moment, usable
as the ``selector=`` of any other tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Unpack

from .._core.keywords import TARGET_DEFAULTS, TargetKeywords, keyword_signature
from ..page import Page
from ._scripts import Script, evaluate
from ._targeting import Box, Target, target_from

__all__ = [
    "Box",
    "DomElement",
    "ElementState",
    "FormField",
    "PageMetadata",
    "TextMatch",
    "Visibility",
    "check_visibility",
    "computed_styles",
    "count_elements",
    "dom_tree",
    "element_state",
    "find_by_text",
    "form_values",
    "get_attributes",
    "page_metadata",
    "query_dom",
    "visible_text",
]


# -- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DomElement:
    """An element found by :func:`query_dom`.

    Attributes:
        tag: Lower-case tag name (``"button"``).
        id: The ``id`` attribute, or ``""``.
        classes: The class names.
        text: Its text content, whitespace-collapsed, cut to 200 characters.
        selector: A CSS selector matching only this element (``None`` if none could be
            built, e.g. twin elements in separate shadow roots).
    """

    tag: str
    id: str
    classes: tuple[str, ...]
    text: str
    selector: str | None


@dataclass(frozen=True, slots=True)
class TextMatch:
    """An element whose text matches :func:`find_by_text`.

    Attributes:
        selector: A CSS selector matching only this element, to target it with other
            tools (``None`` if none could be built).
        tag: Lower-case tag name.
        text: Its text (or the attribute that matched), whitespace-collapsed, cut to 200
            characters.
        visible: Whether a user can see it.
    """

    selector: str | None
    tag: str
    text: str
    visible: bool


@dataclass(frozen=True, slots=True)
class Visibility:
    """Whether a user can see an element, and why not.

    Attributes:
        visible: Rendered, not hidden by CSS, not zero-sized, not clipped away, not pushed
            off the page, and not covered by another element at its centre. An element
            below the fold is visible (the user can scroll to it): see ``in_viewport``.
        in_viewport: Some of it is inside the viewport right now.
        box: Its bounding box in viewport CSS pixels (``None`` if it has no box). For an
            element in a cross-origin iframe, relative to that iframe.
        reason: Why it is not visible (e.g. ``"display: none on <div id=\\"menu\\">"``,
            ``"covered by <div class=\\"modal\\">"``), or, when visible but outside the
            viewport, that it needs scrolling; ``None`` when visible and in view.
    """

    visible: bool
    in_viewport: bool
    box: Box | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class ElementState:
    """The interaction state of an element.

    Attributes:
        tag: Lower-case tag name.
        visible: Whether a user can see it (as :func:`check_visibility`).
        enabled: Not disabled (itself, by a disabled ``<fieldset>``, or ``aria-disabled``).
        checked: For checkboxes, radios, and ``aria-checked`` elements: whether checked
            (``None`` for other elements; ``"mixed"`` state counts as ``False``).
        focused: Whether it has the keyboard focus.
        editable: Whether a user can type into it (text fields, textareas and
            contenteditable elements that are enabled and not read-only).
        selected: For ``<option>`` and ``aria-selected`` elements: whether selected
            (``None`` for other elements).
    """

    tag: str
    visible: bool
    enabled: bool
    checked: bool | None
    focused: bool
    editable: bool
    selected: bool | None


@dataclass(frozen=True, slots=True)
class FormField:
    """A form control and its current value, from :func:`form_values`.

    Attributes:
        selector: A CSS selector matching only this control.
        tag: ``"input"``, ``"select"`` or ``"textarea"``.
        type: The input type (``"text"``, ``"checkbox"``...); ``"select-one"``,
            ``"select-multiple"`` or ``"textarea"`` for the others.
        name: The ``name`` attribute, or ``""``.
        label: Its label text (from ``<label>``, ``aria-label`` or ``placeholder``).
        value: The current value: a string; the selected values (list) of a multiple
            select; the file names (list) of a file input. For checkboxes and radios,
            the ``value`` attribute (see ``checked``).
        checked: For checkboxes and radios, whether checked; else ``None``.
        disabled: Whether the control is disabled.
        required: Whether the control is required.
        form: The ``id`` (or ``name``) of its form, or ``""``.
    """

    selector: str | None
    tag: str
    type: str
    name: str
    label: str
    value: str | list[str]
    checked: bool | None
    disabled: bool
    required: bool
    form: str


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page says about itself in its ``<head>``.

    Attributes:
        url: The document's URL.
        title: The document's title.
        description: ``<meta name="description">``, or ``""``.
        canonical: ``<link rel="canonical">`` (absolute URL), or ``""``.
        lang: The ``lang`` of ``<html>``, or ``""``.
        charset: The document's character encoding (``"UTF-8"``).
        keywords: ``<meta name="keywords">``, or ``""``.
        robots: ``<meta name="robots">``, or ``""``.
        viewport: ``<meta name="viewport">``, or ``""``.
        favicon: The icon's absolute URL from ``<link rel="icon">``, or ``""``.
        open_graph: Every ``og:*`` property, e.g. ``{"og:title": "..."}``.
        twitter: Every ``twitter:*`` card property.
    """

    url: str
    title: str
    description: str
    canonical: str
    lang: str
    charset: str
    keywords: str
    robots: str
    viewport: str
    favicon: str
    open_graph: dict[str, str] = field(default_factory=dict)
    twitter: dict[str, str] = field(default_factory=dict)


# -- scripts (cdpkit/tools/_js/) ----------------------------------------------------------------

_DOM = ("helpers",)  # the shared finder and the DOM helpers (find.js, helpers.js)
_QUERY = Script("dom_query", uses=_DOM)
_COUNT = Script("count_elements", uses=_DOM)
_VISIBLE_TEXT = Script("visible_text", uses=("text",))
_STYLES = Script("computed_styles")
_VISIBILITY = Script("visibility", uses=_DOM)
_ATTRIBUTES = Script("attributes")
_METADATA = Script("page_metadata")
_FIND_TEXT = Script("find_by_text", uses=_DOM)
_FORM = Script("form_values", uses=_DOM)
_STATE = Script("element_state", uses=_DOM)
_TREE = Script("dom_tree", uses=_DOM)


async def _on_target(page: Page, target: Target, script: Script, *args: Any) -> Any:
    """Run ``script`` on the target element and free its handle."""
    element = await target.resolve(page)
    try:
        return await element.call(script, *args)
    finally:
        await element.release()


def _box(raw: dict[str, float] | None) -> Box | None:
    if raw is None:
        return None
    return Box(*(round(raw[key], 2) for key in ("x", "y", "width", "height")))


# -- tools ------------------------------------------------------------------------------------




async def query_dom(page: Page, selector: str, *, limit: int = 10) -> list[DomElement]:
    """List the elements matching a CSS selector, in document order.

    Args:
        page: The page.
        selector: A CSS selector, matched in the document and in open shadow roots.
        limit: At most this many elements are returned (see :func:`count_elements` for
            the total).

    Returns:
        For each element: tag, id, classes, text (cut to 200 characters) and a unique
        selector to target it with other tools. Empty if nothing matches.

    Raises:
        ValueError: The selector is invalid, or ``limit`` is below 1.
        TargetClosedError: The page is closed.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    rows = await evaluate(page, _QUERY, selector, limit, selector=selector)
    return [
        DomElement(row["tag"], row["id"], tuple(row["classes"]), row["text"], row["selector"])
        for row in rows
    ]


async def count_elements(page: Page, selector: str) -> int:
    """Count the elements matching a CSS selector (document and open shadow roots).

    Raises:
        ValueError: The selector is invalid.
        TargetClosedError: The page is closed.
    """
    count = await evaluate(page, _COUNT, selector, selector=selector)
    return int(count)




async def visible_text(
    page: Page, *, selector: str | None = None, max_chars: int | None = None
) -> str:
    """The text a user sees on the page (or in one element), in reading order.

    Skips what is not rendered or not seen: ``display: none``, ``visibility: hidden``,
    ``opacity: 0``, clipped screen-reader-only text, text pushed off the page, closed
    ``<details>``, scripts and styles. Includes open shadow DOM, same-origin iframes and
    the values shown in form fields. Text below the fold counts (the user can scroll to
    it). Blocks are separated by line breaks, table cells by tabs.

    Args:
        page: The page.
        selector: Only the text inside the first element matching this CSS selector.
        max_chars: Cut the text to at most this many characters.

    Returns:
        The text, whitespace-collapsed, lines trimmed.

    Raises:
        ValueError: An invalid selector; ``max_chars`` below 0.
        ElementNotFoundError: ``selector`` matches nothing.
        TargetClosedError: The page is closed.
    """
    if max_chars is not None and max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    if selector is not None:
        text = await _on_target(page, Target(selector), _VISIBLE_TEXT, max_chars)
    else:
        text = await evaluate(page, _VISIBLE_TEXT, max_chars)
    return str(text)


_DEFAULT_STYLES = (
    "display",
    "visibility",
    "opacity",
    "position",
    "top",
    "left",
    "z-index",
    "width",
    "height",
    "margin",
    "padding",
    "border",
    "box-sizing",
    "overflow",
    "color",
    "background-color",
    "font-family",
    "font-size",
    "font-weight",
    "line-height",
    "text-align",
    "cursor",
    "pointer-events",
    "flex-direction",
    "justify-content",
    "align-items",
    "transform",
)



@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def computed_styles(
    page: Page,
    *,
    properties: list[str] | None = None,
    **target: Unpack[TargetKeywords],
) -> dict[str, str]:
    """The computed CSS values of an element, as the browser resolved them.

    Args:
        page: The page.
        selector: CSS selector of the element (or ``index``, or ``x``/``y``).
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x of the element (with ``y``).
        y: Viewport y of the element (with ``x``).
        role: Role of the element as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the element.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.
        properties: CSS property names (``"background-color"`` or
            ``"backgroundColor"``; custom properties like ``"--accent"`` too). By default
            a useful set: display, visibility, opacity, position, top, left, z-index,
            width, height, margin, padding, border, box-sizing, overflow, color,
            background-color, font-family, font-size, font-weight, line-height,
            text-align, cursor, pointer-events, flex-direction, justify-content,
            align-items, transform.

    Returns:
        Property name (kebab-case) to computed value, e.g. ``{"color": "rgb(255, 0, 0)"}``.

    Raises:
        ValueError: An unknown property name; not exactly one target; an invalid selector.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    wanted = list(_DEFAULT_STYLES) if properties is None else list(properties)
    result = await _on_target(page, target_from(target, "computed_styles"), _STYLES, wanted)
    if result["unknown"]:
        raise ValueError(f"Unknown CSS properties: {', '.join(result['unknown'])}")
    values: dict[str, str] = result["values"]
    return values


@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def check_visibility(
    page: Page, **target: Unpack[TargetKeywords]
) -> Visibility:
    """Whether a user can see an element, whether it is in the viewport, and why not.

    An element is not visible when it (or an ancestor) has ``display: none`` or
    ``opacity: 0``, it has ``visibility: hidden``, it has zero size, it is clipped away
    (screen-reader-only styles, ``overflow`` of a tiny or scrolled container), it sits
    inside a closed ``<details>``, it is positioned off the page, or another element
    covers its centre. The reason names the cause and the element carrying it.

    Args:
        page: The page.
        selector: CSS selector of the element (or ``index``, or ``x``/``y``).
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x of the element (with ``y``).
        y: Viewport y of the element (with ``x``).
        role: Role of the element as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the element.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Returns:
        ``Visibility(visible, in_viewport, box, reason)``.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    raw = await _on_target(page, target_from(target, "check_visibility"), _VISIBILITY)
    return Visibility(raw["visible"], raw["inViewport"], _box(raw["box"]), raw["reason"])


@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def get_attributes(
    page: Page, **target: Unpack[TargetKeywords]
) -> dict[str, str]:
    """Every HTML attribute of an element, as written in the markup (in source order).

    Current form values typed by the user are properties, not attributes: see
    :func:`form_values` for those. The element is given as for :func:`element_state`.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    attributes: dict[str, str] = await _on_target(
        page, target_from(target, "get_attributes"), _ATTRIBUTES
    )
    return attributes




async def page_metadata(page: Page) -> PageMetadata:
    """The page's title, description, canonical URL, language, charset, Open Graph and
    Twitter card properties, and other ``<meta>`` basics.

    Missing items are ``""`` (or empty dicts); URLs are absolute.

    Raises:
        TargetClosedError: The page is closed.
    """
    raw = await evaluate(page, _METADATA)
    return PageMetadata(**raw)




async def find_by_text(
    page: Page, text: str, *, exact: bool = False, limit: int = 10
) -> list[TextMatch]:
    """Find the elements showing a text: the innermost element containing it, plus
    elements whose ``value`` (buttons), ``aria-label``, ``placeholder``, ``title`` or
    ``alt`` matches.

    Args:
        page: The page.
        text: The text to look for (whitespace-insensitive).
        exact: Match the whole text of the element, case-sensitively; by default any
            element whose text contains ``text``, case-insensitively.
        limit: At most this many matches, visible ones first, then in document order.

    Returns:
        Each match's unique CSS ``selector`` (pass it as ``selector=`` to click, type...),
        tag, text and whether it is visible. Empty if nothing matches.

    Raises:
        ValueError: An empty ``text`` or ``limit`` below 1.
        TargetClosedError: The page is closed.
    """
    if not text.strip():
        raise ValueError("text is empty")
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    rows = await evaluate(page, _FIND_TEXT, text, exact, limit)
    return [TextMatch(row["selector"], row["tag"], row["text"], row["visible"]) for row in rows]




async def form_values(page: Page, *, selector: str | None = None) -> list[FormField]:
    """The current values of form controls (inputs, selects, textareas), as the user
    left them.

    Buttons are left out. Values are read from the live controls, so what was typed or
    picked shows even though the HTML attributes did not change.

    Args:
        page: The page.
        selector: Only the controls of this form or inside this element (or this one
            control); by default every control of the document.

    Returns:
        One :class:`FormField` per control, in document order: selector, tag, type,
        name, label, value, checked, disabled, required and form.

    Raises:
        ValueError: An invalid selector.
        ElementNotFoundError: ``selector`` matches nothing.
        TargetClosedError: The page is closed.
    """
    if selector is not None:
        rows = await _on_target(page, Target(selector), _FORM, True)
    else:
        rows = await evaluate(page, _FORM, False)
    return [FormField(**row) for row in rows]




@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def element_state(
    page: Page, **target: Unpack[TargetKeywords]
) -> ElementState:
    """The interaction state of an element: visible, enabled, checked, focused,
    editable, selected.

    Args:
        page: The page.
        selector: CSS selector of the element (or ``index``, or ``x``/``y``).
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x of the element (with ``y``).
        y: Viewport y of the element (with ``x``).
        role: Role of the element as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the element.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Returns:
        :class:`ElementState`; ``checked``/``selected`` are ``None`` where they do not
        apply.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    raw = await _on_target(page, target_from(target, "element_state"), _STATE)
    return ElementState(**raw)




async def dom_tree(
    page: Page,
    *,
    selector: str | None = None,
    max_depth: int | None = None,
    max_nodes: int = 2000,
) -> dict[str, Any]:
    """A simplified DOM tree as nested JSON-able dicts, from ``<body>`` (or an element).

    Scripts, styles and other non-content elements are left out. Each node is
    ``{"tag": ..., "id": ..., "classes": [...], "attributes": {...}, "text": ...,
    "hidden": true, "children": [...], "shadow_root": [...]}`` with empty keys omitted:
    ``attributes`` keeps the useful ones (href, src, type, name, value, role,
    aria-label, placeholder, alt, title, for, action, method, checked, disabled,
    selected), ``text`` is the element's own text (not its children's), ``hidden`` marks
    elements a user cannot see, and ``shadow_root`` holds an open shadow root's children.

    Args:
        page: The page.
        selector: Start at the first element matching this CSS selector.
        max_depth: Stop this many levels below the start; deeper levels are counted in
            ``children_omitted``.
        max_nodes: Stop after this many nodes; the root then has ``"truncated": true``.

    Returns:
        The root node.

    Raises:
        ValueError: An invalid selector; ``max_depth`` below 0 or ``max_nodes`` below 1.
        ElementNotFoundError: ``selector`` matches nothing.
        TargetClosedError: The page is closed.
    """
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, got {max_depth}")
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    if selector is not None:
        tree = await _on_target(page, Target(selector), _TREE, max_depth, max_nodes)
    else:
        tree = await evaluate(page, _TREE, max_depth, max_nodes)
    result: dict[str, Any] = tree
    return result
