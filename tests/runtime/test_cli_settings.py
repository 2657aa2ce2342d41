"""The identity options on the command line (every command that starts a browser) and on
both MCP entry points: they reach the pages' requests; secrets never reach the output."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cdpkit._front.browser_options import CLIError
from cdpkit.mcp_server import server_options
from tests.cli.conftest import CLI
from tests.cli.conftest import cli as cli  # the fixtures, shared
from tests.cli.conftest import cli_home as cli_home
from tests.fixtures.proxy import ProxyServer
from tests.mcp.conftest import McpSession, text_of
from tests.runtime.conftest import PROXY_PASSWORD, PROXY_USER
from tests.server import FixtureServer, closed_port

ECHO = "JSON.parse(document.body.innerText)"


def test_eval_sends_the_identity_options(cli: CLI, server: FixtureServer) -> None:
    result = cli.run(
        "eval", server.url("/echo/headers"), ECHO,
        "--user-agent", "cdpkit-cli-agent/1.0",
        "--locale", "fr-FR",
        "--extra-header", "X-Team: scrapers",
        "--extra-header", "X-Run: 7",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    headers = json.loads(result.stdout)
    assert headers["User-Agent"] == "cdpkit-cli-agent/1.0"
    assert headers["Accept-Language"] == "fr-FR,fr;q=0.9"
    assert (headers["X-Team"], headers["X-Run"]) == ("scrapers", "7")


def test_scrape_through_an_authenticating_proxy_never_prints_the_password(
    cli: CLI, server: FixtureServer, auth_proxy: ProxyServer
) -> None:
    proxy = f"http://{PROXY_USER}:{PROXY_PASSWORD}@{auth_proxy.url.removeprefix('http://')}"
    result = cli.run(
        "scrape", server.url("/echo/headers"), "--format", "text",
        "--proxy", proxy, "--user-agent", "cdpkit-cli-agent/2.0", "--timezone", "Europe/Paris",
        "--debug",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "cdpkit-cli-agent/2.0" in result.stdout and "cdpkit-test-proxy" in result.stdout
    assert auth_proxy.forwarded("/echo/headers")
    assert PROXY_PASSWORD not in result.stdout + result.stderr


def test_bad_identity_options_name_the_option(cli: CLI) -> None:
    cases = [
        (["--timezone", "Mars/Olympus"], "Invalid --timezone 'Mars/Olympus'"),
        (["--locale", "fr FR"], "Invalid --locale 'fr FR'"),
        (["--extra-header", "no colon"], "Invalid --extra-header"),
        (["--proxy", "proxy.example:3128"], "Invalid --proxy"),
        (["--proxy", "ftp://user:hunter2@proxy:21"], "Invalid --proxy"),
        (["--header", "X-A: 1"], "--extra-header 'Name: value' sends a header"),
    ]
    for args, expected in cases:
        result = cli.run("eval", "data:text/html,x", "1", *args)
        assert result.returncode == 2, (args, result.stderr)
        assert expected in result.stderr, (args, result.stderr)
        assert "hunter2" not in result.stderr


def test_identity_options_are_on_every_browser_command(cli: CLI) -> None:
    for command in ("repl", "screenshot", "pdf", "snapshot", "scrape", "eval", "download",
                    "launch", "open-browser", "mcp"):
        text = cli.run(command, "--help").stdout
        for option in ("--user-agent", "--locale", "--timezone", "--proxy", "--stealth",
                       "--extra-header"):
            assert option in text, (command, option)


def test_mcp_server_options_take_the_identity_options() -> None:
    options = server_options(
        user_agent="agent/1", timezone="Asia/Tokyo", extra_header=["X-A: 1"],
        proxy="http://u:p@127.0.0.1:3128", stealth=True,
    )  # fmt: skip
    settings = options.browser.settings
    assert settings is not None and settings.user_agent == "agent/1"
    assert settings.extra_headers == {"X-A": "1"} and settings.stealth is True
    assert settings.proxy is not None and settings.proxy.password == "p"
    with pytest.raises(CLIError, match="Invalid --timezone"):
        server_options(timezone="Nowhere")


async def test_mcp_pages_send_the_identity(server: FixtureServer) -> None:
    session = await McpSession(
        ["--user-agent", "cdpkit-mcp-agent/3", "--extra-header", "X-Agent: claude"],
        entry=("-m", "cdpkit", "mcp"),
    ).start()
    try:
        await session.call("browser_navigate", {"url": server.url("/echo/headers")})
        result = await session.call("browser_get_visible_text", {})
        assert not result.is_error, text_of(result)
        text = text_of(result)
        assert "cdpkit-mcp-agent/3" in text and "claude" in text
    finally:
        await session.stop()


def test_open_browser_waits_lock_timeout_for_a_busy_profile(cli: CLI, server: FixtureServer) -> None:
    import asyncio

    from cdpkit._core.profiles import ProfileLock

    directory = Path(cli.env["CDPKIT_PROFILES"]) / "busy"
    lock = ProfileLock(directory)
    asyncio.run(lock.acquire(1))
    try:
        started = time.monotonic()
        result = cli.run(
            "open-browser", "--profile", "busy", server.url("/status?code=200"),
            "--lock-timeout", "0.5", "--chrome-arg=--ozone-platform=headless",
        )  # fmt: skip
        elapsed = time.monotonic() - started
    finally:
        lock.release()
    assert result.returncode == 1, result.stderr
    assert "is in use" in result.stderr and "waited 0.5 s" in result.stderr
    assert "(--lock-timeout SECONDS sets how long)" in result.stderr
    assert elapsed < 30  # not the 30 s --timeout


async def test_mcp_with_an_origin_list_and_an_authenticating_proxy(
    server: FixtureServer, auth_proxy: ProxyServer
) -> None:
    # The origin list pauses documents on the browser session (cdpkit.mcp._session) while the
    # page answers its proxy's challenges: both work together.
    proxy = f"http://{PROXY_USER}:{PROXY_PASSWORD}@{auth_proxy.url.removeprefix('http://')}"
    session = await McpSession(
        ["--proxy", proxy, "--allowed-origins", server.origin]
    ).start()
    try:
        await session.call("browser_navigate", {"url": server.url("/echo/headers")})
        result = await session.call("browser_get_visible_text", {})
        assert not result.is_error, text_of(result)
        assert "cdpkit-test-proxy" in text_of(result)
        assert auth_proxy.forwarded("/echo/headers")
    finally:
        await session.stop()


# A password as people type it: "/", "?" and "#" unencoded, which end a URL's user info
# for urlsplit (and for the WHATWG parser), so everything after them used to be shown.
SLASHED_PASSWORD = "hunter2/x?y#z"


def test_a_proxy_password_with_slash_query_hash_is_never_printed(
    cli: CLI, server: FixtureServer
) -> None:
    unreachable = f"http://scraper:{SLASHED_PASSWORD}@127.0.0.1:{closed_port()}"
    bad_port = f"http://scraper:{SLASHED_PASSWORD}@127.0.0.1:notaport"
    no_scheme = f"scraper:{SLASHED_PASSWORD}@proxy.example:3128"
    runs = {
        "unreachable": cli.run("scrape", server.url("/echo/headers"), "--proxy", unreachable,
                               "--timeout", "20"),
        "unreachable --debug": cli.run("scrape", server.url("/echo/headers"), "--proxy",
                                       unreachable, "--timeout", "20", "--debug"),
        "bad port": cli.run("scrape", server.url("/echo/headers"), "--proxy", bad_port),
        "no scheme": cli.run("eval", "data:text/html,x", "1", "--proxy", no_scheme),
        "mcp bad port": cli.run("mcp", "--proxy", bad_port),
    }  # fmt: skip
    for name, result in runs.items():
        assert result.returncode != 0, (name, result.stdout)
        assert "hunter2" not in result.stdout + result.stderr, (name, result.stderr)
    assert "ERR_PROXY_CONNECTION_FAILED" in runs["unreachable"].stderr
    for name in ("bad port", "mcp bad port"):
        assert runs[name].returncode == 2
        assert "Invalid --proxy 'http://127.0.0.1:notaport'" in runs[name].stderr


async def test_mcp_answers_a_proxy_with_a_slashed_password_and_never_shows_it(
    server: FixtureServer,
) -> None:
    proxy_server = ProxyServer(("scraper", SLASHED_PASSWORD)).start()
    session = None
    try:
        proxy = f"http://scraper:{SLASHED_PASSWORD}@{proxy_server.url.removeprefix('http://')}"
        session = await McpSession(["--proxy", proxy]).start()
        navigated = await session.call("browser_navigate", {"url": server.url("/echo/headers")})
        seen = await session.call("browser_get_visible_text", {})
        failed = await session.call("browser_navigate", {"url": "http://127.0.0.1:1/"})
    finally:
        if session is not None:
            await session.stop()
        proxy_server.stop()
    assert not seen.is_error and "cdpkit-test-proxy" in text_of(seen)
    assert proxy_server.forwarded("/echo/headers")
    assert failed.is_error
    for result in (navigated, seen, failed):
        assert "hunter2" not in text_of(result)
