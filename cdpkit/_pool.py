"""A pool of isolated pages on one browser, for concurrent scraping.

``async with cdpkit.pool(size=4) as pool`` launches one browser; ``async with pool.page()
as page`` gives a page in a fresh isolated context (own cookies and storage), discarded
afterwards. At most ``size`` pages are out at once; further callers queue, each waiting
up to ``acquire_timeout``. A crashed page or context is simply discarded; if the browser
itself dies, the next caller gets a newly launched one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

from .browser import Browser, launch
from .errors import CDPError, WaitTimeoutError
from .page import Page

__all__ = ["Pool", "pool"]


class Pool:
    """Hands out isolated pages on a shared browser; see :func:`pool`."""

    def __init__(self, size: int, acquire_timeout: float, launch_options: dict[str, Any]) -> None:
        if size < 1:
            raise ValueError(f"Pool size must be at least 1, got {size}")
        self.size = size
        self.acquire_timeout = acquire_timeout
        self._launch_options = launch_options
        self._slots = asyncio.Semaphore(size)
        self._browser: Browser | None = None
        self._relaunch = asyncio.Lock()
        self.launches = 0

    @property
    def browser(self) -> Browser:
        """The pool's current browser."""
        if self._browser is None:
            raise RuntimeError("The pool is not open: use `async with cdpkit.pool(...)`")
        return self._browser

    async def _live_browser(self) -> Browser:
        async with self._relaunch:
            if self._browser is None or self._browser.closed:
                if self._browser is not None:
                    await self._browser.close()
                self._browser = await launch(**self._launch_options)
                self.launches += 1
            return self._browser

    @contextlib.asynccontextmanager
    async def page(self) -> AsyncIterator[Page]:
        """A page in a fresh isolated context, closed with its context afterwards.

        Raises:
            WaitTimeoutError: No slot became free within ``acquire_timeout``.
        """
        try:
            async with asyncio.timeout(self.acquire_timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise WaitTimeoutError("a free page in the pool", self.acquire_timeout) from None
        try:
            browser = await self._live_browser()
            context = await browser.new_context()
            try:
                yield await context.new_page()
            finally:
                with contextlib.suppress(CDPError):
                    await context.close()
        finally:
            self._slots.release()

    async def __aenter__(self) -> Pool:
        await self._live_browser()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None


def pool(size: int = 4, *, acquire_timeout: float = 60, **launch_options: Any) -> Pool:
    """A pool of ``size`` concurrent isolated pages on one launched browser.

    Args:
        size: How many pages may be out at once.
        acquire_timeout: Seconds a caller waits for a free page.
        launch_options: Passed to :func:`cdpkit.launch` (headless, executable_path...).

    Usage::

        async with cdpkit.pool(size=4) as pool:
            async def fetch(url):
                async with pool.page() as page:
                    return await tools.scrape(page, url)
            results = await asyncio.gather(*(fetch(u) for u in urls))
    """
    return Pool(size, acquire_timeout, launch_options)
