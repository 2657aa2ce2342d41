"""The options the commands share (``--connect``, ``--timeout``, ...), as typer options
made from their one declaration (:mod:`cdpkit._front.options`), and the checks of output files
and folders made before any browser starts.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict, TypeVar

import typer

from .._front.browser_options import CLIError, browser_options

if TYPE_CHECKING:
    from .._browser.settings import BrowserSettings
    from .._front.browser_options import BrowserOptions
from .._front.options import BROWSER, IDENTITY, OPTIONS, layered_browser

F = TypeVar("F", bound=Callable[..., Any])

def typer_option(name: str, surface: Literal["cli", "mcp"] = "cli") -> Any:
    """The ``typer.Option`` of the option ``name`` as :data:`cdpkit._front.options.OPTIONS`
    declares it (flags, metavar, help on ``surface``)."""
    entry = OPTIONS[name]
    bounds = {"min": entry.minimum} if surface == "cli" and entry.minimum is not None else {}
    return typer.Option(
        *entry.flags,
        metavar=entry.metavar,
        help=entry.help_for(surface),
        # Only a number a command defaults to is worth showing (--timeout's 30).
        show_default=surface == "cli" and entry.kind == "float",
        **bounds,  # type: ignore[arg-type]
    )


def python_type(name: str, surface: Literal["cli", "mcp"] = "cli") -> Any:
    """The Python type typer parses the option ``name`` as: the MCP server takes numbers
    as strings, to check them itself (:func:`cdpkit.mcp_server.server_options`)."""
    kind = OPTIONS[name].kind
    if kind == "bool":
        return bool
    if kind == "list":
        return list[str] | None
    if surface == "cli" and kind == "float":
        return float
    if surface == "cli" and kind == "int":
        return int | None
    return str | None


def option_parameter(name: str, surface: Literal["cli", "mcp"] = "cli", default: Any = None) -> inspect.Parameter:
    """The option ``name`` as a keyword parameter of a typer command."""
    if default is None and OPTIONS[name].kind == "bool":
        default = False
    annotation: Any = Annotated.__class_getitem__((python_type(name, surface), typer_option(name, surface)))  # type: ignore[attr-defined]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


# The options the browser commands share, as the commands annotate their parameters.
ConnectOption = Annotated[str | None, typer_option("connect")]
GridOption = Annotated[str | None, typer_option("grid")]
HeaderOption = Annotated[list[str] | None, typer_option("header")]
HarOption = Annotated[str | None, typer_option("har")]
HeadfulOption = Annotated[bool, typer_option("headful")]
ProfileOption = Annotated[str | None, typer_option("profile")]
ChromeArgOption = Annotated[list[str] | None, typer_option("chrome_arg")]
ViewportOption = Annotated[str | None, typer_option("viewport")]
TimeoutOption = Annotated[float, typer_option("timeout")]
DebugOption = Annotated[bool, typer_option("debug")]
WaitOption = Annotated[int | None, typer_option("wait")]
ScriptTimeoutOption = Annotated[float | None, typer_option("script_timeout")]
UrlArgument = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="A URL, a host name (https:// is added) or a local HTML file.",
        show_default=False,
    ),
]

# The browser options a command takes with `with_browser`, from their one declaration
# above: the parameter each becomes, and its default.
_BROWSER_PARAMETERS: dict[str, tuple[Any, Any]] = {
    "connect": (ConnectOption, None),
    "grid": (GridOption, None),
    "header": (HeaderOption, None),
    "headful": (HeadfulOption, False),
    "profile": (ProfileOption, None),
    "chrome_arg": (ChromeArgOption, None),
    "viewport": (ViewportOption, None),
    "script_timeout": (ScriptTimeoutOption, None),
    "timeout": (TimeoutOption, 30.0),
}


class _WhichBrowser(TypedDict, total=False):
    connect: str | None
    grid: str | None
    header: list[str] | None
    headful: bool
    chrome_arg: list[str] | None
    viewport: str | None
    script_timeout: float | None


class _Profile(TypedDict, total=False):
    profile: str | None


class _Timeout(TypedDict, total=False):
    timeout: float


class BrowserFlags(_WhichBrowser, _Profile, _Timeout, total=False):
    """The browser options as a command gets them (``**flags``), by :func:`with_browser`:
    each the Python type of :data:`_BROWSER_PARAMETERS`' option of that name."""


class EngineFlags(_WhichBrowser, _Profile, total=False):
    """:class:`BrowserFlags` of a command whose ``--timeout`` is the browse engine's."""


class ProfileFlags(_WhichBrowser, _Timeout, total=False):
    """:class:`BrowserFlags` of a command whose ``--profile`` is its own."""


def with_browser(line: str) -> Callable[[F], F]:
    """A decorator: the command with the browser options named in ``line`` (``"connect
    grid header headful..."``, in their ``--help`` order) on its command line; they reach
    it in its ``**flags`` (:class:`BrowserFlags`).

    ``line`` may name the command's own parameters too (``"connect har headful"``), to
    keep ``--help`` in the order people know: the whole line then stands where the first
    of them is written, else before ``--debug`` (or ``settings``, or at the end)."""
    names = line.split()

    def decorate(command: F) -> F:
        hints = typing.get_type_hints(command, include_extras=True)
        own = {p.name: p.replace(annotation=hints.get(p.name, p.annotation))
               for p in inspect.signature(command).parameters.values()
               if p.kind is not inspect.Parameter.VAR_KEYWORD}  # fmt: skip
        block = [
            own[name] if name in own else inspect.Parameter(
                name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=_BROWSER_PARAMETERS[name][1], annotation=_BROWSER_PARAMETERS[name][0],
            )
            for name in names
        ]  # fmt: skip
        rest = list(own.values())
        anchors = [i for i, p in enumerate(rest) if p.name in names]
        at = anchors[0] if anchors else next(
            (i for i, p in enumerate(rest) if p.name in ("debug", "settings")), len(rest)
        )  # fmt: skip
        rest = [p for p in rest if p.name not in names]
        parameters = [*rest[:at], *block, *rest[at:]]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return command(*args, **kwargs)

        wrapper.__signature__ = inspect.signature(command).replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            **{name: hint for name, hint in hints.items() if name in own or name == "return"},
            **{p.name: p.annotation for p in block},
        }
        return wrapper  # type: ignore[return-value]

    return decorate


def launch_options(
    flags: Mapping[str, Any], settings: BrowserSettings | None = None, **fixed: Any
) -> BrowserOptions:
    """The checked :class:`BrowserOptions` of a command's browser ``flags`` (those that
    say which browser; ``--script-timeout`` is the page's), ``fixed`` over them."""
    given = {name: value for name, value in flags.items() if name != "script_timeout"}
    return browser_options(**{**given, **fixed}, settings=settings)


# Commands on the browse engine, which reads the config file itself (and whose --timeout
# is for a whole page, all tiers): their options come from the flags and the environment.
_ENGINE_COMMANDS = frozenset({"browse"})


def _from_command_line(name: str, value: Any, default: Any) -> bool:
    """Whether the command line gave the parameter ``name`` (a value equal to the default
    counts when typer's context says it was typed)."""
    context = _current_context()
    if context is not None and name in context.params:
        source = context.get_parameter_source(name)
        return getattr(source, "name", None) == "COMMANDLINE"
    return bool(value != default)


def _current_context() -> Any:
    """The running command's click context, or ``None``. Typer 0.2x carries its own click
    (``typer._click``), older ones depend on click: cdpkit depends on neither directly."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:
        from click import get_current_context  # type: ignore[no-redef]
    return get_current_context(silent=True)


def with_settings(command: F) -> F:
    """``command`` with the identity options (``--user-agent``, ``--locale``,
    ``--timezone``, ``--proxy``, ``--stealth``, ``--extra-header``, ``--storage-state``) on
    its command line, before ``--timeout``; they reach it as one ``settings=`` (a checked
    :class:`~cdpkit.BrowserSettings`, or ``None``).

    The browser options it takes (``--connect``, ``--headful``, ``--timeout``...) and the
    identity options not given on the command line come from their environment variables,
    then the config file's ``[browser]`` table (see :mod:`cdpkit._front.options`)."""
    hints = typing.get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    own = [p.replace(annotation=hints[p.name]) for p in signature.parameters.values()
           if p.name != "settings"]
    added = [
        option_parameter(name).replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in IDENTITY
    ]
    at = next((i for i, p in enumerate(own) if p.name in ("timeout", "debug")), len(own))
    defaults = {p.name: p.default for p in own}
    browser = [
        name for name in BROWSER
        if name in defaults and not (name == "timeout" and command.__name__ in _ENGINE_COMMANDS)
    ]  # fmt: skip
    config_file = command.__name__ not in _ENGINE_COMMANDS

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name, None) for name in IDENTITY}
        flags.update(
            (name, kwargs[name]) for name in browser
            if name in kwargs and _from_command_line(name, kwargs[name], defaults[name])
        )  # fmt: skip
        values, settings = layered_browser(flags, [*browser, *IDENTITY], config_file=config_file)
        for name in browser:
            if name in kwargs:
                kwargs[name] = values.get(name, defaults[name])
        return command(*args, settings=settings, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*own[:at], *added, *own[at:]])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {
        **{name: hint for name, hint in hints.items() if name != "settings"},
        **{parameter.name: parameter.annotation for parameter in added},
    }
    return wrapper  # type: ignore[return-value]


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


def write_output(data: bytes, output: str) -> str:
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
