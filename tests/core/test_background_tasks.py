"""Fire-and-forget work cdpkit starts never ends with an error nobody reads."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from cdpkit._core.tasks import run_in_background
from cdpkit.errors import ConnectionClosedError


async def test_a_failed_background_task_is_logged_not_left_unretrieved(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="cdpkit")
    loop = asyncio.get_running_loop()
    strays: list[dict[str, object]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: strays.append(context))

    async def browser_went_away() -> None:
        raise ConnectionClosedError("the browser closed the connection")

    async def broken() -> None:
        raise RuntimeError("a bug")

    keep: set[asyncio.Task[object]] = set()
    try:
        run_in_background(browser_went_away(), keep, what="Answering a paused request")
        run_in_background(broken(), keep, what="Answering a dialog")
        for _ in range(3):
            await asyncio.sleep(0)
        assert keep == set()  # not kept once done
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    assert strays == []
    closed = [r for r in caplog.records if "Answering a paused request ended" in r.message]
    assert closed and closed[0].levelno == logging.DEBUG
    bug = [r for r in caplog.records if "Answering a dialog failed" in r.message]
    assert bug and bug[0].levelno == logging.WARNING and "a bug" in bug[0].getMessage()
