"""The options of the commands that start a browser, each declared once: its name, type,
flags, metavar, help, config-file key and environment variable.

Everything users see of an option is derived from :data:`OPTIONS`: the typer options of
the ``cdpkit`` commands (:mod:`cdpkit.cli._params`), the argparse parser of
``python -m cdpkit.mcp_server`` and the typer command ``cdpkit mcp``
(:mod:`cdpkit.mcp_server`, :mod:`cdpkit.cli._mcp`), the names :func:`cdpkit.mcp_server.server_options`
accepts, and the docs' table of environment variables and config keys
(``scripts/gen_docs_tables.py``).

Where a value comes from, first found wins (:func:`layered`):

1. the command-line flag;
2. the environment variable: ``CDPKIT_`` and the long flag in capitals, dashes as
   underscores (``--user-agent`` -> ``CDPKIT_USER_AGENT``, ``--chrome`` ->
   ``CDPKIT_CHROME``). A switch takes ``1``/``true``/``yes``/``on`` or
   ``0``/``false``/``no``/``off``; a repeatable option takes one value per line;
   an empty variable counts as unset;
3. the config file's key (``[browser] user_agent``; see :mod:`cdpkit._browser.config`);
4. the default.

A browser location (``--connect`` or ``--grid``) given by a higher layer replaces the one
of a lower layer, as does a launch flag (``--headful``, ``--profile``...) or a
``$CDPKIT_PROFILE``; launch-only values from the environment or the config file are left
out when the browser is attached (they say how to launch one; a flag saying so is an
error).

This module imports nothing at import time beyond the standard library: ``cdpkit mcp``
builds its parser from it before it answers the MCP handshake.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .._browser.settings import BrowserSettings

__all__ = [
    "BROWSER",
    "IDENTITY",
    "LAUNCH_ONLY",
    "MCP",
    "MEDIA",
    "OPTIONS",
    "ORIGINS_HELP",
    "Option",
    "OptionError",
    "add_arguments",
    "config_layer",
    "env_value",
    "env_values",
    "given",
    "layered",
    "layered_browser",
    "option",
]

Kind = Literal["str", "bool", "float", "int", "list"]


class OptionError(ValueError):
    """A value an environment variable gives that its option cannot take."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option, as every surface shows it.

    Attributes:
        name: The parameter name (``user_agent``).
        kind: Its type: ``str``, ``bool`` (a switch), ``float``, ``int`` or ``list`` (a
            repeatable string).
        flags: Its flags, the first the main one (``--allow-file-urls``), then aliases.
        help: The help text.
        metavar: What its value is called in the help (``UA``); ``None`` for a switch.
        config: Its key in the config file, ``table.key`` (``browser.user_agent``), or
            ``None``.
        env: Its environment variable, or ``None`` when it has none.
        mcp_help: The MCP server's help, where the option means something else there (a
            browser the server attaches to is left running with its tabs).
        minimum: The smallest value a ``float``/``int`` takes on the CLI.
    """

    name: str
    kind: Kind
    flags: tuple[str, ...]
    help: str
    metavar: str | None = None
    config: str | None = None
    env: str | None = None
    mcp_help: str | None = None
    minimum: float | None = None

    @property
    def flag(self) -> str:
        """The main flag (``--user-agent``)."""
        return self.flags[0]

    def help_for(self, surface: Literal["cli", "mcp"]) -> str:
        """The help text on ``surface``."""
        return self.mcp_help if surface == "mcp" and self.mcp_help else self.help


def _env_name(flag: str) -> str:
    return "CDPKIT_" + flag.removeprefix("--").replace("-", "_").upper()


def _option(
    name: str,
    kind: Kind,
    flags: str | tuple[str, ...],
    help: str,
    *,
    metavar: str | None = None,
    config: str | None = None,
    env: bool = True,
    mcp_help: str | None = None,
    minimum: float | None = None,
) -> Option:
    names = (flags,) if isinstance(flags, str) else flags
    return Option(
        name, kind, names, help, metavar, config, _env_name(names[0]) if env else None, mcp_help, minimum
    )


# The forms of an --allowed-origins / --blocked-origins entry (see cdpkit.mcp._urls.OriginPattern).
ORIGINS_HELP = (
    "separated by ';' or ',', or repeat the option; an entry is an origin "
    "(https://example.com: that scheme, host and port; http://localhost:* any port), "
    "a host (example.com: http or https, any port; example.com:8080) or *.example.com "
    "(its subdomains)"
)

_TABLE = (
    # -- where the browser comes from, and how it is launched --
    _option(
        "http", "str", "--http",
        "Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT binds 127.0.0.1).",
        metavar="HOST:PORT",
    ),
    _option(
        "headful", "bool", "--headful", "Launch the browser with a window (default headless).",
        config="browser.headless",  # inverted: headless = false
    ),
    _option(
        "connect", "str", "--connect",
        "Attach to a running browser (http://127.0.0.1:PORT, just PORT, its ws:// URL, or "
        "'auto' for your own Chrome with remote debugging on) instead of launching one; it is "
        "left running.",
        metavar="ENDPOINT",
        config="browser.connect",
        mcp_help="Drive a running browser instead of launching one (http://127.0.0.1:PORT, "
        "just PORT, its ws:// URL, or 'auto' for your own Chrome with remote debugging on); only "
        "the tabs the server opened are closed.",
    ),
    _option(
        "grid", "str", "--grid",
        "Lease the browser from a Selenium Grid 4 (http://grid:4444) instead of launching "
        "one; its session is deleted when the command ends. --timeout also bounds the wait "
        "for a free slot.",
        metavar="URL",
        mcp_help="Lease the browser from a Selenium Grid 4 (http://grid:4444) instead of "
        "launching one; its session is deleted when the server stops.",
    ),
    _option(
        "header", "list", "--header",
        "An HTTP header for --connect or --grid (e.g. an Authorization token), sent to "
        "that endpoint only, repeatable; never printed. --extra-header sends one with the "
        "pages' requests.",
        metavar="'NAME: VALUE'",
    ),
    _option(
        "har", "str", "--har",
        "Record what the page loads into this HAR file (HAR 1.2, with bodies up to 1 MB; "
        "DevTools and HAR viewers open it), written at the end, also when the command fails.",
        metavar="PATH",
        env=False,  # one file per run: a setting of the run, not of the user
    ),
    _option(
        "profile", "str", "--profile",
        "Launch on the persistent profile NAME (e.g. one logged in with "
        "`cdpkit open-browser --profile NAME`).",
        metavar="NAME",
    ),
    _option(
        "chrome", "str", "--chrome",
        "The Chrome or Chromium executable to launch (default: $CDPKIT_CHROME, then "
        "the usual names and places).",
        metavar="PATH",
    ),
    _option(
        "chrome_arg", "list", "--chrome-arg",
        "An extra Chrome flag, repeatable; write it with '=': --chrome-arg=--lang=fr.",
        metavar="FLAG",
        config="browser.args",
    ),
    _option(
        "viewport", "str", "--viewport",
        "The page size of a launched browser in CSS pixels, e.g. 1920x1080 (default 1280x720).",
        metavar="WxH",
        config="browser.viewport",
    ),
    _option(
        "timeout", "float", "--timeout",
        "Seconds allowed to start the browser, load the page and answer each command.",
        metavar="SECONDS",
        config="browser.timeout",
        mcp_help="Seconds allowed to start or attach to the browser and for each of its "
        "commands to answer (default 30).",
        minimum=0.1,
    ),
    _option(
        "script_timeout", "float", "--script-timeout",
        "Give up a parser-blocking script (one without async or defer) that has "
        "not loaded after SECONDS: the page goes on as if it had failed to load (default: "
        "wait for it, as a browser does; 0 too).",
        metavar="SECONDS",
        config="browser.script_timeout",
        mcp_help="Give up a parser-blocking script (one without async or defer) "
        "that has not loaded after SECONDS, so a page whose third-party script never "
        "answers still renders (default 10; 0 waits for it, as a browser does).",
        minimum=0,
    ),
    _option(
        "wait", "int", "--wait",
        "After loading, wait exactly MS milliseconds (0: not at all) instead of waiting "
        "until the page's content stops changing.",
        metavar="MS",
        env=False,
        minimum=0,
    ),
    _option("debug", "bool", "--debug", "On failure, print the full traceback."),
    # -- the MCP server's own --
    _option(
        "downloads", "str", "--downloads", "Where browser_download saves files (default ~/Downloads).",
        metavar="DIR",
    ),
    _option("allow_js", "bool", "--allow-js", "Offer browser_execute_js (runs any JavaScript the agent sends)."),
    _option(
        "allow_file_urls", "bool", ("--allow-file-urls", "--allow-unrestricted-file-access"),
        "Let the agent open file: URLs (the local disk) and the browser's own "
        "pages (chrome://...), and upload any local file; by default it cannot, and uploads "
        "only files from the download directory.",
    ),
    _option(
        "allowed_origins", "list", "--allowed-origins",
        f"Only web pages of these origins may be loaded, read or downloaded (default: any); {ORIGINS_HELP}.",
        metavar="ORIGINS",
    ),
    _option(
        "blocked_origins", "list", "--blocked-origins",
        f"Refuse web pages of these origins, even if allowed; {ORIGINS_HELP}.",
        metavar="ORIGINS",
    ),
    # -- the browser's identity (cdpkit.BrowserSettings) --
    _option(
        "user_agent", "str", "--user-agent",
        "The User-Agent the pages send and report (default: Chrome's own).",
        metavar="UA", config="browser.user_agent",
    ),
    _option(
        "locale", "str", "--locale",
        "The pages' locale and languages, e.g. fr-FR (Accept-Language, navigator.language, Intl).",
        metavar="TAG", config="browser.locale",
    ),
    _option(
        "timezone", "str", "--timezone", "The pages' time zone, e.g. Europe/Paris.",
        metavar="ZONE", config="browser.timezone",
    ),
    _option(
        "proxy", "str", "--proxy",
        "Send the browser's requests through this proxy (http://host:port, "
        "socks5://...; user:password@ is accepted and never printed).",
        metavar="URL", config="browser.proxy",
    ),
    _option(
        "stealth", "bool", "--stealth",
        "Hide that the browser is headless and automated (default: it says so).",
        config="browser.stealth",
    ),
    _option(
        "extra_header", "list", "--extra-header",
        "A header sent with every request the pages make ('Name: value'), "
        "repeatable (not --header, which goes to a --connect/--grid endpoint only).",
        metavar="'NAME: VALUE'", config="browser.extra_headers",
    ),
    _option(
        "storage_state", "str", "--storage-state",
        "Start logged in: load cookies, localStorage and sessionStorage from "
        "this storage_state JSON file (Playwright's format; tools.save_storage_state writes one).",
        metavar="PATH", config="browser.storage_state",
    ),
    # -- the media of `cdpkit browse` (cdpkit._browse._media) --
    _option(
        "download_media", "bool", ("--download-media", "--include-media"),
        "Download the page's images (WebP within [media] max_width x max_height, 640x480) "
        "and videos (frames taken with ffmpeg) into the media cache; the files are listed "
        "after the content (and in --json).",
        config="media.include", env=False,
    ),
    _option(
        "video_frames", "int", "--video-frames",
        "Frames taken of each video with --download-media, evenly spaced over its duration "
        "(default 5).",
        metavar="N", config="media.video_frames", env=False, minimum=1,
    ),
    # -- the MCP server's own, continued --
    _option(
        "snapshot_after_action", "bool", "--snapshot-after-action",
        "Return a full snapshot (browser_snapshot's, within its default "
        "budget) after every action tool, as well as the few lines saying what the action "
        "changed.",
    ),
    _option(
        "record", "str", "--record",
        "Record the session as a replayable cdpkit script in FILE, written as it "
        "goes: each action that succeeds becomes a typed cdpkit call with a robust "
        "locator (python FILE replays it; browser_stop_recording returns it).",
        metavar="FILE",
    ),
    _option(
        "shared_context", "bool", "--shared-context",
        "With --http: let every client share one browser context (cookies, "
        "storage, tabs). By default each client session gets a context of its own, closed "
        "when the client disconnects.",
    ),
)  # fmt: skip

OPTIONS: dict[str, Option] = {entry.name: entry for entry in _TABLE}
"""Every option, by parameter name, in the order the MCP server lists them."""

IDENTITY = ("user_agent", "locale", "timezone", "proxy", "stealth", "extra_header", "storage_state")
"""The identity options (:func:`cdpkit._front.browser_options.browser_settings`)."""

BROWSER = (
    "connect", "grid", "header", "headful", "profile", "chrome", "chrome_arg", "viewport", "timeout",
    "script_timeout",
)  # fmt: skip
"""The options saying how a command gets its browser (:func:`cdpkit._front.browser_options.browser_options`),
and ``script_timeout``: how long its page loads wait for a parser-blocking script."""

MEDIA = ("download_media", "video_frames")
"""The media options of ``cdpkit browse`` (its ``[media]`` table)."""

LAUNCH_ONLY = ("headful", "profile", "chrome", "chrome_arg", "viewport")
"""What only a launched browser takes: left out of lower layers when it is attached."""

MCP = (
    "http", "headful", "connect", "grid", "header", "profile", "chrome", "chrome_arg", "viewport",
    "timeout", "script_timeout", "downloads", "allow_js", "allow_file_urls", "allowed_origins", "blocked_origins",
    *IDENTITY, "snapshot_after_action", "record", "shared_context",
)  # fmt: skip
"""The options of ``cdpkit mcp`` and ``python -m cdpkit.mcp_server``, in order."""


def option(name: str) -> Option:
    """The option named ``name`` (its parameter name)."""
    return OPTIONS[name]


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_value(entry: Option, text: str) -> Any:
    """The value ``text`` (an environment variable's) gives ``entry``: checked for a
    switch, a list of lines for a repeatable option, a string otherwise (checked later
    with the flag's values).

    Raises:
        OptionError: A switch that is not one of the words for true or false.
    """
    if entry.kind == "bool":
        word = text.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise OptionError(
            f"Invalid ${entry.env} {text!r}: expected 1, true, yes or on (or 0, false, no, off)"
        )
    if entry.kind == "list":
        return [line.strip() for line in text.splitlines() if line.strip()]
    if entry.kind in ("float", "int"):
        try:
            return float(text) if entry.kind == "float" else int(text)
        except ValueError:
            raise OptionError(f"Invalid ${entry.env} {text!r}: expected a number") from None
    return text.strip()


def env_values(names: Iterable[str], environ: Mapping[str, str]) -> dict[str, Any]:
    """The values the environment gives the options ``names`` (set and not empty).

    Raises:
        OptionError: A variable its option cannot take.
    """
    found: dict[str, Any] = {}
    for name in names:
        entry = OPTIONS[name]
        if entry.env is None:
            continue
        text = environ.get(entry.env, "")
        if text.strip():
            found[name] = env_value(entry, text)
    return found


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str]) -> None:
    """Add the options ``names`` to an argparse ``parser``; every one defaults to
    ``None`` (not given), so what the command line says can be told from a default."""
    for name in names:
        entry = OPTIONS[name]
        if entry.kind == "bool":
            parser.add_argument(*entry.flags, dest=name, action="store_true", default=None)
        else:
            parser.add_argument(
                *entry.flags, dest=name, metavar=entry.metavar, default=None,
                action="append" if entry.kind == "list" else "store",
            )  # fmt: skip


def given(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without those a command line leaves at their default (``None``,
    ``False``, an empty list)."""
    return {
        name: value for name, value in values.items()
        if not (value is None or value is False or (isinstance(value, list | tuple) and not value))
    }  # fmt: skip


def layered(
    flags: Mapping[str, Any],
    names: Iterable[str],
    *,
    environ: Mapping[str, str],
    config: Mapping[str, Any],
) -> dict[str, Any]:
    """The options ``names`` from ``flags`` (what the command line gives), then the
    environment, then ``config`` (option name -> value, see :func:`config_layer`).

    Raises:
        OptionError: An environment variable its option cannot take.
    """
    wanted = tuple(names)
    layers = [
        given({name: flags.get(name) for name in wanted}),
        env_values(wanted, environ),
        {name: config[name] for name in wanted if name in config},
    ]
    # Where the browser is, said by the highest layer that says anything: a launch flag
    # (--profile, --headful...) or a profile says "launch one", over a lower layer's
    # --connect. ($CDPKIT_CHROME only says which Chrome, should one be launched.)
    for index, layer in enumerate(layers):
        launches = set(LAUNCH_ONLY) if index == 0 else {"profile"}
        if "connect" in layer or "grid" in layer or (launches & layer.keys()):
            for lower in layers[index + 1 :]:
                lower.pop("connect", None)
                lower.pop("grid", None)
            break
    values: dict[str, Any] = {}
    for layer in reversed(layers):
        values.update(layer)
    # Lower layers' launch settings do not apply to an attached browser (a flag that
    # gives one is an error, said by browser_options); --header applies only to one.
    dropped = set(LAUNCH_ONLY) if "connect" in values else {"profile", "chrome"} if "grid" in values else set()
    if "connect" in values:
        dropped |= {"proxy", "storage_state"}
    if "connect" not in values and "grid" not in values:
        dropped.add("header")
    for name in dropped & values.keys():
        if name not in layers[0]:
            del values[name]
    return values


def config_layer() -> tuple[dict[str, Any], Any]:
    """The config file's ``[browser]`` table as option values (``headless = false`` is
    ``headful``), and its identity keys as one :class:`cdpkit.BrowserSettings` (or
    ``None``). The file is read and checked whole (every table).

    Raises:
        OptionError: The file is not valid TOML, or a table, key or value is wrong (the
            message names the file, the table and the key).
    """
    from .._browser.config import BrowserTable, load_config

    try:
        table = load_config().browser
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    defaults = BrowserTable()
    values: dict[str, Any] = {}
    for entry in OPTIONS.values():
        table_name, _, key = (entry.config or "").partition(".")
        if table_name != "browser" or entry.name in IDENTITY:
            continue
        value = getattr(table, key)
        if value == getattr(defaults, key):
            continue
        values[entry.name] = (not value) if entry.name == "headful" else list(value) if entry.kind == "list" else value
    return values, table.settings


def layered_browser(
    flags: Mapping[str, Any], names: Iterable[str], *, config_file: bool = True
) -> tuple[dict[str, Any], BrowserSettings | None]:
    """What a command that starts a browser uses: the options ``names`` from ``flags``
    (the command line's values; ``None``, ``False`` and empty lists are not given), the
    environment and the config file (:func:`layered`), with the identity options turned
    into one :class:`cdpkit.BrowserSettings` over the config file's identity keys.
    ``config_file=False`` leaves the file out, for a command whose engine reads it
    (``cdpkit browse``).

    Returns:
        The values of the other options (those no layer gives are absent), and the
        settings (``None``: Chrome's own).

    Raises:
        CLIError: A variable, config file or identity value that cannot be used, in one
            line naming it (exit status 2).
    """
    from .browser_options import CLIError, browser_settings

    wanted = tuple(names)
    try:
        config, base = config_layer() if config_file else ({}, None)
        values = layered(flags, wanted, environ=os.environ, config=config)
    except OptionError as exc:
        raise CLIError(str(exc), 2) from None
    identity = {name: values.pop(name) for name in IDENTITY if name in values}
    top = browser_settings(**identity)
    if base is not None and "connect" in values:
        import dataclasses

        base = dataclasses.replace(base, proxy=None, storage_state=None)  # a launched browser's only
    return values, top if base is None else base if top is None else base.over(top)
