"""Every page of a launched browser has the configured viewport: 1280x720 by default."""

from __future__ import annotations

import asyncio

import cdpkit
from cdpkit import cdp, tools


async def viewport_of(page: cdpkit.Page) -> list[int]:
    result = await page.send(
        cdp.runtime.evaluate("[innerWidth, innerHeight]", return_by_value=True)
    )
    return list(result.result.value)


async def test_default_viewport_is_1280_by_720(page: cdpkit.Page) -> None:
    assert await viewport_of(page) == [1280, 720]


async def test_the_first_tab_keeps_the_viewport_after_it_navigates() -> None:
    # The tab Chrome opens at start once lost 56 px to an info bar (--no-sandbox as root).
    async with cdpkit.launch() as browser:
        first = browser.pages[0]
        await tools.navigate(first, "data:text/html,<p>first")
        assert await viewport_of(first) == [1280, 720]


async def test_custom_viewport_applies_to_tabs_contexts_and_popups() -> None:
    async with cdpkit.launch(viewport=(1024, 600)) as browser:
        tab = await browser.new_page()
        async with await browser.new_context() as context:
            isolated = await context.new_page()
            async with browser.listen(cdp.target.TargetCreated) as created:
                await isolated.send(cdp.runtime.evaluate("window.open('about:blank')"))
                await asyncio.wait_for(anext(created), 10)
            for _ in range(100):
                popups = [p for p in context.pages if p is not isolated]
                if popups:
                    break
                await asyncio.sleep(0.02)
            await popups[0]._ready
            sizes = [await viewport_of(p) for p in (tab, isolated, popups[0])]
    assert sizes == [[1024, 600]] * 3
