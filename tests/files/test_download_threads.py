"""Downloads write their files from a worker thread; cancelling a download never leaves
that thread writing to a file the download already closed or removed."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from cdpkit.tools._fetching import run_in_thread


async def test_a_cancelled_caller_waits_for_the_thread_to_finish() -> None:
    finished = threading.Event()

    def slow_write() -> None:
        time.sleep(0.3)
        finished.set()

    task = asyncio.ensure_future(run_in_thread(slow_write))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished.is_set()  # the cancellation went on only once the write was done


async def test_a_repeated_cancel_still_waits_and_the_error_is_not_lost() -> None:
    def failing_write() -> None:
        time.sleep(0.2)
        raise OSError("disk full")

    task = asyncio.ensure_future(run_in_thread(failing_write))
    await asyncio.sleep(0.05)
    task.cancel()
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await run_in_thread(lambda: 42) == 42
    with pytest.raises(OSError, match="disk full"):
        await run_in_thread(failing_write)
