"""``cdpkit daemon`` contained: a command talks only to this user's daemon, in a folder no
other user can replace; a client of the daemon's socket reaches only its own browser
contexts and targets; ``cdpkit daemon stop`` signals only the daemon itself.

Through public surfaces: the CLI in subprocesses, a raw CDP client of the daemon's socket
(its framing spoken directly), and a second OS user (``nobody``) for what another user
could do. Only the processes these tests start are signalled, by their pid."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLI, Daemon, alive, page
from tests.server import FixtureServer

NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
# A Python another user can run (the test's own may live in a folder only root enters).
PLAIN_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

needs_root = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or shutil.which("setpriv") is None,
    reason="acting as a second user (nobody) needs root and setpriv",
)


class RawClient:
    """A CDP client of the daemon's socket: the request line, the daemon's two answers,
    then NUL-terminated JSON texts."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(str(path))
        request = {"op": "browser", "session": None, "spare": False, "timeout": 30}
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        self._buffer = b""
        assert self._line()["state"] == "accepted"
        ready = self._line()
        assert ready["state"] == "ready", ready
        self.context: str = ready["context"]
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def _line(self) -> dict[str, Any]:
        while b"\n" not in self._buffer:
            self._buffer += self._recv()
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _recv(self) -> bytes:
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError("the daemon closed the connection")
        return data

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            self._buffer += self._recv()
        text, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(text)
        return message

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        """The daemon's whole answer (``result`` or ``error``) to one command."""
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.sock.sendall(json.dumps(message).encode() + b"\0")
        while True:
            answer = self._message()
            if answer.get("id") == message_id:
                return answer
            self.events.append(answer)

    def result(
        self, method: str, params: dict[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        answer = self.call(method, params, **kwargs)
        assert "result" in answer, (method, answer)
        result: dict[str, Any] = answer["result"]
        return result

    def drain(self, seconds: float) -> None:
        """Collect the events that arrive within ``seconds``."""
        self.sock.settimeout(0.2)
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                with contextlib.suppress(TimeoutError):
                    self._buffer += self._recv()
                while b"\0" in self._buffer:
                    self.events.append(self._message())
        finally:
            self.sock.settimeout(30)

    def close(self) -> None:
        self.sock.close()


def refused(answer: dict[str, Any]) -> str:
    """The error message of a refused command (fails when it was answered)."""
    assert "error" in answer and "result" not in answer, answer
    message: str = answer["error"]["message"]
    return message


# -- the relay: a client reaches only its own contexts and targets ----------------------------


def test_a_client_reaches_only_its_own_context(
    daemon: Daemon, server: FixtureServer, tmp_path: Path
) -> None:
    daemon.start()
    owner, other = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        cookie = {"name": "session", "value": "s3cret-token", "url": server.url("/")}
        owner.result("Storage.setCookies", {"cookies": [cookie]})
        target = owner.result("Target.createTarget", {"url": page(server)})["targetId"]
        assert [c["value"] for c in owner.result("Storage.getCookies")["cookies"]] == [
            "s3cret-token"
        ]

        # Naming the owner's context or page, the other client gets an error, never its data.
        theirs = {"browserContextId": owner.context}
        for method, params in [
            ("Storage.getCookies", theirs),
            ("Storage.clearCookies", theirs),
            ("Storage.setCookies", {**theirs, "cookies": [{**cookie, "value": "planted"}]}),
            ("Target.createTarget", {**theirs, "url": "about:blank"}),
            (
                "Browser.setDownloadBehavior",
                {**theirs, "behavior": "allow", "downloadPath": str(tmp_path)},
            ),
            ("Browser.grantPermissions", {**theirs, "permissions": ["geolocation"]}),
            ("Target.attachToTarget", {"targetId": target, "flatten": True}),
            ("Target.closeTarget", {"targetId": target}),
            ("Target.getTargetInfo", {"targetId": target}),
            ("Target.attachToBrowserTarget", {}),
        ]:
            answer = other.call(method, params)
            assert "s3cret-token" not in json.dumps(answer)
            assert "not this connection's" in refused(answer) or "refused" in refused(answer), (
                method,
                answer,
            )
        listed = other.result("Target.getBrowserContexts")["browserContextIds"]
        assert owner.context not in listed and other.context in listed
        assert target not in json.dumps(other.result("Target.getTargets"))

        # The owner's cookie and page are untouched; the other client's own work as before.
        assert [c["value"] for c in owner.result("Storage.getCookies")["cookies"]] == [
            "s3cret-token"
        ]
        assert target in json.dumps(owner.result("Target.getTargets"))
        assert other.result("Storage.getCookies")["cookies"] == []
        mine = other.result("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = other.result("Target.attachToTarget", {"targetId": mine, "flatten": True})
        evaluated = other.result(
            "Runtime.evaluate", {"expression": "6 * 7"}, session=attached["sessionId"]
        )
        assert evaluated["result"]["value"] == 42
        other.result("Target.closeTarget", {"targetId": mine})
    finally:
        owner.close()
        other.close()


def test_a_client_hears_only_of_its_own_downloads_and_pages(
    daemon: Daemon, server: FixtureServer, tmp_path: Path
) -> None:
    daemon.start()
    owner, other = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        for client, folder in ((owner, "owner"), (other, "other")):
            behavior = {"behavior": "allow", "downloadPath": str(tmp_path / folder)}
            client.result("Browser.setDownloadBehavior", {**behavior, "eventsEnabled": True})
        target = owner.result("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = owner.result("Target.attachToTarget", {"targetId": target, "flatten": True})
        url = server.url("/dl/table.csv?token=s3cret-token")
        owner.result("Page.navigate", {"url": url}, session=attached["sessionId"])
        owner.drain(3)
        other.drain(0.5)
        assert "Browser.downloadWillBegin" in [e.get("method") for e in owner.events]
        assert not [e for e in other.events if str(e.get("method")).startswith("Browser.")]
        assert "s3cret-token" not in json.dumps(other.events)

        # A page's session creates pages in its connection's context, not the browser's
        # default one (where nobody could see or close them).
        mine = other.result("Target.createTarget", {"url": "about:blank"})["targetId"]
        child = other.result("Target.attachToTarget", {"targetId": mine, "flatten": True})
        made = other.result(
            "Target.createTarget", {"url": "about:blank"}, session=child["sessionId"]
        )
        assert made["targetId"] in json.dumps(other.result("Target.getTargets"))
    finally:
        owner.close()
        other.close()


def test_browser_wide_interception_is_refused_and_other_commands_load(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    spy = RawClient(daemon.socket)
    try:
        answer = spy.call("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        message = refused(answer)
        assert "Fetch.enable" in message and "other commands" in message, message
        for method, params in [
            ("Tracing.start", {}),  # would record every context's pages
            ("Security.setIgnoreCertificateErrors", {"ignore": True}),  # every context's
        ]:
            assert "refused" in refused(spy.call(method, params)), method
        # Another command's page loads, its requests neither paused nor seen by the spy.
        loaded = daemon.cli.run(
            "eval", page(server), "location.pathname", "--wait", "0", "--timeout", "20"
        )
        assert loaded.returncode == 0, loaded.stderr
        assert "/cli/index.html" in loaded.stdout
        spy.drain(0.5)
        assert not [e for e in spy.events if str(e.get("method", "")).startswith("Fetch.")]
        assert "/cli/index.html" not in json.dumps(spy.events)
        # On a page of its own, the spy may intercept: its own requests only.
        mine = spy.result("Target.createTarget", {"url": "about:blank"})["targetId"]
        child = spy.result("Target.attachToTarget", {"targetId": mine, "flatten": True})[
            "sessionId"
        ]
        spy.result("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, session=child)
    finally:
        spy.close()
    assert "2 command(s) served" in daemon.status()


def own_page(client: RawClient, url: str = "about:blank") -> tuple[str, str]:
    """A page of the client's own: its target id and the session attached to it."""
    target = client.result("Target.createTarget", {"url": url})["targetId"]
    attached = client.result("Target.attachToTarget", {"targetId": target, "flatten": True})
    return target, attached["sessionId"]


def evaluate(client: RawClient, session: str, expression: str) -> Any:
    params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
    answer = client.result("Runtime.evaluate", params, session=session)
    return answer["result"].get("value")


def wait_for_event(client: RawClient, seen: Callable[[dict[str, Any]], bool]) -> None:
    """Collect events until one that ``seen`` accepts has come (fail after 20 s)."""
    deadline = time.monotonic() + 20
    while not any(seen(event) for event in client.events):
        assert time.monotonic() < deadline, [event.get("method") for event in client.events]
        client.drain(0.2)


def test_tracing_is_refused_on_every_session_so_no_trace_holds_another_commands_pages(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    owner, spy = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        _, mine = own_page(spy)
        categories = ["devtools.timeline", "loading", "navigation", "netlog"]
        start = {
            "transferMode": "ReturnAsStream",
            "traceConfig": {"includedCategories": categories},
        }
        # Chrome traces the whole browser even when tracing starts on a page's own session.
        for session in (mine, None):
            message = refused(spy.call("Tracing.start", start, session=session))
            assert "every session" in message and "records the whole browser" in message, message
        # Another command's page, its title and a token in its URL, while the spy would trace.
        _, theirs = own_page(owner, "data:text/html,<title>VICTIM-TITLE-123</title>x")
        url = server.url("/cli/index.html?token=s3cret-token")
        owner.result("Page.navigate", {"url": url}, session=theirs)
        for method, params in [
            ("Tracing.end", {}),
            ("Tracing.requestMemoryDump", {}),
            ("Tracing.getCategories", {}),
            *[("IO.read", {"handle": str(handle)}) for handle in range(1, 6)],  # streams
        ]:
            answer = spy.call(method, params, session=mine)
            assert "error" in answer, (method, answer)
        assert spy.result("Runtime.evaluate", {"expression": "1"}, session=mine)  # in order
        assert not [e for e in spy.events if str(e.get("method")).startswith("Tracing.")]
        seen = json.dumps(spy.events)
        assert "VICTIM-TITLE-123" not in seen and "s3cret-token" not in seen
    finally:
        owner.close()
        spy.close()


def test_a_page_session_cannot_end_or_crash_the_shared_browser(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    owner, other = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        _, theirs = own_page(owner, page(server))
        _, mine = own_page(other)
        # On a page's session, Browser.close and .crash end the whole browser, and PWA's
        # calls in a command's context crash it.
        for method, params in [
            ("Browser.close", {}),
            ("Browser.crash", {}),
            ("Browser.crashGpuProcess", {}),
            ("PWA.getOsAppState", {"manifestId": server.url("/")}),
            ("PWA.install", {"manifestId": server.url("/")}),
        ]:
            message = refused(other.call(method, params, session=mine))
            assert "refused" in message and "shared by other commands" in message, message
        # Some of the browser's own pages, loaded in a context of its own (every command's
        # is), end the whole headless Chrome: in any spelling Chrome reads as one.
        for method, url, session in [
            ("Page.navigate", "chrome://history", mine),
            ("Page.navigate", "\x01 CHROME:settings\t", mine),
            ("Page.navigate", "view-source:chrome://extensions", mine),
            ("Target.createTarget", "chrome://settings", None),
        ]:
            message = refused(other.call(method, {"url": url}, session=session))
            assert "open only in the browser's default context" in message, message
        # The command line opens such a page in a browser of its own, not the daemon's.
        settings = daemon.cli.run("eval", "chrome://settings", "document.title", "--wait", "0")
        assert (settings.returncode, settings.stdout.strip()) == (0, "Settings"), settings.stderr
        assert evaluate(owner, theirs, "6 * 7") == 42  # the other command's page lives on
        assert evaluate(other, mine, "6 * 7") == 42
    finally:
        owner.close()
        other.close()


def test_a_page_session_sizes_only_the_windows_of_its_own_pages(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    owner, other = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        target, theirs = own_page(owner, page(server))
        window = owner.result("Browser.getWindowForTarget", {"targetId": target})["windowId"]
        size = evaluate(owner, theirs, "[innerWidth, innerHeight]")
        _, mine = own_page(other)
        for method, params in [
            ("Browser.setContentsSize", {"windowId": window, "width": 333, "height": 222}),
            ("Browser.setWindowBounds", {"windowId": window, "bounds": {"width": 500}}),
            ("Browser.getWindowBounds", {"windowId": window}),
        ]:
            for session in (mine, None):
                message = refused(other.call(method, params, session=session))
                assert "not this connection's" in message or "refused" in message, message
        assert evaluate(owner, theirs, "[innerWidth, innerHeight]") == size  # not resized
        # The window of its own page, it may size.
        own = other.result("Browser.getWindowForTarget", {}, session=mine)["windowId"]
        resize = {"windowId": own, "width": 333, "height": 222}
        other.result("Browser.setContentsSize", resize, session=mine)
        resized = (
            "new Promise(done => { const size = () => [innerWidth, innerHeight];"
            " if (innerWidth === 333) done(size());"
            " addEventListener('resize', () => innerWidth === 333 && done(size()));"
            " setTimeout(() => done(size()), 10000); })"
        )  # the window resizes after the answer
        assert evaluate(other, mine, resized) == [333, 222]
        assert evaluate(owner, theirs, "[innerWidth, innerHeight]") == size
    finally:
        owner.close()
        other.close()


def test_target_discovery_on_a_page_session_tells_only_of_its_own_targets(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    owner, spy = RawClient(daemon.socket), RawClient(daemon.socket)
    try:
        before, _ = own_page(owner, server.url("/cli/index.html?token=s3cret-token"))
        _, mine = own_page(spy)
        spy.result("Target.setDiscoverTargets", {"discover": True}, session=mine)
        after = owner.result("Target.createTarget", {"url": page(server)})["targetId"]
        owner.result("Target.closeTarget", {"targetId": before})
        # Its own new page is told of, on its page's session: after the other command's.
        new = spy.result("Target.createTarget", {"url": "about:blank"})["targetId"]
        wait_for_event(spy, lambda event: (
            event.get("sessionId") == mine and event.get("method") == "Target.targetCreated"
            and event["params"]["targetInfo"]["targetId"] == new
        ))  # fmt: skip
        seen = json.dumps(spy.events)
        assert before not in seen and after not in seen and "s3cret-token" not in seen
    finally:
        owner.close()
        spy.close()


def test_calls_acting_on_the_whole_browser_are_refused_on_a_page_session(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    client = RawClient(daemon.socket)
    try:
        _, mine = own_page(client, page(server))
        for method, params, why in [
            ("Memory.getBrowserSamplingProfile", {}, "browser process"),
            ("Memory.simulatePressureNotification", {"level": "critical"}, "every process"),
            ("Memory.setPressureNotificationsSuppressed", {"suppressed": True}, "every process"),
            ("Browser.getHistograms", {"query": "Navigation"}, "whole browser's activity"),
            ("Browser.getHistogram", {"name": "Navigation.TimeToReadyToCommit2"}, "histograms"),
            ("Browser.executeBrowserCommand", {"commandId": "openTabSearch"}, "window"),
            ("Browser.addPrivacySandboxEnrollmentOverride", {"url": server.url("/")}, "every"),
        ]:
            message = refused(client.call(method, params, session=mine))
            assert "every session" in message and why in message, (method, message)
        # What acts on its own page alone (its renderer, its context) it still may.
        assert "nodes" in client.result("Memory.getDOMCounters", session=mine)
        assert "profile" in client.result("Memory.getAllTimeSamplingProfile", session=mine)
        assert "product" in client.result("Browser.getVersion", session=mine)
        assert client.result("Network.getAllCookies", session=mine)["cookies"] == []
    finally:
        client.close()


# -- cdpkit daemon stop: only the daemon itself is signalled ----------------------------------


@pytest.mark.parametrize("leftover_socket", [False, True], ids=["pid-file", "pid-file-and-socket"])
def test_stop_does_not_signal_the_process_a_stale_pid_file_names(
    daemon: Daemon, leftover_socket: bool
) -> None:
    unrelated = subprocess.Popen(["sleep", "1000"])
    try:
        daemon.folder.mkdir(mode=0o700)
        pid_file = daemon.folder / "daemon.pid"
        pid_file.write_text(f"{unrelated.pid}\n")  # a daemon that died; its pid reused
        if leftover_socket:  # and the socket it left: nothing listens on it
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
                dead.bind(str(daemon.socket))
        status = daemon.cli.run("daemon", "status")
        assert status.returncode == 1
        assert "no cdpkit daemon runs" in status.stderr, status.stderr
        stopped = daemon.cli.run("daemon", "stop", "--timeout", "3")
        assert stopped.returncode == 0, stopped.stderr
        assert "no cdpkit daemon runs" in stopped.stdout
        time.sleep(0.5)
        assert unrelated.poll() is None and alive(unrelated.pid)
        assert not pid_file.exists() and not daemon.socket.exists()
    finally:
        (daemon.folder / "daemon.pid").unlink(missing_ok=True)  # nothing for the fixture to end
        unrelated.kill()
        unrelated.wait()


# -- the runtime folder, and who listens on its socket ----------------------------------------


@contextlib.contextmanager
def shared_folder(mode: int) -> Iterator[Path]:
    """A folder in /tmp with ``mode``, removed after."""
    folder = Path(tempfile.mkdtemp(prefix="cdpkit-contain-", dir="/tmp"))
    try:
        folder.chmod(mode)
        yield folder
    finally:
        folder.chmod(0o700)
        shutil.rmtree(folder, ignore_errors=True)


@needs_root
def test_a_runtime_folder_another_user_could_replace_is_refused(
    cli: CLI, server: FixtureServer
) -> None:
    with shared_folder(0o755) as parent:
        runtime = parent / "run"
        runtime.mkdir(mode=0o700)
        cli.env["XDG_RUNTIME_DIR"] = str(runtime)
        daemon = Daemon(cli, runtime / "cdpkit")
        daemon.start()
        pid = daemon.pid
        try:
            assert daemon.cli.run("eval", page(server), "1", "--wait", "0").returncode == 0
            assert "1 command(s) served" in daemon.status()

            parent.chmod(0o777)  # no sticky bit: anyone may rename `run` and put their own
            swap = [PLAIN_PYTHON, "-c", "import os, sys; os.rename(sys.argv[1], sys.argv[2]); "
                    "os.rename(sys.argv[2], sys.argv[1])", str(runtime), str(parent / "moved")]  # fmt: skip
            assert subprocess.run([*NOBODY, *swap], timeout=30).returncode == 0  # they could

            result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0")
            assert result.returncode == 0, result.stderr
            assert result.stdout.strip() == "42"  # on a browser of its own
            assert str(parent) in result.stderr and "other users" in result.stderr, result.stderr
            for action in ("status", "start", "stop"):
                told = daemon.cli.run("daemon", action)
                assert told.returncode == 1, (action, told.stdout)
                assert str(parent) in told.stderr and "other users" in told.stderr, (
                    action,
                    told.stderr,
                )
            assert alive(pid)  # `stop` signalled nothing

            parent.chmod(0o1777)  # with the sticky bit (as /tmp): only its owner may rename it
            assert daemon.cli.run("eval", page(server), "1", "--wait", "0").returncode == 0
            assert "2 command(s) served" in daemon.status()  # the refused command was not served
        finally:
            parent.chmod(0o755)
            daemon.cli.run("daemon", "stop")
            if alive(pid):
                os.kill(pid, 9)


# A listener of another user's: answers every line as a daemon would, and prints what it got.
FAKE_LISTENER = r"""
import os, selectors, socket, sys
folder = sys.argv[1]
selector = selectors.DefaultSelector()
for name in ("daemon.sock", "worker.sock"):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(folder, name))
    listener.listen(8)
    selector.register(listener, selectors.EVENT_READ, "listener")
print("ready", flush=True)
while True:
    for key, _ in selector.select():
        if key.data == "listener":
            connection, _ = key.fileobj.accept()
            selector.register(connection, selectors.EVENT_READ, "connection")
            continue
        data = key.fileobj.recv(65536)
        if not data:
            selector.unregister(key.fileobj)
            key.fileobj.close()
            continue
        print("got", repr(data[:200]), flush=True)
        key.fileobj.sendall(b'{"ok": true, "state": "accepted", "pid": 1}\n')
"""


@needs_root
def test_a_socket_another_user_listens_on_is_refused_before_anything_is_sent(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.folder.mkdir(mode=0o700)
    with shared_folder(0o777) as drop:
        listener = subprocess.Popen(
            [*NOBODY, PLAIN_PYTHON, "-c", FAKE_LISTENER, str(drop)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert listener.stdout is not None and listener.stdout.readline().strip() == "ready"
            # Their sockets, at the daemon's paths (as a swapped folder would have them).
            for name in ("daemon.sock", "worker.sock"):
                os.rename(drop / name, daemon.folder / name)
            result = daemon.cli.run(
                "eval", page(server), "40 + 2", "--wait", "0", "--timeout", "20"
            )
            assert result.returncode == 0, result.stderr
            assert result.stdout.strip() == "42"  # on a browser of its own
            assert "uid 65534" in result.stderr, result.stderr
            for action in ("status", "stop"):
                told = daemon.cli.run("daemon", action)
                assert told.returncode == 1, (action, told.stdout)
                assert "uid 65534" in told.stderr, (action, told.stderr)
        finally:
            listener.kill()
            received, _ = listener.communicate(timeout=10)
        assert "got" not in received, received  # not a byte: no request, environment or stdio
