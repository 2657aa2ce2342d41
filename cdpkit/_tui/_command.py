"""What ``cdpkit tui`` does with its command line, shared by its two entries: the typer
command (:mod:`cdpkit.cli._tui`, which ``--help`` goes through) and the fast path
:func:`main` that :func:`cdpkit.cli.main` takes for ``cdpkit tui ...``, so the first page
shows without loading typer and every other command.

:func:`prepare` checks the values (the same checks and messages for both) and gives the
work to run; :func:`main` parses the same options without typer and, when a value is
one only typer words well (an unknown option, ``--tier 7``), hands the command line back
to the app, so the messages stay the app's.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .._front.browser_options import (
    BrowserOptions,
    CLIError,
    browser_options,
    browser_settings,
    debug_wanted,
)

if TYPE_CHECKING:
    from ..browser import Browser

__all__ = ["main", "prepare"]

TIERS = (1, 2, 3)


def prepare(
    url: str | None, *, tier: int | None, session: str | None, timeout: float, connect: str | None,
    headful: bool, script_timeout: float | None = None,
) -> Callable[[], Coroutine[Any, Any, None]]:  # fmt: skip
    """Check ``cdpkit tui``'s values and build what it runs: the app on an engine that
    starts no browser until a page needs one.

    Raises:
        CLIError: Textual is missing (exit status 1), or a value is wrong: the URL, the
            session name, ``--timeout``, ``--connect``, ``--script-timeout``, the
            ``[tui.keys]`` of the config file (exit status 2). The message names it.
    """
    from .._front.cli_common import normalize_url
    from . import TEXTUAL_MISSING, load_keymap, run_tui, textual_installed

    if not textual_installed():
        raise CLIError(TEXTUAL_MISSING, 1)
    if not timeout > 0:
        raise CLIError(f"Invalid --timeout {timeout:g}: give a positive number of seconds", 2)
    target = normalize_url(url) if url is not None else None
    if session is not None:
        from .._browse import check_session_name

        try:
            check_session_name(session)
        except ValueError as exc:
            raise CLIError(f"Invalid --session: {exc}", 2) from None
    # --connect, --headful, --script-timeout and the identity from their CDPKIT_* variables
    # too; the config file's [browser] table is the engine's own.
    from .._front.options import IDENTITY, OptionError, layered

    flags = {"connect": connect, "headful": headful, "script_timeout": script_timeout}
    try:
        values = layered(flags, ("connect", "headful", "script_timeout", *IDENTITY),
                         environ=os.environ, config={})  # fmt: skip
    except OptionError as exc:
        raise CLIError(str(exc), 2) from None
    connect, headful = values.pop("connect", None), bool(values.pop("headful", False))
    # Over the config file's [browser] script_timeout: every page the engine loads (each
    # tier-3 render) and the live page (see Driver.live_page) give up a stalled script.
    script_timeout = values.pop("script_timeout", None)
    config = {"browser": {"script_timeout": script_timeout}} if script_timeout is not None else None
    settings = browser_settings(**values)
    given = connect is not None or headful
    options = browser_options(connect, headful, None, None, timeout) if given else None
    from .._browse import ConfigError, Engine

    try:
        keymap = load_keymap()
        factory = _browser_factory(options) if options is not None else None
        engine = Engine(config, browser_factory=factory, settings=settings)
        if options is None:  # the config's browser: a running cdpkit daemon's when it fits
            from .._daemon import daemon_first

            engine = Engine(config, browser_factory=daemon_first(engine), settings=settings)
    except ConfigError as exc:  # names the file, the table and the key
        raise CLIError(str(exc), 2) from None

    async def work() -> None:
        await run_tui(engine, target, keymap=keymap, session=session, tier=tier, timeout=timeout)

    return work


def _browser_factory(options: BrowserOptions) -> Callable[[], Awaitable[Browser]]:
    """The browser ``--connect``/``--headful`` describe, started when a page needs it."""
    from .._front.browser_options import start_browser

    async def make() -> Browser:
        from .._daemon import daemon_preferred

        with daemon_preferred():  # a running cdpkit daemon's browser, unless --no-daemon
            return await start_browser(options)

    return make


class _Unparsed(Exception):
    """A command line the fast path leaves to the app (which words what is wrong)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Unparsed(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cdpkit tui", add_help=False, allow_abbrev=False)
    parser.add_argument("url", nargs="?")
    parser.add_argument("--tier", type=int)
    parser.add_argument("--session")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--connect")
    parser.add_argument("--headful", action="store_true")
    parser.add_argument("--script-timeout", type=float)
    parser.add_argument("--debug", action="store_true")
    return parser


def main(argv: Sequence[str]) -> int | None:
    """Run ``cdpkit tui`` on its arguments (those after ``tui``) without typer; the exit
    status, or ``None`` for a command line to give to the app instead (one it refuses,
    with its own words)."""
    from .._front.cli_common import ExitStatus, run_plain

    try:
        args = _parser().parse_args(list(argv))
    except _Unparsed:
        return None
    if args.tier is not None and args.tier not in TIERS:
        return None
    if args.script_timeout is not None and not args.script_timeout >= 0:  # typer's min=0 words it
        return None
    try:
        work = prepare(args.url, tier=args.tier, session=args.session, timeout=args.timeout,
                       connect=args.connect, headful=args.headful,
                       script_timeout=args.script_timeout)  # fmt: skip
    except CLIError as exc:  # as the app reports a value refused before any browser starts
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    try:
        run_plain(work, debug=debug_wanted(args.debug))
    except ExitStatus as exc:
        return exc.code
    return 0
