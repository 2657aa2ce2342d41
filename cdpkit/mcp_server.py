"""cdpkit's MCP server: the browser tools of :mod:`cdpkit.tools` for AI agents.

    cdpkit mcp                          # stdio (what MCP clients spawn)
    cdpkit mcp --http 127.0.0.1:8931    # streamable HTTP on http://127.0.0.1:8931/mcp
    python -m cdpkit.mcp_server ...     # the same, without the CLI

Needs the ``mcp`` extra (``pip install 'cdpkit-browser[mcp]'``); importing this module does
not import ``mcp``, and neither does ``import cdpkit``. Over stdio the handshake
(``initialize`` or ``server/discover``, then ``tools/list``) is answered by a front that
loads neither the SDK nor the browser code (:mod:`cdpkit._mcp_front`): an MCP host has
the tool list within a fraction of a second, and the SDK server, loaded meanwhile, takes
the connection over at the first tool call.

First come the tools of the light path (``browse``, ``get_links``, ``get_forms``,
``session_list``, ``session_close``; see :mod:`cdpkit._mcp_browse`), which fetch pages over
HTTP and use the browser only for pages that need JavaScript. Then every tool function is
exposed under the MCP name agents know (``browser_navigate``, ``browser_click``,
``browser_snapshot``...): its input schema comes from the function's signature and its
description from the docstring. Each tool acts on the active tab of one browser, started
on the first tool call that needs it (``initialize`` stays fast) and closed when the
client disconnects, so nothing is left running: over stdio when the client closes stdin
(or on SIGTERM/SIGINT); over HTTP when the last client session ends (``DELETE``) or the
server stops (clients of the sessionless 2026 protocol end nothing: the browser then
stays until the server stops). Results: images (screenshots, downloaded images) as
image content, PDFs and other files up to 5 MiB as embedded blob resources (larger
downloads by path and metadata only), text and JSON as text; a failing tool returns an
error result with the tool's message, and the server goes on.

What the agent may reach: ``file:`` URLs, the browser's own pages (``chrome://``) and
uploads of files outside the download directory only with ``--allow-file-urls``; web
origins as ``--allowed-origins`` / ``--blocked-origins`` say (as in playwright-mcp).
Checked on the URLs tools are given (navigation, new tabs, downloads, scrapes), by the
browser on every page and frame request when an origin list is set (redirects, clicked
links, scripts), and on where the tab ends up after each tool: no tool reads or acts on
a page at a blocked URL.

The browser is started as the CLI's are (:mod:`cdpkit._browser_options`): ``--connect``
(a URL, ``host:port`` or a bare port), ``--headful``, ``--profile``, ``--chrome``,
``--chrome-arg``, ``--viewport WxH``, ``--timeout``. Both entry points (this module's
:func:`main` and the ``cdpkit mcp`` command) turn their values into :class:`ServerOptions`
with :func:`server_options`, so a bad value gets the same one-line error from either.

Resources: ``dom://current-page`` (the active tab's simplified DOM tree) and ``tabs://list``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Nothing heavy at import: `cdpkit mcp` answers the handshake before it loads the
# browser code, pydantic or the SDK (see cdpkit._mcp_front).

if TYPE_CHECKING:
    from ._mcp_front import Handoff
    from ._mcp_session import ServerOptions

__all__ = [
    "HELP",
    "INSTALL_HINT",
    "ORIGINS_HELP",
    "main",
    "parse_http",
    "run_server",
    "serve",
    "serve_async",
    "server_options",
]

INSTALL_HINT = (
    "The MCP server needs the 'mcp' package, an optional extra of cdpkit. "
    "Install it with: pip install 'cdpkit-browser[mcp]'"
)

DEFAULT_HOST = "127.0.0.1"

# The forms of an --allowed-origins / --blocked-origins entry (see _mcp_urls.OriginPattern).
ORIGINS_HELP = (
    "separated by ';' or ',', or repeat the option; an entry is an origin "
    "(https://example.com: that scheme, host and port; http://localhost:* any port), "
    "a host (example.com: http or https, any port; example.com:8080) or *.example.com "
    "(its subdomains)"
)

# The help of each option, written once for both entry points (argparse here, typer in
# cdpkit.cli._mcp), keyed by the option's parameter name; with the browser settings'
# help (``HELP``, built on first use: those live with the browser options).
_OWN_HELP = {
    "http": "Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT "
    "binds 127.0.0.1).",
    "headful": "Show the browser window.",
    "connect": "Drive a running browser instead of launching one (http://127.0.0.1:PORT, "
    "just PORT, its ws:// URL, or 'auto' for your own Chrome with remote debugging on); only "
    "the tabs the server opened are closed.",
    "grid": "Lease the browser from a Selenium Grid 4 (http://grid:4444) instead of launching "
    "one; its session is deleted when the server stops.",
    "header": "An HTTP header for --connect or --grid ('Name: value', e.g. an Authorization "
    "token), sent to that endpoint only, repeatable; never printed (--extra-header sends "
    "one with the pages' requests).",
    "profile": "Launch on this persistent profile (see `cdpkit open-browser --profile NAME`).",
    "chrome": "The Chrome or Chromium executable to launch (default: $CDPKIT_CHROME, then "
    "the usual names and places).",
    "chrome_arg": "An extra Chrome flag, repeatable; write it with '=': --chrome-arg=--lang=fr.",
    "viewport": "The page size of a launched browser in CSS pixels, e.g. 1920x1080 "
    "(default 1280x720).",
    "timeout": "Seconds allowed to start or attach to the browser and for each of its "
    "commands to answer (default 30).",
    "downloads": "Where browser_download saves files (default ~/Downloads).",
    "allow_js": "Offer browser_execute_js (runs any JavaScript the agent sends).",
    "allow_file_urls": "Let the agent open file: URLs (the local disk) and the browser's own "
    "pages (chrome://...), and upload any local file; by default it cannot, and uploads "
    "only files from the download directory.",
    "allowed_origins": "Only web pages of these origins may be loaded, read or downloaded "
    f"(default: any); {ORIGINS_HELP}.",
    "blocked_origins": f"Refuse web pages of these origins, even if allowed; {ORIGINS_HELP}.",
    "snapshot_after_action": "Return a full snapshot (browser_snapshot's, within its default "
    "budget) after every action tool, as well as the few lines saying what the action "
    "changed.",
    "shared_context": "With --http: let every client share one browser context (cookies, "
    "storage, tabs). By default each client session gets a context of its own, closed "
    "when the client disconnects.",
}


HELP: dict[str, str]  # (declared: built by __getattr__ on first use)


def __getattr__(name: str) -> Any:
    if name == "HELP":
        from ._browser_options import SETTINGS_HELP

        value = {**_OWN_HELP, **SETTINGS_HELP}
        globals()["HELP"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host ``127.0.0.1``); ``[::1]:PORT`` for IPv6.

    Raises:
        ValueError: Not one of those forms, or the port is not 1-65535.
    """
    text = value.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "", text
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"Write an IPv6 host in brackets, e.g. [::1]:8931; got {value!r}")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8931); got {value!r}") from None
    if not 0 < port < 65536:
        raise ValueError(f"The port must be between 1 and 65535; got {port}")
    return host or DEFAULT_HOST, port


def _seconds(value: float | str | None) -> float:
    from ._browser_options import CLIError

    if value is None:
        return 30.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise CLIError(f"Invalid --timeout {value!r}: give a positive number of seconds", 2)
    return seconds


def server_options(
    *,
    http: str | None = None,
    headful: bool = False,
    connect: str | None = None,
    grid: str | None = None,
    header: Sequence[str] | None = None,
    profile: str | None = None,
    chrome: str | None = None,
    chrome_arg: Sequence[str] | None = None,
    viewport: str | None = None,
    timeout: float | str | None = None,
    downloads: str | os.PathLike[str] | None = None,
    allow_js: bool = False,
    allow_file_urls: bool = False,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    user_agent: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    proxy: str | None = None,
    stealth: bool = False,
    extra_header: Sequence[str] | None = None,
    storage_state: str | None = None,
    snapshot_after_action: bool = False,
    shared_context: bool = False,
) -> ServerOptions:
    """The server's options from the values of its command line, checked: what both
    ``cdpkit mcp`` and ``python -m cdpkit.mcp_server`` run before anything starts.

    Args:
        http: Serve streamable HTTP on ``HOST:PORT`` (path ``/mcp``) instead of stdio.
            The host defaults to ``127.0.0.1``; other hosts expose the browser to the
            network.
        headful: Show the browser window.
        connect: Attach to a running browser (``http://host:port``, ``host:port``, a bare
            port on 127.0.0.1, or ``ws://...``) instead of launching one; on exit only the
            tabs the server opened are closed.
        grid: Lease the browser from this Selenium Grid 4 instead of launching one.
        header: ``'Name: value'`` HTTP headers for ``connect`` or ``grid``.
        profile: Launch with this named persistent profile (see ``cdpkit open-browser``).
        chrome: The Chrome executable to launch (default: found as :func:`cdpkit.launch`
            finds it).
        chrome_arg: Extra Chrome flags for a launched browser.
        viewport: ``WIDTHxHEIGHT`` of a launched browser's pages (default 1280x720).
        timeout: Seconds to start or attach to the browser and for each browser command
            (default 30).
        downloads: Where ``browser_download`` saves files; default ``~/Downloads``.
        allow_js: Offer ``browser_execute_js`` (runs any JavaScript the model writes).
        allow_file_urls: Let the tools load and read ``file:`` URLs (the local disk) and
            the browser's own pages (``chrome://...``), and upload any local file; by
            default they cannot, and upload only files from the download directory.
        allowed_origins: Only web pages of these origins may be loaded, read or
            downloaded (default: any). Entries separated by ``;`` or ``,`` (or given as a
            list): ``https://example.com`` (that scheme, host and port),
            ``http://localhost:*`` (any port), ``example.com`` (http or https, any port),
            ``*.example.com`` (its subdomains).
        blocked_origins: Web pages of these origins are refused, even if also allowed
            (same forms).
        user_agent: The browser's user agent (``--user-agent``).
        locale: Its locale (``--locale``).
        timezone: Its time zone (``--timezone``).
        proxy: Its proxy URL (``--proxy``).
        stealth: Hide headless automation (``--stealth``).
        extra_header: ``'Name: value'`` headers sent with the pages' requests.
        storage_state: A ``storage_state`` JSON file to start logged in from.
        snapshot_after_action: After each action tool, return a full snapshot as well as
            the lines saying what the action changed.
        shared_context: Over HTTP, let every client share the browser's one context
            instead of each client session getting its own.

    Raises:
        CLIError: A value or a combination that makes no sense (``http`` not
            ``HOST:PORT``, a bad ``--viewport`` or ``--timeout``, launch-only options with
            ``connect``, an origin entry that is not an origin), in one line naming the
            option; exit status 2.
    """
    from ._browser_options import CLIError, browser_options, browser_settings
    from ._mcp_session import ServerOptions
    from ._mcp_urls import UrlPolicy

    try:
        address = parse_http(http) if http is not None else None
        url_policy = UrlPolicy.from_options(
            allow_file_urls=allow_file_urls,
            allowed_origins=allowed_origins,
            blocked_origins=blocked_origins,
        )
    except ValueError as exc:
        raise CLIError(str(exc), 2) from None
    browser = browser_options(
        connect,
        headful,
        profile,
        tuple(chrome_arg or ()),
        _seconds(timeout),
        viewport=viewport,
        chrome=chrome,
        grid=grid,
        header=tuple(header or ()),
        settings=browser_settings(
            user_agent=user_agent,
            locale=locale,
            timezone=timezone,
            proxy=proxy,
            stealth=stealth,
            extra_header=tuple(extra_header or ()),
            storage_state=storage_state,
        ),
    )
    return ServerOptions(
        browser=browser,
        downloads=Path(downloads).expanduser() if downloads is not None else None,
        allow_js=allow_js,
        url_policy=url_policy,
        http=address,
        snapshot_after_action=snapshot_after_action,
        shared_context=shared_context,
    )


def _require_mcp(http: bool = True) -> None:
    # uvicorn serves --http only: stdio does not load it (the browser host waits for us).
    try:
        import mcp  # noqa: F401

        if http:
            import uvicorn  # noqa: F401
    except ImportError:
        raise SystemExit(INSTALL_HINT) from None
    from importlib.metadata import PackageNotFoundError, version

    with contextlib.suppress(PackageNotFoundError, ValueError):
        installed = version("mcp")
        if int(installed.split(".")[0]) < 2:
            raise SystemExit(
                f"The MCP server needs version 2 of the 'mcp' package; version {installed} is "
                f"installed. Upgrade it with: pip install -U 'cdpkit-browser[mcp]'"
            )


async def serve_async(options: ServerOptions, handoff: Handoff | None = None) -> None:
    """Run the MCP server in the running event loop until the client disconnects (stdio)
    or the server is interrupted (HTTP); the browser is closed before it returns.

    Args:
        options: What :func:`server_options` made of the command line.
        handoff: The stdio connection as the front (:mod:`cdpkit._mcp_front`) hands it
            over, once it has answered the handshake; ``None``: the process's stdio.

    Raises:
        SystemExit: The ``mcp`` extra is not installed (the message says how to install
            it).
    """
    _require_mcp(options.http is not None)
    import asyncio
    import signal

    from . import _mcp_app
    from ._mcp_session import BrowserSession

    session = BrowserSession(options)
    if options.http is not None:
        await _mcp_app.run_http(session, *options.http)
        return
    main_task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def stop() -> None:
        # Close the browser first: the task may not be cancellable while a thread blocks
        # on reading stdin.
        async def shut_down() -> None:
            await session.close()
            if main_task is not None:
                main_task.cancel()
            await asyncio.sleep(2)
            os._exit(0)  # still stuck reading stdin: the browser is closed, leave

        if not stopping:
            stopping.add(loop.create_task(shut_down()))

    handled = []
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop)
            handled.append(signum)
    try:
        await _mcp_app.run_stdio(session, handoff, handoff)
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)


def serve(options: ServerOptions, handoff: Handoff | None = None) -> None:
    """Run the MCP server until the client disconnects (stdio) or the server is
    interrupted (HTTP). Blocks.

    Args:
        options: What :func:`server_options` made of the command line.
        handoff: The stdio connection as the front hands it over (see
            :func:`serve_async`).

    Raises:
        SystemExit: The ``mcp`` extra is not installed (the message says how to install
            it: ``pip install 'cdpkit-browser[mcp]'``), so a CLI exits 1 without a traceback.
    """
    import asyncio

    _require_mcp(options.http is not None)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_async(options, handoff))


class _Parser(argparse.ArgumentParser):
    """Fills in the options' help only when it is shown (the browser settings' help
    lives with the browser code, which serving loads later)."""

    def format_help(self) -> str:
        help_texts = __getattr__("HELP")
        for action in self._actions:
            if action.dest in help_texts:
                action.help = help_texts[action.dest]
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m cdpkit.mcp_server`` (same options as ``cdpkit mcp``)."""
    parser = _Parser(
        prog="cdpkit mcp",
        description="MCP server giving an AI agent a Chromium browser (stdio by default).",
    )
    add = parser.add_argument
    add("--http", metavar="HOST:PORT")
    add("--headful", action="store_true")
    add("--connect", metavar="ENDPOINT")
    add("--grid", metavar="URL")
    add("--header", metavar="'NAME: VALUE'", action="append")
    add("--profile", metavar="NAME")
    add("--chrome", metavar="PATH")
    add("--chrome-arg", metavar="FLAG", action="append")
    add("--viewport", metavar="WxH")
    add("--timeout", metavar="SECONDS")
    add("--downloads", metavar="DIR")
    add("--allow-js", action="store_true")
    add(
        "--allow-file-urls",
        "--allow-unrestricted-file-access",
        dest="allow_file_urls",
        action="store_true",
    )
    add("--allowed-origins", metavar="ORIGINS", action="append")
    add("--blocked-origins", metavar="ORIGINS", action="append")
    add("--user-agent", metavar="UA")
    add("--locale", metavar="TAG")
    add("--timezone", metavar="ZONE")
    add("--proxy", metavar="URL")
    add("--stealth", action="store_true")
    add("--extra-header", metavar="'NAME: VALUE'", action="append")
    add("--storage-state", metavar="PATH")
    add("--snapshot-after-action", action="store_true")
    add("--shared-context", action="store_true")
    return parser


def run_server(make_options: Callable[[], ServerOptions]) -> int:
    """Check the options, then serve; the exit status. What both entry points run.

    Bad options print one line (``error: ...``, as every cdpkit command) and give 2;
    without the ``mcp`` extra it prints how to install it and gives 1.
    """
    from ._browser_options import CLIError, report_error

    try:
        options = make_options()
    except CLIError as exc:
        report_error(exc, debug=False)
        return exc.exit_code
    return _serving(lambda: serve(options))


def _serving(run: Callable[[], None]) -> int:
    """Run the server; the exit status (1, after its message, without the mcp extra)."""
    try:
        run()
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            return 1
        raise
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the server; the exit status.

    Without the ``mcp`` extra it prints how to install it and returns 1; invalid options
    print the problem in one line and return 2.
    """
    args = vars(build_parser().parse_args(argv))
    from ._mcp_front import front_serves, serve_stdio

    listing = front_serves(args)
    if listing is None:
        return run_server(lambda: server_options(**args))
    return _serving(
        lambda: serve_stdio(listing, args, lambda: server_options(**args), _warm_stdio, serve)
    )


def _warm_stdio() -> None:
    """Check that the SDK is there, and load the server (the SDK, pydantic, the tools)
    before the first tool call needs it."""
    _require_mcp(http=False)
    from . import _mcp_app  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
