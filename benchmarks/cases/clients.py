"""Untimed set-up shared by the cases: a launched browser with one page loaded, per client.

Each waits ``settle_seconds`` before handing the page over (see :class:`~benchmarks.common.Sizes`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from benchmarks import raw_client
from benchmarks.cases.base import Ctx
from benchmarks.common import CDPKIT_ARGS


@contextlib.asynccontextmanager
async def raw_page(ctx: Ctx, path: str | None = None
                   ) -> AsyncIterator[tuple[raw_client.RawClient, str]]:
    """Yield the raw client and the session id of a page showing ``path`` (Page enabled)."""
    async with raw_client.launch(ctx.chrome, ctx.chrome_flags, pipe=ctx.pipe) as client:
        url = None if path is None else ctx.base_url + path
        session = await client.open_page(url)
        await asyncio.sleep(ctx.sizes.settle_seconds)
        yield client, session


@contextlib.asynccontextmanager
async def cdpkit_page(ctx: Ctx, path: str | None = None) -> AsyncIterator[Any]:
    """Yield a cdpkit Page showing ``path`` (Page enabled)."""
    import cdpkit

    async with cdpkit.launch(executable_path=ctx.chrome, pipe=ctx.pipe,
                             args=CDPKIT_ARGS) as browser:
        page = await browser.new_page()
        await page.send(cdpkit.cdp.page.enable())
        if path is not None:
            await cdpkit_load(page, ctx.base_url + path)
        await asyncio.sleep(ctx.sizes.settle_seconds)
        yield page


async def cdpkit_load(page: Any, url: str) -> None:
    from cdpkit import cdp

    async with page.expect(cdp.page.LoadEventFired):
        await page.send(cdp.page.navigate(url))


@contextlib.asynccontextmanager
async def playwright_page(ctx: Ctx, path: str | None = None) -> AsyncIterator[Any]:
    """Yield a Playwright Page showing ``path``; Chrome is the one the other clients use."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=ctx.chrome,
                                                   args=list(ctx.chrome_flags))
        page = await browser.new_page()
        if path is not None:
            await page.goto(ctx.base_url + path)
        await asyncio.sleep(ctx.sizes.settle_seconds)
        yield page
        await browser.close()
