"""``cdpkit repl``: scripted through a pipe, and typed at a pseudo-terminal (completion,
Ctrl-C, history)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
import urllib.request
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from tests.cli.conftest import CLI, alive
from tests.server import FixtureServer


def test_repl_script_through_a_pipe(cli: CLI, server: FixtureServer) -> None:
    url = server.url("/cli/index.html")
    script = f"""\
Page.navigate url={url}
await tools.wait_for(page, selector="h1")
Runtime.evaluate expression="document.title" returnByValue=true
(await page.send(cdp.runtime.evaluate("1 + 2", return_by_value=True))).result.value
heading = await tools.evaluate(page, "document.querySelector('h1').textContent")
print("h1:", heading)
Page.bogus x=1
Page.navigate {{"url": 42}}
1 / 0
print("after errors")
:tabs
:snapshot -i
:events Network
Page.reload
await tools.wait_for(page, network_idle=True)
:events off
Page.reload
print("pid", browser.process.pid, browser.process.user_data_dir)
"""
    result = cli.run("repl", "--pipe", input=script)  # --remote-debugging-pipe, no port
    out, err = result.stdout, result.stderr
    assert result.returncode == 1  # some lines failed
    assert '"frameId": "' in out
    assert '"value": "CLI test page"' in out
    assert "\n3\n" in out
    assert "h1: CLI test page" in out
    assert "after errors" in out
    assert f"* 0  CLI test page  {url}" in out
    assert 'button "Go"' in out
    before, _, after = out.partition("Stopped printing events (Network)")
    assert "Printing events of: Network" in before
    assert '[Network.requestWillBeSent] {"requestId":' in before and f'"documentURL":"{url}"' in before
    assert "[Network.responseReceived]" in before and '"status":200' in before
    assert "[Network." not in after
    assert "ProtocolError: Page.bogus: 'Page.bogus' wasn't found [code -32601]" in err
    assert "ProtocolError: Page.navigate: Invalid parameters" in err
    assert 'File "<cdpkit>", line 1, in <module>' in err and "ZeroDivisionError: division by zero" in err
    assert err.count("Traceback") == 1  # protocol errors are one line, not tracebacks
    assert ">>>" not in out  # no prompts when stdin is not a terminal

    pid_line = next(line for line in out.splitlines() if line.startswith("pid "))
    _, pid, profile = pid_line.split(" ", 2)
    assert not alive(int(pid))  # the launched browser is gone
    assert not Path(profile).exists()  # with its temporary profile


def test_repl_python_blocks_quit_and_commands(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    other = server.url("/cli/other.html")
    script = f"""\
def double(x):
    return 2 * x

double(21)
:help
:doc Page.navigate
:tab new {other}
:tabs
:tab 0
:tab 9
:bogus
Runtime.evaluate expression="unterminated
if True print(1)
exit()
print("not reached")
"""
    result = cli.run("repl", "--connect", endpoint, input=script)
    out, err = result.stdout, result.stderr
    assert result.returncode == 1
    assert out.startswith("42\n")
    assert ":events DOMAIN..." in out  # :help
    assert "cdp.page.navigate(\n    url: str," in out  # :doc
    assert re.search(rf"page is now tab (\d+): {re.escape(other)}", out)
    assert re.search(rf"\* \d+  Other page  {re.escape(other)}", out)
    assert "page is now tab 0: " in out
    assert "error: No tab '9'" in err
    assert "Unknown command :bogus (:help lists them)" in err
    assert "error: Invalid JSON value" in err
    assert "SyntaxError" in err
    assert "not reached" not in out


def test_repl_attached_leaves_the_browser_running(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/other.html?from=repl")
    result = cli.run("repl", url, "--connect", endpoint, input="print(page.url)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{url}\n"
    with urllib.request.urlopen(f"{endpoint}/json/list", timeout=10) as response:
        targets = json.load(response)
    assert url not in [t["url"] for t in targets]  # the REPL's own tab is closed
    with urllib.request.urlopen(f"{endpoint}/json/version", timeout=10) as response:
        assert "Browser" in json.load(response)  # and the browser still runs


def test_repl_start_url_that_fails(cli: CLI, endpoint: str) -> None:
    from tests.server import closed_port

    url = f"http://127.0.0.1:{closed_port()}/"
    result = cli.run("repl", url, "--connect", endpoint, input="print('still usable')\n")
    assert result.returncode == 1
    assert "error: Navigation failed: net::ERR_CONNECTION_REFUSED" in result.stderr
    assert result.stdout == "still usable\n"


# -- at a terminal ----------------------------------------------------------------------------


def spawn(cli: CLI, *args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cdpkit", "repl", *args],
        env={**cli.env, "TERM": "xterm"},
        cwd=str(cli.cwd),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.logfile_read = sys.stdout  # shown by pytest when a test fails
    child.expect_exact(">>> ")
    return child


def finish(child: pexpect.spawn) -> None:
    child.send("\x15")  # Ctrl-U: an empty line, so that Ctrl-D means end of input
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_repl_tab_completion(cli: CLI, endpoint: str) -> None:
    child = spawn(cli, "--connect", endpoint)
    try:
        child.send("Page.reloa\t")  # a protocol command
        child.expect_exact("Page.reload ")
        child.send("\x15")  # Ctrl-U: clear the line
        child.send("Page.navigate\t")
        time.sleep(0.2)
        child.send("\t")  # ambiguous: the second Tab lists the candidates
        child.expect("Page.navigate +Page.navigateToHistoryEntry")
        child.expect_exact(">>> Page.navigate")
        child.send(" ur\t")  # its parameters
        child.expect_exact("url=")
        child.send("\x15cdp.dom_sn\t")  # a bindings module
        child.expect_exact("cdp.dom_snapshot")
        child.send(".capture_sn\t")
        child.expect_exact(".capture_snapshot(")  # the echo shows only what is new
        child.send("\x15brows\t")  # a console name
        child.expect_exact("browser")
        child.send("\x15:ev\t")  # a command
        child.expect_exact(":events ")
        child.send("Netw\t")
        child.expect_exact("Network ")
        child.send("\r")
        child.expect_exact("Printing events of: Network")
        child.expect_exact(">>> ")
    finally:
        finish(child)


def prompt(child: pexpect.spawn) -> None:
    """Wait for the prompt, and a moment more: a Ctrl-C sent in the instant between the
    prompt being drawn and readline waiting for keys is only seen at the next key (a
    race of CPython's readline module, in the plain Python REPL too)."""
    child.expect_exact(">>> ")
    time.sleep(0.3)


def test_repl_ctrl_c_cancels_the_command_not_the_repl(cli: CLI, endpoint: str) -> None:
    child = spawn(cli, "--connect", endpoint)
    try:
        time.sleep(0.3)
        child.send("await asyncio.sleep(60)\r")
        time.sleep(0.5)
        child.sendintr()
        child.expect_exact("KeyboardInterrupt (the command was cancelled)")
        prompt(child)
        child.send("6 * 7\r")
        child.expect_exact("42")
        prompt(child)

        # Code that never awaits ignores the cancellation: a second Ctrl-C interrupts it.
        child.send("n = 0\r")
        prompt(child)
        child.send("while True: n += 1\r\r")
        time.sleep(0.5)
        child.sendintr()
        time.sleep(0.5)
        child.sendintr()
        child.expect_exact("KeyboardInterrupt (the command was cancelled)")
        prompt(child)
        child.send("n > 1000\r")  # it did run
        child.expect_exact("True")
        prompt(child)
        child.send("Runtime.evaluate expression=1+1\r")  # and the loop thread still works
        child.expect_exact('"value": 2')
        prompt(child)

        # At the prompt, Ctrl-C drops the line being typed.
        child.send("this line is dropped")
        child.expect_exact("dropped")
        time.sleep(0.2)
        child.sendintr()
        child.expect_exact("KeyboardInterrupt")
        prompt(child)
        child.send("print('fresh')\r")
        child.expect_exact("fresh")
        child.expect_exact(">>> ")
    finally:
        finish(child)


def test_repl_history_is_kept_between_runs(cli: CLI, endpoint: str) -> None:
    history = Path(cli.env["XDG_STATE_HOME"]) / "cdpkit" / "repl_history"
    marker = f"'history marker {os.getpid()}'"
    child = spawn(cli, "--connect", endpoint)
    child.send(f"{marker}\r")
    child.expect_exact(">>> ")
    finish(child)
    assert marker in history.read_text().splitlines()

    child = spawn(cli, "--connect", endpoint)
    try:
        child.send("\x1b[A")  # Up: the previous session's last line
        child.expect_exact(marker)
        child.send("\r")
        child.expect_exact(f"{marker}\r\n")
        child.expect_exact(">>> ")
    finally:
        finish(child)


def test_repl_prints_events_while_at_the_prompt(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    child = spawn(cli, "--connect", endpoint)
    try:
        child.send(":events Page\r")
        child.expect_exact(">>> ")
        # Navigate from a background task: its events arrive while the prompt waits.
        child.send(f"asyncio.ensure_future(asyncio.sleep(0.5)).add_done_callback(lambda _: asyncio.ensure_future(page.call('Page.navigate', {{'url': {server.url('/cli/other.html')!r}}})))\r")
        child.expect_exact(">>> ")
        child.send("typed")
        child.expect_exact("[Page.loadEventFired]")
        child.expect_exact(">>> typed")  # the prompt and the typed text are redrawn
        child.send("\x15")
    finally:
        finish(child)


@pytest.mark.parametrize("how", ["ctrl-d", ":quit", "sigterm"])
def test_repl_leaving_closes_a_launched_browser(cli: CLI, how: str) -> None:
    child = spawn(cli)
    child.send("print('pid', browser.process.pid)\r")
    child.expect(r"pid (\d+)")
    pid = int(child.match.group(1))
    child.expect_exact(">>> ")
    assert alive(pid)
    if how == "ctrl-d":
        child.sendeof()
    elif how == ":quit":
        child.send(":quit\r")
    else:
        child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == (143 if how == "sigterm" else 0)
    assert not alive(pid)


def test_repl_survives_the_browser_dying(cli: CLI) -> None:
    child = spawn(cli)
    try:
        child.send("import os, signal; os.killpg(browser.process.pid, signal.SIGKILL)\r")
        child.expect_exact("(the browser is gone: ")
        child.send("Page.reload\r")
        child.expect_exact("ConnectionClosedError: ")
        child.expect_exact(">>> ")
        child.send("'still here'\r")
        child.expect_exact("'still here'")
        child.expect_exact(">>> ")
    finally:
        finish(child)


def test_repl_element_commands_take_locators(cli: CLI, server: FixtureServer) -> None:
    url = server.url("/locators/form.html")
    script = f"""\
:goto {url}
:click role=button name="Join later"
:type ann@example.com label=Email
:select jp label=Country
:click text="I accept the terms"
:state label="I accept the terms"
:locator selector="#f-join"
:locator selector=".tile"
:click role=button name="Delete"
:click role=button name=Nope timeout=0.3
:click role=button name="join LATER" exact=false
print("page:", await tools.evaluate(page, "JSON.stringify([window.clicked, document.querySelector('[name=email]').value, document.querySelector('[name=country]').value])"))
"""
    result = cli.run("repl", input=script)
    out, err = result.stdout, result.stderr
    assert 'page: [["later","later"],"ann@example.com","jp"]' in out
    assert "checked=True" in out
    assert 'role=button name="Join"\n' in out
    assert 'text="Weekly report"\n' in out
    assert '2 elements match role=button name="Delete"; nothing was done' in err
    assert err.count('button "Delete" @(') == 2
    assert 'No element with role=button name="Nope" after 0.3 s' in err


def test_repl_record_writes_the_session_as_a_script(cli: CLI, server: FixtureServer, tmp_path: Path) -> None:
    url = server.url("/cli/index.html")
    path = tmp_path / "flow.py"
    script = f"""\
:record {path}
:goto {url}
await tools.click(page, selector="#go")
await tools.snapshot(page)
:record
:record stop
await tools.click(page, selector="#go")
"""
    result = cli.run("repl", input=script)
    assert result.returncode == 0, result.stderr
    assert f"Recording to {path}" in result.stdout
    assert "Recorded 2 steps" in result.stdout
    recorded = path.read_text()
    compile(recorded, str(path), "exec")  # a complete program
    body = recorded.split("async def replay", 1)[1]
    # :goto and the Python line, the element by role and name (not its CSS id); the
    # snapshot is no step, nor is what came after :record stop.
    assert f'await tools.navigate(page, "{url}"' in body
    assert body.count('await tools.click(page, role="button", name="Go")') == 1
    assert "#go" not in body and "snapshot" not in body
