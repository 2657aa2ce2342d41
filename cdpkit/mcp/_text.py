"""What the MCP tool list says, in a model's words, short.

Every MCP client sends the whole tool list with every request to the model, so each
description costs tokens on every turn. The tool functions' docstrings are the library's
documentation (what a script writer needs, every edge case); over MCP a tool says only
what an agent needs to pick it and call it right. This table holds those words: a tool's
one-line purpose, and the descriptions of the parameters whose name and schema do not
say it all. A parameter listed with ``""`` gets no description (its name and type say
it); one not listed keeps the first sentence of its docstring description. What every
element tool shares (``index``/``selector``/``x``/``y``, the locators ``role``/``name``/
``text``/``label``) and that page text is data is
said once, in the server's instructions (:data:`cdpkit._app.INSTRUCTIONS`), not per
tool. Nothing here imports anything.
"""

from __future__ import annotations

__all__ = ["TARGET_PARAMETERS", "TOOL_TEXT", "ToolText"]

# The element target every element tool takes: explained once, in the instructions.
TARGET_PARAMETERS = {
    "selector": "", "index": "", "x": "", "y": "", "role": "", "name": "", "text": "",
    "label": "",
}
# The tools that only read an element take no locator.
_POSITION = {"selector": "", "index": "", "x": "", "y": ""}
_NAVIGATION = {"wait_until": "", "timeout": ""}
_SELECTORS = {
    "selectors": "Only inside these CSS selectors.",
    "exclude_selectors": "Leave out these CSS selectors.",
    "timeout": "",
    "session": "A named session (keeps cookies).",
}

ToolText = tuple[str, dict[str, str]]

TOOL_TEXT: dict[str, ToolText] = {
    # the light path
    "browse": (
        "Read a web page (start here), filtered and within a token budget; over HTTP, the "
        "browser only if the page needs JavaScript. To interact: browser_click and the other "
        "browser_* tools.",
        {
            "url": "",
            "format": "",
            "max_tokens": "Cut to this budget, least important first.",
            "keywords": "Only blocks with these words.",
            "keyword_mode": "",
            "query": "Rank blocks by relevance to this.",
            "readability": "Main content only.",
            "link_style": "",
            "include_media": "Also return its images and video frames, as images.",
            "max_tier": "1 HTTP; 2 light browser; 3 full browser.",
            "tier": "Load exactly this way.",
            **_SELECTORS,
        },
    ),
    "get_links": (
        "List a web page's links (text, URL); menus and footers only if `selectors` says.",
        {"url": "", "max_tier": "1: HTTP only.", **_SELECTORS},
    ),
    "get_forms": (
        "List a web page's forms and their fields (name, type, value, label, choices).",
        {
            "url": "",
            "max_tier": "1: HTTP only.",
            "selectors": _SELECTORS["selectors"],
            "timeout": "",
            "session": _SELECTORS["session"],
        },
    ),
    "session_list": ("List the named sessions of `browse`.", {}),
    "session_close": ("Close a named session of `browse`.", {"name": ""}),
    # navigation
    "browser_navigate": (
        "Load a URL in the active tab and wait until it is usable.",
        {
            "wait_until": "`usable` (default): content loaded, network quiet, the result "
            "lists what still loads; `load`: every resource.",
            "timeout": "",
        },
    ),
    "browser_go_back": (
        "Go back in history and wait until usable (`null` if there is no page before).",
        _NAVIGATION,
    ),
    "browser_go_forward": (
        "Go forward in history and wait until usable (`null` if there is none).",
        _NAVIGATION,
    ),
    "browser_reload": ("Reload the page and wait until it is usable.", _NAVIGATION),
    "browser_wait": ("Wait `ms` milliseconds.", {}),
    "browser_wait_for": (
        "Wait for an element, a text, its absence, or network idle.",
        {"selector": "", "text": "", "text_gone": "", "network_idle": "", "timeout": ""},
    ),
    # input
    "browser_click": (
        "Click an element with the mouse.",
        {**TARGET_PARAMETERS, "button": "", "click_count": "2: double click.", "modifiers": ""},
    ),
    "browser_hover": ("Move the mouse over an element.", TARGET_PARAMETERS),
    "browser_type": (
        "Type text into a field with real key presses.",
        {**TARGET_PARAMETERS, "text": "", "clear": "Replace the current text.",
         "submit": "Press Enter after."},
    ),
    "browser_press_key": (
        "Press a key or combination in the focused element.",
        {"key": "E.g. `Enter`, `Tab`, `ArrowDown`, `Control+A`, `a`."},
    ),
    "browser_drag": (
        "Drag an element onto another (`to_index`, `to_selector`) or a point (`to_x`/`to_y`).",
        {**TARGET_PARAMETERS, "to_selector": "", "to_index": "", "to_x": "", "to_y": ""},
    ),
    "browser_select_option": (
        "Choose the option(s) of a `<select>`.",
        {**TARGET_PARAMETERS, "values": "Values or labels."},
    ),
    "browser_upload_file": (
        "Set the files of an `<input type=file>`.",
        {**TARGET_PARAMETERS, "paths": ""},
    ),
    "browser_handle_dialog": (
        "Answer the open JavaScript dialog, or the next one (call, then act). Others are "
        "dismissed.",
        {"accept": "", "prompt_text": ""},
    ),
    # information
    "browser_snapshot": (
        "The page as numbered lines (`[index] role \"name\"`) to act on by index; cut to "
        "`max_chars` (a cut line says which `index` shows it).",
        {
            "max_chars": "`null`: no limit.",
            "selector": "Only this subtree.",
            "index": "Only this subtree.",
            "interactive_only": "Only controls.",
            "depth": "",
            "diff": "Only the changes since the last snapshot.",
            "boxes": "Which lines show `@(x,y,w,h)`.",
        },
    ),
    "browser_get_filtered_aria_tree": (
        "`browser_snapshot` filtered by role or name, with no budget by default.",
        {
            "max_chars": "",
            "selector": "Only this subtree.",
            "index": "Only this subtree.",
            "interactive_only": "Only controls.",
            "depth": "",
            "diff": "Only the changes since the last snapshot.",
            "roles": "",
            "name": "Name contains (any case).",
            "boxes": "",
        },
    ),
    "browser_screenshot": (
        "Screenshot the viewport, the full page or one element.",
        {"full_page": "", "format": "", "quality": "jpeg/webp, 0-100.", "selector": "",
         "index": ""},
    ),
    "browser_get_console_logs": (
        "The page's console messages and uncaught errors, oldest first.",
        {"level": "At least this severe.", "clear": "Empty the buffer after."},
    ),
    "browser_execute_js": (
        "Evaluate a JavaScript expression in the page; returns its value as JSON.",
        {"expression": "", "await_promise": ""},
    ),
    "browser_pdf": ("Print the page to PDF.", {}),
    # DOM exploration
    "browser_query_dom": (
        "List the elements matching a CSS selector.",
        {"selector": "", "limit": ""},
    ),
    "browser_get_visible_text": (
        "The text a user sees on the page or in one element.",
        {"selector": "", "max_chars": ""},
    ),
    "browser_get_computed_styles": (
        "An element's computed CSS values.",
        {**_POSITION, "properties": "Default: the common ones."},
    ),
    "browser_check_visibility": (
        "Whether an element is visible and in the viewport, and why not.",
        _POSITION,
    ),
    "browser_get_attributes": ("An element's HTML attributes.", _POSITION),
    "browser_count_elements": ("Count the elements matching a CSS selector.", {"selector": ""}),
    "browser_get_page_metadata": (
        "The page's title, description, canonical URL, language, Open Graph and other meta.",
        {},
    ),
    "browser_find_by_text": (
        "Find the elements showing a text (or with it as label, placeholder or title).",
        {"text": "", "exact": "Whole text, same case.", "limit": ""},
    ),
    "browser_get_form_values": (
        "The current values of the form controls.",
        {"selector": "Only inside this element."},
    ),
    "browser_check_element_state": (
        "An element's state: visible, enabled, checked, focused, editable, selected.",
        TARGET_PARAMETERS,
    ),
    "browser_get_dom_tree": (
        "A simplified DOM tree as JSON.",
        {"selector": "Start here.", "max_depth": "", "max_nodes": ""},
    ),
    # tabs, files, scrape
    "browser_tabs": (
        "List, open (`new`, with `url`), switch to or close tabs; tools act on the active one.",
        {"action": "", "url": "", "tab_id": ""},
    ),
    "browser_download": (
        "Download a URL, or an element's resource, as the page would.",
        {
            "url": "",
            "selector": "",
            "index": "",
            "filename": "",
            "server_filename": "Name it as the server says.",
            "timeout": "",
            "initiation_timeout": "Seconds for the response to start.",
        },
    ),
    "browser_scrape": (
        "Load a URL in the tab and return its content in one format.",
        {
            "url": "",
            "format": "",
            "wait_for_ms": "Default: until the content settles.",
            "selector": "",
            "max_chars": "",
            "keep_page_chrome": "Keep nav, footer, aside.",
            "keep_data_images": "",
            "timeout": "",
        },
    ),
    # what the page does
    "browser_network_requests": (
        "The page's network requests since it loaded, with their ids.",
        {
            "url_pattern": "Glob with `*`, else substring.",
            "resource_types": "E.g. `XHR`, `Fetch`, `Document`.",
            "failed_only": "",
            "limit": "",
        },
    ),
    "browser_network_request": (
        "One network request in full: headers, post data, timing, body.",
        {"id": "From `browser_network_requests`.", "body": "", "max_body_chars": ""},
    ),
    "browser_performance_trace": (
        "Trace the page (reloading it) and report its Web Vitals.",
        {"reload": "`false`: record 1 s of the page as it is.", "filename": ""},
    ),
    # state and emulation
    "browser_save_storage_state": (
        "Save the tab's cookies and storage as a storage_state JSON file.",
        {"filename": ""},
    ),
    "browser_emulate": (
        "Emulate a device, place or network in the tab until changed or `reset`.",
        {
            "device": "E.g. `iPhone 15`, `Pixel 7`, `iPad Mini`, `Desktop 1080p`.",
            "width": "",
            "height": "",
            "user_agent": "",
            "locale": "",
            "timezone": "",
            "latitude": "",
            "longitude": "",
            "color_scheme": "",
            "offline": "",
            "cpu_throttle": "Slow-down factor.",
            "network": "",
            "reset": "Clear all first.",
        },
    ),
    "browser_downloads": ("Every file of the session (the pages' downloads, browser_download's): state, size, path.", {}),
    "browser_start_recording": (
        "Record your actions from now on as a Python script replaying them without you.",
        {"filename": "In the download directory."},
    ),
    "browser_stop_recording": ("Stop recording; returns the script.", {}),
}
