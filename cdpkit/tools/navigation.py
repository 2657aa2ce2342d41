"""Navigation tools: load a URL, move through history, reload, and wait for the page."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import NavigationError, ProtocolError
from ..page import Page

__all__ = ["NavigationResult", "WaitUntil", "navigate"]

WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit"]

# Page.lifecycleEvent names for each wait_until; "commit" waits for nothing more.
_LIFECYCLE = {"load": "load", "domcontentloaded": "DOMContentLoaded", "networkidle": "networkIdle"}

_STATUS_JS = "performance.getEntriesByType('navigation')[0]?.responseStatus ?? null"


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """Where a navigation ended.

    Attributes:
        url: The final URL, after redirects.
        status: The HTTP status of the document (a 404 page is a result, not an error);
            ``None`` for URLs without one (``about:``, ``data:``, same-document moves).
        title: The document's title.
    """

    url: str
    status: int | None
    title: str


def _check_wait_until(wait_until: str) -> None:
    if wait_until != "commit" and wait_until not in _LIFECYCLE:
        raise ValueError(
            f"wait_until must be one of load, domcontentloaded, networkidle, commit; "
            f"got {wait_until!r}"
        )


async def navigate(
    page: Page,
    url: str,
    *,
    wait_until: WaitUntil = "load",
    timeout: float = 30,
) -> NavigationResult:
    """Load ``url`` in the page and wait until it is ready.

    Args:
        page: The page.
        url: An absolute URL.
        wait_until: ``"load"`` (the load event), ``"domcontentloaded"``, ``"networkidle"``
            (no network activity for 500 ms) or ``"commit"`` (the response started).
        timeout: Seconds for the whole navigation.

    Returns:
        The final URL, HTTP status and title.

    Raises:
        NavigationError: The page did not load: DNS failure, refused connection, invalid
            URL... (``error_text`` is Chrome's ``net::ERR_*``). An HTTP error status is
            not an error: it is reported in ``status``.
        WaitTimeoutError: Not ready within ``timeout``.
    """
    _check_wait_until(wait_until)
    return await _navigate(page, url, {"url": url}, wait_until, timeout)


async def _navigate(
    page: Page,
    url: str,
    params: dict[str, Any],
    wait_until: str,
    timeout: float,
) -> NavigationResult:
    lifecycle = _LIFECYCLE.get(wait_until)
    async with page.listen("Page.lifecycleEvent") as events:
        try:
            result = await page.call("Page.navigate", params, timeout=timeout)
        except ProtocolError as exc:
            if "invalid URL" in exc.message:
                raise NavigationError(url, "net::ERR_INVALID_URL") from None
            raise
        error_text = result.get("errorText")
        if error_text:
            raise NavigationError(url, error_text)
        loader_id = result.get("loaderId")
        if lifecycle is not None and loader_id is not None:
            frame_id = result.get("frameId")
            await _wait_lifecycle(events, frame_id, loader_id, lifecycle, url, timeout)
    return await _current(page)


async def _wait_lifecycle(
    events: Any, frame_id: str, loader_id: str, name: str, url: str, timeout: float
) -> None:
    from ..errors import WaitTimeoutError

    try:
        async with asyncio.timeout(timeout):
            async for event in events:
                params = event.params if hasattr(event, "params") else event.model_dump(by_alias=True)
                if (
                    params.get("name") == name
                    and params.get("loaderId") == loader_id
                    and params.get("frameId") == frame_id
                ):
                    return
    except TimeoutError:
        raise WaitTimeoutError(f"the {name} event of {url}", timeout) from None


async def _current(page: Page) -> NavigationResult:
    history, status = await asyncio.gather(
        page.call("Page.getNavigationHistory"),
        page.call("Runtime.evaluate", {"expression": _STATUS_JS, "returnByValue": True}),
    )
    entry = history["entries"][history["currentIndex"]]
    value = status.get("result", {}).get("value")
    return NavigationResult(
        url=entry.get("url", ""),
        status=value if isinstance(value, int) and value > 0 else None,
        title=entry.get("title", ""),
    )
