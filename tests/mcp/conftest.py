"""MCP test helpers: the server as a subprocess driven by the ``mcp`` client SDK, and a way
to find every process it started (they all carry a marker in their environment)."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import sys
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, StdioServerParameters
from mcp.types import TextResourceContents

ROOT = Path(__file__).parent.parent.parent
MARKER = "CDPKIT_MCP_TEST_MARKER"

# The MCP names of DESIGN.md ("The tools") and of the browse tools, browser_execute_js aside
# (only with --allow-js).
EXPECTED_TOOLS = {
    "browser_navigate", "browser_go_back", "browser_go_forward", "browser_reload",
    "browser_wait", "browser_wait_for", "browser_click", "browser_hover", "browser_type",
    "browser_press_key", "browser_drag", "browser_select_option", "browser_upload_file",
    "browser_handle_dialog", "browser_snapshot", "browser_get_filtered_aria_tree",
    "browser_screenshot", "browser_get_console_logs", "browser_pdf", "browser_query_dom",
    "browser_get_visible_text", "browser_get_computed_styles", "browser_check_visibility",
    "browser_get_attributes", "browser_count_elements", "browser_get_page_metadata",
    "browser_find_by_text", "browser_get_form_values", "browser_check_element_state",
    "browser_get_dom_tree", "browser_tabs", "browser_download", "browser_scrape",
    "browser_network_requests", "browser_network_request", "browser_performance_trace",
    "browser_save_storage_state", "browser_emulate", "browser_downloads",
    # the light path (issue 14): browse first in the list
    "browse", "get_links", "get_forms", "session_list", "session_close",
    # recording the session as a script (issue 32)
    "browser_start_recording", "browser_stop_recording",
}  # fmt: skip


def marked_processes(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of the live processes whose environment carries ``marker``."""
    found = []
    needle = f"{MARKER}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            stat = (entry / "stat").read_text()
            if stat[stat.rfind(")") + 2] in "ZX":
                continue  # a zombie is gone
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        found.append((int(entry.name), cmdline))
    return found


def browser_processes(marker: str) -> list[tuple[int, str]]:
    return [p for p in marked_processes(marker) if "chrom" in p[1].split(" ")[0].lower()]


async def wait_until_gone(
    marker: str, timeout: float = 15, *, browser_only: bool = False
) -> list[tuple[int, str]]:
    """Wait for every marked process (or every marked browser process) to exit; those
    still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        alive = browser_processes(marker) if browser_only else marked_processes(marker)
        if not alive or time.monotonic() > deadline:
            return alive
        await asyncio.sleep(0.1)


def server_env(marker: str) -> dict[str, str]:
    return {**os.environ, MARKER: marker}


class McpSession:
    """An MCP client connected over stdio to ``python -m cdpkit.mcp_server ARGS``.

    The client is entered and exited by a task of its own, so tests running in other
    tasks can share it.
    """

    def __init__(self, args: Sequence[str], entry: Sequence[str] = ("-m", "cdpkit.mcp_server")) -> None:
        self.marker = uuid.uuid4().hex
        self.args = list(args)
        self.entry = list(entry)
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def client(self) -> Client:
        assert self._client is not None, "not connected"
        return self._client

    async def start(self) -> McpSession:
        self._task = asyncio.create_task(self._run())
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({ready, self._task}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        if self._task.done():
            self._task.result()  # raises what went wrong
        assert self._ready.is_set(), "the MCP server did not initialize within 60 s"
        return self

    async def _run(self) -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=[*self.entry, *self.args],
            env=server_env(self.marker),
            cwd=str(ROOT),
        )
        async with Client(params, read_timeout_seconds=120) as client:
            self._client = client
            self._ready.set()
            await self._stop.wait()
        self._client = None

    async def stop(self) -> None:
        """Disconnect: the client closes the server's stdin and waits for it to exit."""
        self._stop.set()
        if self._task is not None:
            await self._task

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return await self.client.call_tool(name, arguments or {})


def text_of(result: Any) -> str:
    """The text parts of a tool result, joined."""
    return "\n".join(part.text for part in result.content if part.type == "text")


def resource_text(result: Any) -> str:
    """The text of a one-item ``resources/read`` result."""
    (contents,) = result.contents
    assert isinstance(contents, TextResourceContents), contents
    assert contents.mime_type == "application/json"
    return contents.text


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def image_of(result: Any) -> tuple[bytes, str]:
    images = [part for part in result.content if part.type == "image"]
    assert len(images) == 1, result.content
    return base64.b64decode(images[0].data), images[0].mime_type


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def mcp_stdio(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpSession]:
    downloads = tmp_path_factory.mktemp("mcp-downloads")
    session = McpSession(["--downloads", str(downloads)])
    session.downloads = downloads  # type: ignore[attr-defined]
    await session.start()
    try:
        yield session
    finally:
        await session.stop()
