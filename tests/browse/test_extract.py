"""The browse extraction pipeline on local fixture pages: structure, chrome, selectors,
main content, keywords, query ranking, formats, links, forms, media, metadata, the token
budget and the JavaScript-needed signal. Pure Python: no browser."""

from __future__ import annotations

import json
import math
import random
import re
import threading
from pathlib import Path

import pytest

from cdpkit._extraction import BrowseOptions, Extraction, extract_html, extract_text, says_title

FIXTURES = Path(__file__).parent.parent / "fixtures" / "browse"
ARTICLE_URL = "https://kettle.example/guides/brewing-tea"
NOISY_URL = "https://gazette.example/news/dredge"


def _article(**options: object) -> Extraction:
    html = (FIXTURES / "article.html").read_text(encoding="utf-8")
    return extract_html(html, ARTICLE_URL, BrowseOptions(**options))  # type: ignore[arg-type]


def _noisy(**options: object) -> Extraction:
    html = (FIXTURES / "noisy.html").read_text(encoding="utf-8")
    return extract_html(html, NOISY_URL, BrowseOptions(**options))  # type: ignore[arg-type]


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


# -- structure ---------------------------------------------------------------------------


def test_markdown_keeps_headings_tables_lists_code_quotes_and_inline_marks() -> None:
    content = _article().content

    assert content.startswith("# Brewing Tea at Home\n\nBy Ada Leaf")  # the h1, its anchor "¶" gone
    assert "\n## Steeping times\n" in content and "\n### Timer script\n" in content
    assert (
        "| Tea | Temperature | Minutes |\n| --- | --- | --- |\n| Green | 80 °C | 2 |\n| Black \\| Assam | 100 °C | 4 |"
    ) in content
    assert "- A kettle\n  - Electric, with a thermostat\n  - Stovetop\n- A [strainer]" in content
    assert "1. Boil\n2. Pour" in content
    assert (
        "```python\nimport time\n\ndef steep(minutes):\n    time.sleep(minutes * 60)  # wait\n```"
        in content
    )
    assert "> Tea is liquid wisdom." in content
    assert "Good tea needs **fresh water**, the *right temperature* and patience." in content


def test_urls_resolve_against_base_href_and_images_take_the_largest_srcset() -> None:
    result = _article()

    assert "[water guide](https://kettle.example/guides/water.html)" in result.content
    assert "![A blue teapot](https://kettle.example/guides/pot-1200.jpg)" in result.content
    assert [link.url for link in result.links] == [
        "https://kettle.example/guides/water.html",
        "https://kettle.example/shop/strainer",
    ]


def test_page_chrome_hidden_elements_and_scripts_are_left_out() -> None:
    content = _article().content

    for absent in (
        "Kettle Journal home",  # site header
        "Shop",  # nav
        "cookies",  # cookie banner
        "Coffee brewing",  # aside
        "©",  # footer
        "hidden",
        "Nor is this one visible",
        "Decorative duplicate",
        "Skip to the comments",  # class="sr-only"
        "Bootstrap keeps",  # class="d-none"
        "analytics",
        ".promo",
        "Search the journal",  # the site header's search form
    ):
        assert absent not in content, absent


def test_hidden_class_with_a_responsive_show_class_stays() -> None:
    assert "Shown on wide screens." in _article().content


def test_title_metadata_and_media() -> None:
    result = _article()

    assert result.title == "Brewing Tea at Home | The Kettle Journal"
    meta = result.metadata
    assert meta.description == "How to brew loose-leaf tea: water, time and leaves."
    assert meta.author == "Ada Leaf"  # from JSON-LD's @graph
    assert meta.published == "2024-03-01T09:00:00Z"
    assert meta.language == "en-GB"
    assert meta.canonical == "https://kettle.example/guides/brewing-tea"
    assert meta.site_name == "The Kettle Journal"
    kinds = [(item.kind, item.url, item.width, item.height) for item in result.media]
    assert kinds == [
        ("image", "https://kettle.example/guides/pot-1200.jpg", 600, 400),
        ("video", "https://kettle.example/media/pouring.mp4", 640, 360),
        ("image", "https://kettle.example/img/og-teapot.jpg", None, None),
    ]
    assert result.media[0].alt == "A blue teapot"


def test_title_falls_back_to_og_title_then_first_h1() -> None:
    og = '<html><head><meta property="og:title" content="From OG"></head><body><h1>Heading</h1></body></html>'
    bare = "<html><body><div><h1>Only a heading</h1><p>Text.</p></div></body></html>"

    assert extract_html(og, "https://a.example/", BrowseOptions()).title == "From OG"
    assert extract_html(bare, "https://a.example/", BrowseOptions()).title == "Only a heading"


def test_forms_have_absolute_action_method_and_labelled_fields() -> None:
    search, contact = _article().forms

    assert (search.action, search.method) == ("https://kettle.example/search", "GET")
    assert search.fields[0].label == "Search the journal"  # placeholder
    assert (contact.action, contact.method, contact.name) == (
        "https://kettle.example/contact",
        "POST",
        "contact",
    )
    fields = {field.name: field for field in contact.fields}
    assert (fields["email"].type, fields["email"].label, fields["email"].required) == (
        "email",
        "Your email",
        True,
    )
    assert (fields["topic"].label, fields["topic"].value, fields["topic"].options) == (
        "Topic",
        "black",
        ("green", "black"),
    )
    assert (fields["message"].type, fields["message"].value, fields["message"].label) == (
        "textarea",
        "Hello",
        "Message",
    )
    assert (fields["size"].type, fields["size"].value, fields["size"].options) == (
        "radio",
        "cup",
        ("cup", "pot"),
    )
    assert fields["token"].value == "abc123"


def test_a_form_without_action_submits_to_the_page_not_the_base() -> None:
    html = "<head><base href='https://cdn.example/x/'></head><form method='post'><input name='a'></form>"
    (form,) = extract_html(html, "https://site.example/page?id=1", BrowseOptions()).forms

    assert (form.action, form.method) == ("https://site.example/page?id=1", "POST")


# -- selectors -----------------------------------------------------------------------------


def test_selectors_keep_only_their_subtrees_in_document_order() -> None:
    # Given table first, h1 second: the content follows the page, not the option.
    content = _article(selectors=("table", "h1", "article h1")).content

    assert content.startswith("# Brewing Tea at Home\n\n| Tea | Temperature | Minutes |")
    assert content.count("Brewing Tea at Home") == 1  # matched twice, read once
    assert "Good tea needs" not in content and "Equipment" not in content


def test_selectors_matching_nothing_give_empty_content_and_say_so() -> None:
    result = _article(selectors=(".comments", "#reviews"))

    assert result.content == ""
    assert result.truncated
    assert result.truncation == [
        "no element matched the selectors ('.comments', '#reviews'): content left empty"
    ]


def test_selectors_can_choose_page_chrome() -> None:
    result = _article(selectors=("nav",))

    assert "[Guides](https://kettle.example/guides/)" in result.content
    assert "[Shop](https://kettle.example/shop/)" in result.content


def test_exclude_selectors_remove_subtrees() -> None:
    result = _article(exclude_selectors=("table", "pre"))

    assert "| Tea |" not in result.content and "import time" not in result.content
    assert "Steeping times" in result.content


def test_a_bad_selector_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"selectors: 'div\[\[' is not a valid CSS selector"):
        _article(selectors=("div[[",))


# -- main content --------------------------------------------------------------------------


def test_readability_keeps_the_article_and_drops_comments_sidebar_and_menus() -> None:
    whole = _noisy().content
    main = _noisy(readability=True)

    assert "zebra3" in whole and "lighthouse keepers" in whole  # the noise is on the page
    # The article's heading says its title: the result carries it, the content does not.
    assert "Port Wren votes to dredge its harbour" not in main.content
    assert "mooring fees" in main.content and "sandbar is worst" in main.content
    for noise in (
        "zebra",
        "lighthouse keepers",
        "sailboat",
        "ferry timetables",
        "Subscribe",
        "Copyright",
    ):
        assert noise not in main.content, noise
    assert main.title == "Port Wren votes to dredge its harbour - Wren Gazette"


def test_readability_output_keeps_what_the_page_says_about_links_code_lists_and_images() -> None:
    content = _article(readability=True).content

    # The title heading (in result.title), the byline and "¶" gone.
    assert content.startswith("Good tea needs")
    assert "[water guide](https://kettle.example/guides/water.html)" in content  # <base href>
    assert "![A blue teapot](https://kettle.example/guides/pot-1200.jpg)" in content  # srcset
    assert "```python\nimport time" in content
    assert "1. Boil\n2. Pour" in content
    assert "| Green | 80 °C | 2 |" in content
    assert "hidden" not in content


def test_readability_without_a_main_content_falls_back_to_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tiny = extract_html(
        "<html><body><p>Just one line.</p></body></html>",
        "https://t.example/",
        BrowseOptions(readability=True),
    )
    assert tiny.content == "Just one line."

    import trafilatura

    def broken(*args: object, **kwargs: object) -> str:
        raise RecursionError("a parser bug on an odd page")

    monkeypatch.setattr(trafilatura, "extract", broken)
    assert "Port Wren votes to dredge its harbour" in _noisy(readability=True).content


# Pages where trafilatura alone loses part of the article: the main content is the page's
# own blocks from the first sentence trafilatura kept to the last, with what lies between.
_TIDE = (
    "The harbour authority dredged the channel again this spring, and the pilots say the tides"
    " now run faster past the northern breakwater than they did a decade ago."
)
_MJX = (  # MathJax 3's rendering of R = 2a: glyphs drawn by CSS, the MathML for readers
    '<mjx-container class="MathJax" jax="CHTML"><mjx-math class="MJX-TEX" aria-hidden="true">'
    '<mjx-mi class="mjx-i"><mjx-c class="mjx-c1D445 TEX-I"></mjx-c></mjx-mi><mjx-mo class="mjx-n">'
    '<mjx-c class="mjx-c3D"></mjx-c></mjx-mo><mjx-mn class="mjx-n"><mjx-c class="mjx-c32"></mjx-c>'
    "</mjx-mn></mjx-math><mjx-assistive-mml display=\"inline\"><math><mi>R</mi><mo>=</mo><mn>2</mn>"
    "<mi>a</mi></math></mjx-assistive-mml></mjx-container>"
)


def _readable(body: str, title: str = "Harbour news") -> str:
    html = (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        "<header><a href='/'>Home</a> <a href='/news'>News</a></header>"
        f"<main><article><h1>The channel is deeper now</h1>{body}</article></main>"
        "<footer>Copyright the Harbour Gazette</footer></body></html>"
    )
    return extract_html(html, "https://harbour.example/news/1", BrowseOptions(readability=True)).content


def test_readability_keeps_a_paragraph_marked_as_a_share_block() -> None:
    content = _readable(
        f"<p>First: {_TIDE} {_TIDE}</p>"
        "<div class='social-share'><a href='https://facebook.com/share'>Share on Facebook</a>"
        " <a href='https://twitter.com/share'>Tweet</a></div>"
        f"<p class='share-intro'>Pilots who work the channel every week told us the same story. {_TIDE}</p>"
        f"<p>Second: {_TIDE} {_TIDE}</p>"
        "<div class='sharing'><button>Share</button><button>Email</button></div>"
        f"<p>Third: {_TIDE} {_TIDE}</p>"
    )
    assert "Pilots who work the channel every week told us the same story." in content
    assert "First:" in content and "Second:" in content and "Third:" in content
    for chrome in ("Share on Facebook", "Tweet", "Email", "Home", "Copyright"):
        assert chrome not in content, chrome


def test_readability_leaves_out_link_lists_between_the_articles_paragraphs() -> None:
    content = _readable(
        f"<p>First: {_TIDE} {_TIDE}</p>"
        "<div class='social-share'><a href='https://facebook.com/share'>Share on Facebook</a></div>"
        f"<p class='share-intro'>Pilots who work the channel every week told us the same story. {_TIDE}</p>"
        "<ul class='related'><li><a href='/a'>Ferry timetables change for the winter season</a></li>"
        "<li><a href='/b'>Lighthouse keepers remember the great storm of the old days</a></li></ul>"
        f"<p>Second: {_TIDE} {_TIDE}</p>"
    )
    assert "Pilots who work the channel" in content  # put back, between two paragraphs
    assert "Ferry timetables" not in content and "Lighthouse keepers" not in content


def test_readability_keeps_the_formulas_of_math_markup() -> None:
    content = _readable(
        f"<p>First: {_TIDE} {_TIDE}</p>"
        f"<p>The range follows {_MJX} where the amplitude depends on the basin and the tide.</p>"
        "<p>In display form: <math><mi>R</mi><mo>=</mo><mn>2</mn><mi>a</mi></math> holds for a"
        " closed basin with a resonance near the period of the forcing tide.</p>"
        f"<p>Second: {_TIDE} {_TIDE}</p>"
    )
    assert "The range follows R=2a where the amplitude depends" in content
    assert "In display form: R=2a holds for a closed basin" in content


def test_readability_keeps_a_repeated_paragraph_and_a_short_pages_structure() -> None:
    repeated = _readable(f"<div>Lorem: {_TIDE}</div><div>Lorem: {_TIDE}</div>")
    assert repeated.count("Lorem: The harbour authority") == 2

    short = _readable(
        "<p>Notes from the quay.</p><h2>Depths</h2><ul><li>Outer channel: 9 m</li>"
        "<li>Inner basin: 6 m</li></ul><table><tr><th>Berth</th><th>Depth</th></tr>"
        "<tr><td>North</td><td>7 m</td></tr></table>"
    )
    assert "## Depths" in short
    assert "- Outer channel: 9 m\n- Inner basin: 6 m" in short
    assert "| North | 7 m |" in short
    assert "Home" not in short and "Copyright" not in short


# -- keywords and query ----------------------------------------------------------------------


def test_keywords_any_keep_matching_blocks_with_their_headings() -> None:
    content = _article(keywords=("ASSAM", "thermostat")).content

    assert "Black \\| Assam" in content  # the table, case-insensitively
    assert "## Steeping times" in content  # the heading the table sits under
    assert "Electric, with a thermostat" in content and "## Equipment" in content
    assert "Good tea needs" not in content and "Tea is liquid wisdom" not in content


def test_keywords_match_whole_words_and_phrases_only() -> None:
    # "pot" is in "teapot"; "right temperature" is a phrase of one paragraph.
    assert "teapot" not in _article(keywords=("pot",), format="text").content
    content = _article(keywords=("Right  Temperature",), format="text").content
    assert "Good tea needs fresh water, the right temperature" in content
    assert "Steep green tea" not in content


def test_keywords_all_needs_every_keyword_in_one_block() -> None:
    both = _article(keywords=("tea", "patience"), keyword_mode="all", format="text").content
    either = _article(keywords=("tea", "patience"), keyword_mode="any", format="text").content

    assert "Good tea needs fresh water" in both  # has "tea" and "patience"
    assert "Steep green tea" not in both  # "tea" only
    assert "Good tea needs fresh water" in either and "Steep green tea" in either


def test_a_keyword_matching_nothing_gives_empty_content_and_says_so() -> None:
    result = _article(keywords=("espresso", "latte"))

    assert result.content == ""
    assert result.truncated
    assert result.truncation == [
        "no block matched the keywords (any of 'espresso', 'latte'): content left empty"
    ]
    assert result.title and result.links  # the rest of the page is still there


def test_a_keyword_matching_nothing_in_json_is_a_document_with_no_blocks() -> None:
    result = _article(keywords=("espresso",), format="json")
    data = json.loads(result.content)

    assert data["blocks"] == [] and data["title"] == "Brewing Tea at Home | The Kettle Journal"
    assert data["truncation"] == [
        "no block matched the keywords (any of 'espresso'): content left empty"
    ]
    assert result.truncation == data["truncation"]


def test_links_format_with_keywords_lists_the_links_of_the_kept_blocks() -> None:
    result = _article(keywords=("strainer",), format="links")

    assert result.content == "[2] strainer <https://kettle.example/shop/strainer>"


def test_query_puts_the_most_relevant_block_first() -> None:
    result = _noisy(
        readability=True, query="who pays: funding and mooring fees", format="text", semantic=False
    )
    blocks = result.content.split("\n\n")

    # The article's only heading is its title (result.title): no heading above the blocks.
    assert blocks[0].startswith("Funding comes from a mix of sources")
    assert blocks[-1].startswith(
        "Work is due to begin in May"
    )  # no query word: last, in page order


@pytest.mark.parametrize("semantic", [False, None])
def test_a_query_matching_nothing_keeps_document_order(semantic: bool | None) -> None:
    assert _article(query="xylophone quartz", semantic=semantic).content == _article().content


# -- formats and links ---------------------------------------------------------------------


def test_numbered_links_put_the_number_in_content_and_on_the_link() -> None:
    result = _article(link_style="numbered")

    assert "Read the water guide [1] first." in result.content
    assert "- A strainer [2]" in result.content
    assert [(link.number, link.text) for link in result.links] == [
        (1, "water guide"),
        (2, "strainer"),
    ]
    assert "[water guide](" not in result.content and "[strainer](" not in result.content


def test_link_style_none_keeps_only_the_words() -> None:
    content = _article(link_style="none").content

    assert "Read the water guide first." in content
    assert "kettle.example/guides/water.html" not in content


def test_links_format_is_one_line_per_link_deduplicated_by_url() -> None:
    html = (
        "<body><p><a href='/a'>First</a> <a href='/b'>Second</a> <a href='/a'>First again</a>"
        " <a href='#top'>Top</a> <a href='javascript:void(0)'>Script</a></p></body>"
    )
    result = extract_html(html, "https://links.example/page", BrowseOptions(format="links"))

    assert (
        result.content
        == "[1] First <https://links.example/a>\n[2] Second <https://links.example/b>"
    )
    assert len(result.links) == 2


def test_text_format_has_no_markdown() -> None:
    content = _article(format="text").content

    assert content.startswith("Brewing Tea at Home\n\nBy Ada Leaf")
    assert (
        "Good tea needs fresh water, the right temperature and patience. Read the water guide first."
        in content
    )
    for syntax in ("**", "](", "```", "## ", "| --- |"):
        assert syntax not in content, syntax
    assert "Tea | Temperature | Minutes" in content


def test_json_format_has_the_documented_shape() -> None:
    data = json.loads(_article(format="json").content)

    assert set(data) == {"title", "headings", "blocks", "links", "forms", "media", "metadata"}
    assert data["headings"][:2] == [
        {"level": 1, "text": "Brewing Tea at Home"},
        {"level": 2, "text": "Steeping times"},
    ]
    by_type = {}
    for block in data["blocks"]:
        by_type.setdefault(block["type"], block)  # the first of each type
    assert by_type["table"]["header"] == ["Tea", "Temperature", "Minutes"]
    assert by_type["table"]["rows"][0] == ["Green", "80 °C", "2"]
    assert by_type["code"]["language"] == "python"
    assert by_type["list"]["items"][0] == {
        "text": "A kettle",
        "items": [
            {"text": "Electric, with a thermostat", "items": []},
            {"text": "Stovetop", "items": []},
        ],
    }
    assert by_type["image"]["url"] == "https://kettle.example/guides/pot-1200.jpg"
    assert data["links"][0] == {
        "number": 1,
        "text": "water guide",
        "url": "https://kettle.example/guides/water.html",
    }
    assert data["forms"][1]["fields"][0]["label"] == "Your email"
    assert data["metadata"]["author"] == "Ada Leaf"


# -- token budget --------------------------------------------------------------------------


def test_budget_keeps_headings_and_first_blocks_and_says_what_was_cut() -> None:
    full = _article()
    result = _article(max_tokens=60)

    assert _tokens(result.content) <= 60 < _tokens(full.content)
    assert result.truncated
    assert result.content.endswith("cut to fit max_tokens=60]")
    # The title, the outline (outermost levels first), then the blocks in page order.
    assert result.content.startswith("# Brewing Tea at Home\n\nBy Ada Leaf, 1 March 2024\n\n")
    assert (
        "\n\n## Steeping times\n\n## Equipment\n\n### Timer script\n\n## Ask us\n\n"
        in result.content
    )
    assert "import time" not in result.content and "| Tea |" not in result.content
    assert any(
        re.fullmatch(r"cut \d+ blocks? \([\d,]+ tokens\) under 'Timer script'", note)
        for note in result.truncation
    )


def test_budget_cuts_by_query_rank() -> None:
    result = _noisy(readability=True, query="mooring fees funding", max_tokens=120, semantic=False)

    assert _tokens(result.content) <= 120
    assert "Funding comes from a mix of sources" in result.content
    assert "Harbour master Ines Calloway" not in result.content


def test_the_best_ranked_block_too_long_for_the_budget_is_cut_short_not_skipped() -> None:
    long = " ".join(["A kettle boils water; descale the kettle monthly."] * 40)
    html = (
        "<h1>Guide</h1><h2>Intro</h2><p>Short intro.</p>"
        f"<h2>Kettles</h2><p>{long}</p><h2>Other</h2><p>Cups and saucers.</p>"
    )
    result = extract_html(
        html, "https://g.example/", BrowseOptions(query="kettle", max_tokens=100, semantic=False)
    )

    assert _tokens(result.content) <= 100
    assert result.content.startswith("# Guide\n\n## Kettles\n\nA kettle boils water;")
    assert "\u2026\n\n" in result.content  # the cut paragraph ends with an ellipsis
    assert result.truncation[0] == "cut the block under 'Kettles' short to fit"


def test_a_budget_smaller_than_the_title_cuts_the_title_and_says_so() -> None:
    result = _article(
        max_tokens=3, selectors=("p",)
    )  # no h1: the content starts with the title line

    assert _tokens(result.content) <= 3
    assert result.content == "# Brewing\u2026"
    assert result.truncated
    assert result.truncation[0] == "cut the title to 10 characters: max_tokens=3 is smaller than it"


@pytest.mark.parametrize(
    ("budget", "content", "note"),
    [
        (3, "# Brewing\u2026", "cut the title to 10 characters: max_tokens=3 is smaller than it"),
        (12, "# Brewing Tea at Home", "kept only the title: max_tokens=12 leaves no room for more"),
    ],
)
def test_a_budget_smaller_than_the_h1_keeps_the_h1_as_the_title(
    budget: int, content: str, note: str
) -> None:
    result = _article(max_tokens=budget)  # the page's h1 is its title: it comes first

    assert (result.content, result.truncation[0]) == (content, note)


def test_a_tiny_budget_on_a_page_without_title_shows_the_beginning() -> None:
    result = extract_html(
        "<p>" + "word " * 100 + "</p>", "https://w.example/", BrowseOptions(max_tokens=3)
    )

    assert result.content == "word word\u2026"
    assert result.truncation == [
        "cut to the first 10 characters: max_tokens=3 leaves no room for more"
    ]


@pytest.mark.parametrize("fmt", ["markdown", "text", "json", "links"])
@pytest.mark.parametrize("budget", [1, 2, 7, 25, 90])
def test_every_format_stays_within_tiny_budgets(fmt: str, budget: int) -> None:
    full = _article(format=fmt, link_style="numbered")
    result = _article(format=fmt, max_tokens=budget, link_style="numbered")

    assert _tokens(result.content) <= budget
    assert result.truncated == (_tokens(full.content) > budget)
    if fmt == "json" and result.content:
        json.loads(result.content)


def _random_page(rng: random.Random) -> str:
    words = [
        "tea",
        "kettle",
        "water",
        "leaf",
        "cup",
        "brew",
        "steep",
        "pot",
        "green",
        "black",
        "Ōolong",
        "a|b",
    ]
    parts = [
        "<html><head><title>"
        + " ".join(rng.choices(words, k=rng.randint(0, 30)))
        + "</title></head><body>"
    ]
    for _ in range(rng.randint(0, 40)):
        kind = rng.choice(["h", "p", "p", "ul", "table", "pre", "a"])
        text = " ".join(rng.choices(words, k=rng.randint(1, 120)))
        if kind == "h":
            level = rng.randint(1, 4)
            parts.append(f"<h{level}>{text[:80]}</h{level}>")
        elif kind == "ul":
            parts.append(
                "<ul>"
                + "".join(f"<li>{w}<ul><li>{text[:30]}</li></ul></li>" for w in words[:4])
                + "</ul>"
            )
        elif kind == "table":
            parts.append(
                "<table><tr><th>a</th><th>b</th></tr>"
                + f"<tr><td>{text}</td><td>x</td></tr>" * 3
                + "</table>"
            )
        elif kind == "pre":
            parts.append(
                f"<pre><code class='language-py'>{text.replace(' ', chr(10))}</code></pre>"
            )
        elif kind == "a":
            parts.append(f"<p><a href='/{rng.randint(0, 9)}'>{text[:40]}</a> {text}</p>")
        else:
            parts.append(f"<p>{text}</p>")
    return "".join(parts) + "</body></html>"


def test_random_pages_stay_within_every_budget_in_every_format() -> None:
    rng = random.Random(20261124)
    for _ in range(150):
        html = _random_page(rng)
        options = BrowseOptions(
            format=rng.choice(["markdown", "text", "json", "links"]),
            max_tokens=rng.choice([1, 2, 3, 5, 10, 20, 40, 80, 150, 400]),
            query=rng.choice([None, "green tea", "kettle water"]),
            keywords=rng.choice([(), ("tea",), ("cup", "pot")]),
            keyword_mode=rng.choice(["any", "all"]),
            link_style=rng.choice(["inline", "numbered", "none"]),
            semantic=False,
        )
        result = extract_html(html, "https://r.example/", options)
        assert options.max_tokens is not None
        assert _tokens(result.content) <= options.max_tokens, (options, result.content)
        if result.truncated:
            assert result.truncation
        if options.format == "json" and result.content:
            json.loads(result.content)


def test_one_long_text_block_is_cut_short_rather_than_dropped() -> None:
    text = " ".join(f"word{i}" for i in range(3000))
    result = extract_text(text, "https://t.example/a.txt", BrowseOptions(max_tokens=100))

    assert _tokens(result.content) <= 100
    assert result.content.startswith("word0 word1 word2")
    assert "cut to fit max_tokens=100" in result.content


# -- text, PDF text, JSON --------------------------------------------------------------------


def test_text_paragraphs_become_blocks_for_keywords_and_budget() -> None:
    text = "First paragraph about kettles.\n\nSecond one, about teapots.\r\n\r\n\n Third: kettles again."
    result = extract_text(
        text, "https://t.example/a.txt", BrowseOptions(keywords=("kettles",)), title="Notes"
    )

    assert result.title == "Notes"
    # Plain text passes through: its paragraphs as written, no title line above them.
    assert result.content == "First paragraph about kettles.\n\nThird: kettles again."
    assert result.text_chars == len(
        "First paragraph about kettles. Second one, about teapots. Third: kettles again."
    )


def test_a_long_json_document_is_cut_short_with_a_marker() -> None:
    raw = json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(200)]})
    result = extract_text(
        raw, "https://t.example/a.json", BrowseOptions(max_tokens=60), mime_type="application/json"
    )

    assert _tokens(result.content) <= 60
    code, marker = result.content.rsplit("\n\n", 1)
    assert code.startswith('{\n  "items": [\n    {\n      "id": 0,')
    assert code.endswith("\n\u2026")
    assert re.fullmatch(
        r"\[\u2026 1 block cut short \([\d,]+ tokens\) cut to fit max_tokens=60\]", marker
    )
    assert result.truncation[0] == "cut the first block short to fit"


def test_undecodable_characters_never_reach_the_content() -> None:
    text = extract_text("a \udcff b", "https://t.example/a.txt", BrowseOptions()).content
    html = extract_html("<p>a \udcff b\x00c</p>", "https://t.example/", BrowseOptions()).content

    text.encode("utf-8")
    html.encode("utf-8")
    assert text == "a ? b"


def test_json_passes_through_pretty_printed_in_markdown_and_raw_in_text() -> None:
    raw = '{"name":"tea","sizes":[1,2]}'
    markdown = extract_text(
        raw, "https://t.example/a.json", BrowseOptions(), mime_type="application/json"
    )
    text = extract_text(
        raw, "https://t.example/a.json", BrowseOptions(format="text"), mime_type="application/json"
    )

    # No fence around it: the content parses as the JSON it is.
    assert markdown.content == '{\n  "name": "tea",\n  "sizes": [\n    1,\n    2\n  ]\n}'
    assert json.loads(markdown.content) == json.loads(raw)
    assert text.content == raw


# -- JavaScript needed -----------------------------------------------------------------------


def test_an_empty_app_root_needs_javascript() -> None:
    html = (
        "<html><head><title>App</title><script src='/static/app.js'></script></head>"
        "<body><div id='root'></div></body></html>"
    )
    result = extract_html(html, "https://app.example/", BrowseOptions())

    assert (
        result.javascript_needed
        == "empty app root <div id=root>: the content is rendered by JavaScript"
    )


def test_a_noscript_asking_for_javascript_needs_javascript() -> None:
    html = (
        "<html><head><title>Dashboard</title></head><body>"
        "<noscript>Please enable JavaScript to use this dashboard.</noscript>"
        "<div class='shell'><span>Loading…</span></div><script src='/bundle.js'></script></body></html>"
    )
    result = extract_html(html, "https://dash.example/", BrowseOptions())

    assert result.javascript_needed is not None
    assert "the page asks for JavaScript" in result.javascript_needed
    assert "Please enable JavaScript to use this dashboard." in result.javascript_needed


def test_next_data_without_text_and_script_heavy_pages_need_javascript() -> None:
    next_page = (
        "<html><body><div id='__next'><div><span>  </span></div></div>"
        "<script id='__NEXT_DATA__' type='application/json'>{\"props\":{}}</script></body></html>"
    )
    heavy = "<html><body><p>Hi</p><script>" + "var x = 1;" * 1000 + "</script></body></html>"

    assert "empty app root <div id=__next>" in (
        extract_html(next_page, "https://n.example/", BrowseOptions()).javascript_needed or ""
    )
    reason = extract_html(heavy, "https://h.example/", BrowseOptions()).javascript_needed
    assert reason is not None and reason.startswith(
        "only 2 characters of text in 9 KB of HTML, mostly scripts"
    )


def test_a_bot_challenge_page_needs_a_browser() -> None:
    html = (
        "<html><head><title>Just a moment...</title></head><body>"
        "<h1>shop.example</h1><p>Checking if the site connection is secure</p>"
        "<noscript>Enable JavaScript and cookies to continue</noscript>"
        "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1'></script></body></html>"
    )
    result = extract_html(html, "https://shop.example/", BrowseOptions())

    assert (
        result.javascript_needed
        == "a Cloudflare challenge page: a browser running its script gets past it"
    )


def test_static_articles_do_not_need_javascript() -> None:
    disqus = (
        (FIXTURES / "article.html")
        .read_text(encoding="utf-8")
        .replace(
            "</article>",
            "<noscript>Please enable JavaScript to view the comments powered by Disqus.</noscript>"
            "<div id='app'></div></article>",
        )
    )

    assert _article().javascript_needed is None
    assert _noisy().javascript_needed is None
    assert extract_html(disqus, ARTICLE_URL, BrowseOptions()).javascript_needed is None
    assert _article().text_chars > 500


# -- robustness ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "content"),
    [
        ("", ""),
        ("just words", "just words"),
        ("<p>a<p>b", "a\n\nb"),
        ("<table><tr><td>one</td></tr><tr><td>two</td></tr></table>", "one\n\ntwo"),  # layout
        ("<ul><li></li></ul><pre> </pre><h1></h1><p>only</p>", "only"),
        (
            "<table><tr><th>k</th><th>v</th></tr><tr><td>lead <p>para</p> tail</td><td>2</td></tr></table>",
            "| k | v |\n| --- | --- |\n| lead para tail | 2 |",
        ),
        ('<img srcset=",, ," alt="broken">', ""),
        (
            "<p># not a heading</p><p>- not a list<br>2. nor this</p><p>a - b</p>",
            "\\# not a heading\n\n\\- not a list  \n2\\. nor this\n\na - b",
        ),
        (
            '<img srcset="a.jpg 1x, b.jpg 2x" src="c.jpg" alt="sharp">',
            "![sharp](https://o.example/b.jpg)",
        ),
        (
            "<p>x<b> bold </b>y<a href='/l'><img src='i.png' alt='logo'></a></p>",
            "x **bold** y[![logo](https://o.example/i.png)](https://o.example/l)",
        ),
    ],
)
def test_odd_markup_gives_sensible_content(html: str, content: str) -> None:
    assert extract_html(html, "https://o.example/", BrowseOptions()).content == content


def test_headings_lose_their_permalink_but_not_their_words() -> None:
    html = "<h2>Learn C#</h2><h2>Intro <a href='#i'>#</a></h2><h2>Next ¶</h2><p>x</p>"

    assert (
        extract_html(html, "https://o.example/", BrowseOptions()).content
        == "## Learn C#\n\n## Intro\n\n## Next\n\nx"
    )


def test_a_link_around_blocks_is_kept_in_the_links_and_selected_links_are_read() -> None:
    html = "<a href='/card'><h3>Card title</h3><p>Card text</p></a><p><a class='dl' href='/f.zip'>Download</a></p>"
    card = extract_html(html, "https://o.example/", BrowseOptions())
    selected = extract_html(
        html, "https://o.example/", BrowseOptions(selectors=("a.dl",), format="links")
    )

    assert "### Card title\n\nCard text" in card.content
    assert card.links[0].url == "https://o.example/card"
    assert selected.content == "[1] Download <https://o.example/f.zip>"


def test_deeply_nested_markup_does_not_overflow_the_stack() -> None:
    html = "<body>" + "<div><span>" * 3000 + "deep words" + "</span></div>" * 3000 + "</body>"

    assert "deep words" in extract_html(html, "https://d.example/", BrowseOptions()).content


def test_threads_extracting_at_once_get_the_same_results() -> None:
    variants = [
        {"query": "harbour dredging", "max_tokens": 300, "semantic": False},
        {"readability": True, "format": "json"},
        {"keywords": ("mooring",), "link_style": "numbered"},
    ]
    expected = [_noisy(**options).content for options in variants]
    results: list[tuple[int, str]] = []

    def work(offset: int) -> None:
        for step in range(6):
            which = (offset + step) % len(variants)
            results.append((which, _noisy(**variants[which]).content))

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 24
    assert all(content == expected[which] for which, content in results)


# -- the corpus of real pages ----------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "readability-dev"


def _corpus_pages() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "source.html").is_file())


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
def test_max_tokens_500_holds_on_every_corpus_page_in_every_format() -> None:
    pages = _corpus_pages()
    assert len(pages) > 50
    over = []
    for page in pages:
        html = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        for options in (
            BrowseOptions(max_tokens=500, query="the main point of the article", semantic=False),
            BrowseOptions(max_tokens=500, readability=True, format="text", link_style="numbered"),
            BrowseOptions(max_tokens=500, format="json"),
            BrowseOptions(max_tokens=500, format="links"),
        ):
            result = extract_html(html, "http://fakehost/test/page.html", options)
            if _tokens(result.content) > 500 or (result.truncated and not result.truncation):
                over.append((page.name, options.format, _tokens(result.content)))
            if result.javascript_needed is not None:  # saved static pages: no false alarm
                over.append((page.name, "javascript_needed", result.javascript_needed))
            if options.format == "json":
                json.loads(result.content)
    assert over == []


# -- forms and the title line -----------------------------------------------------------------


def _markdown(html: str, **options: object) -> str:
    return extract_html(html, "https://shop.example/page", BrowseOptions(**options)).content  # type: ignore[arg-type]


def test_form_labels_fall_back_and_hidden_or_secret_values_stay_out() -> None:
    countries = "".join(f"<option>Country {n}</option>" for n in range(1, 30))
    content = _markdown(
        "<title>Order</title><h1>Order</h1><form action='buy'>"
        "<span id='qty-label'>Quantity</span><input name='qty' type='number' value='2' aria-labelledby='qty-label'>"
        "<input name='code' title='Discount code'><input name='pw' type='password' value='hunter2'>"
        "<input name='gone' style='display: none'><div hidden><input name='also-gone'></div>"
        f"<select name='country'>{countries}<option selected>Country 40</option></select>"
        "<select name='tags' multiple><option selected>red</option><option>blue</option></select>"
        "<input type='image' alt='Buy now' src='buy.png'></form>"
    )
    assert "**Form** (GET https://shop.example/buy)" in content
    assert "- Quantity: [2] (number)" in content
    assert "- Discount code: [____]" in content
    assert "hunter2" not in content and "- pw: [\u2022\u2022\u2022\u2022\u2022\u2022] (password)" in content
    assert "gone" not in content
    assert "( ) Country 12 (\u2022) Country 40 (+17 more)" in content  # a dozen, and the chosen one
    assert "- tags: [x] red [ ] blue" in content
    assert "- [Buy now]" in content


def test_forms_are_blocks_of_the_json_and_text_formats() -> None:
    html = "<title>Find</title><form action='/s'><input name='q' aria-label='Words' value='tea'><button>Go</button></form>"
    data = json.loads(_markdown(html, format="json"))
    [form] = [block for block in data["blocks"] if block["type"] == "form"]
    assert form == {
        "type": "form", "action": "https://shop.example/s", "method": "GET",
        "controls": [{"kind": "field", "label": "Words", "type": "text", "value": "tea"},
                     {"kind": "button", "label": "Go", "type": "submit"}],
    }  # fmt: skip
    assert "Form (GET https://shop.example/s)\n- Words: [tea]\n- [Go]" in _markdown(html, format="text")


@pytest.mark.parametrize(
    ("title", "heading", "said"),
    [
        ("Install guide", "install   GUIDE", True),
        ("Install guide - Docs", "Install guide", True),
        ("Docs | Install guide", "Install guide", True),
        ("Install \u2013 Part 2 \u2014 Docs", "Install \u2013 Part 2", True),
        ("Apple", "Apple pie", False),
        ("Python: a guide", "Python", False),
        ("Well-known names", "Well", False),
    ],
)
def test_says_title(title: str, heading: str, said: bool) -> None:
    assert says_title(title, heading) is said
    shown = _markdown(f"<title>{title}</title><h2>{heading}</h2><p>Text.</p>")
    assert shown.startswith(f"# {title}\n\n## ") is not said


def test_an_alt_text_that_says_nothing_of_its_image_is_not_in_the_content() -> None:
    # "Image 1", a file name, the page's title on every picture: none says what is shown
    # (Readability's text has no alt at all); an alt that describes the image stays, and
    # result.media keeps every alt as the page gave it.
    html = (
        "<title>How to read the tides - Harbour Gazette</title><h1>How to read the tides</h1>"
        "<p>Tide tables are printed every week.</p>"
        "<img src='/a.jpg' alt='Image 1'><img src='/b.jpg' alt='IMG_2041.JPG'>"
        "<img src='/c.jpg' alt='How to Read the Tides'><img src='/d.jpg' alt='An image'>"
        "<img src='/e.jpg' alt='The pilot boat at the northern breakwater'>"
    )
    for readability in (False, True):
        result = extract_html(html, "https://h.example/t", BrowseOptions(readability=readability))
        for name in "abcd":
            assert f"![](https://h.example/{name}.jpg)" in result.content, (readability, name)
        assert "![The pilot boat at the northern breakwater](https://h.example/e.jpg)" in result.content
        assert "Image 1" not in result.content and "IMG_2041" not in result.content
        assert [item.alt for item in result.media][:2] == ["Image 1", "IMG_2041.JPG"]
