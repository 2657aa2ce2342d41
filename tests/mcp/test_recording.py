"""Recording an agent's MCP session as a script that replays without the agent (issue 32).

An agent fills a form served here by snapshot indices, over MCP with the official SDK;
the script the server wrote replays it in a fresh process, and the form receives the same
submission, also from a re-laid-out page whose fields are reordered and whose ids and
classes all changed. Ambiguous and missing elements fail the replay clearly, with nothing
submitted; a killed server leaves the steps done so far as a valid program.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import os
import re
import signal
import sys
import threading
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .conftest import ROOT, McpSession, browser_processes, marked_processes, text_of

# The same form twice: the re-laid-out one has its fields in another order, other ids,
# other classes and other wrappers; labels, names and the button's text are the page's
# meaning and stay.
ORIGINAL = """<!doctype html><title>Sign up</title>
<form method="post" action="/submit" class="signup">
  <p class="row-1"><label for="f-name">Full name</label> <input id="f-name" class="in" name="fullname"></p>
  <p class="row-2"><label for="f-mail">Email</label> <input id="f-mail" class="in" name="email" type="email"></p>
  <p class="row-3"><label for="f-country">Country</label>
    <select id="f-country" class="in" name="country">
      <option value="fr">France</option><option value="de">Germany</option><option value="it">Italy</option>
    </select></p>
  <p class="row-4"><label><input type="checkbox" name="newsletter" value="yes"> Subscribe to the newsletter</label></p>
  <button type="submit" id="go" class="btn">Send</button>
</form>"""

RELAID = """<!doctype html><title>Sign up</title>
<div class="x-wrapper"><section class="q7">
<form method="post" action="/submit" class="zz-form">
  <div class="k1"><button type="submit" id="b-77" class="primary-action">Send</button></div>
  <div class="k2"><label><input type="checkbox" name="newsletter" value="yes" class="c"> Subscribe to the newsletter</label></div>
  <div class="k3"><label for="q-sel">Country</label>
    <select id="q-sel" class="s" name="country">
      <option value="it">Italy</option><option value="de">Germany</option><option value="fr">France</option>
    </select></div>
  <div class="k4"><label for="e-x1">Email</label> <input id="e-x1" class="t2" name="email" type="email"></div>
  <div class="k5"><label for="n-x2">Full name</label> <input id="n-x2" class="t1" name="fullname"></div>
</form></section></div>"""

# Two buttons named Send: the replay must not pick one.
AMBIGUOUS = ORIGINAL.replace(
    "</form>", '</form><form method="post" action="/submit"><button>Send</button></form>'
)
# The Email field is now labelled otherwise: the replay must not type into another one.
MISSING = ORIGINAL.replace(">Email<", ">Work address<")

THANKS = "<!doctype html><title>Thanks</title><h1>Thanks, we got it</h1>"

EXPECTED = {
    "fullname": ["Ada Lovelace"],
    "email": ["ada@example.com"],
    "country": ["de"],
    "newsletter": ["yes"],
}


@dataclass
class FormSite:
    """The form's site: which layout it serves, and the submissions it received."""

    page: str = ORIGINAL
    submissions: list[dict[str, list[str]]] = field(default_factory=list)
    origin: str = ""

    def url(self, path: str) -> str:
        return self.origin + path


@pytest.fixture(scope="module")
def site() -> Iterator[FormSite]:
    state = FormSite()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _reply(self, body: str) -> None:
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply(state.page if self.path.startswith("/form") else THANKS)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            state.submissions.append(urllib.parse.parse_qs(body))
            self._reply(THANKS)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def index_of(snapshot: str, role: str, name: str) -> int:
    """The snapshot index of the element ``role "name"``, as an agent reads it."""
    found = re.search(rf"\[(\d+)\] {role} \"{re.escape(name)}\"", snapshot)
    assert found, f"no {role} {name!r} in the snapshot:\n{snapshot}"
    return int(found.group(1))


async def fill_the_form(mcp: McpSession, site: FormSite) -> None:
    """What an agent does: navigate, read the snapshot, act by index."""
    result = await mcp.call("browser_navigate", {"url": site.url("/form")})
    assert not result.is_error, text_of(result)
    snapshot = text_of(await mcp.call("browser_snapshot"))
    steps = [
        ("browser_type", {"index": index_of(snapshot, "textbox", "Full name"), "text": "Ada Lovelace"}),
        ("browser_type", {"index": index_of(snapshot, "textbox", "Email"), "text": "ada@example.com"}),
        ("browser_select_option", {"index": index_of(snapshot, "combobox", "Country"), "values": ["de"]}),
        ("browser_click", {"index": index_of(snapshot, "checkbox", "Subscribe to the newsletter")}),
        ("browser_click", {"index": index_of(snapshot, "button", "Send")}),
        ("browser_wait_for", {"text": "Thanks, we got it"}),
    ]
    for name, arguments in steps:
        result = await mcp.call(name, arguments)
        assert not result.is_error, f"{name} {arguments}: {text_of(result)}"


@dataclass
class Recorded:
    path: Path
    returned: str


@pytest.fixture(scope="module")
async def recorded(site: FormSite, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Recorded]:
    """The agent's session, recorded by ``cdpkit mcp --record FILE``."""
    folder = tmp_path_factory.mktemp("recording")
    path = folder / "signup.py"
    mcp = McpSession(["--downloads", str(folder), "--record", str(path)])
    await mcp.start()
    try:
        await fill_the_form(mcp, site)
        stopped = await mcp.call("browser_stop_recording")
        assert not stopped.is_error, text_of(stopped)
    finally:
        await mcp.stop()
    assert site.submissions == [EXPECTED]  # the agent's own submission
    site.submissions.clear()
    yield Recorded(path, text_of(stopped))


async def replay(path: Path) -> tuple[int, str]:
    """Run the script as a user does, ``python FILE``, in a fresh process; its exit
    status and output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path),
        cwd=path.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, output.decode()


async def test_the_script_replays_the_session(recorded: Recorded, site: FormSite) -> None:
    script = recorded.path.read_text()
    # What stop returned is the file, and the file never names a snapshot index.
    assert script in recorded.returned
    assert "index=" not in script
    assert 'label="Email"' in script or 'name="Email"' in script
    # The submit loaded the next page: waited for, then the text the agent waited for.
    assert "async with page.expect(cdp.page.LoadEventFired):" in script
    assert 'await tools.wait_for(page, text="Thanks, we got it")' in script
    site.page = ORIGINAL
    status, output = await replay(recorded.path)
    assert status == 0, output
    assert site.submissions == [EXPECTED]
    site.submissions.clear()


async def test_the_script_survives_a_relaid_page(recorded: Recorded, site: FormSite) -> None:
    site.page = RELAID
    try:
        status, output = await replay(recorded.path)
    finally:
        site.page = ORIGINAL
    assert status == 0, output
    assert site.submissions == [EXPECTED]
    site.submissions.clear()


async def test_the_script_passes_mypy_strict(recorded: Recorded, request: pytest.FixtureRequest) -> None:
    # The cache outlives the run: only the first run checks cdpkit itself.
    # (without the cache plugin, -p no:cacheprovider, mypy uses its default folder)
    config_cache = getattr(request.config, "cache", None)
    cache = config_cache.mkdir("recorded-script-mypy") if config_cache is not None else None
    process = await asyncio.create_subprocess_exec(
        # cdpkit checked as an installed package is: its own errors are not the script's.
        sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary",
        *(["--cache-dir", str(cache)] if cache is not None else []),
        str(recorded.path),
        cwd=recorded.path.parent,
        env={**os.environ, "MYPYPATH": str(ROOT)},  # this checkout's cdpkit
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, output.decode()


async def test_an_ambiguous_element_fails_the_replay(recorded: Recorded, site: FormSite) -> None:
    site.page = AMBIGUOUS
    try:
        status, output = await replay(recorded.path)
    finally:
        site.page = ORIGINAL
    assert status != 0
    assert "AmbiguousLocatorError" in output, output
    assert "Send" in output.split("AmbiguousLocatorError")[-1]
    assert site.submissions == []


async def test_a_missing_element_fails_the_replay(recorded: Recorded, site: FormSite) -> None:
    site.page = MISSING
    try:
        status, output = await replay(recorded.path)
    finally:
        site.page = ORIGINAL
    assert status != 0
    assert "ElementNotFoundError" in output, output
    assert "Email" in output.split("ElementNotFoundError")[-1]
    assert site.submissions == []


async def test_a_killed_server_leaves_the_steps_done(site: FormSite, tmp_path: Path) -> None:
    mcp = McpSession(["--downloads", str(tmp_path)])
    await mcp.start()
    try:
        started = await mcp.call("browser_start_recording", {"filename": "partial"})
        assert not started.is_error, text_of(started)
        path = tmp_path / "partial.py"
        assert str(path) in text_of(started)
        await mcp.call("browser_navigate", {"url": site.url("/form")})
        snapshot = text_of(await mcp.call("browser_snapshot"))
        index = index_of(snapshot, "textbox", "Full name")
        typed = await mcp.call("browser_type", {"index": index, "text": "Ada Lovelace"})
        assert not typed.is_error, text_of(typed)
        # Killed mid-session, as a crash would: no stop, no clean exit.
        servers = [pid for pid, command in marked_processes(mcp.marker) if "cdpkit.mcp_server" in command]
        assert len(servers) == 1, marked_processes(mcp.marker)
        os.kill(servers[0], signal.SIGKILL)
        with contextlib.suppress(Exception):
            await mcp.stop()
    finally:
        for pid, _ in browser_processes(mcp.marker):  # orphaned by the kill
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    script = path.read_text()
    compile(script, str(path), "exec")  # a complete program
    assert site.url("/form") in script
    assert '"Ada Lovelace"' in script
    assert "index=" not in script
    # It replays what was done (the form is filled, not sent).
    status, output = await replay(path)
    assert status == 0, output
    assert site.submissions == []
