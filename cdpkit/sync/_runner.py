"""The loop in a thread behind :mod:`cdpkit.sync`.

One event loop, in one daemon thread started on first use, runs every call of every sync
object of the process: a blocking call hands its coroutine to that loop and waits on a
lock, so it works where the caller's thread already runs a loop (a notebook cell, a sync
helper called from async code), and from several threads at once. No thread and no loop
are made per call.

What a caller's thread does runs in one :class:`contextvars.Context` kept for that thread,
so what a call sets in it (a recording started with ``Recording.start()``) is seen by the
next calls of the same thread, and by no other thread.

Results and exceptions come back unchanged (the same objects). Ctrl-C while a call waits
raises ``KeyboardInterrupt`` in the caller at once and cancels the call's task; an
``async with`` block left by ``KeyboardInterrupt`` or ``SystemExit`` sees a cancellation,
as under ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, TypeVar

__all__ = [
    "Twin",
    "call",
    "entered",
    "entered_sync",
    "exit_args",
    "register",
    "run",
    "unwrap",
    "wrap",
]

T = TypeVar("T")

# How often a waiting caller wakes to let Python run its signal handlers (Windows; on POSIX
# a signal interrupts the wait at once).
_POLL = 0.2

_start_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: int | None = None
_local = threading.local()


def _running_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_thread
    loop = _loop
    if loop is not None:
        return loop
    with _start_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            started = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                started.set()
                loop.run_forever()

            thread = threading.Thread(target=serve, name="cdpkit-sync", daemon=True)
            thread.start()
            started.wait()
            _loop_thread = thread.ident
            _loop = loop
        return _loop


def _context() -> contextvars.Context:
    """The context every call of the calling thread runs in."""
    if threading.get_ident() == _loop_thread:
        raise RuntimeError(
            "cdpkit.sync was called from cdpkit's own event loop (an event handler or a "
            "dialog policy?): it would wait for itself. Use the async API there."
        )
    context: contextvars.Context | None = getattr(_local, "context", None)
    if context is None:
        context = _local.context = contextvars.copy_context()
    return context


class _Waiter:
    """A call handed to the loop, and the caller waiting on it."""

    __slots__ = ("cancelled", "error", "lock", "result", "task")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lock.acquire()
        self.result: Any = None
        self.error: BaseException | None = None
        self.task: asyncio.Future[Any] | None = None
        self.cancelled = False

    def start(self, awaitable: Awaitable[Any], context: contextvars.Context) -> None:
        if self.cancelled:
            self.error = asyncio.CancelledError()
            self.lock.release()
            return
        loop = asyncio.get_running_loop()
        coroutine = awaitable if asyncio.iscoroutine(awaitable) else _awaited(awaitable)
        self.task = task = loop.create_task(coroutine, context=context)
        task.add_done_callback(self.finish)

    def invoke(self, function: Callable[[], Any]) -> None:
        try:
            self.result = function()
        except BaseException as exc:  # handed to the caller, as raised
            self.error = exc
        self.lock.release()

    def finish(self, task: asyncio.Future[Any]) -> None:
        if task.cancelled():
            self.error = asyncio.CancelledError()
        else:
            self.error = task.exception()
            if self.error is None:
                self.result = task.result()
        self.lock.release()

    def cancel(self) -> None:
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()

    def wait(self, loop: asyncio.AbstractEventLoop) -> Any:
        acquire = self.lock.acquire
        try:
            while not acquire(timeout=_POLL):
                pass
        except BaseException:  # Ctrl-C: the caller goes on at once, the task is cancelled
            loop.call_soon_threadsafe(self.cancel)
            raise
        error = self.error
        if error is not None:
            self.error = None  # no reference cycle through the traceback
            raise error
        return self.result


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def run(awaitable: Awaitable[T]) -> T:
    """Run ``awaitable`` on the sync loop; block until it is done and return its result."""
    loop = _loop or _running_loop()
    context = _context()
    waiter = _Waiter()
    loop.call_soon_threadsafe(waiter.start, awaitable, context, context=context)
    result: T = waiter.wait(loop)
    return result


def call(function: Callable[[], T]) -> T:
    """Call ``function`` on the sync loop's thread (where the objects it touches live)."""
    loop = _loop or _running_loop()
    context = _context()
    waiter = _Waiter()
    loop.call_soon_threadsafe(waiter.invoke, function, context=context)
    result: T = waiter.wait(loop)
    return result


def exit_args(*exc_info: Any) -> tuple[Any, Any, Any]:
    """What an ``__aexit__`` is given for a block left by an exception: a
    ``KeyboardInterrupt`` or ``SystemExit`` becomes a cancellation (thrown into a task on
    the loop, they would stop the loop itself)."""
    exc_type, exc, tb = (*exc_info, None, None, None)[:3]
    if exc is not None and not isinstance(exc, Exception):
        return asyncio.CancelledError, asyncio.CancelledError(), tb
    return exc_type, exc, tb


@contextlib.contextmanager
def entered(manager: AbstractAsyncContextManager[T]) -> Iterator[T]:
    """An async context manager, entered and left on the sync loop."""
    value = run(manager.__aenter__())
    try:
        yield value
    except BaseException as exc:
        if not run(manager.__aexit__(*exit_args(type(exc), exc, exc.__traceback__))):
            raise
    else:
        run(manager.__aexit__(None, None, None))


@contextlib.contextmanager
def entered_sync(manager: AbstractContextManager[T]) -> Iterator[T]:
    """A plain context manager, entered and left on the sync loop's thread (in the
    caller's context: what it sets there is seen by the block's calls)."""
    value = call(manager.__enter__)
    try:
        yield value
    except BaseException as exc:
        if not call(functools.partial(manager.__exit__, type(exc), exc, exc.__traceback__)):
            raise
    else:
        call(lambda: manager.__exit__(None, None, None))


# -- twins: the sync object standing for each async one ------------------------------------


class Twin:
    """A sync object standing for an object of the async API (``_impl``)."""

    __slots__ = ("__weakref__", "_impl")
    _impl: Any

    def __init__(self, impl: Any) -> None:
        object.__setattr__(self, "_impl", impl)

    def __repr__(self) -> str:
        return f"<sync {self._impl!r}>"


_TWIN_TYPES: dict[str, type[Twin]] = {}  # "module.Class" of the async class -> its twin
_twin_for_type: dict[type, type[Twin] | None] = {}
_twins: weakref.WeakValueDictionary[int, Twin] = weakref.WeakValueDictionary()
_twins_lock = threading.Lock()


def register(async_class: str, twin: type[Twin]) -> None:
    """Make ``twin`` stand for the async class named ``async_class`` ("module.Class")."""
    _TWIN_TYPES[async_class] = twin


def _twin_type(kind: type) -> type[Twin] | None:
    try:
        return _twin_for_type[kind]
    except KeyError:
        found = None
        for base in kind.__mro__:
            found = _TWIN_TYPES.get(f"{base.__module__}.{base.__qualname__}")
            if found is not None:
                break
        _twin_for_type[kind] = found
        return found


def wrap(value: Any) -> Any:
    """``value`` with each object of a twinned async class as its twin (the same twin each
    time), in lists and tuples too; anything else as it is."""
    if isinstance(value, list):
        return [wrap(item) for item in value]
    if isinstance(value, tuple):
        return tuple(wrap(item) for item in value)
    twin_type = _twin_type(type(value))
    if twin_type is None:
        return value
    with _twins_lock:
        twin = _twins.get(id(value))
        if twin is None or twin._impl is not value:
            twin = twin_type(value)
            _twins[id(value)] = twin
        return twin


def unwrap(value: Any) -> Any:
    """The async object a twin stands for (in lists and tuples too); anything else as it is."""
    if isinstance(value, Twin):
        return value._impl
    if isinstance(value, list):
        return [unwrap(item) for item in value]
    if isinstance(value, tuple):
        return tuple(unwrap(item) for item in value)
    return value
