"""The browser: its targets, contexts and pages; :func:`launch` and :func:`connect`.

The browser session auto-attaches to every page with flattened sessions, each paused
until cdpkit has set it up (see :mod:`cdpkit.page`), so pages the site opens itself
(``window.open``, ``target=_blank``) are full :class:`~cdpkit.Page` objects too.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import websockets

from . import cdp
from ._endpoint import browser_ws_url, check_headers, redact
from ._keywords import IdentityKeywords, LaunchIdentityKeywords, check_keywords, keyword_signature
from ._profiles import ProfileLock, profile_dir
from ._secrets import get_logger
from ._tasks import run_in_background
from ._transport import CLOSE_GRACE, PipeTransport, Transport, WebSocketTransport
from .connection import Connection
from .errors import (
    CDPError,
    CommandTimeoutError,
    ConnectError,
    ConnectionClosedError,
    ConnectTimeoutError,
    LaunchError,
    PageCrashedError,
    TargetClosedError,
)
from .launcher import (
    DEFAULT_ARGS,
    ChromeProcess,
    check_user_data_dir,
    check_viewport,
    start_chrome,
)
from .page import Page
from .session import Session

if TYPE_CHECKING:
    from ._page_setup import PageSetup
    from ._settings import BrowserSettings
    from .cdp.browser import GetVersionResult

__all__ = ["Browser", "BrowserContext", "connect", "launch"]

log = get_logger("cdpkit")

# How long close() lets a launched browser answer Browser.close before killing it.
_BROWSER_CLOSE_TIMEOUT = 2.0
# At most this (and at most the command timeout) for a connected browser's close().
_DETACH_TIMEOUT = 5.0

_collected_at_first_launch = False


def _resolve_settings(
    settings: BrowserSettings | None, shortcuts: dict[str, Any]
) -> BrowserSettings | None:
    """``settings`` with the shortcut keywords given applied over it (see
    ``_settings.resolve_settings``); ``None`` without either."""
    if settings is None and all(value is None for value in shortcuts.values()):
        return None  # the usual launch: no need to load _settings (3 ms)
    from ._settings import resolve_settings

    return resolve_settings(settings, shortcuts)


# See Browser.before_targets_run: (new session, its parent, its targetInfo) -> awaited first.
TargetHook = Callable[[Session, Session, dict[str, Any]], Awaitable[None]]


def _collect_after_start_up() -> None:
    """Once per process, run the full garbage collection that start-up has made due.

    Importing cdpkit, pydantic and the bindings leaves tens of thousands of objects that
    Python's collector has not yet counted as old; its next full collection (15-24 ms of
    CPU here) then fell in the first burst of work: 11 µs a call over 2,000 pipelined
    calls. :func:`launch` schedules it for the loop's next turn once the browser is ready,
    so it runs while the program first waits for Chrome (typically opening a page) rather
    than in the middle of its calls. The work is the same, done once; only where the pause
    falls changes. A program that turned the collector off keeps it off.
    """
    global _collected_at_first_launch
    if _collected_at_first_launch or not gc.isenabled():
        return
    _collected_at_first_launch = True
    gc.collect()


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
        # browser process answers itself: a navigation waits for it (_navigation.page_set_up).
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
            from ._page_setup import page_setup

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
            from ._navigation import load  # imported on first use: import cdpkit stays light

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
        from ._settings import resolve_settings

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
            from ._storage import load_storage_state

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


class _BrowserStarter:
    """What :func:`launch` and :func:`connect` return: ``async with`` it (closes the browser
    on exit) or ``await`` it (then call ``await browser.close()`` yourself)."""

    def __init__(self, start: Any) -> None:
        self._start = start
        self._browser: Browser | None = None

    def __await__(self) -> Generator[Any, None, Browser]:
        return self._start().__await__()  # type: ignore[no-any-return]

    async def __aenter__(self) -> Browser:
        self._browser = await self._start()
        return self._browser

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._browser is not None:
            await self._browser.close()


async def _replace_first_tabs(browser: Browser) -> None:
    """Swap the tab Chrome opened at start for a fresh one that carries the settings.

    The start tab exists before cdpkit attaches, so it is not paused and may still be
    committing its first document: settings sent then can be lost with that commit. A tab
    cdpkit creates waits, paused, until they are applied.
    """
    started = [page for page in browser.pages if page.url in ("", "about:blank")]
    if not started:
        return  # e.g. a profile's restored tabs: those stay the person's
    await browser.new_page()
    await asyncio.gather(*(page.close() for page in started), return_exceptions=True)


@keyword_signature(LaunchIdentityKeywords)
def launch(
    *,
    headless: bool = True,
    executable_path: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    user_data_dir: str | os.PathLike[str] | None = None,
    profile: str | None = None,
    pipe: bool = False,
    timeout: float = 30,
    command_timeout: float = 30,
    lock_timeout: float = 30,
    env: Mapping[str, str] | None = None,
    viewport: tuple[int, int] | None = None,
    settings: BrowserSettings | None = None,
    storage_state: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    **identity: Unpack[LaunchIdentityKeywords],
) -> _BrowserStarter:
    """Start Chrome and connect to it: ``async with cdpkit.launch() as browser: ...``.

    Args:
        headless: Run without a window.
        executable_path: The Chrome to run; default ``$CDPKIT_CHROME``, then the usual
            names on ``PATH``, then the standard install locations.
        args: Extra command-line flags, after cdpkit's defaults (``launcher.DEFAULT_ARGS``).
        user_data_dir: A persistent profile directory; default a fresh temporary one
            that is removed on close. Chrome's own default profile is refused.
        profile: A named persistent profile, ``<profiles root>/NAME`` (root:
            ``$CDPKIT_PROFILES`` or e.g. ``~/.local/share/cdpkit/profiles``), e.g. one
            prepared by a manual login with ``cdpkit open-browser --profile NAME``.
        pipe: Talk over ``--remote-debugging-pipe`` instead of a local TCP port.
        timeout: Seconds for Chrome to start and answer.
        command_timeout: Default timeout of every command and wait.
        lock_timeout: How long to wait for a persistent profile another process is using.
        env: Chrome's environment; default this process's.
        viewport: ``(width, height)`` of every page's viewport (``innerWidth`` x
            ``innerHeight`` in headless mode), new tabs and popups included; default
            ``(1280, 720)``, unless ``args`` has ``--window-size``.
        settings: How the browser presents itself and reaches the network
            (:class:`~cdpkit.BrowserSettings`): applied to every page of every context,
            popups included, before its first request. ``proxy`` is launch-wide
            (``--proxy-server``); ``locale`` also sets ``--lang``. The keywords
            ``user_agent``, ``user_agents``, ``accept_language``, ``locale``,
            ``timezone``, ``extra_headers``, ``proxy``, ``ignore_default_args``,
            ``stealth`` and ``send_dnt`` each change one setting over it.
        storage_state: A saved login to start from, loaded into the default context
            before this returns: a ``storage_state`` file (or dict) of cookies,
            localStorage and sessionStorage in Playwright's format (see
            :func:`cdpkit.tools.save_storage_state`).

    Raises:
        LaunchError: Chrome was not found, exited, or was not ready within ``timeout``
            (the message includes Chrome's last output lines), or ``args`` conflict with
            what cdpkit sets (``--user-data-dir``; ``--remote-debugging-port`` with
            ``pipe=True``; ``--window-size`` with ``viewport=``).
        ValueError: ``viewport`` is not two pixel sizes from 1 to 16384, a setting
            is invalid (the message names it), or ``storage_state`` is not one.
        FileNotFoundError: No ``storage_state`` file there.
        ProfileLockedError: The persistent profile stayed locked for ``lock_timeout``.

    On exit (normal, exception or cancellation) the browser's whole process group is
    killed and the temporary profile removed. If this process dies without exiting the
    block (SIGKILL, SIGTERM, SIGHUP, a second Ctrl-C), a watchdog process does the same
    at once (see :mod:`cdpkit.launcher`).
    """

    if profile is not None and user_data_dir is not None:
        raise ValueError("Pass profile= or user_data_dir=, not both")
    if viewport is not None:
        viewport = check_viewport(viewport)
    directory = profile_dir(profile) if profile is not None else user_data_dir
    check_keywords("launch", identity, LaunchIdentityKeywords)
    resolved_settings = _resolve_settings(settings, dict(identity))
    chrome_args = list(args)
    default_args = DEFAULT_ARGS
    if resolved_settings is not None:
        _check_settings_args(resolved_settings, args)
        chrome_args = [*resolved_settings.launch_args(), *args]
        default_args = resolved_settings.default_args()

    async def start() -> Browser:
        lock: ProfileLock | None = None
        if directory is not None:
            resolved = check_user_data_dir(directory)
            lock = ProfileLock(resolved)
            await lock.acquire(lock_timeout)
        try:
            process = await start_chrome(
                executable_path=executable_path,
                headless=headless,
                args=chrome_args,
                user_data_dir=directory,
                pipe=pipe,
                env=env,
                viewport=viewport,
                default_args=default_args,
            )
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        transport: Transport | None = None
        try:
            async with asyncio.timeout(timeout):
                if pipe:
                    assert process.pipe_fds is not None
                    pipe_transport = PipeTransport(*process.pipe_fds)
                    transport = pipe_transport
                    await pipe_transport.start()
                else:
                    url = await process.wait_for_endpoint(timeout)
                    transport = await WebSocketTransport.connect(url, timeout=timeout)
                connection = Connection(transport)
                browser = Browser(
                    connection,
                    process=process,
                    command_timeout=command_timeout,
                    settings=resolved_settings,
                )
                browser._profile_lock = lock
                connection.start(browser)
                try:
                    await browser._start()
                    if resolved_settings is not None:
                        await _replace_first_tabs(browser)
                    state = storage_state
                    if state is None and resolved_settings is not None:
                        state = resolved_settings.storage_state
                    if state is not None:
                        from ._storage import load_storage_state

                        await load_storage_state(browser, state)
                except ConnectionClosedError:
                    await asyncio.sleep(0.05)  # let Chrome's last output arrive
                    raise LaunchError(
                        f"{process.describe_exit()} while starting. {process.last_output()}"
                    ) from None
            if not _collected_at_first_launch:
                asyncio.get_running_loop().call_soon(_collect_after_start_up)
            return browser
        except TimeoutError:
            await _abandon(process, transport, lock)
            raise LaunchError(
                f"Chrome was not ready within {timeout:g} s (launch(timeout=...) sets this). "
                f"{process.last_output()}"
            ) from None
        except BaseException:
            await _abandon(process, transport, lock)
            raise

    return _BrowserStarter(start)


def _check_settings_args(settings: BrowserSettings, args: Sequence[str]) -> None:
    """Refuse Chrome flags that say the same thing as a setting, differently.

    Raises:
        LaunchError: Names the flag and the setting.
    """
    clashes = [
        (flag, setting)
        for flag, setting, given in (
            ("--proxy-server", "proxy", settings.proxy is not None),
            ("--proxy-bypass-list", "proxy", settings.proxy is not None),
            ("--lang", "locale", settings.locale is not None),
            ("--accept-lang", "accept_language", settings.effective_accept_language is not None),
            ("--user-agent", "user_agent", bool(settings.user_agent or settings.user_agents)),
        )
        if given and any(arg.lstrip("-").partition("=")[0] == flag[2:] for arg in args)
    ]
    if clashes:
        raise LaunchError(
            "Conflicting Chrome arguments: "
            + "; ".join(f"{flag} in args and the {setting}= setting: give only one"
                        for flag, setting in clashes)
        )


async def _abandon(
    process: ChromeProcess, transport: Transport | None, lock: ProfileLock | None
) -> None:
    with anyio.CancelScope(shield=True):
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()
        await process.stop(grace=0)
        if lock is not None:
            lock.release()


@keyword_signature(IdentityKeywords)
def connect(
    endpoint: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30,
    command_timeout: float = 30,
    keepalive: float | None = 20,
    settings: BrowserSettings | None = None,
    **identity: Unpack[IdentityKeywords],
) -> _BrowserStarter:
    """Attach to a running browser: ``async with cdpkit.connect("http://127.0.0.1:9222")``.

    Args:
        endpoint: ``http(s)://host:port`` (read through ``/json/version``) or the browser's
            ``ws(s)://`` URL, e.g. a hosted fleet's ``wss://host/?token=...`` or a Selenium
            Grid session's ``se:cdp`` URL; or ``"auto"``: the person's own running Chrome
            (stable, beta, dev, canary or Chromium, found through the ``DevToolsActivePort``
            of its default profile; Chrome 144+ writes it when remote debugging is turned on
            at ``chrome://inspect/#remote-debugging``, and asks the user to allow the
            connection); or ``"extension"``: the person's own browser as it runs, through
            the cdpkit extension and its bridge (see docs/extension.md: ``cdpkit extension
            path`` and ``cdpkit extension install``; its tabs are the pages, no new
            contexts). A token in the query is sent on the lookup and
            on the WebSocket; ``user:password@`` in an http(s) URL becomes Basic auth.
        headers: HTTP headers sent on the ``/json/version`` lookup and on the WebSocket
            upgrade (e.g. ``{"Authorization": "Bearer ..."}``). Never shown in errors.
        timeout: Seconds for the whole attach.
        command_timeout: Default timeout of every command on the browser and its pages.
        keepalive: Seconds between WebSocket pings, so that proxies and load balancers in
            front of a remote browser do not drop an idle connection; ``None`` sends none.
            A missing answer to a ping never closes the connection (a busy browser is not
            a dead one); a dead one is noticed when the socket fails.
        settings: :class:`~cdpkit.BrowserSettings` for the pages and contexts opened
            after attaching (tabs already open are left as they are). A ``proxy`` applies
            to contexts from :meth:`Browser.new_context` (the default context keeps the
            browser's own). The keywords ``user_agent``, ``user_agents``,
            ``accept_language``, ``locale``, ``timezone``, ``extra_headers``, ``proxy``,
            ``stealth`` and ``send_dnt`` each change one setting over it.

    Raises:
        ConnectError: Nothing listens there, it is not a DevTools endpoint (the message
            quotes what it sent), it wants credentials (401/403), or it gives no
            ``webSocketDebuggerUrl``. Messages show the endpoint with its password and
            query values masked (``?token=***``).
        ConnectTimeoutError: No complete answer within ``timeout`` (a silent port, a
            WebSocket that never completes its handshake); also a ``TimeoutError``.

    Closing detaches: the browser keeps running (pages cdpkit opened are closed).
    """
    sent_headers = check_headers(headers)
    check_keywords("connect", identity, IdentityKeywords)
    resolved_settings = _resolve_settings(settings, dict(identity))
    if keepalive is not None and keepalive <= 0:
        raise ValueError(f"keepalive must be a positive number of seconds or None, got {keepalive}")

    async def start() -> Browser:
        # One deadline for the whole attach; each step says what it was waiting for.
        stage = f"{redact(endpoint)} to answer"
        try:
            async with asyncio.timeout(timeout):
                chosen = endpoint.strip().lower()
                upgrade_headers = sent_headers
                if chosen == "auto":
                    from ._autoconnect import find_running_chrome

                    stage = "the person's running Chrome to be found"
                    url = await anyio.to_thread.run_sync(find_running_chrome)
                elif chosen == "extension":
                    url, bridge_headers = _extension_bridge()
                    upgrade_headers = {**sent_headers, **bridge_headers}
                else:
                    url = await browser_ws_url(endpoint, sent_headers)
                shown = redact(url)
                stage = f"the WebSocket handshake with {shown}"
                try:
                    transport = await WebSocketTransport.connect(
                        url, timeout=None, headers=upgrade_headers, ping_interval=keepalive
                    )
                except OSError as exc:
                    raise ConnectError(f"Could not connect to {shown}: {exc}") from None
                except websockets.InvalidStatus as exc:
                    status = exc.response.status_code
                    hint = (
                        ": the endpoint wants credentials (connect(headers={...}) or a token "
                        "in the URL)"
                        if status in (401, 403)
                        else ""
                    )
                    raise ConnectError(
                        f"{shown} refused the WebSocket upgrade with HTTP {status}{hint}"
                    ) from None
                except Exception as exc:  # websockets' other handshake errors
                    raise ConnectError(
                        f"{shown} is not a DevTools WebSocket endpoint: {exc}"
                    ) from None
                stage = f"the browser at {shown} to answer Browser.getVersion"
                return await attach(
                    transport, command_timeout=command_timeout, settings=resolved_settings
                )
        except TimeoutError:
            raise ConnectTimeoutError(
                f"Timed out after {timeout:g} s waiting for {stage} "
                "(connect(timeout=...) sets this)"
            ) from None

    return _BrowserStarter(start)


def _extension_bridge() -> tuple[str, dict[str, str]]:
    """The running extension bridge's client URL and the header with its token.

    Raises:
        ConnectError: No bridge runs (the extension is not loaded, not connected, or its
            native host is not installed), saying what to do.
    """
    from ._bridge import read_bridge_info

    info = read_bridge_info()
    if info is None:
        raise ConnectError(
            "No cdpkit extension bridge is running: load the extension in your browser "
            "(`cdpkit extension path` is the folder for chrome://extensions -> Load unpacked), "
            "run `cdpkit extension install` once, and check that its popup says Connected"
        )
    return info.client_url, {"Authorization": f"Bearer {info.token}"}


async def attach(
    transport: Transport, *, command_timeout: float = 30, settings: BrowserSettings | None = None
) -> Browser:
    """A :class:`Browser` over an open ``transport`` to a running browser, as
    :func:`connect` attaches (closing it detaches); for transports :func:`connect` cannot
    open itself, e.g. the cdpkit daemon's relayed connection.

    Raises:
        ConnectionClosedError: The transport closed before the browser answered.
    """
    connection = Connection(transport)
    browser = Browser(connection, process=None, command_timeout=command_timeout, settings=settings)
    connection.start(browser)
    try:
        await browser._start()
    except BaseException:
        await connection.close()
        raise
    return browser
