"""How a generated file writes type annotations, and the imports that follows from.

A type defined in the file itself is written bare (``Frame``); any other protocol type goes
through its public domain module (``page.FrameId``, ``network.LoaderId``). In the modules
holding classes those module names are bound only at the bottom of the file, to
:class:`cdpkit._model.LazyModule` stand-ins: pydantic cannot resolve them while creating the
class and resolves them on the first validation instead, so nothing else gets imported
early. For mypy they are ordinary imports under ``TYPE_CHECKING``.

Modules holding classes do not use ``from __future__ import annotations``: pydantic would
have to compile every annotation string, which is a good part of a class's creation time.
Only annotations that cannot be evaluated where they are written (they go through a module,
or name a class defined further down) are quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .protocol import (
    ArrayOf,
    Domain,
    InlineEnum,
    Primitive,
    Property,
    Protocol,
    ProtocolError,
    TypeExpr,
)

__all__ = ["PRIMITIVE_ANNOTATIONS", "Imports", "Spelling", "names_in"]

PRIMITIVE_ANNOTATIONS = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "binary": "str",
    "any": "Any",
    "object": "dict[str, Any]",
}

# Names an annotation may use that are always bound (builtins, and imports of every file).
ALWAYS_BOUND = frozenset({"str", "int", "float", "bool", "list", "dict", "Any", "None", "Literal"})

_NAME = re.compile(r"(?<![\w.\"])([A-Za-z_]\w*)")


def names_in(annotation: str) -> set[str]:
    """The names an annotation looks up (``network.LoaderId | None`` -> network, None).

    Text inside string literals (``Literal["a-b"]``) is not a name.
    """
    without_strings = re.sub(r'"(?:[^"\\]|\\.)*"', '""', annotation)
    return set(_NAME.findall(without_strings))


@dataclass
class Imports:
    """What a generated file imports, collected while its body is written."""

    typing: set[str] = field(default_factory=set)
    pydantic: set[str] = field(default_factory=set)
    model: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)


@dataclass
class Spelling:
    """The annotation writer of one generated file.

    Attributes:
        protocol: The whole protocol, to resolve references.
        domain: The domain the file belongs to (its module aliases apply).
        local: ``(domain, type id)`` of the types defined in this file, written bare.
        postponed: The file uses ``from __future__ import annotations`` (nothing is quoted).
        bound: Bare names already defined at this point of the file (when not postponed).
        imports: Collects the imports the written annotations need.
    """

    protocol: Protocol
    domain: Domain
    local: set[tuple[str, str]] = field(default_factory=set)
    postponed: bool = False
    bound: set[str] = field(default_factory=set)
    imports: Imports = field(default_factory=Imports)

    def module_name(self, module: str) -> str:
        """The name a public domain module is bound to in this file (see the fixups)."""
        return self.domain.module_aliases.get(module, module)

    def type_expr(
        self, expr: TypeExpr, *, enum_class: str | None = None, param: bool = False
    ) -> str:
        """The annotation of a type; for command parameters (``param``) an enum also accepts
        its values as plain strings (``TransitionType | Literal["link", ...]``)."""
        if isinstance(expr, Primitive):
            text = PRIMITIVE_ANNOTATIONS[expr.name]
            if "Any" in text:
                self.imports.typing.add("Any")
            return text
        if isinstance(expr, ArrayOf):
            return f"list[{self.type_expr(expr.items, param=param)}]"
        if isinstance(expr, InlineEnum):
            if param:
                return self.literal(expr.values)
            if enum_class is None:
                raise ProtocolError(f"inline enum without a class name: {expr.values}")
            return enum_class
        typedef = self.protocol.resolve(expr)
        if (expr.domain, expr.name) in self.local:
            text = typedef.python_name
        else:
            module = self.protocol.domain(expr.domain).module
            self.imports.modules.add(module)
            text = f"{self.module_name(module)}.{typedef.python_name}"
        if param and typedef.kind == "enum":
            return f"{text} | {self.literal(typedef.enum)}"
        return text

    def literal(self, values: Iterable[str]) -> str:
        """``Literal["a", "b"]``."""
        self.imports.typing.add("Literal")
        return f"Literal[{', '.join(json.dumps(value) for value in values)}]"

    def property_type(self, prop: Property, *, param: bool = False) -> str:
        """The annotation of a field or parameter, ``| None`` when optional."""
        text = self.type_expr(prop.type, enum_class=prop.enum_class, param=param)
        return f"{text} | None" if prop.optional else text

    def evaluable(self, annotation: str) -> str:
        """``annotation``, quoted if it cannot be evaluated at this point of the file."""
        if self.postponed or names_in(annotation) <= self.bound | ALWAYS_BOUND:
            return annotation
        return f'"{annotation}"'
