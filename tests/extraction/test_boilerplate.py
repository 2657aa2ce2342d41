"""Main content (``readability=True``) keeps the article and leaves out what sits around
it: each rule on a small page of its own (issue #45). The pages are made here; none is a
copy of a real site."""

from __future__ import annotations

import json

from cdpkit._extraction import BrowseOptions, extract_html

_TIDE = (
    "The harbour authority dredged the channel again this spring, and the pilots say the tides"
    " now run faster past the northern breakwater than they did a decade ago."
)
_SALT = (
    "Fishermen working the outer banks report that the salt marsh has crept a few metres"
    " inland each year, swallowing the old sheep paths along the estuary."
)
_FIRST = f"<p>Opening: {_TIDE} {_TIDE}</p><p>Second: {_TIDE} {_SALT}</p>"
_SECOND = f"<p>Continuing: {_SALT} {_SALT}</p><p>Closing: {_SALT} {_TIDE}</p>"


def _page(body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>The channel is deeper now</title>{head}"
        "</head><body><header><a href='/'>Home</a> <a href='/news'>News</a></header>"
        f"{body}<footer>Copyright the Harbour Gazette</footer></body></html>"
    )


def _main(html: str, fmt: str = "text") -> str:
    options = BrowseOptions(readability=True, format=fmt)  # type: ignore[arg-type]
    return extract_html(html, "https://harbour.example/news/1", options).content


def test_a_caption_and_photo_credit_are_not_glued_to_the_paragraph() -> None:
    html = _page(
        "<main><article><h1>The channel is deeper now</h1>"
        f"<p>Lead: {_TIDE} {_SALT}</p>"
        "<figure><img src='/dredger.jpg' alt='A dredger'><figcaption>A dredger at work off the"
        " north pier.<span class='credit'>Photograph: Ann Example/Getty Images</span>"
        "</figcaption></figure>"
        f"{_FIRST}{_SECOND}</article></main>"
    )
    content = _main(html)
    assert "Getty Images" not in content
    assert "Photograph:" not in content
    # What the article says stays, each paragraph on its own.
    assert f"Lead: {_TIDE} {_SALT}\n" in content + "\n"
    assert "Closing:" in content


def test_an_article_split_by_a_newsletter_box_keeps_its_continuation() -> None:
    html = _page(
        "<main><article><h1>The channel is deeper now</h1>"
        f"<div class='article-body'>{_FIRST}</div>"
        "<div class='newsletter-signup'><h3>Get the morning briefing</h3><p>Sign up for our"
        " newsletter and get the day's news in your inbox.</p><form><input type='email'"
        " name='email'><button>Subscribe</button></form></div>"
        f"<div class='article-body'>{_SECOND}</div>"
        "</article></main>"
    )
    content = _main(html)
    assert "Opening:" in content and "Continuing:" in content and "Closing:" in content
    assert "briefing" not in content and "inbox" not in content


def test_a_related_stories_rail_after_the_article_is_left_out() -> None:
    teasers = "".join(
        f"<li><a href='/news/{n}'><h3>Story number {n} about the regatta</h3></a>"
        f"<p>A short teaser for story {n}, which tells of boats and of the weather at sea.</p></li>"
        for n in range(2, 6)
    )
    html = _page(
        f"<main><article><h1>The channel is deeper now</h1>{_FIRST}{_SECOND}"
        f"<div class='related-stories'><h2>You may also like</h2><ul>{teasers}</ul></div>"
        "</article></main>"
    )
    content = _main(html)
    assert "Closing:" in content
    assert "You may also like" not in content and "regatta" not in content


def test_share_row_author_bio_and_comment_count_are_left_out() -> None:
    html = _page(
        "<main><article><h1>The channel is deeper now</h1>"
        "<div class='share-buttons'><a href='https://x.example/share'>Share on X</a>"
        " <a href='mailto:?'>Email this story</a></div>"
        f"{_FIRST}{_SECOND}"
        "<div class='author-bio'><p>Ann Example has covered the waterfront for the Gazette"
        " since 2009 and lives on a houseboat with two cats and a heron.</p></div>"
        "<a class='comments-count' href='#comments'>42 comments</a>"
        "</article></main>"
    )
    content = _main(html)
    assert "Opening:" in content and "Closing:" in content
    for boilerplate in ("Share on X", "Email this story", "houseboat", "42 comments"):
        assert boilerplate not in content, boilerplate


def test_a_json_ld_article_body_is_the_content_when_the_html_has_none() -> None:
    body = f"{_TIDE}\n\n{_SALT}\n\n{_TIDE} {_SALT}"
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": "The channel is deeper now",
        "articleBody": body,
    }
    html = _page(
        "<div id='app'><p>Loading the story…</p></div>",
        head=f"<script type='application/ld+json'>{json.dumps(data)}</script>",
    )
    content = _main(html)
    assert _TIDE in content and _SALT in content
    assert "Loading the story" not in content


def test_an_itemprop_article_body_is_preferred_to_a_longer_rail_of_teasers() -> None:
    teasers = "".join(
        f"<div class='card'><p>Teaser {n}: {_SALT}</p></div>" for n in range(6)
    )
    html = _page(
        "<div class='layout'>"
        f"<div class='rail'>{teasers}</div>"
        f"<div itemprop='articleBody'><p>Body: {_TIDE} {_TIDE}</p><p>More: {_TIDE}</p></div>"
        "</div>"
    )
    content = _main(html)
    assert "Body:" in content and "More:" in content
    assert "Teaser" not in content
