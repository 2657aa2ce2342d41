"""The test suite's web server: serves tests/pages/ and a few dynamic routes on 127.0.0.1.

Runs in a thread (stdlib only), so tests in any event loop can use it. Two instances on
different ports give a second origin for cross-origin tests.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

PAGES = Path(__file__).parent / "pages"

Route = Callable[["Handler"], None]


class Handler(http.server.SimpleHTTPRequestHandler):
    server: FixtureServer
    own_cache_control = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)  # type: ignore[arg-type]

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def end_headers(self) -> None:
        # Pages are never cached, unless a route sends its own Cache-Control (a page the
        # back/forward cache may keep must not say no-store).
        if not getattr(self, "own_cache_control", False):
            self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        if not self._routed():
            super().do_GET()

    def do_POST(self) -> None:
        """A route answers a POST as it answers a GET (it reads the body itself)."""
        if not self._routed():  # as with no do_POST at all: pages are not posted to
            self.send_error(501, f"Unsupported method ({self.command!r})")

    def _routed(self) -> bool:
        """Record the request and answer it by its route, if it has one."""
        self.server.requests.append(self.path)
        route = self.server.routes.get(urllib.parse.urlsplit(self.path).path)
        if route is None:
            return False
        route(self)
        return True

    def reply(self, status: int, body: bytes | str, content_type: str = "text/html",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.own_cache_control = any(name.lower() == "cache-control" for name in headers or {})
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class FixtureServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # as real servers listen: parallel connections are not refused

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def route(self, path: str, handler: Route) -> None:
        self.routes[path] = handler

    def start(self) -> FixtureServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def _slow(handler: Handler) -> None:
    time.sleep(float(urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query).get("s", ["1"])[0]))
    handler.reply(200, "<title>slow</title><p>slow</p>")


def _status(handler: Handler) -> None:
    code = int(urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query).get("code", ["404"])[0])
    handler.reply(code, f"<title>status {code}</title><h1>{code}</h1>")


# Files served under /dl/ for the download tests: path -> (body, Content-Type).
DOWNLOADS: dict[str, tuple[bytes, str]] = {
    "/dl/report.pdf": (b"%PDF-1.4\n" + bytes(range(256)) * 200 + b"\n%%EOF\n", "application/pdf"),
    "/dl/table.csv": (b"id,name\n" + b"".join(b"%d,row %d\n" % (i, i) for i in range(3000)), "text/csv"),
    "/dl/archive.zip": (b"PK\x03\x04" + bytes(range(256)) * 300, "application/zip"),
    "/dl/data.json": (b'{"rows": [' + b",".join(b"%d" % i for i in range(5000)) + b"]}", "application/json"),
}
CHUNKED_BODY = bytes(range(256)) * 1200  # 300 KiB, sent in 64 KiB chunks


def _query(handler: Handler, name: str, default: str) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query).get(name, [default])[0]


def _download_file(handler: Handler) -> None:
    body, content_type = DOWNLOADS[urllib.parse.urlsplit(handler.path).path]
    handler.reply(200, body, content_type)


def _chunked(handler: Handler) -> None:
    """CHUNKED_BODY as a chunked response; ``?cut=1`` closes the connection after 128 KiB,
    without the terminating chunk."""
    cut = _query(handler, "cut", "0") == "1"
    handler.protocol_version = "HTTP/1.1"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/csv")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for start in range(0, len(CHUNKED_BODY), 65536):
        if cut and start >= 131072:
            break
        chunk = CHUNKED_BODY[start : start + 65536]
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    if not cut:
        handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()
    handler.close_connection = True


def _short(handler: Handler) -> None:
    """Announces 100000 bytes more than it sends (CHUNKED_BODY), then closes."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/zip")
    handler.send_header("Content-Length", str(len(CHUNKED_BODY) + 100_000))
    handler.end_headers()
    handler.wfile.write(CHUNKED_BODY)
    handler.wfile.flush()
    handler.close_connection = True


def _stall(handler: Handler) -> None:
    """Sends headers and 1 KiB of a 1 MiB body, then waits ``?s=`` seconds and closes."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.send_header("Content-Length", str(1 << 20))
    handler.end_headers()
    handler.wfile.write(b"x" * 1024)
    handler.wfile.flush()
    time.sleep(float(_query(handler, "s", "5")))
    handler.close_connection = True


def _named(handler: Handler) -> None:
    """A body whose name comes from ``Content-Disposition`` (``?cd=`` sets the header)."""
    handler.reply(200, b"named body", "text/plain", {"Content-Disposition": _query(handler, "cd", "")})


def _echo_headers(handler: Handler) -> None:
    """The request's headers as a JSON object (name -> value), for identity tests."""
    import json

    handler.reply(200, json.dumps(dict(handler.headers.items())), "application/json")


def _hang(handler: Handler) -> None:
    """Never answers in a test's time: holds the request ``?s=`` seconds (60), then closes
    the connection without a response (a tracker that does not answer)."""
    time.sleep(float(_query(handler, "s", "60")))
    handler.close_connection = True


def _tracked(handler: Handler) -> None:
    """An article whose image and async script come from ``?tracker=`` (a URL, e.g. another
    server's ``/hang``): its DOMContentLoaded comes at once, its load event only when they
    have answered."""
    import html

    tracker = html.escape(_query(handler, "tracker", "/hang"))
    handler.reply(
        200,
        "<title>Tracked article</title><h1>Tracked article</h1><p>The story itself.</p>"
        f'<img src="{tracker}&amp;kind=pixel" alt="">'
        f'<script async src="{tracker}&amp;kind=script"></script>',
    )


def _tracked_blocking(handler: Handler) -> None:
    """An article with a parser-blocking script from ``?tracker=`` in its middle (as an old
    page's ad loader): its DOMContentLoaded comes only when the script has answered."""
    import html

    tracker = html.escape(_query(handler, "tracker", "/hang"))
    handler.reply(
        200,
        "<title>Blocked article</title><h1>Blocked article</h1><p>The story itself.</p>"
        f'<script src="{tracker}&amp;kind=blocking"></script><p>After the ad.</p>',
    )


def start_server() -> FixtureServer:
    server = FixtureServer()
    server.route("/slow", _slow)
    server.route("/status", _status)
    for path in DOWNLOADS:
        server.route(path, _download_file)
    server.route("/dl/chunked", _chunked)
    server.route("/dl/short", _short)
    server.route("/dl/stall", _stall)
    server.route("/dl/named", _named)
    server.route("/echo/headers", _echo_headers)
    server.route("/hang", _hang)
    server.route("/tracked", _tracked)
    server.route("/tracked-blocking", _tracked_blocking)
    return server.start()


_HELD_PORTS: list[socket.socket] = []


def closed_port() -> int:
    """A local port nothing listens on (connections to it are refused).

    The port stays bound, without listening, for the life of the test process: otherwise
    a server another test worker starts could take it, and the "refused" URL would answer.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD_PORTS.append(sock)
    return int(sock.getsockname()[1])


def free_port() -> int:
    """A local port free at the time of asking, for a server the test starts on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
