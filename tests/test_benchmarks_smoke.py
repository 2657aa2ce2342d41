"""The benchmark suite runs end to end at tiny sizes and reports a table with ratios.

A smoke run only: it checks the report's shape, never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.common import find_chrome

ROOT = Path(__file__).resolve().parent.parent
CASES = ("import", "launch", "roundtrip", "console")
Report = tuple[str, dict[str, Any]]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    if not Path(find_chrome()).exists():
        pytest.skip("no Chromium to benchmark")
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--no-playwright",
         "--only", ",".join(CASES), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "latest.md").read_text() in proc.stdout
    return proc.stdout, json.loads((out / "latest.json").read_text())


def test_table_has_a_row_per_figure_and_transport(report: Report) -> None:
    markdown, data = report
    header = "| Figure | Transport | n | raw | cdpkit | cdpkit/raw | spread | load | Target | Result |"
    assert header in markdown
    rows = {(row["case"], row["metric"], row["transport"]) for row in data["rows"]}
    launch = {("launch", metric, transport) for transport in ("port", "pipe")
              for metric in ("ms", "spawn_ms", "endpoint_ms", "answer_ms", "cpu_ms")}
    console = {("console", metric, transport) for transport in ("port", "pipe")
               for metric in ("ms", "received", "cpu_ms")}
    assert rows == {("import", "ms", ""), *launch, *console,
                    ("roundtrip", "us", "port"), ("roundtrip", "us", "pipe"),
                    ("roundtrip", "cpu_us", "port"), ("roundtrip", "cpu_us", "pipe")}
    assert data["chrome"] and data["machine"]["cpus"] and data["python"]
    # Each row says how many runs it has and the machine's load around them.
    for row in data["rows"]:
        assert len(row["load"]) == 2 and all(load >= 0 for load in row["load"]), row


def test_raw_side_measures_every_case(report: Report) -> None:
    _, data = report
    for row in data["rows"]:
        assert "median" in row["raw"], row
    received = next(row for row in data["rows"] if row["metric"] == "received")
    assert received["raw"]["min"] == data["sizes"]["console_messages"]


def test_cdpkit_cells_hold_a_ratio_or_say_why_not(report: Report) -> None:
    markdown, data = report
    import_row = next(row for row in data["rows"] if row["case"] == "import")
    assert import_row["ratio"] > 0 and f"{import_row['ratio']:.2f}x" in markdown
    for row in data["rows"]:
        if "median" in row["cdpkit"]:
            assert row["ratio"] > 0 and row["result"] in ("pass", "FAIL", "—")
        else:
            assert row["cdpkit"]["problem"].startswith(("n/a (", "error: "))
            assert row["ratio"] is None
