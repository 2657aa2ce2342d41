"""The options the commands share (``--connect``, ``--timeout``, ...) and the checks of
output files and folders made before any browser starts.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from .._browser_options import SETTINGS_HELP, browser_settings
from .._cli_common import CLIError

F = TypeVar("F", bound=Callable[..., Any])

ConnectOption = Annotated[
    str | None,
    typer.Option(
        "--connect",
        metavar="ENDPOINT",
        help="Attach to a running browser (http://127.0.0.1:PORT, just PORT, its ws:// URL, or "
        "'auto' for your own Chrome with remote debugging on) instead of launching one; it is "
        "left running.",
    ),
]
GridOption = Annotated[
    str | None,
    typer.Option(
        "--grid",
        metavar="URL",
        help="Lease the browser from a Selenium Grid 4 (http://grid:4444) instead of launching "
        "one; its session is deleted when the command ends. --timeout also bounds the wait "
        "for a free slot.",
        show_default=False,
    ),
]

HeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        metavar="'NAME: VALUE'",
        help="An HTTP header for --connect or --grid (e.g. an Authorization token), sent to "
        "that endpoint only, repeatable; never printed. --extra-header sends one with the "
        "pages' requests.",
        show_default=False,
    ),
]

HarOption = Annotated[
    str | None,
    typer.Option(
        "--har",
        metavar="PATH",
        help="Record what the page loads into this HAR file (HAR 1.2, with bodies up to 1 MB; "
        "DevTools and HAR viewers open it), written at the end, also when the command fails.",
        show_default=False,
    ),
]
HeadfulOption = Annotated[
    bool, typer.Option("--headful", help="Launch the browser with a window (default headless).")
]
ProfileOption = Annotated[
    str | None,
    typer.Option(
        "--profile",
        metavar="NAME",
        help="Launch on the persistent profile NAME (e.g. one logged in with "
        "`cdpkit open-browser --profile NAME`).",
    ),
]
ChromeArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--chrome-arg",
        metavar="FLAG",
        help="An extra Chrome flag, repeatable; write it with '=': --chrome-arg=--lang=fr.",
    ),
]
ViewportOption = Annotated[
    str | None,
    typer.Option(
        "--viewport",
        metavar="WxH",
        help="The page size of a launched browser in CSS pixels, e.g. 1920x1080 "
        "(default 1280x720).",
        show_default=False,
    ),
]
# The browser's identity: on every command that starts a browser, added by with_settings.
_SETTINGS_OPTIONS: dict[str, tuple[Any, Any]] = {
    "user_agent": (
        Annotated[str | None, typer.Option("--user-agent", metavar="UA", help=SETTINGS_HELP["user_agent"], show_default=False)],
        None,
    ),
    "locale": (
        Annotated[str | None, typer.Option("--locale", metavar="TAG", help=SETTINGS_HELP["locale"], show_default=False)],
        None,
    ),
    "timezone": (
        Annotated[str | None, typer.Option("--timezone", metavar="ZONE", help=SETTINGS_HELP["timezone"], show_default=False)],
        None,
    ),
    "proxy": (
        Annotated[str | None, typer.Option("--proxy", metavar="URL", help=SETTINGS_HELP["proxy"], show_default=False)],
        None,
    ),
    "stealth": (Annotated[bool, typer.Option("--stealth", help=SETTINGS_HELP["stealth"])], False),
    "extra_header": (
        Annotated[
            list[str] | None,
            typer.Option("--extra-header", metavar="'NAME: VALUE'", help=SETTINGS_HELP["extra_header"], show_default=False),
        ],
        None,
    ),
    "storage_state": (
        Annotated[str | None, typer.Option("--storage-state", metavar="PATH", help=SETTINGS_HELP["storage_state"], show_default=False)],
        None,
    ),
}


def with_settings(command: F) -> F:
    """``command`` with the identity options (``--user-agent``, ``--locale``,
    ``--timezone``, ``--proxy``, ``--stealth``, ``--extra-header``, ``--storage-state``) on
    its command line,
    before ``--timeout``; they reach it as one ``settings=`` (a checked
    :class:`~cdpkit.BrowserSettings`, or ``None``)."""
    hints = typing.get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    own = [p.replace(annotation=hints[p.name]) for p in signature.parameters.values()
           if p.name != "settings"]
    added = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                          annotation=annotation)
        for name, (annotation, default) in _SETTINGS_OPTIONS.items()
    ]
    at = next((i for i, p in enumerate(own) if p.name in ("timeout", "debug")), len(own))

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name, default) for name, (_, default) in _SETTINGS_OPTIONS.items()}
        return command(*args, settings=browser_settings(**values), **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*own[:at], *added, *own[at:]])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {
        **{name: hint for name, hint in hints.items() if name != "settings"},
        **{name: annotation for name, (annotation, _) in _SETTINGS_OPTIONS.items()},
    }
    return wrapper  # type: ignore[return-value]


TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        metavar="SECONDS",
        help="Seconds allowed to start the browser, load the page and answer each command.",
    ),
]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="On failure, print the full traceback.")
]
WaitOption = Annotated[
    int | None,
    typer.Option(
        "--wait",
        metavar="MS",
        min=0,
        help="After loading, wait exactly MS milliseconds (0: not at all) instead of waiting "
        "until the page's content stops changing.",
        show_default=False,
    ),
]
UrlArgument = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="A URL, a host name (https:// is added) or a local HTML file.",
        show_default=False,
    ),
]


def check_output_file(output: str, formats: dict[str, str] | None = None, *, what: str = "") -> str | None:
    """Check, before any browser starts, that ``output`` (``-o``) can be written.

    Args:
        output: The file, or ``-`` for stdout.
        formats: Extension -> format this command can write (e.g. ``{".png": "png"}``);
            ``None`` accepts any name.
        what: What the command writes, for the message (``"screenshot"``).

    Returns:
        The format ``output``'s extension names, ``None`` if it has none (or for stdout).

    Raises:
        CLIError: The directory is missing or not writable, ``output`` is a directory,
            or its extension names a format the command cannot write (exit status 2).
    """
    if output == "-":
        return None
    path = Path(output).expanduser()
    if path.is_dir():
        raise CLIError(f"Cannot write {output}: it is a directory (give a file name in it)", 2)
    parent = path.parent
    if not parent.exists():
        raise CLIError(f"Cannot write {output}: the directory {parent} does not exist", 2)
    if not parent.is_dir():
        raise CLIError(f"Cannot write {output}: {parent} is not a directory", 2)
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CLIError(f"Cannot write {output}: permission denied", 2)
    suffix = path.suffix.lower()
    if formats is None or not suffix:
        return None
    if suffix not in formats:
        names = ", ".join(sorted(formats))
        raise CLIError(f"Cannot write a {what} as {suffix} (supported: {names})", 2)
    return formats[suffix]


def check_output_dir(directory: Path) -> None:
    """Check, before any browser starts, that files can be saved into ``directory``
    (``--dir``): it is a writable directory, or one that can be created.

    Raises:
        CLIError: It is a file, or it cannot be written or created (exit status 2).
    """
    path = directory.expanduser()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise CLIError(f"Cannot save into {directory}: {existing} is a file, not a directory", 2)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CLIError(f"Cannot save into {directory}: permission denied on {existing}", 2)


def _write_output(data: bytes, output: str) -> str:
    """Write ``data`` to a file, or to stdout for ``-``; what to call it in messages."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "stdout"
    path = Path(output).expanduser()
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise CLIError(f"Could not write {output}: {exc.strerror or exc}") from None
    return str(path)
