"""``cdpkit.browse``: from a URL to the content an agent needs, fetching over HTTP first
and escalating to Chrome only when the page needs it.

The pieces: ``_result`` (options, result, errors), ``_http`` (tier 1), ``_chrome`` (tiers
2 and 3), ``_documents`` (charsets, PDFs, images, what needs a browser), ``_sessions``
(cookie jars shared with browser contexts), ``_media`` (the media cache), ``_page_media``
(a page's images and videos for a call), ``_call`` (one call: the tiers in order) and
``_engine`` (the engine, its sessions and browser, and the public calls). HTML to content
is the extraction package below the tools (:mod:`cdpkit._extraction`); the config file's
reader sits beside the options table (:mod:`cdpkit._browser.config`), and its names are found here
too.
``import cdpkit`` imports none of it: ``cdpkit.browse`` and friends load it on first use.
Nor does importing the package load the engine: its names load on first access, so that
the commands that only read the config file (``cdpkit mcp``, ``cdpkit eval``...) do not
load the HTTP client and the extraction pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._core.lazy import lazy_exports

if TYPE_CHECKING:
    from .._browser.config import BrowserTable, ConfigError, load_config, surface_table
    from ._engine import Engine, EngineKeywords, browse, engine
    from ._result import (
        BROWSE_CALL_DEFAULTS,
        FORM_HEAD,
        BrowseCall,
        BrowseError,
        BrowseOptions,
        BrowseResult,
        Form,
        FormField,
    )
    from ._sessions import check_session_name

# What the rest of cdpkit uses of the engine, and the module defining each: cdpkit.browse
# and friends, the front ends (config tables, session names, results) and the sync
# twins. Nothing outside this package imports its modules themselves.
_HOMES = {
    "BROWSE_CALL_DEFAULTS": "_result",
    "BrowseCall": "_result",
    "BrowseError": "_result",
    "BrowseOptions": "_result",
    "BrowseResult": "_result",
    "Engine": "_engine",
    "EngineKeywords": "_engine",
    "FORM_HEAD": "_result",
    "Form": "_result",
    "FormField": "_result",
    "browse": "_engine",
    "check_session_name": "_sessions",
    "engine": "_engine",
}

__all__ = [
    "BROWSE_CALL_DEFAULTS",
    "FORM_HEAD",
    "BrowseCall",
    "BrowseError",
    "BrowseOptions",
    "BrowseResult",
    "BrowserTable",
    "ConfigError",
    "Engine",
    "EngineKeywords",
    "Form",
    "FormField",
    "browse",
    "check_session_name",
    "engine",
    "load_config",
    "surface_table",
]


# The config reader's names, which the front ends find here as well as in cdpkit._browser.config.
_CONFIG_NAMES = ("BrowserTable", "ConfigError", "load_config", "surface_table")
_engine_getattr, _engine_dir = lazy_exports(__name__, _HOMES)


def __getattr__(name: str) -> Any:
    if name in _CONFIG_NAMES:
        from .._browser import config as _config

        value = getattr(_config, name)
        globals()[name] = value  # the next access is a plain lookup
        return value
    return _engine_getattr(name)


def __dir__() -> list[str]:
    return sorted({*_engine_dir(), *_CONFIG_NAMES})
