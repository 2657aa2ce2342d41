"""The console and the entry point of ``cdpkit repl`` (:mod:`cdpkit.repl` says what it does)."""

from __future__ import annotations

import ast
import asyncio
import builtins
import code
import contextlib
import difflib
import inspect
import json
import signal
import sys
import threading
import traceback
import types
from typing import TYPE_CHECKING, Any

from .._front.cli_common import TERMINATING_SIGNALS
from ..errors import CDPError, ProtocolError
from ._commands import MetaCommands
from ._complete import setup_readline
from ._lines import parse_raw_line, shorten
from ._runner import Runner

if TYPE_CHECKING:
    from .._front.browser_options import BrowserOptions
    from ..browser import Browser
    from ..page import Page

__all__ = ["ReplConsole", "run"]

PS1 = ">>> "
PS2 = "... "


# -- the console ---------------------------------------------------------------------------


class _Quit(Exception):
    """``exit()`` or ``quit()`` was called in the console."""


class ReplConsole(code.InteractiveConsole):
    """The console: Python lines run on the loop thread, raw lines and ``:commands``.

    Args:
        runner: Runs coroutines on the event loop thread.
        browser: The browser (``browser`` in the console).
        page: The first current page (``page`` in the console).
        interactive: Whether a person is typing (prompts, completion, history).
        launched: Whether cdpkit launched the browser (closed on exit) or attached.
        wait_ms: How ``:goto`` and ``:tab new`` wait after loading, as ``--wait`` says
            (``None``: until the content settles).
        timeout: Seconds for ``:goto`` and ``:tab new`` to load (``--timeout``).
    """

    def __init__(
        self,
        runner: Runner,
        browser: Browser,
        page: Page,
        *,
        interactive: bool,
        launched: bool,
        wait_ms: int | None = None,
        timeout: float = 30.0,
        script_timeout: float | None = None,
    ) -> None:
        import cdpkit
        from cdpkit import cdp, tools

        namespace: dict[str, Any] = {
            "__name__": "__console__",
            "__doc__": None,
            "asyncio": asyncio,
            "cdpkit": cdpkit,
            "cdp": cdp,
            "tools": tools,
            "browser": browser,
            "page": page,
        }
        super().__init__(namespace, filename="<cdpkit>")
        self.compile.compiler.flags |= ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        self.runner = runner
        self.browser = browser
        self.interactive = interactive
        self.launched = launched
        self.wait_ms = wait_ms
        self.timeout = timeout
        self.script_timeout = script_timeout
        self.failed = False
        self.closing = False
        self._output = threading.Lock()
        self._prompt: str | None = None  # the prompt on screen, while waiting for input
        self.commands = MetaCommands(self)

    # -- output -----------------------------------------------------------------------------

    @property
    def page(self) -> Page:
        """The current page: whatever ``page`` is in the console."""
        return self.locals["page"]  # type: ignore[no-any-return]

    def write(self, data: str) -> None:
        """Errors and tracebacks: to stderr."""
        sys.stderr.write(data)
        sys.stderr.flush()

    def error(self, message: str) -> None:
        """Report a failed line (and remember it for the exit status)."""
        self.failed = True
        self.write(message if message.endswith("\n") else message + "\n")

    def emit(self, text: str) -> None:
        """Print a line from the loop thread (events, notices) without garbling the prompt."""
        with self._output:
            prompt = self._prompt
            if self.interactive and prompt is not None:
                buffer = ""
                with contextlib.suppress(Exception):
                    import readline

                    buffer = readline.get_line_buffer()
                sys.stdout.write(f"\r\x1b[K{text}\n{prompt}{buffer}")
            else:
                sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def showtraceback(self) -> None:
        """Print the current exception's traceback from the first frame of console code."""
        error_type, error, tb = sys.exc_info()
        if error_type is None or error is None:
            return
        sys.last_type, sys.last_value, sys.last_traceback = error_type, error, tb
        start = tb
        while start is not None and start.tb_frame.f_code.co_filename != self.filename:
            start = start.tb_next
        lines = traceback.format_exception(error_type, error, start)
        self.error("".join(lines))

    def showsyntaxerror(self, filename: str | None = None, **kwargs: Any) -> None:
        self.failed = True
        super().showsyntaxerror(filename)

    # -- running code --------------------------------------------------------------------------

    def runcode(self, code: types.CodeType) -> None:
        """Run compiled console input on the loop thread, awaiting it if it awaits."""
        function = types.FunctionType(code, self.locals)

        async def execute() -> None:
            try:
                result = function()
                if inspect.iscoroutine(result):
                    await result
            except SystemExit:
                raise _Quit() from None

        try:
            self.runner.run(execute())
        except _Quit:
            raise
        except KeyboardInterrupt:
            self.error("KeyboardInterrupt (the command was cancelled)")
        except BaseException:
            self.showtraceback()
        finally:
            sys.stdout.flush()

    def run_raw(self, method: str, params: dict[str, Any]) -> None:
        """Send a raw protocol command to the current page and print the JSON result."""
        page = self.page
        call = getattr(page, "call", None)
        if call is None:
            self.error(f"error: `page` is {page!r}, not a page: use :tab N")
            return
        try:
            result = self.runner.run(call(method, params))
        except KeyboardInterrupt:
            self.error("KeyboardInterrupt (the command was cancelled)")
            return
        except ProtocolError as exc:
            hint = ""
            if exc.code == -32601:
                from .._front.protocol_docs import registry as _registry

                close = difflib.get_close_matches(method, list(_registry.COMMANDS), n=3, cutoff=0.7)
                if close:
                    hint = f" (did you mean {' or '.join(close)}?)"
            self.error(f"ProtocolError: {exc}{hint}")
            return
        except CDPError as exc:
            self.error(f"{type(exc).__name__}: {exc}")
            return
        builtins._ = result  # type: ignore[attr-defined]
        shown = shorten(result, 2000) if self.interactive else result
        print(json.dumps(shown, indent=2, ensure_ascii=False))

    # -- the loop --------------------------------------------------------------------------

    def raw_input(self, prompt: str = "") -> str:
        if not self.interactive:
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        with self._output:
            self._prompt = prompt
        try:
            return input(prompt)
        finally:
            with self._output:
                self._prompt = None

    def handle(self, line: str) -> bool:
        """Run one complete line that is not a continuation; ``False`` means quit."""
        stripped = line.strip()
        if stripped.startswith(":"):
            return self.commands.run(stripped)
        try:
            raw = parse_raw_line(stripped, self.locals)
        except ValueError as exc:
            self.error(f"error: {exc}")
            return True
        if raw is not None:
            self.run_raw(*raw)
            return True
        self.push(line)
        return True

    def interact(self, banner: str | None = None, exitmsg: str | None = None) -> None:
        """Read and run lines until Ctrl-D, ``:quit`` or ``exit()``."""
        if banner and self.interactive:
            print(banner)
        more = False
        while True:
            try:
                line = self.raw_input(PS2 if more else PS1)
            except EOFError:
                if more:
                    with contextlib.suppress(_Quit):
                        self.push("")
                if self.interactive:
                    print()
                break
            except KeyboardInterrupt:
                print("\nKeyboardInterrupt")
                self.resetbuffer()
                more = False
                continue
            try:
                if more:
                    more = self.push(line)
                elif not self.handle(line):
                    break
                else:
                    more = bool(self.buffer)
            except _Quit:
                break
            sys.stdout.flush()


# -- entry point -------------------------------------------------------------------------------


async def _start(
    options: BrowserOptions, url: str | None, wait_ms: int | None, script_timeout: float | None
) -> tuple[Browser, Page, Exception | None]:
    from .._front.browser_options import first_page, start_browser
    from .._front.cli_common import settle
    from ..tools import navigate

    launched = options.connect is None
    browser = await start_browser(options)
    try:
        page = await first_page(browser, launched=launched)
        failure: Exception | None = None
        if url is not None:
            try:
                await navigate(page, url, timeout=options.timeout, script_timeout=script_timeout)
                await settle(page, wait_ms, options.timeout)
            except CDPError as exc:
                failure = exc
        return browser, page, failure
    except BaseException:
        await browser.close()
        raise


async def _watch_connection(console: ReplConsole) -> None:
    """Tell the user when the browser goes away under the console."""
    with contextlib.suppress(asyncio.CancelledError):
        try:
            async with console.browser.listen("Inspector.detached") as events:
                async for _ in events:
                    pass
        except CDPError as exc:
            if not console.closing:
                console.emit(f"(the browser is gone: {exc}; :quit to leave)")


def _banner(browser: Browser, page: Page, launched: bool, options: BrowserOptions) -> str:
    import cdpkit

    how = "launched" if launched else f"attached to {options.connect}"
    mode = "" if not launched else (", headful" if options.headful else ", headless")
    return (
        f"cdpkit {cdpkit.__version__} REPL on {browser.version.product} ({how}{mode})\n"
        f"page: {page.url}\n"
        "Preloaded: cdpkit, cdp, tools, browser, page, asyncio. Top-level await works.\n"
        "Raw CDP: Page.navigate url=https://example.com    :help for more, Ctrl-D to quit"
    )


def run(
    options: BrowserOptions,
    url: str | None,
    *,
    wait_ms: int | None = None,
    script_timeout: float | None = None,
    debug: bool = False,
) -> int:
    """Start the browser and the console (on ``url``, waited on as ``wait_ms`` says, see
    :func:`cdpkit._front.cli_common.settle`; ``script_timeout`` for the pages ``:goto`` and
    ``:tab new`` load too), run until the user leaves, clean up.

    Returns:
        The exit status: 0, or 1 if the browser could not start or (when stdin is not a
        terminal) any line failed; 130 if interrupted while starting.
    """
    from .._front.browser_options import error_line, report_error

    interactive = sys.stdin.isatty()
    runner = Runner()
    browser: Browser | None = None
    previous = {
        signum: signal.signal(signum, _terminate)
        for signum in TERMINATING_SIGNALS
    }
    try:
        try:
            browser, page, failure = runner.run(_start(options, url, wait_ms, script_timeout))
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:
            report_error(exc, debug=debug)
            return 1
        console = ReplConsole(
            runner,
            browser,
            page,
            interactive=interactive,
            launched=options.connect is None,
            wait_ms=wait_ms,
            timeout=options.timeout,
            script_timeout=script_timeout,
        )
        if failure is not None:
            console.error(f"error: {error_line(failure)}")
        save_history = setup_readline(console.locals) if interactive else (lambda: None)
        watcher = asyncio.run_coroutine_threadsafe(_watch_connection(console), runner.loop)
        try:
            console.interact(_banner(browser, page, options.connect is None, options))
        finally:
            console.closing = True
            watcher.cancel()
            save_history()
            with contextlib.suppress(Exception, KeyboardInterrupt):
                runner.run(console.commands.stop_events())
            with contextlib.suppress(Exception, KeyboardInterrupt):
                console.commands.stop_recording()
        return 1 if console.failed and not interactive else 0
    finally:
        if browser is not None:
            _close(runner, browser)
        runner.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _close(runner: Runner, browser: Browser) -> None:
    """Close (launched) or detach from (attached) the browser; a Ctrl-C while it closes
    leaves the rest to cdpkit's exit handler, which kills a launched browser's processes."""
    future = asyncio.run_coroutine_threadsafe(browser.close(), runner.loop)
    with contextlib.suppress(Exception, KeyboardInterrupt):
        future.result(timeout=15)
