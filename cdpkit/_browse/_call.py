"""One browse call: the tiers tried in turn (tier 1 over HTTP, then the browser's tiers 2
and 3, escalating as the page needs and ``max_tier`` allows), each bounded by the call's
deadline, and the result made of what the last one got (see :mod:`._engine`)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from .._browser.page_setup import user_agent_override
from ..errors import CDPError, ConnectError, LaunchError, PageCrashedError
from ._documents import (
    MediaLimits,
    browser_needed,
    decode_html,
    extract_document,
    is_html,
    mime_type_of,
)
from ._http import fetch, http_error, robots_token
from ._page_media import cached_resource, with_media
from ._result import BrowseError, BrowseOptions, BrowseResult, Extraction, Timing
from ._sessions import BrowseSession

if TYPE_CHECKING:
    from ._chrome import Rendered
    from ._engine import Engine

_PAGE_CLOSE_TIMEOUT = 2.0


def _fetchable(url: str) -> bool:
    """Whether tier 1 can fetch ``url`` (http or https)."""
    return urllib.parse.urlsplit(url).scheme.lower() in ("http", "https")


class Call:
    """One browse call: the tiers tried in turn, and the result."""

    def __init__(
        self, engine: Engine, session: BrowseSession, url: str, options: BrowseOptions, started: float
    ) -> None:
        self.engine = engine
        self.config = engine.config
        self.session = session
        self.url = url
        self.options = options
        self.started = started
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.deadline = loop.time() + options.timeout
        self.escalations: list[str] = []
        self.fetch_ms = 0.0
        self.extract_ms = 0.0
        self.static_chars = 0  # visible text of the tier-1 HTML, to fall back on

    def left(self) -> float:
        return max(0.0, self.deadline - self.loop.time())

    async def run(self) -> BrowseResult:
        options = self.options
        first = options.tier or 1
        last = options.tier or options.max_tier
        if options.format == "a11y" and options.tier is None:
            first = 3
            self.escalations.append("format='a11y' is the browser's accessibility tree: tier 3")
        scheme = urllib.parse.urlsplit(self.url).scheme.lower()
        if first == 1 and scheme not in ("http", "https"):
            if last == 1:
                raise BrowseError(self.url, "network.url", f"tier 1 fetches http(s) URLs, not {scheme}:",
                                  recoverable=False, suggestion="allow tier 2 (max_tier=2) for it")
            first = 2
            self.escalations.append(f"tier 1 -> 2: a {scheme}: URL is read by the browser")
        if options.respect_robots_txt:
            token = robots_token(self.session.client.headers.get("User-Agent"))
            await self.engine._robots.check(self.session.client, self.url, token, self.left())
        static: BrowseResult | None = None
        if first == 1:
            outcome = await self._tier_one(last)
            if isinstance(outcome, BrowseResult):
                return outcome
            static, reason = outcome
            self.escalations.append(f"tier 1 -> 2: {reason}")
            first = 2
        return await self._browser_tiers(first, last, static)

    # -- tier 1 ---------------------------------------------------------------------------

    async def _tier_one(self, last: int) -> BrowseResult | tuple[BrowseResult | None, str]:
        """The tier-1 result, or (what tier 1 got, why a browser is needed)."""
        began = time.perf_counter()
        fetched = await fetch(self.session.client, self.url, self.left())
        self.fetch_ms += (time.perf_counter() - began) * 1000
        mime = mime_type_of(fetched.content_type)
        if not is_html(mime, fetched.body):
            if fetched.status >= 400:
                raise http_error(self.url, fetched.status)
            media = self.config.media
            limits = MediaLimits(self.options.include_media, media.max_width, media.max_height, media.quality)
            extraction = await self._extract(
                extract_document, fetched.body, mime, fetched.final_url, self.options, limits
            )
            result = self._result(extraction, fetched.final_url, fetched.status, 1, mime or "application/octet-stream")
            return await cached_resource(self, result, fetched.body)
        # Charset detection can take a while on a big page: off the event loop too.
        html = await anyio.to_thread.run_sync(decode_html, fetched.body, fetched.content_type, abandon_on_cancel=True)
        extraction = await self._extract(extract_html_of, html, fetched.final_url, self.options)
        challenge = browser_needed(fetched.status, html, extraction.text_chars)
        if fetched.status >= 400 and challenge is None:
            raise http_error(self.url, fetched.status)
        reason = challenge or extraction.javascript_needed
        if reason is None:
            return await with_media(self, self._result(extraction, fetched.final_url, fetched.status, 1))
        if last == 1:
            if fetched.status >= 400:
                raise http_error(self.url, fetched.status, challenge=True)
            # As far as allowed: the thin content, and why a browser would do better.
            self.escalations.append(f"not escalated (max_tier=1): {reason}")
            return await with_media(self, self._result(extraction, fetched.final_url, fetched.status, 1))
        static = self._result(extraction, fetched.final_url, fetched.status, 1) if fetched.status < 400 else None
        self.static_chars = extraction.text_chars
        return static, reason

    # -- tiers 2 and 3 --------------------------------------------------------------------

    async def _browser_tiers(self, tier: int, last: int, static: BrowseResult | None) -> BrowseResult:
        while True:
            try:
                began = time.perf_counter()
                try:
                    rendered = await self._render(tier)
                finally:
                    self.fetch_ms += (time.perf_counter() - began) * 1000
            except BrowseError as exc:
                if static is not None and exc.code == "network.timeout":
                    return await self._degraded(static, tier, "the time ran out")
                if "ERR_ABORTED" in str(exc) and _fetchable(self.url):
                    # Chrome downloads it (a PDF, a CSV...) rather than showing it: read it
                    # as tier 1 reads documents.
                    self.escalations.append(f"tier {tier}: the browser downloads it rather than showing it")
                    outcome = await self._tier_one(1)
                    if isinstance(outcome, BrowseResult):
                        return outcome
                raise
            except (LaunchError, ConnectError) as exc:
                what = f"no browser could be started ({exc})"
                if static is not None:
                    return await self._degraded(static, tier, what)
                raise BrowseError(self.url, "page.browser", what, recoverable=False,
                                  suggestion="check Chrome with `cdpkit doctor`, or use max_tier=1") from None
            except CDPError as exc:
                what = "the page crashed" if isinstance(exc, PageCrashedError) else f"the browser failed ({exc})"
                if static is not None:
                    return await self._degraded(static, tier, what)
                code = "page.crashed" if isinstance(exc, PageCrashedError) else "page.js"
                raise BrowseError(self.url, code, what, recoverable=True,
                                  suggestion="try again, or tier=1 for the static HTML") from None
            if rendered.mime_type not in ("text/html", "application/xhtml+xml") and _fetchable(self.url):
                # A PDF, an image or a text file in the browser's viewer: read the resource
                # itself, as tier 1 reads documents.
                self.escalations.append(f"tier {tier}: the browser shows {rendered.mime_type}, not a page")
                outcome = await self._tier_one(1)
                if isinstance(outcome, BrowseResult):
                    return outcome
            status = rendered.status or 200
            extraction = await self._extract(extract_html_of, rendered.html, rendered.final_url, self.options)
            challenge = browser_needed(status, rendered.html, extraction.text_chars)
            if status >= 400 and challenge is None:
                raise http_error(self.url, status)
            reason = challenge or extraction.javascript_needed
            if reason is not None and tier < last and not rendered.partial:
                self.escalations.append(f"tier {tier} -> {tier + 1}: {reason}")
                tier += 1
                continue
            if challenge is not None and status >= 400:
                raise http_error(self.url, status, challenge=True)
            if rendered.accessibility is not None:
                extraction = _with_accessibility(extraction, rendered.accessibility, self.options.max_tokens)
            result = self._result(extraction, rendered.final_url, rendered.status, tier)
            if rendered.partial:
                note = f"the page did not finish loading within {self.options.timeout:g} s: content as it was then"
                result = dataclasses.replace(result, truncated=True, truncation=[note, *result.truncation])
            if (
                static is not None
                and extraction.javascript_needed is not None
                and extraction.text_chars < self.static_chars
            ):
                return await self._degraded(static, tier, "the rendered page had less text than the static HTML")
            return await with_media(self, result)

    async def _render(self, tier: int) -> Rendered:
        from ._chrome import render

        browser = await self.engine.browser_for_pages(self.deadline)
        context = await self.session.browser_context(browser)
        await self.session.push_cookies(browser, context)
        page = await context.new_page()
        try:
            network = self.config.network
            identity = self.session.settings
            override = None
            # The context's settings already give the page its language (and user agent).
            if network.accept_language != "en-US,en;q=0.9" and (identity is None or not identity.languages):
                # The context's identity again, with [network]'s languages (no q-values).
                override = user_agent_override(
                    identity,
                    user_agent=identity.user_agent if identity is not None else None,
                    browser_user_agent=browser.version.user_agent,
                    languages=[part.split(";")[0].strip() for part in network.accept_language.split(",")],
                )
            return await render(
                page,
                self.url,
                tier=tier,
                deadline=self.deadline,
                timeout=self.options.timeout,
                accessibility=self.options.format == "a11y",
                identity=override,
                proxy_auth=identity is not None and identity.proxy is not None and identity.proxy.needs_auth,
                script_timeout=self.config.browser.script_timeout or None,
            )
        finally:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(CDPError):
                    await self.session.pull_cookies(browser, context)
                with contextlib.suppress(CDPError):
                    await page.close(timeout=_PAGE_CLOSE_TIMEOUT)

    # -- results --------------------------------------------------------------------------

    async def _extract(self, function: Callable[..., Extraction], *args: Any) -> Extraction:
        began = time.perf_counter()
        try:
            return await anyio.to_thread.run_sync(function, *args, abandon_on_cancel=True)
        finally:
            self.extract_ms += (time.perf_counter() - began) * 1000

    async def _degraded(self, static: BrowseResult, tier: int, what: str) -> BrowseResult:
        note = f"tier {tier} failed ({what}): the static content of tier 1 instead"
        static = await with_media(self, static)
        return dataclasses.replace(
            static,
            escalations=[*self.escalations, note],
            truncated=True,
            truncation=[note, *static.truncation],
            timing=self.timing(),
        )

    def timing(self) -> Timing:
        return Timing(
            fetch_ms=round(self.fetch_ms, 1),
            extract_ms=round(self.extract_ms, 1),
            total_ms=round((time.perf_counter() - self.started) * 1000, 1),
        )

    def _result(
        self, extraction: Extraction, final_url: str, status: int | None, tier: int, mime_type: str = "text/html"
    ) -> BrowseResult:
        return BrowseResult(
            url=self.url,
            final_url=final_url,
            status=status,
            title=extraction.title,
            content=extraction.content,
            format=self.options.format,
            links=list(extraction.links),
            forms=list(extraction.forms),
            media=list(extraction.media),
            metadata=extraction.metadata,
            tier_used=tier,
            escalations=list(self.escalations),
            truncated=extraction.truncated,
            truncation=list(extraction.truncation),
            mime_type=mime_type,
            timing=self.timing(),
            session=self.session.name,
        )


def extract_html_of(html: str, url: str, options: BrowseOptions) -> Extraction:
    from .._extraction import extract_html

    if options.format == "a11y":  # the tree comes from the browser; the HTML gives the rest
        options = dataclasses.replace(options, format="text", max_tokens=None)
    return extract_html(html, url, options, keep_chrome=options.keep_page_chrome)


def _with_accessibility(extraction: Extraction, tree: str, max_tokens: int | None) -> Extraction:
    """``extraction`` whose content is the accessibility snapshot, cut to the budget by
    whole lines (a note says how many were cut)."""
    lines = tree.splitlines()
    truncation = list(extraction.truncation)
    if max_tokens is not None and len(tree) > max_tokens * 4:
        kept: list[str] = []
        size = 0
        limit = max_tokens * 4 - 60  # room for the note
        for line in lines:
            if size + len(line) + 1 > limit:
                break
            kept.append(line)
            size += len(line) + 1
        cut = len(lines) - len(kept)
        note = f"{cut} of {len(lines)} accessibility tree lines cut at the end (max_tokens={max_tokens})"
        truncation.append(note)
        content = "\n".join([*kept, f"[{note}]"])
        return dataclasses.replace(extraction, content=content, truncated=True, truncation=truncation)
    return dataclasses.replace(extraction, content=tree)
