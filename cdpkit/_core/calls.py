"""A session's calls: the command's JSON text (put together from pieces), the pending call
its answer or its timeout ends, and the deadline heap that times them all out with one
timer (see :class:`cdpkit.session.Session`)."""

from __future__ import annotations

import asyncio
import heapq
import json
from typing import Any

from .._model import CDPModel
from ..errors import CommandTimeoutError

# Timers for call deadlines fire at most this often: a burst of calls shares one (at most
# this late) instead of one each.
EXPIRY_GRANULARITY = 0.01


def _encode_default(obj: object) -> Any:
    if isinstance(obj, CDPModel):
        return obj.to_wire()
    raise TypeError(f"Cannot send {type(obj).__name__} to the browser: not JSON serializable")


encode = json.JSONEncoder(
    default=_encode_default, ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode

# Method names as JSON strings: the protocol has a few hundred, and a command's text is
# put together from pieces rather than encoded as a whole message (half the cost).
_method_texts: dict[str, str] = {}
_METHOD_TEXTS_MAX = 4096  # names built at run time cannot grow it without bound


def method_text(method: str) -> str:
    text = _method_texts.get(method)
    if text is None:
        text = encode(method)
        if len(_method_texts) < _METHOD_TEXTS_MAX:
            _method_texts[method] = text
    return text


class PendingCall:
    """A call awaiting its answer: what its timeout needs to fail it."""

    __slots__ = ("cancelled_at", "future", "message_id", "method", "task", "timeout")

    def __init__(
        self, future: asyncio.Future[dict[str, Any]], message_id: int, method: str, timeout: float
    ) -> None:
        self.future = future
        self.message_id = message_id
        self.method = method
        self.timeout = timeout
        self.task: asyncio.Task[Any] | None = None  # set while blocked writing
        self.cancelled_at: int | None = None  # the task's cancel count when the timeout hit

    def expire(self) -> None:
        future = self.future
        if future.done():
            return
        future.set_exception(CommandTimeoutError(self.method, self.timeout))
        task = self.task
        if task is not None:  # still blocked writing: wake the caller
            self.cancelled_at = task.cancelling()
            task.cancel()


def push_deadline(
    deadlines: list[tuple[float, int]],
    pending: dict[int, PendingCall],
    deadline: float,
    message_id: int,
) -> None:
    """Add a call's deadline to the heap, dropping those of calls answered already."""
    while deadlines and deadlines[0][1] not in pending:
        heapq.heappop(deadlines)  # answered already
    if len(deadlines) > 2 * len(pending) + 64:
        # A long timeout at the head keeps answered entries behind it: drop them all
        # (amortized: the next rebuild is at least as many calls away).
        deadlines[:] = [entry for entry in deadlines if entry[1] in pending]
        heapq.heapify(deadlines)
    heapq.heappush(deadlines, (deadline, message_id))


def expire_due(
    deadlines: list[tuple[float, int]], pending: dict[int, PendingCall], now: float
) -> float | None:
    """Fail the calls whose deadline is ``now`` or earlier; when the timer is due next."""
    while deadlines:
        deadline, message_id = deadlines[0]
        call = pending.get(message_id)
        if call is not None and deadline > now:
            break
        heapq.heappop(deadlines)
        if call is not None:
            call.expire()
    if not deadlines:
        return None
    # A burst of calls has deadlines microseconds apart: firing at most every
    # EXPIRY_GRANULARITY s lets one timer expire them together (at most that late).
    return max(deadlines[0][0], now + EXPIRY_GRANULARITY)
