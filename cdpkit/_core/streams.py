"""Event streams and expectations: what :meth:`Session.listen` and :meth:`Session.expect`
return. A stream buffers without limit and delivers in arrival order; events are decoded and
parsed into their models when read, not when they arrive.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic import ValidationError

from .._model import Event, RawEvent, event_type
from ..errors import ConnectionClosedError, WaitTimeoutError
from .secrets import get_logger
from .wire import EventParams, decode_params, release_freed_memory, validate_json

if TYPE_CHECKING:
    from ..session import Session

__all__ = ["EventStream", "Expectation"]

log = get_logger("cdpkit")

T = TypeVar("T")  # what a stream yields: an event model, or Event | RawEvent
AnyEvent = Event | RawEvent
EventSpec = type[Event] | str


def fresh_error(error: ConnectionClosedError) -> ConnectionClosedError:
    """A new instance of a close error, so each raise gets its own traceback."""
    return type(error)(error.reason)


# A stream that held this many unread events gives their memory back once read empty.
_BURST = 1_000


class EventStream(Generic[T]):
    """Events of a session, in arrival order, buffered without limit.

    Returned by :meth:`Session.listen`. Iterate with ``async for``; leave the
    ``async with`` block (or call :meth:`aclose`) to unsubscribe.
    """

    def __init__(self, session: Session, keys: list[str], *, raw: bool = False) -> None:
        self._session = session
        self._keys = keys
        self._raw = raw
        # Params stay the browser's text until read (see cdpkit._core.wire).
        self._queue: deque[tuple[str, EventParams]] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._done = False
        self._error: ConnectionClosedError | None = None
        self._burst = False

    def _push(self, method: str, params: EventParams) -> None:
        queue = self._queue
        queue.append((method, params))
        if len(queue) >= _BURST:
            self._burst = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _finish(self, error: ConnectionClosedError | None) -> None:
        self._done = True
        self._error = error
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def __len__(self) -> int:
        """Events received and not yet consumed."""
        return len(self._queue)

    async def __aenter__(self) -> EventStream[T]:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Unsubscribe. Events already buffered can still be read."""
        if not self._done:
            self._session._unsubscribe(self, self._keys)
            self._finish(None)

    def __aiter__(self) -> EventStream[T]:
        return self

    async def __anext__(self) -> T:
        queue = self._queue
        while not queue:
            if self._done:
                if self._error is not None:
                    raise fresh_error(self._error)
                raise StopAsyncIteration
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        method, undecoded = queue.popleft()
        if not queue and self._burst:
            self._burst = False
            release_freed_memory()
        if self._raw:
            return RawEvent(method, decode_params(undecoded))  # type: ignore[return-value]
        return _parse_event(method, undecoded)  # type: ignore[return-value]

    async def _next_matching(self, predicate: Callable[[Any], bool] | None, timeout: float) -> T:
        try:
            async with asyncio.timeout(None if timeout == math.inf else timeout):
                async for event in self:
                    if predicate is None or predicate(event):
                        return event
        except TimeoutError:
            raise WaitTimeoutError(" or ".join(self._keys), timeout) from None
        raise ConnectionClosedError("event stream closed while waiting")


def _parse_event(method: str, undecoded: EventParams) -> AnyEvent:
    model = event_type(method)
    if model is None:
        return RawEvent(method, decode_params(undecoded))
    # The validator itself: model_validate only forwards to it (0.4 µs an event).
    validator = model.__pydantic_validator__
    if not isinstance(undecoded, dict):
        # Straight from the browser's text: pydantic parses and validates in one pass,
        # building no dicts first (a fifth less work per console message). What it
        # refuses (a lone surrogate, a shape newer than the pin) takes the path below.
        try:
            return validate_json(validator.validate_json, undecoded)  # type: ignore[no-any-return]
        except ValidationError:
            pass
    params = decode_params(undecoded)
    try:
        return validator.validate_python(params)  # type: ignore[no-any-return]
    except ValidationError as exc:
        # A newer Chrome changed this event's shape: deliver it rather than lose it.
        log.warning("Delivering %s raw: it does not match the pinned protocol (%s)", method, exc)
        return RawEvent(method, params)


class Expectation(Generic[T]):
    """The event awaited by :meth:`Session.expect`; read :attr:`value` after the block."""

    def __init__(
        self,
        session: Session,
        event: EventSpec,
        predicate: Callable[[Any], bool] | None,
        timeout: float,
    ) -> None:
        self._session = session
        self._event = event
        self._predicate = predicate
        self._timeout = timeout
        self._stream: EventStream[T] | None = None
        self._value: T | None = None
        self._has_value = False

    @property
    def value(self) -> T:
        """The matching event. Raises ``RuntimeError`` before the block has exited."""
        if not self._has_value:
            raise RuntimeError("The expected event is only available after the block exits")
        return cast(T, self._value)

    async def __aenter__(self) -> Expectation[T]:
        self._stream = cast("EventStream[T]", self._session.listen(self._event))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stream = self._stream
        assert stream is not None
        try:
            if exc_type is None:
                self._value = await stream._next_matching(self._predicate, self._timeout)
                self._has_value = True
        finally:
            await stream.aclose()
