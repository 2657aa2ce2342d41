"""The event loop of ``cdpkit repl``, in a thread of its own: the console reads input in
the main thread, so Ctrl-C always reaches it; :class:`Runner` runs each command on the
loop and turns Ctrl-C into cancelling it (a second Ctrl-C interrupts code that ignores the
cancellation).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import ctypes
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from .._front.cli_common import TERMINATING_SIGNALS

__all__ = ["Runner"]

T = TypeVar("T")


class _Interrupted(Exception):
    """The command was interrupted by Ctrl-C (KeyboardInterrupt raised inside it)."""


class _LoopThread(threading.Thread):
    """Runs the event loop; restarted if a forced interrupt escapes a callback."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name="cdpkit-repl-loop", daemon=True)
        self.loop = loop

    def run(self) -> None:
        # Signals go to the main thread, whose blocking reads they must interrupt (a signal
        # a thread blocks goes to another one). Chrome resets the mask it inherits.
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *TERMINATING_SIGNALS})
        asyncio.set_event_loop(self.loop)
        while True:
            try:
                self.loop.run_forever()
            except (KeyboardInterrupt, SystemExit):
                continue  # raised into a task by a second Ctrl-C: the task got it
            else:
                return

    def interrupt(self) -> None:
        """Raise KeyboardInterrupt in the loop thread: for code stuck without awaiting."""
        if self.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.ident), ctypes.py_object(KeyboardInterrupt)
            )


class Runner:
    """Runs coroutines on the loop thread and waits for them in the main thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        # Makes the context each command runs in (None: a copy of the loop thread's), so
        # that context variables set for the console (a recording) reach its commands.
        self.context: Callable[[], contextvars.Context] | None = None
        self.thread = _LoopThread(self.loop)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` as a task and return its result.

        Ctrl-C cancels the task. A second Ctrl-C, if the loop thread is stuck in code that
        never awaits (``while True: pass``), raises KeyboardInterrupt inside that code; if
        the loop is not stuck (the task is finishing its cancellation), it stops waiting.

        Raises:
            KeyboardInterrupt: The task was cancelled or interrupted by Ctrl-C.
            asyncio.CancelledError: The task was cancelled by something else.
            Exception: Whatever the task raised.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        tasks: list[asyncio.Task[T]] = []

        def done(task: asyncio.Task[T]) -> None:
            if task.cancelled():
                future.cancel()
                return
            error = task.exception()
            if isinstance(error, KeyboardInterrupt):
                future.set_exception(_Interrupted())
            elif error is not None:
                future.set_exception(error)
            else:
                future.set_result(task.result())

        def start() -> None:
            context = self.context() if self.context is not None else None
            task = self.loop.create_task(coroutine, context=context)
            tasks.append(task)
            task.add_done_callback(done)

        def cancel() -> None:
            if tasks:
                tasks[0].cancel()

        self.loop.call_soon_threadsafe(start)
        interrupts = 0
        while True:
            try:
                return future.result()
            except concurrent.futures.CancelledError:
                if interrupts:
                    raise KeyboardInterrupt from None
                raise asyncio.CancelledError() from None
            except _Interrupted:
                raise KeyboardInterrupt from None
            except KeyboardInterrupt:
                if future.done():
                    continue  # the result arrived as we were interrupted
                interrupts += 1
                if interrupts == 1:
                    self.loop.call_soon_threadsafe(cancel)
                elif self._responsive():
                    raise  # it is finishing its cancellation: stop waiting for it
                else:
                    self.thread.interrupt()

    def _responsive(self) -> bool:
        """Whether the loop runs callbacks (it is not stuck in code that never awaits)."""
        ran = threading.Event()
        self.loop.call_soon_threadsafe(ran.set)
        return ran.wait(0.25)

    def stop(self) -> None:
        """Cancel what still runs, stop the loop and wait for its thread."""

        async def cancel_all() -> None:
            current = asyncio.current_task()
            pending = [t for t in asyncio.all_tasks() if t is not current]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=2)
            await self.loop.shutdown_asyncgens()

        with contextlib.suppress(Exception, KeyboardInterrupt):
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()
