"""Pages for the snapshot's lifecycle tests (library and MCP): a page with one button
whose handler records each press in the page, served on both fixture servers so that a
tab can hop between four origins on two sites (127.0.0.1 and localhost, two ports each),
and a page holding such a page in an iframe.

The hop page may be kept by the back/forward cache (it is not ``no-store``), so going
back can restore a document instead of loading it again.
"""

from __future__ import annotations

import html
import json
import urllib.parse

from tests.server import FixtureServer, Handler

HOP = "/life/hop"
FRAMES = "/life/frames"

# One press of the button adds "pressed <title>;" to #log; in a frame it also tells the
# page around it (any origin), which adds the same to its own #log.
_RECORD = (
    "var line = 'pressed ' + document.title + ';';"
    "document.getElementById('log').textContent += line;"
    "if (parent !== window) parent.postMessage(line, '*');"
)


def hop_page(title: str, *, decoy: bool = False) -> str:
    """A page titled ``title`` with a button ``Press <title>`` recording its presses in
    ``#log``; ``decoy``: another button first, recording "decoy" (what a wrongly resolved
    index would press)."""
    title = html.escape(title)
    first = (
        "<button onclick=\"document.getElementById('log').textContent += 'decoy;'\">"
        "Decoy</button>"
        if decoy
        else ""
    )
    return (
        f"<!doctype html><title>{title}</title><h1>Hop {title}</h1>"
        f"<section id='panel' aria-label='Panel {title}'>{first}"
        f"<button id='press' onclick=\"{_RECORD}\">Press {title}</button></section>"
        "<p id='log'></p>"
    )


def hop_url(server: FixtureServer, host: str, title: str, *, decoy: bool = False) -> str:
    """The hop page titled ``title`` on ``server``'s port, reached as ``host``."""
    query = urllib.parse.urlencode({"t": title, **({"decoy": "1"} if decoy else {})})
    return f"http://{host}:{server.server_address[1]}{HOP}?{query}"


def data_url(title: str) -> str:
    return "data:text/html," + urllib.parse.quote(hop_page(title))


# Writes a hop page over the current document (document.open/write/close).
def write_page_js(title: str) -> str:
    return (
        f"document.open(); document.write({json.dumps(hop_page(title))}); document.close();"
        f" document.title"
    )


# Puts a hop page's content into an empty document (about:blank).
def fill_blank_js(title: str) -> str:
    return (
        f"document.title = {json.dumps(title)};"
        f" document.body.innerHTML = {json.dumps(hop_page(title))};"
        " document.title"
    )


_FRAMES_PAGE = """<!doctype html><title>Frames</title><h1>Around the frame</h1>
<iframe id="inner" title="Inner" src="{src}" style="width: 400px; height: 200px"></iframe>
<p id="log"></p>
<script>
addEventListener('message', (e) => { document.getElementById('log').textContent += e.data; });
</script>"""


def frames_url(server: FixtureServer, src: str) -> str:
    """A page on 127.0.0.1 with ``src`` in an iframe (``#inner``) and, in ``#log``, the
    presses the frame told it about."""
    return server.url(FRAMES + "?" + urllib.parse.urlencode({"src": src}))


def serve(*servers: FixtureServer) -> None:
    """Serve the hop page and the frames page on each server."""

    def hop(handler: Handler) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
        title = query.get("t", ["hop"])[0]
        page = hop_page(title, decoy="decoy" in query)
        handler.reply(200, page, headers={"Cache-Control": "private, max-age=0"})

    def frames(handler: Handler) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
        src = html.escape(query.get("src", ["about:blank"])[0])
        handler.reply(200, _FRAMES_PAGE.replace("{src}", src))

    for server in servers:
        server.route(HOP, hop)
        server.route(FRAMES, frames)
