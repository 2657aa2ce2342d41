"""The MCP tools of the light path (:func:`cdpkit.browse`): ``browse``, ``get_links``,
``get_forms``, ``session_list`` and ``session_close``.

They run on the server's :class:`cdpkit.Engine` (see
:meth:`cdpkit.mcp._session.BrowserSession.engine`), which fetches pages over HTTP and
uses the server's own browser (so ``--connect``, ``--grid`` and ``--chrome`` apply, and
no second Chrome is ever launched) only for pages that need JavaScript. As for the
browser tools, the input schemas and descriptions come from the functions' signatures
and Google-style docstrings, and the server's URL policy applies: the URL asked for is
checked before anything is fetched, and where the page ended (after redirects) before
anything of it is returned. Each hop of a redirect is checked before it is requested: in
the browser (tiers 2 and 3) by the server's request guard, over HTTP (tier 1, and its
``robots.txt``) by the check of :mod:`cdpkit._browser.own_requests`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._browser.own_requests import checked_by
from .._core.urls import read_url
from ._render import MAX_INLINE_BYTES
from ._schema import (
    Image,
    Part,
    Text,
    ToolSpec,
    describe,
    input_model_of,
    parse_docstring,
    to_json,
)
from ._session import BrowserSession
from ._text import TOOL_TEXT
from ._urls import UrlBlockedError

if TYPE_CHECKING:
    # The light path's engine (and httpx) loads on the first call of its tools, not
    # when the server starts: the server answers tools/list before.
    from .._browse._result import BrowseResult, Form

__all__ = ["BROWSE_TOOL_NAMES", "browse_tools"]

BROWSE_TOOL_NAMES = ("browse", "get_links", "get_forms", "session_list", "session_close")
# How many of the budget's cuts the header of a browse result names.
_CUTS_SHOWN = 3
# Images (an image, a video's frames) a browse result returns at most.
_MAX_IMAGES = 16


class _Engine(Protocol):
    """What the tools use of :class:`cdpkit.Engine`."""

    async def browse(
        self, url: str, *, session: str | None = None, **options: Any
    ) -> BrowseResult: ...

    @property
    def sessions(self) -> list[str]: ...

    async def close_session(self, name: str) -> None: ...


# -- the tool functions (their docstrings are the tools' descriptions) ------------------------


async def browse(
    engine: _Engine,
    url: str,
    *,
    format: Literal["markdown", "text", "json", "a11y", "links"] = "markdown",
    max_tokens: int | None = None,
    keywords: list[str] | None = None,
    keyword_mode: Literal["any", "all"] = "any",
    query: str | None = None,
    selectors: list[str] | None = None,
    exclude_selectors: list[str] | None = None,
    readability: bool = False,
    link_style: Literal["inline", "numbered", "none"] = "inline",
    include_media: bool = False,
    max_tier: Literal[1, 2, 3] = 3,
    tier: Literal[1, 2, 3] | None = None,
    timeout: float = 30,
    session: str | None = None,
) -> BrowseResult:
    """Read a web page: its content as markdown (or text, JSON, links, or the
    accessibility tree), filtered, and within a token budget. Start here: this covers
    most needs, reading a page, finding what it says about something (``keywords`` or
    ``query``), and keeping the answer short (``max_tokens``). It fetches the page over
    HTTP and loads it in the browser only when the page needs JavaScript, so it is fast.
    For interaction (clicking, typing, logging in by hand) use the browser_* tools
    (browser_navigate, browser_snapshot, browser_click...).

    Args:
        engine: The server's engine.
        url: The absolute URL of the page (http or https; a PDF, an image, JSON or text
            works too).
        format: ``"markdown"`` (default), ``"text"``, ``"json"`` (headings, paragraphs,
            lists, tables, links and forms as JSON), ``"a11y"`` (the accessibility tree,
            always loads the page in the browser) or ``"links"``.
        max_tokens: At most this many tokens of content (counted as characters / 4):
            whole blocks are cut, the least important first, and the result says what was
            cut.
        keywords: Keep only the blocks mentioning these words (with their headings).
        keyword_mode: ``"any"`` keyword or ``"all"`` of them in a block.
        query: Rank the blocks by relevance to this question and keep the best first.
        selectors: Only the parts of the page matching these CSS selectors.
        exclude_selectors: Drop the parts matching these CSS selectors (navigation,
            footers...).
        readability: Keep only the main content (the article), without menus and
            sidebars.
        link_style: Links in the content ``"inline"`` (markdown links), ``"numbered"``
            (``[n]`` markers, the URLs listed at the end), or ``"none"`` (text only).
        include_media: Also return the page's images (downscaled WebP, within 640x480)
            and a few frames of each of its videos, as images after the text.
        max_tier: The most expensive way to load the page: 1 (HTTP only), 2 (the browser
            without images, fonts and styles), 3 (the full page).
        tier: Load it exactly this way (1, 2 or 3) instead of starting at 1 and going up
            only when the page needs JavaScript.
        timeout: Seconds for the whole call.
        session: A named session (cookies and logins kept between calls; see
            ``session_list``); by default a fresh one for this call.

    Returns:
        The page's title, where it ended (URL, HTTP status), how it was loaded (tier and
        why it went up), what the budget cut, then the content.
    """
    options = {
        "format": format,
        "max_tokens": max_tokens,
        "keywords": keywords,
        "keyword_mode": keyword_mode,
        "query": query,
        "selectors": selectors,
        "exclude_selectors": exclude_selectors,
        "readability": readability,
        "link_style": link_style,
        "include_media": include_media,
        "max_tier": max_tier,
        "tier": tier,
        "timeout": timeout,
    }
    return await engine.browse(url, session=session, **_given(options))


async def get_links(
    engine: _Engine,
    url: str,
    *,
    selectors: list[str] | None = None,
    exclude_selectors: list[str] | None = None,
    max_tier: Literal[1, 2, 3] = 3,
    timeout: float = 30,
    session: str | None = None,
) -> BrowseResult:
    """List a web page's links, numbered in page order: each with its text and absolute
    URL. To follow one, ``browse`` its URL. The links of the page's content are listed;
    those of its navigation menus, site header, footer and sidebars only when
    ``selectors`` names them (e.g. ``["nav", "footer"]``).

    Args:
        engine: The server's engine.
        url: The absolute URL of the page.
        selectors: Only the links inside the parts matching these CSS selectors.
        exclude_selectors: Leave out the links inside the parts matching these CSS
            selectors (navigation, footers...).
        max_tier: 1 to fetch over HTTP only; 2 or 3 let the browser run the page's
            JavaScript when it needs it.
        timeout: Seconds for the whole call.
        session: A named session (its cookies are sent); by default a fresh one.

    Returns:
        One line per link, ``[n] text -> URL``.
    """
    options = {
        "format": "links",
        "link_style": "numbered",
        "selectors": selectors,
        "exclude_selectors": exclude_selectors,
        "max_tier": max_tier,
        "timeout": timeout,
    }
    return await engine.browse(url, session=session, **_given(options))


async def get_forms(
    engine: _Engine,
    url: str,
    *,
    selectors: list[str] | None = None,
    max_tier: Literal[1, 2, 3] = 3,
    timeout: float = 30,
    session: str | None = None,
) -> BrowseResult:
    """List a web page's forms and their fields: where each form submits (action,
    method), and each field's name, type, current value, label, whether it is required
    and its choices. To fill and submit a form, use the browser tools (browser_navigate,
    browser_type, browser_select_option, browser_click).

    Args:
        engine: The server's engine.
        url: The absolute URL of the page.
        selectors: Only the forms inside the parts matching these CSS selectors.
        max_tier: 1 to fetch over HTTP only; 2 or 3 let the browser run the page's
            JavaScript when it needs it (forms built by scripts).
        timeout: Seconds for the whole call.
        session: A named session (its cookies are sent); by default a fresh one.

    Returns:
        The forms as JSON.
    """
    options = {"format": "text", "selectors": selectors, "max_tier": max_tier, "timeout": timeout}
    return await engine.browse(url, session=session, **_given(options))


async def session_list(engine: _Engine) -> list[str]:
    """List the open named sessions of ``browse`` (each keeps its cookies and logins,
    over HTTP and in the browser, until closed).

    Args:
        engine: The server's engine.

    Returns:
        The session names, as JSON.
    """
    return list(engine.sessions)


async def session_close(engine: _Engine, name: str) -> str:
    """Close a named session of ``browse``: its cookies and its browser context are
    dropped (or saved, for a persistent one).

    Args:
        engine: The server's engine.
        name: The session's name (from ``session_list``).

    Returns:
        What was closed.
    """
    from .._browse import BrowseError

    try:
        await engine.close_session(name)
    except BrowseError as exc:
        if exc.code != "session.unknown":
            raise
        open_now = ", ".join(repr(open_name) for open_name in engine.sessions) or "none"
        raise BrowseError(
            name,
            exc.code,
            f"no open session named {name!r} (open: {open_now})",
            recoverable=False,
            suggestion="session_list shows the open sessions; browse with session=NAME opens one",
        ) from None
    return f"Session {name!r} closed."


def _given(options: dict[str, Any]) -> dict[str, Any]:
    """The options the caller set (``None`` means "the engine's default")."""
    return {name: value for name, value in options.items() if value is not None}


# -- rendering ------------------------------------------------------------------------------------


def _header(result: BrowseResult) -> str:
    """What the model needs to know about a browse besides the content, a line each."""
    lines = [f"Title: {result.title}" if result.title else "Title: (none)"]
    status = f", HTTP {result.status}" if result.status is not None else ""
    lines.append(f"URL: {result.final_url}{status}")
    how = {1: "HTTP only", 2: "browser, light", 3: "browser, full page"}.get(result.tier_used, "")
    went_up = f"; went up because: {'; '.join(result.escalations)}" if result.escalations else ""
    lines.append(f"Loaded: tier {result.tier_used} ({how}){went_up}")
    if result.mime_type and result.mime_type != "text/html":
        lines.append(f"Type: {result.mime_type}")
    if result.truncated:
        # The first cuts only: the header is outside the token budget, keep it short.
        cuts = result.truncation[:_CUTS_SHOWN] or ["the content is partial"]
        more = len(result.truncation) - _CUTS_SHOWN
        lines.append(
            "Truncated: " + "; ".join(cuts) + (f"; and {more} more cuts" if more > 0 else "")
        )
    if result.session:
        lines.append(f"Session: {result.session}")
    return "\n".join(lines)


def render_browse(result: BrowseResult, session: BrowserSession) -> list[Part]:
    """The header, a blank line, the content; then, when media came with files (or
    data), a line per item and the images themselves (a video's frames in order), at most
    :data:`_MAX_IMAGES` of them and :data:`MAX_INLINE_BYTES` in all."""
    parts: list[Part] = [Text(f"{_header(result)}\n\n{result.content}")]
    lines: list[str] = []
    images: list[Part] = []
    budget = MAX_INLINE_BYTES
    for number, item in enumerate(result.media, 1):
        where = item.url if not item.url.startswith("data:") else "(a data: URL)"
        alt = f' "{item.alt}"' if item.alt else ""
        if not item.files and item.data is None:
            if item.note:
                lines.append(f"[{number}] {item.kind} {where}{alt}: none ({item.note})")
            continue
        sources: list[bytes | str] = list(item.files) if item.files else [item.data or b""]
        if item.data is not None and item.files:
            sources[0] = item.data  # the image's WebP already read
        shown = 0
        for source in sources:
            if len(images) >= _MAX_IMAGES:
                break
            try:
                data = source if isinstance(source, bytes) else Path(source).read_bytes()
            except OSError:
                continue  # evicted meanwhile by another process
            if len(data) > budget:
                break
            budget -= len(data)
            images.append(Image(data, item.mime_type or "image/webp"))
            shown += 1
        size = f", {item.width}x{item.height}" if item.width and item.height else ""
        what = "frames" if item.kind == "video" else "image"
        lines.append(
            f"[{number}] {item.kind} {where}{alt}{size}: {shown} of {len(sources)} {what} shown"
            + (f" (files: {', '.join(item.files)})" if item.files else "")
        )
    if lines:
        parts.append(Text("Media, in the order of the images below:\n" + "\n".join(lines)))
    parts.extend(images)
    return parts


def render_links(result: BrowseResult, session: BrowserSession) -> list[Part]:
    if not result.links:
        return [Text(f"No links on {result.final_url}.")]
    lines = [f"{len(result.links)} links on {result.final_url}:"]
    for position, link in enumerate(result.links, 1):
        text = " ".join(link.text.split()) or "(no text)"
        lines.append(f"[{link.number or position}] {text} -> {link.url}")
    return [Text("\n".join(lines))]


def _form_data(form: Form) -> dict[str, Any]:
    return dataclasses.asdict(form)


def render_forms(result: BrowseResult, session: BrowserSession) -> list[Part]:
    if not result.forms:
        return [Text(f"No forms on {result.final_url}.")]
    return [
        Text(to_json({"url": result.final_url, "forms": [_form_data(f) for f in result.forms]}))
    ]


def render_plain(result: Any, session: BrowserSession) -> list[Part]:
    return [Text(result if isinstance(result, str) else to_json(result))]


# -- the specs ------------------------------------------------------------------------------------


def _engine_tool(
    name: str,
    function: Callable[..., Awaitable[Any]],
    render: Callable[[Any, BrowserSession], list[Part]],
    *,
    page_content: bool = True,
    read_only: bool = True,
    note: str = "",
) -> ToolSpec:
    """A tool calling ``function(engine, **arguments)`` on the server's engine; the URL
    policy is checked on ``url`` before and on where the page ended after."""
    doc = parse_docstring(function.__doc__)
    purpose, descriptions = TOOL_TEXT.get(name, (None, {}))
    model = input_model_of(name, function, doc, (), descriptions)

    async def run(session: BrowserSession, arguments: dict[str, Any]) -> list[Part]:
        policy = session.options.url_policy
        url = arguments.get("url")
        if isinstance(url, str):
            url = read_url(url)  # judged and fetched as the browser reads it
            policy.check(url, "Browsing")
            arguments = {**arguments, "url": url}
        # Tier 1's requests (and robots.txt) are cdpkit's own: each hop is held to the
        # policy before it is sent, so a redirect to a blocked origin is never followed.
        with checked_by(policy.refusal):
            result = await function(await session.engine(), **arguments)
        from .._browse import BrowseResult

        if isinstance(result, BrowseResult):
            reason = policy.refusal(result.final_url)
            if reason is not None:
                raise UrlBlockedError(
                    f"Browsing {result.url} ended at {result.final_url}, which is blocked: "
                    f"{reason}. Nothing from there is shown."
                )
        return render(result, session)

    return ToolSpec(
        name=name,
        description=describe(doc, page_content=page_content, note=note, purpose=purpose),
        input_model=model,
        run=run,
        read_only=read_only,
    )


def browse_tools(policy_note: str = "") -> list[ToolSpec]:
    """The tools of the light path, ``browse`` first."""
    return [
        _engine_tool("browse", browse, render_browse, note=policy_note),
        _engine_tool("get_links", get_links, render_links, note=policy_note),
        _engine_tool("get_forms", get_forms, render_forms, note=policy_note),
        _engine_tool("session_list", session_list, render_plain, page_content=False),
        _engine_tool(
            "session_close", session_close, render_plain, page_content=False, read_only=False
        ),
    ]
