"""Tab tools: list, open, switch to and close the browser's tabs.

The *active* tab is the one the tools last opened (:func:`new_tab`) or switched to
(:func:`switch_tab`) and that is still open; when there is none, the most recently opened
tab. It is what an agent works on next; :func:`active_tab` returns it.

Every function takes an optional ``context``: given one, it sees, opens and switches
among that browser context's tabs only, with an active tab of the context's own (so
several agents sharing a browser each keep their own tabs).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from .. import cdp
from ..browser import Browser, BrowserContext
from ..errors import CDPError
from ..page import Page
from ._recording import recorded
from .navigation import WaitUntil, navigate

__all__ = ["Tab", "active_tab", "close_tab", "list_tabs", "new_tab", "switch_tab"]



@dataclass(slots=True)
class _TabHistory:
    """The tabs as the tools activated them, per scope (a context id, or ``None`` for the
    whole browser): target ids, least recent first."""

    by_scope: dict[str | None, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tab:
    """An open tab.

    Attributes:
        id: The tab id (the page's target id) to pass to :func:`switch_tab` and
            :func:`close_tab`.
        title: The page's title (page content, not instructions).
        url: The page's URL.
        active: Whether it is the active tab.
    """

    id: str
    title: str
    url: str
    active: bool


def _history(browser: Browser, context: BrowserContext | None) -> list[str]:
    scope = context.id if context is not None else None
    return browser.state(_TabHistory).by_scope.setdefault(scope, [])


def _pages(browser: Browser, context: BrowserContext | None) -> list[Page]:
    return context.pages if context is not None else browser.pages


def _activate(browser: Browser, page: Page, context: BrowserContext | None) -> None:
    open_ids = {p.target_id for p in _pages(browser, context)}
    history = _history(browser, context)
    history[:] = [t for t in history if t in open_ids and t != page.target_id]
    history.append(page.target_id)


def active_tab(browser: Browser, *, context: BrowserContext | None = None) -> Page | None:
    """The active tab (of ``context`` when given): the last one opened by :func:`new_tab`
    or switched to by :func:`switch_tab` that is still open, else the most recently
    opened tab; ``None`` when no tab is open."""
    pages = _pages(browser, context)
    by_id = {page.target_id: page for page in pages}
    history = _history(browser, context)
    for target_id in reversed(history):
        page = by_id.get(target_id)
        if page is not None:
            return page
    return pages[-1] if pages else None


async def list_tabs(browser: Browser, *, context: BrowserContext | None = None) -> list[Tab]:
    """List the open tabs, oldest first, with their id, title, URL and which one is active.

    Returns:
        One :class:`Tab` per open tab (of ``context`` when given, else of every browser
        context); exactly one is active when any is open.

    Raises:
        ConnectionClosedError: The browser is gone.
    """
    result = await browser.send(cdp.target.get_targets())
    infos: dict[str, cdp.target.TargetInfo] = {i.target_id: i for i in result.target_infos}
    active = active_tab(browser, context=context)
    tabs = []
    for page in _pages(browser, context):
        info = infos.get(page.target_id)
        if info is None:
            continue  # closing
        tabs.append(
            Tab(
                id=page.target_id,
                title=info.title,
                url=info.url,
                active=page is active,
            )
        )
    return tabs


@recorded
async def new_tab(
    browser: Browser,
    url: str | None = None,
    *,
    context: BrowserContext | None = None,
    wait_until: WaitUntil = "load",
    script_timeout: float | None = None,
) -> Page:
    """Open a new tab, bring it to the front and make it the active tab.

    The tab opens in ``context`` when given; otherwise in the same browser context as
    the active tab (so it shares its cookies and storage), or in the default context
    when no tab is open.

    Args:
        browser: The browser.
        url: Load this URL in the new tab and wait for ``wait_until``.
        context: Open the tab in this browser context (and make it that context's
            active tab).
        wait_until: What to wait for when loading ``url``, as in
            :func:`~cdpkit.tools.navigate` (``"load"`` by default).
        script_timeout: Give up the parser-blocking scripts of ``url`` that have not
            loaded after this many seconds, as :func:`~cdpkit.tools.navigate` does.

    Returns:
        The new tab's page.

    Raises:
        NavigationError: ``url`` could not be loaded; the tab stays open (and active) on
            Chrome's error page.
    """
    if context is not None:
        page = await context.new_page()
    else:
        current = active_tab(browser)
        opener = current.context if current is not None else None
        page = await (opener.new_page() if opener is not None else browser.new_page())
    _activate(browser, page, context)
    with contextlib.suppress(CDPError):
        await page.send(cdp.page.bring_to_front())
    if url is not None:
        await navigate(page, url, wait_until=wait_until, script_timeout=script_timeout)
    return page


def _page(browser: Browser, tab_id: str, context: BrowserContext | None) -> Page:
    pages = _pages(browser, context)
    page = next((p for p in pages if p.target_id == tab_id), None)
    if page is None:
        tabs = ", ".join(f"{p.target_id} ({p.url})" for p in pages) or "none"
        raise ValueError(f"Unknown tab id {tab_id!r}: no open tab has it. Open tabs: {tabs}")
    return page


@recorded
async def switch_tab(
    browser: Browser, tab_id: str, *, context: BrowserContext | None = None
) -> Page:
    """Bring a tab to the front and make it the active tab.

    Args:
        browser: The browser.
        tab_id: The tab's id, from :func:`list_tabs`.
        context: Look for the tab among this browser context's tabs only.

    Returns:
        The tab's page.

    Raises:
        ValueError: No open tab has this id (the message lists the open ones).
    """
    page = _page(browser, tab_id, context)
    await page.send(cdp.page.bring_to_front())
    _activate(browser, page, context)
    return page


@recorded
async def close_tab(
    browser: Browser, tab_id: str, *, context: BrowserContext | None = None
) -> None:
    """Close a tab. If it was the active tab, the previously active one becomes active.

    Args:
        browser: The browser.
        tab_id: The tab's id, from :func:`list_tabs`.
        context: Look for the tab among this browser context's tabs only.

    Raises:
        ValueError: No open tab has this id (the message lists the open ones).
    """
    page = _page(browser, tab_id, context)
    await page.close()
    with contextlib.suppress(ValueError):
        _history(browser, context).remove(tab_id)
