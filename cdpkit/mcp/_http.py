"""The MCP server over streamable HTTP: who a client is (server-issued ids only, never a
connection's facts), each client's own session and its end, and the Host and Origin check
for every bind address (DNS rebinding); :func:`run_http` serves :func:`_app.build_server`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import re
import secrets
import sys
import time
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .._core.secrets import get_logger
from .._core.urls import read_url
from ._app import CLIENT_HEADER, SESSION_HEADER, ClientSessions, build_server, client_key
from ._tools import BrowserSession

__all__ = ["run_http"]

log = get_logger("cdpkit.mcp")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A stateless client's id: kept by the client as a cookie, handed to the request handlers
# in this header (set by the tracker only; a client's own is dropped).
_CLIENT_COOKIE = "cdpkit-mcp-client"
# How long a stateless client's context is kept when its cookie never came back (a client
# that keeps no cookie is a new client at every request).
_UNCLAIMED = 60.0


def _cookie(header: bytes | None, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header."""
    if not header:
        return None
    for pair in header.decode("latin-1").split(";"):
        key, _, value = pair.strip().partition("=")
        if key == name:
            return value
    return None


# How long an HTTP client session may go with no request in flight before the SDK ends it
# (passed to the SDK, so both agree); the tracker ends the session's browser context a
# little after that.
SESSION_IDLE_TIMEOUT = 30 * 60.0
_IDLE_MARGIN = 5.0


@dataclasses.dataclass(slots=True)
class _Activity:
    """One client session's requests: how many are in flight, and when the last ended."""

    in_flight: int = 0
    last: float = dataclasses.field(default_factory=time.monotonic)
    # A stateless client's id comes back in its cookie (claimed); one never sent back is a
    # client that keeps no cookie, whose next request is another client: its context is
    # not kept for the whole idle timeout.
    claimed: bool = True


class _SessionTracker:
    """ASGI middleware: tracks the open streamable-HTTP clients, closes an ended
    client's browser context, and closes the browser when the last client ends.

    A client with a session (created by an ``initialize`` answered with an
    ``mcp-session-id``) ends with its ``DELETE`` or after ``idle_timeout`` seconds with no
    request in flight, as the SDK ends it. A stateless client (the 2026 protocol sends no
    ``initialize`` and has no session) is told apart by a cookie: its first request
    without one gets a fresh random id (``Set-Cookie: cdpkit-mcp-client=...``, HttpOnly,
    SameSite=Strict, path ``/mcp``) that a client keeping cookies (the official SDKs'
    HTTP clients, browsers) sends back with every later request; only ids this server
    issued count. Nothing else names a client: not its address or port (another local
    process can connect from the same port once the client has left), not its
    connection. A client that keeps no cookie is a new client at every request. A
    stateless client ends after ``idle_timeout`` seconds without a request."""

    def __init__(
        self,
        app: ASGIApp,
        clients: ClientSessions,
        idle_timeout: float = SESSION_IDLE_TIMEOUT + _IDLE_MARGIN,
        unclaimed_timeout: float = _UNCLAIMED,
    ) -> None:
        self.app = app
        self.clients = clients
        self.session = clients.root
        self.idle_timeout = idle_timeout
        self.unclaimed_timeout = min(unclaimed_timeout, idle_timeout)
        self.open: dict[bytes, _Activity] = {}
        self.issued: set[str] = set()  # stateless clients' ids
        self._sweeper: asyncio.Task[None] | None = None

    def _stateless_client(self, headers: dict[bytes, bytes]) -> tuple[str, bool]:
        """The id of a request's stateless client, and whether it is new (to be set as
        its cookie): the id in its cookie if this server issued it, else a fresh one."""
        client_id = _cookie(headers.get(b"cookie"), _CLIENT_COOKIE)
        if client_id is not None and client_id in self.issued:
            return client_id, False
        client_id = secrets.token_urlsafe(24)
        self.issued.add(client_id)
        return client_id, True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The client id header is the tracker's to set: one a client sent is dropped.
        raw = [
            (name, value)
            for name, value in scope.get("headers") or []
            if name.lower() != CLIENT_HEADER
        ]
        headers = dict(raw)
        session_id = headers.get(SESSION_HEADER)
        if session_id is None:
            client_id, new = self._stateless_client(headers)
            scope = {**scope, "headers": [*raw, (CLIENT_HEADER, client_id.encode())]}
            key = client_key(client_id).encode()
            activity = self.open.get(key)
            if activity is not None:
                activity.in_flight += 1
                activity.claimed = True  # only a request with its cookie finds it open
            try:
                await self.app(scope, receive, self._watch(send, key, client_id if new else None))
            finally:
                if activity is not None:
                    activity.in_flight -= 1
                    activity.last = time.monotonic()
            return
        scope = {**scope, "headers": raw}
        activity = self.open.get(session_id)
        if activity is not None:
            activity.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            if activity is not None:
                activity.in_flight -= 1
                activity.last = time.monotonic()
        if scope.get("method") == "DELETE" and session_id in self.open:
            await self._end(session_id)

    async def _end(self, session_id: bytes) -> None:
        """The client ended: close its context, and the browser after the last."""
        if self.open.pop(session_id, None) is None:
            return
        key = session_id.decode()
        if key.startswith(client_key("")):
            self.issued.discard(key.removeprefix(client_key("")))  # its cookie names no one now
        await self.clients.end(key)
        if not self.open:
            async with self.session.lock:
                await self.session.close()

    def _watch(self, send: Send, client_key: bytes, new_client: str | None) -> Send:
        """``send``, registering the client the response is for: a session its
        ``mcp-session-id`` opens, else the stateless client ``client_key`` (given its
        cookie when ``new_client`` is its new id)."""

        async def watching(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                headers = list(message.get("headers") or [])
                opened = [value for name, value in headers if name.lower() == SESSION_HEADER]
                for value in opened:
                    self.open.setdefault(value, _Activity())
                if opened and new_client is not None:
                    self.issued.discard(new_client)  # an initialize: the session is the client
                if not opened:  # a stateless client (not an initialize)
                    self.open.setdefault(client_key, _Activity(claimed=new_client is None))
                    if new_client is not None:
                        cookie = (
                            f"{_CLIENT_COOKIE}={new_client}; Path=/mcp; HttpOnly; "
                            f"SameSite=Strict; Max-Age={int(self.idle_timeout)}"
                        )
                        message = {
                            **message,
                            "headers": [*headers, (b"set-cookie", cookie.encode())],
                        }
                self._start_sweeper()
            await send(message)

        return watching

    def _start_sweeper(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        """End the sessions idle for longer than :attr:`idle_timeout` until none is open."""
        while self.open:
            await asyncio.sleep(min(self.unclaimed_timeout / 2, 30.0))
            now = time.monotonic()
            idle = [
                session_id
                for session_id, activity in self.open.items()
                if activity.in_flight == 0
                and now - activity.last
                > (self.idle_timeout if activity.claimed else self.unclaimed_timeout)
            ]
            for session_id in idle:
                try:
                    await self._end(session_id)
                except Exception:  # the sweep goes on for the other sessions
                    log.exception("Closing an idle client session's browser context failed")

    async def stop(self) -> None:
        """Stop watching for idle sessions (the server is stopping)."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper


# What a Host header or an origin's authority may be made of: a name, an IPv4 address in
# any notation, or an IPv6 address in brackets, with a port (no userinfo, no path).
_AUTHORITY = re.compile(r"(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def _authority(text: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST[:PORT]``, the host as a browser canonicalizes it (the
    URL standard: lowercase, ``127.1`` and ``0x7f.0.0.1`` as ``127.0.0.1``, IPv6
    compressed, without brackets), the port 80 when left out; ``None`` if it is no
    authority."""
    if not _AUTHORITY.fullmatch(text):
        return None
    url = urllib.parse.urlsplit(read_url(f"http://{text}/"))
    try:
        port = url.port
    except ValueError:
        return None
    host = (url.hostname or "").rstrip(".")
    return (host, port or 80) if url.scheme == "http" and host else None


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class _ServerName:
    """The names a request may give the HTTP server, in its ``Host`` header and (when it
    comes from a web page) its ``Origin``: what stops DNS rebinding, where a web page of
    the attacker's name, resolved to the server's address, drives the browser.

    Accepted, on the bound port only: the bound address, in any spelling of the same
    address (``127.1`` is ``127.0.0.1``); ``localhost`` when the address is loopback (and
    ``127.0.0.1``/``::1`` when bound to ``localhost``); any IP address when bound to every
    interface (``0.0.0.0``, ``::``); a bound name as given. Any other name is refused:
    a rebinding page can only be at a name its attacker owns, never at an IP address (a
    page there is the server itself) nor at ``localhost`` (browsers resolve it to
    loopback only). Over a proxy or another name, bind that name."""

    port: int
    names: frozenset[str]
    any_address: bool = False

    @classmethod
    def bound(cls, host: str, port: int) -> _ServerName:
        """The names of a server bound to ``host`` (as ``--http`` gives it) and ``port``."""
        parsed = _authority(f"{_host_for_url(host)}:{port}")
        name = parsed[0] if parsed is not None else host.lower().rstrip(".")
        address = _ip(name)
        names = {name}
        if name == "localhost":
            names |= {"127.0.0.1", "::1"}
        elif address is not None and (address.is_loopback or address.is_unspecified):
            names.add("localhost")
        return cls(port, frozenset(names), address is not None and address.is_unspecified)

    def names_server(self, authority: str) -> bool:
        """Whether ``authority`` (``HOST[:PORT]``) names this server."""
        parsed = _authority(authority)
        if parsed is None or parsed[1] != self.port:
            return False
        host = parsed[0]
        return host in self.names or (self.any_address and _ip(host) is not None)

    def refusal(self, headers: list[tuple[bytes, bytes]]) -> tuple[int, str] | None:
        """``None`` if a request with these headers may be served, else the HTTP status
        and the reason it may not: 421 for a Host not naming this server, 403 for an
        ``Origin`` (a web page's request) of another site."""
        hosts = [value for name, value in headers if name.lower() == b"host"]
        if len(hosts) != 1 or not self.names_server(hosts[0].decode("latin-1")):
            return 421, "Invalid Host header: this MCP server answers only to its own address"
        origins = [value for name, value in headers if name.lower() == b"origin"]
        if len(origins) > 1 or (origins and not self._same_origin(origins[0].decode("latin-1"))):
            return 403, "Invalid Origin header: web pages of other sites may not use this server"
        return None

    def _same_origin(self, origin: str) -> bool:
        scheme, _, authority = origin.partition("://")
        return scheme.lower() == "http" and self.names_server(authority)


class _HostCheck:
    """ASGI middleware: every request (``/mcp`` or not) whose ``Host`` or ``Origin`` does
    not name this server (:class:`_ServerName`) gets the refusal, and nothing else of
    the server: no MCP answer, no client id."""

    def __init__(self, app: ASGIApp, name: _ServerName) -> None:
        self.app = app
        self.name = name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = None
        if scope["type"] in ("http", "websocket"):
            refusal = self.name.refusal(list(scope.get("headers") or []))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        status, reason = refusal
        log.warning("Refused a request: %s", reason)
        body = reason.encode()
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", b"%d" % len(body)),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def run_http(session: BrowserSession, host: str, port: int) -> None:
    """Serve streamable HTTP on ``http://host:port/mcp`` until interrupted (SIGINT or
    SIGTERM); then close the browser. Each client session works in a browser context of
    its own (``--shared-context``: all in one), closed when the session ends (the
    client's ``DELETE``, or after :data:`SESSION_IDLE_TIMEOUT` without a request); the
    browser is closed when the last client session ends, and started again by the next
    tool call. Only requests naming the server by its own address are served
    (:class:`_ServerName`), whatever the address: refused with 421 or 403 otherwise."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    clients = ClientSessions(session)
    server = build_server(session, clients)
    # The SDK checks Host and Origin only for a few exact bind strings (127.0.0.1,
    # localhost, ::1); _HostCheck does it for every address, so the SDK's is off.
    sdk_app = server.streamable_http_app(
        session_idle_timeout=SESSION_IDLE_TIMEOUT,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    tracker = _SessionTracker(sdk_app, clients)
    app = _HostCheck(tracker, _ServerName.bound(host, port))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    print(
        f"cdpkit MCP server: http://{_host_for_url(host)}:{port}/mcp", file=sys.stderr, flush=True
    )
    try:
        await uvicorn.Server(config).serve()
    finally:
        await tracker.stop()
        await session.close()


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host
