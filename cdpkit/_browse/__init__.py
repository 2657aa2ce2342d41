"""``cdpkit.browse``: from a URL to the content an agent needs, fetching over HTTP first
and escalating to Chrome only when the page needs it.

The pieces: ``_result`` (options, result, errors), ``_config`` (settings and the config
file), ``_http`` (tier 1), ``_chrome`` (tiers 2 and 3), ``_documents`` (charsets, PDFs,
images, what needs a browser), ``_extract`` (HTML to content), ``_sessions`` (cookie jars
shared with browser contexts) and ``_engine`` (the tiers in order, and the public calls).
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
    from ._extract import extract_html
    from ._formats import FORM_HEAD
    from ._result import (
        BROWSE_CALL_DEFAULTS,
        BrowseCall,
        BrowseError,
        BrowseOptions,
        BrowseResult,
        Form,
        FormField,
    )
    from ._sessions import check_session_name

# What the rest of cdpkit uses of the engine, and the module defining each: cdpkit.browse
# and friends, the front ends (config tables, session names, results), scrape's extraction
# and the sync twins. Nothing outside this package imports its modules themselves.
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
    "FORM_HEAD": "_formats",
    "Form": "_result",
    "FormField": "_result",
    "browse": "_engine",
    "check_session_name": "_sessions",
    "engine": "_engine",
    "extract_html": "_extract",
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
    "extract_html",
    "load_config",
    "surface_table",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
