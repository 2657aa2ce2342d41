"""cdpkit's MCP server: the browser tools of :mod:`cdpkit.tools` for AI agents.

    cdpkit mcp                          # stdio (what MCP clients spawn)
    cdpkit mcp --http 127.0.0.1:8931    # streamable HTTP on http://127.0.0.1:8931/mcp
    python -m cdpkit.mcp_server ...     # the same, without the CLI

Needs the ``mcp`` extra (``pip install 'cdpkit-browser[mcp]'``); importing this module does
not import ``mcp``, and neither does ``import cdpkit``. Over stdio the handshake
(``initialize`` or ``server/discover``, then ``tools/list``) is answered by a front that
loads neither the SDK nor the browser code (:mod:`cdpkit.mcp._front`): an MCP host has
the tool list within a fraction of a second, and the SDK server, loaded meanwhile, takes
the connection over at the first tool call.

First come the tools of the light path (``browse``, ``get_links``, ``get_forms``,
``session_list``, ``session_close``; see :mod:`cdpkit.mcp._browse`), which fetch pages over
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

Who may use the HTTP server: only requests naming it by the address it listens on, in
their ``Host`` header and, from a web page, their ``Origin`` (any spelling of that
address; ``localhost`` too for a loopback address; any IP address when bound to every
interface): a web page of another name resolved to the server's address (DNS rebinding)
gets 421 or 403 and nothing else, whatever ``--http`` binds. Each client is known by an
id the server gave it (its ``mcp-session-id``, or for a stateless client the
``cdpkit-mcp-client`` cookie), never by its address or port; a client that keeps neither
is a new client at every request (see :mod:`cdpkit.mcp._app`).

The browser is started as the CLI's are (:mod:`cdpkit._front.browser_options`): ``--connect``
(a URL, ``host:port`` or a bare port), ``--headful``, ``--profile``, ``--chrome``,
``--chrome-arg``, ``--viewport WxH``, ``--timeout``. Both entry points (this module's
:func:`main` and the ``cdpkit mcp`` command) turn their values into :class:`ServerOptions`
with :func:`server_options`, so a bad value gets the same one-line error from either.
Both are made from the one table of options (:mod:`cdpkit._front.options`), and an option not
on the command line comes from its ``CDPKIT_*`` environment variable, then the config
file's ``[browser]`` table.

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
# browser code, pydantic or the SDK (see cdpkit.mcp._front).

if TYPE_CHECKING:
    from ._front import Handoff
    from ._session import ServerOptions

__all__ = [
    "INSTALL_HINT",
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
    from .._front.browser_options import CLIError

    if value is None:
        return 30.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise CLIError(f"Invalid --timeout {value!r}: give a positive number of seconds", 2)
    return seconds


# The agents' script_timeout when none is given: a script still not there after 10 s
# rarely comes, and the agent sees the page instead of a blank one (docs/mcp.md).
DEFAULT_SCRIPT_TIMEOUT = 10.0


def _script_timeout(value: float | str | None) -> float | None:
    """``--script-timeout``: ``None`` (wait for scripts) for 0."""
    from .._front.browser_options import CLIError

    if value is None:
        return DEFAULT_SCRIPT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 <= seconds < float("inf"):
        raise CLIError(f"Invalid --script-timeout {value!r}: give a number of seconds (0: wait)", 2)
    return seconds or None


def server_options(**values: Any) -> ServerOptions:
    """The server's options from the values of its command line, checked: what both
    ``cdpkit mcp`` and ``python -m cdpkit.mcp_server`` run before anything starts.

    Takes the options of :data:`cdpkit._front.options.MCP` by parameter name (``http="8931"``,
    ``allowed_origins=["example.com"]``, ``user_agent=...``; their meaning is their help,
    ``cdpkit mcp --help``); a value left out, ``None`` or ``False`` is not given: it comes
    from the option's environment variable (``CDPKIT_USER_AGENT``), then the config file's
    ``[browser]`` table, then the default (see :mod:`cdpkit._front.options`).

    Raises:
        TypeError: A name that is not one of the server's options.
        CLIError: A value or a combination that makes no sense (``http`` not
            ``HOST:PORT``, a bad ``--viewport`` or ``--timeout``, launch-only options with
            ``connect``, an origin entry that is not an origin), in one line naming the
            option; exit status 2.
    """
    from .._front.browser_options import CLIError, browser_options
    from .._front.options import MCP, layered_browser
    from ._session import ServerOptions
    from ._urls import UrlPolicy

    unknown = sorted(set(values) - set(MCP))
    if unknown:
        raise TypeError(f"server_options() got unexpected options: {', '.join(unknown)}")
    options, settings = layered_browser(values, MCP)
    try:
        http = options.get("http")
        address = parse_http(http) if http is not None else None
        url_policy = UrlPolicy.from_options(
            allow_file_urls=bool(options.get("allow_file_urls")),
            allowed_origins=options.get("allowed_origins"),
            blocked_origins=options.get("blocked_origins"),
        )
    except ValueError as exc:
        raise CLIError(str(exc), 2) from None
    browser = browser_options(
        options.get("connect"),
        bool(options.get("headful")),
        options.get("profile"),
        tuple(options.get("chrome_arg") or ()),
        _seconds(options.get("timeout")),
        viewport=options.get("viewport"),
        chrome=options.get("chrome"),
        grid=options.get("grid"),
        header=tuple(options.get("header") or ()),
        settings=settings,
    )
    downloads = options.get("downloads")
    record = options.get("record")
    return ServerOptions(
        browser=browser,
        downloads=Path(downloads).expanduser() if downloads is not None else None,
        allow_js=bool(options.get("allow_js")),
        url_policy=url_policy,
        http=address,
        snapshot_after_action=bool(options.get("snapshot_after_action")),
        record=Path(record).expanduser() if record is not None else None,
        shared_context=bool(options.get("shared_context")),
        script_timeout=_script_timeout(options.get("script_timeout")),
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
        handoff: The stdio connection as the front (:mod:`cdpkit.mcp._front`) hands it
            over, once it has answered the handshake; ``None``: the process's stdio.

    Raises:
        SystemExit: The ``mcp`` extra is not installed (the message says how to install
            it).
    """
    _require_mcp(options.http is not None)
    import asyncio
    import signal

    from . import _app, _http
    from ._session import BrowserSession

    session = BrowserSession(options)
    if options.http is not None:
        await _http.run_http(session, *options.http)
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
        await _app.run_stdio(session, handoff, handoff)
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


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m cdpkit.mcp_server`` (same options as ``cdpkit mcp``):
    every option defaults to ``None``, not given (see :func:`server_options`)."""
    from .._front.options import MCP, OPTIONS, add_arguments

    parser = argparse.ArgumentParser(
        prog="cdpkit mcp",
        description="MCP server giving an AI agent a Chromium browser (stdio by default).",
    )
    add_arguments(parser, MCP)
    for action in parser._actions:
        if action.dest in OPTIONS:
            action.help = OPTIONS[action.dest].help_for("mcp")
    return parser


def run_server(make_options: Callable[[], ServerOptions]) -> int:
    """Check the options, then serve; the exit status. What both entry points run.

    Bad options print one line (``error: ...``, as every cdpkit command) and give 2;
    without the ``mcp`` extra it prints how to install it and gives 1.
    """
    from .._front.browser_options import CLIError, report_error

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
    from .._front.options import env_values, given
    from ._front import front_serves, serve_stdio

    # What decides the path (--http, origin lists) may come from the environment too.
    routing = env_values(("http", "allowed_origins", "blocked_origins"), os.environ)
    listing = front_serves({**routing, **given(args)})
    if listing is None:
        return run_server(lambda: server_options(**args))
    return _serving(
        lambda: serve_stdio(listing, args, lambda: server_options(**args), _warm_stdio, serve)
    )


def _warm_stdio() -> None:
    """Check that the SDK is there, and load the server (the SDK, pydantic, the tools)
    before the first tool call needs it."""
    _require_mcp(http=False)
    from . import _app  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
