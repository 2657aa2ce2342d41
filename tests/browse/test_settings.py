"""The browse engine presents the identity of :class:`cdpkit.BrowserSettings` at every
tier: what the server sees (user agent, language, extra headers, DNT), through the proxy
with its credentials, from ``settings=``, the config file's ``[browser]`` table and the
command line (``cdpkit browse --user-agent ... --respect-robots``)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from websockets.frames import Frame

import cdpkit
from tests.fixtures.proxy import ProxyServer
from tests.server import FixtureServer, Handler

IDENTITY = cdpkit.BrowserSettings(
    user_agent="AgentX/1.0 (identity test)",
    locale="fr-FR",
    extra_headers={"X-Team": "research"},
    send_dnt=True,
)


def _all_headers(handler: Handler) -> None:
    """Every request header as a line of an HTML page (names lower-cased), so that the
    browser tiers read it as a page too."""
    items = "".join(f"<li>{name.lower()} = {value}</li>" for name, value in handler.headers.items())
    handler.reply(200, f"<title>Headers</title><p>The headers this request carried.</p><ul>{items}</ul>")


@pytest.fixture(scope="session")
def headers_url(browse_server: FixtureServer) -> str:
    browse_server.route("/browse/all-headers", _all_headers)
    return browse_server.url("/browse/all-headers")


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = ProxyServer(credentials=("scout", "s3cret")).start()
    try:
        yield server
    finally:
        server.stop()


def _assert_identity(content: str) -> None:
    assert "user-agent = AgentX/1.0 (identity test)" in content
    assert "accept-language = fr-FR,fr;q=0.9" in content
    assert "x-team = research" in content
    assert "dnt = 1" in content


async def test_tier_1_sends_the_settings_identity(headers_url: str) -> None:
    async with cdpkit.engine(settings=IDENTITY) as engine:
        result = await engine.browse(headers_url, tier=1, format="text")
    assert result.tier_used == 1
    _assert_identity(result.content)


async def test_tier_3_pages_get_the_same_identity(browser: cdpkit.Browser, headers_url: str) -> None:
    async with cdpkit.engine(browser=browser, settings=IDENTITY) as engine:
        result = await engine.browse(headers_url, tier=3, format="text")
    assert result.tier_used == 3
    _assert_identity(result.content)


async def test_browse_takes_settings(headers_url: str) -> None:
    result = await cdpkit.browse(headers_url, tier=1, format="text", settings=IDENTITY)
    _assert_identity(result.content)


async def test_without_settings_tier_1_stays_honest(headers_url: str) -> None:
    result = await cdpkit.browse(headers_url, tier=1, format="text")
    assert "user-agent = cdpkit/" in result.content
    assert "x-team" not in result.content and "dnt = 1" not in result.content


async def test_tier_1_goes_through_the_proxy_with_its_credentials(proxy: ProxyServer, headers_url: str) -> None:
    port = proxy.server_address[1]
    settings = cdpkit.BrowserSettings(proxy=f"http://scout:s3cret@127.0.0.1:{port}", user_agent="ViaProxy/1.0")
    async with cdpkit.engine(settings=settings) as engine:
        result = await engine.browse(headers_url, tier=1, format="text")
    assert "user-agent = ViaProxy/1.0" in result.content
    passed = proxy.forwarded("/browse/all-headers")
    assert len(passed) == 1
    assert passed[0].headers.get("User-Agent") == "ViaProxy/1.0"
    assert all(p.allowed for p in proxy.passed), "credentials were sent with the request, no 407"


async def test_user_agents_rotate_per_session(headers_url: str) -> None:
    settings = cdpkit.BrowserSettings(user_agents=("Alpha/1.0", "Beta/1.0"))
    async with cdpkit.engine(settings=settings) as engine:
        first = await engine.browse(headers_url, tier=1, format="text", session="one")
        second = await engine.browse(headers_url, tier=1, format="text", session="two")
        again = await engine.browse(headers_url, tier=1, format="text", session="one")
    assert "user-agent = Alpha/1.0" in first.content
    assert "user-agent = Beta/1.0" in second.content
    assert "user-agent = Alpha/1.0" in again.content  # a session keeps its user agent


async def test_the_config_files_browser_identity_reaches_tier_1(config_file: Path, headers_url: str) -> None:
    config_file.write_text('[browser]\nlocale = "de-DE"\nuser_agent = "ConfigAgent/2.0"\nheadless = true\n')
    async with cdpkit.engine() as engine:
        result = await engine.browse(headers_url, tier=1, format="text")
    assert "user-agent = ConfigAgent/2.0" in result.content
    assert "accept-language = de-DE,de;q=0.9" in result.content


async def test_settings_given_go_over_the_config_files(config_file: Path, headers_url: str) -> None:
    config_file.write_text('[browser]\nlocale = "de-DE"\nuser_agent = "ConfigAgent/2.0"\n')
    settings = cdpkit.BrowserSettings(user_agent="Given/3.0")
    async with cdpkit.engine(settings=settings) as engine:
        result = await engine.browse(headers_url, tier=1, format="text")
    assert "user-agent = Given/3.0" in result.content
    assert "accept-language = de-DE,de;q=0.9" in result.content  # the config's, kept


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('locale = "not a locale!"', "[browser] locale"),
        ('send_dnt = "yes"', "[browser] send_dnt must be true or false"),
        ('proxy = "ftp://proxy:21"', "[browser] proxy"),
        ('user_agnet = "typo"', "unknown key [browser] user_agnet"),
    ],
)
def test_a_wrong_identity_key_names_file_table_and_key(config_file: Path, line: str, words: str) -> None:
    config_file.write_text(f"[browser]\n{line}\n")
    with pytest.raises(ValueError) as caught:
        cdpkit.engine()
    assert str(config_file) in str(caught.value)
    assert words in str(caught.value)


def _run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CDPKIT_CONFIG": str(home / "config.toml"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "HOME": str(home),
    }
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", "browse", *args],
        capture_output=True, text=True, timeout=60, env=env, cwd=home,
    )  # fmt: skip


def test_cli_identity_options_reach_tier_1(headers_url: str, tmp_path: Path) -> None:
    done = _run(
        headers_url, "--tier", "1", "--format", "text", "--user-agent", "CliAgent/1.0",
        "--locale", "it-IT", "--extra-header", "X-Team: research", home=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "user-agent = CliAgent/1.0" in done.stdout
    assert "accept-language = it-IT,it;q=0.9" in done.stdout
    assert "x-team = research" in done.stdout


def test_cli_respect_robots_refuses_a_disallowed_url(browse_server: FixtureServer, tmp_path: Path) -> None:
    url = browse_server.url("/browse/private/page.html")
    done = _run(url, "--user-agent", "Mozilla/5.0 (X11; Linux) RobotsTest", "--respect-robots", home=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "http.robots" in done.stderr
    assert "for Mozilla" in done.stderr  # matched with the user agent's product token
    assert "secret" not in done.stdout
    allowed = _run(url, "--user-agent", "Mozilla/5.0 (X11; Linux) RobotsTest", "--tier", "1", home=tmp_path)
    assert allowed.returncode == 0, allowed.stderr  # without --respect-robots it is read


async def test_wrong_proxy_credentials_say_so_without_the_password(proxy: ProxyServer, headers_url: str) -> None:
    port = proxy.server_address[1]
    settings = cdpkit.BrowserSettings(proxy=f"http://scout:wrong-pass@127.0.0.1:{port}")
    async with cdpkit.engine(settings=settings) as engine:
        with pytest.raises(cdpkit.BrowseError) as caught:
            await engine.browse(headers_url, tier=1)
    assert caught.value.code == "http.407"
    assert "proxy" in str(caught.value) and "credentials" in str(caught.value)
    assert "wrong-pass" not in str(caught.value)


@pytest.mark.parametrize("tier", [2, 3])
async def test_the_browser_tiers_go_through_the_proxy_with_its_credentials(
    browser: cdpkit.Browser, proxy: ProxyServer, headers_url: str, tier: int
) -> None:
    port = proxy.server_address[1]
    settings = cdpkit.BrowserSettings(proxy=f"http://scout:s3cret@127.0.0.1:{port}", user_agent="ViaProxy/2.0")
    async with cdpkit.engine(browser=browser, settings=settings) as engine:
        result = await engine.browse(headers_url, tier=tier, format="text")
    assert result.tier_used == tier
    assert "user-agent = ViaProxy/2.0" in result.content
    assert any(p.headers.get("User-Agent") == "ViaProxy/2.0" for p in proxy.forwarded("/browse/all-headers"))


async def test_storage_state_cookies_reach_tier_1(browse_server: FixtureServer, tmp_path: Path) -> None:
    state = tmp_path / "login.json"
    cookie = {"name": "login", "value": "from-state", "domain": "127.0.0.1", "path": "/", "expires": -1,
              "httpOnly": False, "secure": False, "sameSite": "Lax"}  # fmt: skip
    state.write_text(json.dumps({"cookies": [cookie], "origins": []}))
    settings = cdpkit.BrowserSettings(storage_state=state)
    async with cdpkit.engine(settings=settings) as engine:
        result = await engine.browse(browse_server.url("/browse/echo-cookie"), tier=1, format="text")
    assert "login=from-state" in result.content


# -- the identity as engine() keywords --------------------------------------------------------


async def test_engine_takes_the_identity_as_keywords(browser: cdpkit.Browser, headers_url: str) -> None:
    async with cdpkit.engine(
        user_agent="AgentX/1.0 (identity test)", locale="fr-FR", send_dnt=True, extra_headers={"X-Team": "research"}
    ) as engine:
        static = await engine.browse(headers_url, tier=1, format="text")
    async with cdpkit.engine(
        browser=browser, user_agent="AgentX/1.0 (identity test)", locale="fr-FR", send_dnt=True,
        extra_headers={"X-Team": "research"},
    ) as engine:  # fmt: skip
        rendered = await engine.browse(headers_url, tier=3, format="text")
    _assert_identity(static.content)
    _assert_identity(rendered.content)


async def test_engine_identity_keywords_go_over_settings_and_the_config(config_file: Path, headers_url: str) -> None:
    config_file.write_text('[browser]\nlocale = "de-DE"\nuser_agent = "ConfigAgent/2.0"\n')
    settings = cdpkit.BrowserSettings(user_agent="Given/3.0", extra_headers={"X-Team": "research"})
    async with cdpkit.engine(settings=settings, user_agent="Keyword/4.0") as engine:
        result = await engine.browse(headers_url, tier=1, format="text")
    assert "user-agent = Keyword/4.0" in result.content
    assert "x-team = research" in result.content  # settings=, kept
    assert "accept-language = de-DE,de;q=0.9" in result.content  # the config's, kept


async def test_engine_proxy_keyword_carries_tier_1(proxy: ProxyServer, headers_url: str) -> None:
    port = proxy.server_address[1]
    async with cdpkit.engine(proxy=f"http://scout:s3cret@127.0.0.1:{port}") as engine:
        await engine.browse(headers_url, tier=1, format="text")
    assert len(proxy.forwarded("/browse/all-headers")) == 1


def test_engine_refuses_an_unknown_keyword_naming_the_accepted_ones() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'user_agnet'") as caught:
        cdpkit.engine(user_agnet="x")  # type: ignore[call-arg]
    assert "user_agent" in str(caught.value) and "proxy" in str(caught.value)
    assert "session" in str(caught.value)  # the tables too
    with pytest.raises(TypeError, match="'viewport'"):
        cdpkit.Engine(viewport={"width": 800})  # type: ignore[call-arg]


async def test_no_log_record_shows_the_proxy_password_at_any_tier(
    headers_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every logger at DEBUG (cdpkit's, websockets' frames in full, httpx's and httpcore's),
    # a password with the characters a URL would split on, unencoded.
    monkeypatch.setattr(Frame, "MAX_LOG_SIZE", 100_000)
    password = "pa55/w?rd#x"
    proxy_server = ProxyServer(credentials=("scout", password)).start()
    caplog.set_level(logging.DEBUG)
    try:
        url = f"http://scout:{password}@127.0.0.1:{proxy_server.server_address[1]}"
        async with cdpkit.engine(proxy=url) as engine:  # its own browser: CDP over a websocket
            static = await engine.browse(headers_url, tier=1, format="text")
            rendered = await engine.browse(headers_url, tier=3, format="text")
    finally:
        proxy_server.stop()
    assert static.tier_used == 1 and rendered.tier_used == 3
    assert len(proxy_server.forwarded("/browse/all-headers")) == 2  # both went through it
    logged = caplog.text
    assert "httpx" in {record.name.split(".")[0] for record in caplog.records}  # the HTTP client logged
    assert "Fetch.continueWithAuth" in logged  # the browser's answer to the proxy was logged
    for spelling in (password, quote(password, safe=""), quote(password), "pa55"):
        assert spelling not in logged, spelling
