"""Head starts: a few tests' slow setup, started in the background as soon as collection
ends.

Some setups spend most of their time waiting (pip installing the built wheel into a fresh
venv waits on the package index for every dependency) or computing on their own (mypy
checking a sample against the bindings) while the suite itself mostly waits on the
browser. Started when collection ends, that work overlaps the rest of the suite instead of
adding to it; the fixture that needs the result waits for it then. The work done and the
checks made are those the fixture made before: only the moment it starts changes.

A job starts only if a selected test requests its fixture (``-k`` runs start nothing
else). Jobs that compute run one at a time, in ``order``, in one worker thread, so the
suite keeps a core; jobs that mostly wait get a thread each. Each command's output goes to
a file, not a pipe (the suite's own tests count its descriptors), and a command still
running when the session ends is killed by its PID.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest

T = TypeVar("T")


class Ran:
    """One command's exit status and output (stdout and stderr interleaved)."""

    def __init__(self, args: Sequence[str], returncode: int, output: str) -> None:
        self.args = list(args)
        self.returncode = returncode
        self.output = output

    def __repr__(self) -> str:
        return f"Ran({self.args!r}, returncode={self.returncode})\n{self.output[-4000:]}"


Run = Callable[..., Ran]
"""``run(args, timeout, cwd=None, env=None)``: runs a command to completion in the
environment the job started with (plus ``env``) and returns a :class:`Ran`."""


class HeadStart(Generic[T]):
    """``work(scratch, run)`` done once in the background, for the tests that request
    ``fixture``; ``scratch`` is a directory removed when the session ends."""

    def __init__(
        self, fixture: str, work: Callable[[Path, Run], T], *, computes: bool, order: int = 0
    ) -> None:
        self.fixture = fixture
        self.computes = computes
        self.order = order
        self._work = work
        self._started = False
        self._done = threading.Event()
        self._result: T | None = None
        self._error: BaseException | None = None
        self._scratch: Path | None = None
        self._running: subprocess.Popen[bytes] | None = None
        self._stopping = False
        self._lock = threading.Lock()
        self._environ: dict[str, str] = {}
        _JOBS.append(self)

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            # The environment as the session started: tests change os.environ (monkeypatch)
            # while a job runs, and none of that may reach the job's commands.
            self._environ = dict(os.environ)
            self._scratch = Path(tempfile.mkdtemp(prefix=f"cdpkit-test-{self.fixture}-"))
        if self.computes:
            _computing_queue().put(self)
        else:
            threading.Thread(target=self._main, name=f"head start: {self.fixture}", daemon=True).start()

    def result(self, timeout: float) -> T:
        """Wait up to ``timeout`` seconds for the work (starting it now if nobody did)."""
        self.start()
        if not self._done.wait(timeout):
            pytest.fail(f"{self.fixture}: the work started at collection still runs after {timeout} s")
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def abandon(self) -> None:
        """The session is over: kill the command running now, run no other."""
        with self._lock:
            self._stopping = True
            if self._running is not None and self._running.poll() is None:
                self._running.kill()

    def clean_up(self) -> None:
        """Wait for an abandoned job to end, then remove its scratch directory."""
        if self._started:
            self._done.wait(30)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def _main(self) -> None:
        assert self._scratch is not None
        try:
            if self._stopping:
                raise RuntimeError("the test session ended first")
            self._result = self._work(self._scratch, self._run)
        except BaseException as exc:  # handed to the test that waits for the result
            self._error = exc
        finally:
            self._done.set()

    def _run(
        self,
        args: Sequence[str],
        timeout: float,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Ran:
        assert self._scratch is not None
        descriptor, name = tempfile.mkstemp(dir=self._scratch, suffix=".log")
        os.close(descriptor)
        log_path = Path(name)
        with self._lock:
            if self._stopping:
                raise RuntimeError("the test session ended first")
            # The child gets the log; the suite's process closes it at once, so that no
            # descriptor of a job stays open while tests count theirs.
            with log_path.open("wb") as log:
                self._running = subprocess.Popen(
                    list(args), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                    env={**self._environ, **(env or {})},
                )
        try:
            returncode = self._running.wait(timeout)
        except subprocess.TimeoutExpired:
            self._running.kill()
            self._running.wait()
            raise AssertionError(f"{list(args)!r} did not finish within {timeout} s") from None
        return Ran(args, returncode, log_path.read_text(errors="replace"))


_JOBS: list[HeadStart[Any]] = []
_queue: queue.Queue[HeadStart[Any]] | None = None


def _computing_queue() -> queue.Queue[HeadStart[Any]]:
    """The queue of jobs that compute, served one at a time by one daemon thread."""
    global _queue
    if _queue is None:
        _queue = queue.Queue()
        served = _queue

        def serve() -> None:
            while True:
                served.get()._main()

        threading.Thread(target=serve, name="head start: computing", daemon=True).start()
    return _queue


def start_wanted(items: Iterable[pytest.Item]) -> None:
    """Start every job whose fixture one of the selected tests requests."""
    wanted = {name for item in items for name in getattr(item, "fixturenames", ())}
    for job in sorted(_JOBS, key=lambda job: job.order):
        if job.fixture in wanted:
            job.start()


def stop_all() -> None:
    """End every job (all are abandoned first: a queued one must not wait on a running one)."""
    for job in _JOBS:
        job.abandon()
    for job in _JOBS:
        job.clean_up()
