"""Proxies: launch-wide and per context, with credentials answered through
Fetch.authRequired and never shown in a URL, a repr or a log line."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from websockets.frames import Frame

import cdpkit
from cdpkit import tools
from tests.fixtures.proxy import ProxyServer
from tests.runtime.conftest import PROXY_PASSWORD, PROXY_USER, read_identity
from tests.server import DOWNLOADS, FixtureServer


async def test_a_launch_wide_proxy_carries_every_request(
    proxy: ProxyServer, server: FixtureServer
) -> None:
    async with cdpkit.launch(proxy=proxy.url) as browser:
        seen = await read_identity(browser.pages[0], server.url("/runtime/identity.html"))
    assert seen["headers"]["Via"] == "1.1 cdpkit-test-proxy"
    assert proxy.forwarded("/runtime/identity.html") and proxy.forwarded("/echo/headers")


async def test_a_context_proxy_carries_only_that_context(
    browser: cdpkit.Browser, proxy: ProxyServer, server: FixtureServer, page: cdpkit.Page
) -> None:
    async with await browser.new_context(proxy=proxy.url) as context:
        proxied = await read_identity(await context.new_page(), server.url("/runtime/identity.html"))
    direct = await read_identity(page, server.url("/runtime/identity.html"))
    assert proxied["headers"].get("Via") == "1.1 cdpkit-test-proxy"
    assert "Via" not in direct["headers"]
    assert len(proxy.forwarded("/echo/headers")) == 1


async def test_proxy_credentials_are_answered_and_never_shown(
    browser: cdpkit.Browser,
    auth_proxy: ProxyServer,
    server: FixtureServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    url = f"http://{PROXY_USER}:{PROXY_PASSWORD}@{auth_proxy.url.removeprefix('http://')}"
    settings = cdpkit.BrowserSettings(proxy=url)
    assert settings.proxy == cdpkit.Proxy(auth_proxy.url, PROXY_USER, PROXY_PASSWORD)
    async with await browser.new_context(settings=settings) as context:
        page = await context.new_page()
        seen = await read_identity(page, server.url("/runtime/identity.html"))
        shown = [repr(settings), repr(settings.proxy), repr(context), repr(page), page.url]
    assert seen["headers"]["Via"] == "1.1 cdpkit-test-proxy"
    assert seen["userAgent"]  # the page loaded through the proxy
    # The proxy first refused (407), then let the document through with the credentials.
    refused = [p for p in auth_proxy.passed if not p.allowed]
    assert refused and auth_proxy.forwarded("/runtime/identity.html")
    assert all(PROXY_PASSWORD not in p.url for p in auth_proxy.passed)
    assert not [text for text in shown if PROXY_PASSWORD in text]
    assert PROXY_PASSWORD not in caplog.text
    assert "password='***'" in repr(settings.proxy)
    token = cdpkit.BrowserSettings(extra_headers={"Authorization": "Bearer t0ken"})
    assert "t0ken" not in repr(token) and "'Authorization': '***'" in repr(token)


async def test_wrong_proxy_credentials_end_in_the_proxys_refusal(
    browser: cdpkit.Browser, auth_proxy: ProxyServer, server: FixtureServer
) -> None:
    wrong = cdpkit.Proxy(auth_proxy.url, PROXY_USER, "wrong")
    async with await browser.new_context(proxy=wrong) as context:
        page = await context.new_page()
        result = await tools.navigate(page, server.url("/status?code=200"), timeout=10)
    assert result.status == 407  # refused, not asked again forever
    assert not auth_proxy.forwarded("/status")


async def test_a_launch_wide_authenticating_proxy_serves_downloads_too(
    auth_proxy: ProxyServer, server: FixtureServer, tmp_path: Path
) -> None:
    proxy = cdpkit.Proxy(auth_proxy.url, PROXY_USER, PROXY_PASSWORD)
    async with cdpkit.launch(proxy=proxy) as browser:
        page = browser.pages[0]
        await tools.navigate(page, server.url("/runtime/identity.html"))
        # download() takes over Fetch on the page for a moment: the proxy's challenges are
        # still answered, and afterwards too.
        result = await tools.download(page, url=server.url("/dl/report.pdf"), dest_dir=tmp_path)
        assert Path(result.path).read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
        assert auth_proxy.forwarded("/dl/report.pdf")
        again = await read_identity(page, server.url("/runtime/identity.html"))
        assert again["headers"]["Via"] == "1.1 cdpkit-test-proxy"


def test_proxy_values_are_checked() -> None:
    with pytest.raises(ValueError, match=r"Proxy\.from_url"):
        cdpkit.Proxy("http://user:pw@proxy:3128")
    with pytest.raises(ValueError, match="scheme") as error:
        cdpkit.BrowserSettings(proxy="ftp://user:hunter2@proxy:21")
    assert "hunter2" not in str(error.value)
    proxy = cdpkit.Proxy.from_url("socks5://a%40b:p%3Aw@proxy:1080", bypass="*.internal; 10.0.0.0/8")
    assert (proxy.server, proxy.username, proxy.password) == ("socks5://proxy:1080", "a@b", "p:w")
    assert proxy.bypass_list() == "*.internal;10.0.0.0/8;<-loopback>"
    assert "p:w" not in repr(proxy)


def _locked_page(server: FixtureServer) -> str:
    """A page that may not fetch anything (CSP): a download makes its own request."""
    server.route(
        "/runtime/locked.html",
        lambda h: h.reply(200, "<title>locked</title>", headers={"Content-Security-Policy": "connect-src 'none'"}),
    )
    return server.url("/runtime/locked.html")


async def test_cdpkits_own_download_request_goes_through_the_browsers_proxy(
    auth_proxy: ProxyServer, server: FixtureServer, tmp_path: Path
) -> None:
    proxy = cdpkit.Proxy(auth_proxy.url, PROXY_USER, PROXY_PASSWORD)
    async with cdpkit.launch(proxy=proxy) as browser:
        page = browser.pages[0]
        await tools.navigate(page, _locked_page(server))
        result = await tools.download(page, url=server.url("/dl/report.pdf"), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == DOWNLOADS["/dl/report.pdf"][0]
    # Through the proxy, with its credentials: the server never saw the user's own request.
    assert auth_proxy.forwarded("/dl/report.pdf")


@pytest.mark.parametrize(
    ("bypass", "direct"),
    [
        ("127.0.0.1", False),  # "<-loopback>" comes after it: Chrome still proxies loopback
        ("<local>;<loopback>", True),  # a rule naming loopback: Chrome's own bypass of it
        ("*.internal", False),
    ],
)
async def test_cdpkits_own_request_follows_the_proxy_bypass_list(
    proxy: ProxyServer, server: FixtureServer, tmp_path: Path, bypass: str, direct: bool
) -> None:
    async with cdpkit.launch(proxy=cdpkit.Proxy(proxy.url, bypass=bypass)) as browser:
        page = browser.pages[0]
        await tools.navigate(page, _locked_page(server))
        result = await tools.download(page, url=server.url("/dl/table.csv"), dest_dir=tmp_path)
    assert Path(result.path).read_bytes() == DOWNLOADS["/dl/table.csv"][0]
    # Where the browser's request went (the page), cdpkit's own went (the download).
    assert bool(proxy.forwarded("/runtime/locked.html")) is not direct
    assert bool(proxy.forwarded("/dl/table.csv")) is not direct


async def test_chrome_sends_nothing_of_its_own_through_the_proxy(
    proxy: ProxyServer, server: FixtureServer
) -> None:
    async with cdpkit.launch(proxy=proxy.url) as browser:
        await tools.navigate(browser.pages[0], server.url("/runtime/identity.html"))
        await asyncio.sleep(8)  # Chrome's background requests come in the first seconds
    assert proxy.forwarded("/runtime/identity.html")
    others = [p.url for p in proxy.passed if not p.url.startswith(server.origin)]
    assert others == [], others  # no google host (update, accounts, autofill, time...)
async def test_no_log_record_shows_the_proxy_password(
    server: FixtureServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At DEBUG the websockets library logs every frame, among them the one answering the
    # proxy's challenge (Fetch.continueWithAuth): its start and end, or all of it with
    # WEBSOCKETS_MAX_LOG_SIZE raised, as one does to debug the protocol.
    monkeypatch.setattr(Frame, "MAX_LOG_SIZE", 100_000)
    password = "s3cr3t/x?y#z"
    proxy_server = ProxyServer((PROXY_USER, password)).start()
    caplog.set_level(logging.DEBUG, logger="websockets")
    caplog.set_level(logging.DEBUG, logger="cdpkit")
    try:
        url = f"http://{PROXY_USER}:{password}@{proxy_server.url.removeprefix('http://')}"
        async with cdpkit.launch(proxy=url) as browser:
            seen = await read_identity(browser.pages[0], server.url("/runtime/identity.html"))
    finally:
        proxy_server.stop()
    assert seen["headers"]["Via"] == "1.1 cdpkit-test-proxy"
    assert [p for p in proxy_server.passed if not p.allowed]  # the proxy asked
    assert "Fetch.continueWithAuth" in caplog.text  # the answer was logged...
    assert "s3cr3t" not in caplog.text  # ...without the password
