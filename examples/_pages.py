"""Serves ``examples/pages/`` on 127.0.0.1 for the examples that need http:// pages
(cookies, ``fetch()``, request interception). Standard library only, in a thread."""

from __future__ import annotations

import contextlib
import functools
import http.server
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

PAGES = Path(__file__).resolve().parent / "pages"


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep the output quiet
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A browser closing a connection mid-answer (its favicon request, as an example
        # ends) is not worth a traceback on stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextlib.contextmanager
def serve_pages() -> Iterator[str]:
    """Serve the example pages; yields the base URL, e.g. ``http://127.0.0.1:43117``."""
    handler = functools.partial(_Handler, directory=str(PAGES))
    server = _Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
