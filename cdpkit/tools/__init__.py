"""Browser tools: plain async functions taking a :class:`~cdpkit.Page` (or a
:class:`~cdpkit.Browser` for tabs) first, for scripts and AI agents.

Element-taking tools accept exactly one of ``selector=`` (CSS), ``index=`` (a line of a
:func:`snapshot` of that page: an element keeps its index while it lives, until the page
loads a new document), ``x=``/``y=`` (viewport CSS pixels), or a locator that survives a
changed page: ``role=`` (with ``name=``), ``text=`` (visible text) or ``label=`` (a form
field), matched as the snapshot shows the page (``exact=False``: a case-insensitive part
of the name), waited for up to the tool's ``timeout``; :class:`Locator` holds one, and
:func:`locator_for` picks the most robust for an element. Errors say what went wrong in
words a person or a model can act on.

=================  ==========================================================================
family             tools
=================  ==========================================================================
navigation         navigate, go_back, go_forward, reload, wait, wait_for, wait_for_content
input              click, hover, type_text, press_key, drag, select_option, upload_file,
                   handle_dialog; low level: mouse_move, mouse_down, mouse_up, mouse_wheel,
                   key_down, key_up (held keys and buttons apply to later input)
emulation          emulate: a device (tools.emulation.DEVICES), viewport, user agent, locale,
                   timezone, geolocation, color scheme, offline, CPU and network throttling
information        snapshot (budget, scope, diff; its numbering in
                   ``page.state(SnapshotState)``), screenshot, console_logs, evaluate, pdf
DOM exploration    query_dom, visible_text, computed_styles, check_visibility, get_attributes,
                   count_elements, page_metadata, find_by_text, form_values, element_state,
                   dom_tree
tabs               list_tabs, new_tab, switch_tab, close_tab, active_tab
files              download, expect_download, resource_url, scrape
state              save_storage_state, load_storage_state (Playwright's storage_state format)
network            network_requests, network_request, start_network_log, record_har (HAR 1.2)
performance        performance_trace (a DevTools trace file and the Web Vitals)
=================  ==========================================================================
"""

from typing import TYPE_CHECKING

from .._core.lazy import lazy_exports

if TYPE_CHECKING:
    from ._locating import DEFAULT_LOCATOR_TIMEOUT as DEFAULT_LOCATOR_TIMEOUT
    from ._locating import Locator
    from ._locating import parse_target as parse_target
    from ._locator_for import locator_for
    from ._recording import Recording, record
    from ._recording import current_recording as current_recording
    from ._scripts import Script as Script
    from ._scripts import evaluate as _evaluate_script
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
    from .emulation import Device, NetworkConditions, emulate
    from .files import DownloadResult, PendingDownload, download, expect_download, resource_url
    from .forms import handle_dialog, select_option, upload_file
    from .har import record_har
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
    from .network import (
        NetworkRequest,
        NetworkRequestDetails,
        network_request,
        network_requests,
        start_network_log,
    )
    from .performance import LongTask, PerformanceReport, performance_trace
    from .pointer import click, drag, hover, mouse_down, mouse_move, mouse_up, mouse_wheel
    from .scraping import Link, ScrapeResult, SmartWait, scrape, wait_for_content
    from .storage import StorageState, load_storage_state, save_storage_state
    from .tabs import Tab, active_tab, close_tab, list_tabs, new_tab, switch_tab

    # The internals of _SHARED (below): imported `as` themselves, or named as shared.
    evaluate_script = _evaluate_script

# Each name and the module that defines it, loaded on first access: a program (or the
# `cdpkit screenshot` command) that uses one tool does not import all of them (the HAR
# recorder, the network log, the snapshot engines...: 0.1-0.4 s of a fresh process).
_EXPORTS = {
    "Box": "_targeting",
    "ConsoleMessage": "information",
    "Device": "emulation",
    "DomElement": "dom",
    "DownloadResult": "files",
    "ElementState": "dom",
    "FormField": "dom",
    "Link": "scraping",
    "Locator": "_locating",
    "LongTask": "performance",
    "NavigationResult": "navigation",
    "NetworkConditions": "emulation",
    "NetworkRequest": "network",
    "NetworkRequestDetails": "network",
    "PageMetadata": "dom",
    "PendingDownload": "files",
    "PerformanceReport": "performance",
    "Recording": "_recording",
    "ScrapeResult": "scraping",
    "SmartWait": "scraping",
    "Snapshot": "accessibility",
    "SnapshotCut": "accessibility",
    "SnapshotNode": "accessibility",
    "SnapshotState": "accessibility",
    "StorageState": "storage",
    "Tab": "tabs",
    "TextMatch": "dom",
    "Visibility": "dom",
    "active_tab": "tabs",
    "check_visibility": "dom",
    "click": "pointer",
    "close_tab": "tabs",
    "computed_styles": "dom",
    "console_logs": "information",
    "count_elements": "dom",
    "dom_tree": "dom",
    "download": "files",
    "drag": "pointer",
    "element_state": "dom",
    "emulate": "emulation",
    "evaluate": "information",
    "expect_download": "files",
    "find_by_text": "dom",
    "form_values": "dom",
    "get_attributes": "dom",
    "go_back": "navigation",
    "go_forward": "navigation",
    "handle_dialog": "forms",
    "hover": "pointer",
    "key_down": "keyboard",
    "key_up": "keyboard",
    "list_tabs": "tabs",
    "load_storage_state": "storage",
    "locator_for": "_locator_for",
    "mouse_down": "pointer",
    "mouse_move": "pointer",
    "mouse_up": "pointer",
    "mouse_wheel": "pointer",
    "navigate": "navigation",
    "network_request": "network",
    "network_requests": "network",
    "new_tab": "tabs",
    "page_metadata": "dom",
    "pdf": "information",
    "performance_trace": "performance",
    "press_key": "keyboard",
    "query_dom": "dom",
    "record": "_recording",
    "record_har": "har",
    "reload": "navigation",
    "resource_url": "files",
    "save_storage_state": "storage",
    "scrape": "scraping",
    "screenshot": "information",
    "select_option": "forms",
    "snapshot": "accessibility",
    "start_network_log": "network",
    "switch_tab": "tabs",
    "type_text": "keyboard",
    "upload_file": "forms",
    "visible_text": "dom",
    "wait": "navigation",
    "wait_for": "navigation",
    "wait_for_content": "scraping",
}

__all__ = [
    "Box",
    "ConsoleMessage",
    "Device",
    "DomElement",
    "DownloadResult",
    "ElementState",
    "FormField",
    "Link",
    "Locator",
    "LongTask",
    "NavigationResult",
    "NetworkConditions",
    "NetworkRequest",
    "NetworkRequestDetails",
    "PageMetadata",
    "PendingDownload",
    "PerformanceReport",
    "Recording",
    "ScrapeResult",
    "SmartWait",
    "Snapshot",
    "SnapshotCut",
    "SnapshotNode",
    "SnapshotState",
    "StorageState",
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
    "emulate",
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
    "load_storage_state",
    "locator_for",
    "mouse_down",
    "mouse_move",
    "mouse_up",
    "mouse_wheel",
    "navigate",
    "network_request",
    "network_requests",
    "new_tab",
    "page_metadata",
    "pdf",
    "performance_trace",
    "press_key",
    "query_dom",
    "record",
    "record_har",
    "reload",
    "resource_url",
    "save_storage_state",
    "scrape",
    "screenshot",
    "select_option",
    "snapshot",
    "start_network_log",
    "switch_tab",
    "type_text",
    "upload_file",
    "visible_text",
    "wait",
    "wait_for",
    "wait_for_content",
]


# What other packages of cdpkit share of the tools' internals, not public (not in __all__):
# name -> (module, name there). The REPL and `cdpkit click` read a target line as the tools
# do, the MCP server follows a recording, the TUI runs its scripts as the tools run theirs,
# and the sync twins default to the locators' wait.
_SHARED = {
    "DEFAULT_LOCATOR_TIMEOUT": ("_locating", "DEFAULT_LOCATOR_TIMEOUT"),
    "Script": ("_scripts", "Script"),
    "current_recording": ("_recording", "current_recording"),
    "evaluate_script": ("_scripts", "evaluate"),
    "parse_target": ("_locating", "parse_target"),
}


# A name that is neither is a submodule (``tools.har``), loaded as ``import cdpkit.tools.har``.
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_SHARED}, submodules=True)
