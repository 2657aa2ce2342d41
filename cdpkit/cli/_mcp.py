"""``cdpkit mcp``: serve the browser tools to an AI agent over the Model Context Protocol.

The options are those of ``python -m cdpkit.mcp_server``, made from the same declarations
(:data:`cdpkit._front.options.MCP`); their values are checked and turned into the server's
options by the same :func:`cdpkit.mcp_server.server_options`, so both entry points accept
and refuse the same values with the same words.
"""

from __future__ import annotations

import inspect
from typing import Any

import typer

from .._front.options import MCP, given
from ..mcp_server import run_server, server_options  # imports no `mcp`: safe here
from ._params import option_parameter


def mcp(**values: Any) -> None:
    """Serve the browser tools to an AI agent over the Model Context Protocol (needs the
    `mcp` extra: pip install 'cdpkit-browser[mcp]'). The browser starts on the first tool
    call and closes when the client disconnects. The same options as `python -m cdpkit.mcp_server`."""
    status = run_server(lambda: server_options(**given(values)))
    if status:
        raise typer.Exit(status)


# Its parameters, for typer: one keyword each, from the declarations.
_PARAMETERS = [option_parameter(name, "mcp") for name in MCP]
mcp.__signature__ = inspect.Signature(_PARAMETERS)  # type: ignore[attr-defined]
mcp.__annotations__ = {parameter.name: parameter.annotation for parameter in _PARAMETERS}
