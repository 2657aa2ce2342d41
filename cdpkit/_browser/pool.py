"""A pool of isolated pages, for concurrent scraping, on one local browser or on browsers
leased from a Selenium Grid.

``async with cdpkit.pool(max_size=4) as pool`` launches one browser and gives, with
``async with pool.page() as page``, a page in a fresh isolated context (own cookies and
storage), discarded afterwards. Pages are made as callers come (lazily). At most
``max_size`` pages are out at once; further callers queue, each waiting up to
``queue_timeout``. ``min_size`` fresh pages are kept ready ahead of the callers; when no
page is out for ``idle_timeout`` seconds, what is above ``min_size`` is closed (a local
pool with ``min_size=0`` closes its browser, and launches it again on the next request).
A crashed page or context is simply discarded; if the browser itself dies, the next
caller gets a newly launched one, with the same settings.

``pool(profile="NAME")`` is the master-profile mode: one browser on that persistent
profile (holding its lock), every caller sharing its cookies and storage, and so one
caller at a time.

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
from typing import TYPE_CHECKING, Any

from .._core.keywords import IdentityKeywords
from .._core.tasks import run_in_background
from ..browser import Browser, BrowserContext
from ..errors import CDPError, WaitTimeoutError
from ..page import Page
from . import grid as _grid
from .starting import launch

if TYPE_CHECKING:
    from .settings import BrowserSettings

__all__ = ["Pool", "pool"]

# pool()'s keywords that are browser settings (see cdpkit.BrowserSettings).
_SETTINGS_KEYS = ("settings", *IdentityKeywords.__annotations__)


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
        max_size: How many pages may be out at once (also ``size``).
        min_size: How many workers are kept when idle: fresh pages ready for the next
            callers (a grid pool: leased sessions).
        queue_timeout: Seconds a caller waits for a free page (also ``acquire_timeout``).
        idle_timeout: Seconds without a page out after which what is above ``min_size``
            is closed.
        launches: How many browsers the pool has started (launched, or leased from the grid).
    """

    def __init__(
        self,
        size: int,
        acquire_timeout: float,
        launch_options: dict[str, Any],
        grid_url: str | None = None,
        grid_options: Mapping[str, Any] | None = None,
        *,
        min_size: int = 0,
        idle_timeout: float = 30,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool(max_size=...) must be at least 1, got {size}")
        if not 0 <= min_size <= size:
            raise ValueError(
                f"pool(min_size=...) must be from 0 to max_size ({size}), got {min_size}"
            )
        if not acquire_timeout > 0:
            raise ValueError(f"pool(queue_timeout=...) must be a positive number of seconds, "
                             f"got {acquire_timeout}")
        if not idle_timeout > 0:
            raise ValueError(f"pool(idle_timeout=...) must be a positive number of seconds, "
                             f"got {idle_timeout}")
        self._shared_profile = launch_options.get("profile") is not None or (
            launch_options.get("user_data_dir") is not None
        )
        if self._shared_profile and size > 1:
            raise ValueError(
                "pool(profile=...) serves one caller at a time: every page shares the "
                f"profile's cookies and storage; max_size must be 1, got {size}"
            )
        self._grid_settings: BrowserSettings | None = None
        if grid_url is not None:
            # The settings apply to grid sessions too (flags for the node's Chrome, the rest
            # to every page); other launch options do not.
            given = {name: launch_options.pop(name) for name in _SETTINGS_KEYS
                     if name in launch_options}
            from .settings import resolve_settings

            self._grid_settings = resolve_settings(given.pop("settings", None), given)
        if grid_url is not None and launch_options:
            raise ValueError(
                f"pool(grid=...) launches nothing: launch options {sorted(launch_options)} do "
                "not apply; pass grid_options={...} (see cdpkit.grid) instead"
            )
        self.max_size = size
        self.min_size = min_size
        self.queue_timeout = acquire_timeout
        self.idle_timeout = idle_timeout
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
        self._tasks: set[asyncio.Task[Any]] = set()
        self._creations: set[asyncio.Future[_Lease]] = set()
        self._open = False
        self.launches = 0
        self._busy = 0  # pages out now
        self._ready: list[tuple[BrowserContext, Page]] = []  # fresh pages kept for callers
        self._preparing = 0
        self._idle_timer: asyncio.TimerHandle | None = None

    @property
    def size(self) -> int:
        """``max_size``, by its earlier name."""
        return self.max_size

    @property
    def acquire_timeout(self) -> float:
        """``queue_timeout``, by its earlier name."""
        return self.queue_timeout

    @property
    def browser(self) -> Browser:
        """The pool's current browser (a local pool only: a grid pool has several)."""
        if self._grid_url is not None:
            raise RuntimeError("A grid pool has one browser per page: use pool.page()")
        if not self._open:
            raise RuntimeError("The pool is not open: use `async with cdpkit.pool(...)`")
        if self._browser is None:
            raise RuntimeError(
                "The pool closed its browser after idle_timeout without a page out "
                "(min_size=0); the next pool.page() launches a new one"
            )
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
                    if creation is None and len(self._leases) + self._creating < self.max_size:
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
            options = dict(self._grid_options)
            if self._grid_settings is not None:
                options["args"] = [*options.get("args", ()), *self._grid_settings.launch_args()]
            session = _grid.grid(self._grid_url, **options)
            browser = await session.__aenter__()
            browser.settings = self._grid_settings  # the pages' contexts get them
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
        run_in_background(coroutine, self._tasks, what="A background pool task")

    @contextlib.asynccontextmanager
    async def page(self) -> AsyncIterator[Page]:
        """A page in a fresh isolated context, closed with its context afterwards (with
        ``profile=``: a page of the profile's own context, closed afterwards).

        Raises:
            WaitTimeoutError: All ``max_size`` pages stayed out for ``queue_timeout``.
            GridError: (grid pools) the grid could not give a browser.
        """
        if not self._open:
            raise RuntimeError("The pool is not open: use `async with cdpkit.pool(...)`")
        try:
            async with asyncio.timeout(self.queue_timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise WaitTimeoutError(
                f"a free page in the pool (all {self.max_size} in use; "
                "pool(queue_timeout=...) sets how long to wait, pool(max_size=...) how many)",
                self.queue_timeout,
            ) from None
        self._busy += 1
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        lease: _Lease | None = None
        try:
            if self._grid_url is not None:
                lease = await self._lease()
                context = await lease.browser.new_context()
                page = await context.new_page()
            elif self._shared_profile:
                page = await (await self._live_browser()).new_page()
                context = None
            else:
                context, page = await self._fresh_page()
            try:
                yield page
            finally:
                with contextlib.suppress(CDPError):
                    await (context.close() if context is not None else page.close())
        finally:
            if lease is not None:
                self._idle.append(lease)
                await self._notify()
            self._busy -= 1
            self._slots.release()
            self._after_release()

    async def _fresh_page(self) -> tuple[BrowserContext, Page]:
        """A ready page kept for callers (unused, in its own context), else a new one."""
        while self._ready:
            context, page = self._ready.pop(0)
            if not page.closed:
                return context, page
            with contextlib.suppress(CDPError):
                await context.close()
        return await self._new_page()

    async def _new_page(self) -> tuple[BrowserContext, Page]:
        browser = await self._live_browser()
        context = await browser.new_context()
        try:
            return context, await context.new_page()
        except BaseException:
            with contextlib.suppress(CDPError):
                await context.close()
            raise

    def _after_release(self) -> None:
        """Keep ``min_size`` workers ready; start the idle timer when nothing is out."""
        if not self._open:
            return
        if self._grid_url is None and not self._shared_profile:
            missing = self.min_size - self._busy - len(self._ready) - self._preparing
            for _ in range(max(0, missing)):
                self._background(self._prepare())
        if self._busy == 0 and self._idle_timer is None:
            loop = asyncio.get_running_loop()
            self._idle_timer = loop.call_later(
                self.idle_timeout, lambda: self._background(self._close_idle())
            )

    async def _prepare(self) -> None:
        self._preparing += 1
        try:
            ready = await self._new_page()
        except CDPError:
            return  # the next caller makes its own (and sees the error, if it lasts)
        finally:
            self._preparing -= 1
        if self._open:
            self._ready.append(ready)
        else:
            with contextlib.suppress(CDPError):
                await ready[0].close()

    async def _close_idle(self) -> None:
        """What is above ``min_size`` once nothing was out for ``idle_timeout``."""
        self._idle_timer = None
        if self._busy or not self._open:
            return
        if self._grid_url is not None:
            async with self._changed:
                surplus = self._idle[self.min_size:]
                del self._idle[self.min_size:]
            for lease in surplus:
                self._leases.discard(lease)
                await lease.release()
        elif self.min_size == 0 and self._browser is not None:
            browser, self._browser = self._browser, None
            self._ready.clear()
            await browser.close()

    @property
    def workers(self) -> int:
        """How many workers the pool holds now: pages out and pages kept ready (a grid
        pool: leased sessions)."""
        if self._grid_url is not None:
            return len(self._leases)
        return self._busy + len(self._ready)

    async def __aenter__(self) -> Pool:
        self._open = True
        if self._grid_url is None:
            await self._live_browser()  # a launch failure shows here, not at the first page
            if self.min_size > 0 and not self._shared_profile:
                self._after_release()
        elif self.min_size > 0:
            leases = await asyncio.gather(*(self._lease() for _ in range(self.min_size)))
            self._idle.extend(leases)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._open = False
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        self._ready.clear()
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
    size: int | None = None,
    *,
    min_size: int = 0,
    max_size: int | None = None,
    queue_timeout: float | None = None,
    idle_timeout: float = 30,
    acquire_timeout: float | None = None,
    grid: str | None = None,
    grid_options: Mapping[str, Any] | None = None,
    **launch_options: Any,
) -> Pool:
    """A pool of up to ``max_size`` concurrent isolated pages, on one launched browser or
    on browsers leased from a Selenium Grid.

    Args:
        size: ``max_size``, by its earlier name.
        min_size: Workers kept when idle: fresh pages made ready ahead of the callers
            (a grid pool: sessions kept leased). With 0 a local pool closes its browser
            after ``idle_timeout`` without a page out, and launches it again when needed.
        max_size: How many pages may be out at once (default 4; 1 with ``profile=``).
        queue_timeout: Seconds a caller waits for a free page before
            :class:`~cdpkit.WaitTimeoutError` (default 60; also ``acquire_timeout``).
        idle_timeout: Seconds with no page out after which the workers above
            ``min_size`` are closed.
        grid: A Selenium Grid 4 URL: lease up to ``max_size`` browsers from it (one
            session each, spread over its nodes) instead of launching Chrome.
        grid_options: Passed to :func:`cdpkit.grid` for each session (``capabilities``,
            ``headers``, ``args``, ``session_timeout``...).
        launch_options: Passed to :func:`cdpkit.launch` (headless, executable_path,
            ``settings=`` and its shortcuts such as ``user_agents=[...]``, rotated over
            the pages' contexts...); with ``grid`` only the settings. ``profile="NAME"`` is the
            master-profile mode: every page in the profile's own context (its cookies and
            storage), one caller at a time.

    Raises:
        ValueError: Sizes that make no sense, ``size`` and ``max_size`` that disagree,
            or ``max_size`` > 1 with ``profile=``.

    Usage::

        async with cdpkit.pool(max_size=4) as pool:
            async def fetch(url):
                async with pool.page() as page:
                    return await tools.scrape(page, url)
            results = await asyncio.gather(*(fetch(u) for u in urls))
    """
    if size is not None and max_size is not None and size != max_size:
        raise ValueError(f"pool(size={size}, max_size={max_size}): give one (size is max_size)")
    if queue_timeout is not None and acquire_timeout is not None and queue_timeout != acquire_timeout:
        raise ValueError("pool(queue_timeout=..., acquire_timeout=...): give one (the same setting)")
    shared_profile = launch_options.get("profile") or launch_options.get("user_data_dir")
    largest = max_size if max_size is not None else size
    if largest is None:
        largest = 1 if shared_profile else 4
    wait = queue_timeout if queue_timeout is not None else acquire_timeout
    return Pool(
        largest,
        60 if wait is None else wait,
        launch_options,
        grid,
        grid_options,
        min_size=min_size,
        idle_timeout=idle_timeout,
    )
