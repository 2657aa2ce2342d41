"""A form's controls as a reader sees them: what each is called and what it holds.

:func:`form_controls` reads a ``<form>`` into :class:`Control` items in document order,
for the form block the content shows (:mod:`._blocks` makes it, :mod:`._formats`
renders it). A control's name is what a person reads beside it, first found: the
``<label for=id>``, the ``<label>`` wrapping it, ``aria-label``, ``aria-labelledby``,
then ``placeholder`` and ``title`` as a fallback, then its ``name``. Radio buttons of one
name are one control whose options are their labels; its name is the ``<legend>`` of the
``<fieldset>`` around them (else the name attribute). Hidden inputs and controls the page
hides (``hidden``, ``aria-hidden``, inline ``display:none``) are left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from selectolax.lexbor import LexborNode

__all__ = ["Control", "FormView", "control_label", "form_controls", "label_index"]

ControlKind = Literal["field", "textarea", "select", "checkbox", "radio", "button"]

_SPACES = re.compile(r"\s+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
# input types that are buttons, and the words a browser shows on them without a value.
_BUTTON_INPUTS = {"submit": "Submit", "reset": "Reset", "button": "", "image": "Submit"}


@dataclass(frozen=True, slots=True)
class Control:
    """One control of a form, as shown.

    Attributes:
        kind: ``field`` (a one-line input), ``textarea``, ``select``, ``checkbox``,
            ``radio`` (a group), or ``button``.
        label: What it is called (see the module docstring).
        type: The input's type (``email``, ``password``...), a button's type
            (``submit``, ``reset``, ``button``); ``""`` where it says nothing more.
        value: A field's or textarea's current value (a filled password's is dots).
        checked: A checkbox's state.
        required: Whether it must be filled.
        options: A select's or radio group's choices, each ``(label, selected)``.
        multiple: A select that takes several options.
    """

    kind: ControlKind
    label: str
    type: str = ""
    value: str = ""
    checked: bool = False
    required: bool = False
    options: tuple[tuple[str, bool], ...] = ()
    multiple: bool = False


@dataclass(frozen=True, slots=True)
class FormView:
    """A form as the content shows it: where and how it submits, and its controls."""

    action: str
    method: str
    controls: tuple[Control, ...]

    def words(self) -> str:
        """Its words, for keyword filters and ranking: labels, values, options."""
        parts: list[str] = []
        for control in self.controls:
            parts.append(control.label)
            parts.extend(label for label, _ in control.options)
            if control.value:
                parts.append(control.value)
        return "\n".join(part for part in parts if part)


def _text(node: LexborNode | None) -> str:
    return _SPACES.sub(" ", node.text(separator=" ")).strip() if node is not None else ""


def label_index(node: LexborNode) -> dict[str, LexborNode]:
    """The ``<label for=id>`` of ``node``'s whole document, by id (the first of each)."""
    top = node
    while top.parent is not None:
        top = top.parent
    labels: dict[str, LexborNode] = {}
    for label in top.css("label[for]"):
        labels.setdefault((label.attributes.get("for") or "").strip(), label)
    return labels


def _label_text(label: LexborNode) -> str:
    """A label's words, without the options or text of the controls inside it."""
    if label.css_first("select, textarea, option") is None:
        return _text(label)
    copy = label.clone()
    copy.strip_tags(["select", "textarea", "option", "datalist"])
    return _text(copy)


def _by_ids(node: LexborNode, ids: str) -> str:
    """The words of the elements ``ids`` (an ``aria-labelledby`` value) name."""
    top = node
    while top.parent is not None:
        top = top.parent
    words = []
    for element_id in ids.split():
        if re.fullmatch(r"[\w-]+", element_id):
            words.append(_text(top.css_first(f"#{element_id}")))
    return " ".join(w for w in words if w)


def control_label(labels: Mapping[str, LexborNode], control: LexborNode, *, fallback: bool = True) -> str:
    """A control's label: ``<label for=id>``, the label wrapping it, ``aria-label``,
    ``aria-labelledby``; with ``fallback``, then ``placeholder`` and ``title``."""
    attrs = control.attributes
    control_id = (attrs.get("id") or "").strip()
    if control_id and control_id in labels:
        text = _label_text(labels[control_id])
        if text:
            return text
    parent = control.parent
    while parent is not None and parent.tag not in ("form", "body"):
        if parent.tag == "label":
            text = _label_text(parent)
            if text:
                return text
            break
        parent = parent.parent
    names = ("aria-label", "placeholder", "title") if fallback else ("aria-label",)
    value = (attrs.get("aria-label") or "").strip()
    if not value and attrs.get("aria-labelledby"):
        value = _by_ids(control, attrs.get("aria-labelledby") or "")
    if value:
        return _SPACES.sub(" ", value)
    for name in names[1:]:
        value = (attrs.get(name) or "").strip()
        if value:
            return _SPACES.sub(" ", value)
    return ""


def _hidden(node: LexborNode, form: LexborNode) -> bool:
    """Whether the page hides ``node`` (or an element between it and ``form``)."""
    current: LexborNode | None = node
    while current is not None and current.mem_id != form.mem_id:
        attrs = current.attributes
        if "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        style = attrs.get("style")
        if style and _HIDDEN_STYLE.search(style):
            return True
        current = current.parent
    return False


def _legend(control: LexborNode, form: LexborNode) -> LexborNode | None:
    parent = control.parent
    while parent is not None and parent.mem_id != form.mem_id:
        if parent.tag == "fieldset":
            return parent.css_first("legend")
        parent = parent.parent
    return None


def form_controls(
    form: LexborNode, labels: Mapping[str, LexborNode], used_legends: set[int] | None = None
) -> list[Control]:
    """The controls of ``form`` in document order (``labels``: :func:`label_index`); the
    ``mem_id`` of each ``<legend>`` that names a radio group is added to ``used_legends``."""
    controls: list[Control] = []
    radios: dict[str, int] = {}
    for node in form.css("input, select, textarea, button"):
        if _hidden(node, form):
            continue
        attrs = node.attributes
        tag = node.tag or ""
        name = (attrs.get("name") or attrs.get("id") or "").strip()
        required = "required" in attrs or attrs.get("aria-required") == "true"
        if tag == "button":
            kind = (attrs.get("type") or "submit").strip().lower()
            words = _text(node) or (attrs.get("aria-label") or attrs.get("value") or "").strip()
            controls.append(Control("button", words or kind.capitalize(), type=kind))
            continue
        if tag == "select":
            options = tuple(
                (_text(option) or (option.attributes.get("value") or "").strip(), "selected" in option.attributes)
                for option in node.css("option")
            )
            multiple = "multiple" in attrs
            if not multiple and options and not any(selected for _, selected in options):
                options = ((options[0][0], True), *options[1:])  # a browser selects the first
            label = control_label(labels, node) or name
            controls.append(Control("select", label, required=required, options=options, multiple=multiple))
            continue
        if tag == "textarea":
            label = control_label(labels, node) or name
            value = _SPACES.sub(" ", node.text(deep=True)).strip()
            controls.append(Control("textarea", label, value=value, required=required))
            continue
        kind_attr = (attrs.get("type") or "text").strip().lower()
        if kind_attr == "hidden":
            continue
        if kind_attr in _BUTTON_INPUTS:
            words = (attrs.get("value") or attrs.get("aria-label") or attrs.get("alt") or "").strip()
            shown_type = "submit" if kind_attr == "image" else kind_attr
            controls.append(Control("button", words or _BUTTON_INPUTS[kind_attr] or "Button", type=shown_type))
            continue
        if kind_attr == "checkbox":
            label = control_label(labels, node) or name
            controls.append(Control("checkbox", label, checked="checked" in attrs, required=required))
            continue
        if kind_attr == "radio":
            option = (control_label(labels, node, fallback=False) or (attrs.get("value") or "").strip()
                      or "on")  # fmt: skip
            choice = (option, "checked" in attrs)
            key = name or f"#{len(controls)}"
            if key in radios:
                group = controls[radios[key]]
                controls[radios[key]] = Control(
                    "radio", group.label, required=group.required or required, options=(*group.options, choice)
                )
                continue
            radios[key] = len(controls)
            legend = _legend(node, form)
            label = _text(legend) or name
            if legend is not None and used_legends is not None:
                used_legends.add(legend.mem_id)
            controls.append(Control("radio", label, required=required, options=(choice,)))
            continue
        label = control_label(labels, node) or name or kind_attr
        value = (attrs.get("value") or "").strip()
        if kind_attr == "password" and value:
            value = "\u2022" * 6  # filled, never shown
        controls.append(Control("field", label, type=kind_attr, value=value, required=required))
    return controls
