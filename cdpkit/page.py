"""A page: the session of one browser tab, plus the state the tools keep about it.

Every page is set up the same way the moment it is attached, before any of its scripts
run: the ``Page``, ``Runtime`` and ``Log`` domains are enabled, so the console buffer holds
everything since the page opened, and JavaScript dialogs never block (they are answered
as :attr:`Page.dialog_policy` says and recorded in :attr:`Page.dialogs`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from . import cdp
from ._core.secrets import get_logger
from ._core.wire import EventParams, decode_params
from .errors import CDPError, ConnectionClosedError, PageCrashedError, TargetClosedError
from .session import Session

if TYPE_CHECKING:
    from ._browser.frames import FrameTracker
    from ._browser.page_setup import PageSetup
    from ._browser.script_gate import ScriptGate, Stall
    from ._model import Command
    from .browser import Browser, BrowserContext
    from .connection import Connection

__all__ = ["ConsoleEntry", "Dialog", "Page"]

log = get_logger("cdpkit")

# Each entry keeps the event's JSON (arguments, stack trace): about 3 KB for a one-line
# log. 100,000 of them held 300 MB per page; Playwright keeps the last 200.
CONSOLE_BUFFER_SIZE = 1_000
_ALWAYS_ENABLED = frozenset({"Page", "Runtime", "Log"})

ConsoleEntry: TypeAlias = tuple[Literal["console", "exception", "log"], dict[str, Any]]
"""One entry of a page's console buffer: its kind and the event's JSON params, kept raw
(a console flood is recorded at the cost of a tuple) and parsed by whoever reads it.
``"console"``: ``Runtime.consoleAPICalled``; ``"exception"``: ``Runtime.exceptionThrown``;
``"log"``: ``Log.entryAdded``."""


@dataclass(slots=True)
class Dialog:
    """A JavaScript dialog the page opened and how it was answered.

    Attributes:
        type: ``"alert"``, ``"confirm"``, ``"prompt"`` or ``"beforeunload"``.
        message: The dialog's text.
        default_prompt: The default answer of a prompt.
        url: The URL of the frame that opened it.
        accepted: ``True`` if accepted, ``False`` if dismissed, ``None`` while open.
        prompt_text: The text answered to a prompt, if any.
    """

    type: str
    message: str
    default_prompt: str
    url: str
    accepted: bool | None = None
    prompt_text: str | None = None


def _settings_error(error: CDPError) -> CDPError:
    """The failure to apply a page's settings, naming the setting Chrome refused."""
    text = str(error)
    for method, setting in (
        ("setTimezoneOverride", "timezone"),
        ("setLocaleOverride", "locale"),
        ("setUserAgentOverride", "user_agent"),
        ("setExtraHTTPHeaders", "extra_headers"),
        ("addScriptToEvaluateOnNewDocument", "stealth"),
    ):
        if method in text or method in str(getattr(error, "method", "")):
            return CDPError(f"Chrome refused the browser setting {setting}=: {text}")
    return error


# Decides how to answer a dialog: (accept, prompt_text), or None to leave it open.
DialogPolicy = Callable[[Dialog], "tuple[bool, str | None] | None"]


def dismiss_dialogs(dialog: Dialog) -> tuple[bool, str | None]:
    """The default policy: dismiss alerts, confirms and prompts; accept ``beforeunload``
    so navigation and closing are never blocked."""
    return (dialog.type == "beforeunload", None)


class Page(Session):
    """The session of one page (tab), created by :meth:`Browser.new_page` or by the page
    itself (``window.open``); see :attr:`Browser.pages`.

    Attributes:
        target_id: The page's target id (also its tab id).
        browser: The browser the page belongs to.
        context: The isolated context it was opened in, or ``None`` for the default one.
        dialogs: Every JavaScript dialog opened so far, in order.
        dialog_policy: Decides the answer to each new dialog; return ``None`` from it to
            leave the dialog open for :func:`cdpkit.tools.handle_dialog`.

    What the tools know about the page is kept with :meth:`state`, one typed class per
    concern (e.g. ``page.state(cdpkit.tools.SnapshotState)``: the latest snapshot).
    """

    def __init__(
        self,
        connection: Connection,
        session_id: str,
        *,
        browser: Browser,
        target_info: dict[str, Any],
        command_timeout: float,
        context: BrowserContext | None = None,
    ) -> None:
        super().__init__(connection, session_id, command_timeout=command_timeout)
        self.browser = browser
        self.target_id: str = target_info["targetId"]
        self.context = context
        self._target_info = target_info
        # Entries keep their params as the browser's text until console_entries() reads them.
        self._console: deque[tuple[Literal["console", "exception", "log"], EventParams]] = (
            deque(maxlen=CONSOLE_BUFFER_SIZE)
        )
        self.dialogs: list[Dialog] = []
        self.dialog_policy: DialogPolicy = dismiss_dialogs
        self._open_dialog: Dialog | None = None
        self._dialog_opened = asyncio.Event()
        self._closed_event = asyncio.Event()
        self._frame_tracker: FrameTracker | None = None  # created on first use (see _frames)
        self._domain_users: dict[str, int] = {}
        # What BrowserSettings give this page (see cdpkit._browser.settings), applied while paused.
        self._setup: PageSetup | None = browser._page_setup(self, context)
        self._setup_error: CDPError | None = None
        self._auth_answered: set[str] = set()
        # Made by a navigation with script_timeout (see cdpkit._browser.script_gate.ScriptGate).
        self._script_gate: ScriptGate | None = None
        # What the page waits on while it renders nothing, since a navigation returned
        # so; read and dropped by the snapshots (cdpkit._browser.script_gate.stall_words).
        self._stall: Stall | None = None
        if self._setup is not None and self._setup.network:
            self._domain_users["Network"] = 1  # extra headers need it: never disabled
        if self._setup is not None and self._setup.proxy is not None:
            self._on("Fetch.requestPaused", self._request_paused)
            self._on("Fetch.authRequired", self._auth_required)
        self._on_undecoded("Runtime.consoleAPICalled", self._record("console"))
        self._on_undecoded("Runtime.exceptionThrown", self._record("exception"))
        self._on_undecoded("Log.entryAdded", self._record("log"))
        self._on("Page.javascriptDialogOpening", self._dialog_opening)
        self._on("Page.javascriptDialogClosed", self._dialog_closed)
        # Sent on the page's own session, before the browser-level Target.targetCrashed.
        self._on("Inspector.targetCrashed", self._crashed)
        self._ready = asyncio.ensure_future(self._initialize())

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<Page {self.target_id[:8]} {self.url!r}{state}>"

    @property
    def url(self) -> str:
        """The page's current URL, as last reported by the browser."""
        return str(self._target_info.get("url", ""))

    @property
    def title(self) -> str:
        """The page's title, as last reported by the browser."""
        return str(self._target_info.get("title", ""))

    @property
    def crashed(self) -> bool:
        return isinstance(self._closed_error, PageCrashedError)

    async def _initialize(self) -> None:
        # Pipelined: Chrome handles one session's commands in order, so the page only
        # resumes after the domains are enabled and its settings applied: nothing it logs
        # is missed, and its first request already carries its identity.
        setup = self._setup
        settings = [self.send(command) for command in setup.commands] if setup else []
        if setup is not None and setup.proxy is not None:
            settings.append(self.send(self.fetch_enable()))
        results = await asyncio.gather(
            self.call("Page.enable"),
            self.call("Page.setLifecycleEventsEnabled", {"enabled": True}),
            self.call("Runtime.enable"),
            self.call("Log.enable"),
            *settings,
            self._resume(),
            return_exceptions=True,
        )
        for index, result in enumerate(results):
            if not isinstance(result, BaseException):
                continue
            if isinstance(result, ConnectionClosedError):
                return  # closed while starting; calls on it will say so
            if not isinstance(result, CDPError):
                raise result
            if 4 <= index < 4 + len(settings):
                if self._setup_error is None:
                    self._setup_error = _settings_error(result)
                    log.warning("Applying the browser settings to page %s failed: %s",
                                self.target_id, self._setup_error)
            else:
                log.warning("Setting up page %s failed: %s", self.target_id, result)

    async def _resume(self) -> None:
        # The browser's target hooks first (e.g. the MCP server's request guard): the page
        # makes no request before they are done.
        if self.browser._target_hooks:
            await self.browser._run_target_hooks(self, self.browser, self._target_info)
        await self.call("Runtime.runIfWaitingForDebugger")

    # -- proxy authentication (BrowserSettings.proxy with credentials) ------------------------

    def fetch_enable(self, patterns: Sequence[cdp.fetch.RequestPattern] = ()) -> Command[None]:
        """The ``Fetch.enable`` a tool sends to pause the requests matching ``patterns``,
        keeping what the page itself needs: on a page answering a proxy's credential
        challenges, every request still pauses at its request stage (the page continues
        those itself; a tool ignores pauses without a response) and challenges still
        reach the page. Undo it with :meth:`fetch_release`, never ``Fetch.disable``.
        While a navigation's ``script_timeout`` holds the page, script requests pause
        too (they are its to answer; a tool ignores pauses of other resource types)."""
        setup = self._setup
        if self._script_gate is not None:
            patterns = [*patterns, *self._script_gate.patterns()]
        if setup is None or setup.proxy is None:
            return cdp.fetch.enable(patterns=list(patterns))
        every_request = cdp.fetch.RequestPattern(url_pattern="*", request_stage="Request")
        return cdp.fetch.enable(patterns=[*patterns, every_request], handle_auth_requests=True)

    async def fetch_release(self) -> None:
        """End a tool's :meth:`fetch_enable`: ``Fetch`` off, or back to what the page
        needs for its proxy's credentials. Never raises for a closed page."""
        if self.closed:
            return
        with contextlib.suppress(CDPError):
            gate = self._script_gate
            if (self._setup is not None and self._setup.proxy is not None) or (gate and gate.held):
                await self.send(self.fetch_enable())
            else:
                await self.send(cdp.fetch.disable())

    def _request_paused(self, params: dict[str, Any]) -> None:
        if "responseStatusCode" in params or "responseErrorReason" in params:
            return  # a tool's pause at the response (see fetch_enable): the tool answers it
        if self._script_gate is not None and self._script_gate.takes(params):
            return  # a script held by script_timeout: the gate answers it
        request_id = cdp.fetch.RequestId(params["requestId"])
        self.browser._background(self._quietly(cdp.fetch.continue_request(request_id)))

    def _auth_required(self, params: dict[str, Any]) -> None:
        request_id = cdp.fetch.RequestId(params["requestId"])
        proxy = self._setup.proxy if self._setup is not None else None
        challenge = params.get("authChallenge") or {}
        Response = cdp.fetch.AuthChallengeResponse
        if proxy is None or challenge.get("source") != "Proxy":
            answer = Response(response="Default")  # a site's own login: as without cdpkit
        elif request_id in self._auth_answered:
            # Asked again: the credentials were refused. Cancel, so the request ends with
            # the proxy's 407 instead of asking forever.
            answer = Response(response="CancelAuth")
        else:
            self._auth_answered.add(request_id)
            answer = Response(
                response="ProvideCredentials",
                username=proxy.username or "",
                password=proxy.password or "",
            )
        self.browser._background(self._quietly(cdp.fetch.continue_with_auth(request_id, answer)))

    async def _quietly(self, command: Command[None]) -> None:
        with contextlib.suppress(CDPError):  # the request or page may be gone meanwhile
            await self.send(command)

    def _record(
        self, kind: Literal["console", "exception", "log"]
    ) -> Callable[[EventParams], None]:
        console = self._console

        def record(params: EventParams) -> None:
            # Kept as the browser's text (a fifth of the decoded size) until read.
            console.append((kind, params))

        return record

    def _dialog_opening(self, params: dict[str, Any]) -> None:
        dialog = Dialog(
            type=str(params.get("type", "alert")),
            message=str(params.get("message", "")),
            default_prompt=str(params.get("defaultPrompt", "")),
            url=str(params.get("url", "")),
        )
        self.dialogs.append(dialog)
        self._open_dialog = dialog
        self._dialog_opened.set()
        try:
            answer = self.dialog_policy(dialog)
        except Exception:
            log.exception("dialog_policy failed; dismissing the dialog")
            answer = (False, None)
        if answer is not None:
            accept, text = answer
            self.browser._background(self._answer_dialog(dialog, accept, text))

    def _dialog_closed(self, params: dict[str, Any]) -> None:
        dialog = self._open_dialog
        if dialog is not None and dialog.accepted is None:
            dialog.accepted = bool(params.get("result"))
            text = params.get("userInput")
            dialog.prompt_text = text if isinstance(text, str) and text else dialog.prompt_text
        self._open_dialog = None
        self._dialog_opened.clear()

    async def _answer_dialog(self, dialog: Dialog, accept: bool, prompt_text: str | None) -> None:
        params: dict[str, Any] = {"accept": accept}
        if prompt_text is not None:
            params["promptText"] = prompt_text
        dialog.accepted = accept
        dialog.prompt_text = prompt_text
        with contextlib.suppress(CDPError):
            await self.call("Page.handleJavaScriptDialog", params)

    def _crashed(self, params: dict[str, Any]) -> None:
        self._fail(PageCrashedError("The page's renderer crashed"))

    def _update_target(self, info: dict[str, Any]) -> None:
        self._target_info = info

    def _on_closed(self, error: ConnectionClosedError) -> None:
        self._closed_event.set()
        self._dialog_opened.set()  # wake waiters; they see the page is gone

    # -- what the page holds: dialogs, console, frames ----------------------------------------

    @property
    def open_dialog(self) -> Dialog | None:
        """The JavaScript dialog open now and not yet answered, or ``None``.

        While it is open the page is stopped: it runs no script and handles no input
        until the dialog is answered (:func:`cdpkit.tools.handle_dialog`).
        """
        dialog = self._open_dialog
        return dialog if dialog is not None and dialog.accepted is None else None

    def console_entries(self) -> list[ConsoleEntry]:
        """What the page wrote to its console since it opened (or since
        :meth:`clear_console`), oldest first, as raw :data:`ConsoleEntry` items.

        The buffer keeps the last 1,000 entries (:data:`CONSOLE_BUFFER_SIZE`), so a page
        that floods its console holds a few MB, not hundreds; to see every message, listen
        to ``Runtime.consoleAPICalled``. :func:`cdpkit.tools.console_logs` turns them into
        readable messages.
        """
        console = self._console
        if any(type(params) is not dict for _, params in console):
            # Decoded once, in place: an entry is the same object in every later call.
            decoded = [
                entry if type(entry[1]) is dict else (entry[0], decode_params(entry[1]))
                for entry in console
            ]
            console.clear()
            console.extend(decoded)
        return cast("list[ConsoleEntry]", list(console))

    def clear_console(self) -> None:
        """Empty the console buffer (what :meth:`console_entries` returns)."""
        self._console.clear()

    async def wait_closed(self) -> None:
        """Wait until the page is gone (closed, crashed, or the connection lost).

        Returns at once if it already is. Never raises for the closing itself: read
        :attr:`close_error` to learn why. Bound it with ``asyncio.timeout`` if needed.
        """
        await self._closed_event.wait()

    async def frame_sessions(self, session: Session | None = None) -> list[tuple[str, Session]]:
        """The out-of-process iframes (frames from another site, in their own renderer
        process) directly inside ``session``'s documents, as ``(frame id, session)``.

        The first call for a session asks Chrome to attach such frames as sessions
        (``Target.setAutoAttach``); frames present then are attached before it returns,
        and later ones as they appear. Same-process frames are not listed: their
        documents are reached through ``session`` itself.

        Args:
            session: The page (the default) or a frame session returned earlier.

        Returns:
            The frames still attached, in the order they appeared.

        Raises:
            ConnectionClosedError: ``session`` is closed.
        """
        return await self._frames().sessions(self if session is None else session)

    def _frames(self) -> FrameTracker:
        if self._frame_tracker is None:
            from ._browser.frames import FrameTracker  # only pages with frames to track pay for it

            self._frame_tracker = FrameTracker(self, self._connection)
        return self._frame_tracker

    async def frame_origin(self, session: Session) -> tuple[float, float]:
        """Where the viewport of ``session`` lies in the page's viewport, in CSS pixels.

        ``session`` is the page itself (``(0, 0)``) or a frame session from
        :meth:`frame_sessions`. Add the origin to coordinates measured in the frame's
        session (e.g. ``DOM.getBoxModel``) to get coordinates in the page's viewport.
        The origin of a frame is its ``<iframe>``'s content box, inside border and padding.

        Raises:
            ElementNotFoundError: A frame on the way is not rendered or no longer part
                of the page, or ``session`` is not a frame of this page.
        """
        return await self._frames().origin(session)

    @contextlib.asynccontextmanager
    async def enabled(self, domain: str) -> AsyncIterator[None]:
        """Keep ``domain`` (e.g. ``"Network"``) enabled for the block.

        Reference-counted per page, so tools that need a domain for a moment never
        disable it under another tool. A domain you enable yourself with ``send`` stays
        yours: this only disables what it enabled.
        """
        if domain in _ALWAYS_ENABLED:
            yield  # every page keeps these on for its own bookkeeping
            return
        users = self._domain_users.get(domain, 0)
        if users == 0:
            await self.call(f"{domain}.enable")
        self._domain_users[domain] = users + 1
        try:
            yield
        finally:
            self._domain_users[domain] -= 1
            if self._domain_users[domain] == 0 and not self.closed:
                with contextlib.suppress(CDPError):
                    await self.call(f"{domain}.disable")

    async def close(self, *, timeout: float | None = None) -> None:
        """Close the page (tab) and wait until it is gone. Closing a closed page is a no-op.

        Pending calls on the page fail with :class:`~cdpkit.TargetClosedError`.
        """
        if self.closed:
            return
        with contextlib.suppress(TargetClosedError):
            await self.browser.call(
                "Target.closeTarget", {"targetId": self.target_id}, timeout=timeout
            )
        try:
            async with asyncio.timeout(self._wait_timeout(timeout)):
                await self._closed_event.wait()
        except TimeoutError:
            # The browser never confirmed: consider the page gone anyway.
            self._fail(TargetClosedError("The page was closed"))
