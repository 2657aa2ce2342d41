"""Downloads of the big file: streamed through the client, and managed by the browser."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target
from benchmarks.cases.clients import cdpkit_page, playwright_page, raw_page
from benchmarks.common import now, peak_rss_mb, reset_peak_rss, rss_mb

# The IO.read size that gave the raw client its best throughput here (64 KiB..16 MiB tried).
READ_CHUNK = 256 * 2**10
DOWNLOAD_TIMEOUT = 120.0


@contextlib.contextmanager
def _download_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="bench-download-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _speed(ctx: Ctx, seconds: float, path: Path) -> dict[str, float]:
    size = path.stat().st_size
    if size != ctx.sizes.file_bytes:  # never report the speed of a short file
        raise RuntimeError(f"downloaded {size} bytes, expected {ctx.sizes.file_bytes}")
    return {"mib_s": size / 2**20 / seconds}


def _streamed(ctx: Ctx, seconds: float, path: Path, rss_before: float) -> dict[str, float]:
    return {**_speed(ctx, seconds, path), "rss_growth_mb": peak_rss_mb() - rss_before}


# Streamed: the page requests the file itself (cookies and referer apply), the response is
# caught with Fetch at the response stage and read with IO.read into a file.

async def _raw_streamed(ctx: Ctx) -> dict[str, float]:
    url = f"{ctx.base_url}/file.bin"
    async with raw_page(ctx, "/blank") as (client, session), asyncio.timeout(DOWNLOAD_TIMEOUT):
        with _download_dir() as folder:
            paused = asyncio.get_running_loop().create_future()

            def on_event(event: dict[str, Any]) -> None:
                if event.get("method") == "Fetch.requestPaused" and not paused.done():
                    paused.set_result(event["params"]["requestId"])

            client.on_event = on_event
            reset_peak_rss()
            rss_before = rss_mb()
            start = now()
            await client.send("Fetch.enable", {"patterns": [
                {"urlPattern": url, "requestStage": "Response"}]}, session)
            await client.send("Runtime.evaluate", {
                "expression": f"fetch({url!r}).catch(() => null), 0"}, session)
            request_id = await paused
            stream = (await client.send("Fetch.takeResponseBodyAsStream",
                                        {"requestId": request_id}, session))["stream"]
            path = folder / "file.bin"
            with path.open("wb") as file:
                while True:
                    chunk = await client.send(
                        "IO.read", {"handle": stream, "size": READ_CHUNK}, session)
                    data = chunk["data"]
                    file.write(base64.b64decode(data) if chunk.get("base64Encoded")
                               else data.encode())
                    if chunk.get("eof"):
                        break
            await client.send("IO.close", {"handle": stream}, session)
            seconds = now() - start
            return _streamed(ctx, seconds, path, rss_before)


async def _cdpkit_streamed(ctx: Ctx) -> dict[str, float]:
    from cdpkit.tools import download  # imported before timing, as a script would

    async with cdpkit_page(ctx, "/blank") as page:
        with _download_dir() as folder:
            reset_peak_rss()
            rss_before = rss_mb()
            start = now()
            result = await download(page, url=f"{ctx.base_url}/file.bin",
                                          dest_dir=folder, timeout=DOWNLOAD_TIMEOUT)
            seconds = now() - start
            return _streamed(ctx, seconds, Path(result.path), rss_before)


STREAMED = Case(
    name="download-stream",
    metrics=(Metric("mib_s", "streamed download (MiB/s)", Target(ratio_min=0.9)),
             Metric("rss_growth_mb", "streamed download, peak RSS growth (MB)",
                    Target(abs_max=50, every_run=True))),
    sides={"raw": _raw_streamed, "cdpkit": _cdpkit_streamed},
    transports=("port", "pipe"),
    needs=(*CORE_API, "tools.download"),
    notes=("streamed download: raw is Fetch (response stage) + Fetch.takeResponseBodyAsStream "
           f"+ IO.read of {READ_CHUNK // 1024} KiB written to disk; cdpkit is "
           "`tools.download(page, url=...)`. RSS growth: peak minus the RSS before, in the "
           "client process.",),
)


# Browser-managed: Chrome saves a Content-Disposition attachment itself; the client only
# sets the download behaviour and waits for Browser.downloadProgress to say completed.

async def _raw_browser_download(ctx: Ctx) -> dict[str, float]:
    async with raw_page(ctx, "/blank") as (client, session), asyncio.timeout(DOWNLOAD_TIMEOUT):
        with _download_dir() as folder:
            finished = asyncio.get_running_loop().create_future()

            def on_event(event: dict[str, Any]) -> None:
                if (event.get("method") == "Browser.downloadProgress"
                        and event["params"]["state"] != "inProgress" and not finished.done()):
                    finished.set_result(event["params"])

            client.on_event = on_event
            start = now()
            await client.send("Browser.setDownloadBehavior", {
                "behavior": "allowAndName", "downloadPath": str(folder), "eventsEnabled": True})
            await client.send("Page.navigate", {"url": f"{ctx.base_url}/attachment.bin"},
                              session)
            progress = await finished
            seconds = now() - start
            if progress["state"] != "completed":
                raise RuntimeError(f"download {progress['state']}")
            (path,) = folder.iterdir()
            return _speed(ctx, seconds, path)


async def _cdpkit_browser_download(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp
    from cdpkit.tools import expect_download  # imported before timing, as a script would

    async with cdpkit_page(ctx, "/blank") as page:
        with _download_dir() as folder:
            start = now()
            async with expect_download(page, dest_dir=folder,
                                       timeout=DOWNLOAD_TIMEOUT) as download:
                await page.send(cdp.page.navigate(f"{ctx.base_url}/attachment.bin"))
            seconds = now() - start
            return _speed(ctx, seconds, Path(download.value.path))


async def _playwright_browser_download(ctx: Ctx) -> dict[str, float]:
    async with playwright_page(ctx, "/blank") as page:
        start = now()
        async with page.expect_download(timeout=DOWNLOAD_TIMEOUT * 1e3) as info:
            await page.evaluate(f"location.href = '{ctx.base_url}/attachment.bin'")
        download = await info.value
        path = Path(await download.path())
        seconds = now() - start
        return _speed(ctx, seconds, path)


BROWSER_DOWNLOAD = Case(
    name="download-browser",
    metrics=(Metric("mib_s", "browser-managed download (MiB/s)", Target(ratio_min=0.9)),),
    sides={"raw": _raw_browser_download, "cdpkit": _cdpkit_browser_download,
           "playwright": _playwright_browser_download},
    transports=("port", "pipe"),
    needs=(*CORE_API, "tools.expect_download"),
    notes=("browser download: navigate to a Content-Disposition attachment, from "
           "Browser.setDownloadBehavior until Browser.downloadProgress says completed.",),
)

CASES = (STREAMED, BROWSER_DOWNLOAD)
