"""The Textual app of ``cdpkit tui``: the page as text, a status bar, a message line and
a prompt; every key goes through the :class:`~._keymap.Keymap`, every action through the
:class:`~._driver.Driver`.

Loading a page runs in a worker (one at a time; a new one replaces it), so the keys stay
live and ``q`` quits at once. Quitting closes the live page and the engine (so the
Chrome it launched) before the app exits.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, Static

from .._browse import BrowseError
from ..errors import CDPError
from ._commands import describe, normalized, run_command
from ._driver import DEFAULT_SESSION
from ._keymap import Keymap
from ._render import (
    Control,
    Line,
    field_label,
    italic_runs,
    render_result,
    render_snapshot,
    wrap_line,
)
from ._screens import Document, Help, Main

if TYPE_CHECKING:
    from .._browse import BrowseResult
    from ._driver import Driver

__all__ = ["TuiApp"]

_STYLES = {
    "heading1": "bold underline",
    "heading": "bold",
    "code": "green",
    "quote": "italic",
    "form": "bold cyan",
    "control": "",
    "table": "",
    "text": "",
}
_LINK_MARK = re.compile(r"\[(\d+)\]")
_IMAGE_MARK = re.compile(r"\[image(?:: [^\]]*)?\]")
# The errors an action reports on the message line (the page shown stays).
_REPORTED = (BrowseError, CDPError, ValueError, OSError, TimeoutError)


class TuiApp(App[None]):
    """A terminal browser on the browse engine.

    Args:
        driver: What it browses with (its engine is closed when the app quits).
        keymap: The keys.
        url: A page to open at start.
        first_load: ``url`` already loading (``driver.open(url)``, started while Textual
            was being imported); the app shows what it gives.
    """

    CSS = """
    #document { height: 1fr; padding: 0 1; }
    #status { height: 1; background: $primary-background; color: $text; }
    #message { height: 1; }
    #message.error { color: $error; }
    #prompt { height: 1; border: none; padding: 0; display: none; }
    #prompt.shown { display: block; }
    """
    # Ctrl-C and Ctrl-Q quit whatever the keymap says (Textual's own Ctrl-C copies text).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit_tui", show=False, priority=True),
        Binding("ctrl+q", "quit_tui", show=False, priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, driver: Driver, keymap: Keymap, url: str | None = None,
        first_load: Awaitable[BrowseResult] | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.driver = driver
        self.keymap = keymap
        self.start_url = url
        self.first_load = first_load
        self.lines: list[Line] = []
        self.rows: list[tuple[str, str, int]] = []  # (text, kind, line index)
        self.controls: list[int] = []  # line indices of form controls, in order
        self.selected: int | None = None  # index into controls
        self.values: dict[tuple[int, str], str] = {}
        self.search_pattern: re.Pattern[str] | None = None
        self.message = ""
        self._pressed: list[str] = []
        self._prompt_mode = ""
        self._prompt_context: Any = None
        self._submitting = False  # Enter went to the prompt; its answer has not arrived
        self._held: list[events.Key] = []  # keys typed meanwhile, replayed after it
        self._quitting = False
        self._match_row: int | None = None  # the row of the last search match

    # -- layout -----------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return Main(id="_default")

    def compose(self) -> ComposeResult:
        with Document(id="document"):
            yield Static(id="body")
        yield Static(id="status")
        yield Static(id="message")
        # Enabled while it asks; typed-ahead text is kept when it takes the focus.
        yield Input(id="prompt", disabled=True, select_on_focus=False)

    def on_mount(self) -> None:
        self._set_message("? for keys, o to open a URL, q to quit" if self.start_url is None else "")
        if self.start_url is not None:
            url, loading = self.start_url, self.first_load
            self._run(lambda: loading if loading is not None else self.driver.open(url), f"Loading {url}")
        self._refresh_status()
        self.watch(self.document, "scroll_y", lambda _: self._refresh_status(), init=False)

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    @property
    def document(self) -> Document:
        return self.query_one("#document", Document)

    # -- what the screen shows --------------------------------------------------------------

    def _show_result(self, result: BrowseResult | None, *, keep_position: bool = False) -> None:
        if result is None:
            return
        if not keep_position:  # another page: its fields start from the page's values
            self.values = {}
        self.lines = render_result(result, self.values)
        self._after_new_lines(keep_position)

    def _show_lines(self, lines: list[Line]) -> None:
        self.lines = lines
        self._after_new_lines(False)

    def _after_new_lines(self, keep_position: bool) -> None:
        if not keep_position:
            self._match_row = None
        self.controls = [index for index, line in enumerate(self.lines) if line.control is not None]
        if not keep_position:
            self.selected = None
        self._layout()
        if not keep_position:
            self.document.scroll_to(y=0, animate=False)
        self._refresh_status()

    def _layout(self) -> None:
        """Wrap the lines to the width and paint them (the selected control reversed,
        link numbers and image markers coloured, search matches highlighted)."""
        width = max(20, (self.document.size.width or 102) - 2)
        rows: list[tuple[str, str, int]] = []
        italics: list[list[tuple[int, int]]] = []
        for index, line in enumerate(self.lines):
            italic = False  # emphasis (italic) may wrap onto the next rows of its line
            for wrapped in wrap_line(line.text, width):
                row, runs, italic = italic_runs(wrapped, italic)
                rows.append((row, line.kind, index))
                italics.append(runs)
        self.rows = rows
        selected_line = self.controls[self.selected] if self.selected is not None else None
        text = Text()
        for number, (row, kind, index) in enumerate(rows):
            styled = Text(row, style=_STYLES.get(kind, ""))
            for start, end in italics[number]:
                styled.stylize("italic", start, end)
            styled.highlight_regex(_LINK_MARK, "bold cyan")
            styled.highlight_regex(_IMAGE_MARK, "magenta")
            if self.search_pattern is not None:
                styled.highlight_regex(self.search_pattern, "black on yellow")
            if index == selected_line:
                styled.stylize("reverse")
            text.append_text(styled)
            if number < len(rows) - 1:
                text.append("\n")
        self.query_one("#body", Static).update(text)

    def visible_text(self) -> str:
        """The rows on screen now, as plain text."""
        top = round(self.document.scroll_y)
        height = self.document.size.height
        return "\n".join(row for row, _, _ in self.rows[top : top + height])

    def _refresh_status(self) -> None:
        result = self.driver.result
        if result is None:
            status = "cdpkit tui — no page"
        else:
            document = self.document
            top, height = round(document.scroll_y), document.size.height
            total = len(self.rows)
            if total <= height:
                where = "All"
            elif top <= 0:
                where = "Top"
            elif top + height >= total:
                where = "Bot"
            else:
                where = f"{100 * top // max(1, total - height)}%"
            title = result.title or "(no title)"
            status = (
                f" {title} │ {result.final_url} │ tier {result.tier_used} │ "
                f"{result.timing.total_ms / 1000:.2f} s │ {where}"
            )
            if self.driver.session != DEFAULT_SESSION:
                status += f" │ session {self.driver.session}"
        self.query_one("#status", Static).update(Text(status, no_wrap=True, overflow="ellipsis"))

    def _set_message(self, text: str, *, error: bool = False) -> None:
        self.message = text
        widget = self.query_one("#message", Static)
        widget.update(Text(text, no_wrap=True, overflow="ellipsis"))
        widget.set_class(error, "error")

    # -- running actions --------------------------------------------------------------------

    def _run(
        self, action: Callable[[], Awaitable[Any]], doing: str, *, done: Callable[[Any], None] | None = None
    ) -> None:
        """Run ``action`` in the worker (replacing one still running): ``doing`` on the
        message line meanwhile; a result shown (``done`` instead, when given); an error
        reported on the message line with the page left as it was."""

        async def work() -> None:
            try:
                outcome = await action()
            except _REPORTED as exc:
                self._set_message(describe(exc), error=True)
                return
            self._set_message("")
            if done is not None:
                done(outcome)
            else:
                self._show_result(outcome)

        self._set_message(doing + "…")
        self.run_worker(work(), exclusive=True, group="page", exit_on_error=False)

    # -- keys -------------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # Keys are read here, in the order they were typed, before Textual hands them on to
        # the focused widget through that widget's queue: a key that opens the prompt
        # focuses it before the next key is handed on, so none typed right after it (`:`
        # then the command, at full speed in tmux or pasted) is lost or reordered.
        if isinstance(event, events.Key) and not event.is_forwarded and self._read_key(event):
            return
        await super().on_event(event)

    def _read_key(self, event: events.Key) -> bool:
        """Act on a key typed; whether it was the app's (else Textual hands it on: to the
        prompt while it asks, to the help screen while it shows, to the quit bindings)."""
        if event.key in ("ctrl+c", "ctrl+q") or self._quitting or self.screen.id != "_default":
            return False
        if self._submitting and self._prompt_mode:
            # Enter went to the prompt and its answer has not arrived: the keys after it
            # wait for it (replayed by _submit_prompt), so they act on what it opens.
            self._held.append(event)
            return True
        self._submitting = False  # (the prompt closed without answering: nothing waits)
        if self._prompt_mode:
            prompt = self.query_one("#prompt", Input)
            if event.key == "escape":
                self._close_prompt()
                self._set_message("")
            elif self.focused is not prompt:  # it could not take the focus: typed in from here
                if event.key == "enter":
                    self._submit_prompt(prompt.value)
                elif event.key == "backspace":
                    prompt.action_delete_left()
                elif event.is_printable and event.character:
                    prompt.insert_text_at_cursor(event.character)
            else:
                if event.key == "enter":
                    self._submitting = True
                return False
            return True
        token = event.key if event.character is None or not event.is_printable else event.character
        if token == " ":
            token = "space"
        self._pressed.append(token)
        action = self.keymap.match(self._pressed)
        if action is None and self.keymap.is_prefix(self._pressed):
            return True  # the start of a sequence (g of gg)
        self._pressed.clear()
        if action is None:
            if token == "escape" and self.driver.snapshot_text is not None:
                self._show_result(self.driver.result)
            return True
        getattr(self, f"_do_{action}")()
        return True

    def _replay_held_keys(self) -> None:
        """The keys typed after an Enter that answered the prompt, now that it did."""
        held, self._held = self._held, []
        for index, event in enumerate(held):
            if self._submitting:  # another Enter to the prompt: the rest wait for it
                self._held.extend(held[index:])
                return
            if not self._read_key(event):
                (self.focused or self.screen)._forward_event(event)

    def _scroll_rows(self, rows: float) -> None:
        self.document.scroll_relative(y=rows, animate=False)

    def _do_scroll_down(self) -> None:
        self._scroll_rows(1)

    def _do_scroll_up(self) -> None:
        self._scroll_rows(-1)

    def _do_half_page_down(self) -> None:
        self._scroll_rows(max(1, self.document.size.height // 2))

    def _do_half_page_up(self) -> None:
        self._scroll_rows(-max(1, self.document.size.height // 2))

    def _do_top(self) -> None:
        self.document.scroll_to(y=0, animate=False)

    def _do_bottom(self) -> None:
        self.document.scroll_to(y=max(0, len(self.rows) - self.document.size.height), animate=False)

    def _do_follow(self) -> None:
        self._open_prompt("follow", "link number, then Enter")

    def _do_back(self) -> None:
        if self.driver.position <= 0:
            self._set_message("No page before this one", error=True)
            return
        self._run(self.driver.back, "Back")

    def _do_forward(self) -> None:
        if self.driver.position >= len(self.driver.history) - 1:
            self._set_message("No page after this one", error=True)
            return
        self._run(self.driver.forward, "Forward")

    def _do_reload(self) -> None:
        if self.driver.result is None:
            return
        self._run(self.driver.reload, f"Reloading {self.driver.result.final_url}")

    def _do_open(self) -> None:
        self._open_prompt("open", "URL to open, then Enter")

    def _do_search(self) -> None:
        self._open_prompt("search", "search for (a regular expression), then Enter")

    def _do_search_next(self) -> None:
        self._search_step(1)

    def _do_search_previous(self) -> None:
        self._search_step(-1)

    def _do_next_field(self) -> None:
        self._select_control(1)

    def _do_previous_field(self) -> None:
        self._select_control(-1)

    def _do_activate(self) -> None:
        if self.selected is None:
            if self.controls:
                self._set_message("Tab selects a form field; Enter edits it")
            return
        control = self.lines[self.controls[self.selected]].control
        result = self.driver.result
        if control is None or result is None:
            return
        form = result.forms[control.form]
        if control.field is None:
            values = {name: value for (number, name), value in self.values.items() if number == control.form}
            self._run(lambda: self.driver.submit(control.form, values), f"Submitting {form.action}")
            return
        field = form.fields[control.field]
        current = self.values.get((control.form, field.name), field.value)
        if field.type == "checkbox":
            self.values[(control.form, field.name)] = "" if current else "on"
            self._show_result(result, keep_position=True)
            return
        hint = f"{field_label(field)}" + (f" ({' / '.join(field.options)})" if field.options else "")
        self._open_prompt("field", hint, value=current, context=control)

    def _do_command(self) -> None:
        self._open_prompt("command", ":open URL, :tier N, :snapshot, :click N, :type N text, ...")

    def _do_help(self) -> None:
        self.push_screen(Help("\n".join(["Keys (set them in [tui.keys] of the config file):", "",
                                          *self.keymap.help_lines()])))  # fmt: skip

    def _do_quit(self) -> None:
        self.run_worker(self.action_quit_tui(), group="quit")

    async def action_quit_tui(self) -> None:
        """Close the live page and the engine (and the browser it started), then exit."""
        if self._quitting:
            return
        self._quitting = True
        self._set_message("Closing…")
        self.workers.cancel_group(self, "page")
        try:
            await self.driver.close()
            await self.driver.engine.close()
        finally:
            self.exit()

    # -- forms and search -------------------------------------------------------------------

    def _select_control(self, step: int) -> None:
        if not self.controls:
            self._set_message("No form fields on this page")
            return
        if self.selected is None:
            self.selected = 0 if step > 0 else len(self.controls) - 1
        else:
            self.selected = (self.selected + step) % len(self.controls)
        self._layout()
        self._reveal_line(self.controls[self.selected])
        line = self.lines[self.controls[self.selected]]
        self._set_message(f"{line.text.strip()}  (Enter to {'submit' if _is_submit(line) else 'edit'})")

    def _reveal_line(self, line_index: int) -> None:
        row = next((number for number, (_, _, index) in enumerate(self.rows) if index == line_index), 0)
        self._reveal_row(row)

    def _reveal_row(self, row: int) -> None:
        document = self.document
        top, height = round(document.scroll_y), document.size.height
        if not top <= row < top + height:
            document.scroll_to(y=max(0, row - height // 3), animate=False)

    def _search_step(self, step: int) -> None:
        if self.search_pattern is None:
            self._set_message("No search yet: / to search", error=True)
            return
        if not self.rows:
            return
        top = round(self.document.scroll_y)
        start = self._match_row if self._match_row is not None else (top - step if step > 0 else top)
        total = len(self.rows)
        for offset in range(1, total + 1):
            row = (start + step * offset) % total
            if self.search_pattern.search(self.rows[row][0]):
                self._match_row = row
                self.document.scroll_to(y=max(0, row - 2), animate=False)
                wrapped = " (wrapped)" if (step > 0 and row <= start) or (step < 0 and row >= start) else ""
                self._set_message(f"/{self.search_pattern.pattern}: line {row + 1} of {total}{wrapped}")
                return
        self._set_message(f"Pattern not found: {self.search_pattern.pattern}", error=True)

    # -- the prompt -------------------------------------------------------------------------

    def _open_prompt(self, mode: str, placeholder: str, *, value: str = "", context: Any = None) -> None:
        prompt = self.query_one("#prompt", Input)
        self._prompt_mode = mode
        self._prompt_context = context
        prompt.placeholder = placeholder
        prompt.value = value
        prompt.select_all()  # a field's value: what is typed replaces it
        prompt.disabled = False
        prompt.add_class("shown")
        # Focused now, not after the keys already queued (widget.focus() waits for them):
        # the next key typed, however fast, lands in the prompt.
        self.screen.set_focus(prompt)
        self._set_message({"follow": "f", "open": "o", "search": "/", "command": ":", "field": "edit"}[mode] + ": "
                          + placeholder)  # fmt: skip

    def _close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        self._prompt_mode = ""
        prompt.remove_class("shown")
        if self.focused is prompt:
            self.screen.set_focus(None)  # now: the next key is the app's again
        prompt.disabled = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit_prompt(event.value)

    def _submit_prompt(self, value: str) -> None:
        mode, context = self._prompt_mode, self._prompt_context
        self._close_prompt()
        self._set_message("")
        try:
            self._answer_prompt(mode, context, value)
        finally:
            self._submitting = False
            self._replay_held_keys()

    def _answer_prompt(self, mode: str, context: Any, value: str) -> None:
        if mode == "follow":
            self._follow(value.strip())
        elif mode == "open":
            if value.strip():
                self._open_url(value.strip())
        elif mode == "search":
            self._start_search(value)
        elif mode == "command":
            self._command(value.strip().removeprefix(":"))
        elif mode == "field" and isinstance(context, Control) and self.driver.result is not None:
            field = self.driver.result.forms[context.form].fields[context.field or 0]
            self.values[(context.form, field.name)] = value
            self._show_result(self.driver.result, keep_position=True)

    def _follow(self, text: str) -> None:
        if not text.isdigit():
            self._set_message(f"Not a link number: {text!r} (type the number in [ ])", error=True)
            return
        number = int(text)
        try:
            url = self.driver.link_url(number)
        except ValueError as exc:
            self._set_message(str(exc), error=True)
            return
        self._run(lambda: self.driver.follow(number), f"Loading [{number}] {url}")

    def _open_url(self, url: str) -> None:
        try:
            target = normalized(url)
        except ValueError as exc:
            self._set_message(str(exc), error=True)
            return
        self._run(lambda: self.driver.open(target), f"Loading {target}")

    def _start_search(self, pattern: str) -> None:
        if not pattern:
            return
        try:
            self.search_pattern = re.compile(pattern, re.IGNORECASE)
        except re.error:
            self.search_pattern = re.compile(re.escape(pattern), re.IGNORECASE)
        self._match_row = None
        self._layout()
        self._search_step(1)

    # -- command mode -----------------------------------------------------------------------

    def _command(self, line: str) -> None:
        run_command(self, line)

    def _show_snapshot(self, text: str) -> None:
        url = self.driver.result.final_url if self.driver.result is not None else ""
        self._show_lines(render_snapshot(text, url))


def _is_submit(line: Line) -> bool:
    return line.control is not None and line.control.field is None
