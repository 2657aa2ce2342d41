"""The ``cdpkit`` command: a REPL on a live page, one-shot commands, and tools around the
generated bindings.

::

    cdpkit repl [URL]                    Python with top-level await, plus raw CDP lines
    cdpkit screenshot URL [-o FILE]      cdpkit snapshot URL        cdpkit eval URL EXPR
    cdpkit pdf URL [-o FILE]             cdpkit scrape URL [--format ...]
    cdpkit browse URL [--format ...]     HTTP first, Chrome only when the page needs it
    cdpkit tui [URL]                     a terminal browser: read pages, follow links, fill forms
    cdpkit download URL [--dir DIR]
    cdpkit protocol [Domain[.item]]      cdpkit gen [--check]       cdpkit doctor
    cdpkit launch                        cdpkit open-browser --profile NAME

Every command that drives a browser launches a headless one (``--headful`` shows it,
``--profile NAME`` uses a persistent profile) or attaches to a running one with
``--connect http://127.0.0.1:PORT`` (or just ``--connect PORT``). Commands that load a
page wait for its content to settle before working on it (``--wait MS`` waits a fixed
time instead, ``--wait 0`` not at all). Exit status: 0 on success; 1 on failure, with one
line ``error: ...`` on stderr (``--debug`` or ``CDPKIT_DEBUG=1`` prints the traceback
instead); 2 for a bad command line, URL or output file; 130 when interrupted by Ctrl-C.

The package, one module per job: ``_params`` (the shared options and output checks),
``_pages`` (repl, screenshot, pdf, snapshot, scrape, eval), ``_browse``, ``_tui``, ``_download``, ``_protocol``
(protocol, gen), ``_browser`` (launch, open-browser), ``_doctor`` and ``_mcp``. They define
the commands; this module registers them on the one ``app``, in the order ``--help`` lists
them.

``import cdpkit`` never imports this package (nor typer): only the command does. And
``cdpkit mcp`` (what an MCP host spawns, and waits for) goes straight to
:func:`cdpkit.mcp_server.main`, with the same options, checks and messages, without
loading typer and the other commands (nor, until the handshake is answered, the SDK and
the browser code: see :mod:`cdpkit.mcp._front`): only ``cdpkit mcp --help`` goes through
the app.
``cdpkit tui`` (a person waiting for the first page) has the same kind of fast path,
:func:`cdpkit._tui._command.main`; so do screenshot, pdf, snapshot, scrape and eval
while a ``cdpkit daemon`` runs: a plain command line is handed to the daemon's warm
command runner before anything heavy is imported (:mod:`cdpkit._daemon._fast`).
The app and its helpers (:mod:`cdpkit.cli._app`) are loaded on first access.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._front.browser_options import BrowserOptions, CLIError, open_browser
    from .._front.cli_common import normalize_url
    from ._app import app

__all__ = ["BrowserOptions", "CLIError", "app", "main", "normalize_url", "open_browser"]

# The commands a running daemon's command runner may take (cdpkit._daemon._fast.OPTIONS).
FAST_COMMANDS = frozenset({"screenshot", "pdf", "snapshot", "scrape", "eval"})


def _serves_mcp(args: Sequence[str]) -> bool:
    """``cdpkit mcp ...`` asking to serve (not for its help)."""
    return bool(args) and args[0] == "mcp" and not {"-h", "--help"} & set(args[1:])


def _runs_tui(args: Sequence[str]) -> bool:
    """``cdpkit tui ...`` asking to run (not for its help)."""
    return bool(args) and args[0] == "tui" and not {"-h", "--help"} & set(args[1:])


def main(argv: list[str] | None = None) -> None:
    """The ``cdpkit`` console script (also ``python -m cdpkit``)."""
    try:
        _main(argv)
    except KeyboardInterrupt:
        # Ctrl-C before a command's own handling is in place (while the command line's
        # modules load, a few hundred ms on a busy machine): the commands' message, not a
        # traceback of the import that was running.
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)


def _main(argv: list[str] | None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if argv is None and args and args[0] in FAST_COMMANDS:
        # A one-shot command a running daemon's warm runner can take (only when run as
        # the program: its output goes to the process's own descriptors).
        from .._daemon import run_by_daemon

        status = run_by_daemon(args)
        if status is not None:
            sys.exit(status)
    if _serves_mcp(args):
        from ..mcp_server import main as serve_mcp

        sys.exit(serve_mcp(args[1:]))
    if _runs_tui(args):
        from .._tui import main as run_tui

        status = run_tui(args[1:])
        if status is not None:
            sys.exit(status)
        # A command line it leaves to the app, which says what is wrong with it.
    from ._app import main as run_app

    run_app(argv)


def __getattr__(name: str) -> Any:
    # The app and the helpers tests and scripts import from cdpkit.cli, loaded when asked
    # (import_module, not `from . import`: that would ask this hook for `_app` again).
    app_module = importlib.import_module(f"{__name__}._app")
    try:
        return getattr(app_module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
