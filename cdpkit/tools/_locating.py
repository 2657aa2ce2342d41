"""Locators: finding an element by what a person sees (its role and name, its visible text,
the label of a form field) rather than by where it is in the DOM.

A :class:`Locator` is matched against the page engine's outline, the one
:func:`~cdpkit.tools.snapshot` shows (``_snapshot._page_outline``: roles and names computed by
``_snapshot/_js/outline.js``, across open shadow roots and every frame's document), so a locator
finds what a snapshot line names:

* ``role`` (with ``name``): an outline entry of that role (Chrome's role names, as the
  snapshot writes them; case does not matter) and that accessible name.
* ``label``: a form field (an ``input``, ``select``, ``textarea``, a field role, an
  editable element) with a ``<label>``, ``aria-labelledby`` or ``aria-label`` that says it
  (any of them, as Playwright's ``getByLabel``; a placeholder or a title is not a label).
* ``text``: a run of visible text; the element acted on is the one holding it (the
  button whose label it is, the ``<span>`` it is in).

Names match exactly (white space collapsed, as the outline has them) or, with
``exact=False``, as a case-insensitive substring. Exactly one element must match: none is
waited for (the outline is read again at short, growing intervals) up to the timeout,
then fails with :class:`~cdpkit.errors.ElementNotFoundError`; several fail at once with
:class:`~cdpkit.errors.AmbiguousLocatorError`, listing the candidates.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import cdp
from .._core.keywords import TARGET_DEFAULTS
from ..errors import AmbiguousLocatorError, ElementNotFoundError, ProtocolError
from ..page import Page
from ..session import Session
from ._elements import Element, release_remote
from ._snapshot import OutlineEntry, outline_backend_id, page_outline, quote_text

__all__ = [
    "DEFAULT_LOCATOR_TIMEOUT",
    "Locator",
    "Match",
    "candidate_line",
    "check_locator",
    "designated_numbers",
    "find_all",
    "locate",
    "locator_from",
    "matches_in",
    "matching_entries",
    "parse_target",
]

# Seconds a locator waits for its element by default.
DEFAULT_LOCATOR_TIMEOUT: float = TARGET_DEFAULTS["timeout"]
# How long to wait between two reads of the outline while nothing matches.
_POLL_DELAYS = (0.05, 0.1, 0.15, 0.25)
_POLL_DELAY_MAX = 0.4
# Roles people write that the outline names otherwise (ARIA -> Chrome).
_ROLE_ALIASES = {"img": "image", "text": "statictext"}
# The outline's roles of form fields (a file input is a button).
_FIELD_ROLES = frozenset({
    "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch",
    "spinbutton", "slider", "ColorWell", "Date", "InputTime", "button",
})
# Entries that are never a locator's element.
_NOT_ELEMENTS = frozenset({"RootWebArea", "Iframe", "StaticText"})


@dataclass(frozen=True, slots=True)
class Locator:
    """A way to find one element again, by what a person sees first.

    Exactly one kind of target: ``role`` (optionally with ``name``), ``text``, ``label``,
    ``selector`` or ``x``/``y``. Pass it to an element tool with ``**locator.as_kwargs()``.

    Attributes:
        role: A role as the snapshot writes it (``button``, ``link``, ``textbox``...).
        name: With ``role``: the accessible name.
        exact: ``True``: ``name``/``text``/``label`` equal the element's (white space
            collapsed); ``False``: a case-insensitive substring of it.
        text: Visible text of the element.
        label: The label of a form field.
        selector: A CSS selector.
        x: Viewport x in CSS pixels (with ``y``).
        y: Viewport y in CSS pixels (with ``x``).
        comment: Why this locator was chosen, when it is a weak one (coordinates).
    """

    role: str | None = None
    name: str | None = None
    exact: bool = True
    text: str | None = None
    label: str | None = None
    selector: str | None = None
    x: float | None = None
    y: float | None = None
    comment: str | None = None

    def as_kwargs(self) -> dict[str, Any]:
        """The keywords of an element tool call that target the element
        (``exact`` only when it is ``False``; ``comment`` never)."""
        kwargs: dict[str, Any] = {}
        for key in ("role", "name", "text", "label", "selector", "x", "y"):
            value = getattr(self, key)
            if value is not None:
                kwargs[key] = value
        if not self.exact:
            kwargs["exact"] = False
        return kwargs

    def __str__(self) -> str:
        parts = []
        for key, value in self.as_kwargs().items():
            if key == "role":
                parts.append(f"role={value}")
            elif isinstance(value, str):
                parts.append(f"{key}={_quote(value)}")
            else:
                parts.append(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}")
        return " ".join(parts)

    @property
    def semantic(self) -> bool:
        """Whether it is matched against the outline (role, text or label)."""
        return self.role is not None or self.text is not None or self.label is not None


def locator_from(
    role: str | None = None,
    name: str | None = None,
    exact: bool = True,
    text: str | None = None,
    label: str | None = None,
) -> Locator | None:
    """The locator a tool's ``role``/``name``/``exact``/``text``/``label`` keywords give,
    ``None`` when none of them is given.

    Raises:
        ValueError: ``name`` without ``role``, or an empty role, text or label.
    """
    if role is None and text is None and label is None:
        if name is not None:
            raise ValueError("name= goes with role= (e.g. role=button name=\"Join\")")
        return None
    return check_locator(Locator(role=role, name=name, exact=exact, text=text, label=label))


def check_locator(locator: Locator) -> Locator:
    """``locator``, checked: one kind of outline target, nothing empty.

    Raises:
        ValueError: Several kinds given, ``name`` without ``role``, an empty value.
    """
    kinds = (locator.role is not None) + (locator.text is not None) + (locator.label is not None)
    if kinds > 1:
        raise ValueError("Provide one of: role (with name), text, or label")
    if locator.name is not None and locator.role is None:
        raise ValueError("name= goes with role= (e.g. role=button name=\"Join\")")
    for key in ("role", "text", "label"):
        value = getattr(locator, key)
        if value is not None and not value.strip():
            raise ValueError(f"{key}= is empty")
    return locator


_TARGET_TYPES: dict[str, Callable[[str], Any]] = {
    "role": str, "name": str, "text": str, "label": str, "selector": str,
    "index": int, "x": float, "y": float, "timeout": float,
}  # fmt: skip
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def parse_target(line: str) -> tuple[dict[str, Any], list[str]]:
    """The element target written as ``key=value`` words, as :class:`Locator` reads
    (``role=button name="Join"``, ``label=Email``, ``text="Sign in" exact=false``,
    ``selector="#go"``, ``index=4``, ``x=10 y=20``; ``timeout=2``), and the other words.
    Quoting is a shell's (:func:`shlex.split`).

    Returns:
        The keywords for an element tool, and the words that are not ``key=value``
        (or whose key is not a target's), in order.

    Raises:
        ValueError: Unbalanced quotes, or a value of the wrong type (``index=x``).
    """
    keywords: dict[str, Any] = {}
    rest: list[str] = []
    for word in shlex.split(line):
        key, equals, value = word.partition("=")
        if not equals or (key not in _TARGET_TYPES and key != "exact"):
            rest.append(word)
            continue
        if key == "exact":
            if value.lower() not in _BOOLEANS:
                raise ValueError(f"exact= takes true or false, not {value!r}")
            keywords[key] = _BOOLEANS[value.lower()]
            continue
        try:
            keywords[key] = _TARGET_TYPES[key](value)
        except ValueError:
            raise ValueError(f"{key}= takes a number, not {value!r}") from None
    return keywords, rest


def _quote(text: str) -> str:
    """``text`` in double quotes, as a shell (and the REPL's ``key=value`` words) reads it."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _squash(text: str) -> str:
    return " ".join(text.split())


def _name_test(wanted: str, exact: bool) -> Callable[[str], bool]:
    wanted = _squash(wanted)
    if exact:
        return lambda name: name == wanted
    lowered = wanted.lower()
    return lambda name: lowered in name.lower()


def matching_entries(entries: list[OutlineEntry], locator: Locator) -> list[OutlineEntry]:
    """The outline entries ``locator`` may designate, before the checks made in the page
    (a label's field, a text's element)."""
    if locator.role is not None:
        role = locator.role.strip().lower()
        role = _ROLE_ALIASES.get(role, role)
        name_ok = (
            _name_test(locator.name, locator.exact) if locator.name is not None else None
        )
        return [
            entry
            for entry in entries
            if entry.role.lower() == role and (name_ok is None or name_ok(entry.name))
        ]
    if locator.text is not None:
        text_ok = _name_test(locator.text, locator.exact)
        return [entry for entry in entries if entry.role == "StaticText" and text_ok(entry.name)]
    assert locator.label is not None
    label_ok = _name_test(locator.label, locator.exact)
    # A field whose accessible name matches, or any field: its <label>, aria-labelledby
    # or aria-label may say it while another source names it (aria-label over a <label>);
    # the page checks which (_DESIGNATED).
    return [
        entry
        for entry in entries
        if entry.role not in _NOT_ELEMENTS
        and (entry.role in _FIELD_ROLES or (entry.name and label_ok(entry.name)))
    ]


# Run in an outline world on the numbers of the entries that matched: the number of the
# element each designates (0: none), registered like the walk's own nodes. A text run
# designates the element holding it; a label match, the field only when a label,
# aria-labelledby or aria-label names it.
_DESIGNATED = """(function(numbers, kind, wanted, exact, named) {
  const registry = globalThis.__cdpkitOutline;
  if (!registry) return numbers.map(() => 0);
  const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox',
    'radio', 'switch', 'spinbutton', 'slider']);
  function number(node) {
    let id = registry.ids.get(node);
    if (id === undefined) {
      id = registry.next++;
      registry.ids.set(node, id);
      registry.refs.set(id, new WeakRef(node));
    }
    return id;
  }
  const BUTTON_TYPES = new Set(['hidden', 'submit', 'reset', 'button', 'image']);
  const squash = (text) => text.replace(/\\s+/g, ' ').trim();
  const matches = (text) => {
    const said = squash(text || '');
    return exact ? said === wanted : said.toLowerCase().includes(wanted.toLowerCase());
  };
  // The text a label shows, without that of the fields inside it (a select's options).
  function ownText(node) {
    let text = '';
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) text += child.data;
      else if (child.nodeType === 1 && !/^(input|select|textarea|button|script|style)$/.test(
        child.localName)) text += ' ' + ownText(child) + ' ';
    }
    return text;
  }
  function saysIt(element) {
    for (const label of element.labels || []) if (matches(ownText(label))) return true;
    const ids = (element.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
    const root = element.getRootNode();
    const byIds = ids.map((id) => root.getElementById ? root.getElementById(id) : null);
    if (ids.length && matches(byIds.map((target) => target ? target.textContent : '').join(' '))) {
      return true;
    }
    return matches(element.getAttribute('aria-label'));
  }
  function field(element) {
    const tag = element.localName;
    if (tag === 'select' || tag === 'textarea') return true;
    if (tag === 'input') {
      return !BUTTON_TYPES.has((element.getAttribute('type') || '').toLowerCase());
    }
    const role = (element.getAttribute('role') || '').trim().toLowerCase().split(/\\s+/)[0];
    return FIELD_ROLES.has(role) || element.isContentEditable;
  }
  function labelled(element) {
    return Boolean(element.labels && element.labels.length) ||
      Boolean((element.getAttribute('aria-label') || '').trim()) ||
      element.hasAttribute('aria-labelledby');
  }
  return numbers.map((id, position) => {
    const node = registry.element(id);
    if (!node) return 0;
    if (kind === 'text') {
      const parent = node.parentElement || (node.parentNode && node.parentNode.host);
      return parent ? number(parent) : 0;
    }
    if (kind === 'label') {
      if (node.nodeType !== 1 || !field(node)) return 0;
      return (named[position] && labelled(node)) || saysIt(node) ? id : 0;
    }
    return id;
  });
})"""


@dataclass(frozen=True, slots=True)
class Match:
    """An element a locator designates: the outline world numbering it, and the entry
    that matched (its line for error messages)."""

    session: Session
    world: str
    number: int
    entry: OutlineEntry


async def designated_numbers(
    entries: list[OutlineEntry], kind: str, label: str = "", exact: bool = True
) -> list[int]:
    """For each entry that matched a locator of ``kind`` (``"role"``, ``"text"``,
    ``"label"``, then with the ``label`` wanted), the number its world gives the element it
    designates, 0 for none."""
    label_ok = _name_test(label, exact)
    if kind == "role":
        return [entry.id for entry in entries]
    by_world: dict[tuple[int, str], list[int]] = {}
    for position, entry in enumerate(entries):
        by_world.setdefault((id(entry.session), entry.world), []).append(position)
    numbers = [0] * len(entries)
    for positions in by_world.values():
        first = entries[positions[0]]
        try:
            answer = await first.session.send_json(
                cdp.runtime.evaluate(
                    f"{_DESIGNATED}({json.dumps([entries[p].id for p in positions])},"
                    f" {json.dumps(kind)}, {json.dumps(_squash(label))},"
                    f" {json.dumps(exact)},"
                    f" {json.dumps([label_ok(entries[p].name) for p in positions])})",
                    unique_context_id=first.world,
                    return_by_value=True,
                )
            )
        except ProtocolError:
            continue  # its document went meanwhile
        value = answer["result"].get("value")
        if isinstance(value, list) and len(value) == len(positions):
            for position, number in zip(positions, value, strict=True):
                numbers[position] = int(number)
    return numbers


async def _designated(
    entries: list[OutlineEntry], kind: str, label: str = "", exact: bool = True
) -> list[Match]:
    """The elements the matched ``entries`` designate, each once, in document order."""
    numbers = await designated_numbers(entries, kind, label, exact)
    matches: list[Match] = []
    seen: set[tuple[int, str, int]] = set()
    for entry, number in zip(entries, numbers, strict=True):
        key = (id(entry.session), entry.world, number)
        if not number or key in seen:
            continue
        seen.add(key)
        matches.append(Match(entry.session, entry.world, number, entry))
    return matches


def _kind(locator: Locator) -> str:
    if locator.role is not None:
        return "role"
    return "text" if locator.text is not None else "label"


async def matches_in(entries: list[OutlineEntry], locator: Locator) -> list[Match]:
    """Every element ``locator`` designates in the outline ``entries`` (a walk with
    ``every_text`` for a text locator), in document order."""
    return await _designated(
        matching_entries(entries, locator), _kind(locator), locator.label or "", locator.exact
    )


async def find_all(page: Page, locator: Locator) -> list[Match]:
    """Every element ``locator`` designates now, in document order."""
    entries = await page_outline(page, every_text=locator.text is not None)
    return await matches_in(entries, locator)


def candidate_line(entry: OutlineEntry, index: int | None) -> str:
    """``entry`` as a snapshot writes its line (with its ``[index]`` when a snapshot of the
    page listed it)."""
    line = f"[{index}] {entry.role}" if index is not None else entry.role
    if entry.name:
        line += " " + quote_text(entry.name)
    if entry.box is not None:
        box = entry.box
        line += f" @({round(box.x)},{round(box.y)},{round(box.width)},{round(box.height)})"
    if entry.value is not None:
        line += " value=" + quote_text(entry.value)
    if entry.states:
        line += " [" + "] [".join(entry.states) + "]"
    return line


async def locate(
    page: Page,
    locator: Locator,
    *,
    timeout: float = DEFAULT_LOCATOR_TIMEOUT,
    index_of: Callable[[OutlineEntry], int | None] = lambda entry: None,
) -> Element:
    """The one element ``locator`` (role/name, text or label) designates, waiting up to
    ``timeout`` seconds for it to appear.

    Args:
        page: The page.
        locator: A checked locator (:func:`check_locator`) with a role, text or label.
        timeout: Seconds to wait while nothing matches.
        index_of: The snapshot index of an entry, when a snapshot listed it (for the
            candidates' lines).

    Raises:
        ElementNotFoundError: Nothing matched within ``timeout``.
        AmbiguousLocatorError: Several elements matched (nothing is waited for then).
        TargetClosedError: The page is closed.
    """
    deadline = time.monotonic() + max(0.0, timeout)
    delays = iter(_POLL_DELAYS)
    while True:
        matches = await find_all(page, locator)
        if len(matches) > 1:
            candidates = [candidate_line(match.entry, index_of(match.entry)) for match in matches]
            listed = "\n".join(f"  {line}" for line in candidates[:20])
            more = f"\n  ... and {len(candidates) - 20} more" if len(candidates) > 20 else ""
            raise AmbiguousLocatorError(
                f"{len(matches)} elements match {locator}; nothing was done. Make it "
                f"unique (a fuller name, exact=True, another kind of locator). "
                f"Candidates:\n{listed}{more}",
                candidates,
            )
        if matches:
            element = await _element(page, matches[0], locator)
            if element is not None:
                return element
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ElementNotFoundError(f"No element with {locator} after {timeout:g} s")
        await asyncio.sleep(min(next(delays, _POLL_DELAY_MAX), remaining))


async def _element(page: Page, match: Match, locator: Locator) -> Element | None:
    """A handle on the matched element in its frame's main world (where the tools' scripts
    run), ``None`` when it went meanwhile."""
    session = match.session
    backend_id = await outline_backend_id(session, match.world, match.number)
    if backend_id is None:
        return None
    try:
        resolved = await session.send(
            cdp.dom.resolve_node(backend_node_id=cdp.dom.BackendNodeId(backend_id))
        )
    except ProtocolError:
        return None
    object_id = resolved.object.object_id
    if object_id is None:
        return None
    element = Element(session, object_id, str(locator))
    if session.closed:
        await release_remote(session, object_id)
        return None
    return element
