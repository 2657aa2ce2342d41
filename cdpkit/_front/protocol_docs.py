"""The protocol's docs as the bindings know them: what ``cdpkit protocol`` prints, what the
REPL's ``:doc`` shows, and the parameter names its completion offers.

Everything comes from data the generator writes (``cdpkit/cdp/_docs.py``, one JSON document
per domain, see ``cdpkit/codegen/docs_data.py``), read on first use: nothing here imports
or inspects the generated bindings themselves.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import json
from typing import TYPE_CHECKING, Any

from .browser_options import CLIError

if TYPE_CHECKING:
    from ..cdp import _registry as registry

__all__ = ["command_params", "describe_protocol", "registry"]


def __getattr__(name: str) -> Any:
    # `registry`: where each wire name lives in the bindings (pure data, generated), for the
    # front ends that list or check names (the REPL, `cdpkit doctor`); loaded when asked for.
    if name == "registry":
        return importlib.import_module("..cdp._registry", __package__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _domain(wire_domain: str) -> dict[str, Any]:
    """The docs data of one domain (parsed once)."""
    from ..cdp import _docs

    data: dict[str, Any] = json.loads(_docs.DOMAINS[wire_domain])
    return data


def _domains() -> list[str]:
    from ..cdp import _docs

    return list(_docs.DOMAINS)


def _summary(doc: str) -> str:
    """The first paragraph of a doc text, on one line."""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def _item(items: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    return next((item for item in items if item["name"] == name), None)


def _signature_order(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parameters as the generated function takes them: required first, then optional."""
    return [p for p in params if not p["optional"]] + [p for p in params if p["optional"]]


def command_params(method: str) -> list[str]:
    """The wire names of a command's parameters (``Page.navigate`` -> ``url``, ...), in the
    order of the generated function, or ``[]`` when the bindings do not know the command."""
    wire_domain, _, name = method.partition(".")
    if wire_domain not in _domains():
        return []
    command = _item(_domain(wire_domain)["commands"], name)
    if command is None:
        return []
    return [p["name"] for p in _signature_order(command["params"])]


def _fields(fields: list[dict[str, Any]]) -> list[str]:
    lines = []
    for field in fields:
        alias = f" ({field['name']})" if field["name"] != field["python"] else ""
        optional = ", optional" if field["optional"] else ""
        lines.append(f"    {field['python']}{alias}: {field['type']}{optional}")
    return lines


def _resolve_domain(name: str) -> tuple[str, str] | None:
    """``(wire name, module)`` of the domain called ``name`` (either, any case)."""
    from ..cdp import _registry

    for wire, module in _registry.DOMAINS.items():
        if name in (wire, module) or name.lower() in (wire.lower(), module.lower()):
            return wire, module
    return None


def _all_protocol_names() -> list[str]:
    from ..cdp import _registry

    return [*_registry.DOMAINS, *_registry.COMMANDS, *_registry.EVENTS]


def _not_found(name: str) -> CLIError:
    close = difflib.get_close_matches(name, _all_protocol_names(), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; `cdpkit protocol` lists the domains"
    return CLIError(f"{name!r} is not in the protocol bindings{hint}")


def describe_protocol(name: str | None = None) -> str:
    """The docs of the bindings as text: every domain (no ``name``), one domain
    (``"Page"``), or one command, event or type (``"Page.navigate"``,
    ``"Page.loadEventFired"``, ``"Page.Frame"``). Names are matched case-insensitively.

    Raises:
        CLIError: ``name`` is not in the bindings (with suggestions).
    """
    if not name:
        return _describe_domains()
    domain_name, _, item = name.partition(".")
    domain = _resolve_domain(domain_name)
    if domain is None:
        raise _not_found(name)
    wire_domain = domain[0]
    data = _domain(wire_domain)
    if not item:
        return _describe_domain(wire_domain, data)
    # Commands, then events, then types; an exact name first, then any case.
    for kind, describe in (("commands", _describe_command), ("events", _describe_event)):
        found = _item(data[kind], item) or next(
            (entry for entry in _by_name(data[kind]) if entry["name"].lower() == item.lower()),
            None,
        )
        if found is not None and (kind == "commands" or _item(data["commands"], item) is None):
            return describe(wire_domain, data, found)
    types = _by_name(data["types"])
    found = _item(types, item) or next(
        (entry for entry in types if entry["name"].lower() == item.lower()), None
    )
    if found is None:
        raise _not_found(name)
    return _describe_type(wire_domain, data, found)


def _by_name(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda entry: str(entry["name"]))


def _describe_domains() -> str:
    from ..cdp import _docs

    lines = [f"{_docs.PROTOCOL_VERSION}: {len(_docs.DOMAINS)} domains", ""]
    for wire in _docs.DOMAINS:
        data = _domain(wire)
        module_name = data["module"]
        commands, events = len(data["commands"]), len(data["events"])
        lines.append(
            f"{wire:<22} cdp.{module_name:<22} {commands:>3} commands {events:>3} events  "
            f"{_summary(data['doc'])[:90]}"
        )
    lines += ["", "`cdpkit protocol DOMAIN` lists a domain, `cdpkit protocol Domain.method` documents one."]
    return "\n".join(lines)


def _describe_domain(wire_domain: str, data: dict[str, Any]) -> str:
    module_name = data["module"]
    commands = _by_name(data["commands"])
    events = _by_name(data["events"])
    lines = [f"{wire_domain}  (cdpkit.cdp.{module_name})", "", data["doc"], ""]
    width = max((len(c["name"]) for c in commands), default=0)
    lines.append(f"Commands ({wire_domain}.<name> / cdp.{module_name}.<function>):")
    for command in commands:
        doc = _summary(command["doc"])
        lines.append(f"  {command['name']:<{width}}  {command['function']:<{width + 4}}  {doc[:70]}")
    if events:
        width = max(len(e["name"]) for e in events)
        lines += ["", f"Events ({wire_domain}.<name> / cdp.{module_name}.<class>):"]
        for event in events:
            lines.append(f"  {event['name']:<{width}}  {event['class']}")
    type_names = sorted(t["name"] for t in data["types"] if t["listed"])
    if type_names:
        lines += ["", "Types:", "  " + ", ".join(type_names)]
    return "\n".join(lines).rstrip()


def _describe_command(wire_domain: str, data: dict[str, Any], command: dict[str, Any]) -> str:
    method = f"{wire_domain}.{command['name']}"
    raw = " ".join(
        f"{p['name']}=..." if not p["optional"] else f"[{p['name']}=...]"
        for p in _signature_order(command["params"])
    )
    lines = [
        f"{method}  (command)",
        "",
        command["signature"],
        "",
        command["doc"],
        "",
        f"REPL: {method}{' ' + raw if raw else ''}",
    ]
    if command["result"]:
        lines += ["", f"Result: cdp.{data['module']}.{command['result']}", *_fields(command["returns"])]
    return "\n".join(lines).rstrip()


def _describe_event(wire_domain: str, data: dict[str, Any], event: dict[str, Any]) -> str:
    lines = [
        f"{wire_domain}.{event['name']}  (event: cdp.{data['module']}.{event['class']})",
        "",
        event["doc"],
        "",
        "Fields:",
        *(_fields(event["fields"]) or ["    (none)"]),
    ]
    return "\n".join(lines).rstrip()


def _describe_type(wire_domain: str, data: dict[str, Any], entry: dict[str, Any]) -> str:
    name = entry["name"]
    lines = [f"{wire_domain}.{name}  (type: cdp.{data['module']}.{name})", ""]
    if entry["kind"] == "enum":
        lines += [entry["doc"], "", "Values: " + ", ".join(entry["values"])]
    elif entry["kind"] == "newtype":
        lines.append(f"NewType of {entry['target']}")
    elif entry["kind"] == "alias":
        lines += [entry["doc"], "", f"Alias of {entry['target']}"]
    else:
        lines.append(entry["doc"])
        fields = _fields(entry["fields"])
        if fields:
            lines += ["", "Fields:", *fields]
    return "\n".join(lines).rstrip()
