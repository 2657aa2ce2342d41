"""``cdpkit download``: save a file the way the page would, with a progress bar."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Unpack

import typer

from .._browser.settings import BrowserSettings
from .._front.browser_options import CLIError, open_page
from .._front.cli_common import human_size, load_page, normalize_url, run
from ._params import (
    BrowserFlags,
    DebugOption,
    UrlArgument,
    check_output_dir,
    launch_options,
    with_browser,
)

if TYPE_CHECKING:
    from ..page import Page


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


_DirectoryOption = Annotated[
    Path | None,
    typer.Option(
        "--dir",
        metavar="DIR",
        help="Save into DIR (created if missing). Default: ~/Downloads.",
    ),
]

_FilenameOption = Annotated[
    str | None,
    typer.Option(
        "--filename",
        metavar="NAME",
        help="Save under this name instead of the server's (never overwrites: NAME-1.ext).",
    ),
]

_FromPageOption = Annotated[
    str | None,
    typer.Option(
        "--page",
        metavar="PAGE_URL",
        help="Load this page first: the download carries its cookies and Referer.",
    ),
]

_SelectorOption = Annotated[
    str | None,
    typer.Option(
        "--selector",
        metavar="CSS",
        help="URL is then a page: download the resource of its first element matching "
        "this (img, video, audio, a, ...).",
    ),
]

_MaxTimeOption = Annotated[
    float | None,
    typer.Option(
        "--max-time",
        metavar="SECONDS",
        min=0.1,
        help="Give up on a download that takes longer (default: no limit; --timeout "
        "still bounds the wait for it to start).",
    ),
]


@with_browser("connect grid header headful profile chrome_arg viewport script_timeout timeout")
def download(
    url: UrlArgument,
    directory: _DirectoryOption = None,
    filename: _FilenameOption = None,
    from_page: _FromPageOption = None,
    selector: _SelectorOption = None,
    max_time: _MaxTimeOption = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Download a file the way the page would (its cookies and Referer apply), streamed
    to disk, with a progress bar for large files.

    Like wget, the file is named as the server says (Content-Disposition) or else after
    the URL's last path segment, sanitized; an existing file is never overwritten: the
    new one becomes name-1.ext, name-2.ext... It is saved only when complete (a body
    cut short is an error and leaves no file)."""
    options = launch_options(flags, settings)
    target = normalize_url(url)
    page_url = normalize_url(from_page) if from_page is not None else None
    if selector is not None and page_url is not None:
        raise CLIError("With --selector, URL is the page: --page is not needed", 2)
    from ..tools.files import default_download_dir

    dest = (directory or default_download_dir()).expanduser()
    check_output_dir(dest)

    async def work() -> None:
        from ..tools import download as do_download

        async with open_page(options) as page:
            if selector is not None:
                await load_page(
                    page, target, flags["timeout"], script_timeout=flags["script_timeout"]
                )
            elif page_url is not None:
                await load_page(
                    page, page_url, flags["timeout"], script_timeout=flags["script_timeout"]
                )
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
                "initiation_timeout": flags["timeout"],
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
        print(f"Saved {_shown(result.path)} ({human_size(result.size)}, {result.mime_type or 'unknown type'})")

    run(work, debug=debug)


def _shown(path: str) -> str:
    """``path`` as wget shows it: relative to the working directory when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative
