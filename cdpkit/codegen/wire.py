"""The wire TypedDicts: the protocol's JSON as type checkers see it, for the fast path.

``session.send_json(command)`` returns a command's result as the raw JSON Chrome sent,
building no model (a big result, such as a full accessibility tree, costs seconds to
validate). These TypedDicts give that JSON its types, with no run-time cost:

* one per object type, command result and event, named ``<Python name>JSON``
  (``AXNodeJSON``, ``GetFullAXTreeResultJSON``, ``NodesUpdatedJSON``), in
  ``_wire/<domain>.py`` and re-exported by the public domain module for type checkers only;
* keys are the exact wire names; optional members are ``NotRequired``;
* references to object types are their wire TypedDicts (other domains too), references to
  scalar types keep the public ``NewType`` (``dom.BackendNodeId``), so a value read from
  the JSON can be passed straight back to a typed command; enums are ``str`` (a newer
  Chrome may send values the pin does not know); ``any`` is ``Any``, untyped objects
  ``dict[str, Any]``, integers ``int``, numbers ``float``.

cdpkit never imports a ``_wire`` module at run time: the public module imports them under
``TYPE_CHECKING`` and hands one out on explicit attribute access only (for annotations
evaluated at run time).
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Iterator, Sequence

from .docs import item_link, marked
from .layout import is_scalar
from .protocol import ArrayOf, Command, Domain, InlineEnum, Primitive, Property, TypeExpr
from .spelling import PRIMITIVE_ANNOTATIONS, Spelling

__all__ = [
    "WIRE_SUFFIX",
    "command_wire_name",
    "typed_dict",
    "wire_name",
    "wire_names",
    "wire_type",
    "wire_typed_dicts",
]

WIRE_SUFFIX = "JSON"


def wire_name(name: str) -> str:
    """The TypedDict of a generated class: ``AXNode`` -> ``AXNodeJSON``."""
    return name + WIRE_SUFFIX


def wire_names(domain: Domain) -> list[str]:
    """Every wire TypedDict of a domain, in the order its ``_wire`` module defines them."""
    names = [wire_name(t.python_name) for t in domain.types if t.kind == "object"]
    names += [wire_name(c.result_class) for c in domain.commands if c.result_class]
    names += [wire_name(e.class_name) for e in domain.events]
    return names


def command_wire_name(command: Command) -> str | None:
    """The TypedDict of a command's result, ``None`` for commands that return nothing."""
    return wire_name(command.result_class) if command.result_class else None


def wire_type(spelling: Spelling, expr: TypeExpr) -> str:
    """The annotation of a wire value (see the module docstring for the mapping)."""
    if isinstance(expr, Primitive):
        text = PRIMITIVE_ANNOTATIONS[expr.name]
        if "Any" in text:
            spelling.imports.typing.add("Any")
        return text
    if isinstance(expr, ArrayOf):
        return f"list[{wire_type(spelling, expr.items)}]"
    if isinstance(expr, InlineEnum):
        return "str"
    typedef = spelling.protocol.resolve(expr)
    if typedef.kind == "enum":
        return "str"
    if typedef.kind == "object":
        name = wire_name(typedef.python_name)
        if expr.domain == spelling.domain.name:
            return name
        module = spelling.protocol.domain(expr.domain).module
        spelling.imports.modules.add(module)
        return f"{spelling.module_name(module)}.{name}"
    if is_scalar(spelling.protocol, typedef):
        return spelling.type_expr(expr)  # the public NewType or alias, through its module
    if typedef.target is None:
        raise ValueError(f"{typedef.domain}.{typedef.id} has no target type")
    return wire_type(spelling, typedef.target)  # an alias built from classes: its expansion


def _member(spelling: Spelling, prop: Property) -> str:
    value = spelling.evaluable(wire_type(spelling, prop.type))
    if prop.optional:
        spelling.imports.typing.add("NotRequired")
        return f"NotRequired[{value}]"
    return value


def typed_dict(
    spelling: Spelling,
    name: str,
    of: str,
    domain: Domain,
    anchor: str,
    props: Sequence[Property],
    *,
    experimental: bool = False,
    deprecated: bool = False,
) -> list[str]:
    """The lines of one wire TypedDict, ``of`` naming the model it mirrors.

    Class syntax where every key is an identifier, else (a key such as ``from``) the
    functional syntax, with an attribute docstring.
    """
    spelling.imports.typing.add("TypedDict")
    summary = marked(
        f"The JSON of :class:`{of}`, keyed by wire names.",
        experimental=experimental,
        deprecated=deprecated,
    )
    doc = [summary, "", f"See {item_link(domain.name, anchor)}"]
    members = [(prop.name, _member(spelling, prop)) for prop in props]
    spelling.bound.add(name)
    if all(key.isidentifier() and not keyword.iskeyword(key) for key, _ in members):
        lines = [f"class {name}(TypedDict):", f'    """{doc[0]}', "", f"    {doc[2]}", '    """']
        if members:
            lines.append("")
        return lines + [f"    {key}: {value}" for key, value in members]
    items = [f"        {json.dumps(key)}: {value}," for key, value in members]
    return [
        f"{name} = TypedDict(",
        f"    {json.dumps(name)},",
        "    {",
        *items,
        "    },",
        ")",
        f'"""{doc[0]}',
        "",
        doc[2],
        '"""',
    ]


def wire_typed_dicts(spelling: Spelling, public: str) -> Iterator[list[str]]:
    """The lines of each TypedDict of ``spelling``'s domain, in order: object types, command
    results, events; ``public`` is the dotted name of the domain's public module."""
    domain = spelling.domain
    for typedef in domain.types:
        if typedef.kind == "object":
            yield typed_dict(
                spelling,
                wire_name(typedef.python_name),
                f"{public}.{typedef.python_name}",
                domain,
                f"type-{typedef.id}",
                typedef.properties,
                experimental=typedef.experimental,
                deprecated=typedef.deprecated,
            )
    items: list[tuple[str, str, list[Property], bool, bool]] = [
        (str(c.result_class), f"method-{c.name}", c.returns, c.experimental, c.deprecated)
        for c in domain.commands
        if c.result_class
    ]
    items += [
        (e.class_name, f"event-{e.name}", e.parameters, e.experimental, e.deprecated)
        for e in domain.events
    ]
    for name, anchor, props, experimental, deprecated in items:
        yield typed_dict(
            spelling,
            wire_name(name),
            f"{public}.{name}",
            domain,
            anchor,
            props,
            experimental=experimental,
            deprecated=deprecated,
        )
