"""Pages for the network, HAR and performance tests, served as routes of tests/server.py:
a page that fetches JSON and an image and has a 404 and a refused request, a page with a
big image and text (an LCP), and one whose layout shifts (a CLS)."""

from __future__ import annotations

import json
import struct
import zlib

from tests.server import FixtureServer, Handler, closed_port


def png(width: int, height: int, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A valid PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


IMAGE = png(40, 30)
BIG_IMAGE = png(800, 600, (20, 90, 200))
DATA = {"items": [{"id": i, "name": f"item {i}"} for i in range(20)], "ok": True}
DEAD_PORT = closed_port()


def _page(handler: Handler) -> None:
    handler.reply(
        200,
        f"""<!doctype html><title>Network page</title><link rel=icon href="data:,">
<img id=pic src="/net/pic.png">
<p id=out>loading</p>
<script>
Promise.allSettled([
  fetch('/net/data.json').then(r => r.json()),
  fetch('/net/missing.json').then(r => r.text()),
  fetch('http://127.0.0.1:{DEAD_PORT}/refused.json'),
  fetch('/net/echo', {{method: 'POST', body: 'name=cdpkit', headers: {{'Content-Type': 'text/plain'}}}}).then(r => r.text()),
]).then(() => {{ document.getElementById('out').textContent = 'done'; }});
</script>""",
    )


def _data(handler: Handler) -> None:
    handler.reply(200, json.dumps(DATA), "application/json", {"Set-Cookie": "seen=1; Path=/"})


def _missing(handler: Handler) -> None:
    handler.reply(404, '{"error": "not here"}', "application/json")


def _pic(handler: Handler) -> None:
    handler.reply(200, IMAGE, "image/png")


def _big_pic(handler: Handler) -> None:
    handler.reply(200, BIG_IMAGE, "image/png")


def _plain(handler: Handler) -> None:
    handler.reply(200, '<!doctype html><title>Plain</title><link rel=icon href="data:,"><p>plain page</p>')


def _lcp(handler: Handler) -> None:
    handler.reply(
        200,
        """<!doctype html><title>LCP</title>
<h1>A big picture</h1>
<img src="/net/big.png" width=800 height=600>
<p>"""
        + "Some text to paint. " * 200
        + """</p>
<script>
let x = 0; const start = performance.now();
while (performance.now() - start < 120) { x += Math.sqrt(x + 1); }  // a long task
</script>""",
    )


def _shift(handler: Handler) -> None:
    handler.reply(
        200,
        """<!doctype html><title>Shift</title>
<div id=top></div>
<p style="font-size:40px">This text moves down when the banner appears.</p>
<p style="font-size:40px">And so does this paragraph.</p>
<script>
setTimeout(() => {
  document.getElementById('top').innerHTML =
    '<div style="height:300px;background:#fc0">A banner inserted late</div>';
}, 300);
</script>""",
    )


def _slow_click(handler: Handler) -> None:
    handler.reply(
        200,
        """<!doctype html><title>Slow click</title>
<button id=go style="width:200px;height:80px">Go</button><p id=out>idle</p>
<script>
document.getElementById('go').addEventListener('click', () => {
  const start = performance.now();
  while (performance.now() - start < 150) {}  // a slow handler: a poor INP
  document.getElementById('out').textContent = 'clicked';
});
</script>""",
    )


def _redirect(handler: Handler) -> None:
    handler.reply(302, "", "text/plain", {"Location": "/net/data.json"})


_ROUTES = {
    "/net/redirect": _redirect,
    "/net/slow-click": _slow_click,
    "/net/page": _page,
    "/net/data.json": _data,
    "/net/missing.json": _missing,
    "/net/pic.png": _pic,
    "/net/big.png": _big_pic,
    "/net/plain": _plain,
    "/net/lcp": _lcp,
    "/net/shift": _shift,
}


def install(server: FixtureServer) -> None:
    """Add the routes to ``server`` (idempotent). The page's POST to /net/echo gets the
    server's 501 (it serves GET only): a request with a body all the same."""
    for path, route in _ROUTES.items():
        server.route(path, route)
