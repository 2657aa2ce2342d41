"""cdpkit: drive Chromium over the Chrome DevTools Protocol from Python.

    import cdpkit
    from cdpkit import cdp, tools

    async with cdpkit.launch() as browser:
        page = await browser.new_page("https://example.com")
        print((await page.send(cdp.runtime.evaluate("document.title"))).result.value)

``cdpkit.cdp`` holds the typed bindings of every protocol domain (imported lazily, one
module per domain); ``cdpkit.tools`` the browser tools for scripts and AI agents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import cdp
from ._grid import GridBrowser, grid
from ._model import Command, Event, RawEvent
from ._pool import Pool, pool
from .browser import Browser, BrowserContext, connect, launch
from .errors import (
    CDPError,
    CommandTimeoutError,
    CommandTooLargeError,
    ConnectError,
    ConnectionClosedError,
    ConnectTimeoutError,
    DownloadError,
    ElementNotFoundError,
    EvaluationError,
    GridCapacityError,
    GridError,
    LaunchError,
    NavigationError,
    PageCrashedError,
    ProfileLockedError,
    ProtocolError,
    TargetClosedError,
    WaitTimeoutError,
)
from .page import Dialog, Page
from .session import EventStream, Expectation, Session

if TYPE_CHECKING:
    from . import tools
    from ._browse import BrowseError, BrowseResult, Engine, browse, engine
    from ._settings import BrowserSettings, Proxy

__version__ = "0.1.0"

__all__ = [
    "BrowseError",
    "BrowseResult",
    "Browser",
    "BrowserContext",
    "BrowserSettings",
    "CDPError",
    "Command",
    "CommandTimeoutError",
    "CommandTooLargeError",
    "ConnectError",
    "ConnectTimeoutError",
    "ConnectionClosedError",
    "Dialog",
    "DownloadError",
    "ElementNotFoundError",
    "Engine",
    "EvaluationError",
    "Event",
    "EventStream",
    "Expectation",
    "GridBrowser",
    "GridCapacityError",
    "GridError",
    "LaunchError",
    "NavigationError",
    "Page",
    "PageCrashedError",
    "Pool",
    "ProfileLockedError",
    "ProtocolError",
    "Proxy",
    "RawEvent",
    "Session",
    "TargetClosedError",
    "WaitTimeoutError",
    "__version__",
    "browse",
    "cdp",
    "connect",
    "engine",
    "grid",
    "launch",
    "pool",
    "tools",
]


# Loaded on first use: the browse engine pulls in httpx, selectolax, pypdf and Pillow.
_BROWSE_NAMES = ("BrowseError", "BrowseResult", "Engine", "browse", "engine")


def __getattr__(name: str) -> Any:
    # The tools pull in more than the core needs; import them on first use.
    if name == "tools":
        import importlib

        return importlib.import_module(".tools", __name__)
    if name in ("BrowserSettings", "Proxy"):
        # Imported when first used: only programs that set them pay for them.
        from . import _settings

        value = getattr(_settings, name)
        globals()[name] = value
        return value
    if name in _BROWSE_NAMES:
        import importlib

        value = getattr(importlib.import_module("._browse", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cdpkit' has no attribute {name!r}")
