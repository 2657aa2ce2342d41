"""Fire-and-forget tasks that are kept alive and whose failures are always retrieved.

A task nobody awaits must still have its exception read, or asyncio prints "Task
exception was never retrieved" with a traceback when the task is collected: for
example an answer to a paused request that fails because the browser closed meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from ..errors import ConnectionClosedError
from .secrets import get_logger

__all__ = ["run_in_background"]

log = get_logger("cdpkit")


def run_in_background(
    coroutine: Coroutine[Any, Any, Any], keep: set[asyncio.Task[Any]], *, what: str
) -> asyncio.Task[Any]:
    """Start ``coroutine`` as a task held in ``keep`` until it ends.

    Its failure is logged (closed connections at DEBUG: expected once a browser goes
    away; anything else as a WARNING naming ``what``), never left unretrieved.
    """
    task = asyncio.ensure_future(coroutine)
    keep.add(task)

    def finished(done: asyncio.Task[Any]) -> None:
        keep.discard(done)
        if done.cancelled():
            return
        error = done.exception()
        if error is None:
            return
        if isinstance(error, ConnectionClosedError):
            log.debug("%s ended: %s", what, error)
        else:
            log.warning("%s failed: %r", what, error)

    task.add_done_callback(finished)
    return task
