"""The screens of ``cdpkit tui``: the page's rows, the main screen and the help."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

__all__ = ["Document", "Help", "Main"]


class Document(VerticalScroll, can_focus=False):
    """The page's rows; scrolled by the app's keys only."""

    BINDINGS: ClassVar[list[BindingType]] = []


class Main(Screen[None]):
    """The app's screen, without Screen's Tab binding: Tab is the keymap's (form fields)."""

    BINDINGS: ClassVar[list[BindingType]] = []
    AUTO_FOCUS = None  # nothing focused: the app reads every key


class Help(ModalScreen[None]):
    """The keys and commands (``?``): scrolled with the arrows, j/k and the page keys when
    the terminal is too small for all of it (its frame then says so); any other key
    closes it."""

    DEFAULT_CSS = """
    Help { align: center middle; }
    Help > VerticalScroll {
        width: 104; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface; scrollbar-size-vertical: 1;
    }
    Help Static { width: 100%; }
    """
    _SCROLL_KEYS: ClassVar[dict[str, float]] = {
        "down": 1, "j": 1, "up": -1, "k": -1, "pagedown": 0.5, "ctrl+d": 0.5, "space": 0.5,
        "pageup": -0.5, "ctrl+u": -0.5,
    }  # fmt: skip
    HINT = "\u2191\u2193 j k scroll \u00b7 any other key closes"

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text
        self._top = 0.0

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._text)

    def on_mount(self) -> None:
        self.call_after_refresh(self._hint)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._hint)

    def _hint(self) -> None:
        scroller = self.query_one(VerticalScroll)
        scroller.border_subtitle = self.HINT if scroller.max_scroll_y > 0 else "any key closes"

    def on_key(self, event: events.Key) -> None:
        event.stop()
        step = self._SCROLL_KEYS.get(event.key)
        scroller = self.query_one(VerticalScroll)
        if step is not None and scroller.max_scroll_y > 0:
            rows = step if abs(step) >= 1 else step * 2 * max(1, scroller.size.height // 2)
            # From where the last key put it: keys typed fast come before the next repaint.
            self._top = min(max(self._top + rows, 0), scroller.max_scroll_y)
            scroller.scroll_to(y=self._top, animate=False)
            return
        self.dismiss()
