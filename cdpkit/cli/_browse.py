"""``cdpkit browse URL``: the content of a page, fetched over HTTP first and in Chrome
only when the page needs it (see :func:`cdpkit.browse`).

The browser, when a page needs one, is launched or attached as the shared browser
options say (``--connect``, ``--grid``, ``--headful``...), and only then. A run's work on
one URL is :func:`_browse_one`, so other ways of running it (several URLs) reuse it.
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Unpack

import typer

from .._browser.settings import BrowserSettings
from .._front.browser_options import CLIError, start_browser
from .._front.cli_common import normalize_url, run
from .._front.options import OPTIONS
from ._browse_batch import BatchOption, ConcurrencyOption, check_batch, run_batch
from ._params import (
    DebugOption,
    EngineFlags,
    launch_options,
    typer_option,
    with_browser,
)

if TYPE_CHECKING:
    from .._browse import BrowseResult, Engine
    from .._front.browser_options import BrowserOptions
    from ..browser import Browser


class BrowseFormat(enum.StrEnum):
    """Formats of ``cdpkit browse``."""

    markdown = "markdown"
    text = "text"
    json = "json"
    a11y = "a11y"
    links = "links"


class KeywordMode(enum.StrEnum):
    """How ``--keyword`` values combine."""

    any = "any"
    all = "all"


class LinkStyle(enum.StrEnum):
    """How links appear in markdown."""

    inline = "inline"
    numbered = "numbered"
    none = "none"


def browse_call_options(
    *,
    output_format: str | None,
    selector: list[str] | None,
    exclude: list[str] | None,
    keyword: list[str] | None,
    keyword_mode: str,
    query: str | None,
    max_tokens: int | None,
    readability: bool | None,
    tier: int | None,
    max_tier: int | None,
    link_style: str | None,
    include_media: bool | None,
    timeout: float | None,
) -> dict[str, Any]:
    """The keyword arguments of :meth:`Engine.browse` the command-line values say
    (``None``: the config file's value)."""
    return {
        "format": output_format,
        "selectors": selector or None,
        "exclude_selectors": exclude or None,
        "keywords": keyword or None,
        "keyword_mode": keyword_mode,
        "query": query,
        "max_tokens": max_tokens,
        "readability": readability,
        "tier": tier,
        "max_tier": max_tier,
        "link_style": link_style,
        "include_media": include_media,
        "timeout": timeout,
    }


def browser_factory(options: BrowserOptions) -> Any:
    """An async callable giving the browser the shared options describe, for
    ``engine(browser_factory=...)``: nothing starts until a page needs it."""

    async def make() -> Browser:
        return await start_browser(options)

    return make


async def _browse_one(
    engine: Engine, url: str, call: Mapping[str, Any], *, session: str | None = None
) -> BrowseResult:
    """Browse one URL with the command's options in ``engine`` (``session``: a named,
    persistent session)."""
    return await engine.browse(url, session=session, persist=True if session else None, **call)


def render_result(result: BrowseResult, *, as_json: bool) -> str:
    """What the command prints: the content (ending with a newline), or the whole result
    as JSON with ``--json``."""
    if as_json:
        return json.dumps(result.to_dict(), ensure_ascii=False) + "\n"
    text = result.content
    text = text if text.endswith("\n") or not text else text + "\n"
    return text + media_lines(result)


def media_lines(result: BrowseResult) -> str:
    """After the content, with ``--download-media``: each image's and video's cached
    files (or why it has none), a line each; empty when nothing was downloaded."""
    lines: list[str] = []
    for item in result.media:
        where = item.url if not item.url.startswith("data:") else "(data: URL)"
        if item.files:
            size = f" {item.width}x{item.height}" if item.width and item.height else ""
            lines.append(f"- {item.kind}{size} {where} -> {' '.join(item.files)}")
        elif item.note:
            lines.append(f"- {item.kind} {where}: none ({item.note})")
    return "\n## Media files\n\n" + "\n".join(lines) + "\n" if lines else ""


_UrlOption = Annotated[
    str | None,
    typer.Argument(
        metavar="URL",
        help="A URL, a host name (https:// is added) or a local HTML file; or --batch FILE.",
        show_default=False,
    ),
]

_OutputFormatOption = Annotated[
    BrowseFormat | None,
    typer.Option(
        "--format",
        case_sensitive=False,
        help="markdown (default), text, json (structured), a11y (accessibility tree) or links.",
        show_default=False,
    ),
]

_SelectorOption = Annotated[
    list[str] | None,
    typer.Option("--selector", metavar="CSS", help="Keep only what this matches (repeatable)."),
]

_ExcludeOption = Annotated[
    list[str] | None,
    typer.Option("--exclude", metavar="CSS", help="Drop what this matches (repeatable)."),
]

_KeywordOption = Annotated[
    list[str] | None,
    typer.Option("--keyword", metavar="WORD", help="Keep blocks mentioning it (repeatable)."),
]

_KeywordModeOption = Annotated[
    KeywordMode, typer.Option("--keyword-mode", case_sensitive=False, help="any or all of the keywords.")
]

_QueryOption = Annotated[
    str | None, typer.Option("--query", metavar="TEXT", help="Rank blocks by relevance to this.")
]

_MaxTokensOption = Annotated[
    int | None, typer.Option("--max-tokens", min=1, help="Budget for the content (chars/4).")
]

_ReadabilityOption = Annotated[
    bool | None,
    typer.Option("--readability/--no-readability", help="Keep only the main content.", show_default=False),
]

_TierOption = Annotated[
    int | None,
    typer.Option("--tier", min=1, max=3, help="Use exactly this tier: 1 HTTP, 2 light Chrome, 3 full Chrome."),
]

_MaxTierOption = Annotated[
    int | None, typer.Option("--max-tier", min=1, max=3, help="Escalate at most to this tier (default 3).")
]

_SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="NAME",
        help="A named session: its cookies are saved when the command ends and sent next time.",
    ),
]

_LinkStyleOption = Annotated[
    LinkStyle | None,
    typer.Option("--link-style", case_sensitive=False, help="inline (default), numbered or none.",
                 show_default=False),
]

_DownloadMediaOption = Annotated[
    bool | None,
    typer.Option(
        *(f"{flag}/--no-{flag.removeprefix('--')}" for flag in OPTIONS["download_media"].flags),
        help=OPTIONS["download_media"].help,
        show_default=False,
    ),
]

_TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="For the whole page, all tiers together (default 30, or the config's [network] timeout).",
        show_default=False,
    ),
]

_RespectRobotsOption = Annotated[
    bool,
    typer.Option(
        "--respect-robots",
        help="Refuse URLs the site's robots.txt disallows for the user agent ([privacy] respect_robots_txt).",
    ),
]


@with_browser("connect grid header headful profile chrome_arg viewport script_timeout batch")
def browse(
    url: _UrlOption = None,
    output_format: _OutputFormatOption = None,
    selector: _SelectorOption = None,
    exclude: _ExcludeOption = None,
    keyword: _KeywordOption = None,
    keyword_mode: _KeywordModeOption = KeywordMode.any,
    query: _QueryOption = None,
    max_tokens: _MaxTokensOption = None,
    readability: _ReadabilityOption = None,
    tier: _TierOption = None,
    max_tier: _MaxTierOption = None,
    session: _SessionOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    link_style: _LinkStyleOption = None,
    download_media: _DownloadMediaOption = None,
    video_frames: Annotated[int | None, typer_option("video_frames")] = None,
    timeout: _TimeoutOption = None,
    batch: BatchOption = None,
    concurrency: ConcurrencyOption = 4,
    respect_robots: _RespectRobotsOption = False,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[EngineFlags],
) -> None:
    """Print what a page says, fetched over HTTP first and in Chrome only if it needs
    JavaScript (the tier used and why are in --json). Failures print one line with the
    error's code and what to do, and exit 1. With --batch FILE instead of a URL: many
    pages at once, one JSON line each. The identity options (--user-agent, --locale,
    --proxy, --extra-header...) hold for every tier: the HTTP fetch and the browser."""
    if timeout is not None and not timeout > 0:
        raise CLIError(f"Invalid --timeout {timeout:g}: give a positive number of seconds", 2)
    options = launch_options(flags, settings, timeout=timeout or 30.0)
    check_batch(url, batch, concurrency)
    target = normalize_url(url) if url is not None else ""
    call = browse_call_options(
        output_format=output_format.value if output_format is not None else None,
        selector=selector,
        exclude=exclude,
        keyword=keyword,
        keyword_mode=keyword_mode.value,
        query=query,
        max_tokens=max_tokens,
        readability=readability,
        tier=tier,
        max_tier=max_tier,
        link_style=link_style.value if link_style is not None else None,
        include_media=download_media,
        timeout=timeout,
    )
    # Browser flags win over the config file's [browser] table; without any, the engine
    # launches or attaches as the config says.
    given = any(value for name, value in flags.items() if name != "script_timeout")
    media = {"video_frames": video_frames} if video_frames is not None else {}
    script_timeout = flags["script_timeout"]
    browser = {"script_timeout": script_timeout} if script_timeout is not None else {}
    engine = _engine(
        options if given else None, settings, respect_robots=respect_robots, media=media, browser=browser
    )
    if batch is not None:
        run_batch(
            batch, engine=engine, browse_one=_browse_one, call=call, concurrency=concurrency,
            session=session, debug=debug,
        )
        return

    async def work() -> None:
        async with engine:
            try:
                result = await _browse_one(engine, target, call, session=session)
            except ValueError as exc:
                raise CLIError(str(exc), 2) from None
        sys.stdout.write(render_result(result, as_json=as_json))

    run(work, debug=debug)


def _engine(
    options: BrowserOptions | None,
    settings: BrowserSettings | None,
    *,
    respect_robots: bool,
    media: Mapping[str, Any] | None = None,
    browser: Mapping[str, Any] | None = None,
) -> Engine:
    """The command's engine (the config file read and checked, nothing started): the
    identity options over the config's, ``--respect-robots`` over ``[privacy]``, the
    media options over ``[media]``, ``--script-timeout`` over ``[browser]``."""
    from .._browse import Engine

    tables: dict[str, Any] = {"privacy": {"respect_robots_txt": True}} if respect_robots else {}
    if media:
        tables["media"] = dict(media)
    if browser:
        tables["browser"] = dict(browser)
    try:
        engine = Engine(
            tables, browser_factory=browser_factory(options) if options is not None else None, settings=settings
        )
    except ValueError as exc:  # the config file: names the file, table and key
        raise CLIError(str(exc), 2) from None
    if options is None:  # the config's browser: a running daemon's when it is the daemon's kind
        from .._daemon import daemon_first

        engine = Engine(tables, browser_factory=daemon_first(engine), settings=settings)
    return engine

