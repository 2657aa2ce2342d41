"""Hand-written bases that the generated bindings in :mod:`cdpkit.cdp` are built on.

Everything here is pure data: no I/O. The core (:mod:`cdpkit.session`) sends a
:class:`Command` and parses its result with :meth:`Command.parse`; it looks an event's
model up with :func:`event_type` only when somebody listens for it.

Compatibility with a Chrome newer than the pinned protocol is decided here:

* models keep fields they do not know (``extra="allow"``) and dump them back;
* :class:`CDPEnum` keeps values it does not know as pseudo-members;
* an event the registry does not know becomes a :class:`RawEvent`.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar as DefaultTypeVar

__all__ = [
    "CDPEnum",
    "CDPModel",
    "Command",
    "Event",
    "LazyModule",
    "RawEvent",
    "event_type",
]

R = TypeVar("R")
# The result as raw JSON, for type checkers only: the wire TypedDict of generated commands
# (``GetFullAXTreeResultJSON``). Covariant, with a default every TypedDict is a subtype of,
# so a user's ``Command[X]`` annotation still accepts every generated ``Command[X, ...]``.
W = DefaultTypeVar("W", covariant=True, default=Mapping[str, Any])


class CDPModel(BaseModel):
    """Base of every generated protocol object: snake_case fields, exact wire names as aliases.

    Fields unknown to the pinned protocol are kept and dumped back unchanged.
    """

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        # Schemas are built on first validation, so importing a domain stays cheap and
        # references to other domains resolve lazily.
        defer_build=True,
        protected_namespaces=(),
    )

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Mapping[str, Any] | None = None,
    ) -> bool | None:
        """Build the schema, resolving the generated annotations in the model's own module.

        Pydantic would otherwise also look names up in the frame that first validates, so
        a user's local variable named ``page`` or ``dom`` hid the ``page``/``dom`` domain
        the annotation meant and the first validation failed.
        """
        return super().model_rebuild(
            force=force,
            raise_errors=raise_errors,
            _parent_namespace_depth=0,
            _types_namespace=_types_namespace if _types_namespace is not None else {},
        )

    def to_wire(self) -> dict[str, Any]:
        """The object as CDP JSON: wire names, enums as strings, only fields that were set."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")


class CDPEnum(enum.StrEnum):
    """A protocol string enum that keeps values newer than the pinned protocol.

    ``Color("ultraviolet")`` on an enum that lacks it returns a pseudo-member whose
    ``value`` is ``"ultraviolet"`` instead of raising, so a newer Chrome never breaks decoding.
    Members compare equal to their string values.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member


class Event(CDPModel):
    """Base of every generated event model. ``method`` is the event's wire name."""

    method: ClassVar[str]


@dataclass(frozen=True, slots=True)
class RawEvent:
    """An event delivered without a model: its method is not in the pinned protocol,
    or it was asked for by name (``page.listen("Foo.bar")``)."""

    method: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Command(Generic[R, W]):
    """A protocol command as pure data: send it with ``await session.send(command)``.

    ``R`` is the parsed result ``send`` returns (a model, or ``None``); ``W`` the raw JSON
    result ``send_json`` returns, typed for type checkers only: the wire TypedDict of the
    result (``cdp.accessibility.GetFullAXTreeResultJSON``), or ``Mapping[str, Any]`` for
    commands that return nothing and in a plain ``Command[R]`` annotation.

    Attributes:
        method: The wire name, e.g. ``"Page.navigate"``.
        params: The JSON params, already in wire form (models are serialized on send).
        result_type: The model the result parses into, or ``None`` for commands that
            return nothing (``send`` then returns ``None``).
    """

    method: str
    params: dict[str, Any]
    result_type: type[CDPModel] | None = None

    def parse(self, result: dict[str, Any]) -> R:
        """Turn the raw ``result`` object of a response into this command's result type."""
        if self.result_type is None:
            return cast(R, None)
        return cast(R, self.result_type.model_validate(result))


class LazyModule:
    """Stands in for a sibling domain module until an attribute of it is needed.

    Generated modules refer to other domains through these, so importing ``cdp.page`` does
    not import ``cdp.network``; the first model validation that needs a network type does.
    An attribute once looked up is kept on the stand-in: every command function reads its
    result model through one (``_results.GetBoxModelResult``), and ``__getattr__`` on each
    call cost about 1.5 µs of a 2 µs command build.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        value = getattr(module, attr)
        # Generated modules never rebind their names: later lookups skip __getattr__.
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


_event_types: dict[str, type[Event] | None] = {}


def event_type(method: str) -> type[Event] | None:
    """The generated event model for a wire name, or ``None`` if the pin does not know it.

    Resolves through the generated registry and imports only the one domain module needed.
    """
    try:
        return _event_types[method]
    except KeyError:
        pass
    from .cdp import _registry

    entry = _registry.EVENTS.get(method)
    found: type[Event] | None = None
    if entry is not None:
        module = importlib.import_module(f"cdpkit.cdp.{entry[0]}")
        found = cast(type[Event], getattr(module, entry[1]))
    _event_types[method] = found
    return found
