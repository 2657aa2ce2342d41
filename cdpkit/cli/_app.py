"""The ``cdpkit`` typer app: every command registered on the one ``app``, in the order
``--help`` lists them (see :mod:`cdpkit.cli`). Imported on the first use of the app, so
that ``cdpkit mcp`` does not load typer and every command module to serve.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from typing import Annotated

import typer

from .._front.browser_options import BrowserOptions, CLIError, open_browser
from .._front.browser_options import error_line as error_line
from .._front.cli_common import human_size as human_size
from .._front.cli_common import normalize_url
from ._browse import browse
from ._browser import http_endpoint as http_endpoint
from ._browser import launch, open_browser_command
from ._daemon import DAEMON_COMMANDS, daemon, with_daemon
from ._doctor import ProtocolDiff as ProtocolDiff
from ._doctor import diff_protocol as diff_protocol
from ._doctor import doctor
from ._doctor import format_protocol_diff as format_protocol_diff
from ._download import download
from ._extension import extension
from ._mcp import mcp
from ._pages import eval_, pdf, repl, scrape, screenshot, snapshot
from ._params import check_output_dir as check_output_dir
from ._params import check_output_file as check_output_file
from ._params import with_settings
from ._protocol import gen, protocol
from ._tui import tui

# The `name as name` imports above keep importable from cdpkit.cli the helpers that
# tests and scripts imported from it before it became a package.
__all__ = ["BrowserOptions", "CLIError", "app", "main", "normalize_url", "open_browser"]

app = typer.Typer(
    name="cdpkit",
    help=(
        "Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, "
        "one-shot commands, and the protocol's bindings."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        import cdpkit

        print(f"cdpkit {cdpkit.__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, one-shot
    commands, and the protocol's bindings. Failures print one line (`error: ...`) and exit
    with status 1; --debug on any command shows the traceback."""


# Registered here, not with decorators in each module, so that --help lists the commands
# in this order whatever order the modules are imported in.
for _command, _name in (
    (repl, None),
    (screenshot, None),
    (pdf, None),
    (snapshot, None),
    (scrape, None),
    (browse, None),
    (tui, None),
    (download, None),
    (eval_, "eval"),
    (protocol, None),
    (gen, None),
    (launch, None),
    (open_browser_command, "open-browser"),
    (doctor, None),
    (mcp, None),
    (daemon, None),
):
    # The commands that start a browser take its identity options (see with_settings).
    if "settings" in inspect.signature(_command).parameters:
        _command = with_settings(_command)
    # The commands a running `cdpkit daemon` serves take --no-daemon (and --session).
    if (_name or _command.__name__) in DAEMON_COMMANDS:
        _command = with_daemon(_command)
    app.command(_name)(_command)
app.add_typer(extension)


def main(argv: list[str] | None = None) -> None:
    """Run the typer app on ``argv`` (default ``sys.argv[1:]``); see :func:`cdpkit.cli.main`."""
    try:
        app(args=argv, prog_name="cdpkit")
    except BrokenPipeError:  # e.g. `cdpkit protocol | head`: the reader left, that is fine
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except CLIError as exc:  # raised while checking arguments, before any browser starts
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
