"""The bindings' commands: ``protocol`` (what the bindings know) and ``gen`` (regenerate
them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .._front.cli_common import run
from .._front.protocol_docs import describe_protocol
from ._params import DebugOption


def protocol(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="A domain (Page), command (Page.navigate), event (Page.loadEventFired) or type (Page.Frame); none lists the domains.",
            show_default=False,
        ),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Show the protocol as the bindings know it: domains, or the docs and Python
    signature of a command, event or type."""

    async def work() -> None:
        print(describe_protocol(name))

    run(work, debug=debug)


def gen(
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; fail if the bindings differ from what would be generated."),
    ] = False,
    from_browser: Annotated[
        str | None,
        typer.Option(
            "--from-browser",
            metavar="URL",
            help="Generate from a running browser's URL/json/protocol (e.g. http://127.0.0.1:9222) instead of the pin.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="The package directory to write (default: cdpkit/cdp)."),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Regenerate the typed bindings (cdpkit.cdp) from the pinned protocol JSON or from a
    running browser; wraps `python -m cdpkit.codegen`."""
    from ..codegen.__main__ import main as codegen_main

    argv: list[str] = []
    if check:
        argv.append("--check")
    if from_browser is not None:
        argv += ["--from-browser", from_browser]
    if out is not None:
        argv += ["--out", str(out)]

    async def work() -> int:
        return codegen_main(argv)

    status = run(work, debug=debug)
    raise typer.Exit(status)
