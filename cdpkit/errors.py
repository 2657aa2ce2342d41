"""Every error cdpkit raises, all under :class:`CDPError`::

    CDPError
    ├── ProtocolError            Chrome answered a command with an error (code, message, method)
    ├── ConnectionClosedError    the connection to the browser is gone; every pending call fails
    │   └── TargetClosedError    the page (or other target) the session was bound to is gone
    │       └── PageCrashedError the page's renderer crashed
    ├── CommandTimeoutError      no answer within the timeout (also a built-in TimeoutError)
    ├── CommandTooLargeError     a command larger than the browser accepts (also a ValueError)
    ├── WaitTimeoutError         an awaited event or page condition did not come (also a TimeoutError)
    ├── LaunchError              Chrome could not be found, started or reached
    │   └── ProfileLockedError   a persistent profile is in use by another process
    ├── ConnectError             cdpkit.connect() could not attach to a running browser
    │   ├── ConnectTimeoutError  the endpoint did not answer in time (also a TimeoutError)
    │   └── GridError            a Selenium Grid could not create a browser session
    │       └── GridCapacityError  no free slot within session_timeout (also a TimeoutError)
    ├── NavigationError          the page did not load (carries Chrome's net::ERR_* text)
    ├── EvaluationError          JavaScript threw (message, line, column)
    ├── ElementNotFoundError     a selector, index, point or locator matched no element
    │   └── AmbiguousLocatorError a locator (role/name, text, label) matched several
    └── DownloadError            a download failed, was blocked or timed out

Messages are written for the person or the model reading them: they say what went wrong
and, where there is one, the setting to change.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousLocatorError",
    "CDPError",
    "CommandTimeoutError",
    "CommandTooLargeError",
    "ConnectError",
    "ConnectTimeoutError",
    "ConnectionClosedError",
    "DownloadError",
    "ElementNotFoundError",
    "EvaluationError",
    "GridCapacityError",
    "GridError",
    "LaunchError",
    "NavigationError",
    "PageCrashedError",
    "ProfileLockedError",
    "ProtocolError",
    "TargetClosedError",
    "WaitTimeoutError",
]


class CDPError(Exception):
    """Base of every cdpkit error."""


class ProtocolError(CDPError):
    """Chrome answered a command with a protocol error.

    Attributes:
        code: The JSON-RPC error code (e.g. ``-32601`` for an unknown method).
        message: Chrome's error message.
        method: The command that failed, e.g. ``"Page.navigate"``.
        data: Chrome's optional extra detail.
    """

    def __init__(self, code: int, message: str, method: str, data: str | None = None) -> None:
        self.code = code
        self.message = message
        self.method = method
        self.data = data
        detail = f" ({data})" if data else ""
        super().__init__(f"{method}: {message}{detail} [code {code}]")


class ConnectionClosedError(CDPError):
    """The connection to the browser closed; pending and later calls fail with this.

    Attributes:
        reason: Why, in words: the close code and reason, or what ended the process.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class TargetClosedError(ConnectionClosedError):
    """The target (page, worker, ...) the session was attached to is gone."""


class PageCrashedError(TargetClosedError):
    """The page's renderer process crashed. Other pages of the browser keep working."""


class CommandTimeoutError(CDPError, TimeoutError):
    """A command got no answer within its timeout.

    Attributes:
        method: The command that timed out.
        timeout: The timeout that expired, in seconds.
    """

    def __init__(self, method: str, timeout: float, hint: str = "") -> None:
        self.method = method
        self.timeout = timeout
        hint = hint or "pass timeout= to send(), or command_timeout= to launch()/connect()"
        super().__init__(f"{method} got no answer within {timeout:g} s ({hint})")


class CommandTooLargeError(CDPError, ValueError):
    """A command's JSON is larger than the browser accepts in one message; it was not sent.

    Chrome drops the whole connection (every page with it) on a message over its limit, so
    cdpkit refuses such a command before sending. It is a ``ValueError`` too: the argument
    is what is wrong, and the connection stays usable.

    Attributes:
        method: The command, e.g. ``"Runtime.evaluate"``.
        size: Its size in bytes of UTF-8 JSON.
        limit: The largest message the browser accepts, in bytes.
    """

    def __init__(self, method: str, size: int, limit: int) -> None:
        self.method = method
        self.size = size
        self.limit = limit
        super().__init__(
            f"{method} is {size:,} bytes of JSON, more than the {limit:,} bytes the browser "
            "accepts in one message; it was not sent. Send the data in smaller pieces (e.g. "
            "several calls, or let the page fetch it from a URL)."
        )


class WaitTimeoutError(CDPError, TimeoutError):
    """What was awaited (an event, a selector, text, network idle) did not happen in time.

    Attributes:
        what: What was awaited, in words.
        timeout: The timeout that expired, in seconds.
    """

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.timeout = timeout
        super().__init__(f"Timed out after {timeout:g} s waiting for {what}")


class LaunchError(CDPError):
    """Chrome could not be found, started or reached. The message includes Chrome's last
    output lines when it printed any."""


class ProfileLockedError(LaunchError):
    """A persistent profile is locked by another running browser of cdpkit."""


class ConnectError(CDPError):
    """``cdpkit.connect()`` could not attach: refused, not a DevTools endpoint, or no
    ``webSocketDebuggerUrl`` in its ``/json/version``."""


class ConnectTimeoutError(ConnectError, TimeoutError):
    """The endpoint accepted the connection (or stayed silent) but did not answer within
    ``connect(timeout=...)``."""


class GridError(ConnectError):
    """A Selenium Grid refused or failed to create a browser session; the message quotes
    the grid's reason."""


class GridCapacityError(GridError, TimeoutError):
    """The grid had no free slot for a session within ``grid(session_timeout=...)``."""


class NavigationError(CDPError):
    """A navigation failed before any response: DNS, refused connection, invalid URL...

    Attributes:
        url: The URL that was requested.
        error_text: Chrome's error, e.g. ``"net::ERR_CONNECTION_REFUSED"``.
    """

    def __init__(self, url: str, error_text: str) -> None:
        self.url = url
        self.error_text = error_text
        super().__init__(f"Navigation failed: {error_text} ({url})")


class EvaluationError(CDPError):
    """JavaScript threw while being evaluated.

    The message gives the position 1-based, as the DevTools console does
    (``"ReferenceError: x is not defined (line 1, column 1)"``); the attributes keep the
    protocol's 0-based numbers.

    Attributes:
        text: The exception's message, e.g. ``"ReferenceError: x is not defined"``.
        line: 0-based line of the throw within the evaluated script, when known.
        column: 0-based column, when known.
    """

    def __init__(self, text: str, line: int | None = None, column: int | None = None) -> None:
        self.text = text
        self.line = line
        self.column = column
        where = ""
        if line is not None:
            where = f" (line {line + 1}" + (f", column {column + 1})" if column is not None else ")")
        super().__init__(f"{text}{where}")


class ElementNotFoundError(CDPError, LookupError):
    """A selector, snapshot index, point or locator matched no element."""


class AmbiguousLocatorError(ElementNotFoundError):
    """A locator (``role``/``name``, ``text``, ``label``) matched several elements, so no
    element was acted on. It is an :class:`ElementNotFoundError`: the tool found no *one*
    element to act on, and code that handles a missing element (retry after a change,
    report to the model) handles this the same way.

    Attributes:
        candidates: The matches, as snapshot lines (``[3] button "Join" @(8,40,60,22)``;
            the index only when a snapshot listed the element already).
    """

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class DownloadError(CDPError):
    """A download failed: bad status, network error, blocked by the browser, or timeout."""
