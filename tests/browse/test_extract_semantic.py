"""Query ranking with all-MiniLM-L6-v2 embeddings (the optional extra ``semantic``): it
finds the block a query is about when they share no word, which BM25 cannot."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cdpkit._extraction import BrowseOptions, _semantic, extract_html

FIXTURES = Path(__file__).parent.parent / "fixtures" / "browse"
installed = pytest.mark.skipif(
    _semantic.model_files() is None,
    reason="the semantic extra is not installed: pip install -e '.[semantic]'",
)


def _noisy_blocks(query: str, semantic: bool | None) -> list[str]:
    html = (FIXTURES / "noisy.html").read_text(encoding="utf-8")
    options = BrowseOptions(readability=True, format="text", query=query, semantic=semantic)
    return extract_html(html, "https://gazette.example/news/dredge", options).content.split("\n\n")


@installed
@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("who is paying for it", "Funding comes from a mix of sources"),
        ("opposition from residents", "Not everyone is convinced."),
        ("schedule of the project", "Work is due to begin in May"),
    ],
)
def test_embeddings_find_the_block_a_query_is_about_without_shared_words(
    query: str, first: str
) -> None:
    ranked = _noisy_blocks(query, semantic=None)
    bm25_only = _noisy_blocks(query, semantic=False)

    # The article's heading is its title (result.title): the blocks come first.
    assert ranked[0].startswith(first)
    assert not bm25_only[0].startswith(first)  # no shared word: BM25 keeps the page order
    assert sorted(ranked) == sorted(bm25_only)  # reordered, nothing lost


@installed
def test_a_section_whose_heading_answers_the_query_wins_over_a_shared_common_word() -> None:
    html = (
        "<h1>Islands</h1><h2>History</h2>"
        "<p>People arrived by canoe; the people who came later were people from Europe.</p>"
        "<h2>Sports</h2><p>Rugby draws the largest crowds, then cricket and netball.</p>"
        "<h2>Cuisine</h2><p>Traditional dishes include roasted lamb, seafood and kumara.</p>"
    )
    options = BrowseOptions(format="text", query="what do people eat")
    ranked = extract_html(html, "https://i.example/", options).content.split("\n\n")
    bm25 = extract_html(html, "https://i.example/", replace(options, semantic=False)).content.split(
        "\n\n"
    )

    assert ranked[:3] == [
        "Islands",
        "Cuisine",
        "Traditional dishes include roasted lamb, seafood and kumara.",
    ]
    assert bm25[1:3] == [
        "History",
        "People arrived by canoe; the people who came later were people from Europe.",
    ]


@installed
def test_the_model_and_tokenizer_ship_in_installed_packages() -> None:
    files = _semantic.model_files()

    assert files is not None
    model, tokenizer = files
    assert model.name == "model.onnx" and model.stat().st_size > 20_000_000
    assert tokenizer.name == "tokenizer.json" and "site-packages" in str(tokenizer)


def test_semantic_true_without_the_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_semantic, "model_files", lambda: None)

    with pytest.raises(ValueError, match=r"pip install 'cdpkit-browser\[semantic\]'"):
        BrowseOptions(query="q", semantic=True).validate()
    BrowseOptions(query="q").validate()  # unset: BM25 alone, no error
