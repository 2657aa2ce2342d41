"""The browser-level commands a client sends to the bridge (no ``sessionId``), answered
from the person's tabs: the ``Target`` domain over ``chrome.tabs``/``chrome.debugger``,
``Browser.getVersion`` and the download behaviour. What ``chrome.debugger`` cannot do (new
browser contexts, closing the browser, browser-wide domains) is refused in words."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._parts import CONTEXT_ID, CallError, Client, Tab

if TYPE_CHECKING:
    from ._server import Bridge

_Handler = Callable[["Bridge", "Client", dict[str, Any]], Awaitable[dict[str, Any]]]
_NO_CONTEXTS = (
    "The cdpkit extension drives the person's own profile: it cannot make browser "
    "contexts (incognito windows); use the default context (with cdpkit mcp --http: "
    "--shared-context)"
)


def _error(code: int, message: str) -> CallError:
    return CallError(json.dumps({"code": code, "message": message}))


def _visible_tab(bridge: Bridge, client: Client, target_id: object) -> Tab:
    for tab in bridge.tabs.values():
        if tab.target_id == target_id and client.sees(tab):
            return tab
    raise _error(-32602, "No target with given id found")


async def _get_version(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    agent = bridge.user_agent
    found = re.search(r"(?:Chrome|Chromium|Edg)/[\d.]+", agent)
    product = found.group(0).replace("Edg/", "Edge/") if found else "Chrome"
    return {
        "protocolVersion": "1.3",
        "product": product,
        "revision": "",
        "userAgent": agent,
        "jsVersion": "",
    }


async def _set_discover_targets(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    client.discover = bool(params.get("discover"))
    if client.discover:
        await bridge._refresh_tabs()
        for tab in list(bridge.tabs.values()):
            if client.sees(tab):
                bridge._send(
                    client,
                    {
                        "method": "Target.targetCreated",
                        "params": {"targetInfo": tab.info(bridge.tabs)},
                    },
                )
    return {}


async def _set_auto_attach(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    if params.get("autoAttach") and not params.get("flatten"):
        raise _error(-32602, "The cdpkit extension bridge has flat sessions only (flatten: true)")
    client.auto_attach = bool(params.get("autoAttach"))
    if client.auto_attach:
        await bridge._refresh_tabs()
        attached = {bridge.tabs.get(tab_id) for tab_id in client.sessions.values()}
        waiting = [
            tab for tab in list(bridge.tabs.values()) if client.sees(tab) and tab not in attached
        ]
        # Every tab that can be attached is, before the answer (as Chrome does); one that
        # cannot (a discarded tab, the Web Store) is left out.
        await asyncio.gather(
            *(bridge.attach(client, tab) for tab in waiting), return_exceptions=True
        )
    return {}


async def _get_targets(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    await bridge._refresh_tabs()
    return {
        "targetInfos": [tab.info(bridge.tabs) for tab in bridge.tabs.values() if client.sees(tab)]
    }


async def _get_target_info(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    if params.get("targetId") is None:
        return {
            "targetInfo": {
                "targetId": "browser",
                "type": "browser",
                "title": "",
                "url": "",
                "attached": True,
                "canAccessOpener": False,
            }
        }
    return {"targetInfo": _visible_tab(bridge, client, params["targetId"]).info(bridge.tabs)}


async def _attach_to_target(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    if not params.get("flatten"):
        raise _error(-32602, "The cdpkit extension bridge has flat sessions only (flatten: true)")
    tab = _visible_tab(bridge, client, params.get("targetId"))
    return {"sessionId": await bridge.attach(client, tab)}


async def _detach_from_target(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    session_id = params.get("sessionId")
    if session_id not in client.sessions:
        raise _error(-32602, "No session with given id")
    await bridge.detach(client, str(session_id))
    return {}


async def _create_target(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    context = params.get("browserContextId")
    if context not in (None, "", CONTEXT_ID):
        raise _error(-32000, _NO_CONTEXTS)
    created: list[Tab] = []

    def record(target: dict[str, Any]) -> None:
        # The client's alone, recorded as the answer is read: the extension's report of
        # the new tab comes right after it, and must not make it the person's.
        tab = bridge.tabs.get(int(target["tabId"]))
        if tab is None:
            tab = Tab(int(target["tabId"]), str(target["targetId"]), str(target.get("url", "")),
                      str(target.get("title", "")), None, owner=client)  # fmt: skip
            bridge.tabs[tab.tab_id] = tab
            bridge._announce(tab, only=client)
        created.append(tab)

    await bridge.call("create", on_answer=record, url=params.get("url") or "about:blank",
                      background=bool(params.get("background", True)))  # fmt: skip
    tab = created[0]
    return {"targetId": tab.target_id}


async def _close_target(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    tab = _visible_tab(bridge, client, params.get("targetId"))
    await bridge.call("close", tabId=tab.tab_id)
    return {"success": True}


async def _activate_target(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    tab = _visible_tab(bridge, client, params.get("targetId"))
    await bridge.call("activate", tabId=tab.tab_id)
    return {}


async def _no_contexts(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    raise _error(-32000, _NO_CONTEXTS)


async def _get_browser_contexts(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    return {"browserContextIds": []}


async def _set_download_behavior(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    behavior = params.get("behavior")
    if behavior not in ("deny", "allow", "allowAndName", "default"):
        raise _error(-32602, f"Invalid download behavior {behavior!r}")
    if params.get("browserContextId") not in (None, "", CONTEXT_ID):
        raise _error(-32000, _NO_CONTEXTS)
    path = params.get("downloadPath")
    folder = None
    if behavior in ("allow", "allowAndName"):
        if not isinstance(path, str) or not Path(path).is_absolute() or not Path(path).is_dir():
            raise _error(-32602, "downloadPath must be an existing folder's absolute path")
        folder = Path(path)
    client.download_behavior, client.download_path = str(behavior), folder
    client.download_events = bool(params.get("eventsEnabled"))
    return {}


async def _cancel_download(
    bridge: Bridge, client: Client, params: dict[str, Any]
) -> dict[str, Any]:
    download = bridge.downloads.by_guid.get(str(params.get("guid")))
    if download is not None and download.chrome_id is not None:
        await bridge.call("cancelDownload", downloadId=download.chrome_id)
    return {}


async def _close_browser(bridge: Bridge, client: Client, params: dict[str, Any]) -> dict[str, Any]:
    raise _error(
        -32000,
        "The cdpkit extension never closes the person's browser; close the connection to detach",
    )


_HANDLERS: dict[str, _Handler] = {
    "Browser.getVersion": _get_version,
    "Browser.setDownloadBehavior": _set_download_behavior,
    "Browser.cancelDownload": _cancel_download,
    "Browser.close": _close_browser,
    "Target.setDiscoverTargets": _set_discover_targets,
    "Target.setAutoAttach": _set_auto_attach,
    "Target.getTargets": _get_targets,
    "Target.getTargetInfo": _get_target_info,
    "Target.attachToTarget": _attach_to_target,
    "Target.detachFromTarget": _detach_from_target,
    "Target.createTarget": _create_target,
    "Target.closeTarget": _close_target,
    "Target.activateTarget": _activate_target,
    "Target.createBrowserContext": _no_contexts,
    "Target.disposeBrowserContext": _no_contexts,
    "Target.getBrowserContexts": _get_browser_contexts,
}


async def run_browser_command(
    bridge: Bridge, client: Client, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    """Answer ``method`` as the browser would.

    Raises:
        CallError: A protocol error for the client (JSON ``{code, message}``).
    """
    handler = _HANDLERS.get(method)
    if handler is None:
        raise _error(
            -32601,
            f"'{method}' is not available through the cdpkit extension "
            "(chrome.debugger reaches tabs, not the browser)",
        )
    return await handler(bridge, client, params)
