"""cdpkit's MCP server (``cdpkit mcp``, ``python -m cdpkit.mcp_server``): the browser
tools of :mod:`cdpkit.tools` for AI agents. What it serves and how: :mod:`cdpkit.mcp._server`.

Importing the package imports neither ``mcp`` (the SDK) nor the browser code: the stdio
front answers the handshake before either is loaded.

The package, one job a module: :mod:`~cdpkit.mcp._server` (the entry point and its
options), :mod:`~cdpkit.mcp._front` (the stdio handshake, from the recorded
:mod:`~cdpkit.mcp._listing`), :mod:`~cdpkit.mcp._app` (the SDK server),
:mod:`~cdpkit.mcp._tools` (the tool list, with :mod:`~cdpkit.mcp._schema`,
:mod:`~cdpkit.mcp._text`, :mod:`~cdpkit.mcp._render`), :mod:`~cdpkit.mcp._browse` (the
light-path tools), :mod:`~cdpkit.mcp._session` (the options and the browser),
:mod:`~cdpkit.mcp._urls` and :mod:`~cdpkit.mcp._reach` (what the agent may reach),
:mod:`~cdpkit.mcp._changes`, :mod:`~cdpkit.mcp._network`, :mod:`~cdpkit.mcp._state`
and :mod:`~cdpkit.mcp._downloads` (what a tool reports beside its result).
"""

from __future__ import annotations

from ._server import (
    INSTALL_HINT,
    build_parser,
    main,
    parse_http,
    run_server,
    serve,
    serve_async,
    server_options,
)

__all__ = [
    "INSTALL_HINT",
    "build_parser",
    "main",
    "parse_http",
    "run_server",
    "serve",
    "serve_async",
    "server_options",
]
