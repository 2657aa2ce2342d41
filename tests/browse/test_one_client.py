"""Every request cdpkit makes itself (a download's direct request, ``scrape``'s media
probe, ``browse``'s tier 1) goes through one client (:mod:`cdpkit._browser.own_requests`): the
browser's proxy, HTTP or SOCKS, and every hop put to the check in force once, a redirect
out of http(s) refused. Here through a SOCKS5 proxy the test runs on 127.0.0.1, which the
download and the probe could not use before (urllib speaks no SOCKS)."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import struct
import sys
import threading
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from cdpkit._browser.own_requests import checked_by
from tests.server import DOWNLOADS, FixtureServer, Handler


class _Socks5(socketserver.BaseRequestHandler):
    """SOCKS5 without authentication (RFC 1928), CONNECT to loopback only; records the
    first bytes each client sent through it (its request line and headers)."""

    server: SocksServer

    def handle(self) -> None:
        client: socket.socket = self.request
        _, count = _read(client, 2)
        _read(client, count)  # the methods offered: "no authentication" is taken
        client.sendall(b"\x05\x00")
        _, command, _, kind = _read(client, 4)
        if kind == 1:
            host = socket.inet_ntoa(_read(client, 4))
        elif kind == 3:
            host = _read(client, _read(client, 1)[0]).decode()
        else:
            host = socket.inet_ntop(socket.AF_INET6, _read(client, 16))
        (port,) = struct.unpack("!H", _read(client, 2))
        if command != 1 or host not in ("127.0.0.1", "localhost", "::1"):
            client.sendall(b"\x05\x02\x00\x01" + bytes(6))  # not allowed: nothing leaves
            return
        with socket.create_connection((host, port), timeout=10) as upstream:
            client.sendall(b"\x05\x00\x00\x01" + bytes(6))
            first = client.recv(65536)
            self.server.relayed.append(first.decode("latin-1"))
            upstream.sendall(first)
            back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
            back.start()
            _pipe(client, upstream)
            back.join(10)


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the client went away")
        data += chunk
    return data


def _pipe(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            target.sendall(chunk)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


class SocksServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Socks5)
        self.relayed: list[str] = []

    @property
    def url(self) -> str:
        return f"socks5://127.0.0.1:{self.server_address[1]}"

    def requested(self, path: str) -> list[str]:
        """The requests for ``path`` relayed (their first line and headers)."""
        return [head for head in self.relayed if head.startswith(f"GET {path} ")]


@pytest.fixture
def socks() -> Iterator[SocksServer]:
    proxy = SocksServer()
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()


@pytest.fixture
async def socks_page(socks: SocksServer, server: FixtureServer) -> AsyncIterator[cdpkit.Page]:
    """A page of a browser whose proxy is ``socks``, on a page that may fetch nothing (CSP):
    a download then makes cdpkit's own request."""
    server.route(
        "/one/locked.html",
        lambda h: h.reply(200, "<title>locked</title>", headers={"Content-Security-Policy": "connect-src 'none'"}),
    )
    async with cdpkit.launch(proxy=socks.url) as browser:
        page = browser.pages[0]
        await tools.navigate(page, server.url("/one/locked.html"))
        yield page
    assert socks.requested("/one/locked.html")  # the browser's own request went through it


def _redirect(handler: Handler) -> None:
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query)
    handler.reply(302, "", headers={"Location": query["to"][0]})


async def test_a_download_goes_through_the_browsers_socks_proxy(
    socks_page: cdpkit.Page, socks: SocksServer, server: FixtureServer, tmp_path: Path
) -> None:
    result = await tools.download(socks_page, url=server.url("/dl/report.pdf"), dest_dir=tmp_path / "saved")
    assert Path(result.path).read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
    # cdpkit's own request (the page could not fetch it), through the browser's proxy.
    assert socks.requested("/dl/report.pdf")


async def test_scrape_fetches_a_media_url_itself_through_the_socks_proxy(
    socks_page: cdpkit.Page, socks: SocksServer, server: FixtureServer
) -> None:
    result = await tools.scrape(socks_page, server.url("/dl/report.pdf"))
    assert (result.format, result.mime_type) == ("media", "application/pdf")
    assert result.data == DOWNLOADS["/dl/report.pdf"][0]
    assert socks.requested("/dl/report.pdf")


@pytest.mark.parametrize("target", ["other origin", "file"])
async def test_each_hop_through_the_socks_proxy_is_checked_once_and_refused(
    socks_page: cdpkit.Page,
    socks: SocksServer,
    server: FixtureServer,
    other_server: FixtureServer,
    tmp_path: Path,
    target: str,
) -> None:
    server.route("/one/redirect", _redirect)
    # A path of this test's own: the session's servers keep every other test's requests.
    never = f"/one/never-{uuid.uuid4().hex}"
    hop = other_server.url(never) if target == "other origin" else "file:///etc/passwd"
    url = server.url("/one/redirect?to=" + urllib.parse.quote(hop, safe=""))
    asked: list[str] = []

    def refuse_other_origin(checked: str) -> str | None:
        asked.append(checked)
        return "not this origin" if checked.startswith(other_server.origin) else None

    with checked_by(refuse_other_origin), pytest.raises(cdpkit.DownloadError) as caught:
        await tools.download(socks_page, url=url, dest_dir=tmp_path / "saved")
    reason = "not this origin" if target == "other origin" else "a redirect to a file: URL"
    assert f"was redirected to {hop}, which is blocked: {reason}" in str(caught.value)
    assert "Nothing was requested from there" in str(caught.value)
    assert socks.requested(urllib.parse.urlsplit(url).path + "?" + urllib.parse.urlsplit(url).query)
    assert never not in other_server.requests
    assert not socks.requested(never)
    # Each hop of cdpkit's own request put to the check once (a file: hop is refused
    # before it is: it is no place a request can go).
    assert asked == ([url, hop] if target == "other origin" else [url])
    assert not (tmp_path / "saved").exists() or not list((tmp_path / "saved").iterdir())


async def test_without_socks_support_the_download_says_what_to_install(
    socks_page: cdpkit.Page, server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "socksio", None)  # as if httpx's SOCKS extra were missing
    with pytest.raises(cdpkit.DownloadError) as caught:
        await tools.download(socks_page, url=server.url("/dl/table.csv"), dest_dir=tmp_path / "saved")
    assert "pip install 'cdpkit-browser[socks]'" in str(caught.value)
    assert not (tmp_path / "saved").exists() or not list((tmp_path / "saved").iterdir())
