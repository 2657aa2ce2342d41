"""Launching and attaching: :func:`launch` starts a browser, :func:`connect` attaches to a
running one (a DevTools endpoint, the person's own Chrome, the cdpkit extension's bridge),
:func:`attach` wraps an open transport; each gives a :class:`~cdpkit.Browser`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import Generator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import websockets

from .._core.endpoint import browser_ws_url, check_headers, redact
from .._core.keywords import (
    IdentityKeywords,
    LaunchIdentityKeywords,
    check_keywords,
    keyword_signature,
)
from .._core.profiles import ProfileLock, profile_dir
from .._core.secrets import get_logger
from .._core.transport import PipeTransport, Transport, WebSocketTransport
from ..browser import Browser
from ..connection import Connection
from ..errors import (
    ConnectError,
    ConnectionClosedError,
    ConnectTimeoutError,
    LaunchError,
)
from ..launcher import (
    DEFAULT_ARGS,
    ChromeProcess,
    check_user_data_dir,
    check_viewport,
    start_chrome,
)

if TYPE_CHECKING:
    from .settings import BrowserSettings

__all__ = ["attach", "connect", "launch"]

log = get_logger("cdpkit")

_collected_at_first_launch = False


def _resolve_settings(
    settings: BrowserSettings | None, shortcuts: dict[str, Any]
) -> BrowserSettings | None:
    """``settings`` with the shortcut keywords given applied over it (see
    ``settings.resolve_settings``); ``None`` without either."""
    if settings is None and all(value is None for value in shortcuts.values()):
        return None  # the usual launch: no need to load the settings module (3 ms)
    from .settings import resolve_settings

    return resolve_settings(settings, shortcuts)


def _collect_after_start_up() -> None:
    """Once per process, run the full garbage collection that start-up has made due.

    Importing cdpkit, pydantic and the bindings leaves tens of thousands of objects that
    Python's collector has not yet counted as old; its next full collection (15-24 ms of
    CPU here) then fell in the first burst of work: 11 µs a call over 2,000 pipelined
    calls. :func:`launch` schedules it for the loop's next turn once the browser is ready,
    so it runs while the program first waits for Chrome (typically opening a page) rather
    than in the middle of its calls. The work is the same, done once; only where the pause
    falls changes. A program that turned the collector off keeps it off.
    """
    global _collected_at_first_launch
    if _collected_at_first_launch or not gc.isenabled():
        return
    _collected_at_first_launch = True
    gc.collect()


class _BrowserStarter:
    """What :func:`launch` and :func:`connect` return: ``async with`` it (closes the browser
    on exit) or ``await`` it (then call ``await browser.close()`` yourself)."""

    def __init__(self, start: Any) -> None:
        self._start = start
        self._browser: Browser | None = None

    def __await__(self) -> Generator[Any, None, Browser]:
        return self._start().__await__()  # type: ignore[no-any-return]

    async def __aenter__(self) -> Browser:
        self._browser = await self._start()
        return self._browser

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._browser is not None:
            await self._browser.close()


async def _replace_first_tabs(browser: Browser) -> None:
    """Swap the tab Chrome opened at start for a fresh one that carries the settings.

    The start tab exists before cdpkit attaches, so it is not paused and may still be
    committing its first document: settings sent then can be lost with that commit. A tab
    cdpkit creates waits, paused, until they are applied.
    """
    started = [page for page in browser.pages if page.url in ("", "about:blank")]
    if not started:
        return  # e.g. a profile's restored tabs: those stay the person's
    await browser.new_page()
    await asyncio.gather(*(page.close() for page in started), return_exceptions=True)


@keyword_signature(LaunchIdentityKeywords)
def launch(
    *,
    headless: bool = True,
    executable_path: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    user_data_dir: str | os.PathLike[str] | None = None,
    profile: str | None = None,
    pipe: bool = False,
    timeout: float = 30,
    command_timeout: float = 30,
    lock_timeout: float = 30,
    env: Mapping[str, str] | None = None,
    viewport: tuple[int, int] | None = None,
    settings: BrowserSettings | None = None,
    storage_state: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    **identity: Unpack[LaunchIdentityKeywords],
) -> _BrowserStarter:
    """Start Chrome and connect to it: ``async with cdpkit.launch() as browser: ...``.

    Args:
        headless: Run without a window.
        executable_path: The Chrome to run; default ``$CDPKIT_CHROME``, then the usual
            names on ``PATH``, then the standard install locations.
        args: Extra command-line flags, after cdpkit's defaults (``launcher.DEFAULT_ARGS``).
        user_data_dir: A persistent profile directory; default a fresh temporary one
            that is removed on close. Chrome's own default profile is refused.
        profile: A named persistent profile, ``<profiles root>/NAME`` (root:
            ``$CDPKIT_PROFILES`` or e.g. ``~/.local/share/cdpkit/profiles``), e.g. one
            prepared by a manual login with ``cdpkit open-browser --profile NAME``.
        pipe: Talk over ``--remote-debugging-pipe`` instead of a local TCP port.
        timeout: Seconds for Chrome to start and answer.
        command_timeout: Default timeout of every command and wait.
        lock_timeout: How long to wait for a persistent profile another process is using.
        env: Chrome's environment; default this process's.
        viewport: ``(width, height)`` of every page's viewport (``innerWidth`` x
            ``innerHeight`` in headless mode), new tabs and popups included; default
            ``(1280, 720)``, unless ``args`` has ``--window-size``.
        settings: How the browser presents itself and reaches the network
            (:class:`~cdpkit.BrowserSettings`): applied to every page of every context,
            popups included, before its first request. ``proxy`` is launch-wide
            (``--proxy-server``); ``locale`` also sets ``--lang``. The keywords
            ``user_agent``, ``user_agents``, ``accept_language``, ``locale``,
            ``timezone``, ``extra_headers``, ``proxy``, ``ignore_default_args``,
            ``stealth`` and ``send_dnt`` each change one setting over it.
        storage_state: A saved login to start from, loaded into the default context
            before this returns: a ``storage_state`` file (or dict) of cookies,
            localStorage and sessionStorage in Playwright's format (see
            :func:`cdpkit.tools.save_storage_state`).

    Raises:
        LaunchError: Chrome was not found, exited, or was not ready within ``timeout``
            (the message includes Chrome's last output lines), or ``args`` conflict with
            what cdpkit sets (``--user-data-dir``; ``--remote-debugging-port`` with
            ``pipe=True``; ``--window-size`` with ``viewport=``).
        ValueError: ``viewport`` is not two pixel sizes from 1 to 16384, a setting
            is invalid (the message names it), or ``storage_state`` is not one.
        FileNotFoundError: No ``storage_state`` file there.
        ProfileLockedError: The persistent profile stayed locked for ``lock_timeout``.

    On exit (normal, exception or cancellation) the browser's whole process group is
    killed and the temporary profile removed. If this process dies without exiting the
    block (SIGKILL, SIGTERM, SIGHUP, a second Ctrl-C), a watchdog process does the same
    at once (see :mod:`cdpkit.launcher`).
    """

    if profile is not None and user_data_dir is not None:
        raise ValueError("Pass profile= or user_data_dir=, not both")
    if viewport is not None:
        viewport = check_viewport(viewport)
    directory = profile_dir(profile) if profile is not None else user_data_dir
    check_keywords("launch", identity, LaunchIdentityKeywords)
    resolved_settings = _resolve_settings(settings, dict(identity))
    chrome_args = list(args)
    default_args = DEFAULT_ARGS
    if resolved_settings is not None:
        _check_settings_args(resolved_settings, args)
        chrome_args = [*resolved_settings.launch_args(), *args]
        default_args = resolved_settings.default_args()

    async def start() -> Browser:
        lock: ProfileLock | None = None
        if directory is not None:
            resolved = check_user_data_dir(directory)
            lock = ProfileLock(resolved)
            await lock.acquire(lock_timeout)
        try:
            process = await start_chrome(
                executable_path=executable_path,
                headless=headless,
                args=chrome_args,
                user_data_dir=directory,
                pipe=pipe,
                env=env,
                viewport=viewport,
                default_args=default_args,
            )
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        transport: list[Transport] = []  # the one opened, for _abandon
        try:
            async with asyncio.timeout(timeout):
                browser = await _set_up_launched(
                    process, transport, pipe=pipe, timeout=timeout,
                    command_timeout=command_timeout, settings=resolved_settings, lock=lock,
                    storage_state=storage_state,
                )  # fmt: skip
            if not _collected_at_first_launch:
                asyncio.get_running_loop().call_soon(_collect_after_start_up)
            return browser
        except TimeoutError:
            await _abandon(process, transport[0] if transport else None, lock)
            raise LaunchError(
                f"Chrome was not ready within {timeout:g} s (launch(timeout=...) sets this). "
                f"{process.last_output()}"
            ) from None
        except BaseException:
            await _abandon(process, transport[0] if transport else None, lock)
            raise

    return _BrowserStarter(start)


async def _set_up_launched(
    process: ChromeProcess,
    opened: list[Transport],
    *,
    pipe: bool,
    timeout: float,
    command_timeout: float,
    settings: BrowserSettings | None,
    lock: ProfileLock | None,
    storage_state: str | os.PathLike[str] | Mapping[str, Any] | None,
) -> Browser:
    """Connect to the Chrome just started and set the browser up (its first tabs, the
    storage state); the transport opened goes into ``opened``.

    Raises:
        LaunchError: Chrome exited while starting (with what it printed).
    """
    transport: Transport
    if pipe:
        assert process.pipe_fds is not None
        pipe_transport = PipeTransport(*process.pipe_fds)
        transport = pipe_transport
        opened.append(transport)
        await pipe_transport.start()
    else:
        url = await process.wait_for_endpoint(timeout)
        transport = await WebSocketTransport.connect(url, timeout=timeout)
        opened.append(transport)
    connection = Connection(transport)
    browser = Browser(connection, process=process, command_timeout=command_timeout, settings=settings)
    browser._profile_lock = lock
    connection.start(browser)
    try:
        await browser._start()
        if settings is not None:
            await _replace_first_tabs(browser)
        state = storage_state
        if state is None and settings is not None:
            state = settings.storage_state
        if state is not None:
            from .storage import load_storage_state

            await load_storage_state(browser, state)
    except ConnectionClosedError:
        await asyncio.sleep(0.05)  # let Chrome's last output arrive
        raise LaunchError(f"{process.describe_exit()} while starting. {process.last_output()}") from None
    return browser


def _check_settings_args(settings: BrowserSettings, args: Sequence[str]) -> None:
    """Refuse Chrome flags that say the same thing as a setting, differently.

    Raises:
        LaunchError: Names the flag and the setting.
    """
    clashes = [
        (flag, setting)
        for flag, setting, given in (
            ("--proxy-server", "proxy", settings.proxy is not None),
            ("--proxy-bypass-list", "proxy", settings.proxy is not None),
            ("--lang", "locale", settings.locale is not None),
            ("--accept-lang", "accept_language", settings.effective_accept_language is not None),
            ("--user-agent", "user_agent", bool(settings.user_agent or settings.user_agents)),
        )
        if given and any(arg.lstrip("-").partition("=")[0] == flag[2:] for arg in args)
    ]
    if clashes:
        raise LaunchError(
            "Conflicting Chrome arguments: "
            + "; ".join(f"{flag} in args and the {setting}= setting: give only one"
                        for flag, setting in clashes)
        )


async def _abandon(
    process: ChromeProcess, transport: Transport | None, lock: ProfileLock | None
) -> None:
    with anyio.CancelScope(shield=True):
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()
        await process.stop(grace=0)
        if lock is not None:
            lock.release()


@keyword_signature(IdentityKeywords)
def connect(
    endpoint: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30,
    command_timeout: float = 30,
    keepalive: float | None = 20,
    settings: BrowserSettings | None = None,
    **identity: Unpack[IdentityKeywords],
) -> _BrowserStarter:
    """Attach to a running browser: ``async with cdpkit.connect("http://127.0.0.1:9222")``.

    Args:
        endpoint: ``http(s)://host:port`` (read through ``/json/version``) or the browser's
            ``ws(s)://`` URL, e.g. a hosted fleet's ``wss://host/?token=...`` or a Selenium
            Grid session's ``se:cdp`` URL; or ``"auto"``: the person's own running Chrome
            (stable, beta, dev, canary or Chromium, found through the ``DevToolsActivePort``
            of its default profile; Chrome 144+ writes it when remote debugging is turned on
            at ``chrome://inspect/#remote-debugging``, and asks the user to allow the
            connection); or ``"extension"``: the person's own browser as it runs, through
            the cdpkit extension and its bridge (see docs/extension.md: ``cdpkit extension
            path`` and ``cdpkit extension install``; its tabs are the pages, no new
            contexts). A token in the query is sent on the lookup and
            on the WebSocket; ``user:password@`` in an http(s) URL becomes Basic auth.
        headers: HTTP headers sent on the ``/json/version`` lookup and on the WebSocket
            upgrade (e.g. ``{"Authorization": "Bearer ..."}``). Never shown in errors.
        timeout: Seconds for the whole attach.
        command_timeout: Default timeout of every command on the browser and its pages.
        keepalive: Seconds between WebSocket pings, so that proxies and load balancers in
            front of a remote browser do not drop an idle connection; ``None`` sends none.
            A missing answer to a ping never closes the connection (a busy browser is not
            a dead one); a dead one is noticed when the socket fails.
        settings: :class:`~cdpkit.BrowserSettings` for the pages and contexts opened
            after attaching (tabs already open are left as they are). A ``proxy`` applies
            to contexts from :meth:`Browser.new_context` (the default context keeps the
            browser's own). The keywords ``user_agent``, ``user_agents``,
            ``accept_language``, ``locale``, ``timezone``, ``extra_headers``, ``proxy``,
            ``stealth`` and ``send_dnt`` each change one setting over it.

    Raises:
        ConnectError: Nothing listens there, it is not a DevTools endpoint (the message
            quotes what it sent), it wants credentials (401/403), or it gives no
            ``webSocketDebuggerUrl``. Messages show the endpoint with its password and
            query values masked (``?token=***``).
        ConnectTimeoutError: No complete answer within ``timeout`` (a silent port, a
            WebSocket that never completes its handshake); also a ``TimeoutError``.

    Closing detaches: the browser keeps running (pages cdpkit opened are closed).
    """
    sent_headers = check_headers(headers)
    check_keywords("connect", identity, IdentityKeywords)
    resolved_settings = _resolve_settings(settings, dict(identity))
    if keepalive is not None and keepalive <= 0:
        raise ValueError(f"keepalive must be a positive number of seconds or None, got {keepalive}")

    async def start() -> Browser:
        # One deadline for the whole attach; each step says what it was waiting for.
        stage = f"{redact(endpoint)} to answer"
        try:
            async with asyncio.timeout(timeout):
                chosen = endpoint.strip().lower()
                upgrade_headers = sent_headers
                if chosen == "auto":
                    from .._core.autoconnect import find_running_chrome

                    stage = "the person's running Chrome to be found"
                    url = await anyio.to_thread.run_sync(find_running_chrome)
                elif chosen == "extension":
                    url, bridge_headers = _extension_bridge()
                    upgrade_headers = {**sent_headers, **bridge_headers}
                else:
                    url = await browser_ws_url(endpoint, sent_headers)
                shown = redact(url)
                stage = f"the WebSocket handshake with {shown}"
                try:
                    transport = await WebSocketTransport.connect(
                        url, timeout=None, headers=upgrade_headers, ping_interval=keepalive
                    )
                except OSError as exc:
                    raise ConnectError(f"Could not connect to {shown}: {exc}") from None
                except websockets.InvalidStatus as exc:
                    status = exc.response.status_code
                    hint = (
                        ": the endpoint wants credentials (connect(headers={...}) or a token "
                        "in the URL)"
                        if status in (401, 403)
                        else ""
                    )
                    raise ConnectError(
                        f"{shown} refused the WebSocket upgrade with HTTP {status}{hint}"
                    ) from None
                except Exception as exc:  # websockets' other handshake errors
                    raise ConnectError(
                        f"{shown} is not a DevTools WebSocket endpoint: {exc}"
                    ) from None
                stage = f"the browser at {shown} to answer Browser.getVersion"
                return await attach(
                    transport, command_timeout=command_timeout, settings=resolved_settings
                )
        except TimeoutError:
            raise ConnectTimeoutError(
                f"Timed out after {timeout:g} s waiting for {stage} "
                "(connect(timeout=...) sets this)"
            ) from None

    return _BrowserStarter(start)


def _extension_bridge() -> tuple[str, dict[str, str]]:
    """The running extension bridge's client URL and the header with its token.

    Raises:
        ConnectError: No bridge runs (the extension is not loaded, not connected, or its
            native host is not installed), saying what to do.
    """
    from .._bridge import read_bridge_info

    info = read_bridge_info()
    if info is None:
        raise ConnectError(
            "No cdpkit extension bridge is running: load the extension in your browser "
            "(`cdpkit extension path` is the folder for chrome://extensions -> Load unpacked), "
            "run `cdpkit extension install` once, and check that its popup says Connected"
        )
    return info.client_url, {"Authorization": f"Bearer {info.token}"}


async def attach(
    transport: Transport, *, command_timeout: float = 30, settings: BrowserSettings | None = None
) -> Browser:
    """A :class:`Browser` over an open ``transport`` to a running browser, as
    :func:`connect` attaches (closing it detaches); for transports :func:`connect` cannot
    open itself, e.g. the cdpkit daemon's relayed connection.

    Raises:
        ConnectionClosedError: The transport closed before the browser answered.
    """
    connection = Connection(transport)
    browser = Browser(connection, process=None, command_timeout=command_timeout, settings=settings)
    connection.start(browser)
    try:
        await browser._start()
    except BaseException:
        await connection.close()
        raise
    return browser
