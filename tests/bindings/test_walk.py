"""Every domain, type, command and event of the pinned protocol JSON exists in
:mod:`cdpkit.cdp` with its exact wire names and the spec's required/optional split.

The expectations are read from ``protocol/*.json`` directly, not from the generator; the
only input taken from the generator is the list of fixups that change optionality.
"""

from __future__ import annotations

import importlib
import inspect
import typing
from types import ModuleType
from typing import Any

import pytest

import cdpkit.cdp
from cdpkit._model import CDPEnum, CDPModel, Command, Event
from cdpkit.cdp import _registry
from cdpkit.codegen import build_protocol
from cdpkit.codegen.naming import module_name, pascal_case, snake_case
from cdpkit.codegen.protocol import parse_protocol
from cdpkit.codegen.sources import load_vendored_protocol
from tests.bindings.conftest import load_protocol_domains

DOMAINS = load_protocol_domains()
PRIMITIVE_NEWTYPES = {"string": str, "integer": int, "number": float, "boolean": bool}


def _optionality_fixups() -> dict[tuple[str, str], bool]:
    """(where, wire name) -> optional, for every property whose optionality a fixup changed."""
    documents, source = load_vendored_protocol()
    spec = list(parse_protocol(documents, source).properties())
    fixed = list(build_protocol(documents, source).properties())
    return {
        (where, prop.name): prop.optional
        for (where, prop), (_, original) in zip(fixed, spec, strict=True)
        if prop.optional != original.optional
    }


OPTIONALITY_FIXUPS = _optionality_fixups()


def _module(domain: dict[str, Any]) -> ModuleType:
    return importlib.import_module(f"cdpkit.cdp.{module_name(domain['domain'])}")


def _wire_fields(model: type[CDPModel]) -> dict[str, tuple[str, Any]]:
    """wire name -> (python name, field info) of a model."""
    model.model_rebuild()
    return {(info.alias or name): (name, info) for name, info in model.model_fields.items()}


def _check_fields(
    model: type[CDPModel], props: list[dict[str, Any]], where: str, module: ModuleType, owner: str
) -> None:
    fields = _wire_fields(model)
    assert set(fields) == {prop["name"] for prop in props}, f"{where}: fields differ"
    for prop in props:
        python_name, info = fields[prop["name"]]
        assert python_name == snake_case(prop["name"]), f"{where}.{prop['name']}"
        optional = OPTIONALITY_FIXUPS.get((where, prop["name"]), prop.get("optional", False))
        assert info.is_required() is not optional, (
            f"{where}.{prop['name']}: required is {info.is_required()}"
        )
        if "enum" in prop:
            enum_cls = getattr(module, owner + pascal_case(prop["name"]))
            assert issubclass(enum_cls, CDPEnum)
            assert [member.value for member in enum_cls] == prop["enum"]


def test_domains_are_registered_and_lazy() -> None:
    assert sorted(_registry.DOMAINS) == sorted(domain["domain"] for domain in DOMAINS)
    for domain in DOMAINS:
        name = domain["domain"]
        assert _registry.DOMAINS[name] == module_name(name)
        assert module_name(name) in cdpkit.cdp.__all__
        assert getattr(cdpkit.cdp, module_name(name)) is _module(domain)


@pytest.mark.parametrize("domain", DOMAINS, ids=[d["domain"] for d in DOMAINS])
def test_types(domain: dict[str, Any]) -> None:
    module = _module(domain)
    for typedef in domain.get("types", []):
        where = f"type {domain['domain']}.{typedef['id']}"
        value = getattr(module, typedef["id"])
        kind = typedef["type"]
        if kind == "object" and "properties" in typedef:
            assert issubclass(value, CDPModel), where
            _check_fields(value, typedef["properties"], where, module, typedef["id"])
        elif "enum" in typedef:
            assert issubclass(value, CDPEnum), where
            assert [member.value for member in value] == typedef["enum"], where
        elif kind in PRIMITIVE_NEWTYPES:
            assert value.__supertype__ is PRIMITIVE_NEWTYPES[kind], where
        elif kind == "array":
            assert typing.get_origin(value) is list, where
        else:
            assert value == dict[str, Any], where


@pytest.mark.parametrize("domain", DOMAINS, ids=[d["domain"] for d in DOMAINS])
def test_commands(domain: dict[str, Any]) -> None:
    module = _module(domain)
    for command in domain.get("commands", []):
        method = f"{domain['domain']}.{command['name']}"
        function = getattr(module, snake_case(command["name"]))
        assert _registry.COMMANDS[method] == (module_name(domain["domain"]), function.__name__)

        params = command.get("parameters", [])
        required = [p for p in params if not p.get("optional")]
        optional = [p for p in params if p.get("optional")]
        signature = inspect.signature(function)
        expected: list[tuple[str, Any, Any]] = [
            (
                snake_case(p["name"]),
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                inspect.Parameter.empty,
            )
            for p in required
        ]
        expected += [
            (snake_case(p["name"]), inspect.Parameter.KEYWORD_ONLY, None) for p in optional
        ]
        assert [(p.name, p.kind, p.default) for p in signature.parameters.values()] == expected, (
            method
        )

        values = [f"value-{i}" for i in range(len(required))]
        cmd = function(*values)
        assert isinstance(cmd, Command)
        assert cmd.method == method
        assert cmd.params == {p["name"]: v for p, v in zip(required, values, strict=True)}
        everything = function(*values, **{snake_case(p["name"]): p["name"] for p in optional})
        assert set(everything.params) == {p["name"] for p in params}

        returns = command.get("returns")
        if returns:
            result_type = cmd.result_type
            assert result_type is not None and issubclass(result_type, CDPModel), method
            assert result_type.__name__ == pascal_case(command["name"]) + "Result"
            assert getattr(module, result_type.__name__) is result_type
            _check_fields(
                result_type, returns, f"command {method} return", module, result_type.__name__
            )
        else:
            assert cmd.result_type is None, method


@pytest.mark.parametrize(
    "domain",
    [d for d in DOMAINS if d.get("events")],
    ids=[d["domain"] for d in DOMAINS if d.get("events")],
)
def test_events(domain: dict[str, Any]) -> None:
    module = _module(domain)
    for event in domain["events"]:
        method = f"{domain['domain']}.{event['name']}"
        cls = getattr(module, pascal_case(event["name"]))
        assert issubclass(cls, Event), method
        assert cls.method == method
        assert _registry.EVENTS[method] == (module_name(domain["domain"]), cls.__name__)
        _check_fields(cls, event.get("parameters", []), f"event {method}", module, cls.__name__)


def test_registry_has_nothing_else() -> None:
    assert len(_registry.COMMANDS) == sum(len(d.get("commands", [])) for d in DOMAINS)
    assert len(_registry.EVENTS) == sum(len(d.get("events", [])) for d in DOMAINS)
