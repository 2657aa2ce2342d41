"""The browse engine: one call from a URL to the content an agent needs, over tiers.

Tier 1 fetches with HTTP only (:mod:`._http`); when the page needs JavaScript (an empty
app root, a ``<noscript>`` asking for it, a bot challenge or a script redirect) the engine
escalates to tier 2 (Chrome, heavy resources blocked) and then tier 3 (the full page),
never above ``max_tier``, and says why in :attr:`BrowseResult.escalations`. Everything a
call does is bounded by its ``timeout``, across tiers.

Sessions (:mod:`._sessions`) keep a cookie jar that tier 1 and the browser share both
ways; the browser is launched (or attached, or made by ``browser_factory``) the first
time a page needs it, and an isolated context is made per session only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self, Unpack

import anyio

from .. import _own_requests
from .._keywords import IdentityKeywords, check_keywords, keyword_signature
from .._page_setup import user_agent_override
from .._settings import BrowserSettings, resolve_settings
from .._urls import parse_url
from ..errors import CDPError, ConnectError, LaunchError, PageCrashedError
from ._config import EngineConfig, load_config
from ._documents import (
    MediaLimits,
    browser_needed,
    decode_html,
    extract_document,
    is_html,
    mime_type_of,
)
from ._http import RobotsCache, fetch, make_client, network_error, robots_token
from ._result import (
    BROWSE_CALL_DEFAULTS,
    BrowseCall,
    BrowseError,
    BrowseFormat,
    BrowseOptions,
    BrowseResult,
    Extraction,
    LinkStyle,
    MediaItem,
    Timing,
)
from ._sessions import BrowseSession, check_session_name

if TYPE_CHECKING:

    from ..browser import Browser
    from ..page import Page
    from ._chrome import Rendered
    from ._media import CachedMedia, MediaCache, Transform

__all__ = ["BrowserFactory", "Engine", "browse", "engine"]

# Returns the browser, or None: no browser from it, connect or launch as the config says.
BrowserFactory = Callable[[], Awaitable["Browser | None"]]
# Beyond the call's timeout, what closing pages and cleaning up may take before the call
# is cut short anyway (each stage already keeps to the deadline).
_GRACE = 1.0
_PAGE_CLOSE_TIMEOUT = 2.0
_MAX_MEDIA_FETCHES = 8  # images and videos of a page fetched for include_media (the first ones)
_MEDIA_FETCH_TIMEOUT = 10.0
_VIDEO_FETCH_TIMEOUT = 30.0


def _refused_type(kind: str, mime: str) -> str | None:
    """Why a response of type ``mime`` is not the ``kind`` a page named (``None``: it
    may be; a server that does not say is given the benefit of the doubt, the decoder
    judges)."""
    if mime in ("", "application/octet-stream", "binary/octet-stream"):
        return None
    if mime == "image/svg+xml":
        return "SVG is not rasterized (its scripts and references are a browser's)"
    if kind == "image" and mime.startswith("image/"):
        return None
    if kind == "video" and mime.startswith(("video/", "application/ogg", "audio/ogg")):
        return None
    return f"the server sent {mime}, not an {kind}" if kind == "image" else f"the server sent {mime}, not a video"


def _referer(page_url: str, url: str) -> dict[str, str]:
    """The ``Referer`` Chrome sends for a subresource (its default policy,
    strict-origin-when-cross-origin): the page's URL to its own origin, its origin
    elsewhere, nothing from https to http."""
    page, target = urllib.parse.urlsplit(page_url), urllib.parse.urlsplit(url)
    if page.scheme not in ("http", "https") or (page.scheme == "https" and target.scheme == "http"):
        return {}
    if (page.scheme, page.netloc) == (target.scheme, target.netloc):
        return {"Referer": urllib.parse.urlunsplit((page.scheme, page.netloc, page.path, page.query, ""))}
    return {"Referer": f"{page.scheme}://{page.netloc}/"}


def http_error(url: str, status: int, *, challenge: bool = False) -> BrowseError:
    """The :class:`BrowseError` ``http.<status>`` for an error status, with its advice."""
    if challenge:
        return BrowseError(
            url, f"http.{status}", f"HTTP {status}: the site shows a bot challenge that was not passed",
            recoverable=True, suggestion="allow the browser tiers (max_tier=3), or try again later",
            status=status,
        )  # fmt: skip
    advice: dict[int, tuple[str, bool, str]] = {
        401: ("needs authentication", False, "log in within a session (session=...) first"),
        403: ("access is forbidden", False, "log in within a session first, or the site refuses automated clients"),
        404: ("not found", False, "check the URL"),
        407: ("the proxy did not accept the credentials", False,
              "check the proxy's username and password (--proxy, [browser] proxy)"),
        410: ("gone: removed for good", False, "look for the content elsewhere"),
        429: ("too many requests", True, "wait a while before trying again"),
    }
    what, recoverable, suggestion = advice.get(
        status,
        ("the server failed", True, "try again later")
        if status >= 500
        else ("the server refused the request", False, "check the URL"),
    )
    return BrowseError(
        url, f"http.{status}", f"HTTP {status}: {what}", recoverable=recoverable, suggestion=suggestion, status=status
    )


class EngineKeywords(IdentityKeywords, total=False):
    """The keywords of :func:`cdpkit.engine` (and :class:`Engine`) beyond its named
    arguments, declared once: the identity shortcuts of :class:`IdentityKeywords` (each a
    :class:`cdpkit.BrowserSettings` field, over ``settings=`` and the ``[browser]``
    table), and the config tables by name (``session={"persist": True}``)."""

    media: Mapping[str, Any] | None
    output: Mapping[str, Any] | None
    extraction: Mapping[str, Any] | None
    network: Mapping[str, Any] | None
    privacy: Mapping[str, Any] | None
    session: Mapping[str, Any] | None


_IDENTITY_SHORTCUTS = tuple(IdentityKeywords.__annotations__)


class Engine:
    """Keeps what :func:`browse` needs between calls: the configuration, named sessions
    (an isolated browser context plus an HTTP cookie jar each) and a browser, launched
    lazily the first time a page needs tier 2 or 3.

    Use it as an async context manager (``async with cdpkit.engine() as engine:``); leaving
    it closes every session (saving the persistent ones) and the browser it launched.

    Where the browser comes from, first that applies: ``browser=`` (a :class:`Browser`
    someone else owns: used, never closed; only the contexts the engine made are closed),
    ``browser_factory=`` (an async callable returning a browser, called once, when a page
    first needs one; the engine closes what it returns), ``[browser] connect`` (attach),
    else :func:`cdpkit.launch` with the ``[browser]`` settings.

    Every tier presents the same identity (:class:`cdpkit.BrowserSettings`: ``settings=``
    over the config's ``[browser]`` identity keys): tier 1 sends its user agent (else
    cdpkit's honest one), language, extra headers and ``DNT`` through its proxy; the
    browser contexts of tiers 2 and 3 are made with it, and a launched browser gets its
    launch-wide parts (the proxy). With ``user_agents``, each session takes the next one,
    for its HTTP client and its browser context alike.

    Args:
        config: Settings by table, over the config file's (``{"network": {"retries": 2},
            "session": {"persist": True}}``); see :mod:`cdpkit._browse._config` for every
            table and key.
        browser: A running :class:`Browser` to use, or the ``[browser]`` table.
        browser_factory: Makes the browser when first needed; ``None`` from it: attach or
            launch as the ``[browser]`` table says (e.g. the command line's ``cdpkit
            daemon`` when one runs, else the engine's own launch).
        settings: The identity, over the ``[browser]`` table's identity keys (a setting
            left at its default keeps the config's).
        config_file: Read this TOML file instead of the user's (``$CDPKIT_CONFIG`` or
            ``~/.config/cdpkit/config.toml``).
        **keywords: The identity shortcuts (``user_agent=``, ``locale=``,
            ``extra_headers=``, ``proxy=``...: :class:`EngineKeywords`), each over
            ``settings=``; and more tables by name (``session={"persist": True}``).

    Raises:
        ConfigError: (a :class:`ValueError`) a table, key or value of the config file or
            of these settings is wrong; the message names where, the table and the key.
        TypeError: A keyword that is neither an identity setting nor a table (the
            message lists the accepted ones).
    """

    @keyword_signature(EngineKeywords)
    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        browser: Browser | Mapping[str, Any] | None = None,
        browser_factory: BrowserFactory | None = None,
        settings: BrowserSettings | None = None,
        config_file: str | None = None,
        **keywords: Unpack[EngineKeywords],
    ) -> None:
        from pathlib import Path

        _check_engine_keywords(keywords)
        shortcuts = {name: value for name, value in keywords.items() if name in _IDENTITY_SHORTCUTS}
        settings = resolve_settings(settings, shortcuts) if shortcuts else settings
        merged: dict[str, Any] = dict(config or {})
        merged.update({name: value for name, value in keywords.items() if name not in _IDENTITY_SHORTCUTS})
        self._given_browser: Browser | None = None
        if isinstance(browser, Mapping):
            merged["browser"] = {**merged.get("browser", {}), **browser}
        elif browser is not None:
            self._given_browser = browser
        self.config: EngineConfig = load_config(merged, path=Path(config_file) if config_file else None)
        if settings is not None:
            resolve_settings(settings, {})  # a TypeError for anything else
            base = self.config.browser.settings
            identity = settings if base is None else base.over(settings)
            self.config = dataclasses.replace(
                self.config, browser=dataclasses.replace(self.config.browser, settings=identity)
            )
        self._rotation = 0  # the next of settings.user_agents for a new session
        self._factory = browser_factory
        self._browser: Browser | None = self._given_browser
        self._owns_browser = False
        self._browser_lock = asyncio.Lock()
        self._sessions: dict[str, BrowseSession] = {}
        self._robots = RobotsCache()
        self._closed = False

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def browser(self) -> Browser | None:
        """The browser tiers 2 and 3 use, ``None`` until a page first needed it."""
        return self._browser

    @property
    def sessions(self) -> list[str]:
        """The names of the open sessions, in the order they were opened."""
        return list(self._sessions)

    async def close_session(self, name: str) -> None:
        """Close a session: save its cookies first when it persists, then close its HTTP
        client and browser context.

        Raises:
            BrowseError: ``session.unknown`` for a name that is not open (the message
                lists the open ones).
        """
        session = self._sessions.pop(name, None)
        if session is None:
            opened = ", ".join(self._sessions) or "none"
            raise BrowseError(
                name, "session.unknown", f"no open session named {name!r} (open: {opened})",
                recoverable=False, suggestion="see engine.sessions for the open sessions",
            )  # fmt: skip
        await session.close()

    async def close(self) -> None:
        """Close every session (saving the persistent ones) and the browser the engine
        launched (a browser given with ``browser=`` is left running). Idempotent; finishes
        even when the calling task is being cancelled."""
        self._closed = True
        with anyio.CancelScope(shield=True):
            sessions, self._sessions = list(self._sessions.values()), {}
            for session in sessions:
                with contextlib.suppress(Exception):
                    await session.close()
            browser, self._browser = self._browser, None
            if browser is not None and self._owns_browser:
                await browser.close()

    # -- browsing -------------------------------------------------------------------------

    @keyword_signature(BrowseCall, BROWSE_CALL_DEFAULTS)
    async def browse(
        self,
        url: str,
        *,
        session: str | None = None,
        persist: bool | None = None,
        **call: Unpack[BrowseCall],
    ) -> BrowseResult:
        """Browse ``url`` in ``session``: see :func:`cdpkit.browse` for the options and
        what comes back. ``None`` takes the config's value (``[output]``, ``[extraction]``,
        ``[media]``, ``[network] timeout``).

        Args:
            session: The session's name (created on first use, cookies kept across
                calls); ``None``: a throwaway session closed before this returns.
            persist: For a session created now: save its cookies when it closes and
                restore them in the next engine (default ``[session] persist``).

        Raises:
            BrowseError: It could not get the page (code, recoverable, suggestion).
            ValueError: An option out of its range, or a bad session name.
        """
        check_keywords("browse", call, BrowseCall)
        if self._closed:
            raise BrowseError(url, "session.closed", "the engine is closed", recoverable=False,
                              suggestion="browse within `async with cdpkit.engine() as engine:`")
        config = self.config
        max_tier, tier = call.get("max_tier"), call.get("tier")
        readability, include_media = call.get("readability"), call.get("include_media")
        max_tokens, timeout = call.get("max_tokens"), call.get("timeout")
        robots = call.get("respect_robots_txt")
        keep_page_chrome = bool(call.get("keep_page_chrome"))
        options = BrowseOptions(
            format=call.get("format") or config.output.format,  # type: ignore[arg-type]
            selectors=tuple(call.get("selectors") or ()),
            exclude_selectors=tuple(call.get("exclude_selectors") or ()),
            keywords=tuple(call.get("keywords") or ()),
            keyword_mode=call.get("keyword_mode", "any"),
            query=call.get("query"),
            max_tokens=max_tokens if max_tokens is not None else config.output.max_tokens,
            readability=config.extraction.readability if readability is None else readability,
            include_media=config.media.include if include_media is None else include_media,
            link_style=call.get("link_style") or config.output.link_style,  # type: ignore[arg-type]
            max_tier=max_tier if max_tier is not None else config.extraction.max_tier,
            tier=tier,
            timeout=timeout if timeout is not None else config.network.timeout,
            respect_robots_txt=config.privacy.respect_robots_txt if robots is None else robots,
            keep_page_chrome=keep_page_chrome,
        )
        if options.format == "a11y" and max_tier is None and tier is None and options.max_tier < 3:
            options = dataclasses.replace(options, max_tier=3)  # the config's cap vs. a11y asked now
        options.validate()
        target = _checked_url(url)
        if session is not None:
            check_session_name(session)
        started = time.perf_counter()
        browse_session, throwaway = await self._session(session, persist)
        try:
            async with asyncio.timeout(options.timeout + _GRACE):
                return await _Call(self, browse_session, target, options, started).run()
        except TimeoutError:
            raise network_error(target, "network.timeout", timeout=options.timeout) from None
        finally:
            if throwaway:
                with anyio.CancelScope(shield=True):  # even when the call is cancelled
                    await browse_session.close()

    # -- a live page of a session, for surfaces that act on it (the TUI) ------------------

    async def session_page(self, session: str, *, persist: bool | None = None, timeout: float | None = None) -> Page:
        """A new, blank full page (tier 3) in ``session``'s browser context, the session's
        cookies given to it: what a person does there (log in, submit a form) is seen by
        the site as a real browser's. The caller closes it; :meth:`page_result` reads it
        and brings its cookies back to the session.

        Args:
            session: The session's name (created on first use, as :meth:`browse` does).
            persist: For a session created now (see :meth:`browse`).
            timeout: Seconds to launch or attach the browser (default ``[network] timeout``).

        Raises:
            BrowseError: ``session.closed`` when the engine is closed, or the browser could
                not be started (``page.browser``).
            ValueError: A bad session name.
        """
        where = f"session {session!r}"
        if self._closed:
            raise BrowseError(where, "session.closed", "the engine is closed", recoverable=False,
                              suggestion="use the engine within `async with cdpkit.engine() as engine:`")
        check_session_name(session)
        browse_session, _ = await self._session(session, persist)
        deadline = asyncio.get_running_loop().time() + (timeout or self.config.network.timeout)
        try:
            browser = await self.browser_for_pages(deadline)
        except (LaunchError, ConnectError, TimeoutError) as exc:
            raise BrowseError(where, "page.browser", f"the browser could not be started ({exc})", recoverable=False,
                              suggestion="check Chrome with `cdpkit doctor`") from None
        context = await browse_session.browser_context(browser)
        await browse_session.push_cookies(browser, context)
        return await context.new_page()

    async def page_result(
        self,
        page: Page,
        *,
        session: str,
        format: BrowseFormat = "markdown",
        link_style: LinkStyle | None = None,
        timeout: float = 10.0,
        keep_page_chrome: bool = False,
    ) -> BrowseResult:
        """What :meth:`browse` gives for ``page`` as it is now (a page of
        :meth:`session_page`, after clicks and typing): its content through the same
        extraction, ``tier_used=3``; the page's cookies are brought back to ``session``
        so the next tier-1 fetch sends them.

        Raises:
            CDPError: The page could not be read (closed, crashed).
        """
        from ._chrome import read_page_state

        started = time.perf_counter()
        html, _, href, _, status, mime_type = await read_page_state(page, timeout)
        options = BrowseOptions(
            format=format, link_style=link_style or self.config.output.link_style,  # type: ignore[arg-type]
            keep_page_chrome=keep_page_chrome,
        )  # fmt: skip
        options.validate()
        extraction = await anyio.to_thread.run_sync(_extract_html, html, href, options, abandon_on_cancel=True)
        browse_session = self._sessions.get(session)
        if browse_session is not None and browse_session.context is not None and self._browser is not None:
            with contextlib.suppress(CDPError):
                await browse_session.pull_cookies(self._browser, browse_session.context)
        total = round((time.perf_counter() - started) * 1000, 1)
        return BrowseResult(
            url=href, final_url=href, status=status, title=extraction.title, content=extraction.content,
            format=format, links=list(extraction.links), forms=list(extraction.forms), media=list(extraction.media),
            metadata=extraction.metadata, tier_used=3, truncated=extraction.truncated,
            truncation=list(extraction.truncation), mime_type=mime_type or "text/html",
            timing=Timing(total_ms=total), session=session,
        )  # fmt: skip

    async def _session(self, name: str | None, persist: bool | None) -> tuple[BrowseSession, bool]:
        if name is not None and name in self._sessions:
            return self._sessions[name], False
        config = self.config
        keep = (config.session.persist if persist is None else persist) and name is not None
        path = config.sessions_dir / f"{name}.json" if name is not None else None
        identity = self._session_identity()
        client = make_client(config, identity)
        try:
            created = BrowseSession(name, client, persist=keep, path=path, settings=identity)
        except BaseException:
            await client.aclose()
            raise
        if name is None:
            return created, True
        self._sessions[name] = created
        return created, False

    def _session_identity(self) -> BrowserSettings | None:
        """The identity of a new session: the engine's, with the next user agent of its
        rotation (so its HTTP client and browser context say the same)."""
        settings = self.config.browser.settings
        if settings is None or not settings.user_agents:
            return settings
        self._rotation += 1
        return settings.for_context(self._rotation - 1)

    async def browser_for_pages(self, deadline: float) -> Browser:
        """The browser tiers 2 and 3 use, made the first time (within ``deadline``)."""
        async with self._browser_lock:
            if self._browser is not None and not self._browser.closed:
                return self._browser
            if self._given_browser is not None:
                raise BrowseError(
                    "", "session.closed", "the browser given to the engine is closed", recoverable=False,
                    suggestion="give the engine a running browser (engine(browser=...))",
                )  # fmt: skip
            loop = asyncio.get_running_loop()
            left = max(0.1, deadline - loop.time())
            async with asyncio.timeout(left):
                self._browser = await self._start_browser(left)
            self._owns_browser = True
            return self._browser

    async def _start_browser(self, left: float) -> Browser:
        from .._starting import connect, launch

        if self._factory is not None:
            made = await self._factory()
            if made is not None:
                return made
        settings = self.config.browser
        timeout = min(settings.timeout, left)
        if settings.connect:
            return await connect(settings.connect, timeout=timeout, command_timeout=settings.timeout)
        return await launch(
            headless=settings.headless,
            args=list(settings.args),
            viewport=self.config.viewport,
            timeout=timeout,
            command_timeout=settings.timeout,
            settings=_launch_wide(settings.settings),
        )


def _launch_wide(settings: BrowserSettings | None) -> BrowserSettings | None:
    """The parts of ``settings`` a launch takes (Chrome flags: the proxy, the language,
    the stealth switch, the default flags left out); the rest is each context's."""
    if settings is None:
        return None
    return BrowserSettings(
        proxy=settings.proxy,
        locale=settings.locale,
        accept_language=settings.accept_language,
        stealth=settings.stealth,
        ignore_default_args=settings.ignore_default_args,
    )


def _fetchable(url: str) -> bool:
    """Whether tier 1 can fetch ``url`` (http or https)."""
    return urllib.parse.urlsplit(url).scheme.lower() in ("http", "https")


def _checked_url(url: str) -> str:
    """``url`` as the browser reads it (:func:`cdpkit._urls.read_url`: the same URL the
    tools, the command line and the MCP server take from the same text).

    Raises:
        ValueError: Not a non-empty string, no URL, or no http(s) (with a host), file or
            data URL.
    """
    if not isinstance(url, str) or not url.strip():
        raise ValueError("url must be a non-empty string")
    text = parse_url(url)  # InvalidUrlError (a ValueError) where Chrome reads no URL either
    parts = urllib.parse.urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https", "file", "data") or (
        scheme in ("http", "https") and not parts.hostname
    ):
        raise ValueError(f"Invalid URL {url!r}: cdpkit.browse reads http(s), file and data URLs")
    return text


class _Call:
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
            return await self._cached_resource(result, fetched.body)
        # Charset detection can take a while on a big page: off the event loop too.
        html = await anyio.to_thread.run_sync(decode_html, fetched.body, fetched.content_type, abandon_on_cancel=True)
        extraction = await self._extract(_extract_html, html, fetched.final_url, self.options)
        challenge = browser_needed(fetched.status, html, extraction.text_chars)
        if fetched.status >= 400 and challenge is None:
            raise http_error(self.url, fetched.status)
        reason = challenge or extraction.javascript_needed
        if reason is None:
            return await self._with_media(self._result(extraction, fetched.final_url, fetched.status, 1))
        if last == 1:
            if fetched.status >= 400:
                raise http_error(self.url, fetched.status, challenge=True)
            # As far as allowed: the thin content, and why a browser would do better.
            self.escalations.append(f"not escalated (max_tier=1): {reason}")
            return await self._with_media(self._result(extraction, fetched.final_url, fetched.status, 1))
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
            extraction = await self._extract(_extract_html, rendered.html, rendered.final_url, self.options)
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
            return await self._with_media(result)

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

    async def _with_media(self, result: BrowseResult) -> BrowseResult:
        """With ``include_media``, the page's first images and videos downloaded (in the
        session: its cookies, identity and proxy, each hop checked) and made small into
        the media cache (:mod:`._media`): an image a WebP, a video its frames. An item that
        fails keeps its URL and alt text, its ``note`` and ``truncation`` say why. Done
        once, on the result returned (not for tiers escalated past)."""
        if not self.options.include_media or result.mime_type != "text/html":
            return result
        wanted = [
            index
            for index, item in enumerate(result.media)
            if item.kind in ("image", "video")
            and item.data is None
            and item.url.startswith(("http://", "https://", "data:"))
        ][:_MAX_MEDIA_FETCHES]
        if not wanted:
            return result
        from ._media import MediaCache, MediaRefused, Transform

        settings = self.config.media
        transform = Transform(settings.max_width, settings.max_height, settings.quality, settings.video_frames)
        cache = MediaCache(self.config.media_dir, int(settings.cache_size_mb * 1024 * 1024))

        async def one(index: int) -> MediaItem:
            item = result.media[index]
            try:
                return await self._media_item(item, result.final_url, cache, transform)
            except MediaRefused as exc:
                raise BrowseError(item.url, "processing.media", str(exc), recoverable=False) from None

        outcomes = await asyncio.gather(*(one(index) for index in wanted), return_exceptions=True)
        items = list(result.media)
        notes: list[str] = []
        for index, outcome in zip(wanted, outcomes, strict=True):
            if isinstance(outcome, MediaItem):
                items[index] = outcome
            elif isinstance(outcome, Exception):
                item = items[index]
                # A BrowseError reads "<url>: <what> [<code>] (<advice>)": the URL is said below.
                said = (
                    str(outcome).removeprefix(f"{outcome.url}: ")
                    if isinstance(outcome, BrowseError)
                    else f"{type(outcome).__name__}: {outcome}"
                )
                items[index] = dataclasses.replace(item, note=said)
                shown = f" ({item.alt!r})" if item.alt else ""
                where = item.url if not item.url.startswith("data:") else "data: URL"
                notes.append(f"{item.kind} {where}{shown}: its URL and alt text only, {said}")
            else:  # cancellation and the like: not the item's fault
                raise outcome
        return dataclasses.replace(
            result, media=items, truncation=[*result.truncation, *notes], timing=self._timing()
        )

    async def _cached_resource(self, result: BrowseResult, body: bytes) -> BrowseResult:
        """With ``include_media``, an image resource's WebP (made by the document reader)
        kept in the media cache as a page's images are, its item naming the file."""
        if not (self.options.include_media and result.mime_type.startswith("image/") and result.media):
            return result
        item = result.media[0]
        if item.data is None or item.files:
            return result
        from ._media import MediaCache, Transform, content_key

        settings = self.config.media
        transform = Transform(settings.max_width, settings.max_height, settings.quality, settings.video_frames)
        cache = MediaCache(self.config.media_dir, int(settings.cache_size_mb * 1024 * 1024))
        key = content_key(body, transform, "image")
        credentials = self.session.credentials_key()  # noted for this session's credentials only
        cached = await anyio.to_thread.run_sync(cache.by_key, key)
        if cached is None:
            cached = await anyio.to_thread.run_sync(cache.store, key, [item.data], item.width, item.height)
        await anyio.to_thread.run_sync(
            cache.remember_url, item.url, transform, "image", key, credentials, result.final_url
        )
        files = tuple(str(path) for path in cached.files)
        return dataclasses.replace(result, media=[dataclasses.replace(item, files=files), *result.media[1:]])

    async def _media_item(
        self, item: MediaItem, page_url: str, cache: MediaCache, transform: Transform
    ) -> MediaItem:
        """``item`` with its files from the cache, downloaded and made first when the
        cache has none for its URL (or its bytes)."""
        from ._media import MediaRefused, content_key, ffmpeg_missing, image_webp, video_frames

        kind: Literal["image", "video"] = "video" if item.kind == "video" else "image"
        if kind == "video" and (missing := ffmpeg_missing()) is not None:
            raise MediaRefused(missing)  # before anything is downloaded
        is_data = item.url.startswith("data:")
        # What this session's request would carry (before it is sent: a Set-Cookie of its
        # answer is another set of credentials), and the URL check in force: a cached URL
        # is served only as the request would be (see cdpkit._browse._media).
        credentials = self.session.credentials_key()
        refusal = _own_requests.current_refusal()
        cached: CachedMedia | None = None
        if not is_data:
            cached = await anyio.to_thread.run_sync(
                cache.by_url, item.url, transform, kind, credentials, refusal
            )
        if cached is None:
            body, final_url = await self._media_body(item.url, kind, page_url)
            key = content_key(body, transform, kind)
            cached = await anyio.to_thread.run_sync(cache.by_key, key)
            if cached is None:
                width: int | None
                height: int | None
                if kind == "image":
                    width, height, webp = await anyio.to_thread.run_sync(
                        image_webp, body, transform, abandon_on_cancel=True
                    )
                    images = [webp]
                else:
                    deadline = time.monotonic() + self.left()
                    width, height, images = await anyio.to_thread.run_sync(
                        video_frames, body, transform, deadline, abandon_on_cancel=True
                    )
                cached = await anyio.to_thread.run_sync(cache.store, key, images, width, height)
            if not is_data:
                await anyio.to_thread.run_sync(
                    cache.remember_url, item.url, transform, kind, key, credentials, final_url
                )
        files = tuple(str(path) for path in cached.files)
        data = None
        if kind == "image":
            data = await anyio.to_thread.run_sync(cached.files[0].read_bytes)
        return dataclasses.replace(
            item,
            width=cached.width or item.width,
            height=cached.height or item.height,
            data=data,
            mime_type="image/webp",
            files=files,
        )

    async def _media_body(
        self, url: str, kind: Literal["image", "video"], page_url: str
    ) -> tuple[bytes, str]:
        """The bytes of a media item's ``url`` (a ``data:`` URL decoded, else downloaded in
        the session) and where its download ended."""
        from ._media import (
            DATA_URL_MAX_BYTES,
            IMAGE_MAX_BYTES,
            VIDEO_MAX_BYTES,
            MediaRefused,
            data_url,
        )

        if url.startswith("data:"):
            if len(url) > DATA_URL_MAX_BYTES * 2:
                raise MediaRefused(f"a data: URL over {DATA_URL_MAX_BYTES // (1024 * 1024)} MiB")
            mime, body = data_url(url)
            refused = _refused_type(kind, mime)
            if refused is not None:
                raise MediaRefused(refused)
            return body, url
        fetched = await fetch(
            self.session.client, url, min(_MEDIA_FETCH_TIMEOUT if kind == "image" else
                                          _VIDEO_FETCH_TIMEOUT, self.left()),
            max_bytes=IMAGE_MAX_BYTES if kind == "image" else VIDEO_MAX_BYTES,
            headers=_referer(page_url, url),
            accept=lambda mime: _refused_type(kind, mime),
        )  # fmt: skip
        if fetched.status >= 400:
            raise http_error(url, fetched.status)
        return fetched.body, fetched.final_url

    async def _extract(self, function: Callable[..., Extraction], *args: Any) -> Extraction:
        began = time.perf_counter()
        try:
            return await anyio.to_thread.run_sync(function, *args, abandon_on_cancel=True)
        finally:
            self.extract_ms += (time.perf_counter() - began) * 1000

    async def _degraded(self, static: BrowseResult, tier: int, what: str) -> BrowseResult:
        note = f"tier {tier} failed ({what}): the static content of tier 1 instead"
        static = await self._with_media(static)
        return dataclasses.replace(
            static,
            escalations=[*self.escalations, note],
            truncated=True,
            truncation=[note, *static.truncation],
            timing=self._timing(),
        )

    def _timing(self) -> Timing:
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
            timing=self._timing(),
            session=self.session.name,
        )


def _extract_html(html: str, url: str, options: BrowseOptions) -> Extraction:
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


def _check_engine_keywords(keywords: Mapping[str, Any]) -> None:
    """Refuse a keyword :class:`EngineKeywords` does not declare, listing the accepted ones.

    Raises:
        TypeError: As Python's own for an unexpected keyword, with the accepted names.
    """
    for name in keywords:
        if name not in EngineKeywords.__annotations__:
            tables = ", ".join(n for n in EngineKeywords.__annotations__ if n not in _IDENTITY_SHORTCUTS)
            raise TypeError(
                f"engine() got an unexpected keyword argument {name!r} (it takes the identity settings "
                f"{', '.join(_IDENTITY_SHORTCUTS)}; the config tables {tables}; and config, browser, "
                "browser_factory, settings, config_file)"
            )


@keyword_signature(EngineKeywords)
def engine(
    config: Mapping[str, Any] | None = None,
    *,
    browser: Browser | Mapping[str, Any] | None = None,
    browser_factory: BrowserFactory | None = None,
    settings: BrowserSettings | None = None,
    config_file: str | None = None,
    **keywords: Unpack[EngineKeywords],
) -> Engine:
    """An :class:`Engine` with this configuration over the config file's and the defaults
    (see :class:`Engine` for the arguments)::

        async with cdpkit.engine(session={"persist": True}, user_agent="research-bot/1.0") as engine:
            result = await engine.browse("https://example.com", session="work")

    The identity keywords (``user_agent``, ``locale``, ``extra_headers``, ``proxy``...) are
    :class:`cdpkit.BrowserSettings` fields, over ``settings=`` and the ``[browser]`` table.
    """
    _check_engine_keywords(keywords)
    return Engine(
        config, browser=browser, browser_factory=browser_factory, settings=settings, config_file=config_file,
        **keywords,
    )


@keyword_signature(BrowseCall, BROWSE_CALL_DEFAULTS)
async def browse(
    url: str,
    *,
    settings: BrowserSettings | None = None,
    **call: Unpack[BrowseCall],
) -> BrowseResult:
    """One call from a URL to its content, in at most ``max_tokens``, about what you ask.

    It fetches over HTTP first (tier 1, no browser); a page that needs JavaScript is
    loaded in Chrome with images, media, fonts and stylesheets blocked (tier 2), then in
    full (tier 3), never above ``max_tier``; the result says why in ``escalations``. A
    PDF gives its text, an image a media item, JSON and text pass through. It owns what it
    starts: no browser and no connection are left when it returns or raises. ``None``
    takes the config file's value (then the default shown).

    Args:
        url: An http(s) URL (file: and data: URLs go to the browser tiers).
        format: ``"markdown"`` (default), ``"text"``, ``"json"`` (structured blocks),
            ``"a11y"`` (the accessibility tree; tier 3) or ``"links"``.
        selectors: Keep only what these CSS selectors match.
        exclude_selectors: Drop what these CSS selectors match.
        keywords: Keep the blocks that mention these words (with their heading).
        keyword_mode: ``"any"`` keyword or ``"all"`` of them.
        query: Rank blocks by relevance to this text (BM25); the budget keeps the best.
        max_tokens: Budget for ``content``, counted as characters / 4; whole blocks are cut
            by priority and ``truncation`` says what.
        readability: Keep only the main content (default ``False``).
        include_media: Download the page's first images and videos into the media cache
            (default ``False``): an image as a WebP within ``[media] max_width`` x
            ``max_height`` (640x480), a video as ``[media] video_frames`` (5) WebP frames
            taken with ffmpeg; each :class:`MediaItem` names its ``files`` (or says why
            not in ``note``). Later calls reuse the cache.
        max_tier: The highest tier to escalate to: 1, 2 or 3 (default 3).
        tier: Use exactly this tier (no escalation).
        timeout: Seconds for the whole call, all tiers together (default 30). When the
            time runs out in the browser, what the page showed so far comes back with
            ``truncated=True``; with nothing to show, ``network.timeout``.
        link_style: Links in markdown ``"inline"`` (default), ``"numbered"`` (``[n]``,
            matching ``links[n-1]``) or ``"none"``.
        keep_page_chrome: Read the whole page, its navigation, site header, footer and
            asides too (and every link in them), when ``readability`` is off (default
            ``False``: they are left out).
        respect_robots_txt: Refuse (``http.robots``) a URL the site's ``robots.txt``
            disallows for the user agent (default ``[privacy] respect_robots_txt``, off).
        settings: How every tier presents itself (user agent, language, extra headers,
            ``DNT``, proxy...; see :class:`cdpkit.BrowserSettings`), over the config
            file's ``[browser]`` table.

    Returns:
        A :class:`BrowseResult` (content, title, links, forms, media, metadata, the tier
        used and why, what was cut, timings).

    Raises:
        BrowseError: It could not get the page: ``code`` (``network.dns``,
            ``network.refused``, ``network.timeout``, ``http.404``, ``http.robots``,
            ``page.crashed``, ``processing.unsupported``...), whether it is
            ``recoverable``, and a ``suggestion``.
        ValueError: An option out of range, or a config file with a wrong key or value.
    """
    check_keywords("browse", call, BrowseCall)
    async with Engine(settings=settings) as throwaway:
        return await throwaway.browse(url, **call)
