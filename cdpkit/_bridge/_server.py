"""The extension bridge: one process per user, on 127.0.0.1 at a random port, between the
cdpkit extension in the person's browser and any number of cdpkit clients.

To each client the bridge is a browser endpoint: it answers the ``Target`` and ``Browser``
commands cdpkit sends at the browser level from the extension's ``chrome.tabs`` and
``chrome.debugger`` (the tabs are the targets; a session is a client's attachment to a
tab), and relays everything sent on a session to the tab, and the tab's events back to the
sessions on it. Each client has its own sessions: it sees the person's tabs and the tabs
it opened itself, never another client's. Who may connect: the extension endpoint wants the
token and ``Origin: chrome-extension://<the extension's ID>``; a client wants the token and
no ``Origin`` at all (every web page's WebSocket sends one).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import re
import secrets
import urllib.parse
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .._core.secrets import get_logger
from .._core.tasks import run_in_background
from ._downloads import Downloads
from ._emulation import run_browser_command
from ._parts import CallError, Client, Relayed, Tab, bearer, refuse, write_now
from ._state import extension_origin, process_alive

log = get_logger("cdpkit.bridge")

MAX_MESSAGE = 256 * 1024 * 1024  # a full-page screenshot is tens of MB
_EXTENSION_GRACE = 5.0  # seconds a restarting extension has to come back before clients go
_WORKER_RESTART = 45.0  # ... while its browser runs (a stopped worker's alarm fires every 30 s)
# What chrome.debugger says when the tab under a command went away: the client hears the
# tab's session end (its pending calls fail as TargetClosedError), not a protocol error.
_NAME = re.compile(r"[A-Za-z0-9_.]{1,200}")  # a method's name, a session id
# Events the bridge reads itself (the rest go on as text).
_INSPECTED = frozenset(
    ("Target.attachedToTarget", "Target.detachedFromTarget", "Page.downloadWillBegin",
     "Page.downloadProgress")
)  # fmt: skip
_GONE = ("Detached while handling command", "Debugger is not attached", "No tab with given id")


class Bridge:
    """The bridge's state and its two endpoints (``/extension``, ``/client``)."""

    def __init__(self, token: str, *, idle_timeout: float = 10.0) -> None:
        self.token = token
        self.origin = extension_origin()
        self.idle_timeout = idle_timeout
        self.extension: ServerConnection | None = None
        self.user_agent = ""
        self.browser_pid: int | None = None  # the browser the extension runs in
        self.tabs: dict[int, Tab] = {}
        self.children: dict[str, int] = {}  # a frame's child session -> its tab
        self.clients: list[Client] = []
        self.downloads = Downloads(self)
        self._ids = itertools.count(1)
        self._clients = itertools.count(1)
        self._relayed: dict[int, Relayed] = {}
        self._calls: dict[int, asyncio.Future[Any]] = {}
        # Run on an answer as it is read, before the next message from the extension.
        self._on_answer: dict[int, Callable[[Any], None]] = {}
        self._extension_back = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.stopped = asyncio.Event()

    def _background(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        run_in_background(coroutine, self._tasks, what="A bridge task")

    # -- who may connect ---------------------------------------------------------------

    async def check_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """Refuse, before the upgrade, anyone without the token (and the right origin)."""
        url = urllib.parse.urlsplit(request.path)
        query = urllib.parse.parse_qs(url.query)
        origin = request.headers.get("Origin")
        if url.path == "/extension":
            given = query.get("token", [""])[0]
            if origin != self.origin:
                return refuse(connection, 403, "only the cdpkit extension may connect here")
        elif url.path == "/client":
            given = bearer(request.headers) or query.get("token", [""])[0]
            if origin is not None:  # a web page (any page a browser shows sends one)
                return refuse(connection, 403, "web pages may not connect to the bridge")
        else:
            return refuse(connection, 404, "not found")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return refuse(connection, 401, "a token is needed (see bridge.json)")
        if url.path == "/client" and self.extension is None:
            # A browser starting (or a worker restarting) connects within seconds.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_EXTENSION_GRACE):
                    await self._extension_back.wait()
            if self.extension is None:
                return refuse(connection, 503, "the browser's cdpkit extension is not connected")
        return None

    async def handle(self, connection: ServerConnection) -> None:
        path = urllib.parse.urlsplit(connection.request.path if connection.request else "").path
        if path == "/extension":
            await self._serve_extension(connection)
        else:
            await self._serve_client(connection)

    # -- the extension -----------------------------------------------------------------

    async def _serve_extension(self, connection: ServerConnection) -> None:
        try:  # its first word says which browser it is (Browser.getVersion answers with it)
            async with asyncio.timeout(10):
                hello = json.loads(await connection.recv())
            self.user_agent = str(hello["userAgent"])
            pid = hello.get("browserPid")
            self.browser_pid = pid if isinstance(pid, int) and pid > 1 else None
        except (TimeoutError, ConnectionClosed, ValueError, KeyError, TypeError):
            await connection.close(1008, "the extension says hello first")
            return
        previous = self.extension
        log.warning("The extension connected (%s)", self.user_agent)
        self.extension = connection  # the newest wins: the old one is a stopped worker's
        if previous is not None:
            await previous.close(1000, "replaced by a newer connection")
        returning = self._extension_back.is_set() is False and bool(self.clients)
        self._extension_back.set()
        if returning:
            self._background(self._reattach())
        self._send_client_count()
        try:
            async for raw in connection:
                self._from_extension_text(raw if isinstance(raw, str) else raw.decode())
        except (ConnectionClosed, ValueError):
            pass
        finally:
            if self.extension is connection:
                log.warning("The extension's connection closed")
                self.extension = None
                self._extension_back.clear()
                for future in self._calls.values():
                    if not future.done():
                        future.set_exception(CallError("the browser's extension went away"))
                self._calls.clear()
                self._background(self._await_extension())

    async def _await_extension(self) -> None:
        """A worker Chrome stopped comes back (its alarm wakes it within 30 s); a browser
        that quit does not: then every client's connection closes at once (their calls
        fail). Without the browser's pid, a restart gets :data:`_EXTENSION_GRACE`."""
        pid = self.browser_pid
        wait = _WORKER_RESTART if pid is not None else _EXTENSION_GRACE
        deadline = asyncio.get_running_loop().time() + wait
        while asyncio.get_running_loop().time() < deadline:
            if self._extension_back.is_set():
                return
            if pid is not None and not process_alive(pid):
                break
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    await self._extension_back.wait()
        if self._extension_back.is_set():
            return
        for client in list(self.clients):
            await client.connection.close(1001, "the browser went away")

    async def _reattach(self) -> None:
        """After the extension came back: the tabs clients had sessions on are attached
        again; commands that were under way are answered with an error (not lost)."""
        lost = list(self._relayed.items())
        self._relayed.clear()
        for _, relayed in lost:
            self._answer_error(
                relayed.client,
                relayed.command_id,
                relayed.session_id,
                "the browser's extension restarted while the command ran",
            )
        for tab in list(self.tabs.values()):
            tab.debugger_attached = False
            if tab.sessions:
                with contextlib.suppress(CallError):
                    await self._attach_debugger(tab)

    def _to_extension(self, message: dict[str, Any]) -> None:
        if self.extension is not None:
            write_now(self.extension, json.dumps(message))

    async def call(
        self, op: str, *, on_answer: Callable[[Any], None] | None = None, **fields: Any
    ) -> Any:
        """Ask the extension to do ``op``; its answer. ``on_answer`` sees it as soon as it
        is read (e.g. a new tab is recorded as the client's before the extension's report
        of that tab is read).

        Raises:
            CallError: It could not, or it is not connected.
        """
        if self.extension is None:
            raise CallError("the browser's cdpkit extension is not connected")
        number = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[number] = future
        if on_answer is not None:
            self._on_answer[number] = on_answer
        self._to_extension({"id": number, "op": op, **fields})
        try:
            async with asyncio.timeout(30):
                return await future
        except TimeoutError:
            raise CallError(f"the extension did not answer {op} within 30 s") from None
        finally:
            self._calls.pop(number, None)
            self._on_answer.pop(number, None)

    def _from_extension_text(self, raw: str) -> None:
        """A relayed answer (``R|id|result``, ``X|id|error``) or a tab's event
        (``E|tab|child session|method|params``) goes on as text, never parsed and written
        again (a snapshot's answer is megabytes); anything else is a JSON object."""
        kind = raw[:2]
        if kind == "E|":
            _, tab, child, method, params = raw.split("|", 4)
            self._tab_event(int(tab), child, method, params)
        elif kind in ("R|", "X|"):
            _, number, payload = raw.split("|", 2)
            self._relayed_answer(int(number), payload, failed=kind == "X|")
        else:
            self._from_extension(json.loads(raw))

    def _from_extension(self, message: dict[str, Any]) -> None:
        if "id" in message:
            self._answer_from_extension(message)
            return
        kind = message.get("type")
        if kind == "detached":
            self._tab_detached(int(message["tabId"]), str(message.get("reason")))
        elif kind == "tabCreated":
            self._tab_created(message["target"])
        elif kind == "tabUpdated":
            self._tab_updated(message)
        elif kind == "tabRemoved":
            self._tab_removed(int(message["tabId"]))
        elif kind == "downloadCreated":
            self.downloads.created(message)
        elif kind == "downloadChanged":
            self._background(self.downloads.changed(message))
        elif kind == "ping":
            self._to_extension({"op": "pong"})

    def _answer_from_extension(self, message: dict[str, Any]) -> None:
        number = message["id"]
        future = self._calls.get(number)
        if future is not None and not future.done():
            if "error" in message:
                future.set_exception(CallError(str(message["error"])))
            else:
                on_answer = self._on_answer.pop(number, None)
                if on_answer is not None:
                    on_answer(message.get("result"))
                future.set_result(message.get("result"))

    def _relayed_answer(self, number: int, payload: str, *, failed: bool) -> None:
        relayed = self._relayed.pop(number, None)
        if relayed is None or (
            relayed.session_id not in relayed.client.sessions
            and relayed.session_id not in self.children
        ):
            return  # its session ended meanwhile: the client was told
        if failed:
            if any(gone in payload for gone in _GONE) and relayed.tab_id in self.tabs:
                self._end_sessions(self.tabs[relayed.tab_id])
                return
            self._answer_error(relayed.client, relayed.command_id, relayed.session_id, payload)
            return
        # Session ids are hex (the bridge's and Chrome's): nothing to escape.
        write_now(relayed.client.connection, '{{"id":{},"sessionId":"{}","result":{}}}'.format(
            json.dumps(relayed.command_id), relayed.session_id, payload or "{}"))

    # -- tabs --------------------------------------------------------------------------

    def _tab_event(self, tab_id: int, child: str, method: str, params: str) -> None:
        tab = self.tabs.get(tab_id)
        if tab is None or not _NAME.fullmatch(method) or (child and not _NAME.fullmatch(child)):
            return  # written into JSON as they are: names and hex ids only
        if method in _INSPECTED:
            self._inspect_event(tab, method, json.loads(params), child)
        if child:  # a frame's session: one id for every client on the tab
            text = f'{{"method":"{method}","params":{params},"sessionId":"{child}"}}'
            for client in {client for client, _ in tab.sessions}:
                write_now(client.connection, text)
            return
        for client, session_id in list(tab.sessions):
            write_now(client.connection, f'{{"method":"{method}","params":{params},"sessionId":"{session_id}"}}')

    def _inspect_event(self, tab: Tab, method: str, params: dict[str, Any], child: str) -> None:
        """What the bridge itself learns from a tab's event: its frames' sessions, and
        the downloads it starts."""
        if method == "Target.attachedToTarget":
            self.children[str(params.get("sessionId"))] = tab.tab_id
        elif method == "Target.detachedFromTarget":
            self.children.pop(str(params.get("sessionId")), None)
        elif child:
            return
        elif method == "Page.downloadWillBegin":
            self.downloads.began(tab, params)
        elif method == "Page.downloadProgress" and params.get("state") == "inProgress":
            self.downloads.tell_watchers(tab, "Browser.downloadProgress", params)

    def _tab_detached(self, tab_id: int, reason: str) -> None:
        tab = self.tabs.get(tab_id)
        if tab is None:
            return
        tab.debugger_attached = False
        self._end_sessions(tab)
        if reason == "target_closed":
            self._tab_removed(tab_id)

    def _end_sessions(self, tab: Tab) -> None:
        """The tab's sessions are over (closed, or the person pressed Cancel on Chrome's
        bar): each client hears its session end, which fails its pending calls."""
        for client, session_id in list(tab.sessions):
            client.sessions.pop(session_id, None)
            self._send(
                client,
                {
                    "method": "Target.detachedFromTarget",
                    "params": {"sessionId": session_id, "targetId": tab.target_id},
                },
            )
        tab.sessions.clear()
        for child in [child for child, owner in self.children.items() if owner == tab.tab_id]:
            del self.children[child]
        for number in [n for n, r in self._relayed.items() if r.tab_id == tab.tab_id]:
            del self._relayed[number]

    def _tab_created(self, target: dict[str, Any]) -> Tab:
        tab_id = int(target["tabId"])
        known = self.tabs.get(tab_id)
        if known is not None:
            return known
        opener_id = target.get("openerTabId")
        opener = self.tabs.get(int(opener_id)) if opener_id is not None else None
        tab = Tab(
            tab_id,
            str(target["targetId"]),
            str(target.get("url", "")),
            str(target.get("title", "")),
            opener.tab_id if opener else None,
            owner=opener.owner if opener is not None else None,
        )
        self.tabs[tab_id] = tab
        self._announce(tab)
        return tab

    def _announce(self, tab: Tab, only: Client | None = None) -> None:
        for client in [only] if only is not None else list(self.clients):
            if not client.sees(tab):
                continue
            if client.discover:
                self._send(
                    client,
                    {
                        "method": "Target.targetCreated",
                        "params": {"targetInfo": tab.info(self.tabs)},
                    },
                )
            if client.auto_attach:
                self._background(self._auto_attach(client, tab))

    async def _auto_attach(self, client: Client, tab: Tab) -> None:
        with contextlib.suppress(CallError):
            await self.attach(client, tab)

    def _tab_updated(self, message: dict[str, Any]) -> None:
        tab = self.tabs.get(int(message["tabId"]))
        if tab is None:
            if not message.get("hidden"):
                self._background(self._refresh_tabs())  # e.g. a new tab page that left chrome://
            return
        tab.url = str(message.get("url") or tab.url)
        tab.title = str(message.get("title") or tab.title)
        for client in self.clients:
            if client.discover and client.sees(tab):
                self._send(
                    client,
                    {
                        "method": "Target.targetInfoChanged",
                        "params": {"targetInfo": tab.info(self.tabs)},
                    },
                )

    def _tab_removed(self, tab_id: int) -> None:
        tab = self.tabs.pop(tab_id, None)
        if tab is None:
            return
        self._end_sessions(tab)
        for client in self.clients:
            if client.discover and client.sees(tab):
                self._send(
                    client,
                    {"method": "Target.targetDestroyed", "params": {"targetId": tab.target_id}},
                )

    async def _refresh_tabs(self) -> None:
        """Read the tabs again from the extension: new ones are announced, gone ones
        removed."""
        targets = await self.call("targets")
        present = {int(target["tabId"]) for target in targets}
        for target in targets:
            self._tab_created(target)
        for tab_id in [tab_id for tab_id in self.tabs if tab_id not in present]:
            self._tab_removed(tab_id)

    async def _attach_debugger(self, tab: Tab) -> None:
        async with tab.attaching:
            if not tab.debugger_attached:
                await self.call("attach", tabId=tab.tab_id)
                tab.debugger_attached = True

    async def attach(self, client: Client, tab: Tab) -> str:
        """A new session of ``client`` on ``tab`` (attaching the debugger if needed),
        announced to the client as ``Target.attachedToTarget``; its id."""
        await self._attach_debugger(tab)
        if tab.tab_id not in self.tabs or client not in self.clients:
            raise CallError("No target with given id found")
        session_id = secrets.token_hex(16).upper()
        client.sessions[session_id] = tab.tab_id
        tab.sessions.add((client, session_id))
        self._send(
            client,
            {
                "method": "Target.attachedToTarget",
                "params": {
                    "sessionId": session_id,
                    "targetInfo": tab.info(self.tabs),
                    "waitingForDebugger": False,
                },
            },
        )
        return session_id

    async def detach(self, client: Client, session_id: str) -> None:
        tab_id = client.sessions.pop(session_id, None)
        tab = self.tabs.get(tab_id) if tab_id is not None else None
        if tab is None:
            return
        tab.sessions.discard((client, session_id))
        self._send(
            client,
            {
                "method": "Target.detachedFromTarget",
                "params": {"sessionId": session_id, "targetId": tab.target_id},
            },
        )
        await self._release(tab)

    async def _release(self, tab: Tab) -> None:
        """Detach the debugger from a tab no session uses (Chrome's bar goes away once no
        tab is attached)."""
        async with tab.attaching:
            if not tab.sessions and tab.debugger_attached and self.extension is not None:
                tab.debugger_attached = False
                with contextlib.suppress(CallError):
                    await self.call("detach", tabId=tab.tab_id)

    # -- clients -----------------------------------------------------------------------

    async def _serve_client(self, connection: ServerConnection) -> None:
        client = Client(connection, next(self._clients))
        self.clients.append(client)
        self._send_client_count()
        try:
            async for raw in connection:
                self._from_client(client, raw)
        except ConnectionClosed:
            pass
        finally:
            await self._client_left(client)

    async def _client_left(self, client: Client) -> None:
        self.clients.remove(client)
        self._send_client_count()
        for number in [n for n, r in self._relayed.items() if r.client is client]:
            del self._relayed[number]
        released = []
        for session_id, tab_id in client.sessions.items():
            tab = self.tabs.get(tab_id)
            if tab is not None:
                tab.sessions.discard((client, session_id))
                released.append(tab)
        client.sessions.clear()
        for tab in self.tabs.values():
            if tab.owner is client:
                tab.owner = None  # a tab it left open is the person's now
        for tab in released:
            await self._release(tab)

    def _send_client_count(self) -> None:
        if self.extension is not None:
            self._to_extension({"op": "clients", "count": len(self.clients)})

    def _send(self, client: Client, message: dict[str, Any]) -> None:
        write_now(client.connection, json.dumps(message))

    def _answer_error(
        self, client: Client, command_id: Any, session_id: str | None, text: str
    ) -> None:
        try:
            error = json.loads(text)
            if not isinstance(error, dict) or "message" not in error:
                raise ValueError(text)
        except ValueError:
            error = {"code": -32000, "message": text}
        answer: dict[str, Any] = {"id": command_id, "error": error}
        if session_id is not None:
            answer["sessionId"] = session_id
        self._send(client, answer)

    def _from_client(self, client: Client, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
            command_id, method = message["id"], str(message["method"])
            params = message.get("params") or {}
        except (ValueError, KeyError, TypeError):
            self._answer_error(client, None, None, "not a DevTools protocol command")
            return
        session_id = message.get("sessionId")
        if session_id is None:
            self._background(self._browser_command(client, command_id, method, params))
            return
        tab_id = client.sessions.get(session_id)
        child = None
        if tab_id is None and session_id in self.children:
            owner = self.children[session_id]
            if owner in client.sessions.values():
                tab_id, child = owner, session_id
        if tab_id is None or self.extension is None:
            self._answer_error(
                client,
                command_id,
                session_id,
                json.dumps({"code": -32001, "message": "Session with given id not found."}),
            )
            return
        number = next(self._ids)
        self._relayed[number] = Relayed(client, command_id, session_id, tab_id)
        self._to_extension(
            {
                "id": number,
                "op": "command",
                "tabId": tab_id,
                "sessionId": child,
                "method": method,
                "params": params,
            }
        )

    async def _browser_command(
        self, client: Client, command_id: Any, method: str, params: dict[str, Any]
    ) -> None:
        async with client.lock:
            try:
                result = await run_browser_command(self, client, method, params)
            except CallError as exc:
                self._answer_error(client, command_id, None, str(exc))
                return
            except Exception as exc:  # a bug here must not end the bridge
                log.exception("%s failed", method)
                self._answer_error(
                    client, command_id, None, f"{method} failed in the bridge: {exc}"
                )
                return
        self._send(client, {"id": command_id, "result": result})

    # -- running -----------------------------------------------------------------------

    async def watch_idle(self) -> None:
        """End the bridge once neither the extension nor any client has been connected
        for ``idle_timeout`` (the browser quit)."""
        idle = 0.0
        while True:
            await asyncio.sleep(0.5)
            idle = idle + 0.5 if self.extension is None and not self.clients else 0.0
            if idle >= self.idle_timeout:
                self.stopped.set()
                return
