"""The ``cdpkit`` command: a REPL on a live page, one-shot commands, and tools around the
generated bindings.

::

    cdpkit repl [URL]                    Python with top-level await, plus raw CDP lines
    cdpkit screenshot URL [-o FILE]      cdpkit snapshot URL        cdpkit eval URL EXPR
    cdpkit pdf URL [-o FILE]             cdpkit scrape URL [--format ...]
    cdpkit download URL [--dir DIR]
    cdpkit protocol [Domain[.item]]      cdpkit gen [--check]       cdpkit doctor
    cdpkit launch                        cdpkit open-browser --profile NAME

Every command that drives a browser launches a headless one (``--headful`` shows it,
``--profile NAME`` uses a persistent profile) or attaches to a running one with
``--connect http://127.0.0.1:PORT`` (or just ``--connect PORT``). Commands that load a
page wait for its content to settle before working on it (``--wait MS`` waits a fixed
time instead, ``--wait 0`` not at all). Exit status: 0 on success; 1 on failure, with one
line ``error: ...`` on stderr (``--debug`` or ``CDPKIT_DEBUG=1`` prints the traceback
instead); 2 for a bad command line, URL or output file; 130 when interrupted by Ctrl-C.

``import cdpkit`` never imports this module (nor typer): only the command does.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import enum
import inspect
import json
import math
import os
import re
import signal
import sys
import time
import traceback
import types
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from .errors import CDPError, CommandTimeoutError, LaunchError

if TYPE_CHECKING:
    from .browser import Browser
    from .page import Page
    from .tools import SmartWait

__all__ = ["BrowserOptions", "CLIError", "app", "main", "normalize_url", "open_browser"]

T = TypeVar("T")

app = typer.Typer(
    name="cdpkit",
    help=(
        "Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, "
        "one-shot commands, and the protocol's bindings."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        import cdpkit

        print(f"cdpkit {cdpkit.__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, one-shot
    commands, and the protocol's bindings. Failures print one line (`error: ...`) and exit
    with status 1; --debug on any command shows the traceback."""


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


# -- common options -------------------------------------------------------------------------

ConnectOption = Annotated[
    str | None,
    typer.Option(
        "--connect",
        metavar="ENDPOINT",
        help="Attach to a running browser (http://127.0.0.1:PORT, just PORT, or its ws:// URL) "
        "instead of launching one; it is left running.",
    ),
]
HeadfulOption = Annotated[
    bool, typer.Option("--headful", help="Launch the browser with a window (default headless).")
]
ProfileOption = Annotated[
    str | None,
    typer.Option(
        "--profile",
        metavar="NAME",
        help="Launch on the persistent profile NAME (e.g. one logged in with "
        "`cdpkit open-browser --profile NAME`).",
    ),
]
ChromeArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--chrome-arg",
        metavar="FLAG",
        help="An extra Chrome flag, repeatable; write it with '=': --chrome-arg=--lang=fr.",
    ),
]
ViewportOption = Annotated[
    str | None,
    typer.Option(
        "--viewport",
        metavar="WxH",
        help="The page size of a launched browser in CSS pixels, e.g. 1920x1080 "
        "(default 1280x720).",
        show_default=False,
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        metavar="SECONDS",
        help="Seconds allowed to start the browser, load the page and answer each command.",
    ),
]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="On failure, print the full traceback.")
]
WaitOption = Annotated[
    int | None,
    typer.Option(
        "--wait",
        metavar="MS",
        min=0,
        help="After loading, wait exactly MS milliseconds (0: not at all) instead of waiting "
        "until the page's content stops changing.",
        show_default=False,
    ),
]
UrlArgument = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="A URL, a host name (https:// is added) or a local HTML file.",
        show_default=False,
    ),
]


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


def check_output_file(output: str, formats: dict[str, str] | None = None, *, what: str = "") -> str | None:
    """Check, before any browser starts, that ``output`` (``-o``) can be written.

    Args:
        output: The file, or ``-`` for stdout.
        formats: Extension -> format this command can write (e.g. ``{".png": "png"}``);
            ``None`` accepts any name.
        what: What the command writes, for the message (``"screenshot"``).

    Returns:
        The format ``output``'s extension names, ``None`` if it has none (or for stdout).

    Raises:
        CLIError: The directory is missing or not writable, ``output`` is a directory,
            or its extension names a format the command cannot write (exit status 2).
    """
    if output == "-":
        return None
    path = Path(output).expanduser()
    if path.is_dir():
        raise CLIError(f"Cannot write {output}: it is a directory (give a file name in it)", 2)
    parent = path.parent
    if not parent.exists():
        raise CLIError(f"Cannot write {output}: the directory {parent} does not exist", 2)
    if not parent.is_dir():
        raise CLIError(f"Cannot write {output}: {parent} is not a directory", 2)
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CLIError(f"Cannot write {output}: permission denied", 2)
    suffix = path.suffix.lower()
    if formats is None or not suffix:
        return None
    if suffix not in formats:
        names = ", ".join(sorted(formats))
        raise CLIError(f"Cannot write a {what} as {suffix} (supported: {names})", 2)
    return formats[suffix]


def check_output_dir(directory: Path) -> None:
    """Check, before any browser starts, that files can be saved into ``directory``
    (``--dir``): it is a writable directory, or one that can be created.

    Raises:
        CLIError: It is a file, or it cannot be written or created (exit status 2).
    """
    path = directory.expanduser()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise CLIError(f"Cannot save into {directory}: {existing} is a file, not a directory", 2)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CLIError(f"Cannot save into {directory}: permission denied on {existing}", 2)


def _write_output(data: bytes, output: str) -> str:
    """Write ``data`` to a file, or to stdout for ``-``; what to call it in messages."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "stdout"
    path = Path(output).expanduser()
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise CLIError(f"Could not write {output}: {exc.strerror or exc}") from None
    return str(path)


# -- repl ----------------------------------------------------------------------------------


@app.command()
def repl(
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page first.", show_default=False),
    ] = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    pipe: Annotated[
        bool, typer.Option("--pipe", help="Talk to the launched browser over a pipe, not a port.")
    ] = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    wait_ms: WaitOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """A Python console on a live page: top-level await; cdpkit, cdp, tools, browser and
    page preloaded; raw lines like `Page.navigate url=https://example.com`; :help lists
    the rest. Reads a script from stdin when it is not a terminal. The page opened
    first, and by `:tab new URL` or `:goto URL`, is waited on as --wait says."""
    from . import repl as repl_module

    options = _options(connect, headful, profile, chrome_arg, timeout, pipe, viewport=viewport)
    start_url = normalize_url(url) if url is not None else None
    raise typer.Exit(
        repl_module.run(options, start_url, wait_ms=wait_ms, debug=_debug_wanted(debug))
    )


# -- one-shot commands ------------------------------------------------------------------------


class ImageFormat(enum.StrEnum):
    """Screenshot formats."""

    png = "png"
    jpeg = "jpeg"
    webp = "webp"


_EXTENSION_FORMATS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}


@app.command()
def screenshot(
    url: UrlArgument,
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Where to save the image ('-' for stdout). Default: screenshot.png (or .jpeg, .webp).",
        ),
    ] = None,
    full_page: Annotated[
        bool, typer.Option("--full-page", help="The whole scrollable page, not just the viewport.")
    ] = False,
    image_format: Annotated[
        ImageFormat | None,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="Image format. Default: from the -o extension, else png.",
        ),
    ] = None,
    quality: Annotated[
        int | None, typer.Option("--quality", min=0, max=100, help="0-100, for jpeg and webp.")
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the first element matching this."),
    ] = None,
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Save a screenshot of a page, once its content has settled."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    named = check_output_file(output, _EXTENSION_FORMATS, what="screenshot") if output else None
    if image_format is not None and named is not None and named != image_format.value:
        raise CLIError(f"-o {output} names a {named} file but --format is {image_format.value}", 2)
    fmt = image_format.value if image_format is not None else named or "png"
    destination = output if output is not None else f"screenshot.{fmt}"
    check_output_file(destination)

    async def work() -> None:
        from .tools import screenshot as take_screenshot

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            data = await take_screenshot(
                page, full_page=full_page, format=fmt, quality=quality, selector=selector  # type: ignore[arg-type]
            )
        where = _write_output(data, destination)
        if where != "stdout":
            print(f"Saved {where} ({fmt}, {_human_size(len(data))})")

    run(work, debug=debug)


@app.command()
def pdf(
    url: UrlArgument,
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FILE", help="Where to save it ('-' for stdout)."),
    ] = "page.pdf",
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Save a page as PDF (as printed, with its print styles), once its content has
    settled. Headless only: Chrome prints to PDF without a window."""
    options = _options(connect, False, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    check_output_file(output, {".pdf": "pdf"}, what="PDF")

    async def work() -> None:
        from .tools import pdf as print_pdf

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            data = await print_pdf(page)
        where = _write_output(data, output)
        if where != "stdout":
            print(f"Saved {where} (pdf, {_human_size(len(data))})")

    run(work, debug=debug)


@app.command()
def snapshot(
    url: UrlArgument,
    interactive_only: Annotated[
        bool,
        typer.Option("-i", "--interactive-only", help="Only links, buttons, fields and other controls."),
    ] = False,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the subtree of this element."),
    ] = None,
    max_depth: Annotated[
        int | None, typer.Option("--max-depth", min=0, help="Only nodes at most this deep.")
    ] = None,
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Print a page's accessibility snapshot once its content has settled: one line per
    node, `[index] role "name" @(x,y,w,h)`."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)

    async def work() -> None:
        from .tools import snapshot as take_snapshot

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            result = await take_snapshot(
                page, interactive_only=interactive_only, selector=selector, max_depth=max_depth
            )
        if result.text:
            print(result.text)

    run(work, debug=debug)


class ScrapeFormat(enum.StrEnum):
    """Formats of ``cdpkit scrape``."""

    markdown = "markdown"
    links = "links"
    text = "text"


@app.command()
def scrape(
    url: UrlArgument,
    output_format: Annotated[
        ScrapeFormat,
        typer.Option("--format", case_sensitive=False, help="markdown, links (URL<TAB>text) or text."),
    ] = ScrapeFormat.markdown,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the first element matching this."),
    ] = None,
    max_chars: Annotated[
        int | None, typer.Option("--max-chars", min=0, help="Cut the content to this length.")
    ] = None,
    wait_ms: WaitOption = None,
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout."),
    ] = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Print a page's content as markdown, its links, or its text, once it has settled. A
    URL that is a media file (image, video, audio, PDF) is saved with -o instead; other
    files (CSV, ZIP...) are for `cdpkit download`."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    if output is not None:
        check_output_file(output)

    async def work() -> None:
        from .tools import scrape as do_scrape
        from .tools.scraping import NotAPageError

        async with open_page(options) as page:
            try:
                result = await do_scrape(
                    page,
                    target,
                    format=output_format.value,
                    selector=selector,
                    max_chars=max_chars,
                    wait_for_ms=wait_ms,
                    smart_wait=content_wait(timeout),
                    timeout=timeout,
                )
            except NotAPageError as exc:
                raise CLIError(
                    f"{target} is a file ({exc.mime_type}), not a page: save it with "
                    f"`cdpkit download {url}`"
                ) from None
        _note_status(result.status)
        if result.format == "media":
            assert result.data is not None
            if output is None:
                raise CLIError(
                    f"{target} is a media file ({result.mime_type}, {_human_size(len(result.data))}): "
                    "save it with -o FILE or `cdpkit download`"
                )
            where = _write_output(result.data, output)
            if where != "stdout":
                print(f"Saved {where} ({result.mime_type}, {_human_size(len(result.data))})")
            return
        if result.format == "links":
            text = "".join(f"{link.url}\t{link.text}\n" for link in result.links)
        else:
            text = result.content or ""
            if text and not text.endswith("\n"):
                text += "\n"
        if output is None:
            sys.stdout.write(text)
        else:
            _write_output(text.encode(), output)

    run(work, debug=debug)


async def _watch_part_file(
    page: Page, directory: Path, url: str | None, started: float, stop: asyncio.Event
) -> None:
    """Show a progress bar on stderr while a download's ``.part`` file grows (after half a
    second, so small files show nothing). The total comes from the response's
    Content-Length when the page's request for ``url`` shows it.

    ``download()`` reports no progress itself: this watches the hidden
    ``.cdpkit-*.part`` file it streams into (see :mod:`cdpkit.tools.files`)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    total: list[int] = []

    async def find_total() -> None:
        async with page.listen("Fetch.requestPaused", raw=True) as events:
            async for event in events:
                params = event.params
                if url is not None and params.get("request", {}).get("url") != url:
                    continue
                for header in params.get("responseHeaders") or []:
                    if header.get("name", "").lower() == "content-length":
                        with contextlib.suppress(ValueError):
                            total.append(int(header["value"]))
                            return

    finder = asyncio.create_task(find_total())
    progress: Progress | None = None
    task_id: Any = None
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await stop.wait()
        while not stop.is_set():
            parts = [
                p
                for p in directory.glob(".cdpkit-*.part")
                if p.stat().st_mtime >= started - 1
            ] if directory.is_dir() else []
            if parts:
                size = max(p.stat().st_size for p in parts)
                if progress is None:
                    progress = Progress(
                        TextColumn("Downloading"),
                        BarColumn(),
                        DownloadColumn(),
                        TransferSpeedColumn(),
                        TimeRemainingColumn(),
                        console=Console(file=sys.stderr),
                        transient=True,
                    )
                    progress.start()
                    task_id = progress.add_task("download", total=total[0] if total else None)
                if total and progress.tasks[0].total is None:
                    progress.update(task_id, total=total[0])
                progress.update(task_id, completed=size)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    await stop.wait()
    finally:
        finder.cancel()
        await asyncio.gather(finder, return_exceptions=True)  # no task outlives the download
        if progress is not None:
            progress.stop()


@app.command()
def download(
    url: UrlArgument,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            metavar="DIR",
            help="Save into DIR (created if missing). Default: ~/Downloads.",
        ),
    ] = None,
    filename: Annotated[
        str | None,
        typer.Option(
            "--filename",
            metavar="NAME",
            help="Save under this name instead of the server's (never overwrites: NAME-1.ext).",
        ),
    ] = None,
    from_page: Annotated[
        str | None,
        typer.Option(
            "--page",
            metavar="PAGE_URL",
            help="Load this page first: the download carries its cookies and Referer.",
        ),
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option(
            "--selector",
            metavar="CSS",
            help="URL is then a page: download the resource of its first element matching "
            "this (img, video, audio, a, ...).",
        ),
    ] = None,
    max_time: Annotated[
        float | None,
        typer.Option(
            "--max-time",
            metavar="SECONDS",
            min=0.1,
            help="Give up on a download that takes longer (default: no limit; --timeout "
            "still bounds the wait for it to start).",
        ),
    ] = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Download a file the way the page would (its cookies and Referer apply), streamed
    to disk, with a progress bar for large files.

    Like wget, the file is named as the server says (Content-Disposition) or else after
    the URL's last path segment, sanitized; an existing file is never overwritten: the
    new one becomes name-1.ext, name-2.ext... It is saved only when complete (a body
    cut short is an error and leaves no file)."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    page_url = normalize_url(from_page) if from_page is not None else None
    if selector is not None and page_url is not None:
        raise CLIError("With --selector, URL is the page: --page is not needed", 2)
    from .tools.files import default_download_dir

    dest = (directory or default_download_dir()).expanduser()
    check_output_dir(dest)

    async def work() -> None:
        from .tools import download as do_download

        async with open_page(options) as page:
            if selector is not None:
                await _load(page, target, timeout)
            elif page_url is not None:
                await _load(page, page_url, timeout)
            stop = asyncio.Event()
            watcher = (
                asyncio.create_task(
                    _watch_part_file(
                        page, dest, None if selector else target, time.time(), stop
                    )
                )
                if sys.stderr.isatty()
                else None
            )
            limits: dict[str, Any] = {
                "timeout": max_time if max_time is not None else math.inf,
                "initiation_timeout": timeout,
            }
            try:
                if selector is not None:
                    result = await do_download(
                        page, selector=selector, dest_dir=dest, filename=filename,
                        server_filename=True, **limits,
                    )
                else:
                    result = await do_download(
                        page, url=target, dest_dir=dest, filename=filename,
                        server_filename=True, **limits,
                    )
            finally:
                stop.set()
                if watcher is not None:
                    await asyncio.gather(watcher, return_exceptions=True)
        print(f"Saved {result.path} ({_human_size(result.size)}, {result.mime_type or 'unknown type'})")

    run(work, debug=debug)


@app.command("eval")
def eval_(
    url: UrlArgument,
    expression: Annotated[
        str,
        typer.Argument(
            metavar="EXPR",
            help="JavaScript; the value of the last statement is printed (top-level await works).",
            show_default=False,
        ),
    ],
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Evaluate JavaScript in a page once its content has settled and print the result
    (strings as they are, anything else as JSON)."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)

    async def work() -> None:
        from .tools import evaluate

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            value = await evaluate(page, expression)
        if isinstance(value, str):
            print(value)
        else:
            print(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    run(work, debug=debug)


# -- the bindings: protocol, gen ---------------------------------------------------------------


def _summary(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "").split("\n\n")[0].replace("\n", " ").strip()
    return text


def _annotation(value: Any) -> str:
    forward = getattr(value, "__forward_arg__", None)
    if isinstance(forward, str):
        return forward
    if isinstance(value, type):
        return value.__name__
    return str(value).replace("typing.", "")


def _wire_params(function: Callable[..., Any]) -> dict[str, str]:
    """Python parameter name -> wire name, read from a generated command function."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return {}
    mapping: dict[str, str] = {}
    literal = re.search(r"params: dict\[str, Any\] = \{(.*?)\}\n", source)
    if literal:
        for wire, name in re.findall(r'"(\w+)": (\w+)', literal.group(1)):
            mapping[name] = wire
    for wire, name in re.findall(r'params\["(\w+)"\] = (\w+)', source):
        mapping[name] = wire
    return mapping


def command_params(method: str) -> list[str]:
    """The wire names of a command's parameters (``Page.navigate`` -> ``url``, ...), or
    ``[]`` when the bindings do not know the command."""
    function = _binding(method)
    if function is None or not callable(function):
        return []
    return list(_wire_params(function).values())


def _binding(method: str) -> Any:
    import importlib

    from .cdp import _registry

    entry = _registry.COMMANDS.get(method) or _registry.EVENTS.get(method)
    if entry is None:
        return None
    module = importlib.import_module(f"cdpkit.cdp.{entry[0]}")
    return getattr(module, entry[1], None)


def _fields(model: Any) -> list[str]:
    lines = []
    for name, info in getattr(model, "model_fields", {}).items():
        alias = f" ({info.alias})" if info.alias and info.alias != name else ""
        optional = "" if info.is_required() else ", optional"
        lines.append(f"    {name}{alias}: {_annotation(info.annotation)}{optional}")
    return lines


def _signature(function: Callable[..., Any], qualified: str) -> str:
    signature = inspect.signature(function)
    params = []
    keyword_only_seen = False
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only_seen:
            params.append("*")
            keyword_only_seen = True
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        params.append(text)
    returns = (
        f" -> {_annotation(signature.return_annotation)}"
        if signature.return_annotation is not inspect.Signature.empty
        else ""
    )
    if not params:
        return f"{qualified}(){returns}"
    body = "".join(f"    {p},\n" for p in params)
    return f"{qualified}(\n{body}){returns}"


def _resolve_domain(name: str) -> tuple[str, str] | None:
    from .cdp import _registry

    for wire, module in _registry.DOMAINS.items():
        if name in (wire, module) or name.lower() in (wire.lower(), module.lower()):
            return wire, module
    return None


def _all_protocol_names() -> list[str]:
    from .cdp import _registry

    return [*_registry.DOMAINS, *_registry.COMMANDS, *_registry.EVENTS]


def _not_found(name: str) -> CLIError:
    close = difflib.get_close_matches(name, _all_protocol_names(), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; `cdpkit protocol` lists the domains"
    return CLIError(f"{name!r} is not in the protocol bindings{hint}")


def describe_protocol(name: str | None = None) -> str:
    """The docs of the bindings as text: every domain (no ``name``), one domain
    (``"Page"``), or one command, event or type (``"Page.navigate"``,
    ``"Page.loadEventFired"``, ``"Page.Frame"``). Names are matched case-insensitively.

    Raises:
        CLIError: ``name`` is not in the bindings (with suggestions).
    """
    import importlib

    from .cdp import _registry

    if not name:
        return _describe_domains()
    domain_name, _, item = name.partition(".")
    domain = _resolve_domain(domain_name)
    if domain is None:
        raise _not_found(name)
    wire_domain, module_name = domain
    module = importlib.import_module(f"cdpkit.cdp.{module_name}")
    if not item:
        return _describe_domain(wire_domain, module)
    method = f"{wire_domain}.{item}"
    if method not in _registry.COMMANDS and method not in _registry.EVENTS:
        method = next(
            (m for m in [*_registry.COMMANDS, *_registry.EVENTS] if m.lower() == method.lower()),
            method,
        )
    if method in _registry.COMMANDS:
        return _describe_command(method, module)
    if method in _registry.EVENTS:
        return _describe_event(method, module)
    described = _describe_type(wire_domain, item, module)
    if described is None:
        raise _not_found(name)
    return described


def _describe_domains() -> str:
    import importlib

    from .cdp import _registry

    lines = [f"{_registry.PROTOCOL_VERSION}: {len(_registry.DOMAINS)} domains", ""]
    for wire, module_name in _registry.DOMAINS.items():
        module = importlib.import_module(f"cdpkit.cdp.{module_name}")
        commands = sum(1 for m in _registry.COMMANDS if m.partition(".")[0] == wire)
        events = sum(1 for m in _registry.EVENTS if m.partition(".")[0] == wire)
        lines.append(
            f"{wire:<22} cdp.{module_name:<22} {commands:>3} commands {events:>3} events  "
            f"{_summary(module.__doc__)[:90]}"
        )
    lines += ["", "`cdpkit protocol DOMAIN` lists a domain, `cdpkit protocol Domain.method` documents one."]
    return "\n".join(lines)


def _describe_domain(wire_domain: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    commands = [(m, f) for m, (_, f) in _registry.COMMANDS.items() if m.partition(".")[0] == wire_domain]
    events = [(m, c) for m, (_, c) in _registry.EVENTS.items() if m.partition(".")[0] == wire_domain]
    lines = [f"{wire_domain}  (cdpkit.cdp.{module_name})", "", inspect.cleandoc(module.__doc__ or ""), ""]
    width = max((len(m.partition(".")[2]) for m, _ in commands), default=0)
    lines.append(f"Commands ({wire_domain}.<name> / cdp.{module_name}.<function>):")
    for method, function in commands:
        doc = _summary(getattr(module, function).__doc__)
        short = method.partition(".")[2]
        lines.append(f"  {short:<{width}}  {function:<{width + 4}}  {doc[:70]}")
    if events:
        width = max(len(m.partition(".")[2]) for m, _ in events)
        lines += ["", f"Events ({wire_domain}.<name> / cdp.{module_name}.<class>):"]
        for method, cls in events:
            lines.append(f"  {method.partition('.')[2]:<{width}}  {cls}")
    lazy: dict[str, str] = getattr(module, "_LAZY_NAMES", {})
    type_names = [n for n, kind in lazy.items() if kind == "_types"]
    if type_names:
        lines += ["", "Types:", "  " + ", ".join(type_names)]
    return "\n".join(lines).rstrip()


def _describe_command(method: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    function = getattr(module, _registry.COMMANDS[method][1])
    wire = _wire_params(function)
    signature = inspect.signature(function)
    raw = " ".join(
        f"{wire[p]}=..." if param.default is inspect.Parameter.empty else f"[{wire[p]}=...]"
        for p, param in signature.parameters.items()
        if p in wire
    )
    lines = [
        f"{method}  (command)",
        "",
        _signature(function, f"cdp.{module_name}.{function.__name__}"),
        "",
        inspect.getdoc(function) or "",
        "",
        f"REPL: {method}{' ' + raw if raw else ''}",
    ]
    match = re.search(r"Command\[(\w+)\]", str(signature.return_annotation))
    result_model = getattr(module, match.group(1), None) if match else None
    if match and result_model is not None:
        lines += ["", f"Result: cdp.{module_name}.{match.group(1)}", *_fields(result_model)]
    return "\n".join(lines).rstrip()


def _describe_event(method: str, module: types.ModuleType) -> str:
    from .cdp import _registry

    module_name = module.__name__.rpartition(".")[2]
    cls = getattr(module, _registry.EVENTS[method][1])
    lines = [
        f"{method}  (event: cdp.{module_name}.{cls.__name__})",
        "",
        inspect.getdoc(cls) or "",
        "",
        "Fields:",
        *(_fields(cls) or ["    (none)"]),
    ]
    return "\n".join(lines).rstrip()


def _describe_type(wire_domain: str, item: str, module: types.ModuleType) -> str | None:
    module_name = module.__name__.rpartition(".")[2]
    lazy: dict[str, str] = getattr(module, "_LAZY_NAMES", {})
    known = [
        n
        for n in dir(module)
        if n[:1].isupper() and (lazy.get(n) == "_types" or hasattr(getattr(module, n), "__supertype__"))
    ]
    found = next((n for n in known if n == item), None) or next(
        (n for n in known if n.lower() == item.lower()), None
    )
    if found is None:
        return None
    value = getattr(module, found)
    lines = [f"{wire_domain}.{found}  (type: cdp.{module_name}.{found})", ""]
    if isinstance(value, type) and issubclass(value, enum.Enum):
        lines += [inspect.getdoc(value) or "", "", "Values: " + ", ".join(str(m.value) for m in value)]
    elif hasattr(value, "__supertype__"):
        lines.append(f"NewType of {_annotation(value.__supertype__)}")
    else:
        lines.append(inspect.getdoc(value) or "")
        fields = _fields(value)
        if fields:
            lines += ["", "Fields:", *fields]
    return "\n".join(lines).rstrip()


@app.command()
def protocol(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="A domain (Page), command (Page.navigate), event (Page.loadEventFired) or type (Page.Frame); none lists the domains.",
            show_default=False,
        ),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Show the protocol as the bindings know it: domains, or the docs and Python
    signature of a command, event or type."""

    async def work() -> None:
        print(describe_protocol(name))

    run(work, debug=debug)


@app.command()
def gen(
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; fail if the bindings differ from what would be generated."),
    ] = False,
    from_browser: Annotated[
        str | None,
        typer.Option(
            "--from-browser",
            metavar="URL",
            help="Generate from a running browser's URL/json/protocol (e.g. http://127.0.0.1:9222) instead of the pin.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="The package directory to write (default: cdpkit/cdp)."),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Regenerate the typed bindings (cdpkit.cdp) from the pinned protocol JSON or from a
    running browser; wraps `python -m cdpkit.codegen`."""
    from .codegen.__main__ import main as codegen_main

    argv: list[str] = []
    if check:
        argv.append("--check")
    if from_browser is not None:
        argv += ["--from-browser", from_browser]
    if out is not None:
        argv += ["--out", str(out)]

    async def work() -> int:
        return codegen_main(argv)

    status = run(work, debug=debug)
    raise typer.Exit(status)


# -- browsers: launch, open-browser, doctor ---------------------------------------------------------


def http_endpoint(browser: Browser) -> str | None:
    """``http://127.0.0.1:PORT`` of a browser launched with a debugging port, else ``None``."""
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if lines and lines[0].strip().isdigit():
            return f"http://127.0.0.1:{lines[0].strip()}"
    return None


def _ws_endpoint(browser: Browser) -> str | None:
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if len(lines) >= 2:
            return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
    return None


async def _until_stopped(browser: Browser, *, window_closed_stops: bool = False) -> str:
    """Wait for Ctrl-C, SIGTERM or SIGHUP ("signal"), the browser process exiting
    ("exited"), or, with ``window_closed_stops``, its last page closing ("closed")."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
            loop.add_signal_handler(signum, stop.set)

    async def signalled() -> str:
        await stop.wait()
        return "signal"

    async def exited() -> str:
        assert browser.process is not None
        await browser.process.wait_for_exit()
        return "exited"

    async def pages_closed() -> str:
        async with browser.listen("Target.targetDestroyed", "Target.detachedFromTarget") as events:
            async for _ in events:
                await asyncio.sleep(0.3)  # a tab replacing another one
                if not browser.pages:
                    return "closed"
        return "exited"

    waiters = [asyncio.create_task(signalled())]
    if browser.process is not None:
        waiters.append(asyncio.create_task(exited()))
    if window_closed_stops:
        waiters.append(asyncio.create_task(pages_closed()))
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        first = next(iter(done))
        try:
            return first.result()
        except CDPError:
            return "exited"  # the connection ended with the browser
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
        for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
                loop.remove_signal_handler(signum)


@app.command()
def launch(
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Start a browser, print its endpoint (http://127.0.0.1:PORT) on stdout, and keep it
    running until Ctrl-C. Other commands attach to it with --connect ENDPOINT."""
    options = _options(None, headful, profile, chrome_arg, timeout, viewport=viewport)

    async def work() -> None:
        async with open_browser(options) as browser:
            endpoint = http_endpoint(browser)
            print(endpoint, flush=True)
            print(
                f"{browser.version.product} is running ({_ws_endpoint(browser)}).\n"
                f"Attach with: cdpkit repl --connect {endpoint}\n"
                "Press Ctrl-C to stop it.",
                file=sys.stderr,
                flush=True,
            )
            why = await _until_stopped(browser)
            if why == "exited":
                assert browser.process is not None
                raise CLIError(f"{browser.process.describe_exit()}")

    run(work, debug=debug)


@app.command("open-browser")
def open_browser_command(
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            metavar="NAME",
            help="The persistent profile to open (created if new).",
            show_default=False,
        ),
    ],
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page (e.g. the site's login page).", show_default=False),
    ] = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Open a browser window on a persistent profile for a manual login. It holds the
    profile's lock while open and exits when the window is closed; later runs with
    --profile NAME (or launch(profile="NAME")) start logged in."""
    from ._profiles import profile_dir

    options = _options(None, True, profile, chrome_arg, timeout, viewport=viewport)
    try:
        directory = profile_dir(profile)
    except ValueError as exc:
        report_error(CLIError(str(exc), 2), debug=debug)
        raise typer.Exit(2) from None
    target = normalize_url(url) if url is not None else None
    if not _has_display(options.chrome_args):
        report_error(
            CLIError(
                "open-browser needs a display to show a window, and neither $DISPLAY nor "
                "$WAYLAND_DISPLAY is set (run it on your desktop, or over ssh -X)"
            ),
            debug=debug,
        )
        raise typer.Exit(1)

    async def work() -> None:
        async with open_browser(options) as browser:
            endpoint = http_endpoint(browser)
            print(endpoint, flush=True)
            if target is not None and browser.pages:
                from .tools import navigate

                try:
                    await navigate(browser.pages[0], target, timeout=timeout)
                except CDPError as exc:
                    print(f"warning: {error_line(exc)}", file=sys.stderr)
            print(
                f"Profile {profile!r} is open ({directory}).\n"
                "Log in, then close the browser window to save it.",
                file=sys.stderr,
                flush=True,
            )
            why = await _until_stopped(browser, window_closed_stops=True)
            if why == "signal":
                print("Closing the browser.", file=sys.stderr)
        print(f"Profile {profile!r} saved in {directory}", file=sys.stderr)

    run(work, debug=debug)


@dataclass(slots=True)
class ProtocolDiff:
    """How a browser's ``/json/protocol`` differs from the bindings' pin.

    Each list holds wire names: ``added_*`` the browser has and the bindings lack,
    ``removed_*`` the bindings have and the browser lacks.
    """

    added_domains: list[str] = field(default_factory=list)
    removed_domains: list[str] = field(default_factory=list)
    added_commands: list[str] = field(default_factory=list)
    removed_commands: list[str] = field(default_factory=list)
    added_events: list[str] = field(default_factory=list)
    removed_events: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Whether the browser and the bindings know exactly the same items."""
        return not any(
            (
                self.added_domains,
                self.removed_domains,
                self.added_commands,
                self.removed_commands,
                self.added_events,
                self.removed_events,
            )
        )


def diff_protocol(document: dict[str, Any]) -> ProtocolDiff:
    """Compare a protocol document (as served at ``/json/protocol``) with the bindings."""
    from .cdp import _registry

    domains: set[str] = set()
    commands: set[str] = set()
    events: set[str] = set()
    for domain in document.get("domains", []):
        name = domain.get("domain")
        if not isinstance(name, str):
            continue
        domains.add(name)
        commands.update(f"{name}.{c['name']}" for c in domain.get("commands", []) if "name" in c)
        events.update(f"{name}.{e['name']}" for e in domain.get("events", []) if "name" in e)
    pinned_domains = set(_registry.DOMAINS)
    pinned_commands = set(_registry.COMMANDS)
    pinned_events = set(_registry.EVENTS)
    return ProtocolDiff(
        added_domains=sorted(domains - pinned_domains),
        removed_domains=sorted(pinned_domains - domains),
        added_commands=sorted(commands - pinned_commands),
        removed_commands=sorted(pinned_commands - commands),
        added_events=sorted(events - pinned_events),
        removed_events=sorted(pinned_events - events),
    )


def format_protocol_diff(diff: ProtocolDiff, *, limit: int | None = 8) -> list[str]:
    """The lines ``cdpkit doctor`` prints for a :class:`ProtocolDiff`."""
    if diff.identical:
        return ["  the browser's protocol matches the bindings exactly"]
    lines = []
    for sign, what, items, where in (
        ("+", "domains", diff.added_domains, "only in the browser"),
        ("-", "domains", diff.removed_domains, "only in the bindings"),
        ("+", "commands", diff.added_commands, "only in the browser"),
        ("-", "commands", diff.removed_commands, "only in the bindings"),
        ("+", "events", diff.added_events, "only in the browser"),
        ("-", "events", diff.removed_events, "only in the bindings"),
    ):
        if not items:
            continue
        shown = items if limit is None else items[:limit]
        more = f", ... and {len(items) - len(shown)} more" if len(shown) < len(items) else ""
        lines.append(f"  {sign} {len(items)} {what} {where}: {', '.join(shown)}{more}")
    return lines


def _fetch_json(url: str, timeout: float) -> Any:
    import urllib.request

    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


@app.command()
def doctor(
    connect: ConnectOption = None,
    chrome_arg: ChromeArgOption = None,
    timeout: TimeoutOption = 30.0,
    full: Annotated[bool, typer.Option("--full", help="List every protocol difference.")] = False,
    debug: DebugOption = False,
) -> None:
    """Check the setup: which Chrome cdpkit finds, whether it starts, its versions, and
    whether its live /json/protocol differs from the bindings' pin (and how)."""
    import platform

    import cdpkit

    from ._profiles import profiles_root
    from .cdp import _registry

    options = _options(connect, False, None, chrome_arg, timeout)

    async def work() -> None:
        print(
            f"cdpkit      {cdpkit.__version__} on Python {platform.python_version()} "
            f"({sys.platform}, {platform.machine()})"
        )
        print(
            f"bindings    {_registry.PROTOCOL_VERSION}: {len(_registry.DOMAINS)} domains, "
            f"{len(_registry.COMMANDS)} commands, {len(_registry.EVENTS)} events"
        )
        print(f"profiles    {profiles_root()}")
        if connect is None:
            from .launcher import find_chrome

            chrome = find_chrome()
            source = "$CDPKIT_CHROME" if os.environ.get("CDPKIT_CHROME") else "PATH and install locations"
            print(f"chrome      {chrome} (from {source})")
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                print("root        yes: cdpkit adds --no-sandbox")
        started = time.monotonic()
        async with open_browser(options) as browser:
            elapsed = time.monotonic() - started
            version = browser.version
            how = f"attached to {options.connect}" if options.connect else f"started headless in {elapsed:.1f} s"
            print(f"browser     {version.product} ({how})")
            print(f"protocol    {version.protocol_version}, V8 {version.js_version}")
            print(f"user agent  {version.user_agent}")
            endpoint = options.connect if options.connect is not None else http_endpoint(browser)
            if endpoint is None:
                print("live protocol: unknown (the browser has no HTTP endpoint)")
                return
            parts = urllib.parse.urlsplit(endpoint)
            base = f"{'https' if parts.scheme in ('https', 'wss') else 'http'}://{parts.netloc}"
            print(f"live protocol ({base}/json/protocol) vs bindings:")
            try:
                document = await asyncio.to_thread(_fetch_json, f"{base}/json/protocol", timeout)
            except (OSError, ValueError) as exc:
                print(f"  could not read it: {exc}")
                return
        diff = diff_protocol(document)
        for line in format_protocol_diff(diff, limit=None if full else 8):
            print(line)
        if not diff.identical:
            print(
                f"  `cdpkit gen --from-browser {base}` generates bindings from this browser's "
                "own protocol"
            )

    run(work, debug=debug)


# -- mcp -------------------------------------------------------------------------------------


@app.command()
def mcp(
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT binds 127.0.0.1).",
        ),
    ] = None,
    headful: Annotated[bool, typer.Option("--headful", help="Show the browser window.")] = False,
    connect: Annotated[
        str | None,
        typer.Option("--connect", metavar="ENDPOINT", help="Drive a running browser instead of launching one."),
    ] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", metavar="NAME", help="Launch on this persistent profile.")
    ] = None,
    downloads: Annotated[
        str | None, typer.Option("--downloads", metavar="DIR", help="Where browser_download saves files.")
    ] = None,
    allow_js: Annotated[
        bool, typer.Option("--allow-js", help="Offer browser_execute_js (runs any JavaScript the agent sends).")
    ] = False,
    allow_file_urls: Annotated[
        bool,
        typer.Option(
            "--allow-file-urls",
            "--allow-unrestricted-file-access",
            help="Let the agent open file: URLs (the local disk) and the browser's own pages (chrome://...), "
            "and upload any local file; by default it cannot, and uploads only files from the download directory.",
        ),
    ] = False,
    allowed_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-origins",
            metavar="ORIGINS",
            help="Only web pages of these origins may be loaded, read or downloaded (default: any); "
            "separated by ';' or ',', or repeat the option. An entry: https://example.com (that scheme, "
            "host and port), http://localhost:* (any port), example.com (http or https, any port), "
            "*.example.com (its subdomains).",
        ),
    ] = None,
    blocked_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--blocked-origins",
            metavar="ORIGINS",
            help="Refuse web pages of these origins, even if allowed (same forms as --allowed-origins).",
        ),
    ] = None,
) -> None:
    """Serve the browser tools to an AI agent over the Model Context Protocol (needs the
    `mcp` extra: pip install 'cdpkit-browser[mcp]'). The browser starts on the first tool
    call and closes when the client disconnects. The same options as `python -m cdpkit.mcp_server`."""
    from . import mcp_server  # optional extra: imported only here

    try:
        mcp_server.serve(
            http=http,
            headful=headful,
            connect=connect,
            profile=profile,
            downloads=downloads,
            allow_js=allow_js,
            allow_file_urls=allow_file_urls,
            allowed_origins=allowed_origins,
            blocked_origins=blocked_origins,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def main(argv: list[str] | None = None) -> None:
    """The ``cdpkit`` console script (also ``python -m cdpkit``)."""
    try:
        app(args=argv, prog_name="cdpkit")
    except BrokenPipeError:  # e.g. `cdpkit protocol | head`: the reader left, that is fine
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except CLIError as exc:  # raised while checking arguments, before any browser starts
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
