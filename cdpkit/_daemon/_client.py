"""The commands' side of the daemon: whether a command may use it, asking it for a
browser (and, when it does not answer in time, saying so and going on without it), and
the requests of ``cdpkit daemon status|stop``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from .._core.transport import CLOSE_GRACE, MAX_MESSAGE_SIZE, PIPE_MAX_COMMAND_SIZE, TransportClosed
from ._choice import current_use, disabled_by_environment
from ._paths import DaemonPathError, DaemonPaths, check_listener, daemon_paths

if TYPE_CHECKING:
    from .._front.browser_options import BrowserOptions
    from ..browser import Browser

# The longest a command waits for a daemon to acknowledge it: a live daemon answers at
# once (it only reads a line); one that does not is wedged, and the command goes on alone.
ACKNOWLEDGE_WITHIN = 2.0


def own_browser_reasons(options: BrowserOptions) -> list[str]:
    """The options that ask for a browser of the command's own (the daemon's is headless,
    on a temporary profile, cdpkit's flags and viewport, Chrome's own languages, no proxy)."""
    settings = options.settings
    given = [
        ("--connect", options.connect is not None),
        ("--grid", options.grid is not None),
        ("--headful", options.headful),
        ("--profile", options.profile is not None),
        ("--chrome-arg", bool(options.chrome_args)),
        ("--viewport", options.viewport is not None),
        ("--proxy", settings is not None and settings.proxy is not None),
        ("--locale", settings is not None and settings.locale is not None),
        ("--stealth", settings is not None and settings.stealth is not False),
        ("--storage-state", settings is not None and settings.storage_state is not None),
    ]
    reasons = [name for name, value in given if value]
    if settings is not None and settings.launch_args() and not reasons:
        reasons.append("the browser settings")
    return reasons


def _other_chrome(options: BrowserOptions, paths: DaemonPaths) -> str | None:
    """Why the daemon's Chrome is not the one this command would launch, ``None`` when it
    is. The one rule: a command uses the daemon when the daemon's browser is the Chrome
    it would launch itself (``--chrome``, else ``$CDPKIT_CHROME``, else the usual names
    and places, as :func:`cdpkit.launcher.find_chrome` finds it), in any spelling (a link
    to it is it)."""
    from ..errors import LaunchError
    from ..launcher import find_chrome

    running = paths.daemon_chrome()
    try:
        wanted = os.path.realpath(find_chrome(options.chrome))
    except LaunchError:
        return None  # none to launch here: the daemon's is the only one
    if running is None or os.path.realpath(running) == wanted:
        return None  # (a daemon that did not say which Chrome it runs: one of before)
    from_env = os.environ.get("CDPKIT_CHROME")
    if options.chrome is not None and options.chrome != from_env:
        named = "--chrome"
    else:
        named = "$CDPKIT_CHROME" if from_env else "the Chrome found here"
    return f"{named} is {wanted}, and the daemon runs {running}"


def _note(text: str) -> None:
    print(f"note: {text}", file=sys.stderr, flush=True)


async def daemon_browser(options: BrowserOptions) -> Browser | None:
    """The running daemon's browser for this command (in a browser context of its own, or
    its named session's), or ``None``: no daemon runs, the command may not use it, its
    options need a browser of its own, or the daemon did not answer in time (said in one
    line on stderr). Never waits longer than ``options.timeout`` in all."""
    use = current_use()
    if use is None or not use.enabled or disabled_by_environment():
        return None
    reasons = own_browser_reasons(options)
    if reasons:
        if use.session is not None:
            _note(f"--session {use.session} is the daemon's; {', '.join(reasons)} need a "
                  "browser of the command's own, so the session is not used")
        return None
    try:
        paths = daemon_paths()
    except FileNotFoundError:
        paths = None
    except DaemonPathError as exc:
        _note(f"{exc}; running on a browser of its own")
        return None
    if paths is None or not paths.socket.exists():
        if use.session is not None:
            _note(f"no cdpkit daemon runs, so --session {use.session} keeps nothing after this "
                  "command (`cdpkit daemon start` starts one)")
        return None
    other = _other_chrome(options, paths)
    if other is not None:
        _note(f"{other}; running on a browser of its own")
        return None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + options.timeout
    try:
        # A tab opened ahead is the command's first page, unless its settings must be on
        # its pages from their start (they are set up only on pages opened after attaching).
        spare = options.settings is None
        transport = await _ask(paths, use.session, options.timeout, deadline, spare=spare)
    except _NoDaemon:
        return None  # a socket left by a daemon that died: as if none ran
    except _Unanswered as exc:
        _note(f"the cdpkit daemon {exc}; running on a browser of its own (--no-daemon skips it)")
        return None
    except DaemonPathError as exc:
        _note(f"{exc}; running on a browser of its own")
        return None
    from .._browser.starting import attach

    try:
        async with asyncio.timeout(max(0.1, deadline - loop.time())):
            return await attach(transport, command_timeout=options.timeout, settings=options.settings)
    except (TimeoutError, OSError) as exc:
        await transport.close()
        _note(f"the cdpkit daemon's browser did not answer ({exc or 'timed out'}); running on a "
              "browser of its own")
        return None


class _NoDaemon(Exception):
    """Nothing listens on the socket."""


class _Unanswered(Exception):
    """The daemon did not answer as it should, in time; the message says how."""


async def _ask(
    paths: DaemonPaths, session: str | None, timeout: float, deadline: float, *, spare: bool
) -> SocketTransport:
    """A relayed connection to a browser of the daemon's.

    Raises:
        _NoDaemon: Nothing listens.
        _Unanswered: No acknowledgement within :data:`ACKNOWLEDGE_WITHIN` (or a quarter
            of ``timeout``), no browser before ``deadline``, or a refusal.
        DaemonPathError: Another user's process listens on the socket (nothing sent).
    """
    loop = asyncio.get_running_loop()
    acknowledge = min(ACKNOWLEDGE_WITHIN, timeout / 4)
    try:
        async with asyncio.timeout(acknowledge):
            reader, writer = await asyncio.open_unix_connection(str(paths.socket), limit=MAX_MESSAGE_SIZE)
    except (ConnectionRefusedError, FileNotFoundError):
        raise _NoDaemon from None
    except (TimeoutError, OSError) as exc:
        raise _Unanswered(f"could not be reached ({exc or 'timed out'})") from None
    try:
        check_listener(writer.get_extra_info("socket"), paths.socket)
        request = {
            "op": "browser", "session": session, "spare": spare,
            "timeout": max(0.1, deadline - loop.time()),
        }  # fmt: skip
        writer.write(json.dumps(request).encode() + b"\n")
        try:
            async with asyncio.timeout(acknowledge):
                answer = json.loads(await reader.readline() or b"{}")
        except TimeoutError:
            raise _Unanswered(f"did not answer within {acknowledge:g} s") from None
        if answer.get("state") != "accepted":
            raise _Unanswered(f"refused: {answer.get('error', answer)}")
        try:
            async with asyncio.timeout(max(0.1, deadline - loop.time())):
                answer = json.loads(await reader.readline() or b"{}")
        except TimeoutError:
            raise _Unanswered(f"gave no browser within {timeout:g} s") from None
        if answer.get("state") != "ready":
            raise _Unanswered(f"gave no browser: {answer.get('error', 'it closed the connection')}")
    except BaseException as exc:
        writer.close()
        if isinstance(exc, ValueError | OSError):
            raise _Unanswered(f"answered in a way cdpkit does not understand ({exc})") from None
        raise
    return SocketTransport(reader, writer)


class SocketTransport:
    """CDP relayed by the daemon over its unix socket: NUL-terminated JSON texts, as on
    Chrome's own pipe."""

    max_command_size = PIPE_MAX_COMMAND_SIZE

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def send(self, text: str) -> None:
        if self._writer.is_closing():
            raise TransportClosed("the cdpkit daemon closed the connection")
        self._writer.write(text.encode() + b"\0")
        try:
            await self._writer.drain()
        except ConnectionError as exc:
            raise TransportClosed(f"the cdpkit daemon closed the connection ({exc})") from None

    async def recv(self) -> bytes:
        try:
            data = await self._reader.readuntil(b"\0")
        except asyncio.IncompleteReadError:
            raise TransportClosed(
                "the cdpkit daemon closed the connection (its browser was replaced or it stopped)"
            ) from None
        except (ConnectionError, asyncio.LimitOverrunError) as exc:
            raise TransportClosed(f"the cdpkit daemon's connection failed ({exc})") from None
        return data[:-1]

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Close the socket, waiting at most ``grace`` seconds for the daemon's end."""
        self._writer.close()
        with contextlib.suppress(OSError, ConnectionError, TimeoutError):
            async with asyncio.timeout(grace):
                await self._writer.wait_closed()


async def request(op: str, *, timeout: float) -> dict[str, Any] | None:
    """The daemon's answer to ``status`` or ``stop``; ``None`` when none runs or it did not
    answer within ``timeout``.

    Raises:
        DaemonPathError: The daemon's folder is not private, or another user's process
            listens on its socket (nothing sent).
    """
    try:
        paths = daemon_paths()
    except FileNotFoundError:
        return None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_unix_connection(str(paths.socket))
            try:
                check_listener(writer.get_extra_info("socket"), paths.socket)
                writer.write(json.dumps({"op": op}).encode() + b"\n")
                line = await reader.readline()
            finally:
                writer.close()
        answer = json.loads(line)
    except (OSError, TimeoutError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None
