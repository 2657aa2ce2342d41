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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._config import ConfigError
    from ._engine import Engine, browse, engine
    from ._result import BrowseError, BrowseOptions, BrowseResult

_HOMES = {
    "ConfigError": "_config",
    "Engine": "_engine",
    "browse": "_engine",
    "engine": "_engine",
    "BrowseError": "_result",
    "BrowseOptions": "_result",
    "BrowseResult": "_result",
}

__all__ = ["BrowseError", "BrowseOptions", "BrowseResult", "ConfigError", "Engine", "browse", "engine"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
