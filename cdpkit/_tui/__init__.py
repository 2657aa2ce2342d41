"""``cdpkit tui``: read and drive the web from a terminal, on the browse engine.

The pieces: ``_keymap`` (actions, default keys, ``[tui.keys]`` of the config file),
``_render`` (a browse result as terminal lines), ``_driver`` (history, the engine calls,
the live tier-3 page for forms, snapshots and clicks), ``_app`` (the Textual app) and
``_command`` (the command line: its checks, and the fast path ``cdpkit tui`` takes without
typer). Only ``_app`` imports Textual, and only :func:`run_tui` imports ``_app``:
``import cdpkit`` and ``cdpkit --help`` never load Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from ._driver import DEFAULT_SESSION, Driver
from ._keymap import Keymap, load_keymap

if TYPE_CHECKING:
    from .._browse import Engine

__all__ = ["DEFAULT_SESSION", "TEXTUAL_MISSING", "Driver", "Keymap", "load_keymap", "run_tui"]

TEXTUAL_MISSING = "cdpkit tui needs Textual, which is not installed: pip install 'cdpkit-browser[tui]'"


def textual_installed() -> bool:
    """Whether Textual can be imported (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec("textual") is not None
    except (ImportError, ValueError):  # a broken or blocked install
        return False


async def run_tui(
    engine: Engine, url: str | None, *, keymap: Keymap, session: str | None = None, tier: int | None = None,
    timeout: float = 30.0,
) -> None:  # fmt: skip
    """Run the TUI on the terminal until the person quits, then close the engine (and the
    browser it started) whatever ended it: ``q``, Ctrl-C, or the task being cancelled
    (SIGHUP or SIGTERM, see :func:`cdpkit._cli_common.run`).

    Args:
        engine: The engine it browses with; closed when this returns.
        url: A page to open first.
        keymap: The keys.
        session: A named session whose cookies persist (``None``: a throwaway one).
        tier: Use exactly this tier (``None``: escalate as needed).
        timeout: Seconds for a page.
    """
    driver = Driver(
        engine, session=session or DEFAULT_SESSION, tier=tier, persist=session is not None, timeout=timeout
    )
    # The first page starts loading before Textual is imported (most of the start), so its
    # request is on its way meanwhile and the page shows as soon as the app can.
    first_load = asyncio.ensure_future(driver.open(url)) if url is not None else None
    try:
        await asyncio.sleep(0)  # the load starts: its connection opens
        from ._app import TuiApp

        await TuiApp(driver, keymap, url, first_load).run_async()
    finally:
        try:
            if first_load is not None:
                first_load.cancel()  # the app quit before it was done, or never started
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await first_load
            await driver.close()
        finally:
            await engine.close()
