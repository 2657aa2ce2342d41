"""What the browser tools of the MCP server do beyond the library's tools: navigation that
watches what changed, dialogs answered without waiting, the tab list and the snapshot as an
agent needs them, and the ``dom://`` and ``tabs://`` resources."""

from __future__ import annotations

import dataclasses
from typing import Literal

from .. import tools
from .._core.urls import read_url
from ..browser import Browser, BrowserContext
from ..errors import NavigationError
from ..page import Dialog, DialogPolicy, Page
from ..tools import current_recording
from ..tools.navigation import NavigationResult, WaitUntil
from ..tools.tabs import active_tab
from ._reach import (
    location,
    navigation_refused,
)
from ._schema import (
    to_json,
)
from ._session import BrowserSession, RequestGuard
from ._urls import UrlBlockedError, UrlPolicy


@dataclasses.dataclass(slots=True)
class _ArmedDialogAnswer:
    """The one-shot dialog policy ``browser_handle_dialog`` set on a page, and the policy it
    replaced (``None`` when none is armed)."""

    armed: tuple[DialogPolicy, DialogPolicy] | None = None


async def handle_dialog(page: Page, *, accept: bool = True, prompt_text: str | None = None) -> str:
    """Answer a JavaScript dialog (alert, confirm, prompt, beforeunload), or say how to
    answer the next one. Never waits.

    If a dialog is open now, it is answered. Otherwise the answer is kept for the next
    dialog this page opens (later ones are dismissed again, the default), and the call
    returns at once: call this first, then do the action that opens the dialog (e.g.
    ``browser_click``); that action's result says how the dialog was answered. Without
    this, dialogs are dismissed (Cancel) as soon as they open, except ``beforeunload``,
    which is accepted.

    Args:
        page: The page.
        accept: Accept (OK) or dismiss (Cancel) the dialog.
        prompt_text: The text to answer a ``prompt()`` with (when accepting).

    Returns:
        What was done: the dialog answered (type, message, answer), or the answer kept
        for the next dialog.
    """
    try:
        dialog = await tools.handle_dialog(page, accept=accept, prompt_text=prompt_text, timeout=0)
    except TimeoutError:
        pass  # none open
    else:
        return to_json({"answered": dataclasses.asdict(dialog)})
    # Called again before a dialog came: replace the kept answer, do not stack it.
    kept = page.state(_ArmedDialogAnswer)
    armed = kept.armed
    previous = (
        armed[1] if armed is not None and page.dialog_policy is armed[0] else page.dialog_policy
    )
    answer = (accept, prompt_text if accept else None)

    def once(dialog: Dialog) -> tuple[bool, str | None] | None:
        page.dialog_policy = previous
        kept.armed = None
        return answer

    page.dialog_policy = once
    kept.armed = (once, previous)
    recording = current_recording()
    if recording is not None:  # the script answers the next action's dialog so too
        recording.answer_next_dialog(accept, prompt_text if accept else None)
    how = "accepted" if accept else "dismissed"
    if accept and prompt_text is not None:
        how += f" (a prompt answered with {prompt_text!r})"
    return (
        f"No dialog is open. The next dialog this page opens will be {how}; later ones are "
        f"answered as before. Now do the action that opens it."
    )


async def navigate(
    page: Page,
    url: str,
    *,
    wait_until: WaitUntil = "usable",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult:
    """Load ``url`` in the page and wait until it is usable (:func:`cdpkit.tools.navigate`,
    ``wait_until="usable"`` by default: an unreachable tracker or a hanging image does
    not turn a readable page into a timeout; the result lists what is still loading, and
    says so when nothing is rendered yet). ``script_timeout``: the server's
    ``--script-timeout`` (not an MCP argument)."""
    return await tools.navigate(
        page, url, wait_until=wait_until, timeout=timeout, script_timeout=script_timeout
    )


async def go_back(
    page: Page,
    *,
    wait_until: WaitUntil = "usable",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult | None:
    """Go one step back in the page's history and wait until it is usable, as
    :func:`navigate` does (``None``: there is no earlier page)."""
    return await tools.go_back(page, wait_until=wait_until, timeout=timeout, script_timeout=script_timeout)


async def go_forward(
    page: Page,
    *,
    wait_until: WaitUntil = "usable",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult | None:
    """Go one step forward in the page's history and wait until it is usable, as
    :func:`navigate` does (``None``: there is no later page)."""
    return await tools.go_forward(
        page, wait_until=wait_until, timeout=timeout, script_timeout=script_timeout
    )


async def reload(
    page: Page,
    *,
    wait_until: WaitUntil = "usable",
    timeout: float = 30,
    script_timeout: float | None = None,
) -> NavigationResult:
    """Reload the page and wait until it is usable, as :func:`navigate` does."""
    return await tools.reload(page, wait_until=wait_until, timeout=timeout, script_timeout=script_timeout)


async def browser_tabs(
    browser: Browser,
    action: Literal["list", "new", "switch", "close"] = "list",
    *,
    url: str | None = None,
    tab_id: str | None = None,
    url_policy: UrlPolicy | None = None,
    guard: RequestGuard | None = None,
    context: BrowserContext | None = None,
    script_timeout: float | None = None,
) -> list[tools.Tab]:
    """List, open, switch to or close browser tabs. The active tab is the one every other
    tool acts on.

    Args:
        browser: The browser.
        action: ``"list"`` the tabs; open a ``"new"`` one (it becomes active), optionally
            loading ``url``; ``"switch"`` to the tab ``tab_id`` (it becomes active);
            ``"close"`` the tab ``tab_id`` (the previously active one becomes active).
        url: For ``"new"``: the URL to load in the new tab.
        tab_id: For ``"switch"`` and ``"close"``: the tab's id, from the list.
        url_policy: The server's URL policy (not an MCP argument): a blocked ``url`` is
            refused; a new tab that ends at a blocked URL is closed; the titles of tabs
            at blocked URLs are not shown.
        guard: The server's request guard (not an MCP argument): a new tab whose load
            it refused (a redirect to a blocked URL) is closed.
        context: The client's own browser context (not an MCP argument): only its tabs
            are listed, opened, switched to and closed; ``None`` for all of the browser's.

    Returns:
        The open tabs after the action: id, title, URL and which one is active.
    """
    policy = url_policy or UrlPolicy()
    if action in ("switch", "close") and not tab_id:
        raise ValueError(f"action {action!r} needs tab_id (from browser_tabs action=list)")
    if action == "new":
        if url is not None:
            url = read_url(url)  # judged and loaded as the browser reads it
            policy.check(url)
        try:
            page = await tools.new_tab(
                browser, url, context=context, wait_until="usable", script_timeout=script_timeout
            )
        except NavigationError as exc:
            refused = guard.take_unreported(context) if guard is not None else []
            opened = active_tab(browser, context=context)
            if not refused or opened is None:
                raise
            await tools.close_tab(browser, opened.target_id, context=context)
            message = str(navigation_refused(exc, refused[-1]))
            raise UrlBlockedError(f"{message} The new tab was closed.") from None
        final = await location(page)
        reason = policy.refusal(final)
        if reason is not None and url is not None:
            await tools.close_tab(browser, page.target_id, context=context)
            raise UrlBlockedError(
                f"Navigation to {url} was redirected to {final}, which is blocked: {reason}. "
                f"The new tab was closed."
            )
    elif action == "switch":
        assert tab_id is not None
        await tools.switch_tab(browser, tab_id, context=context)
    elif action == "close":
        assert tab_id is not None
        await tools.close_tab(browser, tab_id, context=context)
    elif action != "list":
        raise ValueError(f"action must be list, new, switch or close; got {action!r}")
    return hide_blocked_titles(await tools.list_tabs(browser, context=context), policy)


def hide_blocked_titles(tabs: list[tools.Tab], policy: UrlPolicy) -> list[tools.Tab]:
    """The tabs, with the title of each tab at a blocked URL replaced by a note: a title
    is that page's content."""
    return [
        dataclasses.replace(tab, title="(not shown: this URL is blocked)")
        if policy.refusal(tab.url) is not None
        else tab
        for tab in tabs
    ]


# The default budget of browser_snapshot: about 5,000 tokens, a fraction of an agent's
# context, and the outline of most pages whole.
AGENT_SNAPSHOT_CHARS = 20_000


async def snapshot_for_agents(
    page: Page,
    *,
    max_chars: int | None = AGENT_SNAPSHOT_CHARS,
    selector: str | None = None,
    index: int | None = None,
    interactive_only: bool = False,
    depth: int | None = None,
    diff: bool = False,
    boxes: Literal["all", "interactive", "none"] = "interactive",
) -> tools.Snapshot:
    """Describe the page as an indented outline of its accessibility tree, one numbered
    line per node (``[index] role "name" @(x,y,w,h)``, then ``value="..."`` and states
    such as ``[checked]``), so elements can then be targeted by ``index=``. An element
    keeps its index while it lives (until the page loads a new document).

    Boxes are shown on controls only unless ``boxes`` says otherwise. The outline is
    cut to fit ``max_chars`` (20,000 characters unless given): whole
    subtrees are cut, the later and larger first, each leaving its top line ending in
    ``… (N more lines cut; snapshot(index=I) to see them)``. To see more: pass that
    ``index``, a ``selector``, ``interactive_only``, or a larger ``max_chars``
    (``null`` for no limit). After acting, ``diff=true`` lists only what changed.

    Args:
        page: The page.
        max_chars: The budget for the text, in characters: 20,000 unless given; ``null``
            for no limit.
        boxes: Which lines show their ``@(x,y,w,h)`` box (viewport CSS pixels; the
            centre is clickable with ``x``/``y``): the ``"interactive"`` ones (controls
            and anything focusable, the default), ``"all"``, or ``"none"``.

    Returns:
        The outline.
    """
    return await tools.snapshot(
        page,
        max_chars=max_chars,
        selector=selector,
        index=index,
        interactive_only=interactive_only,
        depth=depth,
        diff=diff,
        boxes=boxes,
    )


async def dom_resource(session: BrowserSession) -> str:
    """``dom://current-page``: the current page's URL, title and simplified DOM tree, as
    JSON (``null`` values while no browser is running)."""
    browser = session.current
    page = active_tab(browser, context=session.tab_context) if browser is not None else None
    if page is None:
        return to_json({"url": None, "title": None, "tree": None})
    policy = session.options.url_policy
    url = await location(page)
    reason = policy.refusal(url)
    if reason is None:
        tree = await tools.dom_tree(page)
        url = await location(page)  # where the tree was read (a navigation may have ended)
        reason = policy.refusal(url)
    if reason is not None:
        return to_json({"url": url, "title": None, "tree": None, "blocked": reason})
    return to_json({"url": page.url, "title": page.title, "tree": tree})


async def tabs_resource(session: BrowserSession) -> str:
    """``tabs://list``: the open tabs as JSON (``[]`` while no browser is running)."""
    browser = session.current
    if browser is None:
        return "[]"
    tabs = await tools.list_tabs(browser, context=session.tab_context)
    return to_json(hide_blocked_titles(tabs, session.options.url_policy))
