"""One connection to a browser: a transport, message ids, and a single reader.

The reader processes responses and events in arrival order and routes each by its
``sessionId`` to the :class:`~cdpkit.session.Session` that owns it. A session is
registered the moment its ``Target.attachedToTarget`` event is read, so no event of a new
page can arrive before its session exists. When the transport closes, every session fails
at once with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from typing import Any

import msgspec

from ._core.secrets import get_logger
from ._core.transport import CLOSE_GRACE, Transport, TransportClosed
from ._core.wire import EventParams, decode_envelope, decode_params
from ._core.wire import decode_message as _decode
from .errors import ConnectionClosedError, TargetClosedError
from .session import Session

__all__ = ["Connection"]

log = get_logger("cdpkit")

# Builds the session for a newly attached target: (connection, parent, params of
# Target.attachedToTarget) -> Session.
SessionFactory = Callable[["Connection", Session, dict[str, Any]], Session]


def _default_session_factory(
    connection: Connection, parent: Session, params: dict[str, Any]
) -> Session:
    return Session(connection, params["sessionId"], command_timeout=parent.command_timeout)


# How an event's text starts (an answer starts with its id).
_EVENT_HEADS = frozenset({'{"method":', b'{"method":'})


class Connection:
    """The single transport to a browser, shared by the browser session and every page."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        # Commands larger than this are refused before sending (Session.call).
        self.max_command_size: int = transport.max_command_size
        self._ids = itertools.count(1)
        self.next_id = self._ids.__next__
        self._root: Session | None = None
        self._sessions: dict[str, Session] = {}
        self._reader: asyncio.Task[None] | None = None
        self._close_reason: str | None = None
        self._closed = asyncio.Event()
        self.session_factory: SessionFactory = _default_session_factory
        # Answers their caller decodes itself, by message id (Session.call(decoder=...)).
        self.answer_decoders: dict[int, Callable[[str | bytes], Any]] = {}
        # Transports that can write without awaiting (the pipe) offer send_nowait.
        self._send_nowait: Callable[[str], bool] | None = getattr(
            transport, "send_nowait", None
        )

    def start(self, root: Session) -> None:
        """Start the reader; ``root`` receives messages that carry no ``sessionId``."""
        self._root = root
        self._reader = asyncio.create_task(self._read_loop(), name="cdpkit-reader")

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def session(self, session_id: str) -> Session | None:
        """The live session with this id, if any."""
        return self._sessions.get(session_id)

    def send_now(self, text: str) -> bool:
        """Write ``text`` without awaiting if the transport can; return whether it did.

        ``False`` means nothing was written: the caller awaits :meth:`send_text` instead.

        Raises:
            ConnectionClosedError: The transport is closed.
        """
        send_nowait = self._send_nowait
        if send_nowait is None:
            return False
        try:
            return send_nowait(text)
        except TransportClosed as exc:
            raise ConnectionClosedError(self._describe(exc.reason)) from None

    async def send_text(self, text: str) -> None:
        try:
            await self._transport.send(text)
        except TransportClosed as exc:
            # The reader will fail every session with the full reason; fail this call now.
            raise ConnectionClosedError(self._describe(exc.reason)) from None

    async def _read_loop(self) -> None:
        reason = "the connection closed"
        recv = self._transport.recv
        receive = self._receive
        # A transport that can hand over messages as it reads them (the pipe) does: each
        # answer then reaches its caller without a task switch, and recv() only reports
        # the close.
        deliver_to: Callable[[Callable[[str | bytes], None]], None] | None = getattr(
            self._transport, "deliver_to", None
        )
        if deliver_to is not None:
            deliver_to(receive)
        try:
            while True:
                receive(await recv())
        except TransportClosed as exc:
            reason = exc.reason
        except asyncio.CancelledError:
            reason = "the connection was closed by cdpkit"
            raise
        except Exception as exc:  # a transport bug must still fail every caller
            reason = f"the connection's reader failed: {exc!r}"
            log.exception("cdpkit reader failed")
        finally:
            self._shut_down(reason)

    def _receive(self, data: str | bytes) -> None:
        """Decode and route one message, in arrival order; never raises."""
        if self._closed.is_set():
            return  # after abort(): nothing more reaches the failed sessions
        if data[:10] in _EVENT_HEADS:
            # An event (Chrome writes its method first): decoded as far as routing needs,
            # its params left as text until read. What this refuses takes the full path.
            try:
                envelope = decode_envelope(data)
            except (msgspec.DecodeError, RecursionError):
                envelope = None
            if envelope is not None and envelope.id is None:
                try:
                    self._event(envelope.sessionId, envelope.method, envelope.params)
                except Exception:
                    log.exception("cdpkit failed to dispatch a message: %.200r", data)
                return
        try:
            message = self._decode_answer(data) if self.answer_decoders else _decode(data)
        except ValueError:
            log.warning("Ignoring a malformed message from the browser: %.200r", data)
            return
        except RecursionError:
            # Nested deeper than Python's recursion limit (a DOM thousands of levels deep,
            # fetched whole): dropped rather than letting it take the reader down.
            log.warning(
                "Ignoring a message from the browser nested too deeply to decode "
                "(%d bytes): %.200r", len(data), data
            )
            return
        if type(message) is not dict:
            log.warning("Ignoring a message that is not a JSON object: %.200r", data)
            return
        try:
            self._dispatch(message)
        except Exception:
            log.exception("cdpkit failed to dispatch a message: %.200r", data)

    def _decode_answer(self, data: str | bytes) -> Any:
        """Decode a message with its caller's decoder when it answers a call that gave one
        (Chrome writes the id first: ``{"id":12,...``), else, or if that decoder fails, as
        every message is."""
        head = data[:32]
        if isinstance(head, bytes):
            head = head.decode("ascii", "replace")
        if head.startswith('{"id":'):
            end = head.find(",", 6)
            digits = head[6:end].strip()
            if digits.isascii() and digits.isdigit():
                decoder = self.answer_decoders.get(int(digits))
                if decoder is not None:
                    with contextlib.suppress(Exception):  # e.g. a lone surrogate: json takes it
                        message = _decode(data, decoder)
                        if type(message) is dict:
                            return message
        return _decode(data)

    def _dispatch(self, message: dict[str, Any]) -> None:
        session_id = message.get("sessionId")
        session = self._root if session_id is None else self._sessions.get(session_id)
        if session is None:
            return  # a late message for a detached session
        message_id = message.get("id")
        if message_id is not None:
            session._resolve(message_id, message)
            return
        method = message.get("method")
        if not isinstance(method, str):
            log.warning("Ignoring a message with neither id nor method: %.200r", message)
            return
        params = message.get("params")
        self._event(session_id, method, params if isinstance(params, dict) else {})

    def _event(self, session_id: str | None, method: str, params: EventParams) -> None:
        session = self._root if session_id is None else self._sessions.get(session_id)
        if session is None:
            return  # a late event of a detached session
        if method == "Target.attachedToTarget":
            params = decode_params(params)
            self._attach(session, params)
        elif method == "Target.detachedFromTarget":
            params = decode_params(params)
            self._detach(params)
        session._emit(method, params)

    def _attach(self, parent: Session, params: dict[str, Any]) -> None:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str) or session_id in self._sessions:
            return
        self._sessions[session_id] = self.session_factory(self, parent, params)

    def _detach(self, params: dict[str, Any]) -> None:
        session_id = params.get("sessionId")
        session = self._sessions.pop(session_id, None) if isinstance(session_id, str) else None
        if session is not None:
            session._fail(TargetClosedError("The target was closed (its session detached)"))

    def abort(self, reason: str) -> None:
        """Fail every session now with ``reason`` (e.g. the browser process died)."""
        if self._close_reason is None:
            self._close_reason = reason
        self._shut_down(reason)
        if self._reader is not None:
            self._reader.cancel()

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Close the transport and fail whatever is still pending. Idempotent.

        Args:
            grace: Seconds to wait for the browser's side of the close (the WebSocket
                closing handshake); after it the connection is cut.
        """
        if self._close_reason is None:
            self._close_reason = "the connection was closed by cdpkit"
        with contextlib.suppress(OSError, TransportClosed):
            await self._transport.close(grace)
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        self._shut_down(self._close_reason)

    def _describe(self, reason: str) -> str:
        return f"Connection to the browser closed: {self._close_reason or reason}"

    def _shut_down(self, reason: str) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        error = ConnectionClosedError(self._describe(reason))
        sessions = list(self._sessions.values())
        self._sessions.clear()
        for session in sessions:
            session._fail(error)
        if self._root is not None:
            self._root._fail(error)

    async def wait_closed(self) -> None:
        await self._closed.wait()
