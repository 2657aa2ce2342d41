"""The test suite's web server: serves tests/pages/ and a few dynamic routes on 127.0.0.1.

Runs in a thread (stdlib only), so tests in any event loop can use it. Two instances on
different ports give a second origin for cross-origin tests.
"""

from __future__ import annotations

import http.server
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

PAGES = Path(__file__).parent / "pages"

Route = Callable[["Handler"], None]


class Handler(http.server.SimpleHTTPRequestHandler):
    server: FixtureServer

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)  # type: ignore[arg-type]

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        self.server.requests.append(self.path)
        route = self.server.routes.get(path)
        if route is not None:
            route(self)
        else:
            super().do_GET()

    def reply(self, status: int, body: bytes | str, content_type: str = "text/html",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class FixtureServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

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


def start_server() -> FixtureServer:
    server = FixtureServer()
    server.route("/slow", _slow)
    server.route("/status", _status)
    return server.start()


def closed_port() -> int:
    """A local port nothing listens on (connections to it are refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
