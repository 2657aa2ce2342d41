"""The listing the MCP front answers the handshake from (``_listing.json``, see
:mod:`cdpkit.mcp._front`), recorded from the SDK server itself: what it answers to
``initialize``, ``server/discover`` and ``tools/list`` with each variant of the options
that change the tools or the instructions (``--allow-js``, ``--allow-file-urls``).

    python -m cdpkit.mcp._listing --write    # after changing a tool, its docstring, the
                                             # instructions, or upgrading mcp
    python -m cdpkit.mcp._listing --check    # exit status 1 if the file is stale

Needs the ``mcp`` extra; a test checks that the file is current.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ._front import LISTING_PATH, installed_mcp, listing_variant
from ._server import server_options
from ._session import ServerOptions

__all__ = ["main", "record_listing", "sdk_answers"]

_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


def _envelope() -> dict[str, Any]:
    return {
        _VERSION_KEY: "",
        _CLIENT_INFO_KEY: {"name": "cdpkit-listing", "version": "1"},
        _CAPABILITIES_KEY: {},
    }


async def sdk_answers(options: ServerOptions, requests: list[dict[str, Any]]) -> list[Any]:
    """What the SDK server answers to ``requests`` (sent one after the other over its
    stdio transport, each after the previous answer)."""
    import anyio

    from . import _app
    from ._session import BrowserSession

    answers: list[Any] = []
    answered = anyio.Event()

    class Script:
        async def lines(self) -> AsyncIterator[str]:
            nonlocal answered
            for request in requests:
                answered = anyio.Event()
                yield json.dumps(request) + "\n"
                if "id" in request:
                    await answered.wait()

        def __aiter__(self) -> AsyncIterator[str]:
            return self.lines()

        async def write(self, text: str) -> None:
            answers.append(json.loads(text))
            answered.set()

        async def flush(self) -> None:
            pass

    script = Script()
    await _app.run_stdio(BrowserSession(options), stdin=script, stdout=script)
    return answers


async def _record(mcp_version: str) -> dict[str, Any]:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    modern = MODERN_PROTOCOL_VERSIONS[-1]
    envelope = {**_envelope(), _VERSION_KEY: modern}
    legacy_requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": HANDSHAKE_PROTOCOL_VERSIONS[-1], "capabilities": {},
            "clientInfo": {"name": "cdpkit-listing", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]  # fmt: skip
    modern_requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": envelope}},
    ]
    listing: dict[str, Any] = {
        "mcp": mcp_version,
        "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "modern_versions": list(MODERN_PROTOCOL_VERSIONS),
        "tools": {},
        "instructions": {},
    }
    for allow_js in (False, True):
        for allow_file_urls in (False, True):
            name = listing_variant(allow_js=allow_js, allow_file_urls=allow_file_urls)
            options = server_options(allow_js=allow_js, allow_file_urls=allow_file_urls)
            await _record_variant(listing, name, options, legacy_requests, modern_requests)
    return listing


async def _record_variant(
    listing: dict[str, Any],
    name: str,
    options: ServerOptions,
    legacy_requests: list[dict[str, Any]],
    modern_requests: list[dict[str, Any]],
) -> None:
    """Record what the SDK answers with these options into ``listing``."""
    initialize, tools = await sdk_answers(options, legacy_requests)
    discover, modern_tools = await sdk_answers(options, modern_requests)
    if modern_tools["result"]["tools"] != tools["result"]["tools"]:
        raise RuntimeError("The SDK lists different tools in the two protocol eras")
    if initialize["result"]["instructions"] != discover["result"]["instructions"]:
        raise RuntimeError("The SDK gives different instructions in the two eras")
    listing["tools"][name] = tools["result"]["tools"]
    if "allow_js" not in name:
        listing["instructions"][name] = initialize["result"]["instructions"]
    if name == "default":
        listing["initialize"] = {
            key: value for key, value in initialize["result"].items()
            if key not in ("protocolVersion", "instructions")
        }  # fmt: skip
        listing["discover"] = {
            key: value for key, value in discover["result"].items() if key != "instructions"
        }
        listing["modern_list"] = {
            key: value for key, value in modern_tools["result"].items() if key != "tools"
        }


def record_listing() -> dict[str, Any]:
    """The listing as the installed SDK server answers: what ``_listing.json`` must
    hold. Needs the ``mcp`` extra."""
    import asyncio

    version = installed_mcp()
    if version is None:
        raise RuntimeError("Recording the MCP listing needs the 'mcp' package")
    return asyncio.run(_record(version))


def _listing_text(listing: Mapping[str, Any]) -> str:
    return json.dumps(listing, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m cdpkit.mcp._listing --write | --check``: record the listing the front
    answers from, or say whether the recorded one is stale (exit status 1)."""
    args = sys.argv[1:] if argv is None else argv
    if args not in (["--write"], ["--check"]):
        print("usage: python -m cdpkit.mcp._listing --write | --check", file=sys.stderr)
        return 2
    text = _listing_text(record_listing())
    if args == ["--write"]:
        LISTING_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {LISTING_PATH}")
        return 0
    current = LISTING_PATH.read_text(encoding="utf-8") if LISTING_PATH.exists() else ""
    if current != text:
        print(
            f"{LISTING_PATH} is stale (a tool's signature or docstring, the instructions or "
            "the mcp version changed): run python -m cdpkit.mcp._listing --write",
            file=sys.stderr,
        )
        return 1
    print(f"{LISTING_PATH} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
