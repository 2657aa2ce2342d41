"""BrowserSettings: the identity every page of a context presents, before its first request."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.runtime.conftest import read_identity, until
from tests.server import FixtureServer

FIREFOX_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
CHROME_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/125.0.6422.60 Safari/537.36"
)


async def test_a_context_presents_its_identity_to_pages_and_servers(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    async with await browser.new_context(
        user_agent=CHROME_UA,
        locale="fr-FR",
        timezone="Asia/Tokyo",
        extra_headers={"X-Team": "scrapers"},
        send_dnt=True,
    ) as context:
        page = await context.new_page()
        seen = await read_identity(page, server.url("/runtime/identity.html"))
    assert seen["userAgent"] == CHROME_UA
    assert seen["language"] == "fr-FR" and seen["languages"] == ["fr-FR", "fr"]
    assert seen["timezone"] == "Asia/Tokyo"
    assert seen["locale"] == "fr-FR"
    assert seen["doNotTrack"] == "1"
    headers = seen["headers"]
    assert headers["User-Agent"] == CHROME_UA
    assert headers["Accept-Language"] == "fr-FR,fr;q=0.9"
    assert headers["X-Team"] == "scrapers"
    assert headers["DNT"] == "1"
    # The client hints agree with the user agent (Chrome 125 on Windows).
    assert '"Chromium";v="125"' in headers["sec-ch-ua"]
    assert headers["sec-ch-ua-platform"] == '"Windows"'
    # The very first request (the document itself) carried them too.
    document = [p for p in server.requests if p.startswith("/runtime/identity.html")]
    assert document


async def test_the_first_request_of_a_page_already_carries_the_settings(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    async with await browser.new_context(user_agent=FIREFOX_UA, extra_headers={"X-First": "yes"}) as ctx:
        page = await ctx.new_page(server.url("/echo/headers"))
        body = await tools.evaluate(page, "JSON.parse(document.body.innerText)")
    assert body["User-Agent"] == FIREFOX_UA and body["X-First"] == "yes"
    assert "sec-ch-ua" not in body  # no Chrome client hints for a Firefox user agent


async def test_popups_and_new_tabs_opened_by_the_page_get_the_same_identity(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    async with await browser.new_context(
        user_agent=CHROME_UA, timezone="America/Sao_Paulo", extra_headers={"X-Ident": "42"}
    ) as context:
        page = await context.new_page(server.url("/runtime/identity.html"))
        await tools.click(page, selector="#blank")
        await tools.click(page, selector="#open")  # on the opener, behind the first popup
        await until(lambda: len(context.pages) == 3)
        for popup in context.pages[1:]:
            await until(lambda: "identity.html?popup=" in popup.url)  # noqa: B023
            await tools.wait_for(popup, selector="#blank")
            seen = await read_identity(popup)
            assert seen["userAgent"] == CHROME_UA, popup.url
            assert seen["timezone"] == "America/Sao_Paulo", popup.url
            assert seen["headers"]["User-Agent"] == CHROME_UA
            assert seen["headers"]["X-Ident"] == "42"


async def test_user_agents_rotate_over_contexts(browser: cdpkit.Browser, server: FixtureServer) -> None:
    agents = [f"cdpkit-test-agent/{n}" for n in range(3)]
    settings = cdpkit.BrowserSettings(user_agents=agents)
    seen = []
    for _ in range(3):
        async with await browser.new_context(settings=settings) as context:
            page = await context.new_page(server.url("/echo/headers"))
            seen.append((await tools.evaluate(page, "JSON.parse(document.body.innerText)"))["User-Agent"])
    assert sorted(seen) == agents


async def test_honest_by_default(browser: cdpkit.Browser, page: cdpkit.Page, server: FixtureServer) -> None:
    seen = await read_identity(page, server.url("/runtime/identity.html"))
    assert "HeadlessChrome" in seen["userAgent"]
    assert seen["userAgent"] == browser.version.user_agent
    assert seen["webdriver"] is True
    assert "DNT" not in seen["headers"]


async def test_launch_settings_reach_every_page(server: FixtureServer) -> None:
    async with cdpkit.launch(
        settings=cdpkit.BrowserSettings(locale="de-DE", timezone="Europe/Berlin"),
        user_agent=CHROME_UA,
    ) as browser:
        first = browser.pages[0]
        seen = await read_identity(first, server.url("/runtime/identity.html"))
        assert (seen["userAgent"], seen["language"], seen["timezone"]) == (
            CHROME_UA, "de-DE", "Europe/Berlin"
        )
        assert seen["headers"]["Accept-Language"] == "de-DE,de;q=0.9"
        async with await browser.new_context() as context:  # inherits the browser's
            other = await read_identity(await context.new_page(), server.url("/runtime/identity.html"))
        assert (other["userAgent"], other["timezone"]) == (CHROME_UA, "Europe/Berlin")


def test_invalid_settings_say_which_setting() -> None:
    with pytest.raises(ValueError, match=r"timezone='Mars/Olympus'"):
        cdpkit.BrowserSettings(timezone="Mars/Olympus")
    with pytest.raises(ValueError, match="locale"):
        cdpkit.BrowserSettings(locale="not a locale")
    with pytest.raises(ValueError, match="give the scheme"):
        cdpkit.BrowserSettings(proxy="proxy.example:3128")
    with pytest.raises(ValueError, match="extra_headers"):
        cdpkit.BrowserSettings(extra_headers={"Bad Name": "x"})
    with pytest.raises(ValueError, match="one line"):
        cdpkit.BrowserSettings(extra_headers={"X-Ok": "a\r\nInjected: yes"})
    with pytest.raises(ValueError, match="not both"):
        cdpkit.BrowserSettings(user_agent="a", user_agents=["b"])
    with pytest.raises(ValueError, match="--no-such-flag not among cdpkit's default flags"):
        cdpkit.BrowserSettings(ignore_default_args=["--no-such-flag"])
    with pytest.raises(ValueError, match="stealth"):
        cdpkit.BrowserSettings(stealth="/no/such/script.js")


async def test_invalid_settings_fail_before_anything_starts(browser: cdpkit.Browser) -> None:
    contexts = len(browser.contexts)
    with pytest.raises(ValueError, match="timezone"):
        await browser.new_context(timezone="Nowhere/Special")
    with pytest.raises(ValueError, match="timezone"):
        cdpkit.launch(timezone="Nowhere/Special")
    assert len(browser.contexts) == contexts


def test_from_mapping_refuses_unknown_keys() -> None:
    settings = cdpkit.BrowserSettings.from_mapping(
        {
            "user_agent": "x",
            "proxy": {"server": "http://proxy:3128", "username": "u", "password": "p"},
            "extra_headers": {"X-A": "1"},
        }
    )
    assert settings.proxy == cdpkit.Proxy("http://proxy:3128", "u", "p")
    with pytest.raises(ValueError, match=r"Unknown browser setting user_agnet; known: user_agent, "):
        cdpkit.BrowserSettings.from_mapping({"user_agnet": "x"})
    with pytest.raises(ValueError, match="Unknown proxy setting pass"):
        cdpkit.BrowserSettings.from_mapping({"proxy": {"server": "http://p:1", "pass": "x"}})


def test_ignore_default_args_leaves_out_cdpkit_flags() -> None:
    from cdpkit.launcher import DEFAULT_ARGS

    some = cdpkit.BrowserSettings(ignore_default_args=["--disable-extensions", "--disable-features"])
    kept = some.default_args()
    assert "--disable-extensions" not in kept
    assert not any(arg.startswith("--disable-features") for arg in kept)
    assert len(kept) == len(DEFAULT_ARGS) - 2
    assert cdpkit.BrowserSettings(ignore_default_args=True).default_args() == ()


async def test_ignore_default_args_reach_chrome() -> None:
    async with cdpkit.launch(ignore_default_args=["--disable-extensions"]) as browser:
        assert browser.process is not None
        command_line = Path(f"/proc/{browser.process.pid}/cmdline").read_text().split("\0")
    assert "--disable-extensions" not in command_line
    assert "--disable-sync" in command_line


async def test_connect_applies_settings_to_the_pages_it_opens_not_to_open_tabs(
    browser: cdpkit.Browser, server: FixtureServer, page: cdpkit.Page
) -> None:
    await tools.navigate(page, server.url("/runtime/identity.html"))  # a tab already open
    assert browser.process is not None
    port = (browser.process.user_data_dir / "DevToolsActivePort").read_text().split()[0]
    async with cdpkit.connect(f"http://127.0.0.1:{port}", user_agent=CHROME_UA, timezone="Asia/Tokyo") as attached:
        opened = await attached.new_page()
        seen = await read_identity(opened, server.url("/runtime/identity.html"))
        assert (seen["userAgent"], seen["timezone"]) == (CHROME_UA, "Asia/Tokyo")
        async with await attached.new_context() as context:
            other = await read_identity(await context.new_page(), server.url("/runtime/identity.html"))
        assert other["headers"]["User-Agent"] == CHROME_UA
    untouched = await read_identity(page, server.url("/runtime/identity.html"))
    assert untouched["userAgent"] == browser.version.user_agent
