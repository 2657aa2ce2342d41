"""The relay's allow-list and filtering: what one command's connection may send to the
shared Chrome, and what of Chrome's answers and events reaches it.

A connection reaches only its own contexts and targets: every context, target or session
id it names must be its own (else a CDP error says so); on its browser session only what
acts on those is relayed (:data:`BROWSER_SESSION`), not what would observe or change the
whole browser (``Fetch.enable``, ``Security``...: on a page's own session they reach that
page alone); what acts on the whole browser even from a page's own session (``Tracing``,
``Browser.close``...: :data:`REFUSED`, :data:`BROWSER_WIDE`) is refused on every session,
and a window is named only by a connection whose page it holds; target lists, discovery
and download events are filtered to its own, and the pages of other commands are let go
of (resumed and detached) unseen.

:class:`Relay` routes the messages of one Chrome's connections; the daemon's ``_Chrome``
(:mod:`._server`) adds the process, its health and the connections' admission.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .._core.urls import ONLY_IN_THE_DEFAULT_CONTEXT, browser_page

# Browser-level commands that act on the default context when none is named: a command's
# connection names its own instead, so its downloads, cookies and permissions stay its own.
CONTEXT_SCOPED = frozenset({
    "Target.createTarget", "Browser.setDownloadBehavior", "Browser.cancelDownload",
    "Browser.grantPermissions", "Browser.resetPermissions", "Browser.setPermission",
    "Storage.getCookies", "Storage.setCookies", "Storage.clearCookies",
})  # fmt: skip
# All a connection may send on its browser session: what acts on its own contexts and
# targets (the ids it names are checked to be its own), or on nothing of anyone else's.
# Anything else there (Fetch, Security, IO, SystemInfo.getProcessInfo...) would observe or
# change every context of the shared browser: sent on a page's session instead, it reaches
# that page's context alone (checked on Chrome for Network and Storage cookies and
# clearing, IndexedDB, CacheStorage, DOMStorage, ServiceWorker, BackgroundService,
# Security, Fetch, IO streams and the renderer's Memory calls), except :data:`BROWSER_WIDE`.
BROWSER_SESSION = CONTEXT_SCOPED | {
    "Browser.getVersion", "Browser.getWindowForTarget", "SystemInfo.getInfo",
    "SystemInfo.getFeatureState", "Target.attachToTarget", "Target.activateTarget",
    "Target.autoAttachRelated", "Target.closeTarget", "Target.createBrowserContext",
    "Target.detachFromTarget", "Target.disposeBrowserContext", "Target.getBrowserContexts",
    "Target.getTargetInfo", "Target.getTargets", "Target.setAutoAttach",
    "Target.setDiscoverTargets",
}  # fmt: skip
# What would end or break the browser the other commands share, on any session (on a
# page's session too, Browser.close and Browser.crash end the whole browser).
REFUSED = frozenset({"Browser.close", "Browser.crash", "Browser.crashGpuProcess"})
_EVERY_PROCESS = "it acts on every process of the browser, other commands' included"
_HISTOGRAMS = "histograms count the whole browser's activity, other commands' included"
# What acts on the whole browser even when sent on a page's own session (a domain, or one
# command), and why: refused on every session.
BROWSER_WIDE: dict[str, str] = {
    "Tracing": "tracing records the whole browser even when started on a page's own session: "
               "a trace holds other commands' pages, their titles and URLs",
    "PWA": "web apps are installed in the whole browser, and in a command's context its calls "
           "end the browser",
    "Memory.getBrowserSamplingProfile": "it profiles the browser process, which serves "
                                        "every command's pages",
    "Memory.setPressureNotificationsSuppressed": _EVERY_PROCESS,
    "Memory.simulatePressureNotification": _EVERY_PROCESS,
    "Browser.getHistograms": _HISTOGRAMS,
    "Browser.getHistogram": _HISTOGRAMS,
    "Browser.executeBrowserCommand": "it acts on whichever window is active, maybe another "
                                     "command's",
    "Browser.addPrivacySandboxEnrollmentOverride": "the override holds for every context",
}  # fmt: skip
# Browser.* naming a window (ids are sequential: easily guessed): only a window its
# connection was told of, by Browser.getWindowForTarget on a page of its own.
WINDOW_SCOPED = frozenset({
    "Browser.getWindowBounds", "Browser.setWindowBounds", "Browser.setContentsSize",
})  # fmt: skip
# Discovery events: a page's session gets them too (Target.setDiscoverTargets), about every
# context's targets.
TARGET_NEWS = frozenset({
    "Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed",
    "Target.targetCrashed",
})  # fmt: skip
# What loads a URL in a connection's pages, which are all in contexts of their own.
_LOADING = frozenset({"Page.navigate", "Target.createTarget"})
SHARED = "this browser is the cdpkit daemon's, shared by other commands"
OWN_BROWSER = "a browser of your own has it (--no-daemon, CDPKIT_NO_DAEMON=1)"


class Gone(Exception):
    """The Chrome stopped answering or exited."""


@dataclass(eq=False)
class Session:
    """A named session: a browser context kept across commands."""

    name: str
    context_id: str
    users: int = 0
    last_used: float = field(default_factory=time.monotonic)


@dataclass(eq=False)
class Client:
    """One command's relayed connection."""

    writer: asyncio.StreamWriter
    chrome: Relay
    root: str = ""  # its browser session's id
    context_id: str = ""  # the context it works in (fresh, or its named session's)
    session: Session | None = None
    contexts: set[str] = field(default_factory=set)  # contexts it may see
    created: set[str] = field(default_factory=set)  # contexts it created
    sessions: set[str] = field(default_factory=set)  # child sessions it owns
    targets: set[str] = field(default_factory=set)
    frames: set[str] = field(default_factory=set)  # frames of its pages it was told of
    downloads: set[str] = field(default_factory=set)  # guids of its pages' downloads
    windows: set[int] = field(default_factory=set)  # windows of its pages it was told of
    closed: bool = False
    wants_spare: bool = False  # a context made ahead is made for the next one like it

    def deliver(self, message: dict[str, Any]) -> None:
        if not self.closed and not self.writer.is_closing():
            self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\0")


class Relay:
    """The routing of one Chrome's relayed connections: message ids renumbered on the way
    in and back on the way out, each session's messages to the connection owning it, and
    each connection kept to its own contexts, targets and sessions."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any] | tuple[Client, Any, str]] = {}
        self._owners: dict[str, Client] = {}  # session id -> the connection it belongs to
        self.clients: set[Client] = set()
        self._targets: dict[str, str] = {}  # target id -> its browser context's id
        self.last_answer = 0.0  # when Chrome last sent anything (monotonic)

    def _send(self, message: dict[str, Any]) -> None:
        """Send one message to Chrome (raises :class:`Gone` when it cannot)."""
        raise NotImplementedError

    def notify(self, method: str, params: dict[str, Any], *, session: str | None = None) -> None:
        """Send a command whose answer nobody waits for."""
        message: dict[str, Any] = {"id": next(self._ids), "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        with contextlib.suppress(Gone):
            self._send(message)

    def from_client(self, client: Client, data: bytes) -> None:
        """One message a command sent: renumbered and sent on, or refused."""
        try:
            message = json.loads(data)
            original_id = message["id"]
            method = message["method"]
        except (ValueError, KeyError, TypeError):
            return  # not a command; a CDP peer would drop the connection, ignoring is kinder
        if not isinstance(method, str) or not isinstance(message, dict):
            return
        session = message.get("sessionId")
        params = message.setdefault("params", {})
        if session is not None and session not in client.sessions:
            client.deliver({"id": original_id, "sessionId": session, "error": {
                "code": -32001, "message": "Session with given id not found.",
            }})  # fmt: skip
            return
        refusal = self._refusal(client, method, params, browser_session=session is None)
        if refusal is not None:
            answer: dict[str, Any] = {"id": original_id, "error": {"code": -32000, "message": refusal}}
            if session is not None:
                answer["sessionId"] = session
            client.deliver(answer)
            return
        if session is None:
            if method == "Target.disposeBrowserContext" and (
                params.get("browserContextId") not in client.created
            ):
                client.deliver({"id": original_id, "result": {}})  # the daemon's to dispose
                return
            message["sessionId"] = client.root
        message_id = next(self._ids)
        message["id"] = message_id
        self._pending[message_id] = (client, original_id, method)
        try:
            self._send(message)
        except Gone:
            self._pending.pop(message_id, None)

    def _refusal(self, client: Client, method: str, params: Any, *, browser_session: bool) -> str | None:
        """Why a connection may not send this command (``None``: it may). On any session,
        nothing of :data:`REFUSED` or :data:`BROWSER_WIDE`, and the windows, contexts,
        targets and sessions it names must be its own; on its browser session, only
        :data:`BROWSER_SESSION`, its own context named when none is."""
        if not isinstance(params, dict):
            return "params must be an object"
        if method in REFUSED:
            return f"{method} is refused: {SHARED} (`cdpkit daemon stop` ends it)"
        why = BROWSER_WIDE.get(method) or BROWSER_WIDE.get(method.partition(".")[0])
        if why is not None:
            return f"{method} is refused on every session: {SHARED}, and {why}; {OWN_BROWSER}"
        window = params.get("windowId")
        if method in WINDOW_SCOPED and not (isinstance(window, int) and window in client.windows):
            return (
                f"window {window} is not this connection's: {SHARED} "
                "(Browser.getWindowForTarget names the window of a page of yours)"
            )
        url = params.get("url")
        if method in _LOADING and isinstance(url, str) and browser_page(url):
            return f"{method} to {url} is refused: {SHARED}, and {ONLY_IN_THE_DEFAULT_CONTEXT}; {OWN_BROWSER}"
        if browser_session and method not in BROWSER_SESSION:
            return (
                f"{method} is refused on the browser session: {SHARED}, and there it "
                "would observe or change other commands' pages and requests too; send it "
                "on the session of a page of your own (Target.attachToTarget)"
            )
        if method in CONTEXT_SCOPED and (browser_session or not method.startswith("Storage.")):
            # On a page's session too, where Browser.* and Target.createTarget would act on
            # the default context (its Storage.* act on the page's own, and take no id).
            params.setdefault("browserContextId", client.context_id)
        context = params.get("browserContextId")
        if context is not None and context not in client.contexts:
            return f"browser context {context} is not this connection's: {SHARED}"
        target = params.get("targetId")
        if target is not None and not self._owns_target(client, target):
            return f"target {target} is not this connection's: {SHARED}"
        named = params.get("sessionId")
        if method.startswith("Target.") and named is not None and named not in client.sessions:
            return f"session {named} is not this connection's: {SHARED}"
        if method == "Target.attachToBrowserTarget":
            return f"{method} is refused: {SHARED}; each connection has one browser session"
        return None

    def _owns_target(self, client: Client, target: Any) -> bool:
        return target in client.targets or self._targets.get(target) in client.contexts

    def _from_chrome(self, data: bytes) -> None:
        """One message from Chrome: an answer to its caller, an event to its session's
        connection."""
        self.last_answer = time.monotonic()
        try:
            message = json.loads(data)
        except ValueError:
            return
        if "id" in message:
            waiter = self._pending.pop(message["id"], None)
            if waiter is None:
                return
            if isinstance(waiter, asyncio.Future):
                if waiter.done():
                    return
                if "error" in message:
                    waiter.set_exception(Gone(str(message["error"].get("message"))))
                else:
                    waiter.set_result(message.get("result", {}))
                return
            client, original_id, method = waiter
            message["id"] = original_id
            if message.get("sessionId") == client.root:
                del message["sessionId"]
            result = message.get("result")
            if isinstance(result, dict):
                self._answered(client, method, result)
            client.deliver(message)
            return
        session = message.get("sessionId")
        if session is None:
            self._discovered(message.get("method"), message.get("params") or {})
            return
        owner = self._owners.get(session)
        if owner is None:
            return
        client = owner
        params = message.get("params") or {}
        if session == client.root:
            if not self._root_event(client, message.get("method"), params):
                return
            del message["sessionId"]
        elif message.get("method") == "Target.attachedToTarget":
            self._adopt(client, params.get("sessionId"))  # a page's frame or worker
        elif message.get("method") == "Target.detachedFromTarget":
            self._disown(client, params.get("sessionId"))
        elif message.get("method") in TARGET_NEWS:
            if not self._target_news(client, message["method"], params):
                return
        elif message.get("method") in ("Page.frameAttached", "Page.frameNavigated"):
            frame = params.get("frameId") or (params.get("frame") or {}).get("id")
            if isinstance(frame, str):
                client.frames.add(frame)  # its downloads' events are its own
        client.deliver(message)

    def _discovered(self, method: Any, params: dict[str, Any]) -> None:
        """The daemon's own target discovery: which context each target is in."""
        info = params.get("targetInfo") or {}
        if method in ("Target.targetCreated", "Target.targetInfoChanged"):
            target, context = info.get("targetId"), info.get("browserContextId")
            if isinstance(target, str) and isinstance(context, str):
                self._targets[target] = context
        elif method == "Target.targetDestroyed" and isinstance(params.get("targetId"), str):
            self._targets.pop(params["targetId"], None)

    def _answered(self, client: Client, method: str, result: dict[str, Any]) -> None:
        if method == "Target.createTarget" and isinstance(result.get("targetId"), str):
            client.targets.add(result["targetId"])  # made in a context of its own
        elif method == "Target.getBrowserContexts" and isinstance(result.get("browserContextIds"), list):
            result["browserContextIds"] = [c for c in result["browserContextIds"] if c in client.contexts]
        elif method == "Target.createBrowserContext":
            context_id = result.get("browserContextId")
            if isinstance(context_id, str):
                client.contexts.add(context_id)
                client.created.add(context_id)
        elif method == "Target.getTargets" and isinstance(result.get("targetInfos"), list):
            result["targetInfos"] = [
                info for info in result["targetInfos"]
                if isinstance(info, dict) and info.get("browserContextId") in client.contexts
            ]  # fmt: skip
        elif method == "Target.attachToTarget" and isinstance(result.get("sessionId"), str):
            self._adopt(client, result["sessionId"])
        elif method == "Browser.getWindowForTarget" and isinstance(result.get("windowId"), int):
            client.windows.add(result["windowId"])  # the window of a page of its own

    def _root_event(self, client: Client, method: Any, params: dict[str, Any]) -> bool:
        """Whether an event of a connection's browser session reaches it: only those about
        its own contexts' targets."""
        if method == "Target.attachedToTarget":
            info = params.get("targetInfo") or {}
            child = params.get("sessionId")
            if info.get("browserContextId") in client.contexts:
                self._adopt(client, child)
                return True
            if isinstance(child, str):  # another command's page: let it run, let go of it
                if params.get("waitingForDebugger"):
                    self.notify("Runtime.runIfWaitingForDebugger", {}, session=child)
                self.notify("Target.detachFromTarget", {"sessionId": child}, session=client.root)
            return False
        if method == "Target.detachedFromTarget":
            return self._disown(client, params.get("sessionId"))
        if method in TARGET_NEWS:
            return self._target_news(client, method, params)
        # Chrome sends every download's events to each browser session that asked for
        # them: only those of this connection's own pages and frames reach it.
        if method == "Browser.downloadWillBegin":
            frame = params.get("frameId")
            if not (frame in client.frames or self._owns_target(client, frame)):
                return False
            client.downloads.add(params.get("guid", ""))
            return True
        if method == "Browser.downloadProgress":
            guid = params.get("guid")
            if guid not in client.downloads:
                return False
            if params.get("state") in ("completed", "canceled"):
                client.downloads.discard(guid)
            return True
        return True

    def _target_news(self, client: Client, method: str, params: dict[str, Any]) -> bool:
        """Whether a discovery event reaches a connection (on any of its sessions): only
        those about its own contexts' targets."""
        if method in ("Target.targetCreated", "Target.targetInfoChanged"):
            info = params.get("targetInfo") or {}
            if info.get("browserContextId") not in client.contexts:
                return False
            client.targets.add(info.get("targetId", ""))
            return True
        target = params.get("targetId")
        if target not in client.targets:
            return False
        if method == "Target.targetDestroyed":
            client.targets.discard(target)
        return True

    def _adopt(self, client: Client, session: Any) -> None:
        if isinstance(session, str):
            client.sessions.add(session)
            self._owners[session] = client

    def _disown(self, client: Client, session: Any) -> bool:
        if session not in client.sessions:
            return False
        client.sessions.discard(session)
        self._owners.pop(session, None)
        return True
