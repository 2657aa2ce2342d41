"""What the ``cdpkit`` command and its REPL share: the browser options and how they start
or attach to a browser, URL normalization, settling a page, and how errors are reported
and commands run. ``cli`` and ``repl`` both import it, so neither imports the other at
startup.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import traceback
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from .errors import CDPError, CommandTimeoutError, LaunchError

if TYPE_CHECKING:
    from .browser import Browser
    from .page import Page
    from .tools import SmartWait

T = TypeVar("T")


class CLIError(Exception):
    """A failure reported as one line on stderr, with an exit status.

    Attributes:
        exit_code: The process exit status (1 for failures, 2 for bad input).
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# The signals that end a command (SIGHUP: the terminal closed); SIGHUP is POSIX only.
TERMINATING_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived: the command was cancelled and cleaned up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum




@dataclass(frozen=True, slots=True)
class BrowserOptions:
    """How a command gets its browser: launched (headless unless ``headful``) or attached.

    Attributes:
        connect: Attach to this endpoint instead of launching.
        headful: Launch with a window.
        profile: Launch on this persistent profile.
        chrome_args: Extra Chrome flags for a launched browser.
        timeout: Seconds to start, load, and answer each command.
        pipe: Talk to a launched browser over ``--remote-debugging-pipe``.
        viewport: The page size of a launched browser, ``None`` for cdpkit's default.
    """

    connect: str | None = None
    headful: bool = False
    profile: str | None = None
    chrome_args: tuple[str, ...] = field(default_factory=tuple)
    timeout: float = 30.0
    pipe: bool = False
    viewport: tuple[int, int] | None = None

    def check(self) -> None:
        """Reject combinations that make no sense.

        Raises:
            CLIError: Launch-only options given with ``--connect``.
        """
        if self.connect is None:
            return
        given = [
            name
            for name, value in (
                ("--headful", self.headful),
                ("--profile", self.profile),
                ("--chrome-arg", self.chrome_args),
                ("--pipe", self.pipe),
                ("--viewport", self.viewport),
            )
            if value
        ]
        if given:
            raise CLIError(f"{', '.join(given)} only apply to a launched browser, not with --connect", 2)


def _options(
    connect: str | None,
    headful: bool,
    profile: str | None,
    chrome_arg: list[str] | None,
    timeout: float,
    pipe: bool = False,
    *,
    viewport: str | None = None,
) -> BrowserOptions:
    endpoint = connect_endpoint(connect) if connect is not None else None
    options = BrowserOptions(
        endpoint,
        headful,
        profile,
        tuple(chrome_arg or ()),
        timeout,
        pipe,
        parse_viewport(viewport) if viewport is not None else None,
    )
    options.check()
    return options


def parse_viewport(value: str) -> tuple[int, int]:
    """``--viewport WxH`` as ``(width, height)``.

    Raises:
        CLIError: Not two positive whole numbers joined by ``x`` (exit status 2).
    """
    match = re.fullmatch(r"\s*(\d{1,5})\s*[xX]\s*(\d{1,5})\s*", value)
    if match is None or 0 in (width := int(match[1]), height := int(match[2])):
        raise CLIError(f"Invalid --viewport {value!r}: expected WIDTHxHEIGHT, e.g. 1280x720", 2)
    return width, height


def connect_endpoint(value: str) -> str:
    """The endpoint ``--connect`` means: a bare port (``9222``) is
    ``http://127.0.0.1:9222``, ``host:port`` is ``http://host:port``; a URL stays as it is.

    Raises:
        CLIError: A port out of range (exit status 2).
    """
    text = value.strip()
    if text.isdigit():
        text = f"127.0.0.1:{text}"
    if _HOST_PORT_RE.match(text) and "://" not in text:
        text = f"http://{text}"
    try:
        port = urllib.parse.urlsplit(text).port
    except ValueError:
        port = 0
    if port == 0:
        raise CLIError(f"Invalid --connect {value!r}: the port is not in 1-65535", 2)
    return text


def _has_display(chrome_args: tuple[str, ...]) -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    if any(arg.startswith("--ozone-platform=") for arg in chrome_args):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def start_browser(options: BrowserOptions) -> Browser:
    """Launch or attach to a browser as ``options`` say (``await browser.close()`` when done).

    Raises:
        CLIError: ``--headful`` without a display, or ``--connect`` to an endpoint that
            does not answer within ``--timeout``.
    """
    import cdpkit

    if options.connect is not None:
        try:
            return await cdpkit.connect(
                options.connect, timeout=options.timeout, command_timeout=options.timeout
            )
        except TimeoutError as exc:  # a silent port; ConnectError or not, it is a timeout
            raise CLIError(
                f"{options.connect} did not answer within {options.timeout:g} s: is it the "
                "DevTools endpoint of a running browser? (--timeout SECONDS sets how long "
                "to wait)"
            ) from exc
    if options.headful and not _has_display(options.chrome_args):
        raise CLIError(
            "--headful needs a display to show a window, and neither $DISPLAY nor "
            "$WAYLAND_DISPLAY is set (leave out --headful, or run it on your desktop or "
            "over ssh -X)"
        )
    return await cdpkit.launch(
        headless=not options.headful,
        profile=options.profile,
        args=options.chrome_args,
        pipe=options.pipe,
        timeout=options.timeout,
        command_timeout=options.timeout,
        lock_timeout=options.timeout,
        viewport=options.viewport,
    )


@contextlib.asynccontextmanager
async def open_browser(options: BrowserOptions) -> AsyncIterator[Browser]:
    """Launch or attach to a browser as ``options`` say; close or detach on exit."""
    browser = await start_browser(options)
    try:
        yield browser
    finally:
        await browser.close()


async def first_page(browser: Browser, *, launched: bool) -> Page:
    """The page a command works on: the tab a launched browser opened with, or a new tab
    in an attached browser (closed when cdpkit detaches)."""
    if launched and browser.pages:
        return browser.pages[0]  # set up by launch() before it returned
    return await browser.new_page()


@contextlib.asynccontextmanager
async def open_page(options: BrowserOptions) -> AsyncIterator[Page]:
    """A browser as :func:`open_browser` gives, and the page to work on."""
    async with open_browser(options) as browser:
        yield await first_page(browser, launched=options.connect is None)


_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_HOST_PORT_RE = re.compile(r"^[^/:]+:\d+(/|$)")  # localhost:8000/x has no scheme
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
    if _SCHEME_RE.match(text) and not _HOST_PORT_RE.match(text):
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
    if not _SCHEME_RE.match(text) or _HOST_PORT_RE.match(text):
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


def _debug_wanted(debug: bool) -> bool:
    return debug or os.environ.get("CDPKIT_DEBUG", "") not in ("", "0")


# A hint naming a library setting, e.g. "(launch(lock_timeout=...) sets how long)" or
# "(pass timeout= to send(), or command_timeout= to launch()/connect())".
_LIBRARY_HINT_RE = re.compile(
    r"\s*\((?:[^()]|\([^()]*\))*?\b(?:launch|connect|send)\([^()]*\)(?:[^()]|\([^()]*\))*\)"
)
_TIMEOUT_HINT = "(--timeout SECONDS sets how long)"


def _in_cli_words(exc: BaseException) -> str:
    """The message of ``exc`` with the library's settings (``send(timeout=)``,
    ``launch(lock_timeout=)``...) named by the option that sets them here: every time
    limit of a command is its ``--timeout``."""
    if isinstance(exc, CommandTimeoutError):
        return f"{exc.method} got no answer within {exc.timeout:g} s {_TIMEOUT_HINT}"
    text = str(exc)
    if isinstance(exc, TimeoutError | LaunchError):
        text, hints = _LIBRARY_HINT_RE.subn(" " + _TIMEOUT_HINT, text)
        if not hints and isinstance(exc, TimeoutError):
            text = f"{text or 'Timed out'} {_TIMEOUT_HINT}"
    return text


def error_line(exc: BaseException) -> str:
    """``exc`` as one line the command line prints: in the CLI's own words (its options,
    not the library's arguments), the exception's type only where the message needs it."""
    text = " ".join(part.strip() for part in _in_cli_words(exc).splitlines() if part.strip())
    if not isinstance(exc, CDPError | CLIError | ValueError | OSError | TimeoutError):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    elif not text:
        text = type(exc).__name__
    return text if len(text) <= 2000 else text[:2000] + "..."


def report_error(exc: BaseException, *, debug: bool) -> None:
    """Print ``exc`` the way the command line reports failures: one line on stderr, or the
    whole traceback with ``debug``."""
    if _debug_wanted(debug):
        traceback.print_exception(exc)
    else:
        print(f"error: {error_line(exc)}", file=sys.stderr)


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


def run(work: Callable[[], Coroutine[Any, Any, T]], *, debug: bool = False) -> T:
    """Run a command's coroutine and turn failures into the command line's exit statuses.

    Raises:
        typer.Exit: On any failure, after printing it.
    """
    try:
        return asyncio.run(_guarded(work()))
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    except _Terminated as exc:
        print(f"error: terminated by {exc}", file=sys.stderr)
        raise typer.Exit(128 + exc.signum) from None
    except CLIError as exc:
        report_error(exc, debug=debug)
        raise typer.Exit(exc.exit_code) from None
    except BrokenPipeError:
        raise
    except Exception as exc:
        report_error(exc, debug=debug)
        raise typer.Exit(1) from None


def _human_size(size: float) -> str:
    """``301 bytes``, ``12.3 kB``, ``25.2 MB`` (decimal units, as the progress bar)."""
    if size < 1000:
        return f"{size:.0f} bytes"
    for unit in ("kB", "MB", "GB"):
        size /= 1000
        if size < 1000 or unit == "GB":
            break
    return f"{size:.1f} {unit}"


def _note_status(status: int | None) -> None:
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


async def _load(page: Page, url: str, timeout: float, wait_ms: int | None = 0) -> None:
    from .tools import navigate

    result = await navigate(page, url, timeout=timeout)
    _note_status(result.status)
    await settle(page, wait_ms, timeout)
