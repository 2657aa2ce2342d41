"""Run the cases: each measurement in a fresh process, sides interleaved, then report.

For every case and transport, repetition after repetition, it runs raw, then cdpkit (then
Playwright when installed), each in a new Python process that launches its own Chrome. A side
that cannot run here (cdpkit API not written yet, Playwright missing) is reported with its
reason; a side that fails is reported with its error. No number is ever made up.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.cases import CASES
from benchmarks.cases.base import SIDES, Case, Ctx, Metric, Script
from benchmarks.common import CHROME_FLAGS, FULL, QUICK, Sizes, find_chrome
from benchmarks.server import serve

ROOT = Path(__file__).resolve().parent.parent

# Run in a bare interpreter: which modules `import cdpkit` and `cdpkit.launch` load besides
# cdpkit's own (the import baseline), and which parts of the API exist yet. json is imported after the diff on purpose.
_PROBE = """\
import sys
before = set(sys.modules)
try:
    import cdpkit
    cdpkit.launch  # cdpkit loads its parts on first use: what a program needs to launch
except Exception as exc:
    print('{"error": "import cdpkit failed: ' + type(exc).__name__ + '"}')
    raise SystemExit
deps = [m for m in list(sys.modules) if m not in before and m.split(".")[0] != "cdpkit"]
import json
from pathlib import Path

try:  # cdpkit's own Chrome flags, so that every client runs the same command line
    from cdpkit.launcher import build_args
    flags = [flag for flag in build_args(headless=True, user_data_dir=Path("x"), pipe=False)
             if flag.startswith("--") and not flag.startswith(("--user-data-dir", "--remote-"))]
except Exception:
    flags = []

def has(path):  # cdpkit, cdpkit.cdp and cdpkit.tools load what they offer on attribute access
    obj = cdpkit
    try:
        for part in path.split("."):
            obj = getattr(obj, part)
    except Exception:
        return False
    return True

print(json.dumps({"deps": deps, "flags": flags, "has": {path: has(path) for path in NEEDS}}))
"""


class MeasurementError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.list:
        for case in CASES.values():
            print(f"{case.name:18} {', '.join(m.label for m in case.metrics)}")
        return 0
    sizes = QUICK if args.quick else FULL
    reps = args.reps or (1 if args.quick else 5)
    chrome = find_chrome()
    cases = _select(args.only)
    _compile_cdpkit()
    probe = _probe([need for case in cases for need in case.needs])
    flags = tuple(dict.fromkeys([*CHROME_FLAGS, *probe.get("flags", ())]))
    sides = ["raw", "cdpkit"]
    if not args.no_playwright and importlib.util.find_spec("playwright") is not None:
        sides.append("playwright")

    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    load_at_start = os.getloadavg()
    rows = []
    with serve(sizes) as base_url:
        for case in cases:
            for transport in case.transports:
                if args.transport and transport not in (args.transport, ""):
                    continue
                ctx = Ctx(base_url=base_url, transport=transport, quick=args.quick,
                          chrome=chrome, chrome_flags=flags, deps=tuple(probe.get("deps", ())))
                load_before = os.getloadavg()[0]
                runs = _run_variant(case, ctx, sides, reps, probe)
                load = (load_before, os.getloadavg()[0])
                rows += [{**_row(case, metric, transport, runs, sizes), "load": load}
                         for metric in case.metrics]

    report = {
        "date": started,
        "machine": _machine(),
        "load_average": {"start": load_at_start, "end": os.getloadavg()},
        "chrome": _chrome_version(chrome),
        "chrome_path": chrome,
        "chrome_flags": flags,
        "python": platform.python_version(),
        "cdpkit": _git_revision(),
        "repetitions": reps,
        "quick": args.quick,
        "sizes": dataclasses.asdict(sizes),
        "sides": sides,
        "import_deps": probe.get("deps"),
        "notes": [note for case in cases for note in case.notes],
        "rows": rows,
    }
    markdown = render_markdown(report)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(markdown)
    (out / "latest.json").write_text(json.dumps(report, indent=2) + "\n")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    (out / f"{stamp}.json").write_text(json.dumps(report, indent=2) + "\n")
    print(markdown)
    return 0


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and 1 repetition: checks the suite runs, measures nothing")
    parser.add_argument("-n", "--reps", type=int,
                        help="repetitions per side (default 5, quick 1)")
    parser.add_argument("--only", action="append", default=[], metavar="CASE",
                        help="run only these cases (repeat or comma-separate; see --list)")
    parser.add_argument("--transport", choices=("port", "pipe"), help="run only this transport")
    parser.add_argument("--no-playwright", action="store_true",
                        help="leave out the Playwright column even if it is installed")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"),
                        help="folder for latest.md and latest.json")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    return parser.parse_args(argv)


def _compile_cdpkit() -> None:
    """Write cdpkit's bytecode, as installing it does (pip compiles what it installs).

    Without it, a checkout run with PYTHONDONTWRITEBYTECODE=1 compiles cdpkit from source
    in every fresh process, while its dependencies load their installed bytecode: that
    alone made ``import cdpkit`` 1.2-1.3x its dependencies instead of 1.05x here.
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "cdpkit")],
                   cwd=ROOT, stdout=subprocess.DEVNULL, check=False)


def _select(only: list[str]) -> list[Case]:
    names = [name for item in only for name in item.split(",") if name]
    unknown = [name for name in names if name not in CASES]
    if unknown:
        raise SystemExit(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    return [case for name, case in CASES.items() if not names or name in names]


def _probe(needs: list[str]) -> dict[str, Any]:
    needs = sorted(set(needs))
    try:
        probe: dict[str, Any] = json.loads(
            _run([sys.executable, "-c", _PROBE.replace("NEEDS", repr(needs))], 60))
    except MeasurementError as error:
        return {"error": f"probe failed: {error}"}
    return probe


def _run_variant(case: Case, ctx: Ctx, sides: list[str], reps: int,
                 probe: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Interleave the sides, one fresh process per measurement: raw, cdpkit, raw, cdpkit..."""
    runs: dict[str, dict[str, Any]] = {}
    for side in sides:
        # Playwright talks to Chrome over its own pipe, through its driver: port rows only.
        if side in case.sides and not (side == "playwright" and ctx.pipe):
            reason = _unavailable(case, side, probe)
            runs[side] = {"values": {}, "problem": reason and f"n/a ({reason})"}
    reps *= case.repeat
    for rep in range(reps):
        for side, run in runs.items():
            if run["problem"]:
                continue
            label = f"[{case.name} {ctx.transport or '-'} {side} {rep + 1}/{reps}]"
            try:
                metrics = json.loads(_run(_command(case, side, ctx), case.timeout))["metrics"]
            except (MeasurementError, ValueError, KeyError) as error:
                run["problem"] = f"error: {error}"
                print(f"{label} {run['problem']}", file=sys.stderr)
                continue
            for key, value in metrics.items():
                run["values"].setdefault(key, []).append(value)
            print(f"{label} {metrics}", file=sys.stderr)
    return runs


def _unavailable(case: Case, side: str, probe: dict[str, Any]) -> str | None:
    if side != "cdpkit":
        return None
    if "error" in probe:
        return str(probe["error"])
    missing = [need for need in case.needs if not probe["has"].get(need)]
    return f"cdpkit.{missing[0]} not available" if missing else None


def _command(case: Case, side: str, ctx: Ctx) -> list[str]:
    measure = case.sides[side]
    if isinstance(measure, Script):
        return [sys.executable, "-c", measure.source(ctx)]
    fields = dataclasses.asdict(ctx)
    fields["deps"] = []  # only the import scripts need it
    return [sys.executable, "-m", "benchmarks.worker", case.name, side, json.dumps(fields)]


def _run(command: list[str], timeout: float, cwd: Path = ROOT) -> str:
    """Run a child in its own process group; return the last line it printed. ``cwd`` is
    where ``cdpkit`` and ``benchmarks`` are imported from (another checkout: compare.py)."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # SIGINT first: the child's clients then close the Chrome they started.
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        raise MeasurementError(f"timed out after {timeout:g} s") from None
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines:
        last = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        raise MeasurementError(last[:200])
    return lines[-1]


def _stats(values: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}


def _row(case: Case, metric: Metric, transport: str, runs: dict[str, dict[str, Any]],
         sizes: Sizes) -> dict[str, Any]:
    row: dict[str, Any] = {"case": case.name, "metric": metric.key, "label": metric.label,
                           "transport": transport}
    for side in SIDES:
        run = runs.get(side)
        values = run and run["values"].get(metric.key)
        if run is None:
            row[side] = None
        elif run["problem"]:  # a failed repetition voids the others: no partial medians
            row[side] = {"problem": run["problem"], "values": values or []}
        elif values:
            row[side] = _stats(values)
        else:
            row[side] = {"problem": "no result"}
    raw, cdpkit = row["raw"], row["cdpkit"]
    row["ratios"] = _ratios(cdpkit, raw)
    row["playwright_ratios"] = _ratios(row["playwright"], raw)
    for key in ("ratio", "playwright_ratio"):
        ratios = row[key + "s"]
        row[key] = statistics.median(ratios) if ratios else None
    target = metric.target
    row["target"] = target.describe(sizes) if target else None
    verdict = None
    if target and cdpkit and "median" in cdpkit:
        verdict = target.check(row["ratio"], cdpkit["values"], sizes)
    row["result"] = ("—" if target is None else "n/a" if verdict is None
                     else "pass" if verdict else "FAIL")
    return row


def _ratios(side: dict[str, Any] | None, raw: dict[str, Any] | None) -> list[float] | None:
    """Each repetition against the raw one just before it: neighbours in time share the
    machine's load, so a busy spell moves both and not the ratio."""
    if side and raw and "median" in side and "median" in raw:
        return [value / base for value, base in zip(side["values"], raw["values"], strict=True)
                if base]
    return None


def render_markdown(report: dict[str, Any]) -> str:
    machine = report["machine"]
    playwright = "playwright" in report["sides"]
    header = ["Figure", "Transport", "n", "raw", "cdpkit", "cdpkit/raw", "spread", "load",
              "Target", "Result"]
    if playwright:
        header += ["Playwright", "Playwright/raw"]
    lines = [
        "# cdpkit benchmark",
        "",
        f"{report['date']} · {machine['cpu']}, {machine['cpus']} CPUs, "
        f"{machine['ram_gib']:.1f} GiB RAM, {machine['os']} · {report['chrome']} · "
        f"Python {report['python']} · cdpkit {report['cdpkit']} · load average "
        f"{report['load_average']['start'][0]:.2f} at start, "
        f"{report['load_average']['end'][0]:.2f} at end",
        "",
        f"Median (min-max) of {report['repetitions']} run(s) per side, each in a fresh "
        "process (import times: 4x as many); "
        "ratio = median (min-max) of each cdpkit run over the raw run just before it; "
        "n = runs per side; spread = (max - min) / median of the ratios (of cdpkit's "
        "figures on rows without a raw side); load = the machine's 1-minute load average "
        "before and after the row's runs." + (" Quick mode: tiny sizes, not a measurement."
                                              if report["quick"] else ""),
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    load = max(report["load_average"]["start"][0], report["load_average"]["end"][0])
    if load > machine["cpus"] / 2:
        lines[4:4] = [f"**The machine was busy** (load average {load:.1f} on {machine['cpus']} "
                      "CPUs): other work competed for the CPU, so these figures are noisy.", ""]
    for row in report["rows"]:
        cells = [row["label"], row["transport"] or "—", _n_cell(row), _cell(row["raw"]),
                 _cell(row["cdpkit"]), _ratio_cell(row["ratios"]), _spread_cell(row),
                 _load_cell(row.get("load")), row["target"] or "—",
                 "**FAIL**" if row["result"] == "FAIL" else row["result"]]
        if playwright:
            cells += [_cell(row["playwright"]), _ratio_cell(row["playwright_ratios"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "- Every client starts the same Chrome with the same flags (the suite's and "
              "cdpkit's defaults, `chrome_flags` in the JSON).",
              *(f"- {note}" for note in report["notes"]),
              *(["- Playwright: its Node driver talks to Chrome over its own pipe; shown on "
                 "the port rows."] if playwright else []), ""]
    return "\n".join(lines)


def _cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return "—"
    if "problem" in side:
        return str(side["problem"]).replace("|", "/")
    if side["min"] == side["max"]:
        return _number(side["median"])
    return f"{_number(side['median'])} ({_number(side['min'])}-{_number(side['max'])})"


def _n_cell(row: dict[str, Any]) -> str:
    counts = {len(side.get("values") or ()) for side in (row["raw"], row["cdpkit"]) if side}
    return "/".join(str(count) for count in sorted(counts)) or "—"


def _spread_cell(row: dict[str, Any]) -> str:
    """How far apart the repetitions were: (max - min) / median, in percent."""
    values = row["ratios"] or ((row["cdpkit"] or {}).get("values") if row["cdpkit"] else None)
    if not values or len(values) < 2:
        return "—"
    median = statistics.median(values)
    if not median:
        return "—"
    return f"{(max(values) - min(values)) / abs(median) * 100:.0f}%"


def _load_cell(load: tuple[float, float] | list[float] | None) -> str:
    if not load:
        return "—"
    return f"{load[0]:.1f}→{load[1]:.1f}"


def _ratio_cell(ratios: list[float] | None) -> str:
    if not ratios:
        return "—"
    median = _number(statistics.median(ratios), "x")
    if len(ratios) == 1:
        return median
    return f"{median} ({_number(min(ratios))}-{_number(max(ratios))})"


def _number(value: float | None, suffix: str = "") -> str:
    if value is None:
        return "—"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f}{suffix}"


def _machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    mem_kib = next((int(line.split()[1]) for line in _read("/proc/meminfo")
                    if line.startswith("MemTotal:")), 0)
    return {"cpu": cpu, "cpus": os.cpu_count(), "ram_gib": mem_kib / 2**20,
            "os": f"{platform.system()} {platform.release()}"}


def _read(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def _chrome_version(chrome: str) -> str:
    try:
        out = subprocess.run([chrome, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unknown Chrome ({error})"
    return out.strip() or "unknown Chrome"


def _git_revision() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()

    revision = git("rev-parse", "--short", "HEAD") or "unknown"
    return revision + (" + uncommitted changes" if git("status", "--porcelain") else "")
