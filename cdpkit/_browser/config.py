"""The config file's reader, beside the options table (:mod:`cdpkit._front.options`): the browse
engine's settings and the browser's, for every command, the TUI and the MCP server:
defaults < the user's config file < the engine's config (< per-call options < CLI flags,
applied by the engine and the command).

The file is TOML, ``~/.config/cdpkit/config.toml`` on Linux (``platformdirs``'
``user_config_dir``; ``$CDPKIT_CONFIG`` names another file). Every table and key is
optional; a key the engine does not know, or a value of the wrong type, is an error that
names the file, the table and the key::

    [browser]               # the browser tiers 2 and 3 use
    headless = true
    timeout = 30            # seconds to launch or attach, and for each browser command
    viewport = "1280x800"
    args = ["--lang=fr"]    # extra Chrome flags
    connect = "http://127.0.0.1:9222"   # attach to this browser instead of launching one
    script_timeout = 10     # give up a parser-blocking script not loaded after 10 s
    # The identity, every tier alike (cdpkit.BrowserSettings' keys):
    user_agent = "..."      # default: cdpkit's own, honest one (tier 1), Chrome's (tiers 2-3)
    user_agents = ["...", "..."]        # rotated, one per session (not with user_agent)
    locale = "fr-FR"        # and Accept-Language "fr-FR,fr;q=0.9" unless accept_language
    accept_language = "fr-FR,fr;q=0.9"
    timezone = "Europe/Paris"
    extra_headers = { "X-Team" = "research" }
    proxy = "http://user:password@proxy:3128"   # or a table: server, username, password, bypass
    stealth = false
    send_dnt = false
    storage_state = "~/login.json"
    ignore_default_args = ["--disable-extensions"]

    [media]                 # the page's images and videos, downloaded (include_media)
    include = false         # download them: images as WebP, videos as frames (ffmpeg)
    max_width = 640         # every image and frame fits this box
    max_height = 480
    quality = 80            # WebP quality
    video_frames = 5        # frames of a video, evenly spaced over its duration
    cache_size_mb = 256     # the media cache's bound: least recently used go first
    cache_dir = "~/.cache/cdpkit/media"

    [output]
    format = "markdown"     # markdown, text, json, a11y, links
    link_style = "inline"   # inline, numbered, none
    max_tokens = 4000       # no budget when absent

    [extraction]
    readability = false
    max_tier = 3

    [network]
    retries = 1             # new attempts after a failed connection
    max_redirects = 10
    timeout = 30            # seconds for a whole browse call, all tiers together
    accept_language = "en-US,en;q=0.9"

    [privacy]
    respect_robots_txt = false   # true: refuse URLs robots.txt disallows for cdpkit

    [session]
    persist = false         # save sessions' cookies on close, restore them next time
    dir = "~/.local/share/cdpkit/browse-sessions"

    [tui.keys]              # `cdpkit tui`'s keys (read and checked by the TUI, not here)
    scroll_down = ["j", "down"]
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

from .._extraction import FORMATS, LINK_STYLES
from .settings import BrowserSettings

__all__ = ["BrowserTable", "ConfigError", "EngineConfig", "config_path", "load_config", "merge_tables", "surface_table"]


class ConfigError(ValueError):
    """A config file or engine config that cannot be used: the message names where (the
    file, or ``engine config``), the table and the key."""


@dataclass(frozen=True, slots=True)
class BrowserTable:
    """The config file's ``[browser]`` table: how the browser of tiers 2 and 3 is started
    or reached, and the identity (:class:`cdpkit.BrowserSettings`) every tier presents."""

    headless: bool = True
    timeout: float = 30.0
    viewport: str | None = None
    args: tuple[str, ...] = ()
    connect: str | None = None
    script_timeout: float | None = None
    # The identity keys of the table (:class:`cdpkit.BrowserSettings`), ``None`` when the
    # table has none: how every tier presents itself.
    settings: BrowserSettings | None = None


@dataclass(frozen=True, slots=True)
class MediaSettings:
    include: bool = False
    max_width: int = 640
    max_height: int = 480
    quality: int = 80
    video_frames: int = 5
    cache_size_mb: float = 256.0
    cache_dir: str | None = None


@dataclass(frozen=True, slots=True)
class OutputSettings:
    format: str = "markdown"
    link_style: str = "inline"
    max_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ExtractionSettings:
    readability: bool = False
    max_tier: int = 3


@dataclass(frozen=True, slots=True)
class NetworkSettings:
    retries: int = 1
    max_redirects: int = 10
    timeout: float = 30.0
    accept_language: str = "en-US,en;q=0.9"


@dataclass(frozen=True, slots=True)
class PrivacySettings:
    respect_robots_txt: bool = False


@dataclass(frozen=True, slots=True)
class SessionSettings:
    persist: bool = False
    dir: str | None = None


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Every setting of the engine, one attribute per table of the config file."""

    browser: BrowserTable = field(default_factory=BrowserTable)
    media: MediaSettings = field(default_factory=MediaSettings)
    output: OutputSettings = field(default_factory=OutputSettings)
    extraction: ExtractionSettings = field(default_factory=ExtractionSettings)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    session: SessionSettings = field(default_factory=SessionSettings)

    @property
    def viewport(self) -> tuple[int, int] | None:
        """``[browser] viewport`` as ``(width, height)``."""
        if self.browser.viewport is None:
            return None
        width, _, height = self.browser.viewport.lower().partition("x")
        return int(width), int(height)

    @property
    def sessions_dir(self) -> Path:
        """Where persistent sessions are saved."""
        if self.session.dir:
            return Path(self.session.dir).expanduser()
        return platformdirs.user_data_path("cdpkit", appauthor=False) / "browse-sessions"

    @property
    def media_dir(self) -> Path:
        """Where the media cache lives (``[media] cache_dir``, else the user's cache
        directory's ``cdpkit/media``: ``~/.cache/cdpkit/media`` on Linux)."""
        if self.media.cache_dir:
            return Path(self.media.cache_dir).expanduser()
        return platformdirs.user_cache_path("cdpkit", appauthor=False) / "media"


_CLASSES: dict[str, type[Any]] = {
    "browser": BrowserTable,
    "media": MediaSettings,
    "output": OutputSettings,
    "extraction": ExtractionSettings,
    "network": NetworkSettings,
    "privacy": PrivacySettings,
    "session": SessionSettings,
}
# Tables of the file that belong to a surface, not to the engine: the engine skips them and
# the surface reads its own with surface_table().
_SURFACE_TABLES = ("tui",)
# Checks beyond the type: (test, what the value must be).
_RANGES: dict[tuple[str, str], tuple[Any, str]] = {
    ("browser", "timeout"): (lambda v: v > 0, "a positive number of seconds"),
    ("network", "timeout"): (lambda v: v > 0, "a positive number of seconds"),
    ("browser", "script_timeout"): (lambda v: v >= 0, "a number of seconds (0: wait for scripts)"),
    ("network", "retries"): (lambda v: 0 <= v <= 10, "a whole number from 0 to 10"),
    ("network", "max_redirects"): (lambda v: 0 <= v <= 100, "a whole number from 0 to 100"),
    ("media", "max_width"): (lambda v: v > 0, "a positive number of pixels"),
    ("media", "max_height"): (lambda v: v > 0, "a positive number of pixels"),
    ("media", "quality"): (lambda v: 1 <= v <= 100, "a whole number from 1 to 100"),
    ("media", "video_frames"): (lambda v: 1 <= v <= 60, "a whole number from 1 to 60"),
    ("media", "cache_size_mb"): (lambda v: v > 0, "a positive number of megabytes"),
    ("output", "format"): (lambda v: v in FORMATS, f"one of {', '.join(FORMATS)}"),
    ("output", "link_style"): (lambda v: v in LINK_STYLES, f"one of {', '.join(LINK_STYLES)}"),
    ("output", "max_tokens"): (lambda v: v >= 1, "a positive whole number"),
    ("extraction", "max_tier"): (lambda v: v in (1, 2, 3), "1, 2 or 3"),
    ("browser", "viewport"): (
        lambda v: (lambda w, x, h: x == "x" and w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0)(
            *v.lower().partition("x")
        ),
        'WIDTHxHEIGHT, e.g. "1280x800"',
    ),
}


def config_path() -> Path:
    """The user's config file: ``$CDPKIT_CONFIG``, else ``<user config dir>/config.toml``."""
    override = os.environ.get("CDPKIT_CONFIG")
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path("cdpkit", appauthor=False) / "config.toml"


def _read_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"config file {path}: cannot be read: {exc.strerror or exc}") from None


def _checked_value(where: str, table: str, key: str, value: Any, expected: str) -> Any:
    """``value`` converted to the type ``expected`` names, or a :class:`ConfigError`."""
    place = f"{where}: [{table}] {key}"
    optional = expected.endswith("| None")
    base = expected.removesuffix(" | None").strip()
    if value is None and optional:
        return None
    ok: bool
    if base == "bool":
        ok = isinstance(value, bool)
        what = "true or false"
    elif base == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        what = "a whole number"
    elif base == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        what = "a number"
        value = float(value) if ok else value
    elif base == "str":
        ok = isinstance(value, str)
        what = "a string"
    else:  # tuple[str, ...]
        ok = isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
        what = "a list of strings"
        value = tuple(value) if ok else value
    if not ok:
        raise ConfigError(f"{place} must be {what}, not {value!r}")
    check = _RANGES.get((table, key))
    if check is not None and not check[0](value):
        raise ConfigError(f"{place} must be {check[1]}, not {value!r}")
    return value


def merge_tables(
    config: EngineConfig, tables: Mapping[str, Any], where: str
) -> EngineConfig:
    """``config`` with the values of ``tables`` (``{"browser": {"headless": False}}``) over
    it, each checked.

    Raises:
        ConfigError: An unknown table or key, or a value of the wrong type or out of range,
            naming ``where`` (the file, or ``engine config``), the table and the key.
    """
    if not isinstance(tables, Mapping):
        raise ConfigError(f"{where}: expected tables of settings, not {tables!r}")
    for table, values in tables.items():
        if table in _SURFACE_TABLES:
            continue  # read and checked by its surface (surface_table)
        if table not in _CLASSES:
            raise ConfigError(
                f"{where}: unknown table [{table}] (known: {', '.join(sorted(_CLASSES))})"
            )
        if not isinstance(values, Mapping):
            raise ConfigError(f"{where}: [{table}] must be a table of settings, not {values!r}")
        cls = _CLASSES[table]
        known = {f.name: str(f.type) for f in fields(cls)}
        changes: dict[str, Any] = {}
        if table == "browser":
            known.pop("settings")
            identity = {key: value for key, value in values.items() if key in _IDENTITY_KEYS}
            values = {key: value for key, value in values.items() if key not in _IDENTITY_KEYS}
            if identity:
                changes["settings"] = _merged_identity(config.browser.settings, identity, where)
            known.update(dict.fromkeys(_IDENTITY_KEYS, "identity"))  # listed when a key is unknown
        for key, value in values.items():
            if key not in known:
                raise ConfigError(
                    f"{where}: unknown key [{table}] {key} (known: {', '.join(sorted(known))})"
                )
            changes[key] = _checked_value(where, table, key, value, known[key])
        config = replace(config, **{table: replace(getattr(config, table), **changes)})
    return config


_IDENTITY_KEYS = tuple(f.name for f in fields(BrowserSettings))
# Identity keys TOML could give a value of the wrong type that BrowserSettings would
# still take (any value is truthy): checked here, by name.
_IDENTITY_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "send_dnt": ((bool,), "true or false"),
    "stealth": ((bool, str), "true, false or the path of a script"),
    "extra_headers": ((Mapping,), 'a table of headers, e.g. { "X-Team" = "research" }'),
    "user_agents": ((list, tuple), "a list of strings"),
    "ignore_default_args": ((bool, list, tuple), "true or a list of flags"),
}


def _merged_identity(base: BrowserSettings | None, values: Mapping[str, Any], where: str) -> BrowserSettings:
    """``base`` with the identity keys of a ``[browser]`` table over it
    (:meth:`cdpkit.BrowserSettings.over`), each checked by :class:`cdpkit.BrowserSettings`
    (the error names ``where``, the table and the key)."""
    for key, value in values.items():
        allowed = _IDENTITY_TYPES.get(key)
        if allowed is not None and value is not None and (
            not isinstance(value, allowed[0]) or (bool not in allowed[0] and isinstance(value, bool))
        ):
            raise ConfigError(f"{where}: [browser] {key} must be {allowed[1]}, not {value!r}")
        try:
            BrowserSettings.from_mapping({key: value})
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{where}: [browser] {key}: {exc}") from None
    try:
        return (base if base is not None else BrowserSettings()).over(values)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{where}: [browser]: {exc}") from None


def load_config(
    engine_tables: Mapping[str, Any] | None = None, *, path: Path | None = None
) -> EngineConfig:
    """The defaults, then the user's config file (if it exists), then ``engine_tables``.

    Raises:
        ConfigError: The file is not valid TOML, or a table, key or value is wrong (the
            message names the file or ``engine config``, the table and the key).
    """
    file = path if path is not None else config_path()
    config = merge_tables(EngineConfig(), _read_file(file), f"config file {file}")
    if engine_tables:
        config = merge_tables(config, engine_tables, "engine config")
    return config


def surface_table(name: str, *, path: Path | None = None) -> tuple[dict[str, Any], str]:
    """A surface's own table of the config file (``[tui]``), and the words naming the
    file for its errors (``config file /path/config.toml``); ``{}`` when absent.

    Raises:
        ConfigError: The file is not valid TOML, or the table is not a table.
    """
    file = path if path is not None else config_path()
    where = f"config file {file}"
    table = _read_file(file).get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{name}] must be a table of settings, not {table!r}")
    return table, where
