"""Browser tools: plain async functions taking a :class:`~cdpkit.Page` (or a
:class:`~cdpkit.Browser` for tabs) first."""

from .navigation import NavigationResult, navigate

__all__ = ["NavigationResult", "navigate"]
