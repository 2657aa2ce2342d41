"""Tier 1 over TLS: a certificate the system does not trust is refused (the verified
transport is built on the first https:// request), and a plain http:// page is fetched
without building it (what makes the first page of ``cdpkit tui`` / ``browse`` quick)."""

from __future__ import annotations

import http.server
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import BrowseError
from tests.server import FixtureServer


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><head><title>Over TLS</title></head><body><p>Secret words.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def self_signed_server(tmp_path: Path) -> Iterator[str]:
    """An https:// server on 127.0.0.1 with a self-signed certificate."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_an_untrusted_certificate_is_refused_at_tier_1(self_signed_server: str) -> None:
    async with cdpkit.engine() as engine:
        with pytest.raises(BrowseError) as caught:
            await engine.browse(self_signed_server, max_tier=1)
    assert caught.value.code == "network.tls"
    assert "127.0.0.1" in str(caught.value)


async def test_an_http_page_is_read_without_loading_certificates(
    browse_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def spy(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loaded.append(args or kwargs)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", spy)
    async with cdpkit.engine() as engine:
        result = await engine.browse(browse_server.url("/browse/article.html"), max_tier=1)
    assert result.title == "A static article"
    assert loaded == []
