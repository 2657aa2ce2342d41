"""The intermediate model of the protocol: what the JSON says, plus the Python names chosen.

:func:`parse_protocol` turns the protocol JSON into these dataclasses and gives every item
its default Python name (:mod:`cdpkit.codegen.naming`). :mod:`cdpkit.codegen.fixups` then
edits the model where the spec and Chrome disagree, and :mod:`cdpkit.codegen.emit` writes
it out. Nothing after parsing reads the JSON again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .naming import module_name, pascal_case, snake_case

__all__ = [
    "ArrayOf",
    "Command",
    "Domain",
    "Event",
    "InlineEnum",
    "Primitive",
    "Property",
    "Protocol",
    "ProtocolError",
    "Ref",
    "TypeDef",
    "TypeExpr",
    "parse_protocol",
]

PRIMITIVES = frozenset({"string", "integer", "number", "boolean", "binary", "any", "object"})


class ProtocolError(ValueError):
    """The protocol JSON cannot be turned into bindings (bad shape, unknown ref, name clash)."""


@dataclass(frozen=True)
class Primitive:
    """A JSON type with no further structure: ``string``, ``integer``, ``object``, ..."""

    name: str


@dataclass(frozen=True)
class Ref:
    """A named type, always qualified with its domain (``Network``, ``LoaderId``)."""

    domain: str
    name: str


@dataclass(frozen=True)
class ArrayOf:
    """A JSON array of ``items``."""

    items: TypeExpr


@dataclass(frozen=True)
class InlineEnum:
    """A string enum declared on a property or parameter rather than as a named type."""

    values: tuple[str, ...]


TypeExpr = Primitive | Ref | ArrayOf | InlineEnum


@dataclass
class Property:
    """A field of an object type, a command parameter or return value, or an event parameter.

    ``enum_class`` names the class emitted for an inline enum on a model (``None`` for command
    parameters, whose inline enums become a ``Literal``).
    """

    name: str
    type: TypeExpr
    description: str = ""
    optional: bool = False
    experimental: bool = False
    deprecated: bool = False
    python_name: str = ""
    enum_class: str | None = None


@dataclass
class TypeDef:
    """A named type of a domain.

    ``kind`` is ``"object"`` (a model with ``properties``), ``"enum"`` (``enum`` values), or
    ``"alias"`` (``target`` is a primitive for a ``NewType``, or an array / property-less
    object for a plain alias).
    """

    domain: str
    id: str
    kind: str
    description: str = ""
    experimental: bool = False
    deprecated: bool = False
    properties: list[Property] = field(default_factory=list)
    enum: tuple[str, ...] = ()
    target: TypeExpr | None = None
    python_name: str = ""


@dataclass
class Command:
    """A command: ``function_name`` builds it, ``result_class`` (if it returns) parses its result."""

    domain: str
    name: str
    description: str = ""
    experimental: bool = False
    deprecated: bool = False
    redirect: str | None = None
    parameters: list[Property] = field(default_factory=list)
    returns: list[Property] = field(default_factory=list)
    function_name: str = ""
    result_class: str | None = None

    @property
    def method(self) -> str:
        """The wire name, ``Page.navigate``."""
        return f"{self.domain}.{self.name}"


@dataclass
class Event:
    """An event: ``class_name`` is the generated model."""

    domain: str
    name: str
    description: str = ""
    experimental: bool = False
    deprecated: bool = False
    parameters: list[Property] = field(default_factory=list)
    class_name: str = ""

    @property
    def method(self) -> str:
        """The wire name, ``Page.loadEventFired``."""
        return f"{self.domain}.{self.name}"


@dataclass
class Domain:
    """A domain and everything in it, in protocol order.

    ``module_aliases`` renames, inside this domain's generated files, the public module of
    another domain (``{"animation": "_animation"}``) where a field name would hide it.
    """

    name: str
    description: str = ""
    experimental: bool = False
    deprecated: bool = False
    dependencies: tuple[str, ...] = ()
    types: list[TypeDef] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    module: str = ""
    module_aliases: dict[str, str] = field(default_factory=dict)

    def type(self, name: str) -> TypeDef:
        """The named type ``name`` of this domain."""
        for typedef in self.types:
            if typedef.id == name:
                return typedef
        raise KeyError(f"{self.name}.{name}")


@dataclass
class Protocol:
    """Every domain, sorted by wire name, and the label of where they came from.

    ``source`` names the input in generated headers, e.g. ``devtools-protocol 0.0.1734725``
    or a browser's product string.
    """

    source: str
    domains: list[Domain]

    def domain(self, name: str) -> Domain:
        """The domain ``name`` (wire name, ``"Page"``)."""
        for domain in self.domains:
            if domain.name == name:
                return domain
        raise KeyError(name)

    def resolve(self, ref: Ref) -> TypeDef:
        """The type a reference points at."""
        return self.domain(ref.domain).type(ref.name)

    def properties(self) -> Iterator[tuple[str, Property]]:
        """Every property of every item, with a description of where it is, for checks."""
        for domain in self.domains:
            for typedef in domain.types:
                for prop in typedef.properties:
                    yield f"type {domain.name}.{typedef.id}", prop
            for command in domain.commands:
                for prop in command.parameters:
                    yield f"command {command.method} parameter", prop
                for prop in command.returns:
                    yield f"command {command.method} return", prop
            for event in domain.events:
                for prop in event.parameters:
                    yield f"event {event.method}", prop


def parse_protocol(documents: Sequence[Mapping[str, Any]], source: str) -> Protocol:
    """Parse protocol JSON documents (each ``{"domains": [...]}``) into a :class:`Protocol`.

    Every item gets its default Python name; references are qualified and checked.
    """
    domains = [_parse_domain(raw) for document in documents for raw in document.get("domains", [])]
    domains.sort(key=lambda domain: domain.name)
    names = [domain.name for domain in domains]
    if len(set(names)) != len(names):
        raise ProtocolError(f"duplicate domains in the input: {sorted(names)}")
    protocol = Protocol(source=source, domains=domains)
    _check_refs(protocol)
    return protocol


def _flags(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "description": raw.get("description", ""),
        "experimental": bool(raw.get("experimental", False)),
        "deprecated": bool(raw.get("deprecated", False)),
    }


def _parse_domain(raw: Mapping[str, Any]) -> Domain:
    name = raw["domain"]
    domain = Domain(
        name=name,
        dependencies=tuple(raw.get("dependencies", ())),
        module=module_name(name),
        **_flags(raw),
    )
    domain.types = [_parse_type(name, item) for item in raw.get("types", ())]
    domain.commands = [_parse_command(name, item) for item in raw.get("commands", ())]
    domain.events = [_parse_event(name, item) for item in raw.get("events", ())]
    return domain


def _parse_type_expr(domain: str, raw: Mapping[str, Any]) -> TypeExpr:
    """The type of a property or an array's items (the keys ``$ref``, ``type``, ``enum``)."""
    if "$ref" in raw:
        target = raw["$ref"]
        if "." in target:
            ref_domain, ref_name = target.split(".", 1)
            return Ref(ref_domain, ref_name)
        return Ref(domain, target)
    kind = raw.get("type")
    if kind == "array":
        if "items" not in raw:
            raise ProtocolError(f"array without items in {domain}: {raw}")
        return ArrayOf(_parse_type_expr(domain, raw["items"]))
    if kind == "string" and "enum" in raw:
        return InlineEnum(tuple(raw["enum"]))
    if kind not in PRIMITIVES:
        raise ProtocolError(f"unknown type {kind!r} in {domain}: {raw}")
    return Primitive(kind)


def _parse_property(domain: str, raw: Mapping[str, Any]) -> Property:
    name = raw["name"]
    return Property(
        name=name,
        type=_parse_type_expr(domain, raw),
        optional=bool(raw.get("optional", False)),
        python_name=snake_case(name),
        **_flags(raw),
    )


def _parse_type(domain: str, raw: Mapping[str, Any]) -> TypeDef:
    type_id = raw["id"]
    typedef = TypeDef(domain=domain, id=type_id, kind="alias", python_name=type_id, **_flags(raw))
    kind = raw["type"]
    if kind == "object" and "properties" in raw:
        typedef.kind = "object"
        typedef.properties = [_parse_property(domain, item) for item in raw["properties"]]
        for prop in typedef.properties:
            if isinstance(prop.type, InlineEnum):
                prop.enum_class = type_id + pascal_case(prop.name)
    elif kind == "string" and "enum" in raw:
        typedef.kind = "enum"
        typedef.enum = tuple(raw["enum"])
    else:
        typedef.target = _parse_type_expr(domain, raw)
    return typedef


def _parse_command(domain: str, raw: Mapping[str, Any]) -> Command:
    name = raw["name"]
    command = Command(
        domain=domain,
        name=name,
        redirect=raw.get("redirect"),
        parameters=[_parse_property(domain, item) for item in raw.get("parameters", ())],
        returns=[_parse_property(domain, item) for item in raw.get("returns", ())],
        function_name=snake_case(name),
        **_flags(raw),
    )
    if command.returns:
        command.result_class = pascal_case(name) + "Result"
        for prop in command.returns:
            if isinstance(prop.type, InlineEnum):
                prop.enum_class = command.result_class + pascal_case(prop.name)
    return command


def _parse_event(domain: str, raw: Mapping[str, Any]) -> Event:
    name = raw["name"]
    event = Event(
        domain=domain,
        name=name,
        parameters=[_parse_property(domain, item) for item in raw.get("parameters", ())],
        class_name=pascal_case(name),
        **_flags(raw),
    )
    for prop in event.parameters:
        if isinstance(prop.type, InlineEnum):
            prop.enum_class = event.class_name + pascal_case(prop.name)
    return event


def _type_refs(expr: TypeExpr) -> Iterator[Ref]:
    if isinstance(expr, Ref):
        yield expr
    elif isinstance(expr, ArrayOf):
        yield from _type_refs(expr.items)


def _check_refs(protocol: Protocol) -> None:
    known = {(domain.name, typedef.id) for domain in protocol.domains for typedef in domain.types}
    exprs: list[tuple[str, TypeExpr]] = [
        (where, prop.type) for where, prop in protocol.properties()
    ]
    exprs += [
        (f"type {typedef.domain}.{typedef.id}", typedef.target)
        for domain in protocol.domains
        for typedef in domain.types
        if typedef.target is not None
    ]
    for where, expr in exprs:
        for ref in _type_refs(expr):
            if (ref.domain, ref.name) not in known:
                raise ProtocolError(f"{where} refers to unknown type {ref.domain}.{ref.name}")
