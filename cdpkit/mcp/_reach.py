"""What the agent may reach, applied around each page tool: the URL and upload checks
made on a tool's arguments, the refusal to read a tab at a blocked URL, the check of
where a tab ended after a tool, and the notes on what happened beside a call (dialogs,
new tabs, requests the :class:`~cdpkit.mcp._session.RequestGuard` refused).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import typing
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from .. import tools
from .._browser.frames import frame_tree
from .._core.urls import read_url
from ..errors import CDPError, NavigationError
from ..page import Dialog, Page
from ._schema import Part, Text
from ._session import BlockedRequest
from ._urls import UrlBlockedError, UrlPolicy

ArgumentCheck = Callable[[Page, UrlPolicy, dict[str, Any]], Awaitable[dict[str, Any]]]

_GET_OUT = "navigate elsewhere (browser_navigate, browser_go_back) or switch tabs (browser_tabs)"


async def location(page: Page) -> str:
    """The URL of the document the tab shows now, asked from the page itself: it answers
    after every command the tool sent, so it is never older than what the tool read
    (``page.url`` follows target events, which can lag behind a navigation)."""
    try:
        frame = (await frame_tree(page, timeout=5))["frame"]
    except (CDPError, TimeoutError):
        return page.url
    return str(frame.get("url") or page.url) + str(frame.get("urlFragment") or "")


async def refuse_blocked_tab(page: Page, policy: UrlPolicy, tool: str) -> None:
    if page.closed:
        return  # the tool will say the tab is closed
    url = await location(page)
    reason = policy.refusal(url)
    if reason is not None:
        raise UrlBlockedError(
            f"{tool} refused: the active tab is at {url}, which is blocked: {reason}. "
            f"To go on, {_GET_OUT}."
        )


async def _leave(page: Page) -> None:
    """Send the tab to ``about:blank`` so nothing of a blocked page stays readable."""
    with contextlib.suppress(CDPError, TimeoutError):
        await tools.navigate(page, "about:blank", timeout=10)


async def check_where_it_ended(
    page: Page, policy: UrlPolicy, tool: str, arguments: Mapping[str, Any], navigates: bool
) -> None:
    if page.closed:
        return
    url = await location(page)
    reason = policy.refusal(url)
    if reason is None:
        return
    if not navigates:
        raise UrlBlockedError(
            f"{tool}: the tab went to {url}, which is blocked: {reason}. Its content is not "
            f"shown; to go on, {_GET_OUT}."
        )
    await _leave(page)
    asked = arguments.get("url")
    if isinstance(asked, str) and asked != url:
        raise UrlBlockedError(
            f"Navigation to {asked} was redirected to {url}, which is blocked: {reason}. "
            f"The tab was sent to about:blank."
        )
    raise UrlBlockedError(
        f"{tool} went to {url}, which is blocked: {reason}. The tab was sent to about:blank."
    )


def navigation_refused(error: NavigationError, blocked: BlockedRequest) -> UrlBlockedError:
    """The error of a navigation the :class:`RequestGuard` stopped (Chrome says only
    ``net::ERR_BLOCKED_BY_CLIENT``): where it was going and why that is blocked."""
    if blocked.url == error.url:
        return UrlBlockedError(f"Navigation to {error.url} is blocked: {blocked.reason}")
    return UrlBlockedError(
        f"Navigation to {error.url} was redirected to {blocked.url}, which is blocked: "
        f"{blocked.reason}. Nothing was loaded from there."
    )


def refused_note(blocked: BlockedRequest) -> str:
    return (
        f"Note: the page tried to load {blocked.url} (a link, a script or a frame), which is "
        f"blocked: {blocked.reason}. The request was refused."
    )


async def check_url_argument(
    page: Page, policy: UrlPolicy, arguments: dict[str, Any]
) -> dict[str, Any]:
    """For tools that load ``url``: refuse a blocked one before loading it, and hand the
    tool the URL as it was judged (:func:`~cdpkit.mcp._urls.read_url`)."""
    url = arguments.get("url")
    if isinstance(url, str):
        url = read_url(url)
        policy.check(url)
        arguments = {**arguments, "url": url}
    return arguments


async def check_download_source(
    page: Page, policy: UrlPolicy, arguments: dict[str, Any]
) -> dict[str, Any]:
    """For ``browser_download``: the URL it would fetch, checked before anything is
    requested. An element (selector or index) is resolved to its resource URL here,
    and the download then fetches that URL, the one checked."""
    url = arguments.get("url")
    selector, index = arguments.get("selector"), arguments.get("index")
    if url is None and (selector is None) != (index is None):
        resource = await tools.resource_url(page, selector=selector, index=index)
        arguments = {k: v for k, v in arguments.items() if k not in ("selector", "index")}
        arguments["url"] = url = resource
    if isinstance(url, str):
        base = page.url
        absolute = read_url(url)
        if base.startswith("http"):
            with contextlib.suppress(ValueError):  # not a URL even relative to the page
                absolute = read_url(absolute, base)
        policy.check(absolute, "Download of")
        arguments = {**arguments, "url": absolute}  # the download fetches what was judged
    return arguments


def uploads_only_from(directory: Path) -> ArgumentCheck:
    """For ``browser_upload_file``: unless the server allows local files
    (``--allow-file-urls``), only files in ``directory`` (the download directory) may be
    uploaded; any other file would let the page, and through it the model, read the
    local disk."""

    async def check(page: Page, policy: UrlPolicy, arguments: dict[str, Any]) -> dict[str, Any]:
        if policy.allow_file_urls:
            return arguments
        paths = arguments.get("paths", [])
        root = directory.expanduser().resolve()
        for path in [paths] if isinstance(paths, str) else paths:
            if not Path(path).expanduser().resolve().is_relative_to(root):
                raise UrlBlockedError(
                    f"Upload of {path} is blocked: only files in the download directory "
                    f"({root}) can be uploaded (start the server with --allow-file-urls to "
                    f"allow any local file)"
                )
        return arguments

    return check


def download_refusing_blocked_redirects(
    policy: UrlPolicy,
) -> Callable[..., Awaitable[tools.DownloadResult]]:
    """:func:`cdpkit.tools.download` (same signature and docstring), refusing a download
    whose request was redirected to a blocked URL: the file is deleted, not returned."""

    @functools.wraps(tools.download)
    async def download(page: Page, **arguments: Any) -> tools.DownloadResult:
        async with page.listen("Fetch.requestPaused", raw=True) as paused:
            result = await tools.download(page, **arguments)
            # The download fetches through the page with Fetch enabled: each hop of a
            # redirect is paused once, at its response.
            hops = [(await anext(paused)).params for _ in range(len(paused))]
        for hop in hops:
            url = str(hop.get("request", {}).get("url", ""))
            reason = policy.refusal(url) if url in _redirect_chain(result.url, hops) else None
            if reason is not None:
                Path(result.path).unlink(missing_ok=True)
                raise UrlBlockedError(
                    f"Download of {result.url} was redirected to {url}, which is blocked: "
                    f"{reason}. Nothing was saved."
                )
        return result

    return download


def _redirect_chain(start: str, hops: list[dict[str, Any]]) -> set[str]:
    """The URLs a request for ``start`` went through, following the ``Location`` of each
    redirect among the paused ``hops``. (Not by network id: with the ``Network`` domain
    enabled, as the server keeps it for its request log, each hop gets its own.)"""
    chain = {start}
    for hop in hops:
        url = str(hop.get("request", {}).get("url", ""))
        if url not in chain or hop.get("responseStatusCode") not in (301, 302, 303, 307, 308):
            continue
        for header in hop.get("responseHeaders", []):
            if str(header.get("name", "")).lower() == "location":
                chain.add(urllib.parse.urljoin(url, str(header.get("value", ""))))
    return chain


@contextlib.asynccontextmanager
async def watch_beside(page: Page) -> typing.AsyncIterator[list[Part]]:
    """Collect notes on what happened beside the call: dialogs the page opened (and how
    they were answered), tabs it opened."""
    notes: list[Part] = []
    dialogs_before = len(page.dialogs)
    tabs_before = {p.target_id for p in page.browser.pages}
    yield notes
    await asyncio.sleep(0)  # let the answer to a dialog that just opened be recorded
    for dialog in page.dialogs[dialogs_before:]:
        notes.append(Text(_dialog_note(dialog)))
    opened = [p for p in page.browser.pages if p.target_id not in tabs_before]
    for tab in opened:
        notes.append(
            Text(
                f"Note: the page opened a new tab (id {tab.target_id}, {tab.url or 'loading'}); "
                f"switch to it with browser_tabs action=switch."
            )
        )


def _dialog_note(dialog: Dialog) -> str:
    what = f"a JavaScript {dialog.type} dialog ({dialog.message!r})"
    if dialog.accepted is None:
        return (
            f"Note: the page opened {what}; it is still open: answer it with browser_handle_dialog."
        )
    if dialog.accepted:
        answer = f" with {dialog.prompt_text!r}" if dialog.prompt_text is not None else ""
        return f"Note: the page opened {what}; it was accepted{answer}."
    return (
        f"Note: the page opened {what}; it was dismissed. To accept it instead, call "
        f"browser_handle_dialog (accept=true) first, then repeat the action."
    )


