"""Downloads through the bridge: Chrome saves a page's download itself (chrome.downloads,
in the person's download folder); the bridge tells the clients that asked for download
events (``Browser.downloadWillBegin``/``downloadProgress``, from the tab's
``Page.downloadWillBegin`` and chrome.downloads), and moves the finished file into the
folder a client named with ``Browser.setDownloadBehavior``."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.secrets import get_logger
from ._parts import CallError, Client, Download, Tab

if TYPE_CHECKING:
    from ._server import Bridge

log = get_logger("cdpkit.bridge")


class Downloads:
    """The downloads under way, matched between the tab's events and chrome.downloads."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.by_guid: dict[str, Download] = {}
        self.unmatched: dict[int, tuple[str, str]] = {}  # chrome.downloads ids seen first

    def tell_watchers(self, tab: Tab, method: str, params: dict[str, Any]) -> None:
        for client in self.bridge.clients:
            if client.download_events and client.sees(tab):
                self.bridge._send(client, {"method": method, "params": params})

    def began(self, tab: Tab, params: dict[str, Any]) -> None:
        download = Download(str(params.get("guid")), str(params.get("url")), tab.tab_id)
        self.by_guid[download.guid] = download
        for chrome_id, urls in list(self.unmatched.items()):
            if download.url in urls:
                download.chrome_id = chrome_id
                del self.unmatched[chrome_id]
                break
        self.tell_watchers(tab, "Browser.downloadWillBegin", params)
        denied = any(c.download_behavior == "deny" and c.sees(tab) for c in self.bridge.clients)
        if denied and download.chrome_id is not None:
            self.bridge._background(self.cancel(download.chrome_id))

    async def cancel(self, chrome_id: int) -> None:
        with contextlib.suppress(CallError):
            await self.bridge.call("cancelDownload", downloadId=chrome_id)

    def created(self, message: dict[str, Any]) -> None:
        chrome_id = int(message["downloadId"])
        urls = (str(message.get("url")), str(message.get("finalUrl")))
        for download in reversed(list(self.by_guid.values())):
            if download.chrome_id is None and download.url in urls:
                download.chrome_id = chrome_id
                return
        self.unmatched[chrome_id] = urls

    async def changed(self, message: dict[str, Any]) -> None:
        chrome_id = int(message["downloadId"])
        download = next((d for d in self.by_guid.values() if d.chrome_id == chrome_id), None)
        state = message.get("state")
        if download is None or state not in ("complete", "interrupted"):
            return
        del self.by_guid[download.guid]
        tab = self.bridge.tabs.get(download.tab_id)
        received, total = message.get("bytesReceived", 0), message.get("totalBytes", 0)
        progress = {
            "guid": download.guid,
            "totalBytes": total if total >= 0 else received,
            "receivedBytes": received,
            "state": "canceled",
        }
        if state == "complete":
            taker = next(
                (
                    c
                    for c in self.bridge.clients
                    if c.download_path is not None
                    and c.download_behavior in ("allow", "allowAndName")
                    and (tab is None or c.sees(tab))
                ),
                None,
            )
            if taker is not None and message.get("filename"):
                moved = await _move_download(Path(str(message["filename"])), taker, download.guid)
                progress["state"] = "completed" if moved else "canceled"
            else:
                progress["state"] = "completed"
        for client in self.bridge.clients:
            if client.download_events and (tab is None or client.sees(tab)):
                self.bridge._send(
                    client, {"method": "Browser.downloadProgress", "params": progress}
                )


async def _move_download(source: Path, client: Client, guid: str) -> bool:
    """Move a finished download into the folder ``client`` named (as Chrome's
    ``allowAndName`` does: under its guid); whether it could."""
    folder = client.download_path
    if folder is None:
        return False
    name = guid if client.download_behavior == "allowAndName" else source.name
    target = folder / Path(name).name  # a name, never a path
    try:
        await asyncio.to_thread(shutil.move, str(source), str(target))
    except OSError as exc:
        log.warning("Could not move the download %s to %s: %s", source, target, exc)
        return False
    return True
