"""The ``cdpkit`` command: a REPL on a live page, one-shot commands, and tools around the
generated bindings.

::

    cdpkit repl [URL]                    Python with top-level await, plus raw CDP lines
    cdpkit screenshot URL [-o FILE]      cdpkit snapshot URL        cdpkit eval URL EXPR
    cdpkit pdf URL [-o FILE]             cdpkit scrape URL [--format ...]
    cdpkit download URL [--dir DIR]
    cdpkit protocol [Domain[.item]]      cdpkit gen [--check]       cdpkit doctor
    cdpkit launch                        cdpkit open-browser --profile NAME

Every command that drives a browser launches a headless one (``--headful`` shows it,
``--profile NAME`` uses a persistent profile) or attaches to a running one with
``--connect http://127.0.0.1:PORT`` (or just ``--connect PORT``). Commands that load a
page wait for its content to settle before working on it (``--wait MS`` waits a fixed
time instead, ``--wait 0`` not at all). Exit status: 0 on success; 1 on failure, with one
line ``error: ...`` on stderr (``--debug`` or ``CDPKIT_DEBUG=1`` prints the traceback
instead); 2 for a bad command line, URL or output file; 130 when interrupted by Ctrl-C.

``import cdpkit`` never imports this module (nor typer): only the command does.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import math
import os
import signal
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ._cli_common import (
    TERMINATING_SIGNALS,
    BrowserOptions,
    CLIError,
    _debug_wanted,
    _has_display,
    _human_size,
    _load,
    _note_status,
    _options,
    content_wait,
    error_line,
    normalize_url,
    open_browser,
    open_page,
    report_error,
    run,
)
from ._protocol_docs import describe_protocol
from .errors import CDPError

if TYPE_CHECKING:
    from .browser import Browser
    from .page import Page

__all__ = ["BrowserOptions", "CLIError", "app", "main", "normalize_url", "open_browser"]

T = TypeVar("T")

app = typer.Typer(
    name="cdpkit",
    help=(
        "Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, "
        "one-shot commands, and the protocol's bindings."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        import cdpkit

        print(f"cdpkit {cdpkit.__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Drive Chromium over the Chrome DevTools Protocol: a REPL on a live page, one-shot
    commands, and the protocol's bindings. Failures print one line (`error: ...`) and exit
    with status 1; --debug on any command shows the traceback."""


# -- common options -------------------------------------------------------------------------

ConnectOption = Annotated[
    str | None,
    typer.Option(
        "--connect",
        metavar="ENDPOINT",
        help="Attach to a running browser (http://127.0.0.1:PORT, just PORT, or its ws:// URL) "
        "instead of launching one; it is left running.",
    ),
]
HeadfulOption = Annotated[
    bool, typer.Option("--headful", help="Launch the browser with a window (default headless).")
]
ProfileOption = Annotated[
    str | None,
    typer.Option(
        "--profile",
        metavar="NAME",
        help="Launch on the persistent profile NAME (e.g. one logged in with "
        "`cdpkit open-browser --profile NAME`).",
    ),
]
ChromeArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--chrome-arg",
        metavar="FLAG",
        help="An extra Chrome flag, repeatable; write it with '=': --chrome-arg=--lang=fr.",
    ),
]
ViewportOption = Annotated[
    str | None,
    typer.Option(
        "--viewport",
        metavar="WxH",
        help="The page size of a launched browser in CSS pixels, e.g. 1920x1080 "
        "(default 1280x720).",
        show_default=False,
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        metavar="SECONDS",
        help="Seconds allowed to start the browser, load the page and answer each command.",
    ),
]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="On failure, print the full traceback.")
]
WaitOption = Annotated[
    int | None,
    typer.Option(
        "--wait",
        metavar="MS",
        min=0,
        help="After loading, wait exactly MS milliseconds (0: not at all) instead of waiting "
        "until the page's content stops changing.",
        show_default=False,
    ),
]
UrlArgument = Annotated[
    str,
    typer.Argument(
        metavar="URL",
        help="A URL, a host name (https:// is added) or a local HTML file.",
        show_default=False,
    ),
]




def check_output_file(output: str, formats: dict[str, str] | None = None, *, what: str = "") -> str | None:
    """Check, before any browser starts, that ``output`` (``-o``) can be written.

    Args:
        output: The file, or ``-`` for stdout.
        formats: Extension -> format this command can write (e.g. ``{".png": "png"}``);
            ``None`` accepts any name.
        what: What the command writes, for the message (``"screenshot"``).

    Returns:
        The format ``output``'s extension names, ``None`` if it has none (or for stdout).

    Raises:
        CLIError: The directory is missing or not writable, ``output`` is a directory,
            or its extension names a format the command cannot write (exit status 2).
    """
    if output == "-":
        return None
    path = Path(output).expanduser()
    if path.is_dir():
        raise CLIError(f"Cannot write {output}: it is a directory (give a file name in it)", 2)
    parent = path.parent
    if not parent.exists():
        raise CLIError(f"Cannot write {output}: the directory {parent} does not exist", 2)
    if not parent.is_dir():
        raise CLIError(f"Cannot write {output}: {parent} is not a directory", 2)
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CLIError(f"Cannot write {output}: permission denied", 2)
    suffix = path.suffix.lower()
    if formats is None or not suffix:
        return None
    if suffix not in formats:
        names = ", ".join(sorted(formats))
        raise CLIError(f"Cannot write a {what} as {suffix} (supported: {names})", 2)
    return formats[suffix]


def check_output_dir(directory: Path) -> None:
    """Check, before any browser starts, that files can be saved into ``directory``
    (``--dir``): it is a writable directory, or one that can be created.

    Raises:
        CLIError: It is a file, or it cannot be written or created (exit status 2).
    """
    path = directory.expanduser()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise CLIError(f"Cannot save into {directory}: {existing} is a file, not a directory", 2)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise CLIError(f"Cannot save into {directory}: permission denied on {existing}", 2)


def _write_output(data: bytes, output: str) -> str:
    """Write ``data`` to a file, or to stdout for ``-``; what to call it in messages."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "stdout"
    path = Path(output).expanduser()
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise CLIError(f"Could not write {output}: {exc.strerror or exc}") from None
    return str(path)


# -- repl ----------------------------------------------------------------------------------


@app.command()
def repl(
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page first.", show_default=False),
    ] = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    pipe: Annotated[
        bool, typer.Option("--pipe", help="Talk to the launched browser over a pipe, not a port.")
    ] = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    wait_ms: WaitOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """A Python console on a live page: top-level await; cdpkit, cdp, tools, browser and
    page preloaded; raw lines like `Page.navigate url=https://example.com`; :help lists
    the rest. Reads a script from stdin when it is not a terminal. The page opened
    first, and by `:tab new URL` or `:goto URL`, is waited on as --wait says."""
    from . import repl as repl_module

    options = _options(connect, headful, profile, chrome_arg, timeout, pipe, viewport=viewport)
    start_url = normalize_url(url) if url is not None else None
    raise typer.Exit(
        repl_module.run(options, start_url, wait_ms=wait_ms, debug=_debug_wanted(debug))
    )


# -- one-shot commands ------------------------------------------------------------------------


class ImageFormat(enum.StrEnum):
    """Screenshot formats."""

    png = "png"
    jpeg = "jpeg"
    webp = "webp"


_EXTENSION_FORMATS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}


@app.command()
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
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Save a screenshot of a page, once its content has settled."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    named = check_output_file(output, _EXTENSION_FORMATS, what="screenshot") if output else None
    if image_format is not None and named is not None and named != image_format.value:
        raise CLIError(f"-o {output} names a {named} file but --format is {image_format.value}", 2)
    fmt = image_format.value if image_format is not None else named or "png"
    destination = output if output is not None else f"screenshot.{fmt}"
    check_output_file(destination)

    async def work() -> None:
        from .tools import screenshot as take_screenshot

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            data = await take_screenshot(
                page, full_page=full_page, format=fmt, quality=quality, selector=selector  # type: ignore[arg-type]
            )
        where = _write_output(data, destination)
        if where != "stdout":
            print(f"Saved {where} ({fmt}, {_human_size(len(data))})")

    run(work, debug=debug)


@app.command()
def pdf(
    url: UrlArgument,
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FILE", help="Where to save it ('-' for stdout)."),
    ] = "page.pdf",
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Save a page as PDF (as printed, with its print styles), once its content has
    settled. Headless only: Chrome prints to PDF without a window."""
    options = _options(connect, False, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    check_output_file(output, {".pdf": "pdf"}, what="PDF")

    async def work() -> None:
        from .tools import pdf as print_pdf

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            data = await print_pdf(page)
        where = _write_output(data, output)
        if where != "stdout":
            print(f"Saved {where} (pdf, {_human_size(len(data))})")

    run(work, debug=debug)


@app.command()
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
    max_depth: Annotated[
        int | None, typer.Option("--max-depth", min=0, help="Only nodes at most this deep.")
    ] = None,
    wait_ms: WaitOption = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Print a page's accessibility snapshot once its content has settled: one line per
    node, `[index] role "name" @(x,y,w,h)`."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)

    async def work() -> None:
        from .tools import snapshot as take_snapshot

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            result = await take_snapshot(
                page, interactive_only=interactive_only, selector=selector, max_depth=max_depth
            )
        if result.text:
            print(result.text)

    run(work, debug=debug)


class ScrapeFormat(enum.StrEnum):
    """Formats of ``cdpkit scrape``."""

    markdown = "markdown"
    links = "links"
    text = "text"


@app.command()
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
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Print a page's content as markdown, its links, or its text, once it has settled. A
    URL that is a media file (image, video, audio, PDF) is saved with -o instead; other
    files (CSV, ZIP...) are for `cdpkit download`."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    if output is not None:
        check_output_file(output)

    async def work() -> None:
        from .tools import scrape as do_scrape
        from .tools.scraping import NotAPageError

        async with open_page(options) as page:
            try:
                result = await do_scrape(
                    page,
                    target,
                    format=output_format.value,
                    selector=selector,
                    max_chars=max_chars,
                    wait_for_ms=wait_ms,
                    smart_wait=content_wait(timeout),
                    timeout=timeout,
                )
            except NotAPageError as exc:
                raise CLIError(
                    f"{target} is a file ({exc.mime_type}), not a page: save it with "
                    f"`cdpkit download {url}`"
                ) from None
        _note_status(result.status)
        if result.format == "media":
            assert result.data is not None
            if output is None:
                raise CLIError(
                    f"{target} is a media file ({result.mime_type}, {_human_size(len(result.data))}): "
                    "save it with -o FILE or `cdpkit download`"
                )
            where = _write_output(result.data, output)
            if where != "stdout":
                print(f"Saved {where} ({result.mime_type}, {_human_size(len(result.data))})")
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
            _write_output(text.encode(), output)

    run(work, debug=debug)


async def _watch_part_file(
    page: Page, directory: Path, url: str | None, started: float, stop: asyncio.Event
) -> None:
    """Show a progress bar on stderr while a download's ``.part`` file grows (after half a
    second, so small files show nothing). The total comes from the response's
    Content-Length when the page's request for ``url`` shows it.

    ``download()`` reports no progress itself: this watches the hidden
    ``.cdpkit-*.part`` file it streams into (see :mod:`cdpkit.tools.files`)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    total: list[int] = []

    async def find_total() -> None:
        async with page.listen("Fetch.requestPaused", raw=True) as events:
            async for event in events:
                params = event.params
                if url is not None and params.get("request", {}).get("url") != url:
                    continue
                for header in params.get("responseHeaders") or []:
                    if header.get("name", "").lower() == "content-length":
                        with contextlib.suppress(ValueError):
                            total.append(int(header["value"]))
                            return

    finder = asyncio.create_task(find_total())
    progress: Progress | None = None
    task_id: Any = None
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await stop.wait()
        while not stop.is_set():
            parts = [
                p
                for p in directory.glob(".cdpkit-*.part")
                if p.stat().st_mtime >= started - 1
            ] if directory.is_dir() else []
            if parts:
                size = max(p.stat().st_size for p in parts)
                if progress is None:
                    progress = Progress(
                        TextColumn("Downloading"),
                        BarColumn(),
                        DownloadColumn(),
                        TransferSpeedColumn(),
                        TimeRemainingColumn(),
                        console=Console(file=sys.stderr),
                        transient=True,
                    )
                    progress.start()
                    task_id = progress.add_task("download", total=total[0] if total else None)
                if total and progress.tasks[0].total is None:
                    progress.update(task_id, total=total[0])
                progress.update(task_id, completed=size)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    await stop.wait()
    finally:
        finder.cancel()
        await asyncio.gather(finder, return_exceptions=True)  # no task outlives the download
        if progress is not None:
            progress.stop()


@app.command()
def download(
    url: UrlArgument,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            metavar="DIR",
            help="Save into DIR (created if missing). Default: ~/Downloads.",
        ),
    ] = None,
    filename: Annotated[
        str | None,
        typer.Option(
            "--filename",
            metavar="NAME",
            help="Save under this name instead of the server's (never overwrites: NAME-1.ext).",
        ),
    ] = None,
    from_page: Annotated[
        str | None,
        typer.Option(
            "--page",
            metavar="PAGE_URL",
            help="Load this page first: the download carries its cookies and Referer.",
        ),
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option(
            "--selector",
            metavar="CSS",
            help="URL is then a page: download the resource of its first element matching "
            "this (img, video, audio, a, ...).",
        ),
    ] = None,
    max_time: Annotated[
        float | None,
        typer.Option(
            "--max-time",
            metavar="SECONDS",
            min=0.1,
            help="Give up on a download that takes longer (default: no limit; --timeout "
            "still bounds the wait for it to start).",
        ),
    ] = None,
    connect: ConnectOption = None,
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Download a file the way the page would (its cookies and Referer apply), streamed
    to disk, with a progress bar for large files.

    Like wget, the file is named as the server says (Content-Disposition) or else after
    the URL's last path segment, sanitized; an existing file is never overwritten: the
    new one becomes name-1.ext, name-2.ext... It is saved only when complete (a body
    cut short is an error and leaves no file)."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)
    page_url = normalize_url(from_page) if from_page is not None else None
    if selector is not None and page_url is not None:
        raise CLIError("With --selector, URL is the page: --page is not needed", 2)
    from .tools.files import default_download_dir

    dest = (directory or default_download_dir()).expanduser()
    check_output_dir(dest)

    async def work() -> None:
        from .tools import download as do_download

        async with open_page(options) as page:
            if selector is not None:
                await _load(page, target, timeout)
            elif page_url is not None:
                await _load(page, page_url, timeout)
            stop = asyncio.Event()
            watcher = (
                asyncio.create_task(
                    _watch_part_file(
                        page, dest, None if selector else target, time.time(), stop
                    )
                )
                if sys.stderr.isatty()
                else None
            )
            limits: dict[str, Any] = {
                "timeout": max_time if max_time is not None else math.inf,
                "initiation_timeout": timeout,
            }
            try:
                if selector is not None:
                    result = await do_download(
                        page, selector=selector, dest_dir=dest, filename=filename,
                        server_filename=True, **limits,
                    )
                else:
                    result = await do_download(
                        page, url=target, dest_dir=dest, filename=filename,
                        server_filename=True, **limits,
                    )
            finally:
                stop.set()
                if watcher is not None:
                    await asyncio.gather(watcher, return_exceptions=True)
        print(f"Saved {result.path} ({_human_size(result.size)}, {result.mime_type or 'unknown type'})")

    run(work, debug=debug)


@app.command("eval")
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
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Evaluate JavaScript in a page once its content has settled and print the result
    (strings as they are, anything else as JSON)."""
    options = _options(connect, headful, profile, chrome_arg, timeout, viewport=viewport)
    target = normalize_url(url)

    async def work() -> None:
        from .tools import evaluate

        async with open_page(options) as page:
            await _load(page, target, timeout, wait_ms)
            value = await evaluate(page, expression)
        if isinstance(value, str):
            print(value)
        else:
            print(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    run(work, debug=debug)


# -- the bindings: protocol, gen ---------------------------------------------------------------


@app.command()
def protocol(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="A domain (Page), command (Page.navigate), event (Page.loadEventFired) or type (Page.Frame); none lists the domains.",
            show_default=False,
        ),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Show the protocol as the bindings know it: domains, or the docs and Python
    signature of a command, event or type."""

    async def work() -> None:
        print(describe_protocol(name))

    run(work, debug=debug)


@app.command()
def gen(
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; fail if the bindings differ from what would be generated."),
    ] = False,
    from_browser: Annotated[
        str | None,
        typer.Option(
            "--from-browser",
            metavar="URL",
            help="Generate from a running browser's URL/json/protocol (e.g. http://127.0.0.1:9222) instead of the pin.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="The package directory to write (default: cdpkit/cdp)."),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Regenerate the typed bindings (cdpkit.cdp) from the pinned protocol JSON or from a
    running browser; wraps `python -m cdpkit.codegen`."""
    from .codegen.__main__ import main as codegen_main

    argv: list[str] = []
    if check:
        argv.append("--check")
    if from_browser is not None:
        argv += ["--from-browser", from_browser]
    if out is not None:
        argv += ["--out", str(out)]

    async def work() -> int:
        return codegen_main(argv)

    status = run(work, debug=debug)
    raise typer.Exit(status)


# -- browsers: launch, open-browser, doctor ---------------------------------------------------------


def http_endpoint(browser: Browser) -> str | None:
    """``http://127.0.0.1:PORT`` of a browser launched with a debugging port, else ``None``."""
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if lines and lines[0].strip().isdigit():
            return f"http://127.0.0.1:{lines[0].strip()}"
    return None


def _ws_endpoint(browser: Browser) -> str | None:
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if len(lines) >= 2:
            return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
    return None


async def _until_stopped(browser: Browser, *, window_closed_stops: bool = False) -> str:
    """Wait for Ctrl-C, SIGTERM or SIGHUP ("signal"), the browser process exiting
    ("exited"), or, with ``window_closed_stops``, its last page closing ("closed")."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
            loop.add_signal_handler(signum, stop.set)

    async def signalled() -> str:
        await stop.wait()
        return "signal"

    async def exited() -> str:
        assert browser.process is not None
        await browser.process.wait_for_exit()
        return "exited"

    async def pages_closed() -> str:
        async with browser.listen("Target.targetDestroyed", "Target.detachedFromTarget") as events:
            async for _ in events:
                await asyncio.sleep(0.3)  # a tab replacing another one
                if not browser.pages:
                    return "closed"
        return "exited"

    waiters = [asyncio.create_task(signalled())]
    if browser.process is not None:
        waiters.append(asyncio.create_task(exited()))
    if window_closed_stops:
        waiters.append(asyncio.create_task(pages_closed()))
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        first = next(iter(done))
        try:
            return first.result()
        except CDPError:
            return "exited"  # the connection ended with the browser
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
        for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
                loop.remove_signal_handler(signum)


@app.command()
def launch(
    headful: HeadfulOption = False,
    profile: ProfileOption = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Start a browser, print its endpoint (http://127.0.0.1:PORT) on stdout, and keep it
    running until Ctrl-C. Other commands attach to it with --connect ENDPOINT."""
    options = _options(None, headful, profile, chrome_arg, timeout, viewport=viewport)

    async def work() -> None:
        async with open_browser(options) as browser:
            endpoint = http_endpoint(browser)
            print(endpoint, flush=True)
            print(
                f"{browser.version.product} is running ({_ws_endpoint(browser)}).\n"
                f"Attach with: cdpkit repl --connect {endpoint}\n"
                "Press Ctrl-C to stop it.",
                file=sys.stderr,
                flush=True,
            )
            why = await _until_stopped(browser)
            if why == "exited":
                assert browser.process is not None
                raise CLIError(f"{browser.process.describe_exit()}")

    run(work, debug=debug)


@app.command("open-browser")
def open_browser_command(
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            metavar="NAME",
            help="The persistent profile to open (created if new).",
            show_default=False,
        ),
    ],
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page (e.g. the site's login page).", show_default=False),
    ] = None,
    chrome_arg: ChromeArgOption = None,
    viewport: ViewportOption = None,
    timeout: TimeoutOption = 30.0,
    debug: DebugOption = False,
) -> None:
    """Open a browser window on a persistent profile for a manual login. It holds the
    profile's lock while open and exits when the window is closed; later runs with
    --profile NAME (or launch(profile="NAME")) start logged in."""
    from ._profiles import profile_dir

    options = _options(None, True, profile, chrome_arg, timeout, viewport=viewport)
    try:
        directory = profile_dir(profile)
    except ValueError as exc:
        report_error(CLIError(str(exc), 2), debug=debug)
        raise typer.Exit(2) from None
    target = normalize_url(url) if url is not None else None
    if not _has_display(options.chrome_args):
        report_error(
            CLIError(
                "open-browser needs a display to show a window, and neither $DISPLAY nor "
                "$WAYLAND_DISPLAY is set (run it on your desktop, or over ssh -X)"
            ),
            debug=debug,
        )
        raise typer.Exit(1)

    async def work() -> None:
        async with open_browser(options) as browser:
            endpoint = http_endpoint(browser)
            print(endpoint, flush=True)
            if target is not None and browser.pages:
                from .tools import navigate

                try:
                    await navigate(browser.pages[0], target, timeout=timeout)
                except CDPError as exc:
                    print(f"warning: {error_line(exc)}", file=sys.stderr)
            print(
                f"Profile {profile!r} is open ({directory}).\n"
                "Log in, then close the browser window to save it.",
                file=sys.stderr,
                flush=True,
            )
            why = await _until_stopped(browser, window_closed_stops=True)
            if why == "signal":
                print("Closing the browser.", file=sys.stderr)
        print(f"Profile {profile!r} saved in {directory}", file=sys.stderr)

    run(work, debug=debug)


@dataclass(slots=True)
class ProtocolDiff:
    """How a browser's ``/json/protocol`` differs from the bindings' pin.

    Each list holds wire names: ``added_*`` the browser has and the bindings lack,
    ``removed_*`` the bindings have and the browser lacks.
    """

    added_domains: list[str] = field(default_factory=list)
    removed_domains: list[str] = field(default_factory=list)
    added_commands: list[str] = field(default_factory=list)
    removed_commands: list[str] = field(default_factory=list)
    added_events: list[str] = field(default_factory=list)
    removed_events: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Whether the browser and the bindings know exactly the same items."""
        return not any(
            (
                self.added_domains,
                self.removed_domains,
                self.added_commands,
                self.removed_commands,
                self.added_events,
                self.removed_events,
            )
        )


def diff_protocol(document: dict[str, Any]) -> ProtocolDiff:
    """Compare a protocol document (as served at ``/json/protocol``) with the bindings."""
    from .cdp import _registry

    domains: set[str] = set()
    commands: set[str] = set()
    events: set[str] = set()
    for domain in document.get("domains", []):
        name = domain.get("domain")
        if not isinstance(name, str):
            continue
        domains.add(name)
        commands.update(f"{name}.{c['name']}" for c in domain.get("commands", []) if "name" in c)
        events.update(f"{name}.{e['name']}" for e in domain.get("events", []) if "name" in e)
    pinned_domains = set(_registry.DOMAINS)
    pinned_commands = set(_registry.COMMANDS)
    pinned_events = set(_registry.EVENTS)
    return ProtocolDiff(
        added_domains=sorted(domains - pinned_domains),
        removed_domains=sorted(pinned_domains - domains),
        added_commands=sorted(commands - pinned_commands),
        removed_commands=sorted(pinned_commands - commands),
        added_events=sorted(events - pinned_events),
        removed_events=sorted(pinned_events - events),
    )


def format_protocol_diff(diff: ProtocolDiff, *, limit: int | None = 8) -> list[str]:
    """The lines ``cdpkit doctor`` prints for a :class:`ProtocolDiff`."""
    if diff.identical:
        return ["  the browser's protocol matches the bindings exactly"]
    lines = []
    for sign, what, items, where in (
        ("+", "domains", diff.added_domains, "only in the browser"),
        ("-", "domains", diff.removed_domains, "only in the bindings"),
        ("+", "commands", diff.added_commands, "only in the browser"),
        ("-", "commands", diff.removed_commands, "only in the bindings"),
        ("+", "events", diff.added_events, "only in the browser"),
        ("-", "events", diff.removed_events, "only in the bindings"),
    ):
        if not items:
            continue
        shown = items if limit is None else items[:limit]
        more = f", ... and {len(items) - len(shown)} more" if len(shown) < len(items) else ""
        lines.append(f"  {sign} {len(items)} {what} {where}: {', '.join(shown)}{more}")
    return lines


def _fetch_json(url: str, timeout: float) -> Any:
    import urllib.request

    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


@app.command()
def doctor(
    connect: ConnectOption = None,
    chrome_arg: ChromeArgOption = None,
    timeout: TimeoutOption = 30.0,
    full: Annotated[bool, typer.Option("--full", help="List every protocol difference.")] = False,
    debug: DebugOption = False,
) -> None:
    """Check the setup: which Chrome cdpkit finds, whether it starts, its versions, and
    whether its live /json/protocol differs from the bindings' pin (and how)."""
    import platform

    import cdpkit

    from ._profiles import profiles_root
    from .cdp import _registry

    options = _options(connect, False, None, chrome_arg, timeout)

    async def work() -> None:
        print(
            f"cdpkit      {cdpkit.__version__} on Python {platform.python_version()} "
            f"({sys.platform}, {platform.machine()})"
        )
        print(
            f"bindings    {_registry.PROTOCOL_VERSION}: {len(_registry.DOMAINS)} domains, "
            f"{len(_registry.COMMANDS)} commands, {len(_registry.EVENTS)} events"
        )
        print(f"profiles    {profiles_root()}")
        if connect is None:
            from .launcher import find_chrome

            chrome = find_chrome()
            source = "$CDPKIT_CHROME" if os.environ.get("CDPKIT_CHROME") else "PATH and install locations"
            print(f"chrome      {chrome} (from {source})")
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                print("root        yes: cdpkit adds --no-sandbox")
        started = time.monotonic()
        async with open_browser(options) as browser:
            elapsed = time.monotonic() - started
            version = browser.version
            how = f"attached to {options.connect}" if options.connect else f"started headless in {elapsed:.1f} s"
            print(f"browser     {version.product} ({how})")
            print(f"protocol    {version.protocol_version}, V8 {version.js_version}")
            print(f"user agent  {version.user_agent}")
            endpoint = options.connect if options.connect is not None else http_endpoint(browser)
            if endpoint is None:
                print("live protocol: unknown (the browser has no HTTP endpoint)")
                return
            parts = urllib.parse.urlsplit(endpoint)
            base = f"{'https' if parts.scheme in ('https', 'wss') else 'http'}://{parts.netloc}"
            print(f"live protocol ({base}/json/protocol) vs bindings:")
            try:
                document = await asyncio.to_thread(_fetch_json, f"{base}/json/protocol", timeout)
            except (OSError, ValueError) as exc:
                print(f"  could not read it: {exc}")
                return
        diff = diff_protocol(document)
        for line in format_protocol_diff(diff, limit=None if full else 8):
            print(line)
        if not diff.identical:
            print(
                f"  `cdpkit gen --from-browser {base}` generates bindings from this browser's "
                "own protocol"
            )

    run(work, debug=debug)


# -- mcp -------------------------------------------------------------------------------------


@app.command()
def mcp(
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT binds 127.0.0.1).",
        ),
    ] = None,
    headful: Annotated[bool, typer.Option("--headful", help="Show the browser window.")] = False,
    connect: Annotated[
        str | None,
        typer.Option("--connect", metavar="ENDPOINT", help="Drive a running browser instead of launching one."),
    ] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", metavar="NAME", help="Launch on this persistent profile.")
    ] = None,
    downloads: Annotated[
        str | None, typer.Option("--downloads", metavar="DIR", help="Where browser_download saves files.")
    ] = None,
    allow_js: Annotated[
        bool, typer.Option("--allow-js", help="Offer browser_execute_js (runs any JavaScript the agent sends).")
    ] = False,
    allow_file_urls: Annotated[
        bool,
        typer.Option(
            "--allow-file-urls",
            "--allow-unrestricted-file-access",
            help="Let the agent open file: URLs (the local disk) and the browser's own pages (chrome://...), "
            "and upload any local file; by default it cannot, and uploads only files from the download directory.",
        ),
    ] = False,
    allowed_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-origins",
            metavar="ORIGINS",
            help="Only web pages of these origins may be loaded, read or downloaded (default: any); "
            "separated by ';' or ',', or repeat the option. An entry: https://example.com (that scheme, "
            "host and port), http://localhost:* (any port), example.com (http or https, any port), "
            "*.example.com (its subdomains).",
        ),
    ] = None,
    blocked_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--blocked-origins",
            metavar="ORIGINS",
            help="Refuse web pages of these origins, even if allowed (same forms as --allowed-origins).",
        ),
    ] = None,
) -> None:
    """Serve the browser tools to an AI agent over the Model Context Protocol (needs the
    `mcp` extra: pip install 'cdpkit-browser[mcp]'). The browser starts on the first tool
    call and closes when the client disconnects. The same options as `python -m cdpkit.mcp_server`."""
    from . import mcp_server  # optional extra: imported only here

    try:
        mcp_server.serve(
            http=http,
            headful=headful,
            connect=connect,
            profile=profile,
            downloads=downloads,
            allow_js=allow_js,
            allow_file_urls=allow_file_urls,
            allowed_origins=allowed_origins,
            blocked_origins=blocked_origins,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def main(argv: list[str] | None = None) -> None:
    """The ``cdpkit`` console script (also ``python -m cdpkit``)."""
    try:
        app(args=argv, prog_name="cdpkit")
    except BrokenPipeError:  # e.g. `cdpkit protocol | head`: the reader left, that is fine
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except CLIError as exc:  # raised while checking arguments, before any browser starts
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
