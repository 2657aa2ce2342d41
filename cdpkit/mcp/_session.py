"""The browser the MCP tools run against: :class:`ServerOptions` (how the server gets its
browser, what it allows), :class:`BrowserSession` (started on the first tool call through
the shared :func:`cdpkit._front.browser_options.start_browser`, restarted if it died, closed at
the end) and the :class:`RequestGuard` that keeps a browser from loading blocked origins.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import functools
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import tools
from .._core.secrets import get_logger
from .._daemon import daemon_preferred
from .._front.browser_options import BrowserOptions, CLIError, error_line, start_browser
from ..browser import Browser, BrowserContext
from ..errors import CDPError
from ..page import Page
from ..session import Session
from ..tools import Recording
from ..tools.files import claim_free_name, default_download_dir
from ..tools.tabs import active_tab
from ._downloads import DownloadTracker
from ._urls import UrlPolicy

if TYPE_CHECKING:
    from .._browse import Engine

log = get_logger("cdpkit.mcp")


class BrowserUnavailableError(RuntimeError):
    """The server's browser could not be started or reached. The message is the agent's to
    read and names the server's option to change (``--timeout``, ``--connect``,
    ``--headful``...): the person who set the server up gives those."""


@dataclasses.dataclass(frozen=True, slots=True)
class ServerOptions:
    """How the server gets its browser, what it allows and where it listens.

    Attributes:
        browser: How the browser is launched or attached (``--connect``, ``--headful``,
            ``--profile``, ``--chrome``, ``--chrome-arg``, ``--viewport``, ``--timeout``),
            started by :func:`cdpkit._front.browser_options.start_browser` as the CLI's are.
        downloads: Where ``browser_download`` saves files; default ``~/Downloads``.
        allow_js: List ``browser_execute_js``.
        url_policy: Which URLs the tools may load, read and download
            (``--allow-file-urls``, ``--allowed-origins``, ``--blocked-origins``).
        http: Serve streamable HTTP on this ``(host, port)``; ``None`` for stdio.
        snapshot_after_action: After each action tool, return a full snapshot as well
            as what the action changed (``--snapshot-after-action``).
        shared_context: Over HTTP, let every client session use the browser's one
            default context (``--shared-context``) instead of a context of its own.
        record: Record the session as a cdpkit script in this file from the start
            (``--record``; see :mod:`cdpkit.mcp._recording`).
        script_timeout: The navigations give up a parser-blocking script not loaded
            after this many seconds (``--script-timeout``; ``None``: they wait for it).
    """

    browser: BrowserOptions = dataclasses.field(default_factory=BrowserOptions)
    downloads: Path | None = None
    allow_js: bool = False
    url_policy: UrlPolicy = dataclasses.field(default_factory=UrlPolicy)
    http: tuple[str, int] | None = None
    snapshot_after_action: bool = False
    shared_context: bool = False
    record: Path | None = None
    script_timeout: float | None = 10.0  # see docs/mcp.md: why 10 s

    @property
    def download_dir(self) -> Path:
        return self.downloads if self.downloads is not None else default_download_dir()


@dataclasses.dataclass(frozen=True, slots=True)
class BlockedRequest:
    """A document request the :class:`RequestGuard` refused.

    Attributes:
        number: Its place in the guard's count (1 for the first refused).
        url: The URL requested.
        reason: Why it is blocked (see :meth:`UrlPolicy.refusal`).
        context: The ``browserContextId`` of the tab that asked ("" if unknown).
    """

    number: int
    url: str
    reason: str
    context: str = ""


# Only documents pause: one round trip per page or frame load, the rest untouched.
_DOCUMENTS = {
    "patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]
}
# Out-of-process frames of a gated target are attached paused, gated, then resumed.
_FRAMES = {
    "autoAttach": True,
    "waitForDebuggerOnStart": True,
    "flatten": True,
    "filter": [{"type": "iframe", "exclude": False}],
}


class RequestGuard:
    """Refuses every document request of the server's own tabs to a blocked origin
    before it is sent: a tab's or a frame's, each hop of a redirect included. So a
    blocked page never loads, whatever led there (a link, a script, a redirect, an
    iframe, a popup); the tab shows Chrome's error page (``net::ERR_BLOCKED_BY_CLIENT``)
    instead.

    Per target, never browser-wide: the guard attaches a session of its own to each page
    the server's :class:`~cdpkit.Browser` has (on the cdpkit daemon, only the pages of the
    server's own browser contexts; on a browser it launched or attached to with ``--connect``,
    the tabs its tools act on), before the page makes its first request (popups and new tabs
    included), and to each out-of-process frame of those pages before it runs. On that
    session ``Fetch.enable`` pauses documents only, so the pages' other requests are
    untouched, and so are the tools' own ``Fetch.enable`` on a page (downloads), which
    intercept on the page's session. Other browser contexts' requests, and their URLs,
    never reach the guard. ``file:`` URLs never reach the network: the tools refuse them
    themselves.
    """

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self.count = 0
        self.recent: collections.deque[BlockedRequest] = collections.deque(maxlen=20)
        self._reported: set[int] = set()  # numbers already taken (of those in recent)
        self._browser: Browser | None = None
        self._gated: dict[str, asyncio.Future[None]] = {}  # target id -> its gating
        self._sessions: dict[str, str] = {}  # the guard's session ids -> their context id
        self._tasks: set[asyncio.Task[None]] = set()
        self._unhook: Callable[[], None] | None = None

    async def start(self, browser: Browser) -> None:
        """Guard ``browser``'s pages: those open now (before this returns) and every
        later one (before it runs).

        Raises:
            CDPError: A page's requests could not be intercepted.
        """
        self._browser = browser
        browser.on_event("Target.detachedFromTarget", self._forget)
        browser.on_event("Target.targetDestroyed", self._destroyed)
        self._unhook = browser.before_targets_run(self._gate_target)
        await asyncio.gather(*(self._gate_page(page) for page in browser.pages))

    async def _gate_target(self, session: Session, parent: Session, info: dict[str, Any]) -> None:
        """The browser's target hook: a new page, or a frame under a gated session."""
        if isinstance(session, Page):
            try:
                await self._gate_page(session)
            except CDPError:
                if not session.closed:
                    log.warning("The request guard could not gate tab %s", session.target_id)
                    await _close_quietly(session)  # no tab of the server's runs unguarded
            return
        context = self._sessions.get(parent.session_id or "")
        if context is not None:  # a frame of a gated target: gated before it resumes
            await self._gate_session(session, context)

    async def _gate_page(self, page: Page) -> None:
        gating = self._gated.get(page.target_id)
        if gating is None:
            gating = self._gated[page.target_id] = asyncio.ensure_future(self._attach(page))
        await asyncio.shield(gating)

    async def _attach(self, page: Page) -> None:
        browser = page.browser
        try:
            own = await browser.attach_session(page.target_id)
        except BaseException:
            self._gated.pop(page.target_id, None)  # tried again by the next hook
            raise
        await self._gate_session(own, page.context.id if page.context is not None else "")

    async def _gate_session(self, session: Session, context: str) -> None:
        """Pause ``session``'s document requests and attach its out-of-process frames."""
        self._sessions[session.session_id or ""] = context
        session.on_event("Fetch.requestPaused", self._paused(session, context))
        session.on_event("Target.detachedFromTarget", self._forget)  # its frames'
        await asyncio.gather(
            session.call("Fetch.enable", _DOCUMENTS), session.call("Target.setAutoAttach", _FRAMES)
        )

    def _forget(self, params: dict[str, Any]) -> None:
        self._sessions.pop(str(params.get("sessionId")), None)

    def _destroyed(self, params: dict[str, Any]) -> None:
        self._gated.pop(str(params.get("targetId")), None)

    def _paused(self, session: Session, context: str) -> Callable[[dict[str, Any]], None]:
        def paused(params: dict[str, Any]) -> None:
            task = asyncio.ensure_future(self._decide(session, context, params))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return paused

    def take_unreported(self, context: BrowserContext | None = None) -> list[BlockedRequest]:
        """The requests of ``context``'s tabs refused since the last call (up to the last
        20; ``None``: of every tab, for a server whose clients share the browser's
        contexts): a link clicked at the end of one tool call is refused during the next
        one. One HTTP client never learns what another client's tabs were refused."""
        wanted = None if context is None else context.id
        fresh = [
            blocked
            for blocked in self.recent
            if blocked.number not in self._reported and wanted in (None, blocked.context)
        ]
        kept = {blocked.number for blocked in self.recent}
        self._reported = (self._reported & kept) | {blocked.number for blocked in fresh}
        return fresh

    async def _decide(self, session: Session, context: str, params: dict[str, Any]) -> None:
        url = str(params.get("request", {}).get("url", ""))
        try:
            reason = self.policy.refusal(url)
        except Exception:  # never leave a request paused: the page would hang
            log.exception("The request guard failed on %s", url)
            reason = "the URL could not be checked"
        command: dict[str, Any] = {"requestId": params.get("requestId")}
        if reason is None:
            method = "Fetch.continueRequest"
        else:
            method = "Fetch.failRequest"
            command["errorReason"] = "BlockedByClient"
            self.count += 1
            self.recent.append(BlockedRequest(self.count, url, reason, context))
        with contextlib.suppress(CDPError, TimeoutError):  # the request may be gone already
            await session.call(method, command, timeout=10)

    async def stop(self) -> None:
        """Stop answering (the browser closes, or closed)."""
        self._browser = None
        unhook, self._unhook = self._unhook, None
        if unhook is not None:
            unhook()
        for gating in self._gated.values():
            gating.cancel()
        tasks = [*self._tasks, *self._gated.values()]
        self._gated.clear()
        self._sessions.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, CDPError):
                await task


async def _close_quietly(page: Page) -> None:
    with contextlib.suppress(CDPError, TimeoutError):
        await page.close(timeout=5)


class BrowserSession:
    """The browser the tools run against: started on first use, restarted if it died,
    closed by :meth:`close`. When the URL policy lists origins, a :class:`RequestGuard`
    keeps the browser from loading blocked pages at all.

    Tool calls are serialized with :attr:`lock` (one agent, one page at a time).

    The ``browse`` tools run on :meth:`engine`, which shares this browser (started only
    when a page needs it) and is closed with it.

    ``owner`` makes this a client's view of that session (see :meth:`for_client`).
    """

    def __init__(self, options: ServerOptions, *, owner: BrowserSession | None = None) -> None:
        self.options = options
        self.lock = asyncio.Lock()
        self.guard: RequestGuard = (
            RequestGuard(options.url_policy) if owner is None else owner.guard
        )
        self.downloads: DownloadTracker | None = None
        self._browser: Browser | None = None
        # A client's view has an engine of its own (its browse sessions), as it has a
        # browser context of its own: made on first use, closed with the view.
        self._engine: Engine | None = None
        # A client's view (see for_client) shares its owner's browser; its tabs live in
        # a browser context of its own, made when its first tool needs the browser.
        self._owner = owner
        self._context: BrowserContext | None = None
        # The owner's live views: their engines run on its browser, closed before it.
        self._views: weakref.WeakSet[BrowserSession] = weakref.WeakSet()
        # Clients' views call browser() and engine() at once (each holds only its own
        # lock): one of them starts what is missing, the others wait for it.
        self._starting = asyncio.Lock()
        self._engine_starting = asyncio.Lock()
        # The session's recording (--record, browser_start_recording). A client's view
        # has its own: only that client's steps are written to it, and only it reads it.
        self._recording: Recording | None = None
        if options.record is not None:
            self._recording = _record_from_start(options.record, own_file=owner is not None)

    @property
    def recording(self) -> Recording | None:
        """The recording the tools' actions are written to, if one is running."""
        recording = self._recording
        return recording if recording is not None and recording.running else None

    @recording.setter
    def recording(self, recording: Recording | None) -> None:
        self._recording = recording

    def for_client(self) -> BrowserSession:
        """A view of this session for one MCP client (an HTTP client session): the
        same browser, request guard and download directory, but the client's own
        browser context (cookies, storage, tabs and their active tab), created when its
        first tool needs the browser, its own ``browse`` engine (its named sessions)
        and its own recording (with ``--record``, in a file of its own next to that
        one: ``FILE-1.py``...), all discarded by the view's :meth:`close`, and a lock of
        its own (clients do not wait for each other). With ``--shared-context`` the view
        uses the browser's default context and every tab, as this session does."""
        view = BrowserSession(self.options, owner=self)
        self._views.add(view)
        return view

    @property
    def tab_context(self) -> BrowserContext | None:
        """The browser context whose tabs this session's tools see, ``None`` for all of
        the browser's tabs (stdio, ``--shared-context``, or no context made yet)."""
        return self._context

    async def engine(self) -> Engine:
        """The engine of the ``browse`` tools, made on first use: tier-1 pages are
        fetched over HTTP with the server's browser settings (user agent, language, extra
        headers, proxy); pages that need JavaScript run in this session's browser
        (:meth:`browser`: launched, attached or leased as the server's options say, and
        guarded by its URL policy), never in a second one. Closed by :meth:`close`.

        A client's view has an engine of its own on its owner's browser: its named
        sessions are its own, unseen by other clients, and never saved to disk (a saved
        session is restored by its name, whichever client asks for it)."""
        async with self._engine_starting:
            if self._engine is None:
                from .._browse import Engine

                owner = self._owner
                # The owner's browser: each browse session makes a context of its own, so
                # the view's context is not needed.
                factory = self.browser if owner is None else owner.browser
                tables = None if owner is None else {"session": {"persist": False}}
                # The server's identity (user agent, language, proxy...) holds for tier 1 too.
                engine = Engine(
                    tables, browser_factory=factory, settings=self.options.browser.settings
                )
                await engine.__aenter__()
                self._engine = engine
            return self._engine

    @property
    def started(self) -> bool:
        """Whether a browser is running (or attached) now."""
        if self._owner is not None:
            return self._owner.started
        return self._browser is not None and not self._browser.closed

    @property
    def current(self) -> Browser | None:
        """The browser if it is running, without starting one; for a client's view,
        ``None`` also until its browser context is made (it has no tabs yet)."""
        if self._owner is not None:
            browser = self._owner.current
            if browser is None or (self._isolated and not self._context_alive(browser)):
                return None
            return browser
        return self._browser if self.started else None

    @property
    def _isolated(self) -> bool:
        return self._owner is not None and not self.options.shared_context

    def _context_alive(self, browser: Browser) -> bool:
        context = self._context
        return context is not None and context.browser is browser and not browser.closed

    async def browser(self) -> Browser:
        """The browser, launched (or attached) now if it is not running.

        Raises:
            BrowserUnavailableError: It could not be started or reached; the message names
                the server's option to change (``--timeout``, ``--connect``, ``--headful``...).
        """
        if self._owner is not None:
            browser = await self._owner.browser()
            self.downloads = self._owner.downloads
            if self._isolated and not self._context_alive(browser):
                # The client's own context; a browser that restarted gets a new one.
                context = await browser.new_context(settings=browser.settings)
                try:
                    if self.downloads is not None:
                        await self.downloads.cover(context)
                except BaseException:
                    await context.close()
                    raise
                self._context = context
            return browser
        async with self._starting:
            return await self._start()

    async def _start(self) -> Browser:
        if self._browser is not None and not self._browser.closed:
            return self._browser
        if self._browser is not None:
            await self.guard.stop()
            if self.downloads is not None:
                await self.downloads.stop()
            await self._browser.close()  # it died: clean up what is left of it
            self._browser = None
        options = self.options
        try:
            with daemon_preferred():  # a running cdpkit daemon's browser (CDPKIT_NO_DAEMON=1: not)
                browser = await start_browser(options.browser)
        except (CDPError, TimeoutError, OSError, CLIError) as exc:
            # Worded with the server's options, not launch()'s (its command line's words):
            # a tool's error, not a command line's (no exit status).
            raise BrowserUnavailableError(error_line(exc)) from exc
        if options.url_policy.restricts:
            try:
                await self.guard.start(browser)
            except BaseException:
                await browser.close()  # no browser without its guard
                raise
        # One list for the whole session (a restarted browser keeps it): browser_download's
        # files, and what the pages download.
        if self.downloads is None:
            self.downloads = DownloadTracker(options.download_dir)
        if options.browser.connect is None:
            # Files the pages download land in the download directory, listed by
            # browser_downloads (a browser the server attached to keeps its own settings).
            try:
                await self.downloads.start(browser)
            except BaseException:
                await browser.close()
                raise
        self._browser = browser
        return browser

    async def page(self) -> Page:
        """The active tab (see :func:`cdpkit.tools.tabs.active_tab`; of the client's own
        context for a client's view), opened if none is."""
        browser = await self.browser()
        page = active_tab(browser, context=self._context)
        if page is None:
            page = await tools.new_tab(browser, context=self._context)
        return page

    async def close(self) -> None:
        """Close the browser (a connected one keeps running: only what the server opened
        is closed), and the ``browse`` engine first (its sessions' browser contexts go
        with it). Idempotent.

        A client's view closes only its own recording, ``browse`` sessions and browser
        context (its tabs and data); the browser stays for the other clients."""
        if self._owner is not None:
            self._owner._views.discard(self)
            await self._close_own()
            context, self._context = self._context, None
            if context is not None and not context.browser.closed:
                try:
                    await context.close()
                except (CDPError, TimeoutError):  # the browser is going: nothing to keep
                    log.debug("Closing a client's browser context failed", exc_info=True)
            return
        for view in list(self._views):  # clients still open when the server stops
            await view._close_own()
        await self._close_own()
        browser = self._browser
        if browser is None:
            return
        try:
            await self.guard.stop()
            if self.downloads is not None:
                await self.downloads.stop()
            await browser.close()  # a second caller waits for the same close
        finally:
            if self._browser is browser:
                self._browser = None

    async def _close_own(self) -> None:
        """Stop this session's recording and close its ``browse`` engine."""
        recording = self.recording
        if recording is not None:
            # Ended with the server: its last step's load is settled while the page lives.
            try:
                await recording.stop()
            except Exception:  # the browser must close even if the recording could not
                log.exception("Stopping the recording failed")
        engine, self._engine = self._engine, None
        if engine is None:
            return
        # A view's engine: not engine.close(), which would close the browser its factory
        # returned, the one the other clients share. The client's sessions go.
        closings = (
            [engine.close]
            if self._owner is None
            else [functools.partial(engine.close_session, name) for name in engine.sessions]
        )
        for closing in closings:
            try:
                await closing()
            except Exception:  # the browser must close even if the engine could not
                log.exception("Closing the browse engine failed")


def _record_from_start(path: Path, *, own_file: bool) -> Recording | None:
    """The ``--record`` recording, started: in ``path``, or for a client's view
    (``own_file``) in the first free ``path-N`` next to it (``None``, logged, if that
    file cannot be made: the client's tools work unrecorded)."""
    if not own_file:
        return Recording(path).start(activate=False)
    try:
        mine = claim_free_name(path.parent, path.name, mode=0o600)
        return Recording(mine).start(activate=False)
    except (OSError, CDPError):  # CDPError: DownloadError, every name next to it is taken
        log.warning("Could not start a client's recording next to %s", path, exc_info=True)
        return None
