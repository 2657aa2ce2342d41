"""The page engine and Chrome's tree on public accessible-name conformance cases.

Reads a directory of Web Platform Tests accname files (``--cases DIR``: a checkout's
``accname/`` folder, or any folder holding such files; nothing is downloaded, and no test
file belongs to this repository). Two kinds of file are understood:

- ``accname/name/*.html`` and the like: each element with a ``data-expectedlabel``
  attribute is a case, that attribute its expected name;
- the older ``*-manual.html`` files: each step of their ``ATTAcomm`` description whose
  assertion is the element's ``name`` property (ATK's wording) is a case.

The folder is served on 127.0.0.1 (the tests' harness scripts are absent: they fail to
load, which leaves the documents as written), each file loaded in turn, and the name both
outlines (``engine="page"``, ``engine="chrome"``) give each case's element compared with
the expected one, white space squashed; an element an outline does not list has no name
there. The report: right and wrong per engine, the cases where Chrome is right and the
page engine wrong (the ones to fix), and how often the two give the element the same role.

    python -m benchmarks.cases.outline_conformance --cases ~/wpt/accname
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The JSON of a manual test's steps: ``new ATTAcomm({...})``.
_ATTACOMM = re.compile(r"new\s+ATTAcomm\s*\(\s*(\{.*\})\s*\)\s*;", re.S)
# Finds the elements of a file's cases, in document order, with their expected names:
# [element, expected, what the test calls it].
_FIND_CASES = """function(ids) {
  const found = [];
  if (ids == null) {
    for (const element of document.querySelectorAll('[data-expectedlabel]')) {
      found.push([element, element.getAttribute('data-expectedlabel'),
                  element.getAttribute('data-testname') || element.outerHTML.slice(0, 80)]);
    }
  } else {
    for (const [id, expected] of ids) {
      const element = document.getElementById(id);
      if (element) found.push([element, expected, '#' + id]);
    }
  }
  return found;
}"""


def _squash(text: str) -> str:
    return " ".join(text.split())


@dataclass
class CaseFile:
    """One test file: its path under the folder, and for a manual test the (element id,
    expected name) of each case (``None``: the cases are marked in the document)."""

    path: str
    manual: list[tuple[str, str]] | None = None


def manual_cases(html: str) -> list[tuple[str, str]]:
    """(element id, expected name) of each name step of a manual test's description."""
    match = _ATTACOMM.search(html)
    if match is None:
        return []
    try:
        description = json.loads(match.group(1))
    except ValueError:
        return []
    cases = []
    for step in description.get("steps", []):
        if step.get("type") != "test" or "element" not in step:
            continue
        for assertion in step.get("test", {}).get("ATK", []):
            if (len(assertion) == 4 and assertion[0] == "property" and assertion[1] == "name"
                    and assertion[2] == "is"):
                cases.append((str(step["element"]), str(assertion[3])))
    return cases


def find_files(folder: Path) -> list[CaseFile]:
    """The test files under ``folder`` that hold name cases, sorted by path."""
    files = []
    for path in sorted(folder.rglob("*.htm*")):
        text = path.read_text(encoding="utf-8", errors="replace")
        relative = path.relative_to(folder).as_posix()
        if "data-expectedlabel" in text:
            files.append(CaseFile(relative))
        elif "ATTAcomm" in text:
            cases = manual_cases(text)
            if cases:
                files.append(CaseFile(relative, cases))
    return files


@dataclass
class Outcome:
    """One case: where, the expected name, and what each engine says (``None``: not
    listed)."""

    where: str
    expected: str
    chrome: tuple[str, str] | None
    engine: tuple[str, str] | None

    def right(self, side: tuple[str, str] | None) -> bool:
        return (side[1] if side is not None else "") == self.expected


@dataclass
class Conformance:
    outcomes: list[Outcome] = field(default_factory=list)
    files: int = 0

    @property
    def chrome_right(self) -> int:
        return sum(outcome.right(outcome.chrome) for outcome in self.outcomes)

    @property
    def engine_right(self) -> int:
        return sum(outcome.right(outcome.engine) for outcome in self.outcomes)

    @property
    def engine_misses(self) -> list[Outcome]:
        """Cases Chrome names right and the page engine wrong."""
        return [outcome for outcome in self.outcomes
                if outcome.right(outcome.chrome) and not outcome.right(outcome.engine)]

    def summary(self) -> str:
        cases = len(self.outcomes)

        def pct(part: int, whole: int) -> str:
            return f"{100.0 * part / whole if whole else 100.0:.1f}%"

        both = [o for o in self.outcomes if o.chrome is not None and o.engine is not None]
        same_role = sum(o.chrome[0] == o.engine[0] for o in both if o.chrome and o.engine)
        misses = len(self.engine_misses)
        return (f"{self.files} files, {cases} cases: page engine right {self.engine_right} "
                f"({pct(self.engine_right, cases)}), Chrome's tree right {self.chrome_right} "
                f"({pct(self.chrome_right, cases)}); Chrome right and the page engine wrong: "
                f"{misses} ({pct(misses, cases)}); the same role on {pct(same_role, len(both))}"
                f" of the {len(both)} elements both list")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (from a thread); its address."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def check_file(page: Any, base: str, case_file: CaseFile) -> list[Outcome]:
    """Load one test file and compare both outlines' names of its cases."""
    from benchmarks.cases.outline_fidelity import chrome_lines, engine_lines
    from cdpkit import cdp, tools

    await tools.navigate(page, f"{base}/{case_file.path}")
    chrome = await chrome_lines(page)
    engine = await engine_lines(page)
    document = await page.send(cdp.runtime.evaluate("document", object_group="conformance"))
    assert document.result.object_id is not None
    try:
        found = await page.send(cdp.runtime.call_function_on(
            _FIND_CASES, object_id=document.result.object_id, object_group="conformance",
            arguments=[cdp.runtime.CallArgument(value=case_file.manual)]))
        assert found.result.object_id is not None
        listed = await page.send(cdp.runtime.get_properties(found.result.object_id,
                                                            own_properties=True))
        outcomes = []
        for item in sorted((p for p in listed.result if p.name.isdigit()),
                           key=lambda p: int(p.name)):
            assert item.value is not None and item.value.object_id is not None
            parts = await page.send(cdp.runtime.get_properties(item.value.object_id,
                                                               own_properties=True))
            values = {p.name: p.value for p in parts.result if p.value is not None}
            element, expected, label = values["0"], values["1"], values["2"]
            assert element.object_id is not None
            node = await page.send(cdp.dom.describe_node(object_id=element.object_id))
            key = int(node.node.backend_node_id)
            said = {side: (line.role, _squash(line.name)) if line is not None else None
                    for side, line in (("chrome", chrome.get(key)), ("engine", engine.get(key)))}
            outcomes.append(Outcome(f"{case_file.path}: {label.value}",
                                    _squash(str(expected.value)), said["chrome"],
                                    said["engine"]))
        return outcomes
    finally:
        await page.send(cdp.runtime.release_object_group("conformance"))


async def conformance(page: Any, folder: Path) -> Conformance:
    """Every case of the test files under ``folder``, loaded in ``page``."""
    total = Conformance()
    with serving(folder) as base:
        for case_file in find_files(folder):
            total.outcomes += await check_file(page, base, case_file)
            total.files += 1
    return total


def report(total: Conformance, show: int) -> str:
    """The figures, then the cases the page engine misses where Chrome is right, then
    those both get wrong."""

    def said(side: tuple[str, str] | None) -> str:
        return "-" if side is None else f"{side[0]} {side[1]!r}"

    lines = [total.summary(), "", "Chrome right, page engine wrong:"]
    for outcome in total.engine_misses[:show]:
        lines.append(f"  {outcome.where}\n    expected {outcome.expected!r}; chrome "
                     f"{said(outcome.chrome)}; engine {said(outcome.engine)}")
    both_wrong = [o for o in total.outcomes if not o.right(o.chrome) and not o.right(o.engine)]
    lines.append(f"\nBoth wrong: {len(both_wrong)}")
    for outcome in both_wrong[:show]:
        lines.append(f"  {outcome.where}\n    expected {outcome.expected!r}; chrome "
                     f"{said(outcome.chrome)}; engine {said(outcome.engine)}")
    engine_only = [o for o in total.outcomes if o.right(o.engine) and not o.right(o.chrome)]
    lines.append(f"\nPage engine right, Chrome wrong: {len(engine_only)}")
    return "\n".join(lines)


async def _main(folder: Path, show: int) -> str:
    import cdpkit
    from benchmarks.cases.snapshot_peers import chrome_path

    async with cdpkit.launch(executable_path=chrome_path()) as browser:
        page = await browser.new_page()
        total = await conformance(page, folder)
    return report(total, show)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cases", type=Path, required=True,
                        help="a folder of WPT accname test files (e.g. a checkout's accname/)")
    parser.add_argument("--show", type=int, default=100, help="cases to print per group")
    args = parser.parse_args(argv)
    if not args.cases.is_dir():
        parser.error(f"{args.cases} is not a folder")
    print(asyncio.run(_main(args.cases, args.show)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
