"""The smart wait (wait_for_content, and scrape by default): it waits for content that
arrives late, and no longer than that: a network that never goes idle, a slow image or a
hanging request do not hold it once the content is quiet."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

import pytest

import cdpkit
from cdpkit import tools
from cdpkit.tools import SmartWait
from tests.server import FixtureServer, Handler

# The text is in place at load; then the page polls the server every 200 ms for ever
# (never reading the answers: Chrome then reports none of them finished), and one request
# hangs: the network is never idle.
BUSY_NETWORK = """<!doctype html><title>Busy</title><body>
<h1>Live scores</h1><p>{text}</p>
<script>
setInterval(() => fetch('/wait/poll').catch(() => {{}}), 200);
fetch('/wait/hang').catch(() => {{}});
</script></body>"""

PLACEHOLDER_THEN_TEXT = """<!doctype html><title>Late</title><body><div id="root">Loading...</div>
<script>setTimeout(() => {
  document.getElementById('root').innerHTML =
    '<h1>Rendered late</h1><p>' + 'This text arrives 1.5 s after the page. '.repeat(10) + '</p>';
}, 1500);</script></body>"""

# Content appended in five steps 350 ms apart, after a first paragraph shown at once.
IN_STEPS = """<!doctype html><title>Steps</title><body><h1>Feed</h1><p>First item, shown at once.</p>
<script>let step = 0;
const timer = setInterval(() => {
  step += 1;
  const p = document.createElement('p');
  p.textContent = 'Step ' + step + ' of the feed, appended later.';
  document.body.appendChild(p);
  if (step === 5) clearInterval(timer);
}, 350);</script></body>"""

# Busy for 1.2 s (aria-busy on the list, with some text already there), then filled.
ARIA_BUSY = """<!doctype html><title>Busy list</title><body><h1>Orders</h1>
<ul id="list" aria-busy="true"><li>Fetching your orders</li></ul>
<script>setTimeout(() => {
  const list = document.getElementById('list');
  list.innerHTML = '<li>Order 1001: two lamps</li><li>Order 1002: one chair</li>';
  list.removeAttribute('aria-busy');
}, 1200);</script></body>"""

# Text on the page at once; more arrives with a request sent after the load event that
# takes 0.8 s (nothing on the page says it is loading, only the request in flight).
SLOW_REQUEST = """<!doctype html><title>Shop</title><body><h1>Shop</h1><ul id="items"></ul>
<script>addEventListener('load', () => setTimeout(() => {
  fetch('/slow?s=0.8').then(r => r.text()).then(() => {
    document.getElementById('items').innerHTML = '<li>Items arrived with the slow request</li>';
  });
}, 100));</script></body>"""

# Moves to /wait/late 300 ms after loading, while the wait runs.
REDIRECTS = """<!doctype html><title>Moving</title><body><p>Moving to the new page...</p>
<script>setTimeout(() => { location.href = '/wait/late'; }, 300);</script></body>"""

# A clock: its text changes every 100 ms and never grows.
CLOCK = """<!doctype html><title>Clock</title><body><h1>Clock</h1><p id="t">0</p>
<p>Some article text that does not change while the clock ticks.</p>
<script>let n = 0; setInterval(() => { document.getElementById('t').textContent = String(++n % 10); }, 100);</script>
</body>"""

# A page that adds a paragraph every 100 ms for ever.
NEVER_DONE = """<!doctype html><title>Endless</title><body><h1>Endless</h1>
<script>setInterval(() => {
  const p = document.createElement('p');
  p.textContent = 'Another paragraph of an endless stream of text.';
  document.body.appendChild(p);
}, 100);</script></body>"""

# Its text is there at once; an image never finishes loading, so neither does the page.
SLOW_IMAGE = """<!doctype html><title>Gallery</title><body><h1>Gallery</h1>
<p>The text of the gallery page, readable long before its image loads.</p>
<img src="/wait/hang-image" alt="a picture"></body>"""

FILLER = "The match report is written and will not change. " * 8


@pytest.fixture
def wait_server(server: FixtureServer) -> Iterator[FixtureServer]:
    released = threading.Event()

    def hang(handler: Handler) -> None:
        released.wait(30)  # until the test ends
        with contextlib.suppress(OSError):  # the page went away
            handler.reply(200, "late", "text/plain")

    def hang_image(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        try:
            handler.wfile.write(b"\x89PNG\r\n\x1a\n")
            handler.wfile.flush()
        except OSError:
            return
        released.wait(30)

    pages = {
        "/wait/busy-network": BUSY_NETWORK.format(text=FILLER),
        "/wait/late": PLACEHOLDER_THEN_TEXT,
        "/wait/steps": IN_STEPS,
        "/wait/aria-busy": ARIA_BUSY,
        "/wait/slow-request": SLOW_REQUEST,
        "/wait/redirects": REDIRECTS,
        "/wait/clock": CLOCK,
        "/wait/never-done": NEVER_DONE,
        "/wait/slow-image": SLOW_IMAGE,
    }
    for path, body in pages.items():
        server.route(path, lambda h, body=body: h.reply(200, body))
    server.route("/wait/poll", lambda h: h.reply(200, "{}", "application/json"))
    server.route("/wait/hang", hang)
    server.route("/wait/hang-image", hang_image)
    try:
        yield server
    finally:
        released.set()


async def _text(page: cdpkit.Page) -> str:
    return str(await tools.evaluate(page, "document.body.innerText"))


async def test_late_text_behind_a_placeholder_is_waited_for(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    await tools.navigate(page, wait_server.url("/wait/late"))
    assert await tools.wait_for_content(page) is True
    assert "This text arrives 1.5 s after the page." in await _text(page)

    scraped = await tools.scrape(page, wait_server.url("/wait/late"))
    assert scraped.content is not None and "# Rendered late" in scraped.content


async def test_content_appended_in_steps_is_all_there(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    scraped = await tools.scrape(page, wait_server.url("/wait/steps"), format="text")
    assert scraped.content is not None
    for step in range(1, 6):
        assert f"Step {step} of the feed" in scraped.content, scraped.content


async def test_aria_busy_is_waited_out(page: cdpkit.Page, wait_server: FixtureServer) -> None:
    scraped = await tools.scrape(page, wait_server.url("/wait/aria-busy"), format="text")
    assert scraped.content is not None
    assert "Order 1002: one chair" in scraped.content
    assert "Fetching your orders" not in scraped.content


async def test_content_a_slow_request_brings_is_waited_for(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    # The page has text from the start: only the request in flight says more is coming.
    scraped = await tools.scrape(page, wait_server.url("/wait/slow-request"), format="text")
    assert scraped.content is not None and "Items arrived with the slow request" in scraped.content


async def test_a_network_that_never_goes_idle_does_not_hold_the_wait(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    settings = SmartWait(max_wait=40)
    await tools.navigate(page, wait_server.url("/wait/busy-network"))
    started = time.monotonic()
    assert await tools.wait_for_content(page, settings=settings) is True
    waited = time.monotonic() - started
    # The text was final at load: the quiet time ends it (requests add at most 1 s), far
    # before max_wait; waiting for the network to go idle first took 3.75 s and more.
    assert waited < 25, waited  # the quiet time (True above), not max_wait's 40 s

    started = time.monotonic()
    scraped = await tools.scrape(page, wait_server.url("/wait/busy-network"), smart_wait=settings)
    assert time.monotonic() - started < 25  # not max_wait's 40 s
    assert scraped.content is not None and FILLER.split(".")[0] in scraped.content


async def test_a_slow_image_does_not_hold_the_scrape(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    # The load event never comes (the image never finishes): the text is what counts.
    started = time.monotonic()
    scraped = await tools.scrape(page, wait_server.url("/wait/slow-image"), timeout=40)
    assert time.monotonic() - started < 25  # the text, not the 40 s timeout
    assert scraped.title == "Gallery"
    assert scraped.content is not None and "readable long before its image loads" in scraped.content


async def test_a_navigation_during_the_wait_waits_for_the_new_page(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    await tools.navigate(page, wait_server.url("/wait/redirects"))
    assert await tools.wait_for_content(page) is True
    assert page.url == wait_server.url("/wait/late")
    assert "This text arrives 1.5 s after the page." in await _text(page)

    scraped = await tools.scrape(page, wait_server.url("/wait/redirects"), format="text")
    assert scraped.content is not None and "This text arrives 1.5 s after the page." in scraped.content


async def test_a_page_that_keeps_ticking_settles_and_an_endless_one_gives_up(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    await tools.navigate(page, wait_server.url("/wait/clock"))
    started = time.monotonic()
    assert await tools.wait_for_content(page, settings=SmartWait(max_wait=40)) is True
    assert time.monotonic() - started < 25  # its text's length holds still, long before max_wait

    await tools.navigate(page, wait_server.url("/wait/never-done"))
    started = time.monotonic()
    assert await tools.wait_for_content(page, settings=SmartWait(max_wait=1.5)) is False
    assert time.monotonic() - started < 1.5 + 8  # bounds a hang


async def test_a_document_without_a_body_settles_on_its_text(
    page: cdpkit.Page, wait_server: FixtureServer
) -> None:
    # Chrome shows XML in an HTML viewer, but an SVG document has no body.
    drawing = "<svg xmlns='http://www.w3.org/2000/svg'><text x='10' y='20'>A chart title</text></svg>"
    wait_server.route("/wait/chart.svg", lambda h: h.reply(200, drawing, "image/svg+xml"))
    await tools.navigate(page, wait_server.url("/wait/chart.svg"))
    assert await tools.evaluate(page, "document.body") is None
    started = time.monotonic()
    settings = SmartWait(max_wait=40, empty_wait=20)
    assert await tools.wait_for_content(page, settings=settings) is True
    # Its text is there: the quick window, not the long one of a page with no text yet.
    assert time.monotonic() - started < settings.empty_wait


async def test_a_page_closed_during_the_wait_says_so_at_once(
    context: cdpkit.BrowserContext, wait_server: FixtureServer
) -> None:
    page = await context.new_page()
    await tools.navigate(page, wait_server.url("/wait/never-done"))
    waiting = asyncio.create_task(tools.wait_for_content(page, settings=SmartWait(max_wait=40)))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    await page.close()
    with pytest.raises(cdpkit.TargetClosedError):
        await waiting
    assert time.monotonic() - started < 20  # not max_wait (40 s) later
