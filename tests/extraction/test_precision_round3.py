"""Main content (``readability=True``), round 3 of issue #45: each rule on a small page of
its own, made here (none is a copy of a real site), in text and markdown alike."""

from __future__ import annotations

from ._harbour import FERRY, MILL, SALT, TIDE, main_content, page

_PARAGRAPHS = [f"{TIDE} {SALT}", f"{FERRY} {MILL}", f"{SALT} {FERRY}", f"{MILL} {TIDE}"]


def _contents(html: str) -> list[str]:
    return [main_content(html, fmt) for fmt in ("text", "markdown")]


def _article(paragraphs: list[str]) -> str:
    return "".join(f"<p>Paragraph {n}: {text}</p>" for n, text in enumerate(paragraphs))


def test_the_dateline_and_byline_above_the_first_sentence_are_left_out() -> None:
    # The page's metadata names the author; the date is a line of digits and a time.
    head = "<meta name='author' content='Ann Example'>"
    html = page(
        "<main><article><h1>The channel is deeper now</h1>"
        "<p>By Ann Example</p><p>Updated 12:24, 20.11.2019</p>"
        f"{_article(_PARAGRAPHS)}</article></main>",
        head,
    )
    for content in _contents(html):
        assert "Paragraph 0:" in content and "Paragraph 3:" in content
        assert "Ann Example" not in content and "12:24" not in content, content[:200]


def test_the_pages_own_address_printed_above_the_article_is_left_out() -> None:
    # Print styles show the page's address as a line of text above the article.
    address = "https://harbour.example/news/2019/11/the-channel-is-deeper-now-1484.php"
    html = page(
        "<main><article><h1>The channel is deeper now</h1>"
        f"<p>{address}</p>{_article(_PARAGRAPHS)}</article></main>"
    )
    for content in _contents(html):
        assert "Paragraph 0:" in content and "Paragraph 3:" in content
        assert "1484" not in content, content


def test_a_captions_credit_part_is_left_out_by_its_form() -> None:
    # The caption is a sentence, then the credit in an element of its own: a name and an
    # agency, not a sentence (no "Photo:" to recognise it by, no credit class).
    caption = (
        "<figure><img src='/quay.jpg' alt=''><figcaption><span>The mainland quay at low water"
        " on a winter morning.</span><span>Ann Example / Harbour Agency</span></figcaption>"
        "</figure>"
    )
    html = page(
        "<main><article><h1>The channel is deeper now</h1>"
        f"<p>Paragraph 0: {_PARAGRAPHS[0]}</p>{caption}{_article(_PARAGRAPHS[1:])}"
        "</article></main>"
    )
    for content in _contents(html):
        assert "Paragraph 0:" in content and "Paragraph 2:" in content
        assert "Harbour Agency" not in content, content


def test_a_box_closing_the_article_a_heading_over_short_lines_is_left_out() -> None:
    # A comments box: its heading and a line that is not a sentence, nothing else under it.
    box = "<h3>Tell us what you think</h3><p>Log in to comment</p>"
    html = page(
        f"<main><article><h1>The channel is deeper now</h1>{_article(_PARAGRAPHS)}{box}"
        "</article></main>"
    )
    for content in _contents(html):
        assert "Paragraph 3:" in content
        assert "Tell us what" not in content and "Log in" not in content, content


def test_an_article_ending_on_a_short_line_of_its_own_keeps_it() -> None:
    # No heading over it: the article's own closing line (a sign-off) stays.
    html = page(
        f"<main><article><h1>The channel is deeper now</h1>{_article(_PARAGRAPHS)}"
        "<p>From the quay at Saltmarsh Point</p></article></main>"
    )
    for content in _contents(html):
        assert "From the quay at Saltmarsh Point" in content, content
