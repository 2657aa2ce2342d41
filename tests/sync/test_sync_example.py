"""examples/sync_scrape.py runs as a user runs it and prints what it says it does."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.test_examples import run_example


def test_sync_scrape(tmp_path: Path) -> None:
    out = run_example("sync_scrape.py", tmp_path)
    assert out.startswith(
        "Teapot     Price: 10 EUR\nKettle     Price: 17 EUR\nMug        Price: 24 EUR\n"
        "Strainer   Price: 31 EUR\nTin        Price: 38 EUR\nTray       Price: 45 EUR\n"
    )
    assert re.search(r"^Scraped 6 pages with 3 threads in \d+\.\d s$", out, re.M)
    assert "Typed send: EvaluateResult 'Teapot'\n" in out
    assert out.endswith("ElementNotFoundError: Element not found: #no-such-button\n")
