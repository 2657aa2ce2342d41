"""Which generated file holds which item.

Importing a domain module must stay cheap, and creating a pydantic or enum class is not
(a few hundred microseconds each; Network alone has about 200). So a domain is split:

* ``<domain>.py`` (public, e.g. ``page.py``): scalar types (``NewType`` ids, plain aliases
  such as ``Quad = list[float]``) and one function per command. Every class of the domain
  is reachable from it too: its module ``__getattr__`` imports the private module holding
  a class the first time the class is looked up.
* ``_types/<domain>.py``: the enums and object types (and aliases built from them).
* ``_results/<domain>.py``: one ``<Command>Result`` model per command that returns values.
* ``_events/<domain>.py``: one model per event.
* ``_wire/<domain>.py``: the wire TypedDicts of the domain's JSON, for type checkers only
  (:mod:`cdpkit.codegen.wire`); cdpkit never imports them at run time.

Cross-domain references to scalars (``network.LoaderId``) thus cost only the other domain's
public module, and a result or event costs its own file plus the types it really uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .protocol import ArrayOf, Domain, Primitive, Property, Protocol, Ref, TypeDef, TypeExpr

__all__ = [
    "EVENTS",
    "PRIVATE_PACKAGES",
    "RESULTS",
    "TYPES",
    "WIRE",
    "class_types",
    "inline_enums",
    "is_newtype",
    "is_scalar",
    "lazy_names",
    "refs",
    "scalar_types",
]

TYPES, RESULTS, EVENTS, WIRE = "_types", "_results", "_events", "_wire"

# Private package -> what its modules hold, for their docstrings.
PRIVATE_PACKAGES = {
    TYPES: "enums and object types",
    RESULTS: "command results",
    EVENTS: "events",
    WIRE: "wire TypedDicts (the JSON of types, results and events)",
}


def refs(expr: TypeExpr) -> Iterator[Ref]:
    """The named types an expression uses."""
    if isinstance(expr, Ref):
        yield expr
    elif isinstance(expr, ArrayOf):
        yield from refs(expr.items)


def is_scalar(protocol: Protocol, typedef: TypeDef) -> bool:
    """Whether a named type is defined in the public module: an alias built from no class."""
    if typedef.kind != "alias" or typedef.target is None:
        return False
    return all(is_scalar(protocol, protocol.resolve(ref)) for ref in refs(typedef.target))


def is_newtype(typedef: TypeDef) -> bool:
    """Whether a scalar is emitted as a ``NewType`` (rather than a plain alias)."""
    return isinstance(typedef.target, Primitive) and typedef.target.name != "object"


def scalar_types(protocol: Protocol, domain: Domain) -> list[TypeDef]:
    """The domain's scalar types in protocol order, each after the scalars it is built from."""
    return _dependency_order(domain, [t for t in domain.types if is_scalar(protocol, t)])


def class_types(protocol: Protocol, domain: Domain) -> list[TypeDef]:
    """The domain's enums and object types in protocol order, aliases after their classes."""
    return _dependency_order(domain, [t for t in domain.types if not is_scalar(protocol, t)])


def _dependency_order(domain: Domain, typedefs: list[TypeDef]) -> list[TypeDef]:
    """``typedefs`` in order, except that an alias comes after the types its target uses.

    Only aliases need this: they are expressions evaluated at import time, while class
    annotations that name a later class are written as strings.
    """
    by_id = {t.id: t for t in typedefs}
    ordered: list[TypeDef] = []
    done: set[str] = set()

    def visit(typedef: TypeDef) -> None:
        if typedef.id in done:
            return
        done.add(typedef.id)
        if typedef.kind == "alias" and typedef.target is not None:
            for ref in refs(typedef.target):
                if ref.domain == domain.name and ref.name in by_id:
                    visit(by_id[ref.name])
        ordered.append(typedef)

    for typedef in typedefs:
        visit(typedef)
    return ordered


def inline_enums(props: Iterable[Property]) -> list[Property]:
    """The properties that get an inline enum class of their own."""
    return [prop for prop in props if prop.enum_class is not None]


def lazy_names(protocol: Protocol, domain: Domain) -> dict[str, str]:
    """Class name -> private package, for every class the public module hands out lazily."""
    names: dict[str, str] = {}
    for typedef in class_types(protocol, domain):
        for prop in inline_enums(typedef.properties):
            names[str(prop.enum_class)] = TYPES
        names[typedef.python_name] = TYPES
    for command in domain.commands:
        if command.result_class:
            for prop in inline_enums(command.returns):
                names[str(prop.enum_class)] = RESULTS
            names[command.result_class] = RESULTS
    for event in domain.events:
        for prop in inline_enums(event.parameters):
            names[str(prop.enum_class)] = EVENTS
        names[event.class_name] = EVENTS
    return names
