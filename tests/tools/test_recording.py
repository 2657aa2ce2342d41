"""``cdpkit.record``: what is done with the tools becomes a typed cdpkit script, written as
the session goes (issue 32). The MCP and replay side: tests/mcp/test_recording.py."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import cdpkit
from cdpkit import tools
from cdpkit.errors import ElementNotFoundError
from tests.server import FixtureServer

ROOT = Path(__file__).parent.parent.parent

PANEL = """<!doctype html><title>Panel</title>
<button id="b-8f3a21" class="x1" onclick="document.getElementById('out').textContent = 'pressed'">Press me</button>
<label><input type="checkbox" id="c-91"> Remember me</label>
<a href="/rec/next">Next page</a>
<p id="out"></p>"""

NEXT = "<!doctype html><title>Next</title><h1>The next page</h1>"

LATE = """<!doctype html><title>Late</title>
<script>setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late';
document.body.append(b); }, 3000)</script>"""

DIALOG = """<!doctype html><title>Dialog</title>
<button onclick="document.getElementById('out').textContent = confirm('Sure?') ? 'yes' : 'no'">Ask</button>
<p id="out"></p>"""


LOGIN = """<!doctype html><title>Login</title>
<label>User <input id="u"></label>
<label>Password <input type="password" id="p"
  oninput="document.getElementById('out').textContent = 'length ' + this.value.length"></label>
<p id="out"></p>"""


@pytest.fixture(autouse=True)
def pages(server: FixtureServer) -> None:
    server.route("/rec/login", lambda h: h.reply(200, LOGIN))
    server.route("/rec/panel", lambda h: h.reply(200, PANEL))
    server.route("/rec/next", lambda h: h.reply(200, NEXT))
    server.route("/rec/late", lambda h: h.reply(200, LATE))
    server.route("/rec/dialog", lambda h: h.reply(200, DIALOG))


def index_of(snapshot: tools.Snapshot, role: str, name: str) -> int:
    return next(n.index for n in snapshot.nodes if n.role == role and n.name == name)


async def test_each_action_is_written_as_it_goes_with_a_locator(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "flow.py"
    await tools.navigate(page, server.url("/rec/panel"))
    async with cdpkit.record(page, path) as recording:
        # Started on a page: the script opens it first.
        assert server.url("/rec/panel") in path.read_text()
        snapshot = await tools.snapshot(page)
        await tools.click(page, index=index_of(snapshot, "button", "Press me"))
        after_one = path.read_text()  # written before the next step, not at the end
        assert 'tools.click(page, role="button", name="Press me")' in after_one
        compile(after_one, str(path), "exec")
        await tools.click(page, index=index_of(snapshot, "checkbox", "Remember me"))
        await tools.click(page, index=index_of(snapshot, "link", "Next page"))
        await tools.wait_for(page, text="The next page")
    script = path.read_text()
    assert script == recording.script
    assert "index=" not in script and "b-8f3a21" not in script
    assert 'tools.click(page, role="checkbox", name="Remember me")' in script
    # The link loaded a page: the script waits for that load, then for the text.
    link = script.index('name="Next page"')
    assert "async with page.expect(cdp.page.LoadEventFired):" in script[script.rindex("#", 0, link) - 200 : link]
    assert 'await tools.wait_for(page, text="The next page")' in script
    # Snapshots and other reads are not steps.
    assert "snapshot" not in script.split('"""', 2)[2]


async def test_an_element_that_came_late_is_waited_for(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await tools.navigate(page, server.url("/rec/late"))
    async with cdpkit.record(page) as recording:
        with pytest.raises(ElementNotFoundError):
            await tools.click(page, role="button", name="Late", timeout=0.1)
        await tools.wait(page, 3100)  # the button comes 3 s after load: late on any machine
        await tools.click(page, role="button", name="Late", timeout=0.1)
    script = recording.script
    # The failed try is not a step; the one that worked waits as long as the session did.
    assert script.count('name="Late"') == 1
    assert 'tools.click(page, role="button", name="Late", timeout=' in script
    assert "came late" in script
    assert "await tools.wait(page, 3100)" in script


async def test_a_dialog_answer_is_armed_before_the_action_and_replays(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "dialog.py"
    await tools.navigate(page, server.url("/rec/dialog"))
    async with cdpkit.record(page, path):
        answer = asyncio.ensure_future(tools.handle_dialog(page, accept=True))
        await tools.click(page, role="button", name="Ask")
        await answer
        await tools.wait_for(page, text="yes", timeout=5)
        tab = await tools.new_tab(page.browser, server.url("/rec/next"), context=page.context)
        await tools.switch_tab(page.browser, page.target_id)
        await tools.close_tab(page.browser, tab.target_id)
    script = path.read_text()
    click = 'await tools.click(page, role="button", name="Ask")'
    assert (
        f"dialog_1 = asyncio.ensure_future(tools.handle_dialog(page, accept=True))\n"
        f"    {click}\n    await dialog_1\n"
    ) in script
    assert "page = await tools.switch_tab(browser, (await tools.list_tabs(browser))[0].id)" in script
    assert "await tools.close_tab(browser, (await tools.list_tabs(browser))[1].id)" in script
    # The replay answers the dialog as the session did (the wait for "yes" passes).
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, output.decode()


async def test_only_the_recording_context_is_recorded(page: cdpkit.Page, server: FixtureServer) -> None:
    recording = cdpkit.record(page)

    async def elsewhere() -> None:
        await tools.navigate(page, server.url("/rec/next"))

    other = asyncio.get_running_loop().create_task(elsewhere())  # before the start: not copied
    recording.start()
    await other
    await tools.wait(page, 1)
    script = await recording.stop()
    assert "/rec/next" not in script
    assert "await tools.wait(page, 1)" in script
    await tools.wait(page, 2)  # after stop: not recorded
    assert "tools.wait(page, 2)" not in recording.script


async def test_an_answer_kept_for_the_next_dialog_arms_that_action(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    from cdpkit.mcp._tools import handle_dialog  # browser_handle_dialog: never waits

    await tools.navigate(page, server.url("/rec/dialog"))
    async with cdpkit.record(page) as recording:
        assert "No dialog is open" in await handle_dialog(page, accept=False)
        await tools.click(page, role="button", name="Ask")
        await tools.wait_for(page, text="no", timeout=5)
    body = recording.script.split("async def replay", 1)[1]
    assert (
        "dialog_1 = asyncio.ensure_future(tools.handle_dialog(page, accept=False))\n"
        '    await tools.click(page, role="button", name="Ask")\n'
        "    await dialog_1\n"
    ) in body
    assert body.count("handle_dialog") == 1


@pytest.mark.parametrize(
    "value",
    ['say "hi"\n\tand \\ leave', "naïve — 日本 🎉", 0, -2.5, True, None, ["a", 1, [2.0]], ("x",)],
)
def test_values_are_written_as_python_that_reads_back(value: object) -> None:
    from cdpkit.tools._recorded_script import literal

    expected = list(value) if isinstance(value, tuple) else value
    assert eval(literal(value)) == expected


def test_a_value_with_no_literal_is_refused() -> None:
    from cdpkit.tools._recorded_script import literal

    with pytest.raises(TypeError):
        literal(object())
    with pytest.raises(TypeError):
        literal(float("nan"))


async def test_a_password_is_never_written_and_replays_from_the_environment(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "login.py"
    await tools.navigate(page, server.url("/rec/login"))
    async with cdpkit.record(page, path):
        snapshot = await tools.snapshot(page)
        await tools.type_text(page, "ada", index=index_of(snapshot, "textbox", "User"))
        await tools.type_text(page, "s3cr3t-pw", index=index_of(snapshot, "textbox", "Password"))
        await tools.wait_for(page, text="length 9")
    script = path.read_text()
    assert "s3cr3t-pw" not in script
    assert 'secret("CDPKIT_SECRET_1")' in script and '"ada"' in script
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path),
        env={**os.environ, "PYTHONPATH": str(ROOT), "CDPKIT_SECRET_1": "s3cr3t-pw"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, output.decode()  # it typed the 9 characters again


SLOW_FORM = """<!doctype html><title>Form</title>
<form method="post" action="/rec/slow-thanks"><label>Name <input name="n"></label>
<button>Send</button></form>"""


async def test_a_submit_that_ends_the_recording_is_waited_for_in_the_script(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    """The recording stops right after the click that posts the form, before the answer
    came: the script still waits for that load, or a replay would close its browser with
    the submission on its way."""
    received: list[bytes] = []

    def thanks(handler: Any) -> None:
        received.append(handler.rfile.read(int(handler.headers.get("Content-Length") or 0)))
        time.sleep(0.5)  # answered after the recording stopped
        handler.reply(200, "<!doctype html><title>Thanks</title><p>Thanks")

    server.route("/rec/slow-form", lambda h: h.reply(200, SLOW_FORM))
    server.route("/rec/slow-thanks", thanks)
    path = tmp_path / "submit.py"
    await tools.navigate(page, server.url("/rec/slow-form"))
    async with cdpkit.record(page, path):
        await tools.type_text(page, "Ada", label="Name")
        await tools.click(page, role="button", name="Send")
    script = path.read_text()
    send = script.index('name="Send"')
    assert "async with page.expect(cdp.page.LoadEventFired):" in script[script.rindex("#", 0, send) - 200 : send]
    received.clear()
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path), env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, output.decode()
    assert received == [b"n=Ada"]  # the replay's browser stayed until the server answered
