"""Where protocol JSON comes from: the vendored ``protocol/`` directory or a live browser."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from .protocol import ProtocolError

__all__ = [
    "PROTOCOL_DIR",
    "fetch_browser_protocol",
    "load_vendored_protocol",
    "read_pin_version",
]

PROTOCOL_FILES = ("browser_protocol.json", "js_protocol.json")
PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"


def read_pin_version(protocol_dir: Path = PROTOCOL_DIR) -> str:
    """The devtools-protocol version written on the ``version:`` line of ``protocol/PIN``."""
    for line in (protocol_dir / "PIN").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "version" and value.strip():
            return value.strip()
    raise ProtocolError(f"no 'version:' line in {protocol_dir / 'PIN'}")


def load_vendored_protocol(protocol_dir: Path = PROTOCOL_DIR) -> tuple[list[dict[str, Any]], str]:
    """The pinned protocol documents and their label (``devtools-protocol 0.0.1734725``)."""
    if not (protocol_dir / PROTOCOL_FILES[0]).is_file():
        # An installed wheel ships the generated bindings, not the protocol JSON.
        raise ProtocolError(
            f"the pinned protocol JSON is not here ({protocol_dir}): it ships with a source "
            "checkout, not with the installed package; generate from a running browser with "
            "--from-browser http://127.0.0.1:9222 --out DIR"
        )
    documents = [
        json.loads((protocol_dir / name).read_text(encoding="utf-8")) for name in PROTOCOL_FILES
    ]
    return documents, f"devtools-protocol {read_pin_version(protocol_dir)}"


def _get_json(url: str, timeout: float) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def fetch_browser_protocol(
    endpoint: str, timeout: float = 10.0
) -> tuple[list[dict[str, Any]], str]:
    """The protocol a running browser serves at ``endpoint/json/protocol``, labelled with
    its product string from ``endpoint/json/version`` (``Chrome/156.0.8078.79``)."""
    base = endpoint.rstrip("/")
    document = _get_json(f"{base}/json/protocol", timeout)
    version = _get_json(f"{base}/json/version", timeout)
    return [document], str(version.get("Browser") or base)
