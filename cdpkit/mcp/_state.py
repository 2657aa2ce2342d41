"""The MCP tools for state an agent keeps and the place it pretends to be:
``browser_save_storage_state``, ``browser_emulate`` and ``browser_downloads``.

They wrap :func:`cdpkit.tools.save_storage_state`, :func:`cdpkit.tools.emulate` and the
server's :class:`~cdpkit.mcp._downloads.DownloadTracker` with arguments a model can give
(plain names and numbers) and files kept in the server's download directory.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

from .. import tools
from ..browser import Browser
from ..page import Page
from ..tools.files import claim_free_name, sanitize_filename
from ._downloads import DownloadTracker, describe_downloads

__all__ = ["browser_downloads", "browser_emulate", "browser_save_storage_state"]


async def browser_save_storage_state(
    page: Page, *, filename: str | None = None, output_dir: Path | None = None
) -> str:
    """Save the login of the current tab's browser context — cookies, localStorage and
    sessionStorage — as a storage_state JSON file (Playwright's format), to start a later
    session logged in (``cdpkit mcp --storage-state PATH``, or any cdpkit command's
    ``--storage-state``). The file holds credentials: it is written readable by its owner
    only. It never replaces a file: when the name is taken, name-1.json, name-2.json...

    Args:
        page: The page.
        filename: The file's name (default ``storage-state-<timestamp>.json``), saved in
            the server's download directory.
        output_dir: The directory (set by the server, not an MCP argument).

    Returns:
        The file's absolute path and how many cookies and origins it holds.
    """
    directory = output_dir or Path.cwd()
    name = sanitize_filename(filename) if filename else ""
    # Never over a file already there (a download, another session's login): a free name.
    path = claim_free_name(directory, name or f"storage-state-{int(time.time() * 1000)}.json", mode=0o600)
    try:
        state = await tools.save_storage_state(page, path)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return (
        f"Saved {len(state['cookies'])} cookies and the storage of {len(state['origins'])} "
        f"origins to {path}"
    )


async def browser_emulate(
    page: Page,
    *,
    device: str | None = None,
    width: int | None = None,
    height: int | None = None,
    user_agent: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    latitude: float | None = None,
    longitude: float | None = None,
    color_scheme: Literal["light", "dark", "no-preference"] | None = None,
    offline: bool | None = None,
    cpu_throttle: float | None = None,
    network: Literal["slow-3g", "fast-3g", "slow-4g", "4g"] | None = None,
    reset: bool = False,
) -> str:
    """Make the current tab look like another device, place or network; each setting
    given changes that aspect only and lasts until changed or reset. Reload or navigate
    to see a layout change.

    Args:
        page: The page.
        device: A device: iPhone 15, iPhone SE, iPad Mini, Pixel 7, Galaxy S24, Galaxy
            Tab S9, Desktop 1080p, Laptop (viewport, pixel ratio, touch, user agent).
        width: Viewport width in CSS pixels (with ``height``).
        height: Viewport height in CSS pixels (with ``width``).
        user_agent: The User-Agent to send and report.
        locale: A locale such as de-DE (Intl formatting, navigator.language,
            Accept-Language).
        timezone: An IANA time zone such as Asia/Tokyo.
        latitude: Geolocation latitude (with ``longitude``); the page is granted the
            permission.
        longitude: Geolocation longitude (with ``latitude``).
        color_scheme: prefers-color-scheme: light, dark or no-preference.
        offline: Cut the tab off the network (true) or back on (false).
        cpu_throttle: Slow the CPU down this many times.
        network: Throttle the network: slow-3g, fast-3g, slow-4g or 4g.
        reset: First clear everything this tool set.

    Returns:
        What is now emulated.
    """
    if (width is None) != (height is None):
        raise ValueError("Give width and height together")
    if (latitude is None) != (longitude is None):
        raise ValueError("Give latitude and longitude together")
    await tools.emulate(
        page,
        device=device,
        viewport=(width, height) if width is not None and height is not None else None,
        user_agent=user_agent,
        locale=locale,
        timezone=timezone,
        geolocation=(latitude, longitude) if latitude is not None and longitude is not None else None,
        color_scheme=color_scheme,
        offline=offline,
        cpu_throttle=cpu_throttle,
        network=network,
        reset=reset,
    )
    width_now, height_now, ratio, layout = await tools.evaluate(
        page, "[screen.width, screen.height, devicePixelRatio, innerWidth]"
    )
    agent = await tools.evaluate(page, "navigator.userAgent")
    return (
        f"Screen {width_now}x{height_now} at {ratio}x (this page lays out {layout} px wide); "
        f"user agent: {agent}"
    )


async def browser_downloads(browser: Browser, *, tracker: DownloadTracker | None = None) -> str:
    """List the files of this session: those the pages downloaded (a click on a download
    link, a form answered with an attachment...) and those browser_download saved, with
    their state, size, absolute path in the server's download directory and URL.

    Args:
        browser: The browser.
        tracker: The server's download tracker (set by the server, not an MCP argument).

    Returns:
        One line per download, oldest first.
    """
    del browser  # the tracker follows the browser's own download events
    if tracker is None:
        return describe_downloads([])
    return describe_downloads(tracker.downloads, following=tracker.following)
