"""Fixtures of the browse tests: routes on the suite's server (a login that sets a cookie
from JavaScript, a page echoing the cookies it got, a PDF, images, garbage bytes,
robots.txt, a bot challenge), a port that never answers, and an empty config file."""

from __future__ import annotations

import io
import os
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server import FixtureServer, Handler


def make_pdf(text: str, title: str) -> bytes:
    """A one-page PDF showing ``text``, with ``title`` in its metadata (offsets computed,
    so strict readers accept it)."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (%s) >>" % title.encode(),
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


PDF_BODY = make_pdf("Quarterly figures of the browse engine", "Browse engine report")
BIG_PNG = _png(1600, 1200)


def _login(handler: Handler) -> None:
    # A JavaScript app that logs in by setting a cookie from script (tier 1 cannot).
    handler.reply(
        200,
        "<title>Login</title><div id='root'></div><script>"
        "document.cookie = 'login=alice; path=/';"
        "document.getElementById('root').innerHTML = '<h1>Logged in</h1><p>Welcome back, alice. "
        "Your session cookie is set by this script, which only a browser runs.</p>';"
        "</script>",
    )


def _echo_cookie(handler: Handler) -> None:
    cookie = handler.headers.get("Cookie", "") or "none"
    handler.reply(200, f"<title>Cookies</title><p>Cookies received: [{cookie}]</p>")


def _echo_headers(handler: Handler) -> None:
    agent = handler.headers.get("User-Agent", "")
    language = handler.headers.get("Accept-Language", "")
    handler.reply(200, f"<title>Headers</title><p>Agent: [{agent}] Language: [{language}]</p>")


def _set_cookie(handler: Handler) -> None:
    handler.reply(
        200,
        "<title>Set</title><p>A cookie was set by a Set-Cookie header of this response.</p>",
        headers={"Set-Cookie": "visit=header-cookie; Path=/; Max-Age=3600"},
    )


def _challenge(handler: Handler) -> None:
    # A bot check: a 503 "Just a moment..." page whose script sets a cookie and reloads;
    # with the cookie, the real page.
    if "cleared=1" in handler.headers.get("Cookie", ""):
        handler.reply(200, "<title>Behind the check</title><p>The content behind the bot check, "
                           "readable once the challenge script has run in a browser.</p>")
        return
    handler.reply(
        503,
        "<title>Just a moment...</title><p>Checking your browser</p><script>"
        "document.cookie = 'cleared=1; path=/'; setTimeout(() => location.reload(), 50);</script>",
    )


def _query(handler: Handler, name: str) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query).get(name, [""])[0]


def _file(body: bytes, content_type: str) -> object:
    def route(handler: Handler) -> None:
        handler.reply(200, body, content_type)

    return route


def _slow_quietly(handler: Handler) -> None:
    # As the suite's /slow, but a client gone by then (a page closed) is not an error: a
    # traceback printed from this thread later would run while other tests do, for nothing.
    import time

    time.sleep(float(_query(handler, "s") or "1"))
    try:
        handler.reply(200, "<title>slow</title><p>slow</p>")
    except OSError:
        handler.close_connection = True


def _slow_image(handler: Handler) -> None:
    handler.reply(200, "<title>partial</title><p>Text that was there before the image finished.</p>"
                       "<img src='/browse/slow?s=15'>")


def _robots(handler: Handler) -> None:
    handler.reply(200, "User-agent: *\nDisallow: /browse/private\n", "text/plain")


def _latin1(handler: Handler) -> None:
    body = "<html><head><meta charset='iso-8859-1'><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e au caf\xe9, " \
           "a dessert whose name has accents in it.</p></body></html>"
    handler.reply(200, body.encode("latin-1"), "text/html")


@pytest.fixture(scope="session")
def browse_server(server: FixtureServer) -> FixtureServer:
    routes = {
        "/browse/login": _login,
        "/browse/echo-cookie": _echo_cookie,
        "/browse/set-cookie": _set_cookie,
        "/browse/echo-headers": _echo_headers,
        "/browse/xhr-app": _file(
            b"<title>Slow app</title><div id='root'></div><script>"
            b"fetch('/browse/slow?s=1.5').then(r => r.text()).then(() => {"
            b"document.getElementById('root').innerHTML = '<p>Arrived after a slow request: only a "
            b"wait for the network to go idle, as tier 3 does, sees this text.</p>'; });</script>",
            "text/html",
        ),
        "/browse/challenge": _challenge,
        "/browse/report.pdf": _file(PDF_BODY, "application/pdf"),
        "/browse/big.png": _file(BIG_PNG, "image/png"),
        "/browse/broken.png": _file(b"\x89PNG\r\n\x1a\n" + b"not really an image" * 10, "image/png"),
        "/browse/garbage": _file(bytes(range(256)) * 64, "application/octet-stream"),
        "/browse/table.csv": _file(b"id,name\n1,alpha\n2,beta\n", "text/csv"),
        "/browse/data.json": _file(b'{"answer": 42, "name": "browse"}', "application/json"),
        "/browse/private/page.html": _file(b"<title>private</title><p>secret</p>", "text/html"),
        "/browse/latin1": _latin1,
        "/browse/slow-image": _slow_image,
        "/browse/slow": _slow_quietly,
        "/browse/gallery": _file(
            b"<title>Gallery</title><p>Two pictures: one that loads and one that does not.</p>"
            b"<img src='/browse/big.png' alt='big picture'><img src='/status?code=404' alt='missing chart'>",
            "text/html",
        ),
        "/robots.txt": _robots,
    }
    for path, route in routes.items():
        server.route(path, route)  # type: ignore[arg-type]
    return server


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield int(sock.getsockname()[1])


@pytest.fixture(autouse=True)
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets its own (absent) config file, sessions directory and media cache:
    the user's real ones are never read or written."""
    path = tmp_path / "config.toml"
    monkeypatch.setenv("CDPKIT_CONFIG", str(path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return path


def chrome_children() -> list[int]:
    """PIDs of Chrome processes started by this process (direct children)."""
    found = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            name = (entry / "comm").read_text().strip().lower()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == me and "chrom" in name:
            found.append(int(entry.name))
    return found
