"""Parser-blocking scripts: giving them up after ``script_timeout`` (the page's
:class:`ScriptGate`), and saying in words what a page that shows nothing yet waits on
(:class:`Stall`, read by the snapshots).

:mod:`cdpkit._browser.navigation` holds the gate during a navigation and records the stall.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import cdp
from ..errors import CDPError
from .lifecycle import blocks_parser, send_retrying

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from ..page import Page


# -- pages that render nothing: why, in words ----------------------------------------------------


@dataclass(slots=True)
class Stall:
    """What a page that had rendered nothing when its navigation returned waits on (kept
    on the page as ``page._stall`` until it renders or navigates, for the snapshots)."""

    scripts: tuple[tuple[str, float], ...]  # (URL, when it was sent: monotonic)
    script_timeout: float | None  # when they are given up, if they are
    origin: float | None = None  # the document's performance.timeOrigin


# Whether the document shows anything (text or a visible replaced element or control),
# its identity, and which of the given script URLs have finished loading.
_RENDER_STATE_JS = """((urls) => {
  const body = document.body;
  const shown = !!body && (body.innerText.trim().length > 0 || !!body.querySelector(
    'img,svg,video,canvas,iframe,embed,object,input,button,select,textarea'));
  const done = new Set(performance.getEntriesByType('resource').map((entry) => entry.name));
  return [shown, performance.timeOrigin, urls.filter((url) => !done.has(url))];
})(%s)"""


def forget_stall(page: Page) -> None:
    """Drop what the page's document waited on: a new one is coming."""
    page._stall = None


async def stall_words(page: Page) -> str:
    """``"nothing rendered yet: the parser waits on <script src=URL> for N s"`` while the
    page's document has rendered nothing since its navigation said so; ``""`` once it has
    (the record is then dropped), or when there is no such record."""
    stall = page._stall
    if stall is None:
        return ""
    urls = [url for url, _ in stall.scripts]
    reply = await send_retrying(
        page, "Runtime.evaluate", {"expression": _RENDER_STATE_JS % json.dumps(urls), "returnByValue": True}
    )
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 3:
        return ""
    shown, origin, waiting = value
    if stall.origin is None:
        stall.origin = origin
    if shown or origin != stall.origin:
        page._stall = None
        return ""
    now = time.monotonic()
    scripts = [(url, sent) for url, sent in stall.scripts if url in waiting]
    if not scripts:
        return "nothing rendered yet: the page is still loading"
    waits = ", ".join(f"<script src={url}> for {now - sent:.0f} s" for url, sent in scripts)
    words = f"nothing rendered yet: the parser waits on {waits}"
    if stall.script_timeout is not None:
        return f"{words} (each is given up after {stall.script_timeout:g} s: script_timeout)"
    return f"{words} (it renders once they load; a script_timeout gives such scripts up)"


# -- giving up parser-blocking scripts (script_timeout) ------------------------------------------

# Pauses every script request before it is sent (the gate then decides).
_SCRIPTS = cdp.fetch.RequestPattern(url_pattern="*", resource_type="Script", request_stage="Request")
_SORT_WAIT = 1.0  # at most this for a paused script's requestWillBeSent
_READ_CHUNK = 1 << 20  # bytes per IO.read of a script fetched for the page
_LATE_ANSWER = 60.0  # how long a given-up fetch's answer is still awaited, to close its stream
# Hop-by-hop or describing the encoded body: the body fulfilled is the decoded one.
_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


class ScriptGate:
    """Gives up the page's parser-blocking scripts that have not loaded after
    ``timeout`` seconds (``page._script_gate``, made on first use).

    An in-flight request cannot be failed after it was sent, so while the gate is held,
    script requests pause before they are sent (``Fetch``, through
    :meth:`Page.fetch_enable`, so the patterns of the page's proxy credentials and of
    other tools combine): the others are continued at once, and a parser-blocking one is
    fetched by the browser itself (``Network.loadNetworkResource``: its cookies, cache
    and proxy) and fulfilled with what came, or failed as ``TimedOut`` after ``timeout``
    (the parser moves on as if it had failed to load). Without a ``script_timeout``
    nothing of this runs: no ``Fetch`` at all.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.timeout: float | None = None  # while held
        self.given_up_urls: list[str] = []
        self._users = 0
        self._sent: dict[str, bool] = {}  # network id of a script -> whether it blocks the parser
        self._unsorted: dict[str, dict[str, Any]] = {}  # paused before its requestWillBeSent
        self._answering: set[asyncio.Task[None]] = set()
        self._network: contextlib.AsyncExitStack | None = None
        self._winding: asyncio.Future[None] | None = None
        page._on("Network.requestWillBeSent", self._request_sent)
        page._on("Fetch.requestPaused", self._request_paused)

    @property
    def held(self) -> bool:
        return self.timeout is not None

    def patterns(self) -> list[cdp.fetch.RequestPattern]:
        """What the gate needs paused while held (:meth:`Page.fetch_enable` adds it)."""
        return [_SCRIPTS] if self.held else []

    def takes(self, params: dict[str, Any]) -> bool:
        """Whether a ``Fetch.requestPaused`` is the gate's to answer."""
        return (
            self.held
            and params.get("resourceType") == "Script"
            and "responseStatusCode" not in params
            and "responseErrorReason" not in params
        )

    async def hold(self, timeout: float) -> None:
        self._users += 1
        if self._winding is not None:  # the last holder's Fetch is being let go
            await asyncio.shield(self._winding)
        if self.timeout is not None and self._network is not None:
            self.timeout = min(self.timeout, timeout)  # the strictest holder wins
            return
        self.timeout = timeout
        network = contextlib.AsyncExitStack()
        # Which requests block the parser comes with Network.requestWillBeSent, sent
        # before the request pauses.
        await network.enter_async_context(self.page.enabled("Network"))
        self._network = network
        await self.page.send(self.page.fetch_enable())

    def release(self) -> None:
        """One holder less; the last one's release lets the scripts being waited for end
        (each within the timeout) before ``Fetch`` is let go."""
        self._users -= 1
        if self._users == 0:
            self.page.browser._background(self._wind_down())

    async def _wind_down(self) -> None:
        while self._answering:
            await asyncio.wait(set(self._answering))
        if self._users or self._network is None:
            return  # held again meanwhile
        network, self._network = self._network, None
        self.timeout = None
        self._sent.clear()
        self._winding = winding = asyncio.get_running_loop().create_future()
        try:
            await self.page.fetch_release()
            if not self.page.closed:
                with contextlib.suppress(CDPError):
                    await network.aclose()
        finally:
            self._winding = None
            winding.set_result(None)

    def _request_sent(self, params: dict[str, Any]) -> None:
        if not self.held or params.get("type") != "Script":
            return
        network_id = str(params.get("requestId"))
        self._sent[network_id] = blocks_parser(params)
        paused = self._unsorted.pop(network_id, None)
        if paused is not None:
            self._answer(paused, self._sent[network_id])

    def _request_paused(self, params: dict[str, Any]) -> None:
        if not self.takes(params):
            return
        network_id = str(params.get("networkId"))
        if network_id in self._sent:
            self._answer(params, self._sent[network_id])
            return
        # Its Network.requestWillBeSent (which says whether it blocks the parser) usually
        # came first, but not always: it is waited for, a moment at most.
        self._unsorted[network_id] = params
        asyncio.get_running_loop().call_later(_SORT_WAIT, self._unsorted_for_long, network_id)

    def _unsorted_for_long(self, network_id: str) -> None:
        paused = self._unsorted.pop(network_id, None)
        if paused is not None:
            self._answer(paused, False)

    def _answer(self, params: dict[str, Any], parser_blocking: bool) -> None:
        if not parser_blocking:
            request_id = cdp.fetch.RequestId(str(params["requestId"]))
            self.page.browser._background(self.page._quietly(cdp.fetch.continue_request(request_id)))
            return
        task = asyncio.ensure_future(self._fetch_or_give_up(params, self.timeout or 0))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _fetch_or_give_up(self, params: dict[str, Any], timeout: float) -> None:
        page = self.page
        request_id, url = str(params["requestId"]), str(params["request"]["url"])
        options = {"disableCache": False, "includeCredentials": True}
        asked = asyncio.ensure_future(page.call(
            "Network.loadNetworkResource",
            {"frameId": params.get("frameId") or page.target_id, "url": url, "options": options},
            timeout=timeout + _LATE_ANSWER,
        ))  # fmt: skip
        fetched = asyncio.ensure_future(self._read(asked))
        try:
            done, _ = await asyncio.wait({fetched}, timeout=timeout)
            if not done:
                fetched.cancel()
                asked.add_done_callback(self._close_late)
                self.given_up_urls.append(url)
                await page.send(cdp.fetch.fail_request(cdp.fetch.RequestId(request_id), "TimedOut"))
                return
            answer = fetched.result()
            if answer is None:  # it failed to load: so it does for the page
                await page.send(cdp.fetch.fail_request(cdp.fetch.RequestId(request_id), "Failed"))
                return
            status, headers, body = answer
            await page.call("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": status, "responseHeaders": headers,
                "body": base64.b64encode(body).decode(),
            })  # fmt: skip
        except CDPError:
            pass  # the request or the page is gone
        except Exception:
            fetched.cancel()
            raise

    async def _read(self, asked: asyncio.Future[Any]) -> tuple[int, list[dict[str, str]], bytes] | None:
        resource = (await asyncio.shield(asked)).get("resource", {})
        stream = resource.get("stream")
        status = resource.get("httpStatusCode")
        if not resource.get("success") or stream is None or not status:
            if stream is not None:
                await self.page.call("IO.close", {"handle": stream})
            return None
        chunks: list[bytes] = []
        try:
            while True:
                chunk = await self.page.call("IO.read", {"handle": stream, "size": _READ_CHUNK})
                data = chunk.get("data", "")
                chunks.append(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode())
                if chunk.get("eof"):
                    break
        finally:
            with contextlib.suppress(CDPError):
                await self.page.call("IO.close", {"handle": stream})
        headers = [
            {"name": name, "value": line}
            for name, value in (resource.get("headers") or {}).items()
            if name.lower() not in _DROPPED_HEADERS
            for line in str(value).split("\n")
        ]
        return int(status), headers, b"".join(chunks)

    def _close_late(self, asked: asyncio.Future[Any]) -> None:
        """A given-up script's answer came after all: close its stream."""
        if asked.cancelled() or asked.exception() is not None:
            return
        stream = asked.result().get("resource", {}).get("stream")
        if stream is not None and not self.page.closed:
            self.page.browser._background(self._close_stream(stream))

    async def _close_stream(self, stream: str) -> None:
        with contextlib.suppress(CDPError):
            await self.page.call("IO.close", {"handle": stream})


class _NoGate:
    """The gate of a navigation without ``script_timeout``: nothing is given up."""

    timeout = None

    def given_up(self) -> tuple[str, ...]:
        return ()


class _HeldGate:
    """A navigation's hold on the page's :class:`ScriptGate`."""

    def __init__(self, gate: ScriptGate) -> None:
        self.gate = gate
        self.timeout = gate.timeout
        self._first = len(gate.given_up_urls)

    def given_up(self) -> tuple[str, ...]:
        """The scripts given up since the navigation started."""
        return tuple(self.gate.given_up_urls[self._first :])


NavigationGate = _NoGate | _HeldGate


@contextlib.asynccontextmanager
async def giving_up_scripts(page: Page, script_timeout: float | None) -> AsyncIterator[NavigationGate]:
    """Give up the page's parser-blocking scripts after ``script_timeout`` seconds during
    the block (and for the scripts it started, until they end); nothing when ``None``."""
    if script_timeout is None:
        yield _NoGate()
        return
    gate = page._script_gate
    if gate is None:
        gate = page._script_gate = ScriptGate(page)
    try:
        await gate.hold(script_timeout)
        yield _HeldGate(gate)
    finally:
        gate.release()
