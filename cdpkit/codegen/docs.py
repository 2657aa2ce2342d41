"""Docstrings of generated items: protocol descriptions, marks and links to the protocol docs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .protocol import Property

__all__ = ["DOCS_URL", "docstring", "item_link", "marked", "property_entries"]

DOCS_URL = "https://chromedevtools.github.io/devtools-protocol/tot"

Entries = Sequence[tuple[str, str]]


def item_link(domain: str, anchor: str | None = None) -> str:
    """The protocol docs of a domain, or of one item (``item_link("Page", "method-navigate")``)."""
    page = f"{DOCS_URL}/{domain}/"
    return f"{page}#{anchor}" if anchor else page


def marked(text: str, *, experimental: bool = False, deprecated: bool = False) -> str:
    """``text`` prefixed with the **Deprecated.** / **Experimental.** marks that apply."""
    marks = []
    if deprecated:
        marks.append("**Deprecated.**")
    if experimental:
        marks.append("**Experimental.**")
    return " ".join([*marks, text.strip()]).strip()


def property_entries(props: Iterable[Property]) -> list[tuple[str, str]]:
    """``(python name, marked description)`` for an ``Args:`` or ``Attributes:`` section."""
    return [
        (
            prop.python_name,
            marked(prop.description, experimental=prop.experimental, deprecated=prop.deprecated),
        )
        for prop in props
    ]


def _lines(text: str) -> list[str]:
    """Protocol text made safe inside a triple-quoted docstring, as lines."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return [line.rstrip() for line in text.strip().splitlines()]


def docstring(
    summary: str,
    *,
    link: str,
    sections: Sequence[tuple[str, Entries]] = (),
    returns: str | None = None,
    indent: str = "",
) -> list[str]:
    """A Google-style docstring, as lines: summary, ``See <link>``, sections, ``Returns:``.

    A section is ``(title, [(name, text), ...])``; empty sections are left out, entries
    without text are kept (the name alone still documents that the item exists).
    """
    body = _lines(summary) or [""]
    body += ["", f"See {link}"]
    for title, entries in sections:
        if not entries:
            continue
        body += ["", f"{title}:"]
        for name, text in entries:
            text_lines = _lines(text)
            body.append(f"    {name}: {text_lines[0]}" if text_lines else f"    {name}:")
            body += [f"        {line}" if line else "" for line in text_lines[1:]]
    if returns:
        body += ["", "Returns:", *(f"    {line}" for line in _lines(returns))]
    lines = [f'{indent}"""{body[0]}']
    lines += [f"{indent}{line}" if line else "" for line in body[1:]]
    lines.append(f'{indent}"""')
    return lines
