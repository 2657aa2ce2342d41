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

from typing import TYPE_CHECKING

from ._core.lazy import lazy_exports

if TYPE_CHECKING:
    from . import cdp, tools
    from ._browse import BrowseError, BrowseResult, Engine, browse, engine
    from ._browser.grid import GridBrowser, grid
    from ._browser.pool import Pool, pool
    from ._browser.settings import BrowserSettings, Proxy
    from ._browser.starting import connect, launch
    from ._model import Command, Event, RawEvent
    from .browser import Browser, BrowserContext
    from .errors import (
        AmbiguousLocatorError,
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
    from .tools._recording import Recording, record

__version__ = "0.1.0"

__all__ = [
    "AmbiguousLocatorError",
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
    "Recording",
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
    "record",
    "tools",
]


# Every export is loaded on first use, so that `import cdpkit` (and what is started
# through it, such as `cdpkit mcp`, which an MCP host waits for) costs nothing until a
# name is used: the core pulls in pydantic, the browse engine httpx, selectolax, pypdf
# and Pillow. The module that defines each name:
_ERRORS = (
    "AmbiguousLocatorError", "CDPError", "CommandTimeoutError", "CommandTooLargeError", "ConnectError",
    "ConnectionClosedError", "ConnectTimeoutError", "DownloadError", "ElementNotFoundError",
    "EvaluationError", "GridCapacityError", "GridError", "LaunchError", "NavigationError",
    "PageCrashedError", "ProfileLockedError", "ProtocolError", "TargetClosedError",
    "WaitTimeoutError",
)  # fmt: skip
_HOMES = {
    **dict.fromkeys(("GridBrowser", "grid"), "._browser.grid"),
    **dict.fromkeys(("Command", "Event", "RawEvent"), "._model"),
    **dict.fromkeys(("Pool", "pool"), "._browser.pool"),
    **dict.fromkeys(("Browser", "BrowserContext"), ".browser"),
    **dict.fromkeys(("connect", "launch"), "._browser.starting"),
    **dict.fromkeys(_ERRORS, ".errors"),
    **dict.fromkeys(("Dialog", "Page"), ".page"),
    **dict.fromkeys(("EventStream", "Expectation", "Session"), ".session"),
    **dict.fromkeys(("BrowseError", "BrowseResult", "Engine", "browse", "engine"), "._browse"),
    **dict.fromkeys(("BrowserSettings", "Proxy"), "._browser.settings"),
    **dict.fromkeys(("Recording", "record"), ".tools._recording"),
}


# A name not in _HOMES is a subpackage (cdp, tools) or one of the modules importing cdpkit
# once loaded eagerly (cdpkit.browser, cdpkit.errors...), reachable as an attribute as before.
__getattr__, __dir__ = lazy_exports(__name__, _HOMES, submodules=True)
