"""The MCP tool definitions, generated from the tool functions of :mod:`cdpkit.tools`.

Nothing here imports ``mcp``: this module turns each tool function into a
:class:`ToolSpec` (name, description, pydantic input model, how to run it and how to
render its result as neutral :class:`Text` / :class:`Image` / :class:`Blob` parts) and
lists them (:func:`build_tools`); :mod:`cdpkit.mcp._app` wires these into the MCP SDK.
The parts live beside it, one job each: :mod:`cdpkit.mcp._schema` (docstring and
signature -> description and input model), :mod:`cdpkit.mcp._session` (the options and
the browser), :mod:`cdpkit.mcp._reach` (the URL policy around each tool) and
:mod:`cdpkit.mcp._render` (results -> parts). Their public names are re-exported here.

Written once, not twice: the input schema comes from the function's signature (its first
parameter, the page or browser, is dropped: the server supplies the current one), the
description and the parameter descriptions from its Google-style docstring, with the
Python-isms rewritten for a model (``None`` -> ``null``, ``snapshot`` ->
``browser_snapshot``). Only three tools are MCP-specific functions with their own
docstrings, because they behave differently over MCP: ``browser_handle_dialog`` (never
waits), ``browser_tabs`` (one tool for four actions) and ``browser_snapshot`` (a budget
by default). The action tools' results say what the action changed
(:mod:`cdpkit.mcp._changes`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .. import tools
from .._browser.own_requests import checked_by
from ..errors import NavigationError
from ._browse import browse_tools
from ._changes import LOADED_SETTLE, SETTLE, summarize, watch_changes
from ._network import (
    browser_network_request,
    browser_network_requests,
    browser_performance_trace,
    watch_network,
)
from ._page_tools import (
    browser_tabs,
    go_back,
    go_forward,
    handle_dialog,
    navigate,
    reload,
    snapshot_for_agents,
)
from ._reach import (
    ArgumentCheck,
    check_download_source,
    check_url_argument,
    check_where_it_ended,
    download_refusing_blocked_redirects,
    location,
    navigation_refused,
    refuse_blocked_tab,
    refused_note,
    uploads_only_from,
    watch_beside,
)
from ._recording import recording_tools
from ._render import (
    MAX_INLINE_BYTES,
    Render,
    render_console,
    render_default,
    render_download,
    render_json,
    render_navigation,
    render_pdf,
    render_scrape,
    render_screenshot,
    render_snapshot,
)
from ._schema import (
    PAGE_CONTENT_NOTE,
    Blob,
    Docstring,
    Image,
    Part,
    Text,
    ToolArgumentError,
    ToolSpec,
    describe,
    input_model_of,
    mcp_words,
    parse_docstring,
    to_json,
)
from ._session import BlockedRequest, BrowserSession, RequestGuard, ServerOptions
from ._state import browser_downloads, browser_emulate, browser_save_storage_state
from ._text import TOOL_TEXT

__all__ = [
    "MAX_INLINE_BYTES",
    "PAGE_CONTENT_NOTE",
    "Blob",
    "BlockedRequest",
    "BrowserSession",
    "Docstring",
    "Image",
    "Part",
    "RequestGuard",
    "ServerOptions",
    "Text",
    "ToolArgumentError",
    "ToolSpec",
    "browser_tabs",
    "build_tools",
    "handle_dialog",
    "location",
    "mcp_words",
    "parse_docstring",
    "render_download",
    "to_json",
]


# What an agent leaves at its default: names match exactly (as its snapshot shows them),
# and a locator waits the tools' 5 s for its element.
_LOCATOR_TUNING = ("exact", "timeout")
# The tools that only read an element take it as before (index, selector, x/y): each
# parameter is in every request to the model.
_NO_LOCATORS = (*_LOCATOR_TUNING, "role", "name", "text", "label")


def _page_tool(
    name: str,
    function: Callable[..., Awaitable[Any]],
    *,
    exclude: Iterable[str] = (),
    fixed: Callable[[BrowserSession], dict[str, Any]] | None = None,
    render: Render = render_default,
    page_content: bool = False,
    read_only: bool = False,
    note: str = "",
    returns: str | None = None,
    on_browser: bool = False,
    borrow: Callable[..., Any] | None = None,
    reads_page: bool = True,
    navigates: bool = False,
    check_arguments: ArgumentCheck | None = None,
    acts: bool = False,
) -> ToolSpec:
    """A tool calling ``function(page_or_browser, **arguments)`` on the current page (or
    the browser). Parameters its docstring leaves undescribed take their description from
    ``borrow``'s docstring (a sibling tool with the same parameters).

    The server's URL policy is applied around page tools: ``check_arguments`` checks (and
    may rewrite) the arguments first; a tool that ``reads_page`` refuses to start while
    the tab is at a blocked URL; and whatever the tool did, its result is replaced by an
    error if the tab ended at a blocked URL, so nothing from there reaches the model (a
    tool that ``navigates`` also sends the tab to ``about:blank``).

    A tool that ``acts`` on the page gets a result saying what changed
    (:mod:`cdpkit.mcp._changes`), and with ``--snapshot-after-action`` a full snapshot."""
    doc = parse_docstring(function.__doc__)
    if borrow is not None:
        lender = parse_docstring(borrow.__doc__)
        doc = dataclasses.replace(doc, args={**lender.args, **doc.args})
    purpose, descriptions = TOOL_TEXT.get(name, (None, {}))
    model = input_model_of(name, function, doc, exclude, descriptions)

    async def run(session: BrowserSession, arguments: dict[str, Any]) -> list[Part]:
        # The requests cdpkit makes itself during the tool (a download's fallback, a
        # scrape's probe) are held to the URL policy too, each redirect hop before it is
        # requested.
        with checked_by(session.options.url_policy.refusal):
            return await run_checked(session, arguments)

    async def run_checked(session: BrowserSession, arguments: dict[str, Any]) -> list[Part]:
        if on_browser:
            browser = await session.browser()  # first: it makes a client's own context
            if fixed is not None:
                arguments = {**arguments, **fixed(session)}
            with recorded_by(session):
                result = await function(browser, **arguments)
            return render(result, session)
        if fixed is not None:
            arguments = {**arguments, **fixed(session)}
        policy = session.options.url_policy
        page = await session.page()
        await watch_network(page)  # from the first call on a page: its next loads are seen whole
        if reads_page:
            await refuse_blocked_tab(page, policy, name)
        if check_arguments is not None:
            arguments = await check_arguments(page, policy, arguments)
        async with watch_beside(page) as notes:
            async with (
                watch_changes(page, LOADED_SETTLE if navigates else SETTLE, loaded=navigates)
                if acts
                else contextlib.nullcontext()
            ) as changes:
                try:
                    with recorded_by(session):
                        result = await function(page, **arguments)
                except Exception as exc:
                    # A failure message may quote the blocked page too.
                    await check_where_it_ended(page, policy, name, arguments, navigates)
                    refused = session.guard.take_unreported(session.tab_context)
                    if isinstance(exc, NavigationError) and refused:
                        raise navigation_refused(exc, refused[-1]) from None
                    raise
            await check_where_it_ended(page, policy, name, arguments, navigates)
        refused = session.guard.take_unreported(session.tab_context)
        refused_urls = {blocked.url: blocked for blocked in refused}
        notes += [Text(refused_note(blocked)) for blocked in refused_urls.values()]
        if changes is None:
            return render(result, session) + notes
        said = None if result is None else render(result, session)
        parts = summarize(changes, notes, said, url_said=navigates)
        if session.options.snapshot_after_action:
            after = await snapshot_for_agents(page)
            parts += [Text("Snapshot after the action:"), *render_snapshot(after, session)]
        return parts

    return ToolSpec(
        name=name,
        description=describe(
            doc, page_content=page_content, note=note, returns=returns, purpose=purpose
        ),
        input_model=model,
        run=run,
        read_only=read_only,
    )


def recorded_by(session: BrowserSession) -> contextlib.AbstractContextManager[Any]:
    """Around a tool's call: its actions are written to the session's recording, if one
    is running (:mod:`cdpkit.mcp._recording`)."""
    recording = session.recording
    return recording.activated() if recording is not None else contextlib.nullcontext()


# -- the list ---------------------------------------------------------------------------------

def _downloads(session: BrowserSession) -> dict[str, Any]:
    return {"dest_dir": session.options.download_dir}


def _url_policy(session: BrowserSession) -> dict[str, Any]:
    return {"url_policy": session.options.url_policy, "guard": session.guard}


def _scripts(session: BrowserSession) -> dict[str, Any]:
    return {"script_timeout": session.options.script_timeout}


def build_tools(options: ServerOptions) -> list[ToolSpec]:
    """Every tool of the server, in a stable order: ``browse`` first (it covers most
    needs; see :mod:`cdpkit.mcp._browse`), then the browser tools; ``browser_execute_js``
    only with ``options.allow_js``."""
    # Said where URLs are given, so the model knows before it tries (what is refused
    # whatever the origin lists say, file: URLs, is said once, in the instructions).
    policy = options.url_policy.describe(file_urls=False)
    specs = [
        *browse_tools(policy),  # the light path: read a page without driving the browser
        *_navigation_tools(policy),
        *_input_tools(options),
        *_information_tools(),
    ]
    if options.allow_js:
        specs.append(
            _page_tool("browser_execute_js", tools.evaluate, render=render_json, page_content=True)
        )
    return [
        *specs,
        _page_tool("browser_pdf", tools.pdf, render=render_pdf, read_only=True),
        *_dom_tools(),
        *_tab_and_file_tools(options, policy),
        *_observation_tools(),
        *recording_tools(),  # the session as a script that replays without the agent
    ]


def _navigation_tools(policy: str) -> list[ToolSpec]:
    """Loading pages and moving in their history."""
    return [
        _page_tool(
            "browser_navigate",
            navigate,
            borrow=tools.navigate,
            render=render_navigation,
            exclude=("script_timeout",),
            fixed=_scripts,
            page_content=True,
            reads_page=False,
            navigates=True,
            acts=True,
            check_arguments=check_url_argument,
            note=policy,
        ),
        _page_tool(
            "browser_go_back",
            go_back,
            render=render_navigation,
            exclude=("script_timeout",),
            fixed=_scripts,
            page_content=True,
            borrow=tools.navigate,
            reads_page=False,
            navigates=True,
            acts=True,
        ),
        _page_tool(
            "browser_go_forward",
            go_forward,
            render=render_navigation,
            exclude=("script_timeout",),
            fixed=_scripts,
            page_content=True,
            borrow=tools.navigate,
            reads_page=False,
            navigates=True,
            acts=True,
        ),
        _page_tool(
            "browser_reload",
            reload,
            render=render_navigation,
            exclude=("script_timeout",),
            fixed=_scripts,
            page_content=True,
            borrow=tools.navigate,
            navigates=True,
            acts=True,
        ),
        _page_tool("browser_wait", tools.wait, read_only=True, reads_page=False),
        _page_tool("browser_wait_for", tools.wait_for, read_only=True),
    ]


def _input_tools(options: ServerOptions) -> list[ToolSpec]:
    """Acting on the page as a person does."""
    return [
        _page_tool(
            "browser_click", tools.click, exclude=_LOCATOR_TUNING, acts=True, page_content=True
        ),
        _page_tool(
            "browser_hover", tools.hover, exclude=_LOCATOR_TUNING, acts=True, page_content=True
        ),
        _page_tool(
            "browser_type", tools.type_text, exclude=_LOCATOR_TUNING, acts=True, page_content=True
        ),
        _page_tool("browser_press_key", tools.press_key, acts=True, page_content=True),
        _page_tool(
            "browser_drag",
            tools.drag,
            # The drop target over MCP: an index, a selector or a point, as before.
            exclude=(*_LOCATOR_TUNING, "to_exact", "to_role", "to_name", "to_text", "to_label"),
            acts=True,
            page_content=True,
        ),
        _page_tool(
            "browser_select_option", tools.select_option, exclude=_LOCATOR_TUNING, acts=True, page_content=True
        ),
        _page_tool(
            "browser_upload_file",
            tools.upload_file,
            exclude=_LOCATOR_TUNING,
            check_arguments=uploads_only_from(options.download_dir),
            acts=True,
            page_content=True,
            note=""
            if options.url_policy.allow_file_urls
            else "Only files of the download directory (where browser_download saves them).",
        ),
        _page_tool("browser_handle_dialog", handle_dialog, page_content=True, acts=True),
    ]


def _information_tools() -> list[ToolSpec]:
    """What the page shows: its outline, pixels, console."""
    return [
        _page_tool(
            "browser_snapshot",
            snapshot_for_agents,
            render=render_snapshot,
            page_content=True,
            read_only=True,
            borrow=tools.snapshot,
        ),
        _page_tool(
            "browser_get_filtered_aria_tree",
            tools.snapshot,
            # max_depth: the former name of depth; engine: the server's snapshots all use
            # the default one, so that an element has one index in all of them.
            exclude=("max_depth", "engine"),
            render=render_snapshot,
            page_content=True,
            read_only=True,
        ),
        _page_tool(
            "browser_screenshot",
            tools.screenshot,
            exclude=_NO_LOCATORS,
            render=render_screenshot,
            read_only=True,
        ),
        _page_tool(
            "browser_get_console_logs",
            tools.console_logs,
            render=render_console,
            page_content=True,
        ),
    ]


def _dom_tools() -> list[ToolSpec]:
    """Exploring the DOM."""
    return [
        _page_tool("browser_query_dom", tools.query_dom, page_content=True, read_only=True),
        _page_tool(
            "browser_get_visible_text", tools.visible_text, page_content=True, read_only=True
        ),
        _page_tool(
            "browser_get_computed_styles", tools.computed_styles, exclude=_NO_LOCATORS, read_only=True
        ),
        _page_tool(
            "browser_check_visibility", tools.check_visibility, exclude=_NO_LOCATORS, read_only=True
        ),
        _page_tool(
            "browser_get_attributes",
            tools.get_attributes,
            exclude=_NO_LOCATORS,
            page_content=True,
            read_only=True,
            borrow=tools.element_state,
        ),
        _page_tool(
            "browser_count_elements", tools.count_elements, read_only=True, borrow=tools.query_dom
        ),
        _page_tool(
            "browser_get_page_metadata", tools.page_metadata, page_content=True, read_only=True
        ),
        _page_tool("browser_find_by_text", tools.find_by_text, page_content=True, read_only=True),
        _page_tool("browser_get_form_values", tools.form_values, page_content=True, read_only=True),
        _page_tool(
            "browser_check_element_state",
            tools.element_state,
            exclude=_LOCATOR_TUNING,
            read_only=True,
        ),
        _page_tool("browser_get_dom_tree", tools.dom_tree, page_content=True, read_only=True),
    ]


def _tab_and_file_tools(options: ServerOptions, policy: str) -> list[ToolSpec]:
    """Tabs, downloads and scraping."""
    return [
        _page_tool(
            "browser_tabs",
            browser_tabs,
            exclude=("url_policy", "guard", "context", "script_timeout"),
            fixed=lambda session: {
                **_url_policy(session), "context": session.tab_context, **_scripts(session)
            },
            on_browser=True,
            page_content=True,
            note=policy,
        ),
        _page_tool(
            "browser_download",
            download_refusing_blocked_redirects(options.url_policy),
            # The element to download by index, selector or url, as before.
            exclude=("dest_dir", "role", "name", "exact", "text", "label"),
            fixed=_downloads,
            render=render_download,
            check_arguments=check_download_source,
            note="Saved in the download directory; the result carries the file up to "
            f"{MAX_INLINE_BYTES // (1024 * 1024)} MiB." + (f" {policy}" if policy else ""),
        ),
        _page_tool(
            "browser_scrape",
            tools.scrape,
            exclude=("smart_wait",),
            render=render_scrape,
            page_content=True,
            reads_page=False,
            navigates=True,
            check_arguments=check_url_argument,
            note=policy,
        ),
    ]


def _observation_tools() -> list[ToolSpec]:
    """What the page does (requests, performance), the state an agent keeps, and the place it pretends to be."""
    return [
        _page_tool(
            "browser_network_requests", browser_network_requests, page_content=True, read_only=True
        ),
        _page_tool(
            "browser_network_request",
            browser_network_request,
            exclude=("save_to",),
            fixed=lambda session: {"save_to": session.options.download_dir},
            page_content=True,
            read_only=True,
        ),
        _page_tool(
            "browser_performance_trace",
            browser_performance_trace,
            exclude=("output_dir",),
            fixed=lambda session: {"output_dir": session.options.download_dir},
            navigates=True,
        ),
        # state an agent keeps, and the place it pretends to be
        _page_tool(
            "browser_save_storage_state",
            browser_save_storage_state,
            exclude=("output_dir",),
            fixed=lambda session: {"output_dir": session.options.download_dir},
            read_only=True,
        ),
        _page_tool("browser_emulate", browser_emulate, reads_page=False),
        _page_tool(
            "browser_downloads",
            browser_downloads,
            exclude=("tracker",),
            fixed=lambda session: {"tracker": session.downloads},
            on_browser=True,
            read_only=True,
        ),
    ]
