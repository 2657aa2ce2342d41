"""``_docs.py``: the documentation of the bindings as data, for ``cdpkit protocol`` and the
REPL (``:doc``, parameter completion), so that they never read or import generated source.

Per domain, one JSON document (a string in the generated module, parsed only when that
domain is asked for)::

    {"module": "page", "doc": "...",
     "commands": [{"name", "function", "doc", "experimental", "deprecated",
                   "signature", "params": [FIELD...], "result", "returns": [FIELD...]}],
     "events": [{"name", "class", "doc", "experimental", "deprecated", "fields": [FIELD...]}],
     "types": [{"name", "kind", "doc", "experimental", "deprecated", "listed",
                "values", "fields": [FIELD...], "target"}]}

    FIELD = {"name": wire name, "python": Python name, "type": annotation text,
             "optional": bool, "description": marked protocol text}

Texts are what the generated docstrings say at run time (``inspect.getdoc``); annotation
texts are written as in the generated source, normalized the way Python prints them.
``kind`` is ``enum``, ``object``, ``alias`` (built from classes, or a scalar alias such as
``DOM.Quad``) or ``newtype``; ``listed`` says whether the domain's type list shows it (the
classes, as the domain module's ``_LAZY_NAMES`` list them).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from typing import Any

from .docs import (
    command_returns,
    command_summary,
    docstring_text,
    domain_summary,
    event_summary,
    inline_enum_summary,
    item_link,
    marked,
    property_entries,
    type_summary,
)
from .layout import TYPES, class_types, inline_enums, is_newtype, lazy_names, scalar_types
from .protocol import Domain, InlineEnum, Primitive, Property, Protocol, TypeDef
from .spelling import PRIMITIVE_ANNOTATIONS, Spelling

__all__ = ["DOCS_MODULE", "emit_docs_module"]

DOCS_MODULE = "_docs.py"


def _printed(annotation: str) -> str:
    """An annotation as Python keeps it under ``from __future__ import annotations``."""
    return ast.unparse(ast.parse(annotation, mode="eval"))


def _field(spelling: Spelling, prop: Property, *, param: bool = False) -> dict[str, Any]:
    return {
        "name": prop.name,
        "python": prop.python_name,
        "type": _printed(spelling.property_type(prop, param=param)),
        "optional": prop.optional,
        "description": marked(
            prop.description, experimental=prop.experimental, deprecated=prop.deprecated
        ),
    }


def _signature(qualified: str, params: Sequence[dict[str, Any]], returns: str) -> str:
    """The signature as ``cdpkit protocol`` prints it: one parameter a line, the optional
    ones keyword-only with their ``None`` default."""
    lines = [f"{p['python']}: {p['type']}" for p in params if not p["optional"]]
    optional = [f"{p['python']}: {p['type']} = None" for p in params if p["optional"]]
    if optional:
        lines += ["*", *optional]
    if not lines:
        return f"{qualified}() -> {returns}"
    body = "".join(f"    {line},\n" for line in lines)
    return f"{qualified}(\n{body}) -> {returns}"


def _domain_data(protocol: Protocol, domain: Domain) -> dict[str, Any]:
    # One spelling per generated file kind, as the emitter uses: the same annotation texts.
    public = Spelling(
        protocol, domain, local={(domain.name, t.id) for t in domain.types}, postponed=True
    )
    classes = class_types(protocol, domain)
    types_file = Spelling(protocol, domain, local={(domain.name, t.id) for t in classes})
    private = Spelling(protocol, domain)

    commands = []
    for command in domain.commands:
        params = [_field(public, p, param=True) for p in command.parameters]
        returns = f"Command[{command.result_class or 'None'}]"
        commands.append(
            {
                "name": command.name,
                "function": command.function_name,
                "doc": docstring_text(
                    command_summary(command),
                    link=item_link(command.domain, f"method-{command.name}"),
                    sections=[("Args", property_entries(command.parameters))],
                    returns=command_returns(command),
                ),
                "experimental": command.experimental,
                "deprecated": command.deprecated,
                "signature": _signature(
                    f"cdp.{domain.module}.{command.function_name}", params, returns
                ),
                "params": params,
                "result": command.result_class,
                "returns": [_field(private, p) for p in command.returns],
            }
        )

    events = [
        {
            "name": event.name,
            "class": event.class_name,
            "doc": docstring_text(
                event_summary(event),
                link=item_link(domain.name, f"event-{event.name}"),
                sections=[("Attributes", property_entries(event.parameters))],
            ),
            "experimental": event.experimental,
            "deprecated": event.deprecated,
            "fields": [_field(private, p) for p in event.parameters],
        }
        for event in domain.events
    ]

    listed = {name for name, kind in lazy_names(protocol, domain).items() if kind == TYPES}
    types: list[dict[str, Any]] = []
    for typedef in classes:
        for prop in inline_enums(typedef.properties):
            assert isinstance(prop.type, InlineEnum)
            types.append(
                _type_entry(
                    str(prop.enum_class),
                    "enum",
                    docstring_text(
                        inline_enum_summary(typedef.id, prop),
                        link=item_link(domain.name, f"type-{typedef.id}"),
                    ),
                    typedef,
                    values=prop.type.values,
                )
            )
        types.append(_class_type(types_file, typedef))
    for typedef in scalar_types(protocol, domain):
        types.append(_scalar_type(public, typedef))
    for entry in types:
        entry["listed"] = entry["name"] in listed
    return {
        "module": domain.module,
        "doc": docstring_text(domain_summary(domain), link=item_link(domain.name)),
        "commands": commands,
        "events": events,
        "types": types,
    }


def _type_entry(
    name: str,
    kind: str,
    doc: str,
    typedef: TypeDef,
    *,
    values: Sequence[str] = (),
    fields: Sequence[dict[str, Any]] = (),
    target: str | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "doc": doc,
        "experimental": typedef.experimental,
        "deprecated": typedef.deprecated,
        "values": list(values),
        "fields": list(fields),
        "target": target,
    }


def _class_type(spelling: Spelling, typedef: TypeDef) -> dict[str, Any]:
    link = item_link(typedef.domain, f"type-{typedef.id}")
    if typedef.kind == "enum":
        doc = docstring_text(type_summary(typedef), link=link)
        return _type_entry(typedef.python_name, "enum", doc, typedef, values=typedef.enum)
    if typedef.kind == "object":
        doc = docstring_text(
            type_summary(typedef),
            link=link,
            sections=[("Attributes", property_entries(typedef.properties))],
        )
        fields = [_field(spelling, p) for p in typedef.properties]
        return _type_entry(typedef.python_name, "object", doc, typedef, fields=fields)
    assert typedef.target is not None
    doc = docstring_text(type_summary(typedef), link=link)
    target = _printed(spelling.type_expr(typedef.target))
    return _type_entry(typedef.python_name, "alias", doc, typedef, target=target)


def _scalar_type(spelling: Spelling, typedef: TypeDef) -> dict[str, Any]:
    doc = docstring_text(
        type_summary(typedef), link=item_link(typedef.domain, f"type-{typedef.id}")
    )
    assert typedef.target is not None
    if is_newtype(typedef) and isinstance(typedef.target, Primitive):
        target = PRIMITIVE_ANNOTATIONS[typedef.target.name]
        return _type_entry(typedef.python_name, "newtype", doc, typedef, target=target)
    target = _printed(spelling.type_expr(typedef.target))
    return _type_entry(typedef.python_name, "alias", doc, typedef, target=target)


def emit_docs_module(protocol: Protocol, header: str) -> str:
    """``_docs.py``: ``PROTOCOL_VERSION`` and ``DOMAINS`` (domain wire name -> its JSON
    document), in protocol order."""
    doc = (
        '"""The documentation of every domain as data, for ``cdpkit protocol`` and the REPL.\n'
        "\n"
        "DOMAINS: domain wire name -> one JSON document (parse it with ``json.loads``); the\n"
        "format is described in cdpkit/codegen/docs_data.py. Pure data, read only on demand.\n"
        '"""'
    )
    lines = [header, doc, "", f"PROTOCOL_VERSION = {json.dumps(protocol.source)}", ""]
    lines.append("DOMAINS: dict[str, str] = {")
    for domain in protocol.domains:
        # ASCII JSON inside: its \uXXXX escapes (surrogate pairs included) are json's to read.
        document = json.dumps(_domain_data(protocol, domain), ensure_ascii=True, sort_keys=True)
        lines.append(f"    {json.dumps(domain.name)}: {json.dumps(document)},")
    lines.append("}")
    return "\n".join(lines) + "\n"
