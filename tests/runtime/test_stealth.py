"""stealth: honest by default; the maintained evasions on request, plus a script of your own."""

from __future__ import annotations

from pathlib import Path

import cdpkit
from cdpkit import tools
from tests.server import FixtureServer


async def verdict(page: cdpkit.Page, server: FixtureServer) -> str:
    """The stealth check page's verdict: ``PASS`` or ``FAIL: <the tells it found>``."""
    await tools.navigate(page, server.url("/runtime/stealth.html"))
    await tools.wait_for(page, text="\"failures\"")
    return str(await tools.evaluate(page, "document.title"))


async def test_without_stealth_the_check_page_sees_an_automated_headless_chrome(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    result = await verdict(page, server)
    assert result.startswith("FAIL:")
    assert "webdriver" in result and "user agent" in result


async def test_a_stealth_context_passes_the_check_page(
    browser: cdpkit.Browser, server: FixtureServer
) -> None:
    async with await browser.new_context(stealth=True, locale="en-GB") as context:
        page = await context.new_page()
        assert await verdict(page, server) == "PASS"
        agent = await tools.evaluate(page, "navigator.userAgent")
        languages = await tools.evaluate(page, "navigator.languages")
    assert "HeadlessChrome" not in agent and "Chrome/" in agent
    assert languages == ["en-GB", "en"]


async def test_stealth_at_launch_with_a_custom_script(server: FixtureServer, tmp_path: Path) -> None:
    script = tmp_path / "extra.js"
    script.write_text("window.customEvasion = typeof navigator.webdriver + ':' + !!window.chrome.runtime;")
    async with cdpkit.launch(stealth=script) as browser:
        page = browser.pages[0]
        assert await verdict(page, server) == "PASS"
        # The custom script ran after the built-in evasions, in every document.
        assert await tools.evaluate(page, "window.customEvasion") == "boolean:true"
        popup = await browser.new_page(server.url("/runtime/stealth.html"))
        assert await tools.evaluate(popup, "navigator.webdriver") is False
