"""A server for the stalled-page tests (issue 46): pages whose parser-blocking scripts
come from a host that answers after a delay, served on 127.0.0.1 by threads that the
end of the test releases (daemon threads, an Event)."""

from __future__ import annotations

import http.server
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class StallServer:
    """``/stalled?delay=S``: a page with two parser-blocking scripts in its head, each
    answered after S seconds (each sets ``window.slowRan``), then a body with a heading
    "Stalled story", a button "Read on" and an inline script setting ``window.later``.

    ``/written?delay=S``: the same body, but its one stalled script (``slow1.js``) is
    written by an inline script with ``document.write``, as ad and tag-manager code does.
    ``/progress?delay=S``: the same body after three head scripts answered after S, 2S and
    3S seconds: the parser makes progress all along."""

    def __init__(self) -> None:
        self.release = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path, _, query = self.path.partition("?")
                delay = float(dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("delay", "25"))
                if path.startswith("/slow"):
                    outer.release.wait(delay)  # the end of the test ends the wait
                    self._send(b"window.slowRan = (window.slowRan || 0) + 1;", "text/javascript")
                    return
                html = (
                    f"<!doctype html><html><head><title>Stalled</title>{outer.head(path, delay)}"
                    "</head><body><h1>Stalled story</h1><button>Read on</button>"
                    "<script>window.later = 1</script></body></html>"
                )
                self._send(html.encode(), "text/html")

            def _send(self, body: bytes, kind: str) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the browser went away

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def head(self, path: str, delay: float) -> str:
        """The scripts in the head of the page at ``path``."""
        if path == "/written":
            tag = f'<script src="{self.script(1, delay)}"><\\/script>'
            return f"<script>document.write('{tag}')</script>"
        if path == "/progress":
            return "".join(f'<script src="{self.script(n, n * delay)}"></script>' for n in (1, 2, 3))
        return "".join(f'<script src="{self.script(n, delay)}"></script>' for n in (1, 2))

    def url(self, delay: float = 25, page: str = "stalled") -> str:
        return f"http://127.0.0.1:{self.port}/{page}?delay={delay:g}"

    def script(self, number: int, delay: float = 25) -> str:
        return f"http://127.0.0.1:{self.port}/slow{number}.js?delay={delay:g}"


@contextmanager
def stall_server() -> Iterator[StallServer]:
    server = StallServer()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.server.shutdown()
        server.server.server_close()
