"""Main content (``readability=True``), round 2 of issue #45: each rule on a small page of
its own, made here (none is a copy of a real site)."""

from __future__ import annotations

from ._harbour import FERRY, MILL, SALT, TIDE, main_content, page


def test_an_article_split_into_two_containers_by_an_ad_row_is_kept_whole() -> None:
    first = "".join(f"<p>Part one, paragraph {n}: {TIDE} {SALT}</p>" for n in range(6))
    # The article goes on in other words after the interruption.
    second = "".join(f"<p>Part two, paragraph {n}: {FERRY} {MILL}</p>" for n in range(6))
    popular = "".join(
        f"<li><a href='/news/{n}'>Most read story number {n} of the week</a></li>" for n in range(8)
    )
    html = page(
        "<main><h1>The channel is deeper now</h1>"
        f"<div class='grid'><div class='grid-item body article__body'>{first}</div>"
        f"<div class='grid-aside'><ol>{popular}</ol></div></div>"
        "<div class='row full-bleed'><span>Advertisement</span><div class='slot'></div></div>"
        f"<div class='grid'><div class='grid-item body article__body'>{second}</div></div>"
        "</main>"
    )
    for fmt in ("text", "markdown"):
        content = main_content(html, fmt)
        assert "Part one, paragraph 0:" in content and "Part one, paragraph 5:" in content
        assert "Part two, paragraph 0:" in content and "Part two, paragraph 5:" in content, fmt
        assert "Most read story" not in content


def test_teaser_cards_after_the_article_are_left_out() -> None:
    # Each card is one link wrapping a picture, a heading and a line: a story elsewhere. The
    # rail lists this story too, under the article's own heading.
    heading = "Pilots say the tides run faster past the northern breakwater now"
    cards = "".join(
        f"<article class='item'><a href='/news/{n}'><img src='/t{n}.jpg' alt=''>"
        f"<h4>{heading if n == 8 else f'Story {n}: gulls return to the lighthouse'}</h4>"
        f"<p>Wardens counted {n} hundred nesting pairs on the rocks, more than in any summer"
        " since the keepers left the island for good.</p></a></article>"
        for n in range(2, 9)
    )
    article = "".join(f"<p>Paragraph {n}: {TIDE} {SALT}</p>" for n in range(5))
    html = page(
        f"<div class='row'><article class='content'><h1>{heading}</h1>{article}"
        f"</article></div><div class='row'><section class='component'>{cards}</section></div>"
    )
    for fmt in ("text", "markdown"):
        content = main_content(html, fmt)
        assert "Paragraph 0:" in content and "Paragraph 4:" in content
        assert "gulls" not in content and "Wardens" not in content, fmt


def test_a_list_of_links_ending_the_article_and_its_intro_line_are_left_out() -> None:
    stories = "".join(
        f"<li><a href='/news/{n}'>Gulls return to the lighthouse for summer number {n}</a></li>"
        for n in range(6)
    )
    article = "".join(f"<p>Paragraph {n}: {TIDE} {SALT}</p>" for n in range(4))
    html = page(
        f"<main><article><h1>The channel is deeper now</h1>{article}"
        f"<p>Paragraph 4: {FERRY} {MILL}</p>"
        f"<p><strong>Read on: the Gazette's waterfront desk picks</strong></p><ul>{stories}</ul>"
        "</article></main>"
    )
    for fmt in ("text", "markdown"):
        content = main_content(html, fmt)
        assert "Paragraph 0:" in content and "Paragraph 4:" in content
        assert "Gulls return" not in content and "desk picks" not in content, fmt


def test_a_list_of_links_that_is_much_of_the_page_stays() -> None:
    # A page of references: the list is what the page says.
    sources = "".join(
        f"<li><a href='/paper/{n}'>Survey of tidal currents, volume {n}</a></li>" for n in range(40)
    )
    html = page(
        f"<main><article><h1>The channel is deeper now</h1><p>{TIDE} {SALT}</p>"
        f"<h2>Sources</h2><ul>{sources}</ul></article></main>"
    )
    content = main_content(html)
    assert "volume 0" in content and "volume 39" in content


def test_agency_photo_captions_and_credit_lines_outside_figcaption_are_left_out() -> None:
    html = page(
        "<main><article><h1>The channel is deeper now</h1>"
        f"<p>Paragraph 0: {TIDE} {SALT}</p>"
        "<div class='photo'><img src='/dredger.jpg' alt=''>"
        "<div class='caption'>A dredger works off the north pier on Tuesday, May 5, 2026."
        " (AP Photo/Ann Example)</div>"
        "<div class='caption-2'>Photo: Ann Example, STF / Associated Press</div></div>"
        f"<p>Paragraph 1: {FERRY} {MILL}</p><p>Paragraph 2: {SALT} {FERRY}</p>"
        "<div class='photo'><img src='/gulls.jpg' alt=''><span>Gulls nest on the old"
        " lighthouse (Image: GETTY)</span></div>"
        f"<p>Paragraph 3: {MILL} {TIDE}</p></article></main>"
    )
    for fmt in ("text", "markdown"):
        content = main_content(html, fmt)
        assert "Paragraph 0:" in content and "Paragraph 3:" in content
        for credit in ("AP Photo", "Associated Press", "GETTY", "A dredger works"):
            assert credit not in content, (fmt, credit)
