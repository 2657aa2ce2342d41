"""The daemon process: it owns the Chromes (each on ``--remote-debugging-pipe``) and relays
each command's CDP connection to one of them over its 0600 unix socket.

One Chrome pipe carries many commands' connections: each connection gets a browser
session of its own (``Target.attachToBrowserTarget``), so its auto-attach and target
discovery are its own; message ids are renumbered on the way in and back on the way out,
and a session's messages go to the connection that owns it. A connection sees only the
targets of its browser contexts (the one the daemon gave it, and those it created): the
pages of other commands are let go of (resumed and detached) unseen. A command cannot
close the shared browser (``Browser.close`` is refused).

A connection reaches only its own contexts and targets: the allow-list and the filtering
that keep it so are :mod:`._relay`'s (:data:`._relay.BROWSER_SESSION`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable
from typing import Any

from .._core.files import write_private
from .._core.transport import MAX_MESSAGE_SIZE, PipeTransport, TransportClosed
from ..errors import LaunchError
from ..launcher import ChromeProcess, find_chrome, start_chrome
from ._paths import DaemonPaths, peer_uid
from ._relay import Client, Gone, Relay, Session

# How often each Chrome is asked whether it still answers, and how long it has to (it is
# replaced after two misses in a row, or at once when a command is about to get it).
HEALTH_INTERVAL = 2.0
HEALTH_TIMEOUT = 2.0
# A Chrome that answered this recently is handed out without asking again.
FRESH = 1.0


class _Unanswered(Gone):
    """The Chrome did not answer a new connection's first call."""


class _Chrome(Relay):
    """One Chrome the daemon launched, and the connections relayed to it."""

    def __init__(self, number: int, executable: str | None = None) -> None:
        super().__init__()
        self.number = number
        self.executable = executable
        self.process: ChromeProcess | None = None
        self.transport: PipeTransport | None = None
        self.named: dict[str, Session] = {}
        self.misses = 0  # health checks missed in a row
        self.dead: str | None = None
        self._watch: asyncio.Task[None] | None = None
        self._spare: asyncio.Future[str] | None = None  # a context with a tab, made ahead

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self, timeout: float) -> None:
        """Launch Chrome on a pipe and wait until it answers.

        Raises:
            LaunchError: It would not start or answer within ``timeout``.
        """
        self.process = await start_chrome(executable_path=self.executable, pipe=True, headless=True)
        assert self.process.pipe_fds is not None
        self.transport = PipeTransport(*self.process.pipe_fds)
        await self.transport.start()
        self.transport.deliver_to(self._from_chrome)
        self._watch = asyncio.create_task(self._watch_pipe())
        try:
            await self.call("Browser.getVersion", timeout=timeout)
            # Which context each target is in: a connection may name only its own.
            await self.call("Target.setDiscoverTargets", {"discover": True}, timeout=timeout)
        except Gone as exc:
            await self.stop()
            raise LaunchError(f"Chrome did not answer within {timeout:g} s: {exc}") from None

    async def _watch_pipe(self) -> None:
        assert self.transport is not None
        try:
            await self.transport.recv()  # with deliver_to, only returns by raising
        except TransportClosed as exc:
            self.retire(exc.reason)

    def retire(self, reason: str) -> None:
        """Mark this Chrome dead: every relayed connection to it is closed."""
        if self.dead is None:
            self.dead = reason
        for waiter in self._pending.values():
            if isinstance(waiter, asyncio.Future) and not waiter.done():
                waiter.set_exception(Gone(reason))
        self._pending.clear()
        for client in list(self.clients):
            client.closed = True
            client.writer.close()

    async def stop(self) -> None:
        """Close Chrome (killing its process group if it does not leave at once)."""
        if self._spare is not None:
            self._spare.cancel()
            with contextlib.suppress(BaseException):
                await self._spare
        self.retire("the daemon closed this browser")
        if self.transport is not None:
            await self.transport.close()
        if self.process is not None:
            await self.process.stop(grace=0.5)
        if self._watch is not None:
            self._watch.cancel()

    # -- the daemon's own calls -------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.dead is not None or self.transport is None:
            raise Gone(self.dead or "not started")
        try:
            self.transport.send_nowait(json.dumps(message, separators=(",", ":")))
        except TransportClosed as exc:
            self.retire(exc.reason)
            raise Gone(exc.reason) from None

    async def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None,
        timeout: float = 10.0,
    ) -> Any:
        """Send a command of the daemon's own and wait for its answer.

        Raises:
            Gone: No answer within ``timeout``, Chrome gone, or an error answer.
        """
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[message_id] = waiter
        self._send(message)
        try:
            async with asyncio.timeout(timeout):
                return await waiter
        except TimeoutError:
            raise Gone(f"{method} got no answer within {timeout:g} s") from None
        finally:
            self._pending.pop(message_id, None)

    async def healthy(self, timeout: float) -> bool:
        """Whether Chrome still runs and answers within ``timeout``."""
        if self.dead is not None or self.process is None or self.process.exited:
            return False
        try:
            await self.call("Browser.getVersion", timeout=timeout)
        except Gone:
            return False
        return True

    # -- relaying -------------------------------------------------------------------------

    async def admit(
        self, writer: asyncio.StreamWriter, session_name: str | None, *, spare: bool = False,
        answer_within: float = 10.0,
    ) -> Client:
        """A relayed connection in a browser context of its own, or in the named one; with
        ``spare``, the context made ahead with a blank tab open in it (the command's first
        page: a new tab costs a renderer's start), the next one made once it ends (off the
        next command's clock, and not competing with this one for the CPU).

        Its first call, which Chrome answers itself, is also the check that it still
        answers: within ``answer_within`` seconds.

        Raises:
            _Unanswered: Chrome did not answer that first call.
            Gone: Chrome did not answer a later one.
        """
        client = Client(writer, self)
        try:
            attached = await self.call("Target.attachToBrowserTarget", timeout=answer_within)
        except Gone as exc:
            raise _Unanswered(str(exc)) from None
        client.root = attached["sessionId"]
        self._owners[client.root] = client
        if session_name is not None:
            named = self.named.get(session_name)
            if named is None:
                created = await self.call("Target.createBrowserContext")
                named = self.named[session_name] = Session(session_name, created["browserContextId"])
            named.users += 1
            named.last_used = time.monotonic()
            client.session = named
            client.context_id = named.context_id
        else:
            ready = self._spare
            if spare and ready is not None and ready.done():
                self._spare = None  # used now, or failed: made again when this one ends
                if not ready.cancelled() and ready.exception() is None:
                    client.context_id = ready.result()
            if not client.context_id:
                created = await self.call("Target.createBrowserContext")
                client.context_id = created["browserContextId"]
            client.created.add(client.context_id)
        client.wants_spare = spare
        client.contexts.add(client.context_id)
        self.clients.add(client)
        return client

    async def _make_spare(self) -> str:
        """A browser context with a blank tab open, for the next command."""
        created = await self.call("Target.createBrowserContext")
        context_id: str = created["browserContextId"]
        await self.call("Target.createTarget", {"url": "about:blank", "browserContextId": context_id})
        return context_id

    def release(self, client: Client) -> None:
        """Let go of a connection that ended: its browser session and its contexts (a
        named session's context is kept)."""
        client.closed = True
        self.clients.discard(client)
        for session_id in (client.root, *client.sessions):
            self._owners.pop(session_id, None)
        for message_id, waiter in list(self._pending.items()):
            if isinstance(waiter, tuple) and waiter[0] is client:
                del self._pending[message_id]
        if self.dead is not None:
            return
        if client.root:
            self.notify("Target.detachFromTarget", {"sessionId": client.root})
        for context_id in client.created:
            self.notify("Target.disposeBrowserContext", {"browserContextId": context_id})
        if client.session is not None:
            client.session.users -= 1
            client.session.last_used = time.monotonic()
        if client.wants_spare and self._spare is None:
            self._spare = asyncio.ensure_future(self._make_spare())

    def forget_session(self, named: Session) -> None:
        self.named.pop(named.name, None)
        self.notify("Target.disposeBrowserContext", {"browserContextId": named.context_id})


class Daemon:
    """The daemon: its socket, its Chromes (launched on first need, at most ``browsers``),
    named sessions collected after ``session_idle`` seconds unused, and its own end after
    ``idle_timeout`` seconds without a command."""

    def __init__(
        self,
        paths: DaemonPaths,
        *,
        browsers: int = 1,
        idle_timeout: float = 900.0,
        session_idle: float = 600.0,
        launch_timeout: float = 30.0,
    ) -> None:
        self.paths = paths
        self.browsers = browsers
        self.executable: str | None = None  # found once at start: every Chrome is this one
        self.idle_timeout = idle_timeout
        self.session_idle = session_idle
        self.launch_timeout = launch_timeout
        self.chromes: list[_Chrome] = []
        self.launches = 0
        self.served = 0  # connections given a browser
        self._numbers = itertools.count(1)
        self._lock = asyncio.Lock()
        self._stop = asyncio.Event()
        self._last_use = time.monotonic()
        self._connections = 0  # open now, a command waiting for a launch included

    # -- life -----------------------------------------------------------------------------

    async def serve(self) -> None:
        """Listen until stopped (``stop`` asked, a signal, or idle), then close every
        Chrome and remove the socket and the pid file."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, self._stop.set)
        # Held while it runs: `daemon stop` signals only the process holding it, and a
        # second daemon leaves this one's socket alone.
        lock = self.paths.hold_pid_file()
        try:
            await self._serve_locked()
        finally:
            self.paths.pid_file.unlink(missing_ok=True)
            self.paths.chrome_file.unlink(missing_ok=True)
            os.close(lock)

    async def _serve_locked(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.paths.socket.unlink()  # a dead daemon's
        # Which Chrome it runs, for commands to compare with the one they would launch.
        with contextlib.suppress(LaunchError):
            self.executable = os.path.realpath(find_chrome())
            write_private(self.paths.chrome_file, self.executable.encode())
        old_umask = os.umask(0o177)  # the socket is 0600 from its first moment
        try:
            server = await asyncio.start_unix_server(
                self._serve_one, path=str(self.paths.socket), limit=MAX_MESSAGE_SIZE
            )
        finally:
            os.umask(old_umask)
        os.chmod(self.paths.socket, 0o600)
        watch = asyncio.create_task(self._watch())
        worker = await self._start_worker()
        try:
            await self._stop.wait()
        finally:
            watch.cancel()
            server.close()
            if worker is not None and worker.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.terminate()
            for chrome in list(self.chromes):
                await chrome.stop()
            self.chromes.clear()
            for path in (self.paths.socket, self.paths.pid_file, self.paths.worker_socket):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            if worker is not None:
                with contextlib.suppress(TimeoutError, ProcessLookupError):
                    await asyncio.wait_for(worker.wait(), 2.0)
                if worker.returncode is None:
                    worker.kill()
                    await worker.wait()

    async def _start_worker(self) -> asyncio.subprocess.Process | None:
        """Start the warm command runner (:mod:`._worker`), which the commands' fast path
        hands their command lines to; without it they run as without it, only slower."""
        try:
            return await asyncio.create_subprocess_exec(
                sys.executable, "-m", "cdpkit._daemon._worker", str(self.paths.worker_socket),
                stdin=asyncio.subprocess.DEVNULL,
            )
        except OSError as exc:
            print(f"cdpkit daemon: no command runner ({exc})", file=sys.stderr, flush=True)
            return None

    def stop(self) -> None:
        self._stop.set()

    async def _watch(self) -> None:
        """Every ``HEALTH_INTERVAL``: replace Chromes that stopped answering, collect idle
        named sessions, and end the daemon once idle."""
        while True:
            await asyncio.sleep(HEALTH_INTERVAL)
            for chrome in list(self.chromes):
                if await chrome.healthy(HEALTH_TIMEOUT):
                    chrome.misses = 0
                    continue
                chrome.misses += 1
                # Twice in a row, or gone: a busy machine may delay one answer, and
                # replacing a browser ends the commands working in it.
                if chrome.misses >= 2 or chrome.dead is not None or (
                    chrome.process is not None and chrome.process.exited
                ):
                    await self._replace(chrome)
            now = time.monotonic()
            for chrome in self.chromes:
                for named in list(chrome.named.values()):
                    if named.users == 0 and now - named.last_used > self.session_idle:
                        chrome.forget_session(named)
            if not self._in_use() and now - self._last_use > self.idle_timeout:
                self._stop.set()
                return

    def _in_use(self) -> bool:
        return self._connections > 0

    async def _replace(self, chrome: _Chrome) -> None:
        """Drop a Chrome that stopped answering (a new one starts on the next need)."""
        if chrome in self.chromes:
            self.chromes.remove(chrome)
        chrome.retire("the browser stopped answering and was replaced")
        await chrome.stop()

    async def _chrome_for(self, session_name: str | None, timeout: float) -> tuple[_Chrome, bool]:
        """The Chrome a new connection goes to: its named session's, else an unused one,
        else a new one while fewer than ``browsers`` run, else the least busy; and whether
        it has not answered for a while (:data:`FRESH`): :meth:`_admit` then checks it."""
        async with self._lock:
            for chrome in list(self.chromes):
                if chrome.dead is not None or (chrome.process is not None and chrome.process.exited):
                    await self._replace(chrome)
            chosen = None
            if session_name is not None:
                chosen = next((c for c in self.chromes if session_name in c.named), None)
            if chosen is None and self.chromes:
                chosen = min(self.chromes, key=lambda c: len(c.clients))
                if chosen.clients and len(self.chromes) < self.browsers:
                    chosen = None
            if chosen is not None:
                return chosen, time.monotonic() - chosen.last_answer > FRESH
            chosen = _Chrome(next(self._numbers), self.executable)
            await chosen.start(timeout)
            self.launches += 1
            self.chromes.append(chosen)
            return chosen, False

    async def _admit(
        self, writer: asyncio.StreamWriter, session_name: str | None, timeout: float, *, spare: bool
    ) -> tuple[_Chrome, Client]:
        """A Chrome for a new connection, and the connection admitted to it. A Chrome that
        has not answered for a while is checked by the admission's first call (no round
        trip of its own on the command's clock): one that does not answer it within
        :data:`HEALTH_TIMEOUT` (or half the command's timeout) is replaced."""
        chrome, stale = await self._chrome_for(session_name, timeout)
        if not stale:
            return chrome, await chrome.admit(writer, session_name, spare=spare)
        try:
            within = min(HEALTH_TIMEOUT, timeout / 2)
            return chrome, await chrome.admit(writer, session_name, spare=spare, answer_within=within)
        except _Unanswered:
            async with self._lock:
                if chrome in self.chromes:
                    await self._replace(chrome)
        chrome, _ = await self._chrome_for(session_name, timeout)
        return chrome, await chrome.admit(writer, session_name, spare=spare)

    # -- one connection -------------------------------------------------------------------

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if peer_uid(writer.get_extra_info("socket")) not in (None, os.getuid()):
            writer.close()  # another user's process (the socket is 0600: only root could)
            return
        self._connections += 1
        self._last_use = time.monotonic()
        try:
            async with asyncio.timeout(10):
                line = await reader.readline()
            request = json.loads(line)
            op = request.get("op")
            if op == "status":
                _reply(writer, self.status())
            elif op == "stop":
                _reply(writer, {"ok": True, "pid": os.getpid()})
                self._stop.set()
            elif op == "browser":
                await self._relay(reader, writer, request)
            else:
                _reply(writer, {"ok": False, "error": f"unknown request {op!r}"})
            await writer.drain()
        except (ValueError, TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._connections -= 1
            self._last_use = time.monotonic()
            writer.close()

    async def _relay(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: dict[str, Any]
    ) -> None:
        session_name = request.get("session")
        session_name = session_name if isinstance(session_name, str) and session_name else None
        timeout = float(request.get("timeout") or self.launch_timeout)
        _reply(writer, {"ok": True, "state": "accepted"})  # it runs: the command may wait
        await writer.drain()
        try:
            chrome, client = await self._admit(writer, session_name, timeout, spare=request.get("spare") is True)
        except (LaunchError, Gone, OSError) as exc:
            _reply(writer, {"ok": False, "error": str(exc)})
            return
        self.served += 1
        _reply(writer, {"ok": True, "state": "ready", "browser": chrome.number, "context": client.context_id})
        try:
            while True:
                data = await reader.readuntil(b"\0")
                chrome.from_client(client, data[:-1])
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            chrome.release(client)

    def status(self) -> dict[str, Any]:
        return {
            "ok": True,
            "pid": os.getpid(),
            "socket": str(self.paths.socket),
            "launches": self.launches,
            "served": self.served,
            "max_browsers": self.browsers,
            "idle_timeout": self.idle_timeout,
            "browsers": [
                {
                    "number": chrome.number,
                    "pid": chrome.pid,
                    "connections": len(chrome.clients),
                    "sessions": sorted(chrome.named),
                }
                for chrome in self.chromes
            ],
        }


def _reply(writer: asyncio.StreamWriter, answer: dict[str, Any]) -> None:
    writer.write(json.dumps(answer).encode() + b"\n")


def run_daemon(
    paths: DaemonPaths, *, browsers: int, idle_timeout: float, session_idle: float, launch_timeout: float
) -> None:
    """Serve in this process until stopped (``cdpkit daemon run``)."""
    daemon = Daemon(
        paths, browsers=browsers, idle_timeout=idle_timeout, session_idle=session_idle,
        launch_timeout=launch_timeout,
    )
    print(f"cdpkit daemon {os.getpid()} listening on {paths.socket}", file=sys.stderr, flush=True)
    asyncio.run(_serving(daemon.serve()))


async def _serving(work: Awaitable[None]) -> None:
    await work
