"""The ``:commands`` of ``cdpkit repl`` (``:goto``, ``:events``, ``:tabs``, ``:tab``,
``:snapshot``, ``:click``, ``:hover``, ``:type``, ``:select``, ``:state``, ``:locator``,
``:doc``, ``:help``, ``:quit``), run for the console on its event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import CDPError, ProtocolError

if TYPE_CHECKING:
    from ..page import Page
    from ..tools import Recording
    from ._console import ReplConsole

__all__ = ["HELP", "MetaCommands"]

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
  :click TARGET         click an element; TARGET is key=value words, e.g.
                          role=button name="Join"   label=Email   text="Sign in"
                          exact=false (a part of the name, any case)   index=4
                          selector="#go"   x=10 y=20   timeout=2 (s, for a locator)
  :hover TARGET         move the mouse over an element
  :type TEXT [TARGET]   type TEXT into the element (default: the focused one)
  :select VALUE... TARGET  choose options of a <select>
  :state TARGET         an element's state (visible, enabled, checked...)
  :locator index=N      the locator that finds that element again (or selector=CSS)
  :record FILE          record what you do with tools as a script replaying it (python FILE)
  :record stop          stop recording (:record alone says where it records)
  :doc NAME             docs of a domain, command, event or type (Page.navigate)
  :quit                 leave (also Ctrl-D); a launched browser is closed

Tab completes Python names, cdp.<domain>.<command>, Domain.method and its parameters.
Ctrl-C cancels the running command.
"""


class MetaCommands:
    """The ``:commands`` of one console, and the event printers ``:events`` started.

    Attributes:
        console: The console they run for (its runner, browser, current page, output).
        event_tasks: Domain (or ``*``) -> the task printing its events.
    """

    def __init__(self, console: ReplConsole) -> None:
        self.console = console
        self.event_tasks: dict[str, asyncio.Task[None]] = {}
        self.recording: Recording | None = None

    def run(self, line: str) -> bool:
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
            "record": self._record_command,
        }
        element_commands: dict[str, Callable[[str], None]] = {
            "click": self._click_command,
            "hover": self._hover_command,
            "type": self._type_command,
            "select": self._select_command,
            "state": self._state_command,
            "locator": self._locator_command,
        }
        element_handler = element_commands.get(name)
        if element_handler is not None:
            try:
                element_handler(rest)
            except KeyboardInterrupt:
                self.console.error("KeyboardInterrupt (the command was cancelled)")
            except (CDPError, ValueError, LookupError, TypeError) as exc:
                self.console.error(f"error: {exc}")
            return True
        handler = handlers.get(name)
        if handler is None:
            self.console.error(f"Unknown command :{name} (:help lists them)")
            return True
        try:
            handler(args)
        except KeyboardInterrupt:
            self.console.error("KeyboardInterrupt (the command was cancelled)")
        except (CDPError, ValueError, LookupError) as exc:
            self.console.error(f"error: {exc}")
        return True

    def _record_command(self, args: list[str]) -> None:
        from ..tools import record

        recording = self.recording
        if not args:
            where = f"to {recording.path}" if recording is not None else "nothing (:record FILE starts)"
            print(f"Recording {where}")
            return
        if args == ["stop"]:
            if recording is None:
                raise ValueError("Not recording (:record FILE starts)")
            self.stop_recording()
            print(f"Recorded {len(recording.steps)} steps to {recording.path} (python {recording.path} replays them)")
            return
        if len(args) != 1:
            raise ValueError(":record FILE, or :record stop")
        if recording is not None:
            raise ValueError(f"Already recording to {recording.path} (:record stop first)")
        # The actions of every later command (Python lines, :goto, :tab) are recorded.
        recording = record(self.console.page, args[0]).start(activate=False)
        self.recording = recording
        self.console.runner.context = recording.context
        print(f"Recording to {recording.path}; :record stop ends it")

    def stop_recording(self) -> None:
        """Stop the recording, if one runs (also when the console closes)."""
        recording, self.recording = self.recording, None
        if recording is not None:
            self.console.runner.context = None
            self.console.runner.run(recording.stop())

    def _doc_command(self, args: list[str]) -> None:
        from .._front.browser_options import CLIError
        from .._front.protocol_docs import describe_protocol

        try:
            print(describe_protocol(args[0] if args else None))
        except CLIError as exc:
            self.console.error(f"error: {exc}")

    def _goto_command(self, args: list[str]) -> None:
        from .._front.browser_options import CLIError
        from .._front.cli_common import normalize_url, settle
        from ..tools import navigate

        if len(args) != 1:
            raise ValueError(":goto URL")
        try:
            url = normalize_url(args[0])
        except CLIError as exc:
            raise ValueError(str(exc)) from None
        page = self.console.page

        async def go() -> Any:
            result = await navigate(
                page, url, timeout=self.console.timeout, script_timeout=self.console.script_timeout
            )
            await settle(page, self.console.wait_ms, self.console.timeout)
            return result

        result = self.console.runner.run(go())
        status = f"HTTP {result.status}" if result.status is not None else "no HTTP status"
        print(f"{result.url} ({status}): {result.title or '(no title)'}")

    def _snapshot_command(self, args: list[str]) -> None:
        from ..tools import snapshot

        interactive_only = "-i" in args or "interactive" in args
        result = self.console.runner.run(snapshot(self.console.page, interactive_only=interactive_only))
        print(result.text or "(nothing)")

    # -- element commands: the tools' targets as key=value words -----------------------------

    def _target(self, rest: str, usage: str, *, words: bool = False) -> tuple[dict[str, Any], list[str]]:
        from ..tools import parse_target

        target, others = parse_target(rest)
        if others and not words:
            raise ValueError(f"{usage}: not a key=value target: {' '.join(others)}")
        return target, others

    def _click_command(self, rest: str) -> None:
        from ..tools import click

        target, _ = self._target(rest, ":click TARGET")
        self.console.runner.run(click(self.console.page, **target))
        print("clicked")

    def _hover_command(self, rest: str) -> None:
        from ..tools import hover

        target, _ = self._target(rest, ":hover TARGET")
        self.console.runner.run(hover(self.console.page, **target))
        print("hovered")

    def _type_command(self, rest: str) -> None:
        from ..tools import type_text

        target, words = self._target(rest, ":type TEXT [TARGET]", words=True)
        if "text" in target:
            raise ValueError(":type TEXT [TARGET]: find the field by role/name or label, not text=")
        if not words:
            raise ValueError(":type TEXT [TARGET]: what to type is missing")
        self.console.runner.run(type_text(self.console.page, " ".join(words), **target))
        print("typed")

    def _select_command(self, rest: str) -> None:
        from ..tools import select_option

        target, values = self._target(rest, ":select VALUE... TARGET", words=True)
        selected = self.console.runner.run(select_option(self.console.page, values, **target))
        print("selected:", ", ".join(selected) or "(nothing)")

    def _state_command(self, rest: str) -> None:
        from ..tools import element_state

        target, _ = self._target(rest, ":state TARGET")
        state = self.console.runner.run(element_state(self.console.page, **target))
        print(state)

    def _locator_command(self, rest: str) -> None:
        from ..tools import locator_for

        target, _ = self._target(rest, ":locator index=N | selector=CSS")
        if set(target) - {"index", "selector"}:
            raise ValueError(":locator index=N | selector=CSS")
        locator = self.console.runner.run(locator_for(self.console.page, **target))
        print(f"{locator}  # {locator.comment}" if locator.comment else locator)

    def _tabs_command(self) -> None:
        from ..tools import list_tabs

        tabs = self.console.runner.run(list_tabs(self.console.browser))
        current = getattr(self.console.page, "target_id", None)
        pages = self.console.browser.pages
        for index, page in enumerate(pages):
            tab = next((t for t in tabs if t.id == page.target_id), None)
            title = tab.title if tab is not None else page.title
            url = tab.url if tab is not None else page.url
            mark = "*" if page.target_id == current else " "
            print(f"{mark} {index}  {title or '(no title)'}  {url}")

    def _tab_command(self, args: list[str]) -> None:
        from ..tools import new_tab, switch_tab

        if not args:
            raise ValueError(":tab N (the number from :tabs), or :tab new [URL]")
        if args[0] == "new":
            from .._front.browser_options import CLIError
            from .._front.cli_common import normalize_url, settle

            url = None
            if len(args) > 1:
                try:
                    url = normalize_url(args[1])
                except CLIError as exc:
                    raise ValueError(str(exc)) from None
            page = self.console.runner.run(
                new_tab(self.console.browser, url, script_timeout=self.console.script_timeout)
            )
            if url is not None:
                self.console.runner.run(settle(page, self.console.wait_ms, self.console.timeout))
        else:
            pages = self.console.browser.pages
            try:
                index = int(args[0])
                page = pages[index]
            except (ValueError, IndexError):
                raise ValueError(f"No tab {args[0]!r}: :tabs lists {len(pages)} tab(s), 0 to {len(pages) - 1}") from None
            page = self.console.runner.run(switch_tab(self.console.browser, page.target_id))
        self.console.locals["page"] = page
        if self.event_tasks:
            domains = list(self.event_tasks)
            self.console.runner.run(self.stop_events())
            self.console.runner.run(self.start_events(page, domains))
        print(f"page is now tab {self.console.browser.pages.index(page)}: {page.url}")

    def _events_command(self, args: list[str]) -> None:
        from .._front.protocol_docs import registry as _registry

        if not args:
            active = ", ".join(self.event_tasks) or "none"
            print(f"Printing events of: {active} (:events DOMAIN... to add, :events off to stop)")
            return
        if args == ["off"]:
            stopped = ", ".join(self.event_tasks) or "none"
            self.console.runner.run(self.stop_events())
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
        page = self.console.page
        self.console.runner.run(self.start_events(page, domains))
        print(f"Printing events of: {', '.join(self.event_tasks)}")

    async def start_events(self, page: Page, domains: list[str]) -> None:
        for domain in domains:
            if domain in self.event_tasks:
                continue
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(self._print_events(page, domain, ready))
            self.event_tasks[domain] = task
            try:
                await ready
            except BaseException:
                self.event_tasks.pop(domain, None)
                task.cancel()
                raise

    async def stop_events(self) -> None:
        tasks = list(self.event_tasks.values())
        self.event_tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _print_events(self, page: Page, domain: str, ready: asyncio.Future[None]) -> None:
        from .._front.protocol_docs import registry as _registry

        spec = "*" if domain == "*" else f"{domain}.*"
        try:
            async with contextlib.AsyncExitStack() as stack:
                events = await stack.enter_async_context(page.listen(spec, raw=True))
                if f"{domain}.enable" in _registry.COMMANDS:  # enabled() keeps page setup on
                    try:
                        await stack.enter_async_context(page.enabled(domain))
                    except ProtocolError as exc:
                        self.console.emit(f"(could not enable {domain}: {exc.message}; printing its events anyway)")
                if not ready.done():
                    ready.set_result(None)
                width = 160 if self.console.interactive else None
                async for event in events:
                    method, params = event.method, event.params
                    text = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
                    if width is not None and len(text) > width:
                        text = text[:width] + "..."
                    self.console.emit(f"[{method}] {text}")
        except CDPError as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not self.console.closing:
                self.console.emit(f"(stopped printing {domain} events: {exc})")
