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

Under pytest-xdist, the workers share the jobs through a folder the controller makes
(:func:`share_between_workers`): the first worker (``gw0``) queues the wanted jobs at
collection, and a job is done by the worker that begins it first, claiming its folder (an
atomic ``mkdir``): gw0 when its queue gets to it, or a worker whose test needs it before
then. A worker that needs a job another one took waits for its outcome, pickled into that
folder. A worker waits at its own end until the jobs it took are done (another worker may
wait for them), and the controller removes the folder last.
"""

from __future__ import annotations

import os
import pickle
import queue
import shutil
import subprocess
import tempfile
import threading
import time
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
        # Under xdist: whether this worker does the job (None: not decided yet), whether
        # its work began here, and the file its outcome is written to or read from.
        self._claimed: bool | None = None
        self._began = False
        self._outcome: Path | None = None
        _JOBS.append(self)

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            # The environment as the session started: tests change os.environ (monkeypatch)
            # while a job runs, and none of that may reach the job's commands.
            self._environ = dict(os.environ)
            if _shared is None:
                self._scratch = Path(tempfile.mkdtemp(prefix=f"cdpkit-test-{self.fixture}-"))
        if self.computes:
            _computing_queue().put(self)
        else:
            threading.Thread(target=self._main, name=f"head start: {self.fixture}", daemon=True).start()

    def result(self, timeout: float) -> T:
        """Wait up to ``timeout`` seconds for the work (starting it now if nobody did)."""
        self.start()
        if _shared is not None and not self._claim():
            self._wait_for_other_worker(timeout)
        else:
            if _shared is not None:
                # Needed now, and no worker began it: done here at once, not after the
                # jobs queued before it.
                self._main()
            if not self._done.wait(timeout):
                pytest.fail(f"{self.fixture}: the work started at collection still runs after {timeout} s")
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def _claim(self) -> bool:
        """Under xdist: whether this worker does the job, decided by the first worker to
        make its folder."""
        assert _shared is not None
        with self._lock:
            if self._claimed is None:
                folder = _shared / self.fixture
                self._outcome = folder / "outcome.pickle"
                try:
                    folder.mkdir()
                except FileExistsError:  # another worker took it first
                    self._claimed = False
                else:
                    self._claimed = True
                    self._scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=folder))
            return self._claimed

    def _wait_for_other_worker(self, timeout: float) -> None:
        assert self._outcome is not None
        deadline = time.monotonic() + timeout
        while not self._outcome.exists():
            if time.monotonic() > deadline:
                pytest.fail(f"{self.fixture}: the work another worker does still runs after {timeout} s")
            time.sleep(0.2)
        self._result, self._error = pickle.loads(self._outcome.read_bytes())

    def _write_outcome(self) -> None:
        """Under xdist: the outcome, for the workers that wait for it (written whole, then
        renamed, so that a reader never sees half of it)."""
        assert self._outcome is not None
        try:
            data = pickle.dumps((self._result, self._error))
        except Exception as exc:  # an error that does not pickle: its text then
            data = pickle.dumps((None, RuntimeError(f"{self.fixture}: {self._error!r} ({exc})")))
        partial = self._outcome.with_suffix(".partial")
        partial.write_bytes(data)
        partial.replace(self._outcome)

    def finish_for_others(self, timeout: float) -> None:
        """Under xdist, at this worker's end: wait until a job this worker took is done,
        since other workers may wait for it."""
        if self._claimed:
            self._done.wait(timeout)

    def abandon(self) -> None:
        """The session is over: kill the command running now, run no other."""
        with self._lock:
            self._stopping = True
            if self._running is not None and self._running.poll() is None:
                self._running.kill()

    def clean_up(self) -> None:
        """Wait for an abandoned job to end, then remove its scratch directory (under
        xdist, the controller removes the shared folder last)."""
        if self._started and self._claimed is not False:
            self._done.wait(30)
        if self._scratch is not None and _shared is None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def _main(self) -> None:
        with self._lock:
            if self._began:  # under xdist: begun by result() or by the queue already
                return
            self._began = True
        if _shared is not None and not self._claim():
            self._done.set()  # another worker does it; result() reads its outcome
            return
        assert self._scratch is not None
        try:
            if self._stopping:
                raise RuntimeError("the test session ended first")
            self._result = self._work(self._scratch, self._run)
        except BaseException as exc:  # handed to the test that waits for the result
            self._error = exc
        finally:
            if self._outcome is not None:
                self._write_outcome()
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
# Under xdist: the folder the workers share the jobs through, and whether this worker
# starts the wanted jobs at collection.
_shared: Path | None = None
_leader = True


def share_between_workers(folder: Path, *, leader: bool) -> None:
    """This process is an xdist worker: jobs are claimed and their outcomes shared in
    ``folder``; only the ``leader`` starts them at collection (another starts one only if
    it needs it before any worker claimed it)."""
    global _shared, _leader
    _shared, _leader = folder, leader


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
    if not _leader:
        return
    wanted = {name for item in items for name in getattr(item, "fixturenames", ())}
    for job in sorted(_JOBS, key=lambda job: job.order):
        if job.fixture in wanted:
            job.start()


def stop_all(*, others_may_wait: bool = False) -> None:
    """End every job (all are abandoned first: a queued one must not wait on a running one).

    ``others_may_wait``: this is an xdist worker whose session ended normally; the jobs it
    does are finished first, for the other workers that may wait for them."""
    if _shared is not None and others_may_wait:
        for job in sorted(_JOBS, key=lambda job: job.order):
            job.finish_for_others(1800)
    for job in _JOBS:
        job.abandon()
    for job in _JOBS:
        job.clean_up()
