"""Docstrings of generated items: protocol descriptions, marks and links to the protocol docs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence

from .protocol import Command, Domain, Event, Property, TypeDef

__all__ = [
    "DOCS_URL",
    "command_returns",
    "command_summary",
    "docstring",
    "docstring_text",
    "domain_summary",
    "event_summary",
    "inline_enum_summary",
    "item_link",
    "marked",
    "property_entries",
    "result_summary",
    "type_summary",
]

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


def _body(
    summary: str,
    link: str,
    sections: Sequence[tuple[str, Entries]],
    returns: str | None,
    lines_of: Callable[[str], list[str]],
) -> list[str]:
    """The lines of a docstring's text, unindented: summary, ``See <link>``, sections,
    ``Returns:``; ``lines_of`` splits (and, for source, escapes) protocol text."""
    body = lines_of(summary) or [""]
    body += ["", f"See {link}"]
    for title, entries in sections:
        if not entries:
            continue
        body += ["", f"{title}:"]
        for name, text in entries:
            text_lines = lines_of(text)
            body.append(f"    {name}: {text_lines[0]}" if text_lines else f"    {name}:")
            body += [f"        {line}" if line else "" for line in text_lines[1:]]
    if returns:
        body += ["", "Returns:", *(f"    {line}" for line in lines_of(returns))]
    return body


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
    body = _body(summary, link, sections, returns, _lines)
    lines = [f'{indent}"""{body[0]}']
    lines += [f"{indent}{line}" if line else "" for line in body[1:]]
    lines.append(f'{indent}"""')
    return lines


def docstring_text(
    summary: str,
    *,
    link: str,
    sections: Sequence[tuple[str, Entries]] = (),
    returns: str | None = None,
) -> str:
    """What :func:`docstring` gives at run time, as ``inspect.getdoc`` returns it."""
    return inspect.cleandoc("\n".join(_body(summary, link, sections, returns, _plain_lines)))


def _plain_lines(text: str) -> list[str]:
    """Protocol text as lines, as :func:`_lines` gives them once Python has read them."""
    return [line.rstrip() for line in text.strip().splitlines()]


# The summaries of generated items: the emitter writes them as docstrings and the docs data
# (:mod:`~cdpkit.codegen.docs_data`) carries them as text, so both say the same.


def domain_summary(domain: Domain) -> str:
    """A domain module's summary: its description, marks and dependencies."""
    summary = marked(
        domain.description or f"The {domain.name} domain.",
        experimental=domain.experimental,
        deprecated=domain.deprecated,
    )
    if domain.dependencies:
        summary += f"\n\nDepends on: {', '.join(domain.dependencies)}."
    return summary


def type_summary(typedef: TypeDef) -> str:
    """A named type's summary (a fallback naming the wire type when it has no description)."""
    wire = f"``{typedef.domain}.{typedef.id}``"
    fallback = f"Values of {wire}." if typedef.kind == "enum" else f"The {wire} type."
    return marked(
        typedef.description or fallback,
        experimental=typedef.experimental,
        deprecated=typedef.deprecated,
    )


def command_summary(command: Command) -> str:
    """A command function's summary, with the domain that handles it when redirected."""
    summary = marked(
        command.description or f"Sends ``{command.method}``.",
        experimental=command.experimental,
        deprecated=command.deprecated,
    )
    if command.redirect:
        summary += (
            f"\n\nHandled by the {command.redirect} domain (``{command.redirect}.{command.name}``)."
        )
    return summary


def command_returns(command: Command) -> str | None:
    """The ``Returns:`` text of a command function."""
    if command.result_class:
        return f"The command; its result is a :class:`{command.result_class}`."
    return None


def result_summary(command: Command, package: str, module: str) -> str:
    """The summary of a command's result model."""
    return marked(
        f"Result of :func:`{package}.{module}.{command.function_name}` (``{command.method}``).",
        experimental=command.experimental,
        deprecated=command.deprecated,
    )


def event_summary(event: Event) -> str:
    """An event model's summary."""
    return marked(
        event.description or f"The ``{event.method}`` event.",
        experimental=event.experimental,
        deprecated=event.deprecated,
    )


def inline_enum_summary(owner: str, prop: Property) -> str:
    """The summary of the enum class declared on a property: ``<Owner><Property>``."""
    summary = f"Values of ``{owner}.{prop.name}``."
    if prop.description:
        summary += f" {prop.description.strip()}"
    return summary
