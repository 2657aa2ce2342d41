"""A CDP session: send commands to one target and receive its events.

The browser itself is the root session; every page is a flattened session on the same
connection. A session owns its pending calls and event streams: when it closes (the page
closed or crashed, the connection dropped) every pending call and every stream fails at
once with the reason, and later calls fail immediately. Nothing waits forever.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

from pydantic import ValidationError

from ._core.calls import PendingCall, encode, expire_due, method_text, push_deadline
from ._core.event_specs import build_validator, event_key
from ._core.secrets import get_logger
from ._core.streams import AnyEvent, EventSpec, EventStream, Expectation, fresh_error
from ._core.wire import EventParams, decode_params
from ._model import Command, Event, RawEvent
from .errors import (
    CommandTimeoutError,
    CommandTooLargeError,
    ConnectionClosedError,
    ProtocolError,
)

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["EventStream", "Expectation", "Session"]

log = get_logger("cdpkit")

R = TypeVar("R")
W = TypeVar("W")  # a command's result as raw JSON (see send_json)
E = TypeVar("E", bound=Event)
S = TypeVar("S")  # a kind of per-session state (see Session.state)

DEFAULT_TIMEOUT = 30.0


class Session:
    """Sends commands to one target and routes its events.

    Obtain one from :func:`cdpkit.launch` (the :class:`~cdpkit.Browser` is the root session)
    or as a :class:`~cdpkit.Page`; never construct one directly.

    Attributes:
        session_id: The flattened session id, ``None`` for the browser session.
        command_timeout: Default timeout in seconds for :meth:`send`, :meth:`call` and waits.
    """

    def __init__(
        self,
        connection: Connection,
        session_id: str | None,
        *,
        command_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._connection = connection
        self.session_id = session_id
        self.command_timeout = command_timeout
        # How every command's JSON text ends: its sessionId, if any, and the closing brace.
        self._message_end = "}" if session_id is None else f',"sessionId":{encode(session_id)}}}'
        self._pending: dict[int, PendingCall] = {}
        # (deadline, message id) of the calls with a finite timeout, earliest first, and one
        # timer for the earliest: cheaper than a timer per call. Entries of answered calls
        # are dropped lazily, never holding more than about twice the calls pending.
        self._deadlines: list[tuple[float, int]] = []
        self._deadline_timer: asyncio.TimerHandle | None = None
        self._closed_error: ConnectionClosedError | None = None
        self._handlers: dict[str, list[Callable[[dict[str, Any]], None]]] = {}
        self._undecoded_handlers: dict[str, list[Callable[[EventParams], None]]] = {}
        self._streams: dict[str, list[EventStream[Any]]] = {}  # by "Domain.event"
        self._wild_streams: dict[str, list[EventStream[Any]]] = {}  # by "Domain.*" or "*"
        self._states: dict[type[Any], Any] = {}

    def state(self, kind: type[S]) -> S:
        """The state of type ``kind`` kept with this session, created by ``kind()`` on first use.

        Tools keep what they know about a page or browser this way, one small class per
        concern (e.g. :class:`cdpkit.tools.SnapshotState`), keyed by the class itself, so
        reading it back is typed and two tools never collide on a name::

            @dataclass
            class Visits:
                count: int = 0

            page.state(Visits).count += 1

        The state lives as long as the session object; it is not shared across pages.
        """
        try:
            return cast(S, self._states[kind])
        except KeyError:
            created = self._states[kind] = kind()
            return created
    # -- commands ---------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether the session is gone (target closed or crashed, or connection lost)."""
        return self._closed_error is not None

    async def send(self, command: Command[R], timeout: float | None = None) -> R:
        """Send a typed command and return its typed result.

        Args:
            command: A command built by the bindings, e.g. ``cdp.page.navigate(url)``.
            timeout: Seconds to wait for the answer; ``None`` uses :attr:`command_timeout`,
                ``math.inf`` waits as long as the session lives.

        Returns:
            The parsed result model, or ``None`` for commands that return nothing.

        Raises:
            ProtocolError: Chrome answered with an error.
            CommandTimeoutError: No answer within ``timeout``, counted from the call and
                covering the write, so a browser that stops reading cannot block it; a late
                answer is dropped.
            CommandTooLargeError: The command's JSON is larger than the browser accepts in
                one message (it would drop the connection); nothing was sent.
            ConnectionClosedError: The connection or the target went away (see subclasses).

        Cancelling the awaiting task is safe: the call is forgotten and its answer dropped.
        """
        # The call's steps inlined (as in send_json and call): one coroutine per call.
        call, unsent = self._begin(command.method, command.params, timeout)
        try:
            if unsent is not None:
                await self._write(call, unsent)
            result = await call.future
        finally:
            del self._pending[call.message_id]
        try:
            return command.parse(result)
        except ValidationError as exc:
            exc.add_note(
                f"while parsing the result of {command.method}; "
                "session.call() returns the raw JSON instead"
            )
            raise

    async def send_json(
        self,
        command: Command[Any, W],
        timeout: float | None = None,
        *,
        decoder: Callable[[str | bytes], Any] | None = None,
    ) -> W:
        """Send a typed command and return its result as the raw JSON, building no model.

        The fast path for big results. Validating a result into models costs time in
        proportion to its size: for ``Accessibility.getFullAXTree`` of a 5,000-element page
        (19,000 nodes, 9 MB of JSON) :meth:`send` takes about 2.6 s where :meth:`call` takes
        1.05 s, the rest being pydantic building some 150,000 objects. ``send_json`` costs
        what :meth:`call` costs, and keeps the types for the type checker: the result is
        typed by the command's wire TypedDict, whose keys are the protocol's wire names::

            tree = await page.send_json(cdp.accessibility.get_full_ax_tree())
            buttons = [
                node["backendDOMNodeId"]  # a cdp.dom.BackendNodeId, ready for DOM commands
                for node in tree["nodes"]  # each a cdp.accessibility.AXNodeJSON
                if node.get("role", {}).get("value") == "button" and "backendDOMNodeId" in node
            ]

        Use :meth:`send` for everyday results (models are easier to use, and check what
        Chrome sent); use ``send_json`` where a result is large or on a hot path and you
        read a few fields. Nothing is validated: enums are plain strings, optional keys may
        be absent, keys newer than the pinned protocol come through as sent.

        Args:
            command: A command built by the bindings, e.g. ``cdp.dom.get_document(depth=-1)``.
            timeout: Seconds to wait for the answer, as for :meth:`send`.
            decoder: Decodes the answer instead of ``json.loads``, as for :meth:`call`.

        Returns:
            The ``result`` object of Chrome's answer, exactly as :meth:`call` returns it
            (``{}`` for commands that return nothing), typed for type checkers as the
            command's result TypedDict (e.g. ``cdp.accessibility.GetFullAXTreeResultJSON``).

        Raises:
            ProtocolError: Chrome answered with an error.
            CommandTimeoutError: No answer within ``timeout`` (see :meth:`send`).
            CommandTooLargeError: The command's JSON is larger than the browser accepts.
            ConnectionClosedError: The connection or the target went away.

        Cancelling the awaiting task is safe: the call is forgotten and its answer dropped.
        """
        if decoder is not None:
            return cast(W, await self._call_decoded(command.method, command.params, timeout, decoder))
        call, unsent = self._begin(command.method, command.params, timeout)
        try:
            if unsent is not None:
                await self._write(call, unsent)
            return cast(W, await call.future)
        finally:
            del self._pending[call.message_id]

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        decoder: Callable[[str | bytes], Any] | None = None,
    ) -> dict[str, Any]:
        """Send a command by wire name with JSON params and return the raw JSON result.

        Same timeout, error and cancellation behaviour as :meth:`send`.

        ``decoder`` decodes the whole answer message (its JSON text or bytes) instead of
        ``json.loads``: e.g. a schema-aware decoder that skips the fields the caller never
        reads in a large result. It returns the message as ``json.loads`` would (a dict with
        ``id`` and ``result`` or ``error``, and ``sessionId`` when it has one) or raises, and
        ``json.loads`` decodes the message instead.
        """
        if decoder is not None:
            return await self._call_decoded(method, params, timeout, decoder)
        call, unsent = self._begin(method, params, timeout)
        try:
            if unsent is not None:
                await self._write(call, unsent)
            return await call.future
        finally:
            del self._pending[call.message_id]

    async def _call_decoded(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        decoder: Callable[[str | bytes], Any],
    ) -> dict[str, Any]:
        """:meth:`call` whose answer ``decoder`` decodes: registered by the call's id as
        soon as it is sent (no answer is read before the next await), forgotten after."""
        call, unsent = self._begin(method, params, timeout)
        decoders = self._connection.answer_decoders
        decoders[call.message_id] = decoder
        try:
            if unsent is not None:
                await self._write(call, unsent)
            return await call.future
        finally:
            del self._pending[call.message_id]
            del decoders[call.message_id]

    def _begin(
        self, method: str, params: dict[str, Any] | None, timeout: float | None
    ) -> tuple[PendingCall, str | None]:
        """Register a call, arm its timeout and write it if the transport can right away.

        Returns the call (its ``future`` gets the answer; the caller removes it from
        ``_pending`` when done) and the command's text if it still has to be written with
        :meth:`_write`, ``None`` if it was written.

        Raises:
            ConnectionClosedError: The session or the connection is closed (nothing is
                left registered).
            CommandTooLargeError: The command is larger than the browser accepts.
        """
        error = self._closed_error
        if error is not None:
            raise fresh_error(error)
        connection = self._connection
        message_id = connection.next_id()
        text = (
            f'{{"id":{message_id},"method":{method_text(method)},'
            f'"params":{encode(params) if params else "{}"}{self._message_end}'
        )
        # A character is at most 4 bytes of UTF-8: only a huge text is encoded to measure it.
        if len(text) > connection.max_command_size // 4:
            size = len(text.encode())
            if size > connection.max_command_size:
                raise CommandTooLargeError(method, size, connection.max_command_size)
        loop = asyncio.get_running_loop()
        if timeout is None:
            timeout = self.command_timeout
        call = self._pending[message_id] = PendingCall(loop.create_future(), message_id, method, timeout)
        if timeout != math.inf:
            self._add_deadline(loop, loop.time() + timeout, message_id)
        # The pipe writes at once (it buffers what the OS pipe cannot take yet); the
        # WebSocket's send may have to wait for its buffer to drain (see _write).
        try:
            written = connection.send_now(text)
        except BaseException:
            del self._pending[message_id]
            raise
        return call, None if written else text

    async def _write(self, call: PendingCall, text: str) -> None:
        """Write a call's command, waiting for the transport's buffer to drain if need be.

        The timeout covers the write too: a browser that stops reading (SIGSTOPped, hung)
        fills the transport's buffer and the send waits for it to drain; on expiry the
        timeout cancels that wait. Cancelling it is safe: the transports hand a message to
        the OS-level transport whole, before their first await, so the stream never holds
        half a message. What stays queued is bounded by the messages callers chose to send.

        Raises:
            CommandTimeoutError: The call's timeout passed while writing.
            ConnectionClosedError: The connection closed.
        """
        call.task = asyncio.current_task()
        try:
            await self._connection.send_text(text)
        except asyncio.CancelledError:
            if call.cancelled_at is not None:
                call.future.exception()  # retrieved: the timeout is what is raised
                if call.task is not None and call.task.uncancel() <= call.cancelled_at:
                    raise CommandTimeoutError(call.method, call.timeout) from None
            raise
        call.task = None

    def _add_deadline(self, loop: asyncio.AbstractEventLoop, deadline: float, message_id: int) -> None:
        push_deadline(self._deadlines, self._pending, deadline, message_id)
        timer = self._deadline_timer
        if timer is None or deadline < timer.when():
            if timer is not None:
                timer.cancel()
            self._deadline_timer = loop.call_at(deadline, self._expire_due, deadline)

    def _expire_due(self, armed_for: float) -> None:
        """Fail the calls whose timeout has passed; re-arm for the next one."""
        self._deadline_timer = None
        loop = asyncio.get_running_loop()
        # The loop may run a timer a clock tick early: what was due when it fired is due.
        now = max(loop.time(), armed_for)
        next_deadline = expire_due(self._deadlines, self._pending, now)
        if next_deadline is not None:
            self._deadline_timer = loop.call_at(next_deadline, self._expire_due, next_deadline)

    def _resolve(self, message_id: int, message: dict[str, Any]) -> None:
        """Called by the connection's reader with the response to one of our calls."""
        call = self._pending.get(message_id)
        if call is None:
            return  # timed out or cancelled: the late answer is dropped
        future = call.future
        if future.done():
            return
        error = message.get("error")
        if error is not None:
            if not isinstance(error, dict):
                error = {"message": str(error)}
            future.set_exception(
                ProtocolError(
                    int(error.get("code", 0)),
                    str(error.get("message", "unknown error")),
                    call.method,
                    error.get("data"),
                )
            )
        else:
            result = message.get("result")
            future.set_result(result if isinstance(result, dict) else {})

    # -- events -----------------------------------------------------------------------------

    @overload
    def listen(self, *events: EventSpec, raw: Literal[True]) -> EventStream[RawEvent]: ...

    @overload
    def listen(self, event: type[E], /) -> EventStream[E]: ...

    @overload
    def listen(self, *events: EventSpec, raw: bool = False) -> EventStream[AnyEvent]: ...

    def listen(self, *events: EventSpec, raw: bool = False) -> EventStream[Any]:
        """Subscribe to events of this session; use as ``async with session.listen(...) as s``.

        Args:
            events: Event types (``cdp.network.ResponseReceived``) or wire names
                (``"Network.responseReceived"``, ``"Network.*"`` for a whole domain, ``"*"``
                for everything). With no argument, every event.
            raw: Deliver every event as a :class:`~cdpkit.RawEvent` with its JSON params,
                parsing nothing (for code that only reads a field or two).

        Returns:
            An :class:`EventStream`, subscribed at once (before the ``async with``), so
            events caused by anything you do next are not missed. It buffers without limit
            and delivers in arrival order; events the pinned protocol does not know arrive
            as :class:`~cdpkit.RawEvent`. Iteration ends when the block exits and raises
            :class:`~cdpkit.ConnectionClosedError` (or a subclass) if the session closes.

        Note that a domain only emits events once enabled, e.g. ``cdp.network.enable()``.
        """
        keys = [event_key(spec) for spec in events] or ["*"]
        if not raw:
            for spec in events:
                if not isinstance(spec, str):
                    build_validator(spec)
        stream: EventStream[Any] = EventStream(self, keys, raw=raw)
        if self._closed_error is not None:
            stream._finish(self._closed_error)
            return stream
        for key in keys:
            self._streams_for(key).setdefault(key, []).append(stream)
        return stream

    def _streams_for(self, key: str) -> dict[str, list[EventStream[Any]]]:
        return self._wild_streams if key.endswith("*") else self._streams

    @overload
    async def wait_for(
        self,
        event: type[E],
        predicate: Callable[[E], bool] | None = None,
        timeout: float | None = None,
    ) -> E: ...

    @overload
    async def wait_for(
        self,
        event: str,
        predicate: Callable[[AnyEvent], bool] | None = None,
        timeout: float | None = None,
    ) -> AnyEvent: ...

    async def wait_for(
        self,
        event: EventSpec,
        predicate: Callable[[Any], bool] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Wait for the next event of a type (matching ``predicate``, if given) and return it.

        Subscribes when called: to catch an event caused by a command, use :meth:`expect`.

        Raises:
            WaitTimeoutError: Nothing matched within ``timeout`` (default
                :attr:`command_timeout`); also a built-in ``TimeoutError``.
            ConnectionClosedError: The session closed while waiting.
        """
        async with self.listen(event) as stream:
            return await stream._next_matching(predicate, self._wait_timeout(timeout))

    @overload
    def expect(
        self,
        event: type[E],
        predicate: Callable[[E], bool] | None = None,
        timeout: float | None = None,
    ) -> Expectation[E]: ...

    @overload
    def expect(
        self,
        event: str,
        predicate: Callable[[AnyEvent], bool] | None = None,
        timeout: float | None = None,
    ) -> Expectation[AnyEvent]: ...

    def expect(
        self,
        event: EventSpec,
        predicate: Callable[[Any], bool] | None = None,
        timeout: float | None = None,
    ) -> Expectation[Any]:
        """Subscribe now, act in the block, and wait for the event when the block exits::

            async with page.expect(cdp.page.LoadEventFired) as waiter:
                await page.send(cdp.page.reload())
            print(waiter.value.timestamp)

        The block's exit raises :class:`WaitTimeoutError` if nothing matched within
        ``timeout`` (counted from the exit). If the block raises, nothing is awaited.
        """
        return Expectation(self, event, predicate, self._wait_timeout(timeout))

    def _wait_timeout(self, timeout: float | None) -> float:
        return self.command_timeout if timeout is None else timeout

    def _on(self, method: str, handler: Callable[[dict[str, Any]], None]) -> None:
        """Internal: call ``handler(params)`` synchronously from the reader for ``method``."""
        self._handlers.setdefault(method, []).append(handler)

    def on_event(self, method: str, handler: Callable[[dict[str, Any]], None]) -> None:
        """Call ``handler(params)`` (the event's JSON params) from the connection's reader for
        every ``method`` event of this session, in arrival order, for as long as the session
        lives: for state that must follow events as they come, with no task of its own.

        The handler must be quick and must not await; an exception it raises is logged and
        does not stop other handlers. Streams (:meth:`listen`) are for everything else.
        """
        self._on(method, handler)

    def _on_undecoded(self, method: str, handler: Callable[[EventParams], None]) -> None:
        """Internal: like :meth:`_on`, but ``handler`` gets the params as they came (the
        JSON text, unless another handler decoded them): for handlers that keep events
        without reading them (``decode_params`` reads them later)."""
        self._undecoded_handlers.setdefault(method, []).append(handler)

    def _emit(self, method: str, params: EventParams) -> None:
        """Called by the connection's reader for every event of this session; ``params``
        stay undecoded until a handler or a stream's reader needs them."""
        handlers = self._handlers.get(method)
        if handlers:
            params = decode_params(params)
            for handler in handlers:
                try:
                    handler(params)
                except Exception:
                    log.exception("cdpkit internal handler for %s failed", method)
        undecoded = self._undecoded_handlers.get(method)
        if undecoded:
            for keep in undecoded:
                try:
                    keep(params)
                except Exception:
                    log.exception("cdpkit internal handler for %s failed", method)
        streams = self._streams.get(method)
        if streams:
            for stream in streams:
                stream._push(method, params)
        wild = self._wild_streams
        if wild:
            domain, _, _ = method.partition(".")
            for stream in (*wild.get(domain + ".*", ()), *wild.get("*", ())):
                stream._push(method, params)

    def _unsubscribe(self, stream: EventStream[Any], keys: Iterable[str]) -> None:
        for key in keys:
            by_key = self._streams_for(key)
            streams = by_key.get(key)
            if streams is not None and stream in streams:
                streams.remove(stream)
                if not streams:
                    del by_key[key]

    # -- closing ----------------------------------------------------------------------------

    @property
    def close_error(self) -> ConnectionClosedError | None:
        """Why the session closed (a :class:`~cdpkit.TargetClosedError`,
        :class:`~cdpkit.PageCrashedError`...), or ``None`` while it is open."""
        return self._closed_error

    def raise_if_closed(self) -> None:
        """Raise what any call on this session would raise now that it is closed; do
        nothing while it is open.

        Lets a function fail with the session's own reason (closed, crashed, connection
        lost) before it starts work it could not finish.

        Raises:
            ConnectionClosedError: The session is closed (the subclass says how).
        """
        error = self._closed_error
        if error is not None:
            raise fresh_error(error)

    def _fail(self, error: ConnectionClosedError) -> None:
        """Close the session: fail pending calls and streams now, later calls at once."""
        if self._closed_error is not None:
            return
        self._closed_error = error
        for call in list(self._pending.values()):
            if not call.future.done():
                call.future.set_exception(fresh_error(error))
                # Marked as seen: a caller still waiting gets the error all the same, and
                # one the loop never resumes (a program ending on Ctrl-C while a page was
                # being set up) has nobody to tell, so asyncio must not print it at exit.
                call.future.exception()
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None
        self._deadlines.clear()
        groups = [*self._streams.values(), *self._wild_streams.values()]
        streams = {id(s): s for group in groups for s in group}
        self._streams.clear()
        self._wild_streams.clear()
        for stream in streams.values():
            stream._finish(error)
        self._on_closed(error)

    def _on_closed(self, error: ConnectionClosedError) -> None:
        """Hook for subclasses: the session just closed."""
