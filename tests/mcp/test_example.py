"""examples/mcp_client.py runs end to end against the real server and browser."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path

from .conftest import EXPECTED_TOOLS, ROOT, server_env, wait_until_gone


async def test_mcp_client_example(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    out = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(ROOT / "examples" / "mcp_client.py")],
        cwd=tmp_path,  # run where a user would: anything it writes stays out of the checkout
        env=server_env(marker),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"{len(EXPECTED_TOOLS)} tools, e.g. browse, get_links, get_forms, session_list"
    assert "Browsed: Title: Hello from cdpkit" in lines
    assert "Opened: Hello from cdpkit" in lines
    assert 'After the click: button "Clicked!"' in lines
    assert any(line.startswith("Screenshot: image/png, ") for line in lines)
    assert "Tabs: ['/hello.html']" in lines
    assert "Error result: True, 'Element not found: #missing'" in lines
    assert await wait_until_gone(marker) == []  # the server and its browser are gone
