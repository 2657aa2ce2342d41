"""The protocol's docs as the bindings know them: what ``cdpkit protocol`` prints and the
REPL's ``:doc`` shows, and the parameter names its completion offers."""

from __future__ import annotations

import difflib
import enum
import inspect
import re
import types
from collections.abc import Callable
from typing import Any

from ._cli_common import CLIError

__all__ = ["command_params", "describe_protocol"]


def _summary(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "").split("\n\n")[0].replace("\n", " ").strip()
    return text


def _annotation(value: Any) -> str:
    forward = getattr(value, "__forward_arg__", None)
    if isinstance(forward, str):
        return forward
    if isinstance(value, type):
        return value.__name__
    return str(value).replace("typing.", "")


def _wire_params(function: Callable[..., Any]) -> dict[str, str]:
    """Python parameter name -> wire name, read from a generated command function."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return {}
    mapping: dict[str, str] = {}
    literal = re.search(r"params: dict\[str, Any\] = \{(.*?)\}\n", source)
    if literal:
        for wire, name in re.findall(r'"(\w+)": (\w+)', literal.group(1)):
            mapping[name] = wire
    for wire, name in re.findall(r'params\["(\w+)"\] = (\w+)', source):
        mapping[name] = wire
    return mapping


def command_params(method: str) -> list[str]:
    """The wire names of a command's parameters (``Page.navigate`` -> ``url``, ...), or
    ``[]`` when the bindings do not know the command."""
    function = _binding(method)
    if function is None or not callable(function):
        return []
    return list(_wire_params(function).values())


def _binding(method: str) -> Any:
    import importlib

    from .cdp import _registry

    entry = _registry.COMMANDS.get(method) or _registry.EVENTS.get(method)
    if entry is None:
        return None
    module = importlib.import_module(f"cdpkit.cdp.{entry[0]}")
    return getattr(module, entry[1], None)


def _fields(model: Any) -> list[str]:
    lines = []
    for name, info in getattr(model, "model_fields", {}).items():
        alias = f" ({info.alias})" if info.alias and info.alias != name else ""
        optional = "" if info.is_required() else ", optional"
        lines.append(f"    {name}{alias}: {_annotation(info.annotation)}{optional}")
    return lines


def _signature(function: Callable[..., Any], qualified: str) -> str:
    signature = inspect.signature(function)
    params = []
    keyword_only_seen = False
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only_seen:
            params.append("*")
            keyword_only_seen = True
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        params.append(text)
    returns = (
        f" -> {_annotation(signature.return_annotation)}"
        if signature.return_annotation is not inspect.Signature.empty
        else ""
    )
    if not params:
        return f"{qualified}(){returns}"
    body = "".join(f"    {p},\n" for p in params)
    return f"{qualified}(\n{body}){returns}"


def _resolve_domain(name: str) -> tuple[str, str] | None:
    from .cdp import _registry

    for wire, module in _registry.DOMAINS.items():
        if name in (wire, module) or name.lower() in (wire.lower(), module.lower()):
            return wire, module
    return None


def _all_protocol_names() -> list[str]:
    from .cdp import _registry

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
    import importlib

    from .cdp import _registry

    if not name:
        return _describe_domains()
    domain_name, _, item = name.partition(".")
    domain = _resolve_domain(domain_name)
    if domain is None:
        raise _not_found(name)
    wire_domain, module_name = domain
    module = importlib.import_module(f"cdpkit.cdp.{module_name}")
    if not item:
        return _describe_domain(wire_domain, module)
    method = f"{wire_domain}.{item}"
    if method not in _registry.COMMANDS and method not in _registry.EVENTS:
        method = next(
            (m for m in [*_registry.COMMANDS, *_registry.EVENTS] if m.lower() == method.lower()),
            method,
        )
    if method in _registry.COMMANDS:
        return _describe_command(method, module)
    if method in _registry.EVENTS:
        return _describe_event(method, module)
    described = _describe_type(wire_domain, item, module)
    if described is None:
        raise _not_found(name)
    return described


def _describe_domains() -> str:
    import importlib

    from .cdp import _registry

    lines = [f"{_registry.PROTOCOL_VERSION}: {len(_registry.DOMAINS)} domains", ""]
    for wire, module_name in _registry.DOMAINS.items():
        module = importlib.import_module(f"cdpkit.cdp.{module_name}")
        commands = sum(1 for m in _registry.COMMANDS if m.partition(".")[0] == wire)
        events = sum(1 for m in _registry.EVENTS if m.partition(".")[0] == wire)
        lines.append(
            f"{wire:<22} cdp.{module_name:<22} {commands:>3} commands {events:>3} events  "
            f"{_summary(module.__doc__)[:90]}"
        )
    lines += ["", "`cdpkit protocol DOMAIN` lists a domain, `cdpkit protocol Domain.method` documents one."]
    return "\n".join(lines)


def _describe_domain(wire_domain: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    commands = [(m, f) for m, (_, f) in _registry.COMMANDS.items() if m.partition(".")[0] == wire_domain]
    events = [(m, c) for m, (_, c) in _registry.EVENTS.items() if m.partition(".")[0] == wire_domain]
    lines = [f"{wire_domain}  (cdpkit.cdp.{module_name})", "", inspect.cleandoc(module.__doc__ or ""), ""]
    width = max((len(m.partition(".")[2]) for m, _ in commands), default=0)
    lines.append(f"Commands ({wire_domain}.<name> / cdp.{module_name}.<function>):")
    for method, function in commands:
        doc = _summary(getattr(module, function).__doc__)
        short = method.partition(".")[2]
        lines.append(f"  {short:<{width}}  {function:<{width + 4}}  {doc[:70]}")
    if events:
        width = max(len(m.partition(".")[2]) for m, _ in events)
        lines += ["", f"Events ({wire_domain}.<name> / cdp.{module_name}.<class>):"]
        for method, cls in events:
            lines.append(f"  {method.partition('.')[2]:<{width}}  {cls}")
    lazy: dict[str, str] = getattr(module, "_LAZY_NAMES", {})
    type_names = [n for n, kind in lazy.items() if kind == "_types"]
    if type_names:
        lines += ["", "Types:", "  " + ", ".join(type_names)]
    return "\n".join(lines).rstrip()


def _describe_command(method: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    function = getattr(module, _registry.COMMANDS[method][1])
    wire = _wire_params(function)
    signature = inspect.signature(function)
    raw = " ".join(
        f"{wire[p]}=..." if param.default is inspect.Parameter.empty else f"[{wire[p]}=...]"
        for p, param in signature.parameters.items()
        if p in wire
    )
    lines = [
        f"{method}  (command)",
        "",
        _signature(function, f"cdp.{module_name}.{function.__name__}"),
        "",
        inspect.getdoc(function) or "",
        "",
        f"REPL: {method}{' ' + raw if raw else ''}",
    ]
    match = re.search(r"Command\[(\w+)\]", str(signature.return_annotation))
    result_model = getattr(module, match.group(1), None) if match else None
    if match and result_model is not None:
        lines += ["", f"Result: cdp.{module_name}.{match.group(1)}", *_fields(result_model)]
    return "\n".join(lines).rstrip()


def _describe_event(method: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    cls = getattr(module, _registry.EVENTS[method][1])
    lines = [
        f"{method}  (event: cdp.{module_name}.{cls.__name__})",
        "",
        inspect.getdoc(cls) or "",
        "",
        "Fields:",
        *(_fields(cls) or ["    (none)"]),
    ]
    return "\n".join(lines).rstrip()


def _describe_type(wire_domain: str, item: str, module: types.ModuleType) -> str | None:
    module_name = module.__name__.rpartition(".")[2]
    lazy: dict[str, str] = getattr(module, "_LAZY_NAMES", {})
    known = [
        n
        for n in dir(module)
        if n[:1].isupper() and (lazy.get(n) == "_types" or hasattr(getattr(module, n), "__supertype__"))
    ]
    found = next((n for n in known if n == item), None) or next(
        (n for n in known if n.lower() == item.lower()), None
    )
    if found is None:
        return None
    value = getattr(module, found)
    lines = [f"{wire_domain}.{found}  (type: cdp.{module_name}.{found})", ""]
    if isinstance(value, type) and issubclass(value, enum.Enum):
        lines += [inspect.getdoc(value) or "", "", "Values: " + ", ".join(str(m.value) for m in value)]
    elif hasattr(value, "__supertype__"):
        lines.append(f"NewType of {_annotation(value.__supertype__)}")
    else:
        lines.append(inspect.getdoc(value) or "")
        fields = _fields(value)
        if fields:
            lines += ["", "Fields:", *fields]
    return "\n".join(lines).rstrip()
