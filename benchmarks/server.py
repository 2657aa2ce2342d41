"""Serve the generated pages and the big file on 127.0.0.1 from a background thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from benchmarks import pages
from benchmarks.common import Sizes


class _MediaFiles:
    """The media pages and their files, each made once, on its first request."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[bytes, str]] = {}
        self._lock = threading.Lock()

    def get(self, path: str) -> tuple[bytes, str] | None:
        with self._lock:
            if not self._made:  # all at once: the first request is a warm-up, never timed
                paths = ["/media-page", "/media-videos",
                         *(f"/media/photo{i}.png" for i in range(pages.MEDIA_IMAGES)),
                         *(f"/media/clip{i}.mp4" for i in range(pages.MEDIA_VIDEOS))]
                for each in paths:
                    made = self._make(each)
                    assert made is not None
                    self._made[each] = made
            return self._made.get(path)

    @staticmethod
    def _make(path: str) -> tuple[bytes, str] | None:
        if path == "/media-page":
            return pages.media_page(), "text/html; charset=utf-8"
        if path == "/media-videos":
            return pages.media_videos_page(), "text/html; charset=utf-8"
        name = path.removeprefix("/media/")
        for prefix, suffix, make, kind in (("photo", ".png", pages.photo, "image/png"),
                                           ("clip", ".mp4", pages.clip, "video/mp4")):
            number = name.removeprefix(prefix).removesuffix(suffix)
            if name.startswith(prefix) and name.endswith(suffix) and number.isdigit():
                return make(int(number)), kind
        return None


@contextlib.contextmanager
def serve(sizes: Sizes) -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) while the server runs.

    Paths: ``/blank``, ``/article``, ``/tall``, ``/elements``, ``/console``, ``/form`` (any
    query string is ignored, so callers can defeat caches), ``/file.bin`` and
    ``/attachment.bin`` (the big file, the second with ``Content-Disposition: attachment``);
    ``/media-page`` and ``/media-videos`` with their ``/media/photo<i>.png`` and
    ``/media/clip<i>.mp4`` (made on first request); a POST anywhere answers a thank-you page.
    """
    bodies = pages.all_pages(sizes)
    media = _MediaFiles()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path in bodies:
                self._send(bodies[path], "text/html; charset=utf-8")
            elif path.startswith("/media"):
                found = media.get(path)
                if found is None:
                    self._send(b"not found", "text/plain", status=404)
                else:
                    self._send(*found)
            elif path in ("/file.bin", "/attachment.bin"):
                headers = {"Content-Disposition": 'attachment; filename="big.bin"'} \
                    if path == "/attachment.bin" else {}
                self._stream(sizes.file_bytes, headers)
            else:
                self._send(b"not found", "text/plain", status=404)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(pages.THANKS, "text/html; charset=utf-8")

        def _send(self, body: bytes, content_type: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, size: int, headers: dict[str, str]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.send_header("Cache-Control", "no-store")
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(ConnectionError):  # a client may stop reading early
                for chunk in pages.file_chunks(size):
                    self.wfile.write(chunk)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
