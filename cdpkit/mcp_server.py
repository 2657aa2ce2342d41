"""cdpkit's MCP server, the public entry point (the code is in :mod:`cdpkit.mcp`)::

    cdpkit mcp                          # stdio (what MCP clients spawn)
    cdpkit mcp --http 127.0.0.1:8931    # streamable HTTP on http://127.0.0.1:8931/mcp
    python -m cdpkit.mcp_server ...     # the same, without the CLI

Importing this module does not import ``mcp`` (see :mod:`cdpkit.mcp._server`).
"""

from __future__ import annotations

import sys

from .mcp import (
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

if __name__ == "__main__":
    sys.exit(main())
