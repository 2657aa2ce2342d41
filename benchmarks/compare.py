"""Before and after in one run: cdpkit at this checkout against cdpkit at another one.

    python -m benchmarks.compare --before ../cdpkit-old [-n 5] [--only import,roundtrip,...]

For each case (by default the figures a refactoring must not move: import time, the round
trip, the snapshot, browse at tier 1), repetition after repetition, it runs raw, cdpkit
(this checkout) and cdpkit at ``--before`` (another checkout, e.g. a ``git worktree`` of an
older commit), each in a fresh process, interleaved as the harness does, so that the
machine's load moves all three alike. The before side runs its own checkout's ``cdpkit``
and ``benchmarks`` (its cases must measure the same thing: the default cases use the public
API only). It prints each figure's after/raw, before/raw and after/before (medians of the
per-repetition ratios) and writes them to ``--out``/compare.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.cases.base import Ctx
from benchmarks.common import CHROME_FLAGS, FULL, find_chrome
from benchmarks.harness import (
    ROOT,
    MeasurementError,
    _command,
    _compile_cdpkit,
    _git_revision,
    _probe,
    _run,
    _select,
)
from benchmarks.server import serve

DEFAULT_CASES = "import,roundtrip,snapshot,browse_tier1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, type=Path,
                        help="another checkout of cdpkit (a folder holding cdpkit/ and benchmarks/)")
    parser.add_argument("-n", "--reps", type=int, default=5, help="repetitions per side")
    parser.add_argument("--only", default=DEFAULT_CASES, help="comma-separated cases")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    before = args.before.resolve()
    if not (before / "cdpkit" / "__init__.py").is_file() or not (before / "benchmarks").is_dir():
        parser.error(f"--before {before}: no cdpkit/ and benchmarks/ there")
    _compile_cdpkit()  # both sides load bytecode, as an installed cdpkit does
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(before / "cdpkit")],
                   stdout=subprocess.DEVNULL, check=False)
    cases = _select([args.only])
    probe = _probe([need for case in cases for need in case.needs])
    flags = tuple(dict.fromkeys([*CHROME_FLAGS, *probe.get("flags", ())]))
    chrome = find_chrome()
    load_at_start = os.getloadavg()[0]
    rows = []
    with serve(FULL) as base_url:
        for case in cases:
            for transport in case.transports:
                ctx = Ctx(base_url=base_url, transport=transport, quick=False,
                          chrome=chrome, chrome_flags=flags,
                          deps=tuple(probe.get("deps", ())))
                values = _interleaved(case, ctx, args.reps, before)
                rows += [_row(case.name, metric.key, metric.label, transport, values)
                         for metric in case.metrics if metric.target is not None]
    text = _markdown(rows, args.reps, before, load_at_start)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "compare.md").write_text(text)
    print(text)
    return 0


def _interleaved(case: Any, ctx: Ctx, reps: int, before: Path) -> dict[str, list[dict[str, float]]]:
    """raw, after, before, raw, after, before...: each a fresh process."""
    runs: dict[str, list[dict[str, float]]] = {"raw": [], "after": [], "before": []}
    for rep in range(reps * case.repeat):
        for side, command, cwd in (
            ("raw", _command(case, "raw", ctx), ROOT),
            ("after", _command(case, "cdpkit", ctx), ROOT),
            ("before", _command(case, "cdpkit", ctx), before),
        ):
            try:
                metrics = json.loads(_run(command, case.timeout, cwd))["metrics"]
            except (MeasurementError, ValueError, KeyError) as error:
                raise SystemExit(f"[{case.name} {side} {rep + 1}] {error}") from None
            runs[side].append(metrics)
            print(f"[{case.name} {ctx.transport or '-'} {side} {rep + 1}] {metrics}", file=sys.stderr)
    return runs


def _row(case: str, key: str, label: str, transport: str,
         runs: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    series = {side: [run[key] for run in values if key in run] for side, values in runs.items()}

    def paired(top: str, bottom: str) -> float | None:
        ratios = [a / b for a, b in zip(series[top], series[bottom], strict=False) if b]
        return statistics.median(ratios) if ratios else None

    return {"case": case, "label": label, "transport": transport,
            "median": {side: statistics.median(v) if v else None for side, v in series.items()},
            "after/raw": paired("after", "raw"), "before/raw": paired("before", "raw"),
            "after/before": paired("after", "before")}


def _markdown(rows: list[dict[str, Any]], reps: int, before: Path, load: float) -> str:
    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:.3g}"

    lines = [
        "# cdpkit before / after",
        "",
        f"after: {_git_revision()} (this checkout); before: {_revision(before)}; {reps} "
        f"repetitions a side, interleaved; load at start {load:.1f}.",
        "",
        "| Figure | Transport | raw | before | after | before/raw | after/raw | after/before |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        median = row["median"]
        lines.append(
            f"| {row['label']} | {row['transport'] or '—'} | {number(median['raw'])} | "
            f"{number(median['before'])} | {number(median['after'])} | "
            f"{number(row['before/raw'])} | {number(row['after/raw'])} | "
            f"{number(row['after/before'])} |"
        )
    return "\n".join(lines) + "\n"


def _revision(checkout: Path) -> str:
    found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return found or str(checkout)


if __name__ == "__main__":
    raise SystemExit(main())
