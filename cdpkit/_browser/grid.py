"""Browsers leased from a Selenium Grid 4: ``async with cdpkit.grid(url) as browser``.

A grid hands out one browser per WebDriver session (``POST /session``) and, for Chrome,
proxies the browser's DevTools WebSocket at the session's ``se:cdp`` URL; cdpkit creates
the session, attaches to that URL, and deletes the session when the block ends, however
it ends. A grid with no free slot queues the request; cdpkit waits up to
``session_timeout``. A request given up on stays in the grid's queue and may still turn
into a session later, holding a slot that nobody uses: cdpkit keeps waiting for that
answer in the background and deletes the session it brings.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import uuid
from collections.abc import Generator, Mapping, Sequence
from types import TracebackType
from typing import Any

import anyio

from .. import cdp
from .._core.endpoint import check_headers, http_request, redact
from .._core.secrets import get_logger
from .._core.tasks import run_in_background
from ..browser import Browser
from ..errors import CDPError, CommandTimeoutError, ConnectError, GridCapacityError, GridError
from ..launcher import (
    DEFAULT_ARGS,
    DEFAULT_VIEWPORT,
    HEADLESS_ARGS,
    merge_list_switches,
    window_size_arg,
)
from .starting import connect

__all__ = ["GridBrowser", "grid"]

log = get_logger("cdpkit")

# How long deleting a session may take when the block ends.
_DELETE_TIMEOUT = 10.0
# The grid's CDP proxy keeps the WebSocket open when the session's Chrome dies (measured on
# Selenium 4.20), so calls would only time out: the browser is probed this often, and if it
# does not answer in time the grid is asked whether the session still exists.
_PROBE_INTERVAL = 2.0
_PROBE_TIMEOUT = 5.0
# The capability that tags each request, so that a late session can be recognised.
_REQUEST_TAG = "cdpkit:request"
# Requests given up on, still waiting for the grid's answer (kept from being collected).
_abandoned: set[asyncio.Task[Any]] = set()


def chrome_capabilities(
    *, headless: bool, args: Sequence[str], capabilities: Mapping[str, Any] | None
) -> dict[str, Any]:
    """W3C ``alwaysMatch`` capabilities for a headless Chrome with cdpkit's flags, merged with
    the caller's (their ``goog:chromeOptions.args`` are added after cdpkit's)."""
    merged: dict[str, Any] = {"browserName": "chrome"}
    extra = dict(capabilities or {})
    options = dict(extra.pop("goog:chromeOptions", None) or {})
    merged.update(extra)
    chrome_args = [*DEFAULT_ARGS, *(HEADLESS_ARGS if headless else ()), *args]
    every = [*chrome_args, *options.get("args", [])]
    if not any(arg.startswith("--window-size") for arg in every):
        chrome_args.append(window_size_arg(DEFAULT_VIEWPORT))  # the same viewport as launch()
    chrome_args += [arg for arg in options.pop("args", []) if arg not in chrome_args]
    chrome_args = merge_list_switches(chrome_args)  # one --disable-features, as launch()
    # ChromeDriver's --enable-automation shows an info bar that takes 56 px of the first
    # tab's viewport; cdpkit needs no such flag.
    excluded = [*options.pop("excludeSwitches", []), "enable-automation"]
    merged["goog:chromeOptions"] = {**options, "args": chrome_args, "excludeSwitches": excluded}
    return merged


class GridBrowser:
    """What :func:`grid` returns: use it as ``async with``; the block gets a
    :class:`~cdpkit.Browser` on which every tool works.

    Attributes:
        session_id: The WebDriver session id, once created.
        cdp_url: The session's ``se:cdp`` WebSocket URL, once created.
        capabilities: The capabilities the grid answered with, once created (browser
            version, ``goog:processID``, ``se:...``).
    """

    def __init__(
        self,
        url: str,
        *,
        capabilities: Mapping[str, Any] | None,
        session_timeout: float,
        headers: Mapping[str, str] | None,
        headless: bool,
        args: Sequence[str],
        timeout: float,
        command_timeout: float,
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"Not a Selenium Grid URL: {redact(url)!r} (expected http(s)://host:port)")
        if session_timeout <= 0:
            raise ValueError(f"session_timeout must be positive, got {session_timeout}")
        self.url = url.rstrip("/")
        self._headers = check_headers(headers)
        self._capabilities = chrome_capabilities(
            headless=headless, args=args, capabilities=capabilities
        )
        self._session_timeout = session_timeout
        self._timeout = timeout
        self._command_timeout = command_timeout
        self.session_id: str | None = None
        self.cdp_url: str | None = None
        self.capabilities: dict[str, Any] = {}
        self._browser: Browser | None = None

    # -- the WebDriver session ----------------------------------------------------------------

    async def _create(self) -> None:
        tag = uuid.uuid4().hex
        body = json.dumps(
            {"capabilities": {"alwaysMatch": {**self._capabilities, _REQUEST_TAG: tag}}}
        ).encode()
        request = asyncio.ensure_future(self._post_session(body))
        try:
            created = await asyncio.wait_for(asyncio.shield(request), self._session_timeout)
        except (TimeoutError, asyncio.CancelledError) as exc:
            _abandon(request, self)
            if isinstance(exc, TimeoutError):
                raise GridCapacityError(
                    f"Selenium Grid at {redact(self.url)} had no free slot for a Chrome "
                    f"session within {self._session_timeout:g} s (grid(session_timeout=...) "
                    "sets this). The request was withdrawn: a session it still brings is "
                    "deleted."
                ) from None
            raise
        self.session_id, self.cdp_url, self.capabilities = created

    async def _post_session(self, body: bytes) -> tuple[str, str, dict[str, Any]]:
        headers = {**self._headers, "Content-Type": "application/json; charset=utf-8"}
        status, answer = await http_request(
            "POST", f"{self.url}/session", headers=headers, body=body
        )
        value = _value(answer)
        if status != 200 or not isinstance(value, dict) or "sessionId" not in value:
            raise GridError(_grid_failure(self.url, status, value))
        session_id = str(value["sessionId"])
        capabilities = value.get("capabilities") or {}
        cdp_url = capabilities.get("se:cdp") if isinstance(capabilities, dict) else None
        if not isinstance(cdp_url, str) or not cdp_url:
            await self._delete(session_id)
            raise GridError(
                f"Selenium Grid at {redact(self.url)} gave session {session_id} no CDP "
                "endpoint (se:cdp): cdpkit needs Selenium Grid 4 with a Chrome or Chromium node"
            )
        return session_id, _through_grid_url(self.url, cdp_url), capabilities

    async def _delete(self, session_id: str) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(_DELETE_TIMEOUT) as scope:
            try:
                await http_request(
                    "DELETE", f"{self.url}/session/{session_id}", headers=self._headers
                )
            except ConnectError as exc:
                log.warning("Could not delete grid session %s: %s", session_id, exc)
        if scope.cancelled_caught:
            log.warning("Deleting grid session %s timed out", session_id)

    # -- the block ----------------------------------------------------------------------------

    async def __aenter__(self) -> Browser:
        await self._create()
        assert self.session_id is not None and self.cdp_url is not None
        try:
            self._browser = await connect(
                self.cdp_url,
                headers=self._headers,
                timeout=self._timeout,
                command_timeout=self._command_timeout,
            )
        except BaseException:
            await self._delete(self.session_id)
            raise
        browser = self._browser
        session_id = self.session_id
        watch = asyncio.ensure_future(self._watch_session(browser, session_id))

        async def end_session() -> None:
            watch.cancel()
            await asyncio.gather(watch, return_exceptions=True)
            await self._delete(session_id)

        # Closing the browser, however it is closed, ends the WebDriver session.
        browser._after_close.append(end_session)
        return browser

    def __await__(self) -> Generator[Any, None, Browser]:
        """``browser = await cdpkit.grid(url)``: the session lives until ``browser.close()``."""
        return self.__aenter__().__await__()

    async def _watch_session(self, browser: Browser, session_id: str) -> None:
        """Close the connection with the grid's reason once the session's browser is gone."""
        while not browser.closed:
            await asyncio.sleep(_PROBE_INTERVAL)
            try:
                await browser.send(cdp.browser.get_version(), timeout=_PROBE_TIMEOUT)
                continue
            except CommandTimeoutError:
                pass
            except CDPError:
                return  # closed meanwhile: nothing to watch
            gone = await self._session_gone(session_id)
            if gone is not None:
                browser._connection.abort(
                    f"the grid session's browser is gone (Selenium Grid says: {gone})"
                )
                return

    async def _session_gone(self, session_id: str) -> str | None:
        """The grid's reason if it no longer has the session, else ``None`` (alive, or the
        grid did not say: a slow answer is not a death)."""
        try:
            async with asyncio.timeout(_PROBE_TIMEOUT):
                status, answer = await http_request(
                    "GET", f"{self.url}/session/{session_id}/url", headers=self._headers
                )
        except (TimeoutError, ConnectError):
            return None
        value = _value(answer)
        if status == 404 or (isinstance(value, dict) and value.get("error") == "invalid session id"):
            message = str(value.get("message", "")) if isinstance(value, dict) else ""
            return message.strip().splitlines()[0] if message.strip() else "invalid session id"
        return None

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            await browser.close()  # also deletes the session (see __aenter__)


def _abandon(request: asyncio.Future[tuple[str, str, dict[str, Any]]], owner: GridBrowser) -> None:
    """Keep waiting for a request given up on; delete the session it brings."""

    async def reap() -> None:
        try:
            session_id, _, _ = await request
        except Exception:
            return  # it failed: nothing was created
        log.info("Deleting grid session %s, created after its request was given up", session_id)
        await owner._delete(session_id)

    run_in_background(reap(), _abandoned, what="Deleting a late grid session")


def _through_grid_url(grid_url: str, cdp_url: str) -> str:
    """The session's CDP URL, reached through the address the caller reached the grid by.

    The router serves it at ``/session/<id>/se/cdp``, but names itself by the address it
    thinks it has (often an internal IP and port 4444 behind Docker or a load balancer),
    which the caller may not be able to reach.
    """
    cdp = urllib.parse.urlsplit(cdp_url)
    at = cdp.path.find("/session/")
    if at < 0:
        return cdp_url  # not served by the router: trust it
    grid = urllib.parse.urlsplit(grid_url)
    scheme = "wss" if grid.scheme == "https" else "ws"
    path = grid.path.rstrip("/") + cdp.path[at:]
    return urllib.parse.urlunsplit((scheme, grid.netloc, path, cdp.query, ""))


def _value(answer: bytes) -> Any:
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    return data.get("value") if isinstance(data, dict) else None


def _grid_failure(url: str, status: int, value: Any) -> str:
    message = ""
    if isinstance(value, dict):
        message = str(value.get("message") or value.get("error") or "")
    first = message.strip().splitlines()[0] if message.strip() else f"HTTP {status}"
    text = f"Selenium Grid at {redact(url)} could not create a Chrome session: {first}"
    if "instance exited" in message or "crashed" in message:
        text += (
            " (Chrome exits at once when it runs as root without --no-sandbox, as in many "
            "containers: pass args=['--no-sandbox'] if that is the case on the node)"
        )
    if value is None:
        text += " (it does not answer as a WebDriver server: is this a Selenium Grid 4 URL?)"
    return text


def grid(
    url: str,
    *,
    capabilities: Mapping[str, Any] | None = None,
    session_timeout: float = 300,
    headers: Mapping[str, str] | None = None,
    headless: bool = True,
    args: Sequence[str] = (),
    timeout: float = 30,
    command_timeout: float = 30,
) -> GridBrowser:
    """A browser leased from a Selenium Grid 4: ``async with cdpkit.grid(url) as browser``.

    Args:
        url: The grid's URL (hub, router or standalone), e.g. ``http://grid:4444``.
        capabilities: Extra W3C capabilities (``platformName``, ``se:...``,
            ``goog:chromeOptions``: its ``args`` are added after cdpkit's).
        session_timeout: Seconds to wait for the grid to start a session (it queues
            requests while every slot is busy).
        headers: HTTP headers for the grid and the CDP WebSocket (e.g. authorization).
        headless: Run Chrome headless (with the flags :func:`cdpkit.launch` uses).
        args: Extra Chrome flags (e.g. ``["--no-sandbox"]`` for a node running as root).
        timeout: Seconds for attaching to the session's CDP endpoint.
        command_timeout: Default timeout of every command.

    Raises (when the block is entered):
        GridCapacityError: No slot within ``session_timeout``; also a ``TimeoutError``.
        GridError: The grid refused or failed to create the session (its message quoted).
        ConnectError: The grid or its CDP endpoint could not be reached.

    On exit (normal, exception or cancellation) the browser is detached and the WebDriver
    session deleted, which stops its Chrome.
    """
    return GridBrowser(
        url,
        capabilities=capabilities,
        session_timeout=session_timeout,
        headers=headers,
        headless=headless,
        args=args,
        timeout=timeout,
        command_timeout=command_timeout,
    )
