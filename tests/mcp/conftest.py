"""MCP test helpers: the server as a subprocess driven by the ``mcp`` client SDK, and a way
to find every process it started (they all carry a marker in their environment)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, StdioServerParameters
from mcp.types import TextResourceContents

from tests.server import free_port

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


class HttpServer:
    def __init__(self, process: subprocess.Popen[bytes], port: int, marker: str, log: Path) -> None:
        self.process = process
        self.port = port
        self.marker = marker
        self.log = log

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class HttpServers:
    """Starts ``python -m cdpkit.mcp_server --http PORT ...`` processes; kills them at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.started: list[HttpServer] = []

    def start(self, *args: str, entry: tuple[str, ...] = ("-m", "cdpkit.mcp_server")) -> HttpServer:
        port = free_port()
        # A debugging port of its own lets the test see every tab of the server's browser.
        self.debug_port = free_port()
        marker = uuid.uuid4().hex
        log = self.tmp_path / f"server-{port}.log"
        with log.open("wb") as stderr:
            process = subprocess.Popen(
                [
                    *(sys.executable, *entry, "--http", str(port)),
                    *("--allow-js", "--downloads", str(self.tmp_path)),
                    f"--chrome-arg=--remote-debugging-port={self.debug_port}",
                    *args,
                ],
                cwd=ROOT,
                env=server_env(marker),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        server = HttpServer(process, port, marker, log)
        self.started.append(server)
        deadline = time.monotonic() + 60
        while not listening(port):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the HTTP server did not listen within 60 s"
            time.sleep(0.1)
        return server

    def browser_tab_urls(self) -> list[str]:
        """The URLs of every tab of the server's browser, whichever client opened it (but
        the blank tab the browser starts with, in its default context)."""
        url = f"http://127.0.0.1:{self.debug_port}/json/list"
        with urllib.request.urlopen(url, timeout=10) as response:
            targets = json.loads(response.read())
        return [t["url"] for t in targets if t["type"] == "page" and t["url"] != "about:blank"]

    def stop(self) -> None:
        for server in self.started:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[HttpServers]:
    started = HttpServers(tmp_path)
    try:
        yield started
    finally:
        started.stop()


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
