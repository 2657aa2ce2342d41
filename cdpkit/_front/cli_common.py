"""What the ``cdpkit`` command and its REPL share: URL normalization, settling a page,
and how commands run (signals, exit statuses); the browser options and error reporting
are :mod:`cdpkit._front.browser_options`'s (shared with the MCP server), imported from there.
``cli`` and ``repl`` both import it, so neither imports the other at startup. Typer is
imported only by :func:`run`: ``cdpkit tui``'s fast path uses :func:`run_plain` and loads
none of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.urls import InvalidUrlError, browser_page, url_to_open
from .browser_options import CLIError, opens_a_browser_page, report_error

if TYPE_CHECKING:
    from .._browser.navigation import ParserWaitTimeoutError
    from ..page import Page
    from ..tools import SmartWait

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


def normalize_url(value: str) -> str:
    """The URL to load for a command-line argument: :func:`cdpkit._core.urls.url_to_open`,
    whose rules every surface shares (a local file, a bare host, or a URL read as the
    browser reads it).

    One of the browser's own pages (``chrome://version``) is opened in a browser of the
    command's own, not the daemon's.

    Raises:
        CLIError: Not a URL, a local path or ``file://`` URL that does not exist, or a
            scheme a page cannot be loaded from (exit status 2).
    """
    try:
        url = url_to_open(value)
    except InvalidUrlError as exc:
        raise CLIError(str(exc), 2) from None
    if browser_page(url):
        opens_a_browser_page()  # not on the daemon's browser: see opens_a_browser_page
    return url


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


def content_wait(timeout: float, script_timeout: float | None = None) -> SmartWait:
    """The smart wait of the commands, bounded by their ``--timeout``, giving up
    parser-blocking scripts after ``--script-timeout`` (0: not)."""
    from ..tools import SmartWait

    default = SmartWait()
    return SmartWait(
        network_idle_timeout=min(default.network_idle_timeout, timeout),
        max_wait=min(default.max_wait, timeout),
        script_timeout=script_timeout or None,
    )


async def settle(page: Page, wait_ms: int | None, timeout: float) -> None:
    """Wait after a page loaded as ``--wait`` says: ``None`` until its content settles
    (:func:`cdpkit.tools.wait_for_content`), else ``wait_ms`` milliseconds."""
    from ..tools import wait, wait_for_content

    if wait_ms is None:
        await wait_for_content(page, settings=content_wait(timeout))
    elif wait_ms > 0:
        await wait(page, wait_ms)


async def load_page(
    page: Page, url: str, timeout: float, wait_ms: int | None = 0, *, script_timeout: float | None = None
) -> None:
    """Load ``url`` for a command (``--script-timeout`` 0 or absent: wait for scripts).

    Raises:
        CLIError: The load event did not come within ``timeout`` while the parser waited
            on scripts (:func:`naming_stalled_scripts`).
    """
    from ..tools import navigate

    with naming_stalled_scripts():
        result = await navigate(page, url, timeout=timeout, script_timeout=script_timeout or None)
    for script in result.given_up:
        print(f"note: gave up the script {script} (--script-timeout)", file=sys.stderr)
    note_status(result.status)
    await settle(page, wait_ms, timeout)


@contextlib.contextmanager
def naming_stalled_scripts() -> Iterator[None]:
    """Say a page load that timed out while its parser waited on scripts in the command
    line's words: the scripts, and ``--script-timeout`` (a :class:`CLIError`, status 1 as
    any timeout)."""
    from .._browser.navigation import ParserWaitTimeoutError, parser_wait_words

    try:
        yield
    except ParserWaitTimeoutError as exc:
        raise CLIError(_parser_wait_timeout_line(exc, parser_wait_words(exc.parser_waits))) from None


def _parser_wait_timeout_line(exc: ParserWaitTimeoutError, waits: str) -> str:
    if exc.script_timeout is None:
        remedy = "--script-timeout SECONDS gives such scripts up"
    else:
        remedy = f"each is given up after {exc.script_timeout:g} s (--script-timeout)"
    return (
        f"Timed out after {exc.timeout:g} s waiting for {exc.stage} (--timeout SECONDS sets how "
        f"long); {waits}; {remedy}"
    )
