"""The MCP tools that record the session as a script: ``browser_start_recording`` and
``browser_stop_recording`` (``cdpkit mcp --record FILE`` starts one with the server).

While a recording runs, each browser tool that acts and succeeds is written down as the
cdpkit call that replays it, with the element found again by role and name, label, text
or stable attributes, never by its snapshot index (see :mod:`cdpkit.tools._recording`).
The file is a complete typed program after every step: ``python FILE`` replays the
session without the agent.
"""

from __future__ import annotations

import time
from typing import Any

from ..tools import Recording
from ..tools.files import claim_free_name, sanitize_filename
from ._schema import Part, Text, ToolSpec, describe, input_model_of, parse_docstring
from ._session import BrowserSession
from ._text import TOOL_TEXT

__all__ = ["recording_tools"]


async def browser_start_recording(session: BrowserSession, *, filename: str | None = None) -> str:
    """Start recording this session as a replayable cdpkit script: from now on, each
    action that succeeds (navigate, click, type, select, press a key, upload, wait,
    download, dialog answers, tab changes) is written as a typed cdpkit call, the
    element found by its role and name, label or text (never by snapshot index).
    ``python FILE`` then replays it without the agent. It starts on the page open now.

    Args:
        session: The server's browser session.
        filename: The script's name (default ``recording-<timestamp>.py``), saved in the
            server's download directory; never over an existing file.

    Returns:
        Where the script is written (after every step).
    """
    if session.recording is not None:
        where = session.recording.path
        raise ValueError(
            f"A recording is already running (to {where}); stop it with browser_stop_recording first"
        )
    directory = session.options.download_dir
    name = sanitize_filename(filename) if filename else ""
    if name and not name.endswith(".py"):
        name += ".py"
    path = claim_free_name(directory, name or f"recording-{int(time.time() * 1000)}.py", mode=0o600)
    browser = session.current
    start_url = None
    if browser is not None:
        page = await session.page()
        start_url = page.url
    session.recording = Recording(path, start_url=start_url).start(activate=False)
    return f"Recording to {path}. Act as usual; browser_stop_recording ends it and returns the script."


async def browser_stop_recording(session: BrowserSession) -> str:
    """Stop recording the session; returns the script (a complete typed Python program:
    ``python FILE`` replays it headless, ``--headful`` to watch).

    Args:
        session: The server's browser session.

    Returns:
        Where the script was written, then its text.
    """
    recording = session.recording
    if recording is None:
        raise ValueError("No recording is running; start one with browser_start_recording")
    script = await recording.stop()
    session.recording = None
    return f"Recorded {len(recording.steps)} steps to {recording.path}:\n\n{script}"


def _recording_tool(name: str, function: Any, *, page_content: bool) -> ToolSpec:
    doc = parse_docstring(function.__doc__)
    purpose, descriptions = TOOL_TEXT.get(name, (None, {}))
    model = input_model_of(name, function, doc, (), descriptions)

    async def run(session: BrowserSession, arguments: dict[str, Any]) -> list[Part]:
        return [Text(await function(session, **arguments))]

    return ToolSpec(
        name=name,
        # The script quotes the page: the names and texts that find its elements.
        description=describe(doc, page_content=page_content, purpose=purpose),
        input_model=model,
        run=run,
    )


def recording_tools() -> list[ToolSpec]:
    """The two recording tools."""
    return [
        _recording_tool("browser_start_recording", browser_start_recording, page_content=False),
        _recording_tool("browser_stop_recording", browser_stop_recording, page_content=False),
    ]

