"""The extension bridge: the person's own running browser, driven through the cdpkit
extension (``chrome.debugger``) and a loopback bridge that makes its tabs look like a
browser to each cdpkit client.

The extension (``extension/``, shipped in the package) asks the native messaging host
(:mod:`._host`) for the bridge, which the host starts when none runs; the bridge
(:mod:`._server`) listens on 127.0.0.1 with a token and publishes its address in
``bridge.json`` (:mod:`._state`), where ``connect("extension")`` finds it.
"""

from __future__ import annotations

from ._install import BROWSERS, InstallError, default_browsers, install, uninstall
from ._state import (
    EXTENSION_DIR,
    HOST_NAME,
    BridgeError,
    BridgeInfo,
    extension_id,
    extension_origin,
    read_bridge_info,
    start_bridge,
)

__all__ = [
    "BROWSERS",
    "EXTENSION_DIR",
    "HOST_NAME",
    "BridgeError",
    "BridgeInfo",
    "InstallError",
    "default_browsers",
    "extension_id",
    "extension_origin",
    "install",
    "read_bridge_info",
    "start_bridge",
    "uninstall",
]
