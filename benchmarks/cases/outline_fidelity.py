"""The in-page outline engine against Chrome's accessibility tree: time and fidelity.

On each page of ``../shared/corpus/readability-dev/*/source.html`` (served on
127.0.0.1, as :mod:`benchmarks.cases.snapshot_peers` serves them; ``--corpus DIR`` for
another folder), after the load and 0.5 s: the time of ``tools.snapshot(page,
max_chars=None)`` with ``engine="chrome"`` (Chrome's ``getFullAXTree``) and with
``engine="page"`` (``cdpkit/tools/_snapshot/_js/outline.js``), median of ``--runs`` each,
interleaved; then, matching
the two outlines' lines by DOM node (backend node id; the engine's nodes are mapped to
theirs here only, with ``DOM.describeNode``):

- role, name: of the nodes both list, the share with the same role, the same name
  (whitespace collapsed);
- chrome->engine: the share of the snapshot's lines (those with a DOM node) the engine
  lists at all; engine->chrome: the other way;
- the same four figures for the controls (links, buttons, fields, headings...), by
  Chrome's role.

Then the medians over pages, and the top mismatches: role pairs, name examples, the
roles each side lists that the other does not, so the next step knows what to fix.

    .venv/bin/python -m benchmarks.cases.outline_fidelity --pages 20
    .venv/bin/python -m benchmarks.cases.outline_fidelity --only aclu --dump
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cases.snapshot_peers import CORPUS, chrome_path, corpus_pages, serve

# Chrome's roles of the controls the fidelity figures single out.
CONTROL_ROLES = frozenset({
    "link", "button", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
    "slider", "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "heading", "ToggleButton", "PopUpButton", "DisclosureTriangle",
})
_GROUP = "cdpkit-outline-fidelity"


@dataclass
class Line:
    """One line of either outline: what the comparison reads."""

    role: str
    name: str
    value: str | None
    states: tuple[str, ...]


@dataclass
class PageFigures:
    """One page's figures."""

    snapshot_ms: float
    engine_ms: float
    both: int = 0
    chrome: int = 0
    engine: int = 0
    same_role: int = 0
    same_name: int = 0
    controls_chrome: int = 0
    controls_both: int = 0
    controls_role: int = 0
    controls_name: int = 0
    controls_engine: int = 0

    @property
    def ratio(self) -> float:
        return self.engine_ms / self.snapshot_ms if self.snapshot_ms else 0.0


@dataclass
class Mismatches:
    """What differed, over all pages."""

    roles: Counter[tuple[str, str]] = field(default_factory=Counter)
    names: list[tuple[str, str, str, str]] = field(default_factory=list)  # page, role, chrome, engine
    name_roles: Counter[str] = field(default_factory=Counter)
    missing: Counter[str] = field(default_factory=Counter)  # Chrome lists, engine not
    extra: Counter[str] = field(default_factory=Counter)  # engine lists, Chrome not
    missing_examples: dict[str, list[str]] = field(default_factory=dict)
    extra_examples: dict[str, list[str]] = field(default_factory=dict)


def _squash(text: str) -> str:
    return " ".join(text.split())


async def chrome_lines(page: Any) -> dict[int, Line]:
    """The snapshot's lines with a DOM node in the page's own session, by backend node id."""
    from cdpkit import tools

    shot = await tools.snapshot(page, max_chars=None, engine="chrome")
    return {
        node.backend_node_id: Line(node.role, _squash(node.name), node.value, node.states)
        for node in shot.nodes
        if node.backend_node_id is not None and node.session is page
    }


async def engine_lines(page: Any) -> dict[int, Line]:
    """The engine's entries in the page's own session, by the backend node id of their
    node (found in bulk: the registry's elements of each world, then DOM.describeNode)."""
    from cdpkit import cdp
    from cdpkit.tools._snapshot._page_outline import page_outline

    entries = [entry for entry in await page_outline(page) if entry.session is page]
    lines: dict[int, Line] = {}
    try:
        for world in {entry.world for entry in entries}:
            mine = [entry for entry in entries if entry.world == world]
            handle = await page.send(cdp.runtime.evaluate(
                f"{[entry.id for entry in mine]}.map(i => globalThis.__cdpkitOutline.element(i))",
                unique_context_id=world, object_group=_GROUP,
            ))
            assert handle.result.object_id is not None
            listed = await page.send(cdp.runtime.get_properties(handle.result.object_id,
                                                                own_properties=True))
            objects = {int(p.name): p.value.object_id for p in listed.result
                       if p.name.isdigit() and p.value is not None and p.value.object_id}
            found = [i for i in range(len(mine)) if i in objects]
            described = await asyncio.gather(*(
                page.send(cdp.dom.describe_node(object_id=objects[i])) for i in found
            ))
            for i, node in zip(found, described, strict=True):
                entry = mine[i]
                lines[int(node.node.backend_node_id)] = Line(
                    entry.role, _squash(entry.name), entry.value, entry.states)
    finally:
        await page.send(cdp.runtime.release_object_group(_GROUP))
    return lines


async def _timed(call: Any) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def measure_page(page: Any, runs: int) -> tuple[float, float]:
    """Median ms of the snapshot and of the engine, ``runs`` of each, interleaved (one
    warm-up of each first)."""
    from cdpkit import tools

    async def snap() -> None:
        await tools.snapshot(page, max_chars=None, engine="chrome")

    async def engine() -> None:
        await tools.snapshot(page, max_chars=None, engine="page")

    await snap()
    await engine()
    snaps, engines = [], []
    for _ in range(runs):
        snaps.append(await _timed(snap))
        engines.append(await _timed(engine))
    return statistics.median(snaps), statistics.median(engines)


def compare(name: str, chrome: dict[int, Line], engine: dict[int, Line], figures: PageFigures,
            misses: Mismatches) -> None:
    """Fill ``figures`` (and ``misses``) from the two outlines of page ``name``."""
    both = chrome.keys() & engine.keys()
    figures.chrome, figures.engine, figures.both = len(chrome), len(engine), len(both)
    for key in both:
        ours, theirs = engine[key], chrome[key]
        control = theirs.role in CONTROL_ROLES
        if control:
            figures.controls_both += 1
        if ours.role == theirs.role:
            figures.same_role += 1
            figures.controls_role += control
        else:
            misses.roles[(theirs.role, ours.role)] += 1
        if ours.name == theirs.name:
            figures.same_name += 1
            figures.controls_name += control
        else:
            misses.name_roles[theirs.role] += 1
            misses.names.append((name, theirs.role, theirs.name[:80], ours.name[:80]))
    figures.controls_chrome = sum(line.role in CONTROL_ROLES for line in chrome.values())
    figures.controls_engine = sum(
        1 for key in both if chrome[key].role in CONTROL_ROLES)
    for key in chrome.keys() - engine.keys():
        role = chrome[key].role
        misses.missing[role] += 1
        examples = misses.missing_examples.setdefault(role, [])
        if len(examples) < 3:
            examples.append(f"{name}: {chrome[key].name[:60]!r}")
    for key in engine.keys() - chrome.keys():
        role = engine[key].role
        misses.extra[role] += 1
        examples = misses.extra_examples.setdefault(role, [])
        if len(examples) < 3:
            examples.append(f"{name}: {engine[key].name[:60]!r}")


def _share(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 100.0


def report(results: dict[str, PageFigures], misses: Mismatches) -> str:
    lines = [
        "| page | snapshot ms | engine ms | ratio | role % | name % | chrome->engine % | "
        "engine->chrome % | controls role % | controls name % | controls listed % |",
        "|---|" + "---:|" * 10,
    ]
    columns: dict[str, list[float]] = {}

    def row(name: str, f: PageFigures) -> None:
        cells = {
            "snapshot ms": f.snapshot_ms, "engine ms": f.engine_ms, "ratio": f.ratio,
            "role": _share(f.same_role, f.both), "name": _share(f.same_name, f.both),
            "c2e": _share(f.both, f.chrome), "e2c": _share(f.both, f.engine),
            "crole": _share(f.controls_role, f.controls_both),
            "cname": _share(f.controls_name, f.controls_both),
            "clisted": _share(f.controls_engine, f.controls_chrome),
        }
        for key, value in cells.items():
            columns.setdefault(key, []).append(value)
        lines.append(
            f"| {name} | {f.snapshot_ms:.1f} | {f.engine_ms:.1f} | {f.ratio:.2f} | "
            + " | ".join(f"{value:.1f}" for key, value in cells.items()
                         if key not in ("snapshot ms", "engine ms", "ratio"))
            + " |")

    for name, figures in results.items():
        row(name, figures)
    if columns:
        medians = {key: statistics.median(values) for key, values in columns.items()}
        lines.append(
            f"| **median** | {medians['snapshot ms']:.1f} | {medians['engine ms']:.1f} | "
            f"{medians['ratio']:.2f} | "
            + " | ".join(f"{medians[key]:.1f}" for key in
                         ("role", "name", "c2e", "e2c", "crole", "cname", "clisted")) + " |")
        total = lambda attribute: sum(getattr(f, attribute) for f in results.values())  # noqa: E731
        lines += [
            "",
            f"Over all pages: role {_share(total('same_role'), total('both')):.1f}%, name "
            f"{_share(total('same_name'), total('both')):.1f}%, chrome->engine "
            f"{_share(total('both'), total('chrome')):.1f}%, engine->chrome "
            f"{_share(total('both'), total('engine')):.1f}%; controls: role "
            f"{_share(total('controls_role'), total('controls_both')):.1f}%, name "
            f"{_share(total('controls_name'), total('controls_both')):.1f}%, listed "
            f"{_share(total('controls_engine'), total('controls_chrome')):.1f}%",
        ]
    lines += ["", "Role mismatches (Chrome -> engine: count):"]
    lines += [f"  {c} -> {e}: {n}" for (c, e), n in misses.roles.most_common(20)]
    lines += ["", "Name mismatches by Chrome role: " + ", ".join(
        f"{role} {n}" for role, n in misses.name_roles.most_common(12))]
    seen: Counter[str] = Counter()
    for page, role, theirs, ours in misses.names:
        if seen[role] < 3:
            seen[role] += 1
            lines.append(f"  {page} {role}: chrome {theirs!r} engine {ours!r}")
    lines += ["", "Chrome lists, engine not (by role):"]
    lines += [f"  {role}: {n}  e.g. {'; '.join(misses.missing_examples[role])}"
              for role, n in misses.missing.most_common(12)]
    lines += ["", "Engine lists, Chrome not (by role):"]
    lines += [f"  {role}: {n}  e.g. {'; '.join(misses.extra_examples[role])}"
              for role, n in misses.extra.most_common(12)]
    return "\n".join(lines)


async def run(corpus: Path, count: int, runs: int, only: str | None, dump: bool) -> str:
    import cdpkit
    from cdpkit import tools

    pages = corpus_pages(corpus, 10_000 if only else count)
    if only:
        pages = [p for p in pages if p.parent.name == only]
    if not pages:
        return f"Skipped: no pages in {corpus} (*/source.html)"
    results: dict[str, PageFigures] = {}
    misses = Mismatches()
    slow: list[str] = []
    with serve(corpus) as origin:
        async with cdpkit.launch(executable_path=chrome_path()) as browser:
            page = await browser.new_page()
            for path in pages:
                name = path.parent.name
                try:
                    await tools.navigate(page, f"{origin}/{name}/source.html", timeout=20)
                except cdpkit.WaitTimeoutError:
                    # A resource that never finishes: the document is there, measured as is.
                    slow.append(name)
                await asyncio.sleep(0.5)
                snapshot_ms, engine_ms = await measure_page(page, runs)
                figures = PageFigures(snapshot_ms, engine_ms)
                chrome = await chrome_lines(page)
                engine = await engine_lines(page)
                compare(name, chrome, engine, figures, misses)
                results[name] = figures
                if dump:
                    print((await tools.snapshot(page, max_chars=None, engine="chrome")).text)
                    print("=" * 80)
                    print((await tools.snapshot(page, max_chars=None, engine="page")).text)
    note = f" (load event not reached in 20 s: {', '.join(slow)})" if slow else ""
    return (f"Outline engine vs snapshot on {len(results)} pages{note}\n\n"
            + report(results, misses))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=1000, help="at most this many pages")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each, per page")
    parser.add_argument("--only", help="only this page (its folder's name)")
    parser.add_argument("--dump", action="store_true", help="print both outlines per page")
    args = parser.parse_args(argv)
    print(asyncio.run(run(args.corpus, args.pages, args.runs, args.only, args.dump)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
