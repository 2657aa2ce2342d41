"""Tiers 2 and 3: load the URL in a browser page and read back its rendered HTML.

Tier 2 fails every image, media, font and stylesheet request (``Fetch`` interception)
and waits briefly (network idle, up to about a second): scripts run, little else loads.
Tier 3 loads the full page and waits for its content to settle (the smart wait of
``scrape``); it can also give the accessibility tree (``format="a11y"``).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from .. import cdp
from ..errors import CDPError, NavigationError, WaitTimeoutError
from ..tools import SmartWait, navigate, snapshot, wait_for_content
from ._http import network_error
from ._result import BrowseError

if TYPE_CHECKING:
    from .._model import Command
    from ..cdp.fetch import RequestPausedJSON
    from ..page import Page
    from ..session import EventStream

__all__ = ["BLOCKED_TYPES", "Rendered", "navigation_error", "read_page_state", "render"]

# What tier 2 does not load: what a page needs to look right, not to say what it says.
BLOCKED_TYPES = ("Image", "Media", "Font", "Stylesheet")
_LIGHT_WAIT = 1.0  # tier 2: at most this for the network to go idle after load
_PARTIAL_READ = 2.0  # at most this kept back from the deadline to read a partial page
# The status is read from the page's own navigation entry: after a script reload (a bot
# check passed) it is the new document's, not the first one's.
_PAGE_STATE = (
    "[document.documentElement ? document.documentElement.outerHTML : '',"
    " document.body ? document.body.innerText.trim().length : 0, location.href, document.title,"
    " performance.getEntriesByType('navigation')[0]?.responseStatus || null, document.contentType]"
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
        mime_type: ``document.contentType`` (a PDF or an image shows in a viewer).
    """

    html: str
    final_url: str
    status: int | None
    title: str
    partial: bool = False
    accessibility: str | None = None
    mime_type: str = "text/html"


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
    identity: Command[Any] | None = None,
    proxy_auth: bool = False,
    script_timeout: float | None = None,
) -> Rendered:
    """Load ``url`` in ``page`` as tier 2 or 3 does, and read the page back, all before
    ``deadline`` (``loop.time()``); ``timeout`` is the call's whole time, for messages.

    ``identity``: sent first, an override of the page's identity
    (:func:`cdpkit._browser.page_setup.user_agent_override`) for what the context's settings leave
    to the engine's config (``[network] accept_language``).

    ``proxy_auth``: the page answers its proxy's credential challenges (its context's
    settings have a proxy with credentials), so it continues every request itself at the
    request stage; tier 2 then fails the heavy resources at their response instead.

    ``script_timeout``: give up a parser-blocking script not loaded after this many
    seconds (``[browser] script_timeout``), so a page stalled on a script gives its content
    then rather than an empty result or the whole timeout.

    Raises:
        BrowseError: ``network.*`` or ``page.navigation`` when it did not load;
            ``network.timeout`` when the time ran out before the page had any content.
        CDPError: The page crashed or the browser went away (the engine degrades).
    """
    loop = asyncio.get_running_loop()
    if identity is not None:
        await page.send(identity)
    tasks: list[asyncio.Task[None]] = []
    in_flight = _InFlight(loop)
    async with contextlib.AsyncExitStack() as stack:
        # Requests are counted from before the navigation: a page's own fetch() started
        # during load is one the wait afterwards must see finish.
        requests = await stack.enter_async_context(
            page.listen(
                cdp.network.RequestWillBeSent, cdp.network.LoadingFinished, cdp.network.LoadingFailed, raw=True
            )
        )
        await stack.enter_async_context(page.enabled("Network"))
        tasks.append(asyncio.create_task(in_flight.count(requests)))
        if tier == 2:
            paused = await stack.enter_async_context(page.listen(cdp.fetch.RequestPaused, raw=True))
            stage = "Response" if proxy_auth else "Request"
            patterns = [cdp.fetch.RequestPattern(resource_type=kind, request_stage=stage) for kind in BLOCKED_TYPES]
            # Through the page: it keeps the proxy's challenges answered (a plain
            # Fetch.enable would drop them and the page would fail with bad credentials).
            await page.send(page.fetch_enable(patterns))
            tasks.append(asyncio.create_task(_fail_heavy_requests(page, paused, at_response=proxy_auth)))
        try:
            return await _load(page, url, tier, deadline, timeout, accessibility, in_flight, script_timeout)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task


class _InFlight:
    """The page's requests in flight, counted from before its navigation."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.requests: set[str] = set()
        self.last_change = loop.time()

    async def count(self, events: EventStream[Any]) -> None:
        async for event in events:
            request_id = str(event.params.get("requestId"))
            if event.method == cdp.network.RequestWillBeSent.method:
                self.requests.add(request_id)
            else:
                self.requests.discard(request_id)
            self.last_change = self.loop.time()

    async def wait_idle(self, limit: float, idle: float = 0.5) -> bool:
        """Wait until no request has been in flight for ``idle`` seconds, at most
        ``limit`` seconds; whether it got there."""
        end = self.loop.time() + limit
        while True:
            now = self.loop.time()
            if not self.requests and now - self.last_change >= idle:
                return True
            if now >= end:
                return False
            await asyncio.sleep(min(0.05, end - now))


async def _fail_heavy_requests(page: Page, paused: EventStream[Any], *, at_response: bool) -> None:
    async for event in paused:
        pause = cast("RequestPausedJSON", event.params)
        at_its_response = "responseStatusCode" in pause or "responseErrorReason" in pause
        if pause.get("resourceType") not in BLOCKED_TYPES:
            continue  # a script held by script_timeout, or the proxy's: the page answers it
        if at_response and not at_its_response:
            continue  # a request-stage pause of the proxy's: the page continues it
        with contextlib.suppress(CDPError):
            await page.send(cdp.fetch.fail_request(pause["requestId"], "BlockedByClient"))


async def _load(
    page: Page,
    url: str,
    tier: int,
    deadline: float,
    timeout: float,
    accessibility: bool,
    in_flight: _InFlight,
    script_timeout: float | None = None,
) -> Rendered:
    loop = in_flight.loop
    status: int | None = None
    partial = False
    reserve = min(_PARTIAL_READ, 0.2 * timeout)  # a short timeout keeps back less
    budget = deadline - loop.time() - reserve
    try:
        if budget <= 0:
            raise WaitTimeoutError("no time left to load the page", 0)
        loaded = await navigate(page, url, timeout=budget, script_timeout=script_timeout)
        status = loaded.status
        left = deadline - loop.time() - reserve
        if tier == 2:
            await in_flight.wait_idle(max(0.0, min(_LIGHT_WAIT, left)))
        elif left > 0:
            # The smart wait ends once the content is quiet, whether or not the network
            # ever goes idle (analytics, long polling).
            default = SmartWait()
            settled = await wait_for_content(
                page, settings=replace(default, max_wait=max(0.0, min(default.max_wait, left)))
            )
            partial = not settled and deadline - loop.time() < reserve + 0.5
    except NavigationError as exc:
        raise navigation_error(url, exc) from None
    except WaitTimeoutError:
        partial = True
    read_timeout = max(0.5, min(reserve, deadline - loop.time()))
    html, text_length, final_url, title, shown_status, mime_type = await read_page_state(page, read_timeout)
    status = shown_status or status
    if partial and (not text_length or final_url in ("about:blank", "")):
        raise network_error(url, "network.timeout", timeout=timeout)
    text = None
    if accessibility:
        async with asyncio.timeout(max(0.5, deadline - loop.time())):
            text = (await snapshot(page)).text
    return Rendered(html, final_url or url, status, title, partial, text, mime_type)


async def read_page_state(page: Page, timeout: float) -> tuple[str, int, str, str, int | None, str]:
    """The page's HTML, the length of its visible text, its URL, title, HTTP status and
    MIME type."""
    reply = await page.send_json(
        cdp.runtime.evaluate(_PAGE_STATE, return_by_value=True), timeout=timeout
    )
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 6:
        details = reply.get("exceptionDetails", {})
        raise CDPError(f"Reading the page failed: {details.get('text', 'no value')}")
    html, length, href, title, status, mime_type = value
    return str(html), int(length or 0), str(href), str(title), int(status) if status else None, str(mime_type)
