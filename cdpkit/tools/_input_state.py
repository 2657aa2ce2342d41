"""What the low-level input tools hold down on a page between calls (keys, mouse buttons,
the mouse position), shared by the keyboard and pointer tools."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..page import Page
from ._targeting import Point

# Bits of the ``buttons`` field of mouse events, and of the ``modifiers`` field.
BUTTON_BITS = {"left": 1, "right": 2, "middle": 4, "back": 8, "forward": 16}
MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}


@dataclass(slots=True)
class InputState:
    """What the low-level tools (``key_down``, ``mouse_down``...) hold on a page between
    calls; every later mouse and key event of the page carries it.

    Attributes:
        modifiers: Bits (``MODIFIER_BITS``) of the modifier keys held down.
        keys: Names of every key held down, for ``autoRepeat`` and ``key_up``.
        buttons: Bits (``BUTTON_BITS``) of the mouse buttons held down.
        mouse: Where the mouse is, in viewport CSS pixels.
    """

    modifiers: int = 0
    keys: set[str] = field(default_factory=set)
    buttons: int = 0
    mouse: Point = field(default_factory=lambda: Point(0, 0))


def input_state(page: Page) -> InputState:
    """The page's held keys and buttons (created empty on first use)."""
    return page.state(InputState)
