"""The snapshot family: the outline model, the two engines that compute the outline, and
what a snapshot shows of it. :mod:`cdpkit.tools.accessibility` is its public face
(:func:`~cdpkit.tools.snapshot`); ``index=`` targeting and the locators read the outline
through the names below.

* :mod:`._outline_model`: the lines, the snapshot, what a page's snapshots keep, filters
  (the types every other module here shares; it imports none of theirs).
* :mod:`._page_outline`: the ``"page"`` engine, a script walking each frame's document in
  a world of its own (``_js/outline.js`` and its parts ``_js/outline/*.js``: DOM helpers,
  roles, names, the name from content, states; run as one function).
* :mod:`._chrome_outline`: the ``"chrome"`` engine, Chrome's own accessibility tree.
* :mod:`._views`: the character budget and the diff.
"""

from ._chrome_outline import Collected, build_outline, collect_session
from ._outline_model import (
    INTERACTIVE_ROLES,
    MAX_TEXT,
    NOT_INTERACTIVE,
    Filters,
    Snapshot,
    SnapshotCut,
    SnapshotNode,
    SnapshotScope,
    SnapshotState,
    lowered_roles,
    quote_text,
)
from ._page_outline import (
    FOCUSABLE,
    OutlineEntry,
    OutlineSegment,
    OutlineWorldError,
    outline_backend_id,
    outline_number,
    page_outline,
    page_segments,
    renew_worlds,
)
from ._views import diff_lines, fit_budget, fit_lines

__all__ = [
    "FOCUSABLE",
    "INTERACTIVE_ROLES",
    "MAX_TEXT",
    "NOT_INTERACTIVE",
    "Collected",
    "Filters",
    "OutlineEntry",
    "OutlineSegment",
    "OutlineWorldError",
    "Snapshot",
    "SnapshotCut",
    "SnapshotNode",
    "SnapshotScope",
    "SnapshotState",
    "build_outline",
    "collect_session",
    "diff_lines",
    "fit_budget",
    "fit_lines",
    "lowered_roles",
    "outline_backend_id",
    "outline_number",
    "page_outline",
    "page_segments",
    "quote_text",
    "renew_worlds",
]
