"""A TUI whose terminal went away still ends, even when the event loop cannot run its
signal handler: Textual's output thread dies on the dead terminal (EIO) and the app then
blocks for good on its full output queue."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

# The command's real wrapper (run_plain: the loop's SIGHUP/SIGTERM handlers) around the
# TUI's guard, with the main thread then stuck where Textual's would be: putting to a full
# queue that nothing reads any more.
_STUCK = """
import queue, sys
from cdpkit._front.cli_common import ExitStatus, run_plain
from cdpkit._tui import hard_exit_on_termination

async def work():
    with hard_exit_on_termination(0.5):
        print("stuck", flush=True)
        full = queue.Queue(1)
        full.put("frame")
        full.put("the next frame")  # blocks: the loop never runs again

try:
    run_plain(work)
except ExitStatus as status:
    sys.exit(status.code)
"""


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_tui_stuck_on_a_dead_terminal_still_exits(signum: signal.Signals) -> None:
    process = subprocess.Popen([sys.executable, "-c", _STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"stuck\n"
        time.sleep(0.2)  # into the blocking put
        process.send_signal(signum)
        assert process.wait(timeout=15) == 128 + signum
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
