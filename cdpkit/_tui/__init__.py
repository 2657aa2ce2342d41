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
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

from .._core.lazy import lazy_exports
from ._driver import DEFAULT_SESSION, Driver
from ._keymap import Keymap, load_keymap

if TYPE_CHECKING:
    from .._browse import BrowseResult, Engine
    from ._command import main, prepare

__all__ = [
    "DEFAULT_SESSION",
    "TEXTUAL_MISSING",
    "Driver",
    "Keymap",
    "load_keymap",
    "main",
    "prepare",
    "run_tui",
]

# The command line's side (the fast path `cdpkit tui` takes, the checks the typer command
# shares), loaded when a command asks for it.
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(("main", "prepare"), "_command"))


# Seconds a TUI told to end by SIGHUP/SIGTERM has to close its browser before it exits hard.
HARD_EXIT_GRACE = 10.0

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
    (SIGHUP or SIGTERM, see :func:`cdpkit._front.cli_common.run`).

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
    with hard_exit_on_termination(HARD_EXIT_GRACE):
        await _run_app(driver, engine, keymap, url, first_load)


@contextlib.contextmanager
def hard_exit_on_termination(grace: float) -> Iterator[None]:
    """While inside, SIGHUP or SIGTERM also arm a hard exit (status 128 + the signal) in
    ``grace`` seconds, and SIGHUP points the standard streams at ``/dev/null``.

    The command's own handler (run in the event loop) cancels the TUI and closes the
    browser; this is the guard for when the loop cannot run it. Once the terminal is gone,
    Textual's output thread dies on its first write (EIO) and the app then blocks for good
    on its full output queue: nothing would close Chrome or end the process. Python runs
    this handler in the main thread even while it waits on that queue, and the hard exit
    ends the process; Chrome's owner watchdog (see :mod:`cdpkit.launcher`) then stops it.
    Outside the main thread (e.g. a test's pilot) nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = [getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name)]
    previous = {signum: signal.getsignal(signum) for signum in signals}

    def arm(signum: int, frame: FrameType | None) -> None:
        if signum == getattr(signal, "SIGHUP", None):
            with contextlib.suppress(OSError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                os.close(devnull)
        timer = threading.Timer(grace, os._exit, (128 + signum,))
        timer.daemon = True
        timer.start()
        handler = previous.get(signal.Signals(signum))
        if callable(handler):
            handler(signum, frame)  # asyncio's no-op: the loop hears of it through its fd

    for signum in signals:
        signal.signal(signum, arm)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


async def _run_app(
    driver: Driver, engine: Engine, keymap: Keymap, url: str | None,
    first_load: asyncio.Future[BrowseResult] | None,
) -> None:  # fmt: skip
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
