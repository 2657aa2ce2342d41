"""A call whose caller is never resumed (a program ending on Ctrl-C while a page is being
set up: its setup calls are pending when the browser closes) fails without asyncio printing
"Future exception was never retrieved" at exit, as a user saw under `cdpkit eval`."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import cdpkit


async def test_a_call_nobody_awaits_any_more_fails_quietly_when_the_browser_closes() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        browser = await cdpkit.launch()
        page = await browser.new_page()
        # The call's coroutine runs up to its wait for the answer, and is never resumed.
        call = page.call("Runtime.evaluate", {"expression": "new Promise(() => {})", "awaitPromise": True})
        waited = call.send(None)
        assert isinstance(waited, asyncio.Future) and not waited.done()
        await browser.close()
        assert waited.done() and not waited.cancelled()  # failed (not read here: nobody reads it)
        del waited
        call.close()
        del call
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    assert [c["message"] for c in reported if "never retrieved" in c["message"]] == []
