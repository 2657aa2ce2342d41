"""``cdpkit tui [URL]``: a terminal browser on the browse engine (see :mod:`cdpkit._tui`).

Textual is imported only when the command runs, so ``cdpkit --help`` stays light; without
it the command says what to install. This is the command as ``cdpkit --help`` and
``cdpkit tui --help`` show it; running it usually takes the fast path
(:func:`cdpkit._tui._command.main`, same options, checks and messages, without typer).
"""

from __future__ import annotations

from typing import Annotated, Unpack

import typer

from .._front.browser_options import debug_wanted
from .._front.cli_common import run
from ._params import DebugOption, EngineFlags, with_browser


@with_browser("connect headful script_timeout")
def tui(
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="A page to open (a URL, a host name or a local HTML file).",
                       show_default=False),
    ] = None,
    tier: Annotated[
        int | None,
        typer.Option("--tier", min=1, max=3,
                     help="Use exactly this tier: 1 HTTP, 2 light Chrome, 3 full Chrome (default: as the page needs)."),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="NAME",
                     help="A named session: its cookies are saved when you quit and sent next time."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="SECONDS", help="For each page, all tiers together.")
    ] = 30.0,
    debug: DebugOption = False,
    **flags: Unpack[EngineFlags],
) -> None:
    """Read and drive the web from a terminal: the page as text with numbered links
    (f N follows one), vim keys (? lists them; [tui.keys] of the config file changes
    them), forms filled with Tab and Enter and submitted in Chrome, and a command mode
    (:snapshot, :click N, :type N text, :screenshot PATH, :markdown PATH...). Chrome starts
    only when a page needs it, and is closed when you quit."""
    from .._tui import prepare

    work = prepare(
        url, tier=tier, session=session, timeout=timeout, connect=flags["connect"],
        headful=flags["headful"], script_timeout=flags["script_timeout"],
    )  # fmt: skip
    run(work, debug=debug_wanted(debug))
