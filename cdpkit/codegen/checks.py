"""Name checks run before emission: a clash is an error to resolve in the fixups.

The emitter never renames anything on its own; when two generated names collide, or a
field would hide a name its own class needs, generation stops and lists every problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .layout import class_types, inline_enums, lazy_names, scalar_types
from .naming import enum_member_name
from .protocol import Domain, InlineEnum, Property, Protocol
from .spelling import Spelling, names_in
from .wire import wire_names

__all__ = ["name_problems"]

# Names every generated file of a domain may bind besides the protocol's own.
HELPER_NAMES = frozenset(
    {
        # typing, pydantic, cdpkit._model
        "TYPE_CHECKING", "Any", "ClassVar", "Literal", "NewType", "TypeAlias", "Field",
        "NotRequired", "TypedDict",
        "CDPEnum", "CDPModel", "Command", "Event", "LazyModule",
        # the public module's own machinery
        "importlib", "_LAZY_NAMES", "_results", "__getattr__", "__dir__", "__all__",
    }
)  # fmt: skip

# Names the body of a generated command function uses.
FUNCTION_BODY_NAMES = frozenset({"params", "dict", "str", "Any", "Command", "_results"})


def _model_attributes(*, event: bool) -> frozenset[str]:
    """Names a field must not take: attributes of pydantic's models and of the base class."""
    from cdpkit._model import CDPModel
    from cdpkit._model import Event as EventBase

    return frozenset(dir(EventBase if event else CDPModel)) | ({"method"} if event else set())


def name_problems(protocol: Protocol, domain: Domain) -> list[str]:
    """Every generated name of ``domain`` that would clash with or hide another name.

    Checked: names defined twice in the domain's files (classes, functions, scalars, module
    names, helpers); field and parameter names (unique per owner, valid identifiers); enum
    member names (unique, valid, not ``_sunder_``); fields hiding model attributes (or an
    event's ``method``); fields hiding a name their own class's annotations look up
    (a module or a builtin); parameters hiding a name the function body uses.
    """
    problems = _duplicates(_domain_names(protocol, domain), f"domain {domain.name}")
    for owner, props in _property_owners(domain):
        problems += _duplicates([prop.python_name for prop in props], owner)
        problems += [
            f"{owner}: {prop.name!r} -> invalid name {prop.python_name!r}"
            for prop in props
            if not prop.python_name.isidentifier()
        ]
    for owner, values in _enums(domain):
        members = [enum_member_name(value) for value in values]
        problems += _duplicates(members, f"enum {owner}")
        problems += [
            f"enum {owner}: invalid member name {name!r}"
            for name in members
            if not name.isidentifier() or name.startswith("_")
        ]
    problems += _field_problems(protocol, domain)
    for command in domain.commands:
        problems += [
            f"command {command.method}: parameter {prop.python_name!r} hides a name the "
            "generated function uses"
            for prop in command.parameters
            if prop.python_name in FUNCTION_BODY_NAMES
        ]
    return problems


def _duplicates(names: Iterable[str], where: str) -> list[str]:
    seen: set[str] = set()
    clashes: list[str] = []
    for name in names:
        if name in seen:
            clashes.append(f"{where}: {name!r} is generated twice")
        seen.add(name)
    return clashes


def _domain_names(protocol: Protocol, domain: Domain) -> list[str]:
    """Every name bound at the top level of the domain's public or private modules."""
    names = list(HELPER_NAMES)
    names += [typedef.python_name for typedef in scalar_types(protocol, domain)]
    names += list(lazy_names(protocol, domain))
    names += wire_names(domain)
    names += [command.function_name for command in domain.commands]
    names += [d.module for d in protocol.domains if d is not domain]
    names += list(domain.module_aliases.values())
    return names


def _property_owners(domain: Domain) -> Iterator[tuple[str, list[Property]]]:
    for typedef in domain.types:
        yield f"type {domain.name}.{typedef.id}", typedef.properties
    for command in domain.commands:
        yield f"command {command.method} parameters", command.parameters
        yield f"command {command.method} returns", command.returns
    for event in domain.events:
        yield f"event {event.method}", event.parameters


def _enums(domain: Domain) -> Iterator[tuple[str, tuple[str, ...]]]:
    for typedef in domain.types:
        if typedef.kind == "enum":
            yield typedef.python_name, typedef.enum
    for owner, props in _property_owners(domain):
        for prop in props:
            if isinstance(prop.type, InlineEnum):
                yield f"{owner} {prop.name}", prop.type.values


def _field_problems(protocol: Protocol, domain: Domain) -> list[str]:
    """Fields that would hide a model attribute or a name their class's annotations need."""
    classes = {(domain.name, typedef.id) for typedef in class_types(protocol, domain)}
    models: list[tuple[str, list[Property], bool, set[tuple[str, str]]]] = [
        (f"type {domain.name}.{t.id}", t.properties, False, classes) for t in domain.types
    ]
    models += [(f"result of {c.method}", c.returns, False, set()) for c in domain.commands]
    models += [(f"event {e.method}", e.parameters, True, set()) for e in domain.events]
    problems: list[str] = []
    for owner, props, event, local in models:
        reserved = _model_attributes(event=event)
        spelling = Spelling(protocol, domain, local=local)
        spelling.bound |= {str(prop.enum_class) for prop in inline_enums(props)}
        used: set[str] = set()
        for prop in props:
            used |= names_in(spelling.property_type(prop))
        for prop in props:
            if prop.python_name in reserved:
                problems.append(f"{owner}: field {prop.python_name!r} hides a model attribute")
            if prop.python_name in used:
                problems.append(
                    f"{owner}: field {prop.python_name!r} hides the name its class's "
                    "annotations use"
                )
    return problems
