"""Measures cdpkit's hand-written modules and functions against the size rule.

    python scripts/check_sizes.py            # every module and function over the limits
    python scripts/check_sizes.py --top 20   # the 20 longest functions, over or not

The rule (issue #42): no hand-written module over 600 lines, no function over 80 lines of
code. A module counts its physical lines (``wc -l``); a function counts the lines that
hold code, from its ``def`` to its last line, without blank lines, comment lines and
docstrings (a nested function's lines count in the function that holds it too). The
generated bindings (``cdpkit/cdp/``) and the files that say ``Code generated ... DO NOT
EDIT`` on their first line are not hand-written. ``tests/test_sizes.py`` runs it.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cdpkit"
MODULE_LINES = 600
FUNCTION_LOC = 80
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
    tokenize.ENCODING,
}
_Scope = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Size:
    """One module or function and its size: ``name`` is ``""`` for the module itself."""

    path: str  # relative to the repository, with "/"
    name: str  # dotted within the module: "Class.method", "outer.inner"
    size: int

    @property
    def key(self) -> str:
        return f"{self.path}::{self.name}" if self.name else self.path


def hand_written(package: Path = PACKAGE) -> Iterator[Path]:
    """The hand-written modules of ``package``: not the bindings, not the generated twins."""
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).parts[0] == "cdp":
            continue
        with path.open(encoding="utf-8") as file:
            first = file.readline()
        if first.startswith("# Code generated") and "DO NOT EDIT" in first:
            continue
        yield path


def _code_lines(source: str) -> set[int]:
    """The lines holding a token of code (a string spread over lines counts every line)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, _Scope) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                yield name, child
            yield from _functions(child, f"{name}.")
        else:
            yield from _functions(child, prefix)


def measure(path: Path, root: Path = ROOT) -> list[Size]:
    """The module's size in lines, then each function's in lines of code."""
    source = path.read_text(encoding="utf-8")
    relative = path.relative_to(root).as_posix()
    tree = ast.parse(source, str(path))
    code = _code_lines(source) - _docstring_lines(tree)
    sizes = [Size(relative, "", len(source.splitlines()))]
    for name, node in _functions(tree):
        start, end = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        sizes.append(Size(relative, name, len([n for n in code if start <= n <= end])))
    return sizes


def oversized(package: Path = PACKAGE, root: Path = ROOT) -> list[Size]:
    """Every module over ``MODULE_LINES`` lines and function over ``FUNCTION_LOC`` lines of
    code among the hand-written modules of ``package``."""
    found = []
    for path in hand_written(package):
        for size in measure(path, root):
            limit = FUNCTION_LOC if size.name else MODULE_LINES
            if size.size > limit:
                found.append(size)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, help="list the N longest functions instead")
    args = parser.parse_args(argv)
    if args.top:
        functions = [s for p in hand_written() for s in measure(p) if s.name]
        for size in sorted(functions, key=lambda s: -s.size)[: args.top]:
            print(f"{size.size:5d}  {size.key}")
        return 0
    found = oversized()
    for size in found:
        unit = "lines of code" if size.name else "lines"
        print(f"{size.key}: {size.size} {unit}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
