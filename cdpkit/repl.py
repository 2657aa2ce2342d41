"""``cdpkit repl``: a Python console with top-level ``await`` on a live page.

Preloaded: ``cdpkit``, ``cdp`` (the bindings), ``tools``, ``browser``, ``page`` (the
current page) and ``asyncio``. Besides Python, the console takes

* raw protocol lines, sent to the current page, the JSON result pretty-printed::

      Page.navigate url=https://example.com
      Runtime.evaluate expression="1 + 2" returnByValue=true
      Emulation.setDeviceMetricsOverride {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": true}

  Values are read as JSON when they parse as JSON (``true``, ``12``, ``"a b"``,
  ``{"x": 1}``), else as strings (``https://example.com``); ``'...'`` quotes a string;

* commands: ``:help``, ``:goto URL``, ``:events Network`` / ``:events off``, ``:tabs``,
  ``:tab N``, ``:snapshot``, ``:doc Page.navigate``, ``:quit``.

The first page, ``:goto URL`` and ``:tab new URL`` wait for the page's content to settle
(:func:`cdpkit.tools.wait_for_content`), or as ``--wait MS`` says.

How it runs: the event loop (the browser connection, event printers and whatever you
type) runs in a background thread, and the console reads input in the main thread, so
Ctrl-C always reaches the console: at the prompt it clears the line, during a command it
cancels that command (a second Ctrl-C interrupts code that ignores the cancellation).
Tab completion covers Python names, ``cdp.<domain>.<command>``, ``Domain.method`` and
its parameters; history is kept in ``$XDG_STATE_HOME/cdpkit/repl_history`` (or the
platform's equivalent). With stdin not a terminal, lines are read as a script: no
prompts, and the exit status is 1 if any line failed.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import code
import concurrent.futures
import contextlib
import ctypes
import difflib
import inspect
import json
import os
import re
import rlcompleter
import signal
import sys
import threading
import traceback
import types
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import platformdirs

from ._cli_common import TERMINATING_SIGNALS
from .errors import CDPError, ProtocolError

if TYPE_CHECKING:
    from ._cli_common import BrowserOptions
    from .browser import Browser
    from .page import Page

__all__ = ["ReplConsole", "history_path", "parse_raw_line", "run"]

T = TypeVar("T")

PS1 = ">>> "
PS2 = "... "

_RAW_LINE = re.compile(
    r"^(?P<domain>[A-Z][A-Za-z0-9]*)\.(?P<method>[a-z][A-Za-z0-9]*)(?:\s+(?P<rest>.*))?$", re.S
)
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")

HELP = """\
Python with top-level await: `await tools.navigate(page, "https://example.com")`.
Preloaded: cdpkit, cdp (typed bindings), tools, browser, page (the current page), asyncio.

Raw protocol lines go to the current page and print the JSON result (also left in `_`):
  Page.navigate url=https://example.com
  Runtime.evaluate expression="document.title" returnByValue=true
  Page.captureScreenshot {"format": "jpeg", "quality": 50}
Values are JSON when they parse as JSON (true, 12, "a b", {"x": 1}), else strings.

Commands:
  :help                 this text
  :goto URL             load URL in the current page and wait for its content
  :events DOMAIN...     print the events of these domains as they arrive (enables them)
  :events off           stop printing events
  :tabs                 list the tabs; * marks the current page
  :tab N                make tab N the current page (:tab new [URL] opens one)
  :snapshot [-i]        the current page's accessibility snapshot (-i: controls only)
  :doc NAME             docs of a domain, command, event or type (Page.navigate)
  :quit                 leave (also Ctrl-D); a launched browser is closed

Tab completes Python names, cdp.<domain>.<command>, Domain.method and its parameters.
Ctrl-C cancels the running command.
"""


def history_path() -> Path:
    """Where the REPL keeps its history: ``$CDPKIT_HISTORY`` if set, else ``repl_history``
    in the platform's per-user state dir for cdpkit: ``$XDG_STATE_HOME/cdpkit``
    (``~/.local/state/cdpkit`` by default) on Linux, ``~/Library/Application
    Support/cdpkit`` on macOS, ``%LOCALAPPDATA%\\cdpkit`` on Windows."""
    configured = os.environ.get("CDPKIT_HISTORY")
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_state_path("cdpkit", appauthor=False) / "repl_history"


# -- raw protocol lines ----------------------------------------------------------------------


def _parse_value(text: str, pos: int) -> tuple[Any, int]:
    if pos >= len(text) or text[pos].isspace():
        return "", pos
    char = text[pos]
    if char in "{[\"":
        try:
            value, end = json.JSONDecoder().raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ValueError(f"Invalid JSON value at {text[pos:pos + 30]!r}: {exc.msg}") from None
        if end < len(text) and not text[end].isspace():
            raise ValueError(f"Unexpected text after a JSON value: {text[end:end + 30]!r}")
        return value, end
    if char == "'":
        end = text.find("'", pos + 1)
        if end < 0:
            raise ValueError(f"Unterminated quote: {text[pos:pos + 30]!r}")
        return text[pos + 1 : end], end + 1
    end = pos
    while end < len(text) and not text[end].isspace():
        end += 1
    token = text[pos:end]
    try:
        return json.loads(token), end
    except ValueError:
        return token, end


def parse_params(text: str) -> dict[str, Any]:
    """Parameters of a raw line: ``{json}`` or ``key=value ...``.

    Raises:
        ValueError: Malformed, with what is wrong and where.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            params = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"Invalid JSON params: {exc}") from None
        if not isinstance(params, dict):
            raise ValueError("JSON params must be an object")
        return params
    params = {}
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return params
        match = _KEY.match(text, pos)
        if match is None:
            raise ValueError(f"Expected key=value, got {text[pos:pos + 30]!r}")
        value, pos = _parse_value(text, match.end())
        params[match.group(1)] = value


def parse_raw_line(line: str, namespace: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``("Domain.method", params)`` if ``line`` is a raw protocol line, else ``None``.

    A line is raw when it starts with ``Domain.method`` and ``Domain`` is not a name of
    the console or a builtin (so ``Path.home()`` stays Python).

    Raises:
        ValueError: It is a raw line with malformed parameters.
    """
    match = _RAW_LINE.match(line.strip())
    if match is None:
        return None
    domain = match.group("domain")
    if domain in namespace or hasattr(builtins, domain):
        return None
    rest = match.group("rest") or ""
    if rest.lstrip().startswith(("(", "[", ".", "=")):
        return None  # Python: `Foo.bar (x)`, `Foo.bar = 1`
    return f"{domain}.{match.group('method')}", parse_params(rest)


def _shorten(value: Any, limit: int) -> Any:
    """``value`` with strings longer than ``limit`` cut, for display."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}... ({len(value)} characters; the whole value is in _)"
    if isinstance(value, dict):
        return {key: _shorten(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [_shorten(item, limit) for item in value]
    return value


# -- the event loop thread -------------------------------------------------------------------


class _Interrupted(Exception):
    """The command was interrupted by Ctrl-C (KeyboardInterrupt raised inside it)."""


class _LoopThread(threading.Thread):
    """Runs the event loop; restarted if a forced interrupt escapes a callback."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name="cdpkit-repl-loop", daemon=True)
        self.loop = loop

    def run(self) -> None:
        # Signals go to the main thread, whose blocking reads they must interrupt (a signal
        # a thread blocks goes to another one). Chrome resets the mask it inherits.
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *TERMINATING_SIGNALS})
        asyncio.set_event_loop(self.loop)
        while True:
            try:
                self.loop.run_forever()
            except (KeyboardInterrupt, SystemExit):
                continue  # raised into a task by a second Ctrl-C: the task got it
            else:
                return

    def interrupt(self) -> None:
        """Raise KeyboardInterrupt in the loop thread: for code stuck without awaiting."""
        if self.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.ident), ctypes.py_object(KeyboardInterrupt)
            )


class _Runner:
    """Runs coroutines on the loop thread and waits for them in the main thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = _LoopThread(self.loop)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` as a task and return its result.

        Ctrl-C cancels the task. A second Ctrl-C, if the loop thread is stuck in code that
        never awaits (``while True: pass``), raises KeyboardInterrupt inside that code; if
        the loop is not stuck (the task is finishing its cancellation), it stops waiting.

        Raises:
            KeyboardInterrupt: The task was cancelled or interrupted by Ctrl-C.
            asyncio.CancelledError: The task was cancelled by something else.
            Exception: Whatever the task raised.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        tasks: list[asyncio.Task[T]] = []

        def done(task: asyncio.Task[T]) -> None:
            if task.cancelled():
                future.cancel()
                return
            error = task.exception()
            if isinstance(error, KeyboardInterrupt):
                future.set_exception(_Interrupted())
            elif error is not None:
                future.set_exception(error)
            else:
                future.set_result(task.result())

        def start() -> None:
            task = self.loop.create_task(coroutine)
            tasks.append(task)
            task.add_done_callback(done)

        def cancel() -> None:
            if tasks:
                tasks[0].cancel()

        self.loop.call_soon_threadsafe(start)
        interrupts = 0
        while True:
            try:
                return future.result()
            except concurrent.futures.CancelledError:
                if interrupts:
                    raise KeyboardInterrupt from None
                raise asyncio.CancelledError() from None
            except _Interrupted:
                raise KeyboardInterrupt from None
            except KeyboardInterrupt:
                if future.done():
                    continue  # the result arrived as we were interrupted
                interrupts += 1
                if interrupts == 1:
                    self.loop.call_soon_threadsafe(cancel)
                elif self._responsive():
                    raise  # it is finishing its cancellation: stop waiting for it
                else:
                    self.thread.interrupt()

    def _responsive(self) -> bool:
        """Whether the loop runs callbacks (it is not stuck in code that never awaits)."""
        ran = threading.Event()
        self.loop.call_soon_threadsafe(ran.set)
        return ran.wait(0.25)

    def stop(self) -> None:
        """Cancel what still runs, stop the loop and wait for its thread."""

        async def cancel_all() -> None:
            current = asyncio.current_task()
            pending = [t for t in asyncio.all_tasks() if t is not current]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=2)
            await self.loop.shutdown_asyncgens()

        with contextlib.suppress(Exception, KeyboardInterrupt):
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()


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
        runner: _Runner,
        browser: Browser,
        page: Page,
        *,
        interactive: bool,
        launched: bool,
        wait_ms: int | None = None,
        timeout: float = 30.0,
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
        self.failed = False
        self.closing = False
        self._output = threading.Lock()
        self._prompt: str | None = None  # the prompt on screen, while waiting for input
        self._event_tasks: dict[str, asyncio.Task[None]] = {}

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
                from .cdp import _registry

                close = difflib.get_close_matches(method, list(_registry.COMMANDS), n=3, cutoff=0.7)
                if close:
                    hint = f" (did you mean {' or '.join(close)}?)"
            self.error(f"ProtocolError: {exc}{hint}")
            return
        except CDPError as exc:
            self.error(f"{type(exc).__name__}: {exc}")
            return
        builtins._ = result  # type: ignore[attr-defined]
        shown = _shorten(result, 2000) if self.interactive else result
        print(json.dumps(shown, indent=2, ensure_ascii=False))

    # -- :commands -----------------------------------------------------------------------------

    def meta(self, line: str) -> bool:
        """Run a ``:command``; ``False`` means quit."""
        name, _, rest = line[1:].strip().partition(" ")
        args = rest.split()
        if name in ("q", "quit", "exit"):
            return False
        handlers: dict[str, Callable[[list[str]], None]] = {
            "help": lambda _: print(HELP, end=""),
            "h": lambda _: print(HELP, end=""),
            "goto": self._goto_command,
            "events": self._events_command,
            "tabs": lambda _: self._tabs_command(),
            "tab": self._tab_command,
            "snapshot": self._snapshot_command,
            "doc": self._doc_command,
        }
        handler = handlers.get(name)
        if handler is None:
            self.error(f"Unknown command :{name} (:help lists them)")
            return True
        try:
            handler(args)
        except KeyboardInterrupt:
            self.error("KeyboardInterrupt (the command was cancelled)")
        except (CDPError, ValueError, LookupError) as exc:
            self.error(f"error: {exc}")
        return True

    def _doc_command(self, args: list[str]) -> None:
        from ._cli_common import CLIError
        from ._protocol_docs import describe_protocol

        try:
            print(describe_protocol(args[0] if args else None))
        except CLIError as exc:
            self.error(f"error: {exc}")

    def _goto_command(self, args: list[str]) -> None:
        from ._cli_common import CLIError, normalize_url, settle
        from .tools import navigate

        if len(args) != 1:
            raise ValueError(":goto URL")
        try:
            url = normalize_url(args[0])
        except CLIError as exc:
            raise ValueError(str(exc)) from None
        page = self.page

        async def go() -> Any:
            result = await navigate(page, url, timeout=self.timeout)
            await settle(page, self.wait_ms, self.timeout)
            return result

        result = self.runner.run(go())
        status = f"HTTP {result.status}" if result.status is not None else "no HTTP status"
        print(f"{result.url} ({status}): {result.title or '(no title)'}")

    def _snapshot_command(self, args: list[str]) -> None:
        from .tools import snapshot

        interactive_only = "-i" in args or "interactive" in args
        result = self.runner.run(snapshot(self.page, interactive_only=interactive_only))
        print(result.text or "(nothing)")

    def _tabs_command(self) -> None:
        from .tools import list_tabs

        tabs = self.runner.run(list_tabs(self.browser))
        current = getattr(self.page, "target_id", None)
        pages = self.browser.pages
        for index, page in enumerate(pages):
            tab = next((t for t in tabs if t.id == page.target_id), None)
            title = tab.title if tab is not None else page.title
            url = tab.url if tab is not None else page.url
            mark = "*" if page.target_id == current else " "
            print(f"{mark} {index}  {title or '(no title)'}  {url}")

    def _tab_command(self, args: list[str]) -> None:
        from .tools import new_tab, switch_tab

        if not args:
            raise ValueError(":tab N (the number from :tabs), or :tab new [URL]")
        if args[0] == "new":
            from ._cli_common import CLIError, normalize_url, settle

            url = None
            if len(args) > 1:
                try:
                    url = normalize_url(args[1])
                except CLIError as exc:
                    raise ValueError(str(exc)) from None
            page = self.runner.run(new_tab(self.browser, url))
            if url is not None:
                self.runner.run(settle(page, self.wait_ms, self.timeout))
        else:
            pages = self.browser.pages
            try:
                index = int(args[0])
                page = pages[index]
            except (ValueError, IndexError):
                raise ValueError(f"No tab {args[0]!r}: :tabs lists {len(pages)} tab(s), 0 to {len(pages) - 1}") from None
            page = self.runner.run(switch_tab(self.browser, page.target_id))
        self.locals["page"] = page
        if self._event_tasks:
            domains = list(self._event_tasks)
            self.runner.run(self._stop_events())
            self.runner.run(self._start_events(page, domains))
        print(f"page is now tab {self.browser.pages.index(page)}: {page.url}")

    def _events_command(self, args: list[str]) -> None:
        from .cdp import _registry

        if not args:
            active = ", ".join(self._event_tasks) or "none"
            print(f"Printing events of: {active} (:events DOMAIN... to add, :events off to stop)")
            return
        if args == ["off"]:
            stopped = ", ".join(self._event_tasks) or "none"
            self.runner.run(self._stop_events())
            print(f"Stopped printing events ({stopped})")
            return
        domains = []
        for arg in args:
            if arg == "*":
                domains.append("*")
                continue
            known = next((d for d in _registry.DOMAINS if d.lower() == arg.lower()), None)
            if known is None:
                close = difflib.get_close_matches(arg, list(_registry.DOMAINS), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise ValueError(f"Unknown domain {arg!r}{hint}")
            domains.append(known)
        page = self.page
        self.runner.run(self._start_events(page, domains))
        print(f"Printing events of: {', '.join(self._event_tasks)}")

    async def _start_events(self, page: Page, domains: list[str]) -> None:
        for domain in domains:
            if domain in self._event_tasks:
                continue
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(self._print_events(page, domain, ready))
            self._event_tasks[domain] = task
            try:
                await ready
            except BaseException:
                self._event_tasks.pop(domain, None)
                task.cancel()
                raise

    async def _stop_events(self) -> None:
        tasks = list(self._event_tasks.values())
        self._event_tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _print_events(self, page: Page, domain: str, ready: asyncio.Future[None]) -> None:
        from .cdp import _registry

        spec = "*" if domain == "*" else f"{domain}.*"
        try:
            async with contextlib.AsyncExitStack() as stack:
                events = await stack.enter_async_context(page.listen(spec, raw=True))
                if f"{domain}.enable" in _registry.COMMANDS:  # enabled() keeps page setup on
                    try:
                        await stack.enter_async_context(page.enabled(domain))
                    except ProtocolError as exc:
                        self.emit(f"(could not enable {domain}: {exc.message}; printing its events anyway)")
                if not ready.done():
                    ready.set_result(None)
                width = 160 if self.interactive else None
                async for event in events:
                    method, params = event.method, event.params
                    text = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
                    if width is not None and len(text) > width:
                        text = text[:width] + "..."
                    self.emit(f"[{method}] {text}")
        except CDPError as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not self.closing:
                self.emit(f"(stopped printing {domain} events: {exc})")

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
            return self.meta(stripped)
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


# -- completion ---------------------------------------------------------------------------------


class Completer:
    """Readline completion: ``:commands``, ``Domain.method`` and its parameters, and
    Python names (``cdp.page.nav`` -> ``cdp.page.navigate(``)."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.python = rlcompleter.Completer(namespace)
        self.matches: list[str] = []

    def __call__(self, text: str, state: int) -> str | None:
        if state == 0:
            try:
                import readline

                line = readline.get_line_buffer()
                begin = readline.get_begidx()
            except Exception:
                line, begin = text, 0
            try:
                self.matches = self.complete(text, line, begin)
            except Exception:
                self.matches = []
        return self.matches[state] if state < len(self.matches) else None

    def complete(self, text: str, line: str, begin: int) -> list[str]:
        """Every completion of ``text``, which starts at ``begin`` in ``line``."""
        from .cdp import _registry

        head = line[:begin]
        stripped = line.lstrip()
        if stripped.startswith(":"):
            if ":" not in head.strip() or head.strip() == ":":
                names = ["help", "events", "tabs", "tab", "snapshot", "doc", "quit"]
                return [f"{n} " for n in names if n.startswith(text)]
            command = stripped[1:].split(" ", 1)[0]
            if command == "events":
                return [f"{d} " for d in [*_registry.DOMAINS, "off"] if d.startswith(text)]
            if command == "doc":
                names = [*_registry.DOMAINS, *_registry.COMMANDS, *_registry.EVENTS]
                return [n for n in names if n.startswith(text)]
            return []
        if not head.strip():
            matches = []
            if re.fullmatch(r"[A-Z][A-Za-z0-9]*(\.[A-Za-z0-9]*)?", text):
                if "." in text:
                    matches = [f"{m} " for m in _registry.COMMANDS if m.startswith(text)]
                else:
                    matches = [f"{d}." for d in _registry.DOMAINS if d.startswith(text)]
            return matches + self._python(text)
        first = head.split(None, 1)[0]
        if first in _registry.COMMANDS and first.partition(".")[0] not in self.namespace:
            from ._protocol_docs import command_params

            return [f"{p}=" for p in command_params(first) if p.startswith(text)]
        return self._python(text)

    def _python(self, text: str) -> list[str]:
        matches: list[str] = []
        if not text:
            return matches
        state = 0
        while True:
            match = self.python.complete(text, state)
            if match is None:
                return matches
            if match not in matches:
                matches.append(match)
            state += 1


def _setup_readline(namespace: dict[str, Any]) -> Callable[[], None]:
    """Turn on completion and history; returns what saves the history."""
    try:
        import readline
    except ImportError:  # pragma: no cover - e.g. Windows without pyreadline
        return lambda: None
    readline.set_completer(Completer(namespace))
    readline.set_completer_delims(" \t\n`~!@#$%^&*()-=+[{]}\\|;:'\",<>/?")
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    path = history_path()
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    readline.set_history_length(2000)
    start = readline.get_current_history_length()

    def save() -> None:
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                readline.append_history_file(readline.get_current_history_length() - start, path)
            else:
                readline.write_history_file(path)

    return save


# -- entry point -------------------------------------------------------------------------------


async def _start(
    options: BrowserOptions, url: str | None, wait_ms: int | None
) -> tuple[Browser, Page, Exception | None]:
    from ._cli_common import first_page, settle, start_browser
    from .tools import navigate

    launched = options.connect is None
    browser = await start_browser(options)
    try:
        page = await first_page(browser, launched=launched)
        failure: Exception | None = None
        if url is not None:
            try:
                await navigate(page, url, timeout=options.timeout)
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
    options: BrowserOptions, url: str | None, *, wait_ms: int | None = None, debug: bool = False
) -> int:
    """Start the browser and the console (on ``url``, waited on as ``wait_ms`` says, see
    :func:`cdpkit._cli_common.settle`), run until the user leaves, clean up.

    Returns:
        The exit status: 0, or 1 if the browser could not start or (when stdin is not a
        terminal) any line failed; 130 if interrupted while starting.
    """
    from ._cli_common import error_line, report_error

    interactive = sys.stdin.isatty()
    runner = _Runner()
    browser: Browser | None = None
    previous = {
        signum: signal.signal(signum, _terminate)
        for signum in TERMINATING_SIGNALS
    }
    try:
        try:
            browser, page, failure = runner.run(_start(options, url, wait_ms))
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
        )
        if failure is not None:
            console.error(f"error: {error_line(failure)}")
        save_history = _setup_readline(console.locals) if interactive else (lambda: None)
        watcher = asyncio.run_coroutine_threadsafe(_watch_connection(console), runner.loop)
        try:
            console.interact(_banner(browser, page, options.connect is None, options))
        finally:
            console.closing = True
            watcher.cancel()
            save_history()
            with contextlib.suppress(Exception, KeyboardInterrupt):
                runner.run(console._stop_events())
        return 1 if console.failed and not interactive else 0
    finally:
        if browser is not None:
            _close(runner, browser)
        runner.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _close(runner: _Runner, browser: Browser) -> None:
    """Close (launched) or detach from (attached) the browser; a Ctrl-C while it closes
    leaves the rest to cdpkit's exit handler, which kills a launched browser's processes."""
    future = asyncio.run_coroutine_threadsafe(browser.close(), runner.loop)
    with contextlib.suppress(Exception, KeyboardInterrupt):
        future.result(timeout=15)
