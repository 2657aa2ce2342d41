"""Starting Chrome's process: in a process group of its own, its output on a pipe, and with
``pipe=True`` its debugging pipes on fds 3 and 4 (with ``posix_spawn`` where there are
pidfds, else ``subprocess``); a ``TMPDIR`` short enough for its singleton socket."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

# Chrome makes its singleton socket at $TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket
# and aborts ("Socket path too long") when that passes the 107 bytes a socket path may have.
_SOCKET_SUFFIX_BYTES = len("/.org.chromium.Chromium.XXXXXX/SingletonSocket")
_SOCKET_PATH_MAX = 107
_SHORT_TMPDIR = "/tmp"


def shorten_socket_tmpdir(child_env: dict[str, str]) -> None:
    """Give Chrome a short ``TMPDIR`` when the caller's is too long for its socket.

    Only Chrome's own temporary files move (the socket and what Chrome writes there); the
    temporary profile stays where the caller's temporary folder is.
    """
    tmpdir = child_env.get("TMPDIR")
    if not tmpdir or os.name != "posix":
        return
    if len(os.fsencode(tmpdir)) + _SOCKET_SUFFIX_BYTES <= _SOCKET_PATH_MAX:
        return
    if os.path.isdir(_SHORT_TMPDIR) and os.access(_SHORT_TMPDIR, os.W_OK | os.X_OK):
        child_env["TMPDIR"] = _SHORT_TMPDIR


# Linux (and other systems with pidfds): Chrome on a pipe is started with posix_spawn.
CAN_POSIX_SPAWN = hasattr(os, "posix_spawn") and hasattr(os, "pidfd_open")


def above_std_fds(fd: int) -> int:
    """``fd`` moved to 10 or above (close-on-exec), so that placing the child's fds 0-4
    can never overwrite one of them before it is copied."""
    import fcntl  # POSIX only, as the posix_spawn path is

    if fd >= 10:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class SpawnedProcess:
    """A Chrome started by :func:`os.posix_spawn`: what :class:`ChromeProcess` reads of
    an ``asyncio.subprocess.Process`` (``pid``, ``stdout``, ``returncode``, ``wait()``),
    its exit watched through a pidfd in the event loop."""

    def __init__(self, pid: int, stdout: asyncio.StreamReader) -> None:
        self.pid = pid
        self.stdout = stdout
        self.returncode: int | None = None
        loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = loop.create_future()
        self._pidfd = os.pidfd_open(pid)
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: its status is lost
            pid, status = self.pid, 0
        if pid == 0:
            return
        asyncio.get_running_loop().remove_reader(self._pidfd)
        os.close(self._pidfd)
        self.returncode = os.waitstatus_to_exitcode(status)
        if not self._exited.done():
            self._exited.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)


async def _posix_spawn(
    command: list[str], env: dict[str, str], child_fds: tuple[int, int] | None
) -> SpawnedProcess:
    """Start Chrome in a new session, its output on a pipe of ours, stdin from
    /dev/null, and its debugging pipes (``child_fds``) on fds 3 and 4 when given.

    Not ``subprocess``: placing fds 3 and 4 takes a ``preexec_fn`` there, which makes it
    fork this whole process (5-50 ms under load, on the launch's critical path) where
    posix_spawn does a vfork (0.2 ms); and a launch cancelled while asyncio starts a
    process kills that process alone, leaving the helpers Chrome has started by then.
    """
    out_read, out_write = os.pipe()
    out_write = above_std_fds(out_write)
    try:
        pid = os.posix_spawn(  # noqa: ASYNC221 - returns once Chrome execs (a vfork)
            command[0],
            command,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_write, 1),
                (os.POSIX_SPAWN_DUP2, out_write, 2),
                *(
                    [(os.POSIX_SPAWN_DUP2, child_fds[0], 3), (os.POSIX_SPAWN_DUP2, child_fds[1], 4)]
                    if child_fds is not None
                    else []
                ),
            ],
            setsid=True,  # own process group: killed as one on stop
        )
    except BaseException:
        os.close(out_read)
        raise
    finally:
        os.close(out_write)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(loop=loop)
    output = os.fdopen(out_read, "rb", 0)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), output)
    except BaseException:  # cancelled while Chrome starts: it must not outlive the launch
        _kill_and_reap(pid)
        output.close()
        raise
    return SpawnedProcess(pid, reader)


def _kill_and_reap(pid: int) -> None:
    """End a Chrome just spawned (its whole group) and collect its exit status."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)  # at once: SIGKILL cannot be caught


async def spawn(
    command: list[str], env: dict[str, str], *, pipe: bool
) -> tuple[asyncio.subprocess.Process | SpawnedProcess, tuple[int, int] | None]:
    """Start ``command`` in a new process group, its output (stdout and stderr) on a pipe.

    Returns:
        The process, and with ``pipe`` our ends of its debugging pipes (read, write).

    Raises:
        OSError: It could not start; every descriptor opened for it is closed.
    """
    our_fds: tuple[int, int] | None = None
    child_fds: tuple[int, int] | None = None
    if pipe:
        chrome_in, our_out = os.pipe()  # Chrome reads commands on its fd 3
        our_in, chrome_out = os.pipe()  # and writes answers on its fd 4
        our_fds = (our_in, our_out)
        child_fds = (chrome_in, chrome_out)
    if CAN_POSIX_SPAWN:
        if child_fds is not None:
            child_fds = (above_std_fds(child_fds[0]), above_std_fds(child_fds[1]))
        try:
            spawned = await _posix_spawn(command, env, child_fds)
        except OSError:
            for fd in our_fds or ():
                os.close(fd)
            raise
        finally:
            for fd in child_fds or ():
                os.close(fd)
        return spawned, our_fds

    def place_pipe_fds() -> None:
        # Runs in the child between fork and exec. Copy both ends first, since either may
        # already sit on fd 3 or 4; dup2 makes 3 and 4 inheritable, everything else Python
        # opened is close-on-exec, which is why close_fds can stay off.
        assert child_fds is not None
        copy_in, copy_out = os.dup(child_fds[0]), os.dup(child_fds[1])
        os.dup2(copy_in, 3)
        os.dup2(copy_out, 4)

    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            start_new_session=True,  # own process group: killed as one on stop
            preexec_fn=place_pipe_fds if pipe else None,
            close_fds=not pipe,
        )
    except OSError:
        if our_fds is not None and child_fds is not None:
            for fd in (*our_fds, *child_fds):
                os.close(fd)
        raise
    finally:
        if child_fds is not None:
            for fd in child_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
    return process, our_fds
