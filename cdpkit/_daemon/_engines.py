"""The browse engine of ``cdpkit browse`` and ``cdpkit tui`` run without browser options:
its ``[browser]`` table's kind of browser from a running daemon."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._front.browser_options import BrowserOptions
from ._client import daemon_browser
from ._use import daemon_preferred

if TYPE_CHECKING:
    from .._browse import Engine
    from .._browse._engine import BrowserFactory
    from ..browser import Browser


def daemon_first(engine: Engine) -> BrowserFactory:
    """A ``browser_factory`` for ``engine`` (made without one) giving a running daemon's
    browser when its ``[browser]`` table asks for the kind the daemon has (headless, no
    flags, no endpoint), else ``None``: the engine then launches or attaches as the table
    says. For ``cdpkit browse`` and ``cdpkit tui`` without browser options."""
    table = engine.config.browser
    options = BrowserOptions(
        connect=table.connect, headful=not table.headless, chrome_args=tuple(table.args),
        timeout=table.timeout, viewport=engine.config.viewport, settings=table.settings,
    )

    async def make() -> Browser | None:
        with daemon_preferred():  # unless the command said --no-daemon
            return await daemon_browser(options)

    return make
