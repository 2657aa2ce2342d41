"""Save and restore a login: cookies, localStorage and sessionStorage, in Playwright's
``storage_state`` JSON format, so state files move between the two.

The file is ``{"cookies": [...], "origins": [{"origin", "localStorage": [{"name",
"value"}], "sessionStorage": [...]}]}``; cookies carry ``name``, ``value``, ``domain``,
``path``, ``expires`` (``-1`` for a session cookie), ``httpOnly``, ``secure`` and
``sameSite`` (``"Strict"``, ``"Lax"`` or ``"None"``). ``sessionStorage`` is cdpkit's
addition (Playwright ignores it); a Playwright file loads as it is. ``launch(storage_state=
...)`` and ``browser.new_context(storage_state=...)`` load one as they start.
"""

from .._browser.storage import StorageState, load_storage_state, save_storage_state

__all__ = ["StorageState", "load_storage_state", "save_storage_state"]
