"""Tiers 2 and 3: load the URL in a browser page and read back its rendered HTML.

Tier 2 fails every image, media, font and stylesheet request (``Fetch`` interception)
and waits briefly (network idle, up to about a second): scripts run, little else loads.
Tier 3 loads the full page and waits for its content to settle (the smart wait of
``scrape``); it can also give the accessibility tree (``format="a11y"``).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from .. import cdp
from ..errors import CDPError, NavigationError, WaitTimeoutError
from ..tools import SmartWait, navigate, snapshot, wait_for_content
from ..tools.navigation import wait_for_network_idle
from ._http import network_error
from ._result import BrowseError

if TYPE_CHECKING:
    from ..cdp.fetch import RequestPausedJSON
    from ..page import Page
    from ..session import EventStream

__all__ = ["BLOCKED_TYPES", "Rendered", "navigation_error", "render"]

# What tier 2 does not load: what a page needs to look right, not to say what it says.
BLOCKED_TYPES = ("Image", "Media", "Font", "Stylesheet")
_LIGHT_WAIT = 1.0  # tier 2: at most this for the network to go idle after load
_PARTIAL_READ = 2.0  # seconds kept back from the deadline to read a partial page
# The status is read from the page's own navigation entry: after a script reload (a bot
# check passed) it is the new document's, not the first one's.
_PAGE_STATE = (
    "[document.documentElement ? document.documentElement.outerHTML : '',"
    " document.body ? document.body.innerText.trim().length : 0, location.href, document.title,"
    " performance.getEntriesByType('navigation')[0]?.responseStatus || null]"
)


@dataclass(frozen=True, slots=True)
class Rendered:
    """What the browser showed.

    Attributes:
        html: ``document.documentElement.outerHTML``.
        final_url: The page's URL at the end.
        status: The HTTP status of the document, when known.
        title: The document's title.
        partial: The load did not finish within the time left: the page as it was.
        accessibility: The page's accessibility snapshot text, when asked for.
    """

    html: str
    final_url: str
    status: int | None
    title: str
    partial: bool = False
    accessibility: str | None = None


def navigation_error(url: str, exc: NavigationError) -> BrowseError:
    """Chrome's ``net::ERR_*`` as a :class:`BrowseError` of the same family tier 1 uses."""
    error = exc.error_text or ""
    if "NAME_NOT_RESOLVED" in error or "NAME_RESOLUTION" in error:
        return network_error(url, "network.dns", detail=error)
    if "CONNECTION_REFUSED" in error:
        return network_error(url, "network.refused", detail=error)
    if "TIMED_OUT" in error:
        return network_error(url, "network.timeout", detail=error)
    if "CERT" in error or "SSL" in error:
        return network_error(url, "network.tls", detail=error)
    if "RESET" in error or "CONNECTION_CLOSED" in error or "EMPTY_RESPONSE" in error:
        return network_error(url, "network.reset", detail=error)
    return BrowseError(
        url, "page.navigation", f"the browser could not load it ({error or exc})", recoverable=True,
        suggestion="check the URL, or try tier=1",
    )  # fmt: skip


async def render(
    page: Page,
    url: str,
    *,
    tier: int,
    deadline: float,
    timeout: float,
    accessibility: bool = False,
    user_agent: str | None = None,
    accept_language: str | None = None,
) -> Rendered:
    """Load ``url`` in ``page`` as tier 2 or 3 does, and read the page back, all before
    ``deadline`` (``loop.time()``); ``timeout`` is the call's whole time, for messages.

    Raises:
        BrowseError: ``network.*`` or ``page.navigation`` when it did not load;
            ``network.timeout`` when the time ran out before the page had any content.
        CDPError: The page crashed or the browser went away (the engine degrades).
    """
    loop = asyncio.get_running_loop()
    if user_agent or accept_language:
        agent = user_agent or page_user_agent(page)
        await page.send(cdp.emulation.set_user_agent_override(agent, accept_language=accept_language))
    blocker: asyncio.Task[None] | None = None
    async with contextlib.AsyncExitStack() as stack:
        if tier == 2:
            paused = await stack.enter_async_context(page.listen(cdp.fetch.RequestPaused, raw=True))
            patterns = [cdp.fetch.RequestPattern(resource_type=kind, request_stage="Request") for kind in BLOCKED_TYPES]
            await page.send(cdp.fetch.enable(patterns=patterns))
            blocker = asyncio.create_task(_fail_heavy_requests(page, paused))
        try:
            return await _load(page, url, tier, deadline, timeout, accessibility, loop)
        finally:
            if blocker is not None:
                blocker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await blocker


def page_user_agent(page: Page) -> str:
    """The browser's own user agent (for an override that only changes the language)."""
    return page.browser.version.user_agent


async def _fail_heavy_requests(page: Page, paused: EventStream[Any]) -> None:
    async for event in paused:
        pause = cast("RequestPausedJSON", event.params)
        with contextlib.suppress(CDPError):
            await page.send(cdp.fetch.fail_request(pause["requestId"], "BlockedByClient"))


async def _load(
    page: Page,
    url: str,
    tier: int,
    deadline: float,
    timeout: float,
    accessibility: bool,
    loop: asyncio.AbstractEventLoop,
) -> Rendered:
    status: int | None = None
    partial = False
    budget = deadline - loop.time() - _PARTIAL_READ
    try:
        if budget <= 0:
            raise WaitTimeoutError("no time left to load the page", 0)
        loaded = await navigate(page, url, timeout=budget)
        status = loaded.status
        left = deadline - loop.time() - _PARTIAL_READ
        if tier == 2:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, min(_LIGHT_WAIT, left))):
                    await wait_for_network_idle(page)
        elif left > 0:
            default = SmartWait()
            settled = await wait_for_content(
                page,
                settings=SmartWait(
                    network_idle_timeout=min(default.network_idle_timeout, left),
                    max_wait=min(default.max_wait, left),
                ),
            )
            partial = not settled and deadline - loop.time() < _PARTIAL_READ + 0.5
    except NavigationError as exc:
        raise navigation_error(url, exc) from None
    except WaitTimeoutError:
        partial = True
    read_timeout = max(0.5, min(_PARTIAL_READ, deadline - loop.time()))
    html, text_length, final_url, title, shown_status = await _page_state(page, read_timeout)
    status = shown_status or status
    if partial and (not text_length or final_url in ("about:blank", "")):
        raise network_error(url, "network.timeout", timeout=timeout)
    text = None
    if accessibility:
        async with asyncio.timeout(max(0.5, deadline - loop.time())):
            text = (await snapshot(page)).text
    return Rendered(html, final_url or url, status, title, partial, text)


async def _page_state(page: Page, timeout: float) -> tuple[str, int, str, str, int | None]:
    """The page's HTML, the length of its visible text, its URL, title and HTTP status."""
    reply = await page.send_json(
        cdp.runtime.evaluate(_PAGE_STATE, return_by_value=True), timeout=timeout
    )
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 5:
        details = reply.get("exceptionDetails", {})
        raise CDPError(f"Reading the page failed: {details.get('text', 'no value')}")
    html, length, href, title, status = value
    return str(html), int(length or 0), str(href), str(title), int(status) if status else None
