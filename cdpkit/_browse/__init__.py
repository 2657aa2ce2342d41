"""``cdpkit.browse``: from a URL to the content an agent needs, fetching over HTTP first
and escalating to Chrome only when the page needs it.

The pieces: ``_result`` (options, result, errors), ``_config`` (settings and the config
file), ``_http`` (tier 1), ``_chrome`` (tiers 2 and 3), ``_documents`` (charsets, PDFs,
images, what needs a browser), ``_extract`` (HTML to content), ``_sessions`` (cookie jars
shared with browser contexts) and ``_engine`` (the tiers in order, and the public calls).
``import cdpkit`` imports none of it: ``cdpkit.browse`` and friends load it on first use.
"""

from __future__ import annotations

from ._config import ConfigError
from ._engine import Engine, browse, engine
from ._result import BrowseError, BrowseOptions, BrowseResult

__all__ = ["BrowseError", "BrowseOptions", "BrowseResult", "ConfigError", "Engine", "browse", "engine"]
