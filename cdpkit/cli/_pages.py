"""The commands that work on a page: ``repl``, ``screenshot``, ``pdf``, ``snapshot``,
``scrape`` and ``eval``.
"""

from __future__ import annotations

import enum
import json
import sys
from typing import Annotated, Any, Unpack

import typer

from .._browser.settings import BrowserSettings
from .._front.browser_options import CLIError, debug_wanted, open_page
from .._front.cli_common import (
    content_wait,
    human_size,
    load_page,
    naming_stalled_scripts,
    normalize_url,
    note_status,
    run,
)
from ._params import (
    BrowserFlags,
    DebugOption,
    HarOption,
    UrlArgument,
    WaitOption,
    check_output_file,
    launch_options,
    with_browser,
    write_output,
)


@with_browser("connect grid header headful pipe profile chrome_arg viewport wait_ms timeout script_timeout")
def repl(
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page first.", show_default=False),
    ] = None,
    pipe: Annotated[
        bool, typer.Option("--pipe", help="Talk to the launched browser over a pipe, not a port.")
    ] = False,
    wait_ms: WaitOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """A Python console on a live page: top-level await; cdpkit, cdp, tools, browser and
    page preloaded; raw lines like `Page.navigate url=https://example.com`; :help lists
    the rest. Reads a script from stdin when it is not a terminal. The page opened
    first, and by `:tab new URL` or `:goto URL`, is waited on as --wait says (and gives
    up its stalled scripts as --script-timeout says)."""
    from .. import repl as repl_module

    options = launch_options(flags, settings, pipe=pipe)
    start_url = normalize_url(url) if url is not None else None
    raise typer.Exit(
        repl_module.run(
            options, start_url, wait_ms=wait_ms, script_timeout=flags["script_timeout"] or None,
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


@with_browser("connect grid header har headful profile chrome_arg viewport script_timeout timeout")
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
    har: HarOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Save a screenshot of a page, once its content has settled."""
    options = launch_options(flags, settings)
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
            await load_page(
                page, address, flags["timeout"], wait_ms, script_timeout=flags["script_timeout"]
            )
            data = await take_screenshot(
                page, full_page=full_page, format=fmt, quality=quality, **target  # type: ignore[arg-type]
            )
        where = write_output(data, destination)
        if where != "stdout":
            print(f"Saved {where} ({fmt}, {human_size(len(data))})")

    run(work, debug=debug)


@with_browser("connect grid header har profile chrome_arg viewport script_timeout timeout")
def pdf(
    url: UrlArgument,
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FILE", help="Where to save it ('-' for stdout)."),
    ] = "page.pdf",
    wait_ms: WaitOption = None,
    har: HarOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Save a page as PDF (as printed, with its print styles), once its content has
    settled. Headless only: Chrome prints to PDF without a window."""
    options = launch_options(flags, settings)
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)
    check_output_file(output, {".pdf": "pdf"}, what="PDF")

    async def work() -> None:
        from ..tools import pdf as print_pdf

        async with open_page(options, har=har) as page:
            await load_page(
                page, target, flags["timeout"], wait_ms, script_timeout=flags["script_timeout"]
            )
            data = await print_pdf(page)
        where = write_output(data, output)
        if where != "stdout":
            print(f"Saved {where} (pdf, {human_size(len(data))})")

    run(work, debug=debug)


class SnapshotEngine(enum.StrEnum):
    """Engines of ``cdpkit snapshot`` (``tools.snapshot``'s ``engine``)."""

    page = "page"
    chrome = "chrome"


@with_browser("connect grid header har headful profile chrome_arg viewport script_timeout timeout")
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
    har: HarOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Print a page's accessibility snapshot once its content has settled: one line per
    node, `[index] role "name" @(x,y,w,h)`."""
    options = launch_options(flags, settings)
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)

    async def work() -> None:
        from ..tools import snapshot as take_snapshot

        async with open_page(options, har=har) as page:
            await load_page(
                page, target, flags["timeout"], wait_ms, script_timeout=flags["script_timeout"]
            )
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


@with_browser("connect grid header har headful profile chrome_arg viewport script_timeout timeout")
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
    har: HarOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Print a page's content as markdown, its links, or its text, once it has settled. A
    URL that is a media file (image, video, audio, PDF) is saved with -o instead; other
    files (CSV, ZIP...) are for `cdpkit download`."""
    options = launch_options(flags, settings)
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
                with naming_stalled_scripts():
                    result = await do_scrape(
                        page, target, format=output_format.value, selector=selector, max_chars=max_chars,
                        wait_for_ms=wait_ms, smart_wait=content_wait(flags["timeout"], flags["script_timeout"]),
                        timeout=flags["timeout"],
                    )  # fmt: skip
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


@with_browser("connect grid header har headful profile chrome_arg viewport script_timeout timeout")
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
    har: HarOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Evaluate JavaScript in a page once its content has settled and print the result
    (strings as they are, anything else as JSON)."""
    options = launch_options(flags, settings)
    target = normalize_url(url)
    if har is not None:
        check_output_file(har)

    async def work() -> None:
        from ..tools import evaluate

        async with open_page(options, har=har) as page:
            await load_page(
                page, target, flags["timeout"], wait_ms, script_timeout=flags["script_timeout"]
            )
            value = await evaluate(page, expression)
        if isinstance(value, str):
            print(value)
        else:
            print(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    run(work, debug=debug)
