"""A running Chrome: its output drained and kept for messages, its DevTools endpoint read
(``DevToolsActivePort``, or the "DevTools listening" line), and its stop (a grace period,
then its whole process group killed, a temporary profile removed).

Chrome never outlives its owner: each process starts a tiny watchdog (``/bin/sh``, in its
own session) that blocks reading a pipe whose write end only the owner holds; stopping
dismisses it with one line, the owner's death (end-of-file) makes it kill Chrome's group
and remove the temporary profile. An ``atexit`` hook kills what is still running.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import subprocess
from collections import deque
from pathlib import Path

import anyio

from ...errors import LaunchError
from ._profiles import remove_singleton_folder
from ._spawning import CAN_POSIX_SPAWN, SpawnedProcess, above_std_fds

# The watchdog's whole program. $1: Chrome's process group, $2: a temporary profile or "".
# A line on stdin means "cdpkit stopped Chrome itself"; end-of-file means the owner died.
_WATCHDOG_SCRIPT = (
    "trap '' HUP INT; "
    "read -r _ && exit 0; "
    'kill -KILL -"$1" 2>/dev/null; '
    '[ -n "$2" ] || exit 0; '
    # The folder of Chrome's singleton socket, outside the profile: its two files, then
    # the folder if nothing else is in it (see _profiles.remove_singleton_folder).
    's=$(readlink -- "$2/SingletonSocket") && [ "${s##*/}" = SingletonSocket ] && '
    'rm -f -- "$s" "${s%/*}/SingletonCookie" && rmdir -- "${s%/*}"; '
    # Chrome's helpers may still be flushing files a moment after the kill.
    'rm -rf -- "$2"; sleep 0.2; rm -rf -- "$2"'
)
# Whether this system can run the watchdog (launcher._watchdog_enabled turns it off).
WATCHDOG_AVAILABLE = os.name == "posix" and os.path.exists("/bin/sh")

_live_groups: set[int] = set()


@atexit.register
def _kill_leftovers() -> None:
    # Last resort for a browser whose `async with launch()` never exited (e.g. os._exit
    # is not covered, but an abandoned event loop or sys.exit from a thread is).
    for pgid in list(_live_groups):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


class ChromeProcess:
    """A running Chrome started by :func:`cdpkit.launcher.start_chrome`; ``watchdog=False``
    starts no owner-death watchdog."""

    def __init__(
        self,
        process: asyncio.subprocess.Process | SpawnedProcess,
        user_data_dir: Path,
        *,
        temporary_profile: bool,
        pipe_fds: tuple[int, int] | None,
        watchdog: bool = WATCHDOG_AVAILABLE,
    ) -> None:
        self.process = process
        self.pid: int = process.pid
        self.user_data_dir = user_data_dir
        self.temporary_profile = temporary_profile
        # Our ends of the debugging pipes (read_fd, write_fd); the transport owns them.
        self.pipe_fds = pipe_fds
        self.output: deque[str] = deque(maxlen=40)
        self._listening = asyncio.Event()
        self.listening_url: str | None = None  # from Chrome's "DevTools listening on ws://..."
        self._drain = asyncio.create_task(self._drain_output(), name="cdpkit-chrome-output")
        self._exit = asyncio.create_task(self._watch_exit(), name="cdpkit-chrome-exit")
        self._stopping = False
        _live_groups.add(self.pid)
        # The watchdog: its pid (started with posix_spawn), or its Popen elsewhere.
        self._watchdog: int | subprocess.Popen[bytes] | None = None
        self._watchdog_fd: int | None = None  # our write end of the watchdog's pipe
        if watchdog:
            # Off the critical path: runs while launch() waits for Chrome to come up.
            asyncio.get_running_loop().call_soon(self._start_watchdog)

    def _start_watchdog(self) -> None:
        if self._stopping or self.exited:
            return
        read_end, write_end = os.pipe()  # both close-on-exec: Chrome never inherits them
        profile = str(self.user_data_dir) if self.temporary_profile else ""
        command = ["/bin/sh", "-c", _WATCHDOG_SCRIPT, "cdpkit-watchdog", str(self.pid), profile]
        try:
            if CAN_POSIX_SPAWN:
                # A vfork, not subprocess's fork and bookkeeping: this runs in the event
                # loop while Chrome starts (2-5 ms of it under load with subprocess).
                read_end = above_std_fds(read_end)
                self._watchdog = os.posix_spawn(
                    "/bin/sh",
                    command,
                    # All it runs is kill, rm and sleep: PATH is enough (copying the whole
                    # environment out of os.environ cost more than the spawn).
                    {"PATH": os.environ.get("PATH", os.defpath)},
                    file_actions=[
                        (os.POSIX_SPAWN_DUP2, read_end, 0),
                        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                    ],
                    setsid=True,  # a terminal's Ctrl-C or hang-up must not reach it
                )
            else:
                self._watchdog = subprocess.Popen(
                    command,
                    stdin=read_end,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a terminal's Ctrl-C or hang-up must not reach it
                )
        except OSError:
            os.close(write_end)  # no watchdog: the atexit hook and the sweep still apply
        else:
            self._watchdog_fd = write_end
        finally:
            os.close(read_end)

    async def _dismiss_watchdog(self) -> None:
        """Tell the watchdog Chrome is handled (so it exits without acting) and reap it."""
        fd, self._watchdog_fd = self._watchdog_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, b"stopped\n")
            os.close(fd)
        watchdog, self._watchdog = self._watchdog, None
        if isinstance(watchdog, int):
            await _reap(watchdog, within=5)
        elif watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                await anyio.to_thread.run_sync(lambda: watchdog.wait(5))

    async def _drain_output(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue  # a line longer than the buffer: skip it, keep draining
            if not line:
                return
            text = line.decode(errors="replace").rstrip()
            if text:
                self.output.append(text)
                if text.startswith("DevTools listening on"):
                    self.listening_url = text.rpartition(" ")[2]
                    self._listening.set()

    async def _watch_exit(self) -> int:
        return await self.process.wait()

    @property
    def exited(self) -> bool:
        return self._exit.done()

    def describe_exit(self) -> str:
        code = self.process.returncode
        if code is None:
            return "Chrome is running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"Chrome exited (killed by {name})"
        return f"Chrome exited with code {code}"

    def last_output(self) -> str:
        if not self.output:
            return "(Chrome printed nothing)"
        return "Chrome's last output:\n  " + "\n  ".join(self.output)

    async def wait_for_exit(self) -> None:
        await asyncio.shield(self._exit)

    async def wait_for_endpoint(self, timeout: float) -> str:
        """The browser WebSocket URL from ``DevToolsActivePort``.

        Raises:
            LaunchError: Chrome exited first, or wrote no endpoint within ``timeout``.
        """
        port_file = self.user_data_dir / "DevToolsActivePort"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with contextlib.suppress(OSError):
                lines = port_file.read_text().splitlines()
                if len(lines) >= 2 and lines[0].strip().isdigit():
                    return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            if self.listening_url:  # a fixed --remote-debugging-port writes no port file
                return self.listening_url
            if self.exited:
                await asyncio.sleep(0.05)  # let the drain task read Chrome's last words
                raise LaunchError(
                    f"{self.describe_exit()} before it was ready. {self.last_output()}"
                )
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise LaunchError(
                    f"Chrome did not open its DevTools endpoint within {timeout:g} s "
                    f"(launch(timeout=...) sets this). {self.last_output()}"
                )
            # Chrome prints "DevTools listening" as it writes the file: wake up on either.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listening.wait(), min(0.01, remaining))

    async def stop(self, grace: float = 5.0) -> None:
        """Wait up to ``grace`` seconds for Chrome to exit by itself, then kill its process
        group and remove a temporary profile. Safe to call twice; not cancellable."""
        if self._stopping and self.pid not in _live_groups:
            return
        self._stopping = True
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wait_for_exit(), grace)
            await self._kill_group()
            self._drain.cancel()
            await asyncio.gather(self._drain, return_exceptions=True)
            if self.temporary_profile:
                remove_singleton_folder(self.user_data_dir)
                await _remove_tree(self.user_data_dir)
            # Last: if a second Ctrl-C (KeyboardInterrupt) interrupts the lines above, the
            # watchdog still removes the profile when this process exits.
            await self._dismiss_watchdog()

    async def _kill_group(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait_for_exit(), 5)
        # Wait until the group's members are gone (zombies left to init count as gone).
        for _ in range(100):
            if not group_alive(self.pid):
                break
            await asyncio.sleep(0.01)
        _live_groups.discard(self.pid)


async def _reap(pid: int, *, within: float) -> None:
    """Collect child ``pid``'s exit status once it exits, waiting at most ``within``
    seconds (the dismissed watchdog exits at once)."""
    for _ in range(int(within / 0.01)):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)  # noqa: ASYNC222 - WNOHANG: never blocks
        except ChildProcessError:
            return
        if done:
            return
        await asyncio.sleep(0.01)


def group_alive(pgid: int) -> bool:
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except OSError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


async def _remove_tree(path: Path) -> None:
    # Chrome's helpers may still be flushing files a moment after the kill.
    for attempt in range(5):
        await anyio.to_thread.run_sync(lambda: shutil.rmtree(path, ignore_errors=True))
        if not path.exists():
            return
        await asyncio.sleep(0.05 * (attempt + 1))
