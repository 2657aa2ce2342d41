"""``cdpkit tui [URL]``: a terminal browser on the browse engine (see :mod:`cdpkit._tui`).

Textual is imported only when the command runs, so ``cdpkit --help`` stays light; without
it the command says what to install.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .._cli_common import CLIError, _options, normalize_url, run
from ._browse import browser_factory
from ._params import ConnectOption, DebugOption, HeadfulOption


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
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    debug: DebugOption = False,
) -> None:
    """Read and drive the web from a terminal: the page as text with numbered links
    (f N follows one), vim keys (? lists them; [tui.keys] of the config file changes
    them), forms filled with Tab and Enter and submitted in Chrome, and a command mode
    (:snapshot, :click N, :type N text, :screenshot PATH, :markdown PATH...). Chrome starts
    only when a page needs it, and is closed when you quit."""
    from .._browse import Engine
    from .._browse._config import ConfigError
    from .._tui import TEXTUAL_MISSING, load_keymap, run_tui, textual_installed

    if not textual_installed():
        raise CLIError(TEXTUAL_MISSING, 1)
    if not timeout > 0:
        raise CLIError(f"Invalid --timeout {timeout:g}: give a positive number of seconds", 2)
    target = normalize_url(url) if url is not None else None
    if session is not None:
        from .._browse._sessions import check_session_name

        try:
            check_session_name(session)
        except ValueError as exc:
            raise CLIError(f"Invalid --session: {exc}", 2) from None
    given = connect is not None or headful
    options = _options(connect, headful, None, None, timeout) if given else None
    try:
        keymap = load_keymap()
        engine = Engine(browser_factory=browser_factory(options) if options is not None else None)
    except ConfigError as exc:  # names the file, the table and the key
        raise CLIError(str(exc), 2) from None

    async def work() -> None:
        await run_tui(engine, target, keymap=keymap, session=session, tier=tier, timeout=timeout)

    run(work, debug=debug)
