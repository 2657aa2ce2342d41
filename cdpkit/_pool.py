"""A pool of isolated pages, for concurrent scraping, on one local browser or on browsers
leased from a Selenium Grid.

``async with cdpkit.pool(size=4) as pool`` launches one browser; ``async with pool.page()
as page`` gives a page in a fresh isolated context (own cookies and storage), discarded
afterwards. At most ``size`` pages are out at once; further callers queue, each waiting
up to ``acquire_timeout``. A crashed page or context is simply discarded; if the browser
itself dies, the next caller gets a newly launched one.

With ``grid=URL`` the pool launches nothing: it leases up to ``size`` browsers from the
grid (one WebDriver session each, so the grid spreads them over its nodes), gives each
page a browser of its own for its time, and replaces a session that crashed or that the
grid expired. Every session is deleted when the pool closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine, Mapping
from types import TracebackType
from typing import Any

from . import _grid
from .browser import Browser, launch
from .errors import CDPError, WaitTimeoutError
from .page import Page

__all__ = ["Pool", "pool"]


class _Lease:
    """A browser leased from a grid, with the session that holds it."""

    def __init__(self, session: _grid.GridBrowser, browser: Browser) -> None:
        self.session = session
        self.browser = browser

    async def release(self) -> None:
        await self.session.__aexit__(None, None, None)


class Pool:
    """Hands out isolated pages on a shared browser, or on grid sessions; see :func:`pool`.

    Attributes:
        size: How many pages may be out at once.
        acquire_timeout: Seconds a caller waits for a free page.
        launches: How many browsers the pool has started (launched, or leased from the grid).
    """

    def __init__(
        self,
        size: int,
        acquire_timeout: float,
        launch_options: dict[str, Any],
        grid_url: str | None = None,
        grid_options: Mapping[str, Any] | None = None,
    ) -> None:
        if size < 1:
            raise ValueError(f"Pool size must be at least 1, got {size}")
        if grid_url is not None and launch_options:
            raise ValueError(
                f"pool(grid=...) launches nothing: launch options {sorted(launch_options)} do "
                "not apply; pass grid_options={...} (see cdpkit.grid) instead"
            )
        self.size = size
        self.acquire_timeout = acquire_timeout
        self._launch_options = launch_options
        self._grid_url = grid_url
        self._grid_options = dict(grid_options or {})
        if grid_url is not None:
            _grid.grid(grid_url, **self._grid_options)  # check the URL and options now
        self._slots = asyncio.Semaphore(size)
        self._browser: Browser | None = None
        self._relaunch = asyncio.Lock()
        self._idle: list[_Lease] = []  # grid sessions not serving a page now
        self._leases: set[_Lease] = set()
        self._creating = 0  # grid sessions being requested
        self._changed = asyncio.Condition()  # a session became idle, or a request ended
        self._tasks: set[asyncio.Future[None]] = set()
        self._creations: set[asyncio.Future[_Lease]] = set()
        self._open = False
        self.launches = 0

    @property
    def browser(self) -> Browser:
        """The pool's current browser (a local pool only: a grid pool has several)."""
        if self._grid_url is not None:
            raise RuntimeError("A grid pool has one browser per page: use pool.page()")
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

    async def _lease(self) -> _Lease:
        """An idle live grid session, or a new one, whichever is ready first.

        A new session is requested only while the pool holds fewer than ``size``; a grid
        with fewer free slots than that queues the request, and a page released meanwhile
        is taken instead, so a pool larger than the grid never stalls. A dead idle session
        (crashed, or expired by the grid) is deleted on the way.
        """
        creation: asyncio.Future[_Lease] | None = None
        try:
            async with self._changed:
                while True:
                    while self._idle:
                        lease = self._idle.pop()
                        if not lease.browser.closed:
                            return lease
                        self._leases.discard(lease)
                        self._background(lease.release())
                    if creation is None and len(self._leases) + self._creating < self.size:
                        creation = asyncio.ensure_future(self._new_lease())
                        self._creations.add(creation)
                        creation.add_done_callback(self._creations.discard)
                        creation.add_done_callback(self._wake)
                    if creation is not None and creation.done():
                        lease = creation.result()  # raises the grid's error
                        creation = None
                        return lease
                    await self._changed.wait()
        finally:
            if creation is not None:  # not taken (an idle one was, or we were cancelled)
                creation.add_done_callback(self._adopt)

    def _adopt(self, creation: asyncio.Future[_Lease]) -> None:
        """A session requested for a caller that took another: idle, for the next one."""
        if creation.cancelled() or creation.exception() is not None:
            return  # nothing was created (a late grid session is deleted by cdpkit.grid)
        self._idle.append(creation.result())
        self._wake()

    async def _new_lease(self) -> _Lease:
        assert self._grid_url is not None
        self._creating += 1
        try:
            session = _grid.grid(self._grid_url, **self._grid_options)
            browser = await session.__aenter__()
            lease = _Lease(session, browser)
            self._leases.add(lease)
            self.launches += 1
            return lease
        finally:
            self._creating -= 1

    def _wake(self, _: object = None) -> None:
        """Wake the callers waiting for a session (from a callback: in a task)."""
        self._background(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @contextlib.asynccontextmanager
    async def page(self) -> AsyncIterator[Page]:
        """A page in a fresh isolated context, closed with its context afterwards.

        Raises:
            WaitTimeoutError: No slot became free within ``acquire_timeout``.
            GridError: (grid pools) the grid could not give a browser.
        """
        if not self._open:
            raise RuntimeError("The pool is not open: use `async with cdpkit.pool(...)`")
        try:
            async with asyncio.timeout(self.acquire_timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise WaitTimeoutError("a free page in the pool", self.acquire_timeout) from None
        lease: _Lease | None = None
        try:
            if self._grid_url is not None:
                lease = await self._lease()
                browser = lease.browser
            else:
                browser = await self._live_browser()
            context = await browser.new_context()
            try:
                yield await context.new_page()
            finally:
                with contextlib.suppress(CDPError):
                    await context.close()
        finally:
            if lease is not None:
                self._idle.append(lease)
                await self._notify()
            self._slots.release()

    async def __aenter__(self) -> Pool:
        self._open = True
        if self._grid_url is None:
            await self._live_browser()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._open = False
        for creation in list(self._creations):
            creation.cancel()  # cdpkit.grid deletes a session that still comes
        await asyncio.gather(*self._creations, return_exceptions=True)
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        leases, self._leases = self._leases, set()
        self._idle.clear()
        await asyncio.gather(*(lease.release() for lease in leases), *self._tasks,
                             return_exceptions=True)


def pool(
    size: int = 4,
    *,
    acquire_timeout: float = 60,
    grid: str | None = None,
    grid_options: Mapping[str, Any] | None = None,
    **launch_options: Any,
) -> Pool:
    """A pool of ``size`` concurrent isolated pages, on one launched browser or on
    browsers leased from a Selenium Grid.

    Args:
        size: How many pages may be out at once.
        acquire_timeout: Seconds a caller waits for a free page.
        grid: A Selenium Grid 4 URL: lease up to ``size`` browsers from it (one session
            each, spread over its nodes) instead of launching Chrome.
        grid_options: Passed to :func:`cdpkit.grid` for each session (``capabilities``,
            ``headers``, ``args``, ``session_timeout``...).
        launch_options: Passed to :func:`cdpkit.launch` (headless, executable_path...);
            not with ``grid``.

    Usage::

        async with cdpkit.pool(size=4) as pool:
            async def fetch(url):
                async with pool.page() as page:
                    return await tools.scrape(page, url)
            results = await asyncio.gather(*(fetch(u) for u in urls))
    """
    return Pool(size, acquire_timeout, launch_options, grid, grid_options)
