"""The browse engine: one call from a URL to the content an agent needs, over tiers.

Tier 1 fetches with HTTP only (:mod:`._http`); when the page needs JavaScript (an empty
app root, a ``<noscript>`` asking for it, a bot challenge or a script redirect) the engine
escalates to tier 2 (Chrome, heavy resources blocked) and then tier 3 (the full page),
never above ``max_tier``, and says why in :attr:`BrowseResult.escalations`. Everything a
call does is bounded by its ``timeout``, across tiers.

One call's tiers are :class:`._call.Call`'s, a page's media :mod:`._page_media`'s; this
module keeps the engine (its configuration, sessions and browser) and the public calls.
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
from typing import TYPE_CHECKING, Any, Self, Unpack

import anyio

from .._browser.config import EngineConfig, load_config
from .._browser.settings import BrowserSettings, resolve_settings
from .._core.keywords import IdentityKeywords, check_keywords, keyword_signature
from .._core.urls import parse_url
from ..errors import CDPError, ConnectError, LaunchError
from ._call import Call, extract_html_of
from ._http import RobotsCache, make_client, network_error
from ._result import (
    BROWSE_CALL_DEFAULTS,
    BrowseCall,
    BrowseError,
    BrowseFormat,
    BrowseOptions,
    BrowseResult,
    LinkStyle,
    Timing,
)
from ._sessions import BrowseSession, check_session_name

if TYPE_CHECKING:
    from ..browser import Browser
    from ..page import Page

__all__ = ["BrowserFactory", "Engine", "browse", "engine"]

# Returns the browser, or None: no browser from it, connect or launch as the config says.
BrowserFactory = Callable[[], Awaitable["Browser | None"]]
# Beyond the call's timeout, what closing pages and cleaning up may take before the call
# is cut short anyway (each stage already keeps to the deadline).
_GRACE = 1.0


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
            "session": {"persist": True}}``); see :mod:`cdpkit._browser.config` for every
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
                return await Call(self, browse_session, target, options, started).run()
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
        extraction = await anyio.to_thread.run_sync(extract_html_of, html, href, options, abandon_on_cancel=True)
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
        from .._browser.starting import connect, launch

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


def _checked_url(url: str) -> str:
    """``url`` as the browser reads it (:func:`cdpkit._core.urls.read_url`: the same URL the
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
