"""The browser: its targets, contexts and pages (started by :func:`cdpkit.launch` and
:func:`cdpkit.connect`, in :mod:`cdpkit._browser.starting`).

The browser session auto-attaches to every page with flattened sessions, each paused
until cdpkit has set it up (see :mod:`cdpkit.page`), so pages the site opens itself
(``window.open``, ``target=_blank``) are full :class:`~cdpkit.Page` objects too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Unpack

import anyio

from . import cdp
from ._core.keywords import IdentityKeywords, check_keywords, keyword_signature
from ._core.profiles import ProfileLock
from ._core.secrets import get_logger
from ._core.tasks import run_in_background
from ._core.transport import CLOSE_GRACE
from .connection import Connection
from .errors import (
    CDPError,
    CommandTimeoutError,
    ConnectionClosedError,
    PageCrashedError,
    TargetClosedError,
)
from .launcher import (
    ChromeProcess,
)
from .page import Page
from .session import Session

if TYPE_CHECKING:
    from ._browser.page_setup import PageSetup
    from ._browser.settings import BrowserSettings
    from .cdp.browser import GetVersionResult

__all__ = ["Browser", "BrowserContext", "TargetHook"]

log = get_logger("cdpkit")

# How long close() lets a launched browser answer Browser.close before killing it.
_BROWSER_CLOSE_TIMEOUT = 2.0
# At most this (and at most the command timeout) for a connected browser's close().
_DETACH_TIMEOUT = 5.0

# See Browser.before_targets_run: (new session, its parent, its targetInfo) -> awaited first.
TargetHook = Callable[[Session, Session, dict[str, Any]], Awaitable[None]]


class Browser(Session):
    """A browser started by :func:`launch` or attached by :func:`connect`.

    It is also the browser-level session: ``browser.send(cdp.target.get_targets())`` and
    ``browser.listen(cdp.target.TargetCreated)`` work as on any session.

    What the tools know about the browser (e.g. which tab is active, see
    :mod:`cdpkit.tools.tabs`) is kept with :meth:`state`, one typed class per concern.
    """

    def __init__(
        self,
        connection: Connection,
        *,
        process: ChromeProcess | None,
        command_timeout: float,
        settings: BrowserSettings | None = None,
    ) -> None:
        super().__init__(connection, None, command_timeout=command_timeout)
        self.process = process
        self.settings = settings
        self._version: GetVersionResult | None = None
        self._version_json: dict[str, Any] | None = None  # parsed on first read
        self._started = False  # pages attached before (tabs already open) vs after
        self._rotation = 0  # the next of settings.user_agents for a new context
        self._setups: dict[str | None, PageSetup | None] = {}
        self._profile_lock: ProfileLock | None = None
        self._pages: dict[str, Page] = {}
        self._page_arrived: dict[str, asyncio.Future[Page]] = {}
        self._targets: dict[str, dict[str, Any]] = {}
        self._contexts: dict[str, BrowserContext] = {}
        self._created_targets: set[str] = set()
        self._closing: asyncio.Task[None] | None = None
        self._exit_watch: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Run once the connection is closed (cdpkit.grid deletes its WebDriver session).
        self._after_close: list[Callable[[], Awaitable[None]]] = []
        # Awaited for each target before it runs: every page (before its first request)
        # and every frame attached paused under another session, with the new session,
        # its parent and its targetInfo. The MCP server's request guard gates documents
        # this way. A hook's failure is logged; the target runs anyway.
        self._target_hooks: list[TargetHook] = []
        connection.session_factory = self._make_session
        self._on("Target.targetCreated", self._target_changed)
        self._on("Target.targetInfoChanged", self._target_changed)
        self._on("Target.targetDestroyed", self._target_destroyed)
        self._on("Target.targetCrashed", self._target_crashed)

    def __repr__(self) -> str:
        started = self._version is not None or self._version_json is not None
        name = self.version.product if started else "browser"
        return f"<Browser {name} pages={len(self.pages)}{' closed' if self.closed else ''}>"

    @property
    def version(self) -> GetVersionResult:
        """``Browser.getVersion`` as read at start (product, protocol version, user
        agent...)."""
        version = self._version
        if version is None:
            if self._version_json is None:
                raise RuntimeError("The browser has not started yet")
            version = self._version = cdp.browser.get_version().parse(self._version_json)
            self._version_json = None
        return version

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a fire-and-forget task, keeping a reference so it is not collected."""
        run_in_background(coroutine, self._tasks, what="A background browser task")

    async def _start(self) -> None:
        attach = (
            self.call("Target.setDiscoverTargets", {"discover": True}),
            # Existing pages are attached (and their sessions registered) before this answers.
            self.call(
                "Target.setAutoAttach",
                {
                    "autoAttach": True,
                    "waitForDebuggerOnStart": True,
                    "flatten": True,
                    "filter": [{"type": "page", "exclude": False}],
                },
            ),
        )
        if self.settings is None:
            # Nothing attached needs the version first: all three in one round trip. The
            # answer is parsed into its model when first read (building that model's
            # validator costs a fresh process 7 ms, a few percent of a launch).
            replies = await asyncio.gather(self.call("Browser.getVersion"), *attach)
            self._version_json = replies[0]
        else:
            # The settings of the pages attached below need Chrome's own user agent.
            self._version = await self.send(cdp.browser.get_version())
            await asyncio.gather(*attach)
        self._started = True
        # Pages that already existed are being set up now; not waited for here (a hung tab
        # would hold up the attach). Their setup reaches the renderer after commands the
        # browser process answers itself: a navigation waits for it (_browser.navigation.page_set_up).
        if self.process is not None:
            self._exit_watch = asyncio.create_task(self._watch_process(self.process))

    async def _watch_process(self, process: ChromeProcess) -> None:
        await process.wait_for_exit()
        if self._closing is None:
            self._connection.abort(f"{process.describe_exit()} unexpectedly")

    # -- targets ----------------------------------------------------------------------------

    def _make_session(
        self, connection: Connection, parent: Session, params: dict[str, Any]
    ) -> Session:
        info = params.get("targetInfo") or {}
        session_id = params["sessionId"]
        target_id = info.get("targetId")
        if (
            info.get("type") != "page"
            or parent is not self
            or not isinstance(target_id, str)
            or self.page_for(target_id) is not None  # a second session to a page (attach_to)
        ):
            session = Session(connection, session_id, command_timeout=self.command_timeout)
            if params.get("waitingForDebugger"):
                self._background(self._resume_child(session, parent, info))
            return session
        page = Page(
            connection,
            session_id,
            browser=self,
            target_info=info,
            command_timeout=self.command_timeout,
            context=self._contexts.get(info.get("browserContextId", "")),
        )
        self._pages[target_id] = page
        arrived = self._page_arrived.pop(target_id, None)
        if arrived is not None and not arrived.done():
            arrived.set_result(page)
        return page

    async def _resume_child(self, session: Session, parent: Session, info: dict[str, Any]) -> None:
        await self._run_target_hooks(session, parent, info)
        await _resume(session)

    async def _run_target_hooks(
        self, session: Session, parent: Session, info: dict[str, Any]
    ) -> None:
        for hook in list(self._target_hooks):
            try:
                await hook(session, parent, info)
            except Exception:
                log.exception("A target hook failed on %s", info.get("targetId"))

    def before_targets_run(self, hook: TargetHook) -> Callable[[], None]:
        """Await ``hook(session, parent, target_info)`` for each target before it runs:
        every page cdpkit attaches from now on (before its first request, popups
        included), and every frame attached paused under another session (e.g. with
        ``Target.setAutoAttach(waitForDebuggerOnStart=True)`` on a session of
        :meth:`attach_session`), before it resumes. An exception it raises is logged;
        the target runs anyway.

        Returns:
            A function that removes the hook.
        """
        self._target_hooks.append(hook)

        def remove() -> None:
            if hook in self._target_hooks:
                self._target_hooks.remove(hook)

        return remove

    async def attach_session(self, target_id: str) -> Session:
        """A session of its own to the target ``target_id`` (e.g. a page's, beside the
        :class:`Page`): its domains (e.g. ``Fetch``) are independent of the page's.

        Raises:
            CDPError: The target is gone, or Chrome refused.
        """
        result = await self.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        session = self._connection.session(str(result["sessionId"]))
        if session is None:  # detached before the answer was read
            raise TargetClosedError(f"The target {target_id} closed while attaching")
        return session

    def _target_changed(self, params: dict[str, Any]) -> None:
        info = params.get("targetInfo")
        if not isinstance(info, dict) or not isinstance(info.get("targetId"), str):
            return
        self._targets[info["targetId"]] = info
        page = self._pages.get(info["targetId"])
        if page is not None:
            page._update_target(info)

    def _target_destroyed(self, params: dict[str, Any]) -> None:
        target_id = params.get("targetId")
        if isinstance(target_id, str):
            self._targets.pop(target_id, None)
            self._created_targets.discard(target_id)  # kept forever, pages would leak ids
            page = self._pages.pop(target_id, None)
            if page is not None:
                page._fail(TargetClosedError("The page was closed"))

    def _target_crashed(self, params: dict[str, Any]) -> None:
        page = self._pages.get(str(params.get("targetId")))
        if page is not None:  # usually already failed by the page's Inspector.targetCrashed
            status = params.get("status", "crashed")
            code = params.get("errorCode")
            page._fail(PageCrashedError(f"The page crashed ({status}, error code {code})"))

    def _page_setup(self, page: Page, context: BrowserContext | None) -> PageSetup | None:
        """What the settings of ``page``'s context make it do before it runs, or ``None``.

        A launched browser's pages all get them; an attached browser's tabs that were
        already open when cdpkit attached are left as they are.
        """
        if context is not None:
            key: str | None = context.id
            settings, agent = context.settings, context.user_agent
        else:
            key, settings = None, self.settings
            agent = settings.user_agent_for(0) if settings is not None else None
        if settings is None or (self.process is None and not self._started):
            return None
        if key not in self._setups:
            from ._browser.page_setup import page_setup

            self._setups[key] = page_setup(
                settings, user_agent=agent, browser_user_agent=self.version.user_agent
            )
        return self._setups[key]

    @property
    def pages(self) -> list[Page]:
        """Open pages of every context, oldest first."""
        return [page for page in self._pages.values() if not page.closed]

    @property
    def contexts(self) -> list[BrowserContext]:
        """Contexts created with :meth:`new_context` and not yet closed."""
        return list(self._contexts.values())

    async def new_page(self, url: str | None = None) -> Page:
        """Open a new tab in the default context, set up before it runs anything.

        Args:
            url: Navigate there and wait for the load event (as ``tools.navigate``).

        Raises:
            NavigationError: ``url`` could not be loaded (the page stays open).
        """
        return await self._new_page(url, None)

    async def _new_page(self, url: str | None, context_id: str | None) -> Page:
        params: dict[str, Any] = {"url": "about:blank"}
        if context_id is not None:
            params["browserContextId"] = context_id
        result = await self.call("Target.createTarget", params)
        target_id: str = result["targetId"]
        self._created_targets.add(target_id)
        page = self._pages.get(target_id)
        if page is None:
            arrived = self._page_arrived.setdefault(
                target_id, asyncio.get_running_loop().create_future()
            )
            try:
                async with asyncio.timeout(self.command_timeout):
                    page = await asyncio.shield(arrived)
            except TimeoutError:
                raise CDPError(f"The new page {target_id} was never attached") from None
            finally:
                self._page_arrived.pop(target_id, None)
        await page._ready
        if page._setup_error is not None:
            with contextlib.suppress(CDPError):
                await page.close()
            raise page._setup_error
        if url is not None:
            from ._browser.navigation import (
                load,  # imported on first use: import cdpkit stays light
            )

            await load(page, url)
        return page

    @keyword_signature(IdentityKeywords)
    async def new_context(
        self,
        *,
        settings: BrowserSettings | None = None,
        storage_state: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        **identity: Unpack[IdentityKeywords],
    ) -> BrowserContext:
        """Create an isolated context (own cookies, storage and cache), like a fresh
        incognito profile. Use it as ``async with await browser.new_context() as ctx``;
        closing it closes its pages and discards its data.

        Args:
            settings: The context's :class:`~cdpkit.BrowserSettings`; default the
                browser's (those given to :func:`launch` or :func:`connect`).
            storage_state: A saved login to start from: a ``storage_state`` file (or
                dict) of cookies, localStorage and sessionStorage in Playwright's format
                (see :func:`cdpkit.tools.save_storage_state`).

        The keywords ``user_agent``, ``user_agents``, ``accept_language``, ``locale``,
        ``timezone``, ``extra_headers``, ``proxy``, ``stealth`` and ``send_dnt`` each change
        one setting over ``settings``. A ``proxy`` here is the context's own
        (``Target.createBrowserContext``); without one the context uses the browser's.

        Every page of the context gets the settings before its first request, popups
        and pages it opens included. With ``user_agents``, each new context takes the
        next one in turn.

        Raises:
            ValueError: A setting Chrome would refuse, naming it, or a ``storage_state``
                that is not one (saying what is wrong with it).
            FileNotFoundError: No ``storage_state`` file there.
        """
        check_keywords("new_context", identity, IdentityKeywords)
        from ._browser.settings import resolve_settings

        own = resolve_settings(settings if settings is not None else self.settings, dict(identity))
        if own is not None and own.proxy is None and self.settings is not None:
            own = own.replace(proxy=self.settings.proxy)  # its credentials still answered
        agent = own.user_agent_for(self._rotation) if own is not None else None
        if own is not None and own.user_agents:
            self._rotation += 1
        command = cdp.target.create_browser_context(dispose_on_detach=True)
        if own is not None and own.proxy is not None:
            command = cdp.target.create_browser_context(
                dispose_on_detach=True,
                proxy_server=own.proxy.server,
                proxy_bypass_list=own.proxy.bypass_list(),
            )
        result = await self.send(command)
        context = BrowserContext(self, result.browser_context_id, settings=own, user_agent=agent)
        self._contexts[context.id] = context
        state = storage_state if storage_state is not None else own.storage_state if own else None
        if state is not None:
            from ._browser.storage import load_storage_state

            try:
                await load_storage_state(context, state)
            except BaseException:
                await context.close()
                raise
        return context

    def page_for(self, target_id: str) -> Page | None:
        """The open page with this target (tab) id, if any."""
        page = self._pages.get(target_id)
        return page if page is not None and not page.closed else None

    # -- closing ----------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the browser. A launched browser is shut down: asked to close, then its
        process group is killed and a temporary profile removed; a hung browser that does
        not answer within 2 s is killed at once, so this returns within about 3 s. A
        connected browser keeps running: only the pages and contexts cdpkit created are
        closed, then the connection; a browser that stopped answering (or reading) holds
        this up for at most the command timeout, and never more than 5 s. Idempotent;
        completes even when the calling task is being cancelled."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._shut_down())
        with anyio.CancelScope(shield=True):
            await asyncio.shield(self._closing)

    async def _shut_down(self) -> None:
        connection = self._connection
        grace = CLOSE_GRACE
        if self.process is not None:
            grace = 5.0
            if not connection.closed:
                try:
                    await self.call("Browser.close", timeout=_BROWSER_CLOSE_TIMEOUT)
                except CommandTimeoutError:
                    grace = 0  # hung (e.g. SIGSTOPped): waiting longer would not help
                except CDPError:
                    pass  # usually the connection closing as Chrome exits
            await self.process.stop(grace=grace)
            if self._profile_lock is not None:
                self._profile_lock.release()
        elif not connection.closed:
            # One budget for closing what cdpkit opened and the connection's own closing:
            # a browser that stopped answering (or reading) holds close() no longer.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(self.command_timeout, _DETACH_TIMEOUT)
            created = [t for t in self._created_targets if t in self._pages]
            with contextlib.suppress(CDPError, TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await asyncio.gather(
                        *(self.call("Target.closeTarget", {"targetId": t}) for t in created),
                        *(context.close() for context in list(self._contexts.values())),
                        return_exceptions=True,
                    )
            grace = max(deadline - loop.time(), 0.0)
        await connection.close(grace)
        if self._exit_watch is not None:
            self._exit_watch.cancel()
        for cleanup in self._after_close:  # e.g. deleting the grid session it came from
            await cleanup()

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


async def _resume(session: Session) -> None:
    with contextlib.suppress(CDPError):
        await session.call("Runtime.runIfWaitingForDebugger")


class BrowserContext:
    """An isolated browser context: its own cookies, storage and cache.

    Attributes:
        id: The ``browserContextId``.
        browser: The browser it belongs to.
        settings: The :class:`~cdpkit.BrowserSettings` its pages get, or ``None``.
        user_agent: The user agent its pages send when the settings give one (or
            rotate ``user_agents``), else ``None`` (Chrome's own, or the stealth one).
    """

    def __init__(
        self,
        browser: Browser,
        context_id: str,
        *,
        settings: BrowserSettings | None = None,
        user_agent: str | None = None,
    ) -> None:
        self.browser = browser
        self.id = context_id
        self.settings = settings
        self.user_agent = user_agent
        self._closed = False

    def __repr__(self) -> str:
        return f"<BrowserContext {self.id[:8]} pages={len(self.pages)}>"

    @property
    def pages(self) -> list[Page]:
        """Open pages of this context, oldest first."""
        return [page for page in self.browser.pages if page.context is self]

    async def new_page(self, url: str | None = None) -> Page:
        """Open a new tab in this context; see :meth:`Browser.new_page`."""
        if self._closed:
            raise TargetClosedError("This browser context is closed")
        return await self.browser._new_page(url, self.id)

    async def close(self) -> None:
        """Close the context's pages and discard its data. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.browser._contexts.pop(self.id, None)
        self.browser._setups.pop(self.id, None)
        with contextlib.suppress(ConnectionClosedError):
            await self.browser.call("Target.disposeBrowserContext", {"browserContextId": self.id})
        for page in self.pages:
            page._fail(TargetClosedError("The page's browser context was closed"))

    async def __aenter__(self) -> BrowserContext:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
