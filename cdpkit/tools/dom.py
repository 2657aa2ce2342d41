"""DOM exploration tools: query elements, read what a user sees, inspect styles, visibility,
attributes, forms and metadata.

Every tool reads the live page and changes nothing. Results are small frozen dataclasses
(or plain dicts where the shape is open), serializable with :func:`dataclasses.asdict`.
Selectors are matched in the document and in open shadow roots. Where a result names an
element by ``selector``, that is a CSS selector unique on the page at that moment, usable
as the ``selector=`` of any other tool.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import CDPError, EvaluationError
from ..page import Page
from ._targeting import Box, resolve_element

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


# -- JavaScript helpers -----------------------------------------------------------------------

# Shared by every function below: ``H`` holds the helpers.
_PRELUDE = r"""
const H = {};
H.INVALID = 'cdpkit:invalid-selector';
H.rootsCache = null;
H.roots = () => {
  if (H.rootsCache) return H.rootsCache;
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  return H.rootsCache = roots;
};
H.check = (selector) => {
  try { document.createDocumentFragment().querySelector(selector); }
  catch (e) { throw new Error(H.INVALID); }
};
H.queryAll = (selector) => {
  H.check(selector);
  const found = [];
  for (const root of H.roots()) found.push(...root.querySelectorAll(selector));
  return found;
};
H.count = (selector) => {
  let n = 0;
  for (const root of H.roots()) n += root.querySelectorAll(selector).length;
  return n;
};
H.norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
H.cut = (s, n) => s.length > n ? s.slice(0, n - 1) + '…' : s;
H.quote = (s) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ') + '"';
H.describe = (el) => {
  if (!el || el.nodeType !== 1) return 'nothing';
  let text = '<' + el.localName;
  if (el.id) text += ' id="' + el.id + '"';
  const cls = (el.getAttribute('class') || '').trim();
  if (cls) text += ' class="' + cls.split(/\s+/).slice(0, 3).join(' ') + '"';
  return text + '>';
};
H.parent = (node) => node.assignedSlot || node.parentNode || node.host || null;
H.unique = (el) => {
  const esc = CSS.escape;
  if (el.id) {
    const s = '#' + esc(el.id);
    if (H.count(s) === 1) return s;
  }
  for (const attr of ['data-testid', 'data-test', 'data-qa', 'name', 'aria-label']) {
    const v = el.getAttribute(attr);
    if (v) {
      const s = esc(el.localName) + '[' + attr + '=' + H.quote(v) + ']';
      if (H.count(s) === 1) return s;
    }
  }
  const parts = [];
  for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentNode) {
    if (cur !== el && cur.id && H.count('#' + esc(cur.id)) === 1) {
      parts.unshift('#' + esc(cur.id));
      const s = parts.join(' > ');
      return H.count(s) === 1 ? s : null;
    }
    let part = esc(cur.localName);
    const siblings = cur.parentNode ? [...cur.parentNode.children] : [];
    const same = siblings.filter(c => c.localName === cur.localName);
    if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(cur) + 1) + ')';
    parts.unshift(part);
    const s = parts.join(' > ');
    if (H.count(s) === 1) return s;
  }
  return null;
};
H.contains = (el, node) => {
  for (let n = node; n; n = n.parentNode || n.host) if (n === el) return true;
  return false;
};
H.frameOffset = (el) => {
  let x = 0, y = 0;
  let win = el.ownerDocument.defaultView;
  try {
    while (win && win.frameElement) {
      const frame = win.frameElement;
      const rect = frame.getBoundingClientRect();
      const style = getComputedStyle(frame);
      x += rect.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
      y += rect.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
      win = win.parent;
    }
  } catch (e) { /* a cross-origin parent: stop there */ }
  return [x, y];
};
H.visibility = (el) => {
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  if (!el.isConnected) return {visible: false, inViewport: false, box: null, reason: 'not attached to the document'};
  const hidden = (reason) => ({visible: false, inViewport: false, box: null, reason});
  for (let cur = el; cur && cur.nodeType === 1; cur = H.parent(cur)) {
    const style = win.getComputedStyle(cur);
    const on = cur === el ? '' : ' on ' + H.describe(cur);
    if (style.display === 'none') return hidden('display: none' + on);
    if (style.opacity === '0') return hidden('opacity: 0' + on);
    if (style.contentVisibility === 'hidden' && cur !== el) return hidden('content-visibility: hidden' + on);
    if (cur.localName === 'details' && !cur.open && cur !== el && el.localName !== 'summary' &&
        !(cur.querySelector(':scope > summary') || {contains: () => false}).contains(el)) {
      return hidden('inside a closed ' + H.describe(cur));
    }
  }
  const style = win.getComputedStyle(el);
  if (style.visibility !== 'visible') return hidden('visibility: ' + style.visibility);
  const rect = el.getBoundingClientRect();
  const [ox, oy] = H.frameOffset(el);
  const box = {x: rect.x + ox, y: rect.y + oy, width: rect.width, height: rect.height};
  const result = (visible, reason, inViewport) => ({visible, inViewport, box, reason});
  if (rect.width === 0 || rect.height === 0) {
    return result(false, 'zero size (' + rect.width + 'x' + rect.height + ')', false);
  }
  const fixed = style.position === 'fixed';
  for (let cur = el; cur && cur.nodeType === 1; cur = H.parent(cur)) {
    const s = win.getComputedStyle(cur);
    const on = cur === el ? '' : ' on ' + H.describe(cur);
    if (s.clip === 'rect(0px, 0px, 0px, 0px)' || /inset\(50%\)/.test(s.clipPath)) {
      return result(false, 'clipped away (' + (s.clipPath !== 'none' ? 'clip-path' : 'clip') + on + ')', false);
    }
    if (cur !== el && s.overflow !== 'visible' && !fixed) {
      const r = cur.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return result(false, 'clipped to ' + r.width + 'x' + r.height + ' by overflow: ' + s.overflow + on, false);
      const outside = rect.right <= r.left || rect.left >= r.right || rect.bottom <= r.top || rect.top >= r.bottom;
      if (outside && /auto|scroll/.test(s.overflow)) {
        return result(true, 'scrolled out of view inside ' + H.describe(cur) + ': scroll it to see it', false);
      }
      if (outside) return result(false, 'clipped out of ' + H.describe(cur) + ' (overflow: ' + s.overflow + ')', false);
    }
  }
  if (!el.checkVisibility()) return hidden('not rendered (inside a hidden or collapsed container)');
  const scrollX = win.scrollX, scrollY = win.scrollY;
  if (rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) {
    return result(false, 'positioned outside the page (' + Math.round(rect.left + scrollX) + ', ' + Math.round(rect.top + scrollY) + ')', false);
  }
  const vw = doc.documentElement.clientWidth || win.innerWidth;
  const vh = doc.documentElement.clientHeight || win.innerHeight;
  const left = Math.max(rect.left, 0), right = Math.min(rect.right, vw);
  const top = Math.max(rect.top, 0), bottom = Math.min(rect.bottom, vh);
  const inViewport = right > left && bottom > top;
  if (!inViewport) return result(true, 'outside the viewport: scroll to see it', false);
  const root = el.getRootNode();
  const hit = (root.elementFromPoint ? root : doc).elementFromPoint((left + right) / 2, (top + bottom) / 2);
  if (hit && !H.contains(el, hit) && !(hit.localName === 'label' && hit.control === el)) {
    let labelled = false;
    for (let n = hit; n; n = n.parentNode) if (n.localName === 'label' && n.control === el) labelled = true;
    if (!labelled) return result(false, 'covered by ' + H.describe(hit), true);
  }
  return result(true, null, true);
};
H.visible = (el) => H.visibility(el).visible;
H.deepActive = (doc) => {
  let el = doc.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
};
"""


def _function(body: str) -> str:
    """JS source of a function that runs ``body`` (a function) with the helpers in scope."""
    return f"function(...args) {{\n{_PRELUDE}\nreturn ({body}).apply(this, args);\n}}"


def _invalid_selector(error: EvaluationError, selector: str | None) -> Exception:
    if selector is not None and "cdpkit:invalid-selector" in error.text:
        return ValueError(f"Invalid CSS selector: {selector!r}")
    return error


async def _run(page: Page, body: str, *args: Any, selector: str | None = None) -> Any:
    """Evaluate ``body`` (a JS function) in the page's main frame with JSON ``args``."""
    arguments = ", ".join(json.dumps(arg) for arg in args)
    result = await page.call(
        "Runtime.evaluate",
        {"expression": f"({_function(body)})({arguments})", "returnByValue": True},
    )
    details = result.get("exceptionDetails")
    if details:
        exception = details.get("exception") or {}
        text = str(exception.get("description") or details.get("text") or "JavaScript error")
        raise _invalid_selector(EvaluationError(text), selector)
    return result.get("result", {}).get("value")


async def _on_target(
    page: Page,
    selector: str | None,
    index: int | None,
    x: float | None,
    y: float | None,
    function: str,
    *args: Any,
) -> Any:
    """Run ``function`` (JS, helpers in scope) on the target element and free its handle."""
    element = await resolve_element(page, selector=selector, index=index, x=x, y=y)
    try:
        return await element.call(_function(function), *args)
    finally:
        if not element.session.closed:
            with contextlib.suppress(CDPError):
                await element.session.call("Runtime.releaseObject", {"objectId": element.object_id})


def _box(raw: dict[str, float] | None) -> Box | None:
    if raw is None:
        return None
    return Box(*(round(raw[key], 2) for key in ("x", "y", "width", "height")))


# -- tools ------------------------------------------------------------------------------------


_QUERY_JS = """function(selector, limit) {
  const found = H.queryAll(selector);
  return found.slice(0, limit).map(el => ({
    tag: el.localName,
    id: el.id || '',
    classes: [...el.classList],
    text: H.cut(H.norm(el.textContent), 200),
    selector: H.unique(el),
  }));
}"""


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
    rows = await _run(page, _QUERY_JS, selector, limit, selector=selector)
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
    count = await _run(
        page,
        "function(selector) { return H.queryAll(selector).length; }",
        selector,
        selector=selector,
    )
    return int(count)


# Text a user sees: a walk of the flat tree (shadow roots, slots) that skips what is
# hidden, clipped away or off the page, with line breaks around blocks.
_VISIBLE_TEXT_JS = r"""function(maxChars) {
  // Pieces of text, and numbers: line breaks wanted between blocks (the most wins).
  const out = [];
  const cache = new Map();
  const shown = (el) => {
    if (cache.has(el)) return cache.get(el);
    let ok;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    if (style.display === 'none' || style.opacity === '0' || style.contentVisibility === 'hidden') ok = false;
    else {
      const parent = H.parent(el);
      ok = !parent || parent.nodeType !== 1 || shown(parent);
      if (ok && style.display !== 'contents' && !el.checkVisibility()) ok = false;
      if (ok && (style.clip === 'rect(0px, 0px, 0px, 0px)' || /inset\(50%\)/.test(style.clipPath))) ok = false;
      if (ok && style.overflow !== 'visible' && style.display !== 'contents') {
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) ok = false;
      }
    }
    cache.set(el, ok);
    return ok;
  };
  const offPage = (rect, win) => rect.right + win.scrollX <= 0 || rect.bottom + win.scrollY <= 0;
  const walk = (node) => {
    if (node.nodeType === 3) {
      const parent = H.parent(node);
      if (!parent || parent.nodeType !== 1 || !shown(parent)) return;
      const win = parent.ownerDocument.defaultView;
      const style = win.getComputedStyle(parent);
      if (style.visibility !== 'visible') return;
      const range = parent.ownerDocument.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if ((rect.width === 0 && rect.height === 0) || offPage(rect, win)) return;
      out.push(/^pre/.test(style.whiteSpace) ? node.data : node.data.replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType === 11) {
      for (const child of node.childNodes) walk(child);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (['script', 'style', 'noscript', 'template', 'head'].includes(tag) || !shown(el)) return;
    if (tag === 'br') { out.push('\n'); return; }
    const win = el.ownerDocument.defaultView;
    const style = win.getComputedStyle(el);
    const display = style.display;
    const cell = /^table-cell/.test(display);
    const breaks = cell ? 0 : tag === 'p' ? 2 : /^(block|flex|grid|table|list-item|flow-root)/.test(display) ? 1 : 0;
    if (breaks) out.push(breaks);
    if (['input', 'textarea', 'select'].includes(tag)) {
      if (style.visibility === 'visible' && !offPage(el.getBoundingClientRect(), win)) {
        let value = '';
        if (tag === 'select') value = [...el.selectedOptions].map(o => o.label).join(', ');
        else if (tag === 'textarea') value = el.value;
        else if (['button', 'submit', 'reset'].includes(el.type)) value = el.value;
        else if (!['hidden', 'checkbox', 'radio', 'file', 'image', 'range', 'color', 'password'].includes(el.type)) value = el.value || el.placeholder;
        if (value) out.push(' ' + value + ' ');
      }
    } else if (tag === 'iframe') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.body) { out.push(1); walk(doc.body); out.push(1); }
    } else if (el.shadowRoot) {
      walk(el.shadowRoot);
    } else if (tag === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      for (const child of (assigned.length ? assigned : el.childNodes)) walk(child);
    } else {
      for (const child of el.childNodes) walk(child);
    }
    if (cell) out.push('\t');
    if (breaks) out.push(breaks);
  };
  walk(this === window || !this ? document.body || document.documentElement : this);
  let text = '';
  let pending = 0;
  for (const piece of out) {
    if (typeof piece === 'number') { pending = Math.max(pending, piece); continue; }
    if (pending) {
      if (!piece.trim() && piece !== '\n') continue;
      if (text) text = text.replace(/[ \t]+$/, '') + '\n'.repeat(pending);
      pending = 0;
      text += piece.replace(/^ +/, '');
    } else {
      text += piece;
    }
  }
  text = text
    .replace(/[ \u00a0]*\t[ \t\u00a0]*/g, '\t')
    .replace(/ {2,}/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\t+(?=\n|$)/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (maxChars !== null && text.length > maxChars) text = text.slice(0, maxChars);
  return text;
}"""


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
        text = await _on_target(page, selector, None, None, None, _VISIBLE_TEXT_JS, max_chars)
    else:
        text = await _run(page, _VISIBLE_TEXT_JS, max_chars)
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

_STYLES_JS = r"""function(properties) {
  const style = this.ownerDocument.defaultView.getComputedStyle(this);
  const kebab = (p) => p.startsWith('--') ? p : p.replace(/[A-Z]/g, c => '-' + c.toLowerCase());
  const values = {};
  const unknown = [];
  for (const property of properties) {
    const name = kebab(property.trim());
    if (!name.startsWith('--') && !(name in style) && !CSS.supports(name, 'initial')) {
      unknown.push(property);
      continue;
    }
    values[name] = style.getPropertyValue(name).trim();
  }
  return {values, unknown};
}"""


async def computed_styles(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
    properties: list[str] | None = None,
) -> dict[str, str]:
    """The computed CSS values of an element, as the browser resolved them.

    Args:
        page: The page.
        selector: CSS selector of the element (or ``index``, or ``x``/``y``).
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x of the element (with ``y``).
        y: Viewport y of the element (with ``x``).
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
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    wanted = list(_DEFAULT_STYLES) if properties is None else list(properties)
    result = await _on_target(page, selector, index, x, y, _STYLES_JS, wanted)
    if result["unknown"]:
        raise ValueError(f"Unknown CSS properties: {', '.join(result['unknown'])}")
    values: dict[str, str] = result["values"]
    return values


async def check_visibility(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
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

    Returns:
        ``Visibility(visible, in_viewport, box, reason)``.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    raw = await _on_target(page, selector, index, x, y, "function() { return H.visibility(this); }")
    return Visibility(raw["visible"], raw["inViewport"], _box(raw["box"]), raw["reason"])


async def get_attributes(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> dict[str, str]:
    """Every HTML attribute of an element, as written in the markup (in source order).

    Current form values typed by the user are properties, not attributes: see
    :func:`form_values` for those.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    attributes: dict[str, str] = await _on_target(
        page,
        selector,
        index,
        x,
        y,
        "function() { return Object.fromEntries([...this.attributes].map(a => [a.name, a.value])); }",
    )
    return attributes


_METADATA_JS = r"""function() {
  const meta = (key) => {
    for (const m of document.querySelectorAll('meta')) {
      const name = m.getAttribute('name') || m.getAttribute('property') || '';
      if (name.toLowerCase() === key) return (m.getAttribute('content') || '').trim();
    }
    return '';
  };
  const link = (rel) => {
    for (const l of document.querySelectorAll('link[rel]')) {
      if (l.rel.toLowerCase().split(/\s+/).includes(rel) && l.getAttribute('href')) return l.href;
    }
    return '';
  };
  const prefixed = (prefix) => {
    const found = {};
    for (const m of document.querySelectorAll('meta')) {
      const name = (m.getAttribute('property') || m.getAttribute('name') || '').trim();
      if (name.toLowerCase().startsWith(prefix) && !(name in found)) {
        found[name] = (m.getAttribute('content') || '').trim();
      }
    }
    return found;
  };
  return {
    url: document.URL,
    title: document.title,
    description: meta('description'),
    canonical: link('canonical'),
    lang: document.documentElement?.lang || '',
    charset: document.characterSet,
    keywords: meta('keywords'),
    robots: meta('robots'),
    viewport: meta('viewport'),
    favicon: link('icon') || link('shortcut') || link('apple-touch-icon'),
    open_graph: prefixed('og:'),
    twitter: prefixed('twitter:'),
  };
}"""


async def page_metadata(page: Page) -> PageMetadata:
    """The page's title, description, canonical URL, language, charset, Open Graph and
    Twitter card properties, and other ``<meta>`` basics.

    Missing items are ``""`` (or empty dicts); URLs are absolute.

    Raises:
        TargetClosedError: The page is closed.
    """
    raw = await _run(page, _METADATA_JS)
    return PageMetadata(**raw)


_FIND_TEXT_JS = r"""function(query, exact, limit) {
  const wanted = exact ? H.norm(query) : H.norm(query).toLowerCase();
  const matches = (text) => {
    const t = H.norm(text);
    return exact ? t === wanted : t.toLowerCase().includes(wanted);
  };
  const attrText = (el) => {
    const found = [];
    if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) found.push(el.value);
    for (const a of ['aria-label', 'placeholder', 'title', 'alt']) {
      const v = el.getAttribute(a);
      if (v) found.push(v);
    }
    return found;
  };
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
  const fullText = (el) => el.shadowRoot ? el.shadowRoot.textContent + ' ' + el.textContent : el.textContent;
  const hits = [];
  // Depth-first; an element matches by its text only if none of its children does.
  const visit = (el) => {
    if (SKIP.has(el.localName)) return false;
    const children = [...el.children];
    if (el.shadowRoot) children.push(...el.shadowRoot.children);
    let childMatched = false;
    for (const child of children) if (visit(child)) childMatched = true;
    if (childMatched) return true;
    const text = H.norm(fullText(el));
    if (text && matches(text) && el !== document.documentElement && el !== document.body) {
      hits.push([el, text]);
      return true;
    }
    for (const value of attrText(el)) {
      if (matches(value)) { hits.push([el, H.norm(value)]); return true; }
    }
    return false;
  };
  if (document.documentElement) visit(document.documentElement);
  const all = hits.map(([el, text]) => ({el, text, visible: H.visible(el)}));
  all.sort((a, b) => (b.visible - a.visible));
  return all.slice(0, limit).map(({el, text, visible}) => ({
    selector: H.unique(el), tag: el.localName, text: H.cut(text, 200), visible,
  }));
}"""


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
    rows = await _run(page, _FIND_TEXT_JS, text, exact, limit)
    return [TextMatch(row["selector"], row["tag"], row["text"], row["visible"]) for row in rows]


_FORM_JS = r"""function(scoped) {
  const root = scoped ? this : document;
  let controls;
  if (scoped && ['input', 'select', 'textarea'].includes(this.localName)) controls = [this];
  else if (scoped && this.localName === 'form') controls = [...this.elements];
  else controls = [...root.querySelectorAll('input, select, textarea')];
  const seen = new Set();
  const fields = [];
  for (const el of controls) {
    if (seen.has(el) || !['input', 'select', 'textarea'].includes(el.localName)) continue;
    seen.add(el);
    if (el.localName === 'input' && ['button', 'submit', 'reset', 'image'].includes(el.type)) continue;
    let label = '';
    if (el.labels && el.labels.length) {
      label = [...el.labels].map(l => {
        const copy = l.cloneNode(true);
        for (const inner of copy.querySelectorAll('input, select, textarea')) inner.remove();
        return H.norm(copy.textContent);
      }).join(' ');
    }
    label = label || el.getAttribute('aria-label') || el.getAttribute('placeholder') || '';
    let value = el.value;
    let checked = null;
    if (el.localName === 'select' && el.multiple) value = [...el.selectedOptions].map(o => o.value);
    if (el.type === 'file') value = [...el.files].map(f => f.name);
    if (el.type === 'checkbox' || el.type === 'radio') checked = el.checked;
    const form = el.form ? (el.form.id || el.form.getAttribute('name') || '') : '';
    fields.push({
      selector: H.unique(el), tag: el.localName, type: el.type, name: el.name || '',
      label: H.norm(label), value, checked, disabled: el.matches(':disabled'),
      required: !!el.required, form,
    });
  }
  return fields;
}"""


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
        rows = await _on_target(page, selector, None, None, None, _FORM_JS, True)
    else:
        rows = await _run(page, _FORM_JS, False)
    return [FormField(**row) for row in rows]


_STATE_JS = r"""function() {
  const el = this;
  const tag = el.localName;
  const aria = (name) => el.getAttribute(name);
  const enabled = !(el.matches(':disabled') || aria('aria-disabled') === 'true');
  let checked = null;
  if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) checked = el.checked;
  else if (aria('aria-checked') !== null) checked = aria('aria-checked') === 'true';
  else if (aria('aria-pressed') !== null) checked = aria('aria-pressed') === 'true';
  let selected = null;
  if (tag === 'option') selected = el.selected;
  else if (aria('aria-selected') !== null) selected = aria('aria-selected') === 'true';
  const root = el.getRootNode();
  const focused = root.activeElement === el;
  let editable = false;
  if (el.isContentEditable) editable = true;
  else if (tag === 'textarea') editable = enabled && !el.readOnly;
  else if (tag === 'input') {
    const noText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'hidden', 'range', 'color'];
    editable = enabled && !el.readOnly && !noText.includes(el.type);
  }
  return {tag, visible: H.visible(el), enabled, checked, focused, editable, selected};
}"""


async def element_state(
    page: Page,
    *,
    selector: str | None = None,
    index: int | None = None,
    x: float | None = None,
    y: float | None = None,
) -> ElementState:
    """The interaction state of an element: visible, enabled, checked, focused,
    editable, selected.

    Args:
        page: The page.
        selector: CSS selector of the element (or ``index``, or ``x``/``y``).
        index: Index of the element in the latest ``snapshot``.
        x: Viewport x of the element (with ``y``).
        y: Viewport y of the element (with ``x``).

    Returns:
        :class:`ElementState`; ``checked``/``selected`` are ``None`` where they do not
        apply.

    Raises:
        ValueError: Not exactly one target; an invalid selector.
        ElementNotFoundError: No such element.
        TargetClosedError: The page is closed.
    """
    raw = await _on_target(page, selector, index, x, y, _STATE_JS)
    return ElementState(**raw)


_TREE_JS = r"""function(maxDepth, maxNodes) {
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'head', 'base']);
  const KEEP = ['href', 'src', 'type', 'name', 'value', 'role', 'aria-label', 'placeholder',
                'alt', 'title', 'for', 'action', 'method', 'checked', 'disabled', 'selected'];
  let count = 0;
  let truncated = false;
  const node = (el, depth) => {
    count++;
    const out = {tag: el.localName};
    if (el.id) out.id = el.id;
    if (el.classList.length) out.classes = [...el.classList];
    const attrs = {};
    for (const name of KEEP) if (el.hasAttribute(name)) attrs[name] = H.cut(el.getAttribute(name), 200);
    if (Object.keys(attrs).length) out.attributes = attrs;
    let text = '';
    for (const child of el.childNodes) if (child.nodeType === 3) text += child.data;
    text = H.cut(H.norm(text), 200);
    if (text) out.text = text;
    if (!H.visible(el)) out.hidden = true;
    const kids = [...el.children].filter(c => !SKIP.has(c.localName));
    const shadow = el.shadowRoot ? [...el.shadowRoot.children].filter(c => !SKIP.has(c.localName)) : [];
    if (maxDepth !== null && depth >= maxDepth) {
      if (kids.length + shadow.length) out.children_omitted = kids.length + shadow.length;
      return out;
    }
    const children = [];
    for (const child of kids) {
      if (count >= maxNodes) { truncated = true; break; }
      children.push(node(child, depth + 1));
    }
    if (children.length) out.children = children;
    if (shadow.length) {
      const inShadow = [];
      for (const child of shadow) {
        if (count >= maxNodes) { truncated = true; break; }
        inShadow.push(node(child, depth + 1));
      }
      out.shadow_root = inShadow;
    }
    return out;
  };
  const start = this && this.nodeType === 1 ? this : (document.body || document.documentElement);
  const tree = node(start, 0);
  if (truncated) tree.truncated = true;
  return tree;
}"""


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
        tree = await _on_target(page, selector, None, None, None, _TREE_JS, max_depth, max_nodes)
    else:
        tree = await _run(page, _TREE_JS, max_depth, max_nodes)
    result: dict[str, Any] = tree
    return result
