"""Browser tools: plain async functions taking a :class:`~cdpkit.Page` (or a
:class:`~cdpkit.Browser` for tabs) first, for scripts and AI agents.

Element-taking tools accept exactly one of ``selector=`` (CSS), ``index=`` (a line of a
:func:`snapshot` of that page: an element keeps its index while it lives, until the page
loads a new document) or ``x=``/``y=`` (viewport CSS pixels). Errors say
what went wrong in words a person or a model can act on.

=================  ==========================================================================
family             tools
=================  ==========================================================================
navigation         navigate, go_back, go_forward, reload, wait, wait_for, wait_for_content
input              click, hover, type_text, press_key, drag, select_option, upload_file,
                   handle_dialog; low level: mouse_move, mouse_down, mouse_up, mouse_wheel,
                   key_down, key_up (held keys and buttons apply to later input)
information        snapshot (budget, scope, diff; its numbering in ``page.state(SnapshotState)``),
                   screenshot,
                   console_logs, evaluate, pdf
DOM exploration    query_dom, visible_text, computed_styles, check_visibility, get_attributes,
                   count_elements, page_metadata, find_by_text, form_values, element_state,
                   dom_tree
tabs               list_tabs, new_tab, switch_tab, close_tab, active_tab
files              download, expect_download, resource_url, scrape
=================  ==========================================================================
"""

from ._targeting import Box
from .accessibility import Snapshot, SnapshotCut, SnapshotNode, SnapshotState, snapshot
from .dom import (
    DomElement,
    ElementState,
    FormField,
    PageMetadata,
    TextMatch,
    Visibility,
    check_visibility,
    computed_styles,
    count_elements,
    dom_tree,
    element_state,
    find_by_text,
    form_values,
    get_attributes,
    page_metadata,
    query_dom,
    visible_text,
)
from .files import DownloadResult, PendingDownload, download, expect_download, resource_url
from .forms import handle_dialog, select_option, upload_file
from .information import ConsoleMessage, console_logs, evaluate, pdf, screenshot
from .keyboard import key_down, key_up, press_key, type_text
from .navigation import (
    NavigationResult,
    go_back,
    go_forward,
    navigate,
    reload,
    wait,
    wait_for,
)
from .pointer import click, drag, hover, mouse_down, mouse_move, mouse_up, mouse_wheel
from .scraping import Link, ScrapeResult, SmartWait, scrape, wait_for_content
from .tabs import Tab, active_tab, close_tab, list_tabs, new_tab, switch_tab

__all__ = [
    "Box",
    "ConsoleMessage",
    "DomElement",
    "DownloadResult",
    "ElementState",
    "FormField",
    "Link",
    "NavigationResult",
    "PageMetadata",
    "PendingDownload",
    "ScrapeResult",
    "SmartWait",
    "Snapshot",
    "SnapshotCut",
    "SnapshotNode",
    "SnapshotState",
    "Tab",
    "TextMatch",
    "Visibility",
    "active_tab",
    "check_visibility",
    "click",
    "close_tab",
    "computed_styles",
    "console_logs",
    "count_elements",
    "dom_tree",
    "download",
    "drag",
    "element_state",
    "evaluate",
    "expect_download",
    "find_by_text",
    "form_values",
    "get_attributes",
    "go_back",
    "go_forward",
    "handle_dialog",
    "hover",
    "key_down",
    "key_up",
    "list_tabs",
    "mouse_down",
    "mouse_move",
    "mouse_up",
    "mouse_wheel",
    "navigate",
    "new_tab",
    "page_metadata",
    "pdf",
    "press_key",
    "query_dom",
    "reload",
    "resource_url",
    "scrape",
    "screenshot",
    "select_option",
    "snapshot",
    "switch_tab",
    "type_text",
    "upload_file",
    "visible_text",
    "wait",
    "wait_for",
    "wait_for_content",
]
