"""The ``browse_tier1`` benchmark case runs end to end at tiny sizes: both sides measure,
and the browse side starts no Chrome. A smoke run only: no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import find_chrome

ROOT = Path(__file__).resolve().parent.parent


def test_browse_tier1_measures_both_sides_and_starts_no_chrome(tmp_path: Path) -> None:
    if not Path(find_chrome()).exists():
        pytest.skip("no Chromium to benchmark")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--quick",
            "--no-playwright",
            "--only",
            "browse_tier1",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {
        row["metric"]: row for row in json.loads((tmp_path / "latest.json").read_text())["rows"]
    }
    assert set(rows) == {"ms", "chars", "chrome_processes"}
    for row in rows.values():
        assert "median" in row["raw"] and "median" in row["cdpkit"], row
    assert rows["chrome_processes"]["raw"]["median"] == 1  # scrape needs its one browser
    assert rows["chrome_processes"]["cdpkit"]["max"] == 0  # tier 1 starts none
    assert rows["chrome_processes"]["result"] == "pass"
    # Both read the same article: browse's content is about as long as scrape's.
    assert rows["chars"]["cdpkit"]["min"] > 0.5 * rows["chars"]["raw"]["min"]
