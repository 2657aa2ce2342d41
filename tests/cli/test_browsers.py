"""Commands around browsers and bindings: launch, open-browser, doctor, protocol, gen; and
cleanup when a command is interrupted or terminated."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import cdpkit
from cdpkit.cli import diff_protocol, format_protocol_diff
from tests.cli.conftest import CLI, REPO, LaunchedBrowser, children, wait_gone
from tests.server import FixtureServer


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


# -- launch ---------------------------------------------------------------------------------


def test_launch_prints_the_endpoint(shared_browser: LaunchedBrowser) -> None:
    endpoint = shared_browser.endpoint
    assert "Browser" in get_json(f"{endpoint}/json/version")  # type: ignore[operator]
    assert f"Attach with: cdpkit repl --connect {endpoint}" in shared_browser.banner
    assert "Press Ctrl-C to stop it." in shared_browser.banner


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_launch_stops_on_ctrl_c_or_sigterm_and_leaves_nothing(cli: CLI, signum: int) -> None:
    process = cli.popen("launch")
    assert process.stdout is not None
    endpoint = process.stdout.readline().strip()
    assert get_json(f"{endpoint}/json/version")
    chrome = children(process.pid)
    assert chrome
    process.send_signal(signum)
    assert process.wait(timeout=30) == 0
    wait_gone(chrome)


def test_launch_stopped_the_moment_it_prints_its_endpoint_stops_cleanly(cli: CLI) -> None:
    # The endpoint is printed once Ctrl-C is caught: a script may stop it at once.
    for _ in range(3):
        process = cli.popen("launch")
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        process.send_signal(signal.SIGINT)
        assert endpoint.startswith("http://127.0.0.1:")
        assert process.wait(timeout=30) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_command_cleans_up(cli: CLI, server: FixtureServer, signum: int, status: int) -> None:
    process = cli.popen("eval", server.url("/cli/index.html"), "await new Promise(() => {})")
    deadline = time.monotonic() + 30
    chrome: list[int] = []
    while not chrome and time.monotonic() < deadline:
        chrome = children(process.pid)
        time.sleep(0.1)
    time.sleep(1.5)  # the page is loading or the promise is pending
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == status
    assert stderr.strip().splitlines()[-1] in ("error: interrupted", "error: terminated by SIGTERM")
    assert "Traceback" not in stderr
    wait_gone(chrome)


# Ctrl-C while the command line's modules load: a finder interrupts the import of the app,
# as a Ctrl-C a few hundred ms after the command starts does.
INTERRUPTED_IMPORT = """
import sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "cdpkit.cli._app":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
from cdpkit.cli import main

main(["eval", "about:blank", "1"])
"""


def test_ctrl_c_while_the_command_loads_is_a_one_line_error(cli: CLI) -> None:
    result = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT], capture_output=True,
                            text=True, env=cli.env, cwd=cli.cwd, timeout=60)
    assert result.returncode == 130
    assert result.stderr == "error: interrupted\n"


# -- open-browser -----------------------------------------------------------------------------


def test_open_browser_needs_a_display(cli: CLI) -> None:
    result = cli.run("open-browser", "--profile", "work")
    assert result.returncode == 1
    assert result.stderr.startswith("error: open-browser needs a display")
    assert "$DISPLAY" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    bad = cli.run("open-browser", "--profile", "../etc")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: Invalid profile name '../etc'")


HEADLESS_OZONE = "--chrome-arg=--ozone-platform=headless"  # a headed Chrome without a display


async def test_open_browser_holds_the_profile_until_the_browser_closes(
    cli: CLI, server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CDPKIT_PROFILES", cli.env["CDPKIT_PROFILES"])
    url = server.url("/cli/other.html")
    process = cli.popen("open-browser", "--profile", "login", url, HEADLESS_OZONE)
    try:
        assert process.stdout is not None and process.stderr is not None
        endpoint = process.stdout.readline().strip()
        assert endpoint.startswith("http://127.0.0.1:"), process.stderr.read()
        assert "Log in, then close the browser window" in process.stderr.readline() + process.stderr.readline()

        with pytest.raises(cdpkit.ProfileLockedError):  # the profile is locked while it is open
            async with cdpkit.launch(profile="login", lock_timeout=0.5):
                pass

        async with cdpkit.connect(endpoint) as browser:
            page = next(p for p in browser.pages if p.url == url)  # opened at the URL
            user_agent = await cdpkit.tools.evaluate(page, "navigator.userAgent")
            assert "HeadlessChrome" not in user_agent  # a real, headed browser
            await cdpkit.tools.evaluate(page, "document.cookie = 'login=done; max-age=3600'")
            await browser.call("Browser.close")  # what closing the window does

        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr
        assert "Profile 'login' saved in" in stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    async with cdpkit.launch(profile="login", lock_timeout=5) as browser:  # the lock is free
        page = await browser.new_page(url)
        assert await cdpkit.tools.evaluate(page, "document.cookie") == "login=done"


async def test_open_browser_exits_when_its_window_closes(cli: CLI) -> None:
    process = cli.popen("open-browser", "--profile", "window", HEADLESS_OZONE)
    try:
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        chrome = children(process.pid)
        for target in get_json(f"{endpoint}/json/list"):  # type: ignore[attr-defined]
            if target["type"] == "page":
                urllib.request.urlopen(f"{endpoint}/json/close/{target['id']}", timeout=10).close()
        _, stderr = process.communicate(timeout=30)
        assert process.returncode == 0, stderr
        assert "Profile 'window' saved in" in stderr
        wait_gone(chrome)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# -- doctor -----------------------------------------------------------------------------------


def test_doctor_launched(cli: CLI) -> None:
    result = cli.run("doctor")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("cdpkit      0.")
    assert "bindings    devtools-protocol 0.0." in out
    assert "chrome      /" in out
    assert "started headless in" in out
    assert "browser     Chrome/" in out or "browser     HeadlessChrome/" in out
    assert "live protocol (http://127.0.0.1:" in out
    assert "only in the" in out or "matches the bindings exactly" in out


def test_doctor_attached(cli: CLI, endpoint: str) -> None:
    result = cli.run("doctor", "--connect", endpoint, "--full")
    assert result.returncode == 0, result.stderr
    assert f"attached to {endpoint}" in result.stdout
    assert f"live protocol ({endpoint}/json/protocol) vs bindings:" in result.stdout
    assert "... and" not in result.stdout  # --full lists everything


def pinned_document() -> dict[str, object]:
    domains = []
    for name in ("browser_protocol.json", "js_protocol.json"):
        domains += json.loads((REPO / "protocol" / name).read_text())["domains"]
    return {"domains": domains}


def test_protocol_diff_says_what_differs() -> None:
    document = pinned_document()
    assert diff_protocol(document).identical
    assert format_protocol_diff(diff_protocol(document)) == [
        "  the browser's protocol matches the bindings exactly"
    ]

    domains = document["domains"]
    assert isinstance(domains, list)
    page = next(d for d in domains if d["domain"] == "Page")
    page["commands"] = [c for c in page["commands"] if c["name"] != "navigate"]
    page["events"].append({"name": "futureEvent", "parameters": []})
    domains[:] = [d for d in domains if d["domain"] != "WebMCP"]
    domains.append({"domain": "Teleport", "commands": [{"name": "beam"}], "events": []})

    diff = diff_protocol(document)
    assert diff.added_domains == ["Teleport"]
    assert diff.removed_domains == ["WebMCP"]
    assert diff.added_commands == ["Teleport.beam"]
    assert "Page.navigate" in diff.removed_commands
    assert diff.added_events == ["Page.futureEvent"]
    lines = format_protocol_diff(diff)
    assert "  + 1 domains only in the browser: Teleport" in lines
    assert "  - 1 domains only in the bindings: WebMCP" in lines
    assert "  + 1 events only in the browser: Page.futureEvent" in lines
    assert any(line.startswith("  - ") and "commands only in the bindings" in line and "Page.navigate" in line for line in lines)


# -- protocol, gen ----------------------------------------------------------------------------


def test_protocol_docs(cli: CLI) -> None:
    listing = cli.run("protocol")
    assert listing.returncode == 0
    assert listing.stdout.startswith("devtools-protocol 0.0.")
    assert "\nPage " in listing.stdout and "cdp.dom_snapshot" in listing.stdout

    domain = cli.run("protocol", "Page")
    assert "  navigate " in domain.stdout and "Events (Page.<name> / cdp.page.<class>):" in domain.stdout

    command = cli.run("protocol", "Page.navigate")
    assert command.returncode == 0
    assert "cdp.page.navigate(\n    url: str,\n    *,\n    referrer: str | None = None," in command.stdout
    assert "Navigates current page to the given URL." in command.stdout
    assert "REPL: Page.navigate url=... [referrer=...] [transitionType=...]" in command.stdout
    assert "Result: cdp.page.NavigateResult\n    frame_id (frameId): " in command.stdout

    event = cli.run("protocol", "page.loadeventfired")  # any case
    assert event.stdout.startswith("Page.loadEventFired  (event: cdp.page.LoadEventFired)")
    type_ = cli.run("protocol", "Network.ResourceType")
    assert "Values: Document, Stylesheet, Image" in type_.stdout

    unknown = cli.run("protocol", "Page.navigat")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("error: 'Page.navigat' is not in the protocol bindings; did you mean Page.navigate")


def test_gen_wraps_the_generator(cli: CLI, endpoint: str, tmp_path: Path) -> None:
    check = cli.run("gen", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "generated files up to date (devtools-protocol" in check.stdout

    out = tmp_path / "cdp"
    live = cli.run("gen", "--from-browser", endpoint, "--out", str(out))
    assert live.returncode == 0, live.stderr
    assert f"{out}: wrote" in live.stdout and "Chrome/" in live.stdout
    assert "Code generated by cdpkit.codegen from Chrome/" in (out / "page.py").read_text()

    (out / "page.py").write_text("# changed\n")
    stale = cli.run("gen", "--check", "--from-browser", endpoint, "--out", str(out))
    assert stale.returncode == 1
    assert "generated files differ" in stale.stdout

