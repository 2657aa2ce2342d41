"""The commands that work on a page: ``repl``, ``screenshot``, ``pdf``, ``snapshot``,
``scrape`` and ``eval``.
"""

from __future__ import annotations

import enum
import json
import sys
from typing import Annotated, Any

import typer

from .._browser_options import CLIError, browser_options, debug_wanted, open_page
from .._cli_common import content_wait, human_size, load_page, normalize_url, note_status, run
from .._settings import BrowserSettings
from ._params import (
    ChromeArgOption,
    ConnectOption,
    DebugOption,
    GridOption,
    HarOption,
    HeaderOption,
    HeadfulOption,
    ProfileOption,
    ScriptTimeoutOption,
    TimeoutOption,
    UrlArgument,
    ViewportOption,
    WaitOption,
    check_output_file,
    write_output,
)


def repl(
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page first.", show_default=False),
    ] = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    headful: HeadfulOption = False,
    pipe: Annotated[
        bool, typer.Option("--pipe", help="Talk to the launched browser over a pipe, not a port.")
    ] = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    wait_ms: WaitOption = None,
    timeout: TimeoutOption = 30.0,
    script_timeout: ScriptTimeoutOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """A Python console on a live page: top-level await; cdpkit, cdp, tools, browser and
    page preloaded; raw lines like `Page.navigate url=https://example.com`; :help lists
    the rest. Reads a script from stdin when it is not a terminal. The page opened
    first, and by `:tab new URL` or `:goto URL`, is waited on as --wait says (and gives
    up its stalled scripts as --script-timeout says)."""
    from .. import repl as repl_module

    options = browser_options(
        connect, headful, profile, chrome_arg, timeout, pipe, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    start_url = normalize_url(url) if url is not None else None
    raise typer.Exit(
        repl_module.run(
            options, start_url, wait_ms=wait_ms, script_timeout=script_timeout or None,
            debug=debug_wanted(debug),
        )
    )


# -- one-shot commands ------------------------------------------------------------------------


class ImageFormat(enum.StrEnum):
    """Screenshot formats."""

    png = "png"
    jpeg = "jpeg"
    webp = "webp"


_EXTENSION_FORMATS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}


def _element_target(element: str | None, selector: str | None) -> dict[str, Any]:
    """The keywords of ``--element TARGET`` (``role=button name="Join"``...) or ``--selector``."""
    if element is None:
        return {"selector": selector} if selector is not None else {}
    if selector is not None:
        raise CLIError("Give --element or --selector, not both", 2)
    from ..tools import parse_target

    try:
        target, others = parse_target(element)
    except ValueError as exc:
        raise CLIError(f"--element: {exc}", 2) from None
    if others or not target or {"index", "x", "y"} & set(target):
        raise CLIError(
            "--element takes key=value words: role= (with name=), text=, label= or selector= "
            "(exact=false, timeout=S)", 2,
        )
    return target


def screenshot(
    url: UrlArgument,
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Where to save the image ('-' for stdout). Default: screenshot.png (or .jpeg, .webp).",
        ),
    ] = None,
    full_page: Annotated[
        bool, typer.Option("--full-page", help="The whole scrollable page, not just the viewport.")
    ] = False,
    image_format: Annotated[
        ImageFormat | None,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="Image format. Default: from the -o extension, else png.",
        ),
    ] = None,
    quality: Annotated[
        int | None, typer.Option("--quality", min=0, max=100, help="0-100, for jpeg and webp.")
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the first element matching this."),
    ] = None,
    element: Annotated[
        str | None,
        typer.Option(
            "--element",
            metavar="TARGET",
            help="Only this element, found as the REPL's :click finds it: key=value words, "
            "e.g. 'role=button name=\"Join\"', 'label=Email', 'text=\"Sign in\"'.",
        ),
    ] = None,
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    har: HarOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    script_timeout: ScriptTimeoutOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """Save a screenshot of a page, once its content has settled."""
    options = browser_options(
        connect, headful, profile, chrome_arg, timeout, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    address = normalize_url(url)
    if har is not None:
        check_output_file(har)
    named = check_output_file(output, _EXTENSION_FORMATS, what="screenshot") if output else None
    if image_format is not None and named is not None and named != image_format.value:
        raise CLIError(f"-o {output} names a {named} file but --format is {image_format.value}", 2)
    fmt = image_format.value if image_format is not None else named or "png"
    destination = output if output is not None else f"screenshot.{fmt}"
    check_output_file(destination)
    target = _element_target(element, selector)

    async def work() -> None:
        from ..tools import screenshot as take_screenshot

        async with open_page(options, har=har) as page:
            await load_page(page, address, timeout, wait_ms, script_timeout=script_timeout)
            data = await take_screenshot(
                page, full_page=full_page, format=fmt, quality=quality, **target  # type: ignore[arg-type]
            )
        where = write_output(data, destination)
        if where != "stdout":
            print(f"Saved {where} ({fmt}, {human_size(len(data))})")

    run(work, debug=debug)


def pdf(
    url: UrlArgument,
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FILE", help="Where to save it ('-' for stdout)."),
    ] = "page.pdf",
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    har: HarOption = None,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    script_timeout: ScriptTimeoutOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """Save a page as PDF (as printed, with its print styles), once its content has
    settled. Headless only: Chrome prints to PDF without a window."""
    options = browser_options(
        connect, False, profile, chrome_arg, timeout, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)
    check_output_file(output, {".pdf": "pdf"}, what="PDF")

    async def work() -> None:
        from ..tools import pdf as print_pdf

        async with open_page(options, har=har) as page:
            await load_page(page, target, timeout, wait_ms, script_timeout=script_timeout)
            data = await print_pdf(page)
        where = write_output(data, output)
        if where != "stdout":
            print(f"Saved {where} (pdf, {human_size(len(data))})")

    run(work, debug=debug)


class SnapshotEngine(enum.StrEnum):
    """Engines of ``cdpkit snapshot`` (``tools.snapshot``'s ``engine``)."""

    page = "page"
    chrome = "chrome"


def snapshot(
    url: UrlArgument,
    interactive_only: Annotated[
        bool,
        typer.Option("-i", "--interactive-only", help="Only links, buttons, fields and other controls."),
    ] = False,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the subtree of this element."),
    ] = None,
    depth: Annotated[
        int | None,
        typer.Option(
            "--depth", "--max-depth", min=0, help="Only nodes at most this deep (0: the top)."
        ),
    ] = None,
    max_chars: Annotated[
        int | None,
        typer.Option(
            "--max-chars",
            min=0,
            help="Fit the outline in this many characters: whole subtrees are cut, each "
            "leaving one line with its index (see it with --selector or a scoped snapshot).",
        ),
    ] = None,
    engine: Annotated[
        SnapshotEngine,
        typer.Option(
            "--engine",
            help="page: computed in the page (fast); chrome: from Chrome's accessibility tree.",
        ),
    ] = SnapshotEngine.page,
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    har: HarOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    script_timeout: ScriptTimeoutOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """Print a page's accessibility snapshot once its content has settled: one line per
    node, `[index] role "name" @(x,y,w,h)`."""
    options = browser_options(
        connect, headful, profile, chrome_arg, timeout, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)

    async def work() -> None:
        from ..tools import snapshot as take_snapshot

        async with open_page(options, har=har) as page:
            await load_page(page, target, timeout, wait_ms, script_timeout=script_timeout)
            result = await take_snapshot(
                page,
                interactive_only=interactive_only,
                selector=selector,
                depth=depth,
                max_chars=max_chars,
                engine=engine.value,
            )
        if result.text:
            print(result.text)

    run(work, debug=debug)


class ScrapeFormat(enum.StrEnum):
    """Formats of ``cdpkit scrape``."""

    markdown = "markdown"
    links = "links"
    text = "text"


def scrape(
    url: UrlArgument,
    output_format: Annotated[
        ScrapeFormat,
        typer.Option("--format", case_sensitive=False, help="markdown, links (URL<TAB>text) or text."),
    ] = ScrapeFormat.markdown,
    selector: Annotated[
        str | None,
        typer.Option("--selector", metavar="CSS", help="Only the first element matching this."),
    ] = None,
    max_chars: Annotated[
        int | None, typer.Option("--max-chars", min=0, help="Cut the content to this length.")
    ] = None,
    wait_ms: WaitOption = None,
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout."),
    ] = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    har: HarOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    script_timeout: ScriptTimeoutOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """Print a page's content as markdown, its links, or its text, once it has settled. A
    URL that is a media file (image, video, audio, PDF) is saved with -o instead; other
    files (CSV, ZIP...) are for `cdpkit download`."""
    options = browser_options(
        connect, headful, profile, chrome_arg, timeout, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)
    if output is not None:
        check_output_file(output)

    async def work() -> None:
        from ..tools import scrape as do_scrape
        from ..tools.scraping import NotAPageError

        async with open_page(options, har=har) as page:
            try:
                result = await do_scrape(
                    page,
                    target,
                    format=output_format.value,
                    selector=selector,
                    max_chars=max_chars,
                    wait_for_ms=wait_ms,
                    smart_wait=content_wait(timeout, script_timeout),
                    timeout=timeout,
                )
            except NotAPageError as exc:
                raise CLIError(
                    f"{target} is a file ({exc.mime_type}), not a page: save it with "
                    f"`cdpkit download {url}`"
                ) from None
        note_status(result.status)
        if result.format == "media":
            assert result.data is not None
            if output is None:
                raise CLIError(
                    f"{target} is a media file ({result.mime_type}, {human_size(len(result.data))}): "
                    "save it with -o FILE or `cdpkit download`"
                )
            where = write_output(result.data, output)
            if where != "stdout":
                print(f"Saved {where} ({result.mime_type}, {human_size(len(result.data))})")
            return
        if result.format == "links":
            text = "".join(f"{link.url}\t{link.text}\n" for link in result.links)
        else:
            text = result.content or ""
            if text and not text.endswith("\n"):
                text += "\n"
        if output is None:
            sys.stdout.write(text)
        else:
            write_output(text.encode(), output)

    run(work, debug=debug)


def eval_(
    url: UrlArgument,
    expression: Annotated[
        str,
        typer.Argument(
            metavar="EXPR",
            help="JavaScript; the value of the last statement is printed (top-level await works).",
            show_default=False,
        ),
    ],
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    grid: GridOption = None,
    header: HeaderOption = None,
    har: HarOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    script_timeout: ScriptTimeoutOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
) -> None:
    """Evaluate JavaScript in a page once its content has settled and print the result
    (strings as they are, anything else as JSON)."""
    options = browser_options(
        connect, headful, profile, chrome_arg, timeout, viewport=viewport, grid=grid, header=header,
        settings=settings,
    )
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)

    async def work() -> None:
        from ..tools import evaluate

        async with open_page(options, har=har) as page:
            await load_page(page, target, timeout, wait_ms, script_timeout=script_timeout)
            value = await evaluate(page, expression)
        if isinstance(value, str):
            print(value)
        else:
            print(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    run(work, debug=debug)
