"""``BrowseResult.metadata`` (and ``Extraction.metadata``): the article's title, authors,
published date, language and site name where the page says them (issue #45)."""

from __future__ import annotations

import json

from cdpkit._extraction import BrowseOptions, extract_html

_ARTICLE = "<p>" + "The tide came in over the causeway before noon. " * 20 + "</p>"


def _metadata(head: str, body: str = "", lang: str = "") -> object:
    html = (
        f"<!doctype html><html{lang}><head><title>Causeway flooded | The Gazette</title>{head}"
        f"</head><body><article><h1>Causeway flooded</h1>{body}{_ARTICLE}</article></body></html>"
    )
    return extract_html(html, "https://gazette.example/a/1", BrowseOptions(readability=True)).metadata


def test_json_ld_gives_headline_every_author_date_and_publisher() -> None:
    data = {
        "@context": "https://schema.org",
        "@graph": [
            {
                "@type": "NewsArticle",
                "headline": "Causeway flooded at noon",
                "author": [{"@type": "Person", "name": "Ann Example"}, {"name": "Bo Sample"}],
                "datePublished": "2024-03-02T11:00:00Z",
                "publisher": {"@type": "Organization", "name": "The Gazette"},
                "inLanguage": "en-GB",
            }
        ],
    }
    meta = _metadata(f"<script type='application/ld+json'>{json.dumps(data)}</script>")
    assert meta.title == "Causeway flooded at noon"  # type: ignore[attr-defined]
    assert meta.authors == ("Ann Example", "Bo Sample")  # type: ignore[attr-defined]
    assert meta.author == "Ann Example, Bo Sample"  # type: ignore[attr-defined]
    assert meta.published == "2024-03-02T11:00:00Z"  # type: ignore[attr-defined]
    assert meta.site_name == "The Gazette"  # type: ignore[attr-defined]
    assert meta.language == "en-GB"  # type: ignore[attr-defined]


def test_open_graph_meta_and_time_when_there_is_no_json_ld() -> None:
    meta = _metadata(
        "<meta property='og:title' content='Causeway flooded'>"
        "<meta property='og:site_name' content='The Gazette'>"
        "<meta name='author' content='Ann Example'>",
        body="<p class='byline'>By <a rel='author' href='/ann'>Ann Example</a>, "
        "<time datetime='2024-03-02'>2 March</time></p>",
        lang=" lang='en'",
    )
    assert meta.title == "Causeway flooded"  # type: ignore[attr-defined]
    assert meta.authors == ("Ann Example",)  # type: ignore[attr-defined]
    assert meta.published == "2024-03-02"  # type: ignore[attr-defined]
    assert meta.site_name == "The Gazette"  # type: ignore[attr-defined]
    assert meta.language == "en"  # type: ignore[attr-defined]


def test_rel_author_links_name_the_authors_when_nothing_else_does() -> None:
    meta = _metadata(
        "",
        body="<p>By <a rel='author' href='/ann'>Ann Example</a> and "
        "<a rel='author' href='/bo'>Bo Sample</a></p>",
    )
    assert meta.authors == ("Ann Example", "Bo Sample")  # type: ignore[attr-defined]
    assert meta.title == "Causeway flooded"  # type: ignore[attr-defined]
