"""What the ``cdpkit`` command and its REPL share: URL normalization, settling a page,
and how commands run (signals, exit statuses); the browser options and error reporting
come from :mod:`cdpkit._browser_options` (shared with the MCP server) and are re-exported. ``cli`` and ``repl`` both import it, so
neither imports the other at startup. Typer is imported only by :func:`run`: ``cdpkit tui``'s
fast path uses :func:`run_plain` and loads none of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

# The browser options and error reporting live in _browser_options (shared with the MCP
# server, which must not import typer); re-exported for the cli package and the REPL.
from ._browser_options import HOST_PORT_RE
from ._browser_options import BrowserOptions as BrowserOptions
from ._browser_options import CLIError as CLIError
from ._browser_options import browser_options as browser_options
from ._browser_options import connect_endpoint as connect_endpoint
from ._browser_options import debug_wanted as debug_wanted
from ._browser_options import error_line as error_line
from ._browser_options import first_page as first_page
from ._browser_options import has_display as has_display
from ._browser_options import open_browser as open_browser
from ._browser_options import open_page as open_page
from ._browser_options import parse_viewport as parse_viewport
from ._browser_options import report_error as report_error
from ._browser_options import start_browser as start_browser

if TYPE_CHECKING:
    from .page import Page
    from .tools import SmartWait

T = TypeVar("T")


# The signals that end a command (SIGHUP: the terminal closed); SIGHUP is POSIX only.
TERMINATING_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived: the command was cancelled and cleaned up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_HOST_RE = re.compile(r"^[A-Za-z0-9._~:-]+$")  # what urlsplit leaves of a sane host
# A bare name ending like these is a file, not a host: none of them is a top-level domain.
_FILE_SUFFIXES = (
    ".html", ".htm", ".xhtml", ".svg", ".xml", ".json", ".txt", ".pdf",
    ".png", ".jpg", ".jpeg", ".gif", ".webp",
)  # fmt: skip
_PAGE_SCHEMES = ("http", "https", "file", "about", "data", "chrome", "view-source")
# Why a scheme cannot be loaded, in words (others get a generic reason).
_UNSUPPORTED_SCHEMES = {
    "javascript": "a javascript: URL runs code in the current page instead of loading one; "
    "use `cdpkit eval URL EXPR`",
    "ftp": "Chrome no longer loads ftp: URLs",
    "ws": "a WebSocket URL is not a page",
    "wss": "a WebSocket URL is not a page",
    "mailto": "a mailto: URL opens a mail program, not a page",
}


def _looks_like_a_path(text: str) -> bool:
    """Whether a command-line argument names a local file rather than a host."""
    if text.startswith(("/", "./", "../", "~", ".\\", "..\\")) or text in (".", ".."):
        return True
    if _SCHEME_RE.match(text) and not HOST_PORT_RE.match(text):
        return False
    first, slash, _ = text.partition("/")
    if slash and Path(first).is_dir():
        return True  # docs/missing.html, with a local docs/
    # A file name (page.html), or a path under a name no host has (pages/page.html).
    hostless = "." not in first and ":" not in first and first != "localhost"
    return text.lower().endswith(_FILE_SUFFIXES) and (not slash or hostless)


def normalize_url(value: str) -> str:
    """The URL to load for a command-line argument.

    An existing local file becomes a ``file://`` URL; a bare host (``example.com/path``)
    gets ``https://`` (``http://`` for ``localhost`` and ``127.0.0.1``).

    Raises:
        CLIError: Not a URL, a local path or ``file://`` URL that does not exist, or a
            scheme a page cannot be loaded from (exit status 2).
    """
    text = value.strip()
    if not text:
        raise CLIError("Invalid URL: empty", 2)
    path = Path(text).expanduser()
    if path.is_file():
        return path.resolve().as_uri()
    if _looks_like_a_path(text):
        if path.is_dir():
            raise CLIError(f"{value} is a directory, not a file to open", 2)
        raise CLIError(f"No such file: {value}", 2)
    if not _SCHEME_RE.match(text) or HOST_PORT_RE.match(text):
        host = re.split(r"[/:?#]", text, maxsplit=1)[0]
        local = host in ("localhost", "127.0.0.1") or text.startswith("[")
        text = ("http://" if local else "https://") + text
    parts = urllib.parse.urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        try:
            port_ok = parts.port is None or 0 < parts.port < 65536
        except ValueError:
            port_ok = False
        host_ok = bool(parts.hostname) and _HOST_RE.match(parts.hostname or "") is not None
        if not (port_ok and host_ok):
            raise CLIError(f"Invalid URL: {value!r}", 2)
    elif scheme == "file":
        local_path = Path(urllib.parse.unquote(parts.path))
        if parts.netloc in ("", "localhost") and not local_path.exists():
            raise CLIError(f"No such file: {local_path}", 2)
    elif scheme not in _PAGE_SCHEMES:
        reason = _UNSUPPORTED_SCHEMES.get(scheme, "cdpkit loads http(s), file, data and about URLs")
        raise CLIError(f"Invalid URL {value!r}: unsupported scheme {parts.scheme}: ({reason})", 2)
    return text


# -- running a command ----------------------------------------------------------------------


async def _guarded(work: Awaitable[T]) -> T:
    """Run ``work`` so that SIGTERM and SIGHUP cancel it (and so close the browser)
    instead of killing the process on the spot."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    for signum in TERMINATING_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
            loop.add_signal_handler(signum, stop, signum)
    try:
        return await work
    except asyncio.CancelledError:
        if received:
            raise _Terminated(received[0]) from None
        raise


class ExitStatus(Exception):
    """A command ended with this exit status; what went wrong is already printed."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def run_plain(work: Callable[[], Coroutine[Any, Any, T]], *, debug: bool = False) -> T:
    """:func:`run` for a command line without typer (``cdpkit tui``'s fast path): the
    same messages and exit statuses, raised as :class:`ExitStatus`.

    Raises:
        ExitStatus: On any failure, after printing it.
    """
    try:
        return asyncio.run(_guarded(work()))
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        raise ExitStatus(130) from None
    except _Terminated as exc:
        print(f"error: terminated by {exc}", file=sys.stderr)
        raise ExitStatus(128 + exc.signum) from None
    except CLIError as exc:
        report_error(exc, debug=debug)
        raise ExitStatus(exc.exit_code) from None
    except BrokenPipeError:
        raise
    except Exception as exc:
        report_error(exc, debug=debug)
        raise ExitStatus(1) from None


def run(work: Callable[[], Coroutine[Any, Any, T]], *, debug: bool = False) -> T:
    """Run a command's coroutine and turn failures into the command line's exit statuses.

    Raises:
        typer.Exit: On any failure, after printing it.
    """
    import typer  # here, not at the top: the fast paths load this module without typer

    try:
        return run_plain(work, debug=debug)
    except ExitStatus as exc:
        raise typer.Exit(exc.code) from None


def human_size(size: float) -> str:
    """``301 bytes``, ``12.3 kB``, ``25.2 MB`` (decimal units, as the progress bar)."""
    if size < 1000:
        return f"{size:.0f} bytes"
    for unit in ("kB", "MB", "GB"):
        size /= 1000
        if size < 1000 or unit == "GB":
            break
    return f"{size:.1f} {unit}"


def note_status(status: int | None) -> None:
    if status is not None and status >= 400:
        print(f"note: the page answered HTTP {status}", file=sys.stderr)


def content_wait(timeout: float) -> SmartWait:
    """The smart wait of the commands, bounded by their ``--timeout``."""
    from .tools import SmartWait

    default = SmartWait()
    return SmartWait(
        network_idle_timeout=min(default.network_idle_timeout, timeout),
        max_wait=min(default.max_wait, timeout),
    )


async def settle(page: Page, wait_ms: int | None, timeout: float) -> None:
    """Wait after a page loaded as ``--wait`` says: ``None`` until its content settles
    (:func:`cdpkit.tools.wait_for_content`), else ``wait_ms`` milliseconds."""
    from .tools import wait, wait_for_content

    if wait_ms is None:
        await wait_for_content(page, settings=content_wait(timeout))
    elif wait_ms > 0:
        await wait(page, wait_ms)


async def load_page(page: Page, url: str, timeout: float, wait_ms: int | None = 0) -> None:
    from .tools import navigate

    result = await navigate(page, url, timeout=timeout)
    note_status(result.status)
    await settle(page, wait_ms, timeout)
