"""Main content (``readability=True``) on small pages built to show one rule each: what
stands with the article however short (formulas, figure captions), what stays out however
it is matched (a chart's labels), and where the article ends (a module beyond the links)."""

from __future__ import annotations

from cdpkit._extraction import BrowseOptions, extract_html

_TIDE = (
    "The harbour authority dredged the channel again this spring, and the pilots say the tides"
    " now run faster past the northern breakwater than they did a decade ago."
)
_ARTICLE = f"<p>First: {_TIDE} {_TIDE}</p><p>Second: {_TIDE} {_TIDE}</p><p>Third: {_TIDE}</p>"


def _main(body: str) -> str:
    html = f"<!doctype html><html><head><title>Harbour news</title></head><body>{body}</body></html>"
    return extract_html(html, "https://harbour.example/news/1", BrowseOptions(readability=True)).content


def _in_article(body: str) -> str:
    return _main(
        "<header><a href='/'>Home</a> <a href='/news'>News</a></header>"
        f"<main><article><h1>The channel is deeper now</h1>{body}</article></main>"
        "<footer>Copyright the Harbour Gazette</footer>"
    )


def _mathjax2(mathml: str, rendered: str, number: int) -> str:
    """A display formula as MathJax 2 leaves it in the page: the glyphs (hidden from
    readers), the MathML for them, and the TeX source in a script."""
    return (
        f'<div class="MathJax_Display"><span class="MathJax" id="MathJax-Element-{number}-Frame"'
        ' role="presentation"><nobr aria-hidden="true"><span class="math"><span class="mrow">'
        f'{rendered}</span></span></nobr><span class="MJX_Assistive_MathML MJX_Assistive_MathML_Block"'
        f' role="presentation"><math display="block">{mathml}</math></span></span></div>'
        f'<script type="math/tex; mode=display" id="MathJax-Element-{number}">R = 2a</script>'
    )


def test_display_formulas_stay_between_the_paragraphs_they_belong_to() -> None:
    formula = "<mi>R</mi><mo>=</mo><mn>2</mn><mi>a</mi>"
    glyphs = '<span class="mi">R</span><span class="mo">=</span><span class="mn">2</span>'
    content = _in_article(
        f"<p>First: {_TIDE} {_TIDE} The range of the tide is</p>"
        + _mathjax2(formula, glyphs, 1)
        + f"<p>where a is the amplitude. Second: {_TIDE}</p>"
        + "<p>In a closed basin the same holds:</p>"
        + "<p><math display='block'><mi>T</mi><mo>=</mo><mn>4</mn><mi>L</mi></math></p>"
        + f"<p>Third: {_TIDE} {_TIDE}</p>"
    )

    assert "The range of the tide is\n\nR=2a\n\nwhere a is the amplitude." in content
    assert "\n\nT=4L\n\n" in content
    assert "R=2R" not in content  # the glyphs are not read besides the MathML
    assert "$$" not in content  # nor the TeX MathJax drew them from


def test_formulas_no_script_drew_are_shown_as_tex() -> None:
    # Markdown blogs leave MathJax's input in the page: a browse without JavaScript gets it.
    body = (
        f"<p>First: {_TIDE} {_TIDE}</p>"
        f"<p>The range <script type='math/tex'>R_0 < 2a</script> grows with the basin. {_TIDE}</p>"
        "<script type='math/tex; mode=display'>\\sum_i h_i = H</script>"
        f"<p>Second: {_TIDE} {_TIDE}</p><p>Third: {_TIDE}</p>"
    )
    for content in (_in_article(body), extract_html(body, "https://h.example/", BrowseOptions()).content):
        assert "The range $R_0 < 2a$ grows with the basin." in content
        assert "\n\n$$\\sum_i h_i = H$$\n\nSecond:" in content


def test_a_figure_keeps_its_short_caption() -> None:
    content = _in_article(
        f"<p>First: {_TIDE} {_TIDE}</p>"
        "<figure><img src='/img/quay.jpg' alt='The quay'>"
        "<figcaption class='credit'>Ann Pilot/Gazette</figcaption></figure>"
        f"<p>Second: {_TIDE} {_TIDE}</p><p>Third: {_TIDE}</p>"
    )

    assert "![The quay](https://harbour.example/img/quay.jpg)\n\nAnn Pilot/Gazette\n\nSecond:" in content


def test_a_charts_labels_stay_out_though_the_article_says_their_words() -> None:
    # Labels drawn over a chart's image: trafilatura leaves them out, but "billion" and
    # "300" are found in the article's sentences.
    labels = "".join(
        f"<div class='chart-overlay'><p>{label}</p></div>" for label in ("billion", "$900", "300", "0")
    )
    content = _in_article(
        f"<p>The port will spend $900 billion over 300 months, the authority says. {_TIDE}</p>"
        f"<figure><img src='/chart.png' alt='Spending by year'>{labels}</figure>"
        f"<p>Second: {_TIDE} {_TIDE}</p><p>Third: {_TIDE}</p>"
    )

    assert "The port will spend $900 billion" in content and "Third:" in content
    for label in ("\nbillion\n", "\n300\n", "\n0\n"):
        assert label not in content


def test_a_module_beyond_a_run_of_links_is_not_part_of_the_article() -> None:
    stories = "".join(
        f"<li><a href='/s/{i}'>Storm season story number {i} from the harbour desk</a></li>"
        for i in range(14)
    )
    content = _main(
        "<div id='page'><div class='col'><h1>The channel is deeper now</h1>"
        f"{_ARTICLE}<div class='more'><h3>More from the quay</h3><ul>{stories}</ul></div></div>"
        "<div class='col2'><h3>Today at the Gazette</h3><p>Our app is temporarily unavailable"
        " here. Please try again later tonight.</p></div></div><div>Copyright the Gazette</div>"
    )

    assert "Third: The harbour authority" in content
    assert "Today at the Gazette" not in content and "temporarily unavailable" not in content
    assert "Storm season story" not in content


def test_the_heading_that_says_the_title_is_left_to_the_title() -> None:
    html = (
        "<html><head><title>The channel is deeper now | Harbour Gazette</title></head><body>"
        f"<article><h1>The channel is deeper now</h1><p>First: {_TIDE} {_TIDE}</p>"
        f"<h2>What the pilots say</h2><p>Second: {_TIDE} {_TIDE}</p></article></body></html>"
    )
    result = extract_html(html, "https://harbour.example/news/1", BrowseOptions(readability=True))

    assert result.title == "The channel is deeper now | Harbour Gazette"
    assert result.content.startswith("First: The harbour authority")
    assert "## What the pilots say\n\nSecond:" in result.content
    whole_page = extract_html(html, "https://harbour.example/news/1", BrowseOptions()).content
    assert whole_page.startswith("# The channel is deeper now")  # the page as it is: kept


def test_a_lead_paragraph_above_a_long_list_of_stories_stays() -> None:
    stories = "".join(
        f"<li><a href='/s/{i}'>Story {i} on the history of the northern breakwater</a></li>"
        for i in range(14)
    )
    sections = "".join(
        f"<h2 id='s{i}'>Section {i}</h2><p>{_TIDE} {_TIDE} {_TIDE}</p><p>{_TIDE} {_TIDE}</p>"
        for i in range(14)
    )
    content = _in_article(
        f"<p>Lead: the channel is the town's lifeline. {_TIDE} {_TIDE}</p>"
        f"<div class='more'><ul>{stories}</ul></div>{sections}"
    )

    assert "Lead: the channel is the town's lifeline." in content
    assert "## Section 13" in content


def _katex(mathml: str, tex: str) -> str:
    """A formula as KaTeX writes it: MathML with its TeX as an annotation, then the glyphs
    (hidden from readers)."""
    return (
        '<span class="katex"><span class="katex-mathml"><math><semantics><mrow>'
        f'{mathml}</mrow><annotation encoding="application/x-tex">{tex}</annotation>'
        '</semantics></math></span><span class="katex-html" aria-hidden="true">'
        '<span class="mord mathnormal">R</span></span></span>'
    )


def test_a_katex_formula_is_read_once() -> None:
    body = (
        f"<p>First: {_TIDE} {_TIDE} The range is</p>"
        f"<p><span class='katex-display'>{_katex('<mi>R</mi><mo>=</mo><mn>2</mn><mi>a</mi>', 'R=2a')}"
        f"</span></p><p>where {_katex('<mi>a</mi>', 'a')} is the amplitude. {_TIDE}</p>"
        f"<p>Third: {_TIDE} {_TIDE}</p>"
    )
    for content in (_in_article(body), extract_html(body, "https://h.example/", BrowseOptions()).content):
        assert "The range is\n\nR=2a\n\nwhere a is the amplitude." in content


def test_the_title_line_and_the_main_content_agree_on_which_heading_says_the_title() -> None:
    # One rule (says_title) for both: a heading with the title's words (punctuation aside)
    # says it, once in the markdown and left to the title in the main content; a heading
    # holding only part of the title ("Deeper channel") is the article's own.
    for title, heading, said in (
        ("Deeper channel, faster tides!", "Deeper channel: faster tides", True),
        ("Deeper channel: faster tides", "Deeper channel", False),
    ):
        html = (
            f"<html><head><title>{title}</title></head><body>"
            f"<article><h1>{heading}</h1><p>First: {_TIDE} {_TIDE}</p>"
            f"<h2>What the pilots say</h2><p>Second: {_TIDE} {_TIDE}</p></article></body></html>"
        )
        url = "https://harbour.example/news/1"
        main = extract_html(html, url, BrowseOptions(readability=True)).content
        whole_page = extract_html(html, url, BrowseOptions()).content
        assert main.startswith("First: The harbour") is said, (title, heading)
        assert whole_page.startswith(f"# {title}\n\n# {heading}\n\n") is not said, (title, heading)
        assert whole_page.count(f"# {heading}\n") == 1


def test_a_section_heading_between_the_articles_paragraphs_stays() -> None:
    # trafilatura drops the heading with its wrapper (a class it reads as a bar): the
    # paragraph under it is the article's, so the heading over it is too.
    content = _in_article(
        f"<p>First: {_TIDE} {_TIDE}</p>"
        "<div class='headline-bar'><h2>Where the pilots stand</h2></div>"
        f"<p>Second: {_TIDE} {_TIDE}</p><p>Third: {_TIDE}</p>"
    )

    assert "decade ago.\n\n## Where the pilots stand\n\nSecond: The harbour" in content


_SHARE_BAR = (
    "<div class='share-buttons'><ul>"
    + "".join(
        f"<li><a class='share-{n.lower()}' href='https://{n.lower()}.example/share?u=1'>{n}</a></li>"
        for n in ("Facebook", "Twitter", "LinkedIn", "Reddit", "Email")
    )
    + "</ul></div>"
)
_SENTENCES = (
    "Pilots bring the ferries in at dawn when the water is slack",
    "The lock keepers open both gates for the spring tides",
    "Dredgers work the outer bend through the winter months",
    "Fishing boats wait in the basin until the bar is passed",
    "A new beacon marks the sandbank off the northern breakwater",
    "The old quay wall was rebuilt in stone after the great storm",
)


def test_share_bars_and_formula_markup_never_lose_the_article() -> None:
    # The article in a wrapper whose class trafilatura discards ("share-"), a share bar
    # after each paragraph, MathJax 2 and KaTeX formulas inside every sentence, reader
    # comments below: every paragraph stays (formulas read once), no share button does.
    paragraphs = "".join(
        f"<p>{sentence}, and the range {_mathjax2('<mi>R</mi>', '<span>R</span>', n)} "
        f"grows as {_katex('<mi>h</mi>', 'h')} does: {_TIDE}</p>{_SHARE_BAR}"
        for n, sentence in enumerate(_SENTENCES)
    )
    html = (
        "<!doctype html><html><head><title>Harbour news</title></head><body>"
        "<div class='top'><a href='/'>Home</a> <a href='/news'>News</a></div>"
        f"<div class='entry share-enabled'><h1>The channel is deeper now</h1>{paragraphs}</div>"
        "<div id='comments'><p>Reader: I still remember when the old ferry ran twice a day"
        " and nobody minded the wait at all.</p></div></body></html>"
    )
    content = extract_html(html, "https://harbour.example/news/1", BrowseOptions(readability=True)).content

    for sentence in _SENTENCES:
        assert f"{sentence}, and the range" in content, sentence
    assert content.count("grows as h does") == len(_SENTENCES)
    assert content.count("the range\n\nR\n\ngrows") == len(_SENTENCES)  # MathJax's glyphs not read
    assert "old ferry" not in content
    for button in ("Facebook", "Twitter", "LinkedIn", "Reddit", "Email"):
        assert button not in content
