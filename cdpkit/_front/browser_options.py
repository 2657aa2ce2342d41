"""Browser options -> a running browser, and failures reported in a person's words: what
the ``cdpkit`` commands, the REPL and the MCP server share.

One :class:`BrowserOptions` is built from the command-line values by :func:`browser_options`
(which checks them and raises one :class:`CLIError` naming the option), and
:func:`start_browser` launches or attaches as it says: ``--connect`` (a URL, ``host:port``
or a bare port, with ``--header``), ``--grid`` (a Selenium Grid 4 session),
``--headful`` (refused without a display), ``--profile``,
``--chrome PATH``, ``--chrome-arg``, ``--viewport WxH``, ``--pipe``, ``--timeout``, and the
browser's identity (:func:`browser_settings`: ``--user-agent``, ``--locale``, ``--timezone``,
``--proxy``, ``--stealth``, ``--extra-header``).
:func:`error_line` words any failure as one line naming those options, not the library's
arguments. Nothing here imports typer or the MCP SDK.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import sys
import traceback
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._browser.settings import BrowserSettings, Proxy
from .._core.secrets import mask
from .._core.urls import HOST_PORT_RE
from ..errors import CDPError, CommandTimeoutError, GridCapacityError, LaunchError
from ..launcher import window_size_arg

if TYPE_CHECKING:
    from ..browser import Browser
    from ..page import Page

__all__ = [
    "BrowserOptions",
    "CLIError",
    "browser_options",
    "browser_settings",
    "connect_endpoint",
    "error_line",
    "first_page",
    "grid_url",
    "open_browser",
    "open_page",
    "parse_header",
    "parse_viewport",
    "report_error",
    "start_browser",
]


class CLIError(Exception):
    """A failure reported as one line on stderr, with an exit status.

    Attributes:
        exit_code: The process exit status (1 for failures, 2 for bad input).
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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
        chrome: The Chrome executable to launch, ``None`` to find one (``CDPKIT_CHROME``,
            then the usual names and places).
        grid: Lease the browser from this Selenium Grid 4 instead of launching.
        headers: HTTP headers ``(name, value)`` for ``connect`` or ``grid``.
        settings: The browser's identity and network settings, ``None`` for Chrome's own.
        lock_timeout: Seconds to wait for a ``profile`` another process uses; ``None``:
            ``timeout``.
    """

    connect: str | None = None
    headful: bool = False
    profile: str | None = None
    chrome_args: tuple[str, ...] = field(default_factory=tuple)
    timeout: float = 30.0
    pipe: bool = False
    viewport: tuple[int, int] | None = None
    chrome: str | None = None
    grid: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    settings: BrowserSettings | None = None
    lock_timeout: float | None = None

    def check(self) -> None:
        """Reject combinations that make no sense.

        Raises:
            CLIError: Launch-only options given with ``--connect``, or a ``timeout`` that
                is not a positive number of seconds (exit status 2).
        """
        if not self.timeout > 0:
            raise CLIError(f"Invalid --timeout {self.timeout:g}: give a positive number of seconds", 2)
        if self.connect is not None and self.grid is not None:
            raise CLIError("--connect and --grid both say where the browser is: give one", 2)
        if self.headers and self.connect is None and self.grid is None:
            raise CLIError(
                "--header only applies with --connect or --grid (it is sent to the endpoint); "
                "--extra-header 'Name: value' sends a header with the page's requests",
                2,
            )
        if self.connect is not None and self.settings is not None and self.settings.storage_state:
            raise CLIError("--storage-state loads a login into a browser cdpkit starts; with "
                           "--connect the running browser keeps its own cookies and storage", 2)
        if self.connect is not None and self.settings is not None and self.settings.proxy:
            raise CLIError("--proxy only applies to a launched or grid browser, not with "
                           "--connect (the running browser keeps its own proxy)", 2)
        if self.grid is not None:
            given = [
                name
                for name, value in (
                    ("--profile", self.profile),
                    ("--chrome", self.chrome),
                    ("--pipe", self.pipe),
                )
                if value
            ]
            if given:
                raise CLIError(f"{', '.join(given)} do not apply with --grid (the grid's node "
                               "starts Chrome)", 2)
        if self.connect is None:
            return
        given = [
            name
            for name, value in (
                ("--headful", self.headful),
                ("--profile", self.profile),
                ("--chrome", self.chrome),
                ("--chrome-arg", self.chrome_args),
                ("--pipe", self.pipe),
                ("--viewport", self.viewport),
            )
            if value
        ]
        if given:
            raise CLIError(f"{', '.join(given)} only apply to a launched browser, not with --connect", 2)


def browser_options(
    connect: str | None = None,
    headful: bool = False,
    profile: str | None = None,
    chrome_arg: list[str] | tuple[str, ...] | None = None,
    timeout: float = 30.0,
    pipe: bool = False,
    *,
    viewport: str | None = None,
    chrome: str | None = None,
    grid: str | None = None,
    header: list[str] | tuple[str, ...] | None = None,
    settings: BrowserSettings | None = None,
) -> BrowserOptions:
    """The :class:`BrowserOptions` the command-line values say, checked (``settings``:
    from :func:`browser_settings`).

    Raises:
        CLIError: A value or a combination that makes no sense, named by its option
            (exit status 2).
    """
    endpoint = connect_endpoint(connect) if connect is not None else None
    options = BrowserOptions(
        endpoint,
        headful,
        profile,
        tuple(chrome_arg or ()),
        timeout,
        pipe,
        parse_viewport(viewport) if viewport is not None else None,
        chrome,
        grid_url(grid) if grid is not None else None,
        tuple(parse_header(value) for value in header or ()),
        settings,
    )
    options.check()
    if chrome is not None and not _is_executable(Path(chrome).expanduser()):
        raise CLIError(f"Invalid --chrome {chrome!r}: no such executable file", 2)
    return options


def parse_header(value: str, option: str = "--header") -> tuple[str, str]:
    """``--header 'Name: value'`` (or ``option``) as ``(name, value)``.

    Raises:
        CLIError: No ``:``, an empty or spaced name, or a line break (exit status 2).
    """
    name, colon, text = value.partition(":")
    name = name.strip()
    if not colon or not name or " " in name or "\n" in value or "\r" in value:
        raise CLIError(f"Invalid {option} {_masked(value)!r}: expected 'Name: value'", 2)
    return name, text.strip()


def browser_settings(
    *,
    user_agent: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    proxy: str | None = None,
    stealth: bool = False,
    extra_header: list[str] | tuple[str, ...] | None = None,
    storage_state: str | None = None,
) -> BrowserSettings | None:
    """The :class:`~cdpkit.BrowserSettings` the identity options say (``None`` when none
    is given), checked.

    ``--proxy scheme://user:password@host:port`` is accepted: the credentials are moved
    out of the URL into the proxy's credentials, and never printed.

    Raises:
        CLIError: A value Chrome would refuse, named by its option (exit status 2).
    """
    headers = dict(parse_header(value, "--extra-header") for value in extra_header or ())
    try:
        proxy_setting = Proxy.from_url(proxy) if proxy is not None else None
    except ValueError as exc:
        raise CLIError(str(exc).replace("Invalid proxy=", "Invalid --proxy "), 2) from None
    given = any(value is not None for value in (user_agent, locale, timezone))
    if storage_state is not None and not Path(storage_state).expanduser().is_file():
        raise CLIError(f"Invalid --storage-state {storage_state!r}: no such file", 2)
    if not (given or headers or proxy_setting or stealth or storage_state):
        return None
    try:
        return BrowserSettings(
            user_agent=user_agent,
            locale=locale,
            timezone=timezone,
            extra_headers=headers,
            proxy=proxy_setting,
            stealth=stealth,
            storage_state=storage_state,
        )
    except ValueError as exc:
        text = str(exc)
        for option in ("user_agent", "locale", "timezone", "extra_headers"):
            text = text.replace(f"Invalid {option}=", f"Invalid --{option.replace('_', '-')} ")
        raise CLIError(text.replace("--extra-headers", "--extra-header"), 2) from None


def _masked(header: str) -> str:
    """A header as it may be shown: its name only (a value is often a secret)."""
    name, colon, _ = header.partition(":")
    return f"{name}: ***" if colon else "***"


def grid_url(value: str) -> str:
    """``--grid`` as a URL: ``host:port`` (or a bare port) gets ``http://``.

    Raises:
        CLIError: Not an http(s) URL with a host (exit status 2).
    """
    text = value.strip()
    if text.isdigit() or (HOST_PORT_RE.match(text) and "://" not in text):
        text = f"http://{'127.0.0.1:' if text.isdigit() else ''}{text}"
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CLIError(f"Invalid --grid {value!r}: expected a Selenium Grid URL such as "
                       "http://grid:4444", 2)
    return text


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


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
    ``http://127.0.0.1:9222``, ``host:port`` is ``http://host:port``; a URL stays as it is;
    ``auto`` finds the person's own running Chrome; ``extension`` drives it through the
    cdpkit extension.

    Raises:
        CLIError: A port out of range (exit status 2).
    """
    text = value.strip()
    if text.lower() in ("auto", "extension"):
        # The person's own running Chrome (its debugging port, or the cdpkit extension).
        return text.lower()
    if text.isdigit():
        text = f"127.0.0.1:{text}"
    if HOST_PORT_RE.match(text) and "://" not in text:
        text = f"http://{text}"
    try:
        port = urllib.parse.urlsplit(text).port
    except ValueError:
        port = 0
    if port == 0:
        raise CLIError(f"Invalid --connect {value!r}: the port is not in 1-65535", 2)
    return text


def has_display(chrome_args: tuple[str, ...]) -> bool:
    """Whether a headful Chrome can show a window here (always on macOS and Windows)."""
    if sys.platform in ("darwin", "win32"):
        return True
    if any(arg.startswith("--ozone-platform=") for arg in chrome_args):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


# Where a running browser can come from before one is launched or attached as the options
# say: handed in from above (the daemon registers itself when a command may use it), so
# this floor never imports what sits over it.
BrowserSource = Callable[["BrowserOptions"], Awaitable["Browser | None"]]
_sources: list[BrowserSource] = []
# Set when the command opens one of the browser's own pages (chrome://...): a source's
# browser (the daemon's, every command in a context of its own) cannot hold one, which
# opens only in a browser's default context; the command starts a browser of its own.
_opens_a_browser_page: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "cdpkit_opens_a_browser_page", default=False
)


def opens_a_browser_page() -> None:
    """The command's page is one of the browser's own: :func:`start_browser` starts or
    attaches to the options' browser, asking no browser source."""
    _opens_a_browser_page.set(True)


def add_browser_source(source: BrowserSource) -> None:
    """Ask ``source`` first for every browser :func:`start_browser` starts from now on: it
    answers a browser for these options, or ``None`` (then the next source, and at last
    the options' own launch or attach). Added once however often it is given."""
    if source not in _sources:
        _sources.append(source)


async def start_browser(options: BrowserOptions) -> Browser:
    """Launch or attach to a browser as ``options`` say (``await browser.close()`` when done),
    unless a browser source (:func:`add_browser_source`: a running daemon) gives one.

    Raises:
        CLIError: ``--headful`` without a display, or ``--connect`` to an endpoint that
            does not answer within ``--timeout``.
    """
    import cdpkit

    for source in [] if _opens_a_browser_page.get() else list(_sources):
        shared = await source(options)
        if shared is not None:
            return shared
    headers = dict(options.headers)
    settings = options.settings
    if options.grid is not None:
        args = list(options.chrome_args)
        if options.viewport is not None:
            args.append(window_size_arg(options.viewport))
        if settings is not None:
            args += settings.launch_args()
        try:
            # --timeout bounds the wait for a free slot too: a full grid is said at once.
            browser = await cdpkit.grid(
                options.grid,
                headers=headers,
                headless=not options.headful,
                args=args,
                session_timeout=options.timeout,
                timeout=options.timeout,
                command_timeout=options.timeout,
            )
            browser.settings = settings  # for the pages opened from now on
            return browser
        except GridCapacityError as exc:
            raise CLIError(
                f"The grid at {options.grid} had no free slot within {options.timeout:g} s "
                "(--timeout SECONDS sets how long to wait)"
            ) from exc
    if options.connect is not None:
        try:
            return await cdpkit.connect(
                options.connect,
                headers=headers,
                timeout=options.timeout,
                command_timeout=options.timeout,
                settings=settings,
            )
        except TimeoutError as exc:  # a silent port; ConnectError or not, it is a timeout
            raise CLIError(
                f"{options.connect} did not answer within {options.timeout:g} s: is it the "
                "DevTools endpoint of a running browser? (--timeout SECONDS sets how long "
                "to wait)"
            ) from exc
    if options.headful and not has_display(options.chrome_args):
        raise CLIError(
            "--headful needs a display to show a window, and neither $DISPLAY nor "
            "$WAYLAND_DISPLAY is set (leave out --headful, or run it on your desktop or "
            "over ssh -X)"
        )
    return await cdpkit.launch(
        headless=not options.headful,
        executable_path=options.chrome,
        profile=options.profile,
        args=options.chrome_args,
        pipe=options.pipe,
        timeout=options.timeout,
        command_timeout=options.timeout,
        lock_timeout=options.timeout if options.lock_timeout is None else options.lock_timeout,
        viewport=options.viewport,
        settings=settings,
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
    in an attached browser (closed when cdpkit detaches). A grid browser with settings
    gets a new tab too: the one it started with predates them."""
    if browser.process is None and browser.settings is not None:
        launched = False
    if launched and browser.pages:
        return browser.pages[0]  # set up by launch() before it returned
    return await browser.new_page()


@contextlib.asynccontextmanager
async def open_page(options: BrowserOptions, *, har: str | None = None) -> AsyncIterator[Page]:
    """A browser as :func:`open_browser` gives, and the page to work on; with ``har``
    (``--har PATH``), what the page loads is recorded into that HAR file, written before
    the browser closes, also when the command fails."""
    async with open_browser(options) as browser:
        page = await first_page(browser, launched=options.connect is None)
        if har is None:
            yield page
            return
        from ..tools.har import record_har

        async with record_har(page, Path(har).expanduser()):
            yield page


# -- reporting failures -----------------------------------------------------------------------


def debug_wanted(debug: bool) -> bool:
    """Whether to print whole tracebacks: ``--debug``, or ``CDPKIT_DEBUG`` set."""
    return debug or os.environ.get("CDPKIT_DEBUG", "") not in ("", "0")


# A hint naming a library setting, e.g. "(launch(lock_timeout=...) sets how long)" or
# "(pass timeout= to send(), or command_timeout= to launch()/connect())".
_LIBRARY_HINT_RE = re.compile(
    r"\s*\((?:[^()]|\([^()]*\))*?\b(?:launch|connect|send)\([^()]*\)(?:[^()]|\([^()]*\))*\)"
)
_TIMEOUT_HINT = "(--timeout SECONDS sets how long)"
# A wait's advice naming a tool's argument, e.g. "; pass a larger timeout= to navigate() if
# the page is just slow" (cdpkit._browser.navigation).
_TOOL_HINT_RE = re.compile(r";\s*pass a larger timeout= to \w+\(\)[^;()]*$")


def _in_cli_words(exc: BaseException) -> str:
    """The message of ``exc`` with the library's settings (``send(timeout=)``,
    ``launch(lock_timeout=)``...) named by the option that sets them here: every time
    limit of a command is its ``--timeout``."""
    if isinstance(exc, CommandTimeoutError):
        return f"{exc.method} got no answer within {exc.timeout:g} s {_TIMEOUT_HINT}"
    text = str(exc)
    if isinstance(exc, TimeoutError | LaunchError):
        text, hints = _LIBRARY_HINT_RE.subn(" " + _TIMEOUT_HINT, text)
        if not hints:
            text, hints = _TOOL_HINT_RE.subn(" " + _TIMEOUT_HINT, text)
        if not hints and isinstance(exc, TimeoutError):
            text = f"{text or 'Timed out'} {_TIMEOUT_HINT}"
    return text


def error_line(exc: BaseException) -> str:
    """``exc`` as one line the command line prints: in the CLI's own words (its options,
    not the library's arguments), the exception's type only where the message needs it."""
    text = " ".join(part.strip() for part in _in_cli_words(exc).splitlines() if part.strip())
    text = mask(text)  # a proxy password never reaches the terminal or the agent
    if not isinstance(exc, CDPError | CLIError | ValueError | OSError | TimeoutError):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    elif not text:
        text = type(exc).__name__
    return text if len(text) <= 2000 else text[:2000] + "..."


def report_error(exc: BaseException, *, debug: bool) -> None:
    """Print ``exc`` the way the command line reports failures: one line on stderr, or the
    whole traceback with ``debug``."""
    if debug_wanted(debug):
        print(mask("".join(traceback.format_exception(exc))), end="", file=sys.stderr)
    else:
        print(f"error: {error_line(exc)}", file=sys.stderr)
