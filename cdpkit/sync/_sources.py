"""Where each name of a module of the async API comes from, for the sync twins'
generator (:mod:`._generate`): the module's tree, the origin of each top-level name (an
import, a definition, a ``TypeVar`` copied as written), and the imports the generated code
needs, each from where its source has it.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
from collections.abc import Collection
from pathlib import Path


class GenerateError(Exception):
    """The async API has something the generator cannot twin (the message says what)."""


@dataclasses.dataclass(frozen=True)
class Origin:
    module: str  # the module to import from
    name: str | None  # the name in it; None: ``import module``
    typevar: str | None = None  # a TypeVar's definition, copied instead of imported


def _absolute(module: str, level: int, target: str | None, is_package: bool) -> str:
    if not level:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([target] if target else [])])


def _typevar(node: ast.Assign) -> str | None:
    value = node.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "TypeVar"
    ):
        # A bound as a string: its class is then only needed under TYPE_CHECKING.
        call = ast.Call(value.func, value.args, [
            ast.keyword(k.arg, ast.Constant(ast.unparse(k.value)) if k.arg == "bound" else k.value)
            for k in value.keywords
        ])  # fmt: skip
        return f"{ast.unparse(node.targets[0])} = {ast.unparse(call)}".replace("'", '"')
    return None


@dataclasses.dataclass
class Source:
    """One module of the async API: its tree and the origin of each top-level name."""

    module: str
    text: str
    tree: ast.Module
    names: dict[str, Origin]

    @classmethod
    def load(cls, module: str) -> Source:
        path = Path(importlib.import_module(module).__file__ or "")
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        names: dict[str, Origin] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(module, node.level, node.module, path.name == "__init__.py")
                for alias in node.names:
                    names[alias.asname or alias.name] = Origin(base, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    names[alias.asname or alias.name.split(".")[0]] = Origin(alias.name, None)
        for node in tree.body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names[node.name] = Origin(module, node.name)
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                names[node.targets[0].id] = Origin(module, node.targets[0].id, _typevar(node))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names[node.target.id] = Origin(module, node.target.id)
        return cls(module, text, tree, names)

    def segment(self, node: ast.AST) -> str:
        text = ast.get_source_segment(self.text, node)
        assert text is not None
        return text

    def find(self, name: str) -> ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef:
        for node in self.tree.body:
            if (
                isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == name
            ):
                return node
        raise GenerateError(f"{name} is not defined at the top of {self.module}")


_SOURCES: dict[str, Source] = {}


def source(module: str) -> Source:
    if module not in _SOURCES:
        _SOURCES[module] = Source.load(module)
    return _SOURCES[module]


def names_in(node: ast.AST | None, *, strings: bool = True) -> set[str]:
    """The names an expression uses; with ``strings``, also those in string annotations
    (``"Browser | None"``), not the values of a ``Literal[...]``."""
    found: set[str] = set()
    if node is None:
        return found
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
    ):
        return {"Literal"}
    if isinstance(node, ast.Name):
        found.add(node.id)
    elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
        with contextlib.suppress(SyntaxError):
            found |= names_in(ast.parse(node.value, mode="eval").body)
    for child in ast.iter_child_nodes(node):
        found |= names_in(child, strings=strings)
    return found


class Imports:
    """The names the generated code uses, each imported from where its source has it."""

    def __init__(self, twinned: Collection[str]) -> None:
        self.twinned = twinned  # the classes that have a twin: their twin is used instead
        self.typing: dict[str, Origin] = {}  # needed by annotations only
        self.runtime: dict[str, Origin] = {}  # needed when the module runs
        self.twins: set[str] = set()  # the twin classes used

    def use(self, src: Source, node: ast.AST | None, *, runtime: bool = False) -> None:
        for name in sorted(names_in(node, strings=not runtime)):
            self._use(src, name, runtime)

    def _use(self, src: Source, name: str, runtime: bool) -> None:
        if name in self.twinned:
            self.twins.add(name)
            return
        origin = src.names.get(name)
        if origin is None:
            import builtins

            if hasattr(builtins, name):
                return
            raise GenerateError(f"{src.module}: where does {name!r} come from?")
        if origin.typevar is None and origin.name is not None and origin.name.startswith("_"):
            raise GenerateError(f"{src.module}: {name!r} is private to {origin.module}")
        table = self.runtime if runtime and origin.typevar is None else self.typing
        seen = self.runtime.get(name) or self.typing.get(name)
        if seen is not None and _identity(seen) != _identity(origin):
            raise GenerateError(f"{name!r} means {seen} in one source and {origin} in another")
        if seen is None or table is self.runtime:
            table[name] = seen or origin
        if seen is None and origin.typevar is not None:  # its bound's names
            self.use(src, ast.parse(origin.typevar).body[0])


def _identity(origin: Origin) -> tuple[str, ...]:
    """What an origin names: a re-exported class or function is the same object."""
    if origin.typevar is not None or origin.name is None:
        return (origin.module, origin.name or "", origin.typevar or "")
    try:
        obj = getattr(importlib.import_module(origin.module), origin.name)
    except (ImportError, AttributeError):
        return (origin.module, origin.name)
    return (getattr(obj, "__module__", origin.module), getattr(obj, "__qualname__", origin.name))
