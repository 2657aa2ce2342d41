"""The bridge's records: the person's tabs, the clients and their sessions, downloads on
their way, and the error the extension answers with."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Response
from websockets.protocol import State

MAX_BACKLOG = 256 * 1024 * 1024  # unread bytes a peer may leave queued before it is closed
CONTEXT_ID = "cdpkit-extension-default"  # the person's profile: the one browser context


class CallError(Exception):
    """The extension could not do what the bridge asked (its message)."""


@dataclass(eq=False)
class Tab:
    tab_id: int
    target_id: str
    url: str
    title: str
    opener_tab: int | None
    owner: Client | None  # the client that opened it, None: the person's
    sessions: set[tuple[Client, str]] = field(default_factory=set)
    debugger_attached: bool = False
    attaching: asyncio.Lock = field(default_factory=asyncio.Lock)

    def info(self, tabs: dict[int, Tab]) -> dict[str, Any]:
        described: dict[str, Any] = {
            "targetId": self.target_id,
            "type": "page",
            "title": self.title,
            "url": self.url,
            "attached": bool(self.sessions),
            "canAccessOpener": False,
            "browserContextId": CONTEXT_ID,
        }
        opener = tabs.get(self.opener_tab) if self.opener_tab is not None else None
        if opener is not None:
            described["openerId"] = opener.target_id
        return described


@dataclass(eq=False)
class Client:
    connection: ServerConnection
    number: int
    sessions: dict[str, int] = field(default_factory=dict)  # session id -> tab id
    discover: bool = False
    auto_attach: bool = False
    download_behavior: str = "default"
    download_path: Path | None = None
    download_events: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # browser-level commands in order

    def sees(self, tab: Tab) -> bool:
        return tab.owner is None or tab.owner is self


@dataclass(eq=False)
class Download:
    guid: str
    url: str
    tab_id: int
    chrome_id: int | None = None


@dataclass(eq=False)
class Relayed:
    """A client's command on its way to a tab: where its answer goes."""

    client: Client
    command_id: Any
    session_id: str
    tab_id: int


def write_now(connection: ServerConnection, text: str) -> None:
    """Send ``text`` at once, in the order of the calls: written to the socket before this
    returns (no task, no queue: a relayed answer costs one hop less). A peer that leaves
    more than :data:`MAX_BACKLOG` unread is cut off rather than held in memory."""
    if connection.protocol.state is not State.OPEN:
        return
    transport = connection.transport
    if transport.get_write_buffer_size() > MAX_BACKLOG:
        transport.abort()  # it stopped reading: never hold the bridge up
        return
    connection.protocol.send_text(text.encode())
    connection.send_data()


def bearer(headers: Headers) -> str:
    value = headers.get("Authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def refuse(connection: ServerConnection, status: int, text: str) -> Response:
    return connection.respond(status, text + "\n")
