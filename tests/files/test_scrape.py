"""scrape(): markdown, text, links, media short-circuit, smart wait."""

from __future__ import annotations

import pytest

import cdpkit
from cdpkit._extraction import says_title
from cdpkit.tools.scraping import scrape
from tests.server import FixtureServer, Handler, closed_port

ARTICLE = """<!doctype html><html><head><title>The Article</title>
<style>.x { color: red }</style><script>var tracking = 1;</script></head>
<body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<article>
  <h1>Main heading</h1>
  <p>First paragraph with <a href="/next?page=2">a relative link</a> and <b>bold</b>.</p>
  <h2>Section two</h2>
  <ul><li>apple</li><li>banana</li></ul>
  <img src="/img/cat.png" alt="a cat">
  <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
  <table><tr><th>Name</th><th>Qty</th></tr><tr><td>pear</td><td>3</td></tr></table>
  <pre><code>print("hello")</code></pre>
  <p>Same link again: <a href="/next?page=2">repeat</a>, and <a href="https://example.org/x#frag">external</a>.</p>
</article>
<aside>Related junk</aside>
<footer>Copyright footer</footer>
</body></html>"""

LATE_ARTICLE = """<!doctype html><title>Late</title><body><div id="root">Loading...</div>
<script>addEventListener('load', () => setTimeout(() => {
  document.getElementById('root').innerHTML =
    '<h1>Rendered late</h1><p>' + 'This text arrives after half a second. '.repeat(20) + '</p>';
}, 500));
</script></body>"""


@pytest.fixture
def site(server: FixtureServer) -> FixtureServer:
    server.route("/article", lambda h: h.reply(200, ARTICLE))
    server.route("/late", lambda h: h.reply(200, LATE_ARTICLE))
    return server


async def test_markdown_has_structure_absolute_urls_and_no_chrome(
    page: cdpkit.Page, site: FixtureServer
) -> None:
    result = await scrape(page, site.url("/article"))
    md = result.content
    assert result.format == "markdown" and result.status == 200 and result.title == "The Article"
    assert md is not None
    assert "# Main heading" in md and "## Section two" in md
    assert f"[a relative link]({site.url('/next?page=2')})" in md
    assert f"![a cat]({site.url('/img/cat.png')})" in md
    assert "- apple" in md and "- banana" in md
    assert "| Name | Qty |" in md and "| pear | 3 |" in md
    assert "```" in md and 'print("hello")' in md
    assert "**bold**" in md
    for stripped in ("tracking", "color: red", "Home", "Related junk", "Copyright footer", "data:image"):
        assert stripped not in md, stripped


async def test_text_and_links(page: cdpkit.Page, site: FixtureServer) -> None:
    text = await scrape(page, site.url("/article"), format="text")
    assert text.content is not None
    assert "First paragraph with a relative link and bold." in text.content
    assert "tracking" not in text.content
    links = await scrape(page, site.url("/article"), format="links")
    urls = [link.url for link in links.links]
    assert urls.count(site.url("/next?page=2")) == 1
    assert "https://example.org/x" in urls
    assert {link.text for link in links.links if link.url == site.url("/home")} == {"Home"}


async def test_selector_and_max_chars(page: cdpkit.Page, site: FixtureServer) -> None:
    result = await scrape(page, site.url("/article"), format="text", selector="table", max_chars=6)
    assert result.truncated
    assert result.content is not None and result.content.startswith("Name\tQ")
    assert "truncated: 6 of" in result.content
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found: #missing"):
        await scrape(page, site.url("/article"), selector="#missing")


async def test_smart_wait_gets_late_content_and_no_wait_does_not(
    page: cdpkit.Page, site: FixtureServer
) -> None:
    hurried = await scrape(page, site.url("/late"), format="text", wait_for_ms=0)
    assert hurried.content is not None and "Rendered late" not in hurried.content
    patient = await scrape(page, site.url("/late"), format="text")
    assert patient.content is not None and "Rendered late" in patient.content
    fixed = await scrape(page, site.url("/late"), format="text", wait_for_ms=900)
    assert fixed.content is not None and "Rendered late" in fixed.content


@pytest.mark.parametrize(
    ("path", "content_type", "disposition", "body"),
    [
        ("/m/photo", "image/png", None, b"\x89PNG\r\n\x1a\nfake"),
        ("/m/movie", "video/mp4", None, b"\x00\x00\x00\x18ftypmp42"),
        ("/m/song", "audio/mpeg", None, b"ID3\x03\x00"),
        ("/m/paper", "application/pdf", None, b"%PDF-1.7 fake"),
        ("/m/clip.webm", "application/octet-stream", None, b"\x1aE\xdf\xa3"),
        ("/m/export", "text/csv", 'attachment; filename="a.csv"', b"a,b\n1,2\n"),
    ],
)
async def test_direct_media_short_circuit(
    page: cdpkit.Page,
    server: FixtureServer,
    path: str,
    content_type: str,
    disposition: str | None,
    body: bytes,
) -> None:
    headers = {"Content-Disposition": disposition} if disposition else None

    def handler(h: Handler) -> None:
        h.reply(200, body, content_type, headers)

    server.route(path, handler)
    result = await scrape(page, server.url(path), format="markdown")
    assert result.format == "media"
    assert result.data == body
    expected = "video/webm" if path.endswith(".webm") else content_type
    assert result.mime_type == expected
    assert page.url != server.url(path)  # never navigated there


async def test_octet_stream_without_media_extension_is_not_media(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    server.route("/m/blob.dat", lambda h: h.reply(200, b"\x00\x01", "application/octet-stream"))
    with pytest.raises(cdpkit.NavigationError):  # Chrome downloads it instead of rendering
        await scrape(page, server.url("/m/blob.dat"))


async def test_unsupported_format_lists_supported_ones(page: cdpkit.Page, site: FixtureServer) -> None:
    with pytest.raises(ValueError, match="markdown, links, text, screenshot, fullscreenshot"):
        await scrape(page, site.url("/article"), format="html")  # type: ignore[arg-type]


async def test_navigation_failure_is_reported(page: cdpkit.Page) -> None:
    with pytest.raises(cdpkit.NavigationError, match="ERR_CONNECTION_REFUSED"):
        await scrape(page, f"http://127.0.0.1:{closed_port()}/")


async def test_screenshot_formats_return_png(page: cdpkit.Page, site: FixtureServer) -> None:
    shot = await scrape(page, site.url("/article"), format="fullscreenshot", wait_for_ms=0)
    assert shot.mime_type == "image/png" and shot.data is not None
    assert shot.data[:8] == b"\x89PNG\r\n\x1a\n"


# -- one extraction: scrape's markdown is browse's, read from the live DOM ------------------

_SENTENCE = (
    "The lock keepers of the upper canal open the gates at dawn, and the barges that waited"
    " overnight pass through in the order they arrived at the basin."
)
# The article's paragraphs are written by the page's script: a fetch of the HTML alone
# does not have them. Comments, a related-stories list and the page chrome are around it.
SCRIPTED_ARTICLE = f"""<!doctype html><html><head><title>Canal news</title></head><body>
<nav><a href="/">Home</a> <a href="/boats">Boats</a></nav>
<main><article id="story"><h1>Dawn at the upper lock</h1></article>
<section class="comments"><h3>3 comments</h3>
<div class="comment"><p>Great story, I remember the old keeper from when I was a child.</p></div>
<div class="comment"><p>Gates open far too late in winter if you ask me honestly.</p></div></section>
</main>
<footer>Copyright the Canal Gazette</footer>
<script>
const story = document.getElementById('story');
for (const n of [1, 2, 3, 4]) {{
  const p = document.createElement('p');
  p.textContent = 'Part ' + n + ': {_SENTENCE} {_SENTENCE}';
  story.appendChild(p);
}}
const link = document.createElement('p');
link.innerHTML = 'Read the <a href="/timetable">lock timetable</a> before you come.';
story.appendChild(link);
</script></body></html>"""


async def test_scrape_markdown_is_browse_main_content_of_the_live_dom(
    page: cdpkit.Page, browser: cdpkit.Browser, server: FixtureServer
) -> None:
    server.route("/scripted", lambda h: h.reply(200, SCRIPTED_ARTICLE))
    url = server.url("/scripted")
    scraped = await scrape(page, url)
    async with cdpkit.engine(browser=browser) as engine:
        browsed = await engine.browse(url, tier=3, readability=True)

    assert browsed.content  # the same rules, the same markdown writer, the same DOM
    # scrape puts the title on top unless the first heading says it (browse's rule): the
    # headline "Dawn at the upper lock" does not say "Canal news".
    assert not says_title(browsed.title, "Dawn at the upper lock")
    assert scraped.content == f"# {browsed.title}\n\n{browsed.content}\n"
    md = scraped.content
    assert "# Dawn at the upper lock" in md and "Part 4: The lock keepers" in md
    assert f"[lock timetable]({server.url('/timetable')})" in md
    for chrome in ("Home", "Boats", "Copyright", "Great story", "far too late"):
        assert chrome not in md, chrome


async def test_scrape_markdown_leaves_out_the_comments_the_article_is_followed_by(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    server.route("/scripted", lambda h: h.reply(200, SCRIPTED_ARTICLE))
    main = await scrape(page, server.url("/scripted"), wait_for_ms=0)
    # The title on top: the headline does not say it (browse's rule).
    assert main.content is not None and main.content.startswith("# Canal news\n\n# Dawn at the upper lock\n\nPart 1:")
    assert "Part 1:" in main.content and "3 comments" not in main.content
    whole = await scrape(page, server.url("/scripted"), wait_for_ms=0, keep_page_chrome=True)
    assert whole.content is not None
    for shown in ("[Home](", "Copyright the Canal Gazette", "Great story", "Part 4: The lock keepers"):
        assert shown in whole.content, shown


async def test_scrape_shows_forms_and_the_title_once_as_browse_does(page: cdpkit.Page, server: FixtureServer) -> None:
    from tests.browse.test_cli import SIGNUP_FORM

    scraped = await scrape(page, server.url("/browse/signup.html"))
    assert SIGNUP_FORM.format(origin=server.origin) in scraped.content
    assert scraped.content.startswith("# Create your account\n\nOne account")
    assert "Kettle Journal" not in scraped.content  # the h1 says the title: it is not repeated
    apple = await scrape(page, server.url("/browse/apple.html"))
    assert apple.content.startswith("# Apple\n\n# Apple pie recipes\n")
