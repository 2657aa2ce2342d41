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


def test_the_script_reports_every_extractor_per_half(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = str(_corpus(tmp_path))
    assert quality.main(["--corpus", corpus, "--no-aeb", "--no-trafilatura-eval", "--worst"]) == 0
    out = capsys.readouterr().out

    assert "pages: 2" in out
    assert "tune half: 1 pages" in out and "held-out half: 1 pages" in out
    assert "article-extraction-benchmark" not in out and "trafilatura-eval" not in out
    assert out.count("worst pages of") == 3
    for label in (
        "cdpkit browse(readability=True), markdown",
        "cdpkit browse(readability=True), text",
        "cdpkit browse() default, markdown",
        "trafilatura.extract (defaults)",
        "readability-lxml + markdownify",
    ):
        assert out.count(f"| {label} |") == 3, label  # each half, and all pages
    assert "| precision | recall | F1 mean | F1 median | median tokens |" in out

    assert quality.main([*("--corpus", corpus, "--json", "--no-aeb", "--no-trafilatura-eval")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["summary"]["pages"] == 2 and data["summary"]["held-out"]["f1_readability_mean"] > 0.9
    )
    assert {row["half"] for row in data["pages"]} == {"tune", "held-out"}


def test_one_scoring_gives_precision_recall_and_f1() -> None:
    precision, recall, f1 = quality.score(quality.words("a b c d"), quality.words("a b"))
    assert (precision, recall) == (0.5, 1.0) and f1 == pytest.approx(2 / 3)


def test_the_held_out_set_ships_with_the_repository() -> None:
    listed = list(quality.aeb_pages(quality.AEB))
    assert len(listed) == 120 and {page.group for page in listed} == {"aeb"}
    assert all(page.expected.strip() and "<" in page.html for page in listed)


def test_the_snippet_set_ships_with_the_repository() -> None:
    listed = list(quality.trafilatura_eval_pages(quality.TRAFILATURA_EVAL))
    assert len(listed) == 120 and {page.group for page in listed} == {"trafilatura-eval"}
    assert all(page.must and page.must_not and "<" in page.html for page in listed)


def test_snippets_score_kept_article_and_kept_boilerplate() -> None:
    must, must_not = ("The tide, rose!", "dredging began"), ("Share this", "Impressum")
    assert quality.snippet_score("**the tide** rose. [Dredging](/x) began", must, must_not) == (
        1.0,
        1.0,
        1.0,
    )
    precision, recall, f1 = quality.snippet_score("the tide rose. Share this", must, must_not)
    assert (precision, recall) == (0.5, 0.5) and f1 == pytest.approx(0.5)
    assert quality.snippet_score("tide rose", must, must_not)[1] == 0.0  # all its words, in order
    # Some of the set's snippets begin or end inside a word.
    assert quality.snippet_score("Angaben gemäß § 5", ("ngaben gemäß",), ())[1] == 1.0


def test_the_split_is_decided_by_the_folder_name_alone() -> None:
    assert quality.half("one") == "tune" and quality.half("two") == "held-out"
    assert {quality.half(name) for name in ("one", "two", "three", "four")} == {"tune", "held-out"}


def test_link_urls_are_no_words() -> None:
    assert quality.words(
        "see [the docs](https://x.org/a_(b)) and ![a map](m.png)"
    ) == quality.words("see the docs and a map")


def test_a_missing_corpus_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert quality.main(["--corpus", str(tmp_path / "absent")]) == 2
    assert "corpus not found" in capsys.readouterr().err
