"""``python -m benchmarks.quality`` runs and reports F1, tokens and times (on a tiny corpus
made here; the real one is ../shared/corpus/readability-dev)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import quality

ARTICLE = (
    "<p>"
    + " ".join(f"Sentence {i} about harbours, dredging and tides." for i in range(40))
    + "</p>"
)


def _corpus(root: Path) -> Path:
    for name in ("one", "two"):
        page = root / name
        page.mkdir()
        source = f"<html><head><title>{name}</title></head><body><nav><a href='/'>Home</a> <a href='/x'>Menu</a></nav><article><h1>{name}</h1>{ARTICLE}</article><footer>Copyright</footer></body></html>"
        (page / "source.html").write_text(source, encoding="utf-8")
        (page / "expected.html").write_text(f"<div>{ARTICLE}</div>", encoding="utf-8")
    return root


def test_f1_counts_shared_words() -> None:
    assert quality.f1(quality.words("a b c"), quality.words("A, b. C!")) == 1.0
    assert quality.f1(quality.words("a b"), quality.words("c d")) == 0.0
    assert quality.f1(quality.words("a b c d"), quality.words("a b")) == pytest.approx(2 / 3)


def test_the_script_reports_both_extractors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert quality.main(["--corpus", str(_corpus(tmp_path))]) == 0
    out = capsys.readouterr().out

    assert "pages: 2" in out
    assert "| cdpkit extract_html(readability=True, format='text') |" in out
    assert "| trafilatura.extract (defaults) |" in out
    assert "median tokens (chars/4)" in out

    assert quality.main(["--corpus", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["pages"] == 2 and data["summary"]["f1_mean"] > 0.9


def test_a_missing_corpus_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert quality.main(["--corpus", str(tmp_path / "absent")]) == 2
    assert "corpus not found" in capsys.readouterr().err
