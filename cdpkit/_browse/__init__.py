"""``cdpkit.browse``: from a URL to the content an agent needs, fetching over HTTP first
and escalating to Chrome only when the page needs it.

The pieces: ``_result`` (options, result, errors), ``_config`` (settings and the config
file), ``_http`` (tier 1), ``_chrome`` (tiers 2 and 3), ``_documents`` (charsets, PDFs,
images, what needs a browser), ``_sessions`` (cookie jars shared with browser contexts),
``_media`` (the media cache) and ``_engine`` (the tiers in order, and the public calls).
HTML to content is the extraction package below the tools (:mod:`cdpkit._extraction`).
``import cdpkit`` imports none of it: ``cdpkit.browse`` and friends load it on first use.
Nor does importing the package load the engine: its names load on first access, so that
the commands that only read the config file (``cdpkit mcp``, ``cdpkit eval``...) do not
load the HTTP client and the extraction pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._config import BrowserTable, ConfigError, load_config, surface_table
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
    "BrowserTable": "_config",
    "ConfigError": "_config",
    "Engine": "_engine",
    "EngineKeywords": "_engine",
    "FORM_HEAD": "_result",
    "Form": "_result",
    "FormField": "_result",
    "browse": "_engine",
    "check_session_name": "_sessions",
    "engine": "_engine",
    "load_config": "_config",
    "surface_table": "_config",
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


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
