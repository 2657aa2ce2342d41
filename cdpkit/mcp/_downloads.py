"""Downloads an agent can find: files a page starts downloading (a click on a download
link, a form that answers with an attachment) are saved in the server's download
directory, and ``browser_downloads`` lists them with their absolute paths, together with
the files ``browser_download`` saved (:meth:`DownloadTracker.saved`).

Chrome saves them itself (``Browser.setDownloadBehavior``, ``allow``: under the server's
suggested name, made unique by Chrome); the tracker follows ``Browser.downloadWillBegin``
and ``Browser.downloadProgress`` from a background task, so a download never holds up the
tool call that started it. A browser the server attached to (``--connect``) keeps its own
download settings: its downloads are not tracked.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from pathlib import Path
from typing import Any

from .. import cdp
from ..browser import Browser, BrowserContext
from ..errors import CDPError
from ..tools.files import DownloadResult, StandingDownloads

__all__ = ["DownloadTracker", "TrackedDownload"]

# Keep the list an agent reads short and the memory bounded.
_KEPT = 200


@dataclasses.dataclass(slots=True)
class TrackedDownload:
    """One download of the session: one the pages started, or one ``browser_download``
    saved.

    Attributes:
        url: Where it came from.
        file_name: The name the server suggested.
        state: ``"in progress"``, ``"completed"`` or ``"canceled"``.
        path: Its absolute path once completed.
        size: Bytes received so far (all of them once completed).
        total: Bytes announced, ``None`` when unknown.
        started: When it began (seconds since the epoch).
        by_tool: Saved by ``browser_download`` (not started by a page).
    """

    url: str
    file_name: str
    state: str = "in progress"
    path: str | None = None
    size: int = 0
    total: int | None = None
    started: float = dataclasses.field(default_factory=time.time)
    by_tool: bool = False


class DownloadTracker:
    """Saves the browser's downloads in ``directory`` and remembers them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._downloads: dict[str, TrackedDownload] = {}
        self._task: asyncio.Task[None] | None = None
        self._saved = 0

    @property
    def downloads(self) -> list[TrackedDownload]:
        """Every download seen, oldest first."""
        return list(self._downloads.values())

    @property
    def following(self) -> bool:
        """Whether the downloads the pages start are followed (not for a browser the
        server attached to, which keeps its own download settings)."""
        return self._task is not None

    def saved(self, result: DownloadResult) -> None:
        """Remember a file ``browser_download`` saved."""
        self._saved += 1
        self._keep(
            f"saved-{self._saved}",
            TrackedDownload(
                url=result.url,
                file_name=result.filename,
                state="completed",
                path=str(Path(result.path).resolve()),
                size=result.size,
                by_tool=True,
            ),
        )

    def _keep(self, key: str, download: TrackedDownload) -> None:
        self._downloads[key] = download
        while len(self._downloads) > _KEPT:
            del self._downloads[next(iter(self._downloads))]

    async def start(self, browser: Browser) -> None:
        """Send the browser's downloads to ``directory`` and follow them."""
        self.directory.mkdir(parents=True, exist_ok=True)
        standing = browser.state(StandingDownloads)
        standing.path = str(self.directory)
        events = browser.listen(cdp.browser.DownloadWillBegin, cdp.browser.DownloadProgress, raw=True)
        await events.__aenter__()
        await browser.send(
            cdp.browser.set_download_behavior(
                "allow", download_path=str(self.directory), events_enabled=True
            )
        )
        self._task = asyncio.create_task(self._follow(events))

    async def cover(self, context: BrowserContext) -> None:
        """Send the downloads of ``context`` (a browser context made after :meth:`start`,
        which covers only the default one) to ``directory`` too."""
        await context.browser.send(
            cdp.browser.set_download_behavior(
                "allow",
                browser_context_id=cdp.browser.BrowserContextID(context.id),
                download_path=str(self.directory),
                events_enabled=True,
            )
        )

    async def _follow(self, events: Any) -> None:
        try:
            async for event in events:
                params = event.params
                guid = str(params.get("guid", ""))
                if event.method == "Browser.downloadWillBegin":
                    self._keep(
                        guid,
                        TrackedDownload(
                            url=str(params.get("url", "")),
                            file_name=str(params.get("suggestedFilename", "")),
                        ),
                    )
                    continue
                download = self._downloads.get(guid)
                if download is None:
                    continue
                download.size = int(params.get("receivedBytes", 0))
                total = int(params.get("totalBytes", 0))
                download.total = total or None
                state = params.get("state")
                if state == "completed":
                    download.state = "completed"
                    found = params.get("filePath") or str(self.directory / download.file_name)
                    download.path = str(Path(found).resolve())
                elif state == "canceled":
                    download.state = "canceled"
        except CDPError:
            pass  # the browser went away: nothing more to follow
        finally:
            with contextlib.suppress(Exception):
                await events.__aexit__(None, None, None)

    async def stop(self) -> None:
        """Stop following (the browser is closing)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def describe_downloads(downloads: list[TrackedDownload], *, following: bool = True) -> str:
    """One line per download, newest last, for the agent; ``following``: whether the
    downloads the pages start are tracked (else a line says where they go)."""
    untracked = (
        "Downloads the pages start are not tracked for a browser the server attached to "
        "(--connect): they go to that browser's own download folder."
    )
    if not downloads:
        return (
            "No downloads yet. A click that starts one saves the file in the server's "
            "download directory; browser_download saves a URL's file directly."
            if following
            else f"No downloads yet. {untracked} browser_download saves a URL's file in the "
            "server's download directory."
        )
    lines = []
    for item in downloads:
        size = f"{item.size:,} bytes" + (f" of {item.total:,}" if item.total and item.state != "completed" else "")
        where = item.path if item.path else "(not saved yet)" if item.state == "in progress" else "(canceled)"
        how = " (browser_download)" if item.by_tool else ""
        lines.append(f"- {item.file_name or 'a file'} [{item.state}, {size}] {where} from {item.url}{how}")
    if not following:
        lines.append(untracked)
    return "\n".join(lines)
