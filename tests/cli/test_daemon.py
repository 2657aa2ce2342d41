"""``cdpkit daemon``: one warm Chrome serves the one-shot commands, through the CLI in
subprocesses, each test with a private ``XDG_RUNTIME_DIR`` (and so its own daemon). Only
the processes these tests start are signalled, by their pid."""

from __future__ import annotations

import os
import signal
import stat
import time

import pytest

from tests.cli.conftest import Daemon, alive, children, page, wait_gone
from tests.server import FixtureServer


def test_three_commands_in_a_row_start_one_chrome(daemon: Daemon, server: FixtureServer) -> None:
    daemon.start()
    assert daemon.chromes() == []  # a browser starts on the first need, not before
    shot = daemon.cli.run("screenshot", page(server), "--wait", "0", "-o", "one.png")
    assert shot.returncode == 0, shot.stderr
    assert (daemon.cli.cwd / "one.png").read_bytes()[:4] == b"\x89PNG"
    chromes = daemon.chromes()
    assert len(chromes) == 1
    snap = daemon.cli.run("snapshot", page(server), "--wait", "0")
    assert snap.returncode == 0, snap.stderr
    assert snap.stdout.strip()
    evaluated = daemon.cli.run("eval", page(server), "1 + 2", "--wait", "0")
    assert evaluated.returncode == 0, evaluated.stderr
    assert evaluated.stdout.strip() == "3"
    assert daemon.chromes() == chromes
    assert "1 launched in all" in daemon.status()
    for result in (shot, snap, evaluated):
        assert result.stderr == ""


def test_pdf_scrape_download_and_browse_use_the_daemons_browser(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    runs = {
        "pdf": daemon.cli.run("pdf", page(server), "--wait", "0", "-o", "page.pdf"),
        "scrape": daemon.cli.run("scrape", page(server), "--wait", "0"),
        "download": daemon.cli.run("download", page(server), "--dir", "got"),
        "browse": daemon.cli.run("browse", page(server), "--tier", "3"),
    }
    for name, result in runs.items():
        assert result.returncode == 0, (name, result.stderr)
    assert (daemon.cli.cwd / "page.pdf").read_bytes()[:5] == b"%PDF-"
    assert runs["scrape"].stdout.strip()
    assert list((daemon.cli.cwd / "got").iterdir())
    assert runs["browse"].stdout.strip()
    status = daemon.status()
    assert "1 launched in all, 4 command(s) served" in status, status


def test_each_command_gets_a_fresh_context_unless_it_names_a_session(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    set_cookie = "document.cookie = 'flavour=plum'; document.cookie"
    first = daemon.cli.run("eval", page(server), set_cookie, "--wait", "0", "--session", "work")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == '"flavour=plum"' or first.stdout.strip() == "flavour=plum"
    kept = daemon.cli.run("eval", page(server), "document.cookie", "--wait", "0", "--session", "work")
    assert "flavour=plum" in kept.stdout, kept.stderr
    fresh = daemon.cli.run("eval", page(server), "document.cookie", "--wait", "0")
    assert fresh.returncode == 0, fresh.stderr
    assert "flavour" not in fresh.stdout
    status = daemon.status()
    assert "sessions: work" in status
    assert "1 launched in all" in status


def test_two_commands_at_once_share_one_browser(
    daemon: Daemon, server: FixtureServer
) -> None:
    daemon.start()
    # Both pages are open at once: each command lets go of the other one's, unseen.
    script = "new Promise(r => setTimeout(r, 1500)).then(() => location.pathname)"
    first = daemon.cli.popen("eval", server.url("/cli/index.html"), script, "--wait", "0")
    second = daemon.cli.popen("eval", server.url("/cli/index.html?two"), script, "--wait", "0")
    out_first, err_first = first.communicate(timeout=90)
    out_second, err_second = second.communicate(timeout=90)
    assert first.returncode == 0, err_first
    assert second.returncode == 0, err_second
    assert out_first.strip() == out_second.strip() == '"/cli/index.html"' or (
        out_first.strip() == out_second.strip() == "/cli/index.html"
    )
    assert "1 launched in all, 2 command(s) served" in daemon.status()


def test_commands_work_without_a_daemon(daemon: Daemon, server: FixtureServer) -> None:
    unset = daemon.cli.run("eval", page(server), "1", "--wait", "0", env={"XDG_RUNTIME_DIR": ""})
    assert unset.returncode == 0 and unset.stderr == ""  # no runtime folder: nothing said
    result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"
    assert result.stderr == ""
    assert not daemon.socket.exists()
    named = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0", "--session", "work")
    assert named.stdout.strip() == "42", named.stderr
    assert named.stderr == (
        "note: no cdpkit daemon runs, so --session work keeps nothing after this command "
        "(`cdpkit daemon start` starts one)\n"
    )


def test_no_daemon_launches_a_browser_of_its_own(daemon: Daemon, server: FixtureServer) -> None:
    daemon.start()
    result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0", "--no-daemon")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"
    assert "0 launched in all" in daemon.status()
    assert daemon.chromes() == []
    headful_like = daemon.cli.run("eval", page(server), "innerWidth", "--wait", "0", "--viewport", "640x480")
    assert headful_like.stdout.strip() == "640"  # a launch option: its own browser
    assert "0 launched in all" in daemon.status()


def test_a_stopped_daemon_does_not_hold_a_command_up(daemon: Daemon, server: FixtureServer) -> None:
    daemon.start()
    os.kill(daemon.pid, signal.SIGSTOP)
    began = time.monotonic()
    result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0", "--timeout", "20")
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"
    assert took < 20  # it waited 2 s for the daemon, then launched its own
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "daemon did not answer" in lines[0], result.stderr
    status = daemon.cli.run("daemon", "status")
    assert status.returncode == 1
    assert f"the cdpkit daemon (pid {daemon.pid}) does not answer" in status.stderr
    pid = daemon.pid
    stopped = daemon.cli.run("daemon", "stop")  # a stopped daemon is ended all the same
    assert stopped.returncode == 0, stopped.stderr
    wait_gone([pid])
    assert not daemon.socket.exists()
    assert not (daemon.folder / "daemon.pid").exists()


@pytest.mark.parametrize("signum", [signal.SIGSTOP, signal.SIGKILL], ids=["SIGSTOP", "SIGKILL"])
def test_a_chrome_that_stops_answering_is_replaced(
    daemon: Daemon, server: FixtureServer, signum: signal.Signals
) -> None:
    daemon.start()
    assert daemon.cli.run("eval", page(server), "1", "--wait", "0").returncode == 0
    [chrome] = daemon.chromes()
    os.kill(chrome, signum)
    try:
        result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0", "--timeout", "20")
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "42"
        # Under load the command may run on its own browser while the daemon is still
        # ending the stopped one (it says so in a note); the next command then has the new one.
        if result.stderr:
            assert "note:" in result.stderr, result.stderr
            assert daemon.cli.run("eval", page(server), "1", "--wait", "0").returncode == 0
        deadline = time.monotonic() + 10
        while (found := daemon.chromes()) in ([], [chrome]) and time.monotonic() < deadline:
            time.sleep(0.1)
        [replacement] = found
        assert replacement != chrome
        wait_gone([chrome])
        assert "2 launched in all" in daemon.status()
    finally:
        if alive(chrome):
            os.kill(chrome, signal.SIGKILL)


def test_status_says_whether_a_daemon_runs(daemon: Daemon) -> None:
    none = daemon.cli.run("daemon", "status")
    assert none.returncode == 1
    assert "no cdpkit daemon runs" in none.stderr
    daemon.start("--browsers", "2")
    status = daemon.status()
    assert f"pid: {daemon.pid}" in status
    assert f"socket: {daemon.socket}" in status
    assert "browsers: 0 running (up to 2)" in status
    assert daemon.cli.run("daemon", "stop").returncode == 0
    assert daemon.cli.run("daemon", "status").returncode == 1


def test_stop_leaves_no_chrome_socket_or_pid_file(daemon: Daemon, server: FixtureServer) -> None:
    daemon.start()
    assert daemon.cli.run("eval", page(server), "1", "--session", "kept", "--wait", "0").returncode == 0
    pid, chromes = daemon.pid, daemon.chromes()
    assert len(chromes) == 1
    chrome_group = [p for p in children(chromes[0])]
    stopped = daemon.cli.run("daemon", "stop")
    assert stopped.returncode == 0, stopped.stderr
    wait_gone([pid, *chromes, *chrome_group])
    assert not daemon.socket.exists()
    assert not (daemon.folder / "daemon.pid").exists()


def test_the_socket_and_its_folder_are_this_users_only(daemon: Daemon, server: FixtureServer) -> None:
    daemon.start()
    assert stat.S_IMODE(daemon.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(daemon.socket.stat().st_mode) == 0o600
    assert daemon.cli.run("daemon", "stop").returncode == 0
    daemon.folder.chmod(0o755)  # open to others: refused
    refused = daemon.cli.run("daemon", "start")
    assert refused.returncode == 1
    assert "mode 0755" in refused.stderr and "private" in refused.stderr
    assert not daemon.socket.exists()
    result = daemon.cli.run("eval", page(server), "40 + 2", "--wait", "0")
    assert result.stdout.strip() == "42", result.stderr


def test_the_daemon_ends_after_its_idle_timeout(daemon: Daemon, server: FixtureServer) -> None:
    # 10 s: on a loaded machine (the suite on 3 workers) a 5 s daemon could idle out
    # between its start and the first command.
    daemon.start("--idle-timeout", "10")
    pid = daemon.pid
    assert daemon.cli.run("eval", page(server), "1", "--wait", "0").returncode == 0
    chromes = daemon.chromes()
    assert len(chromes) == 1  # idle counts from the end of the last command
    wait_gone([pid, *chromes], timeout=30)
    assert not daemon.socket.exists()
    assert daemon.cli.run("daemon", "status").returncode == 1


def test_cdpkit_chrome_uses_the_daemon_when_it_names_the_daemons_chrome(
    daemon: Daemon, server: FixtureServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # $CDPKIT_CHROME (`cdpkit mcp --chrome` too) says which Chrome a command would launch: the daemon's
    # browser serves it when it is that Chrome, in any spelling (a link to it), and the
    # command says why not when it is another.
    import shutil

    found = shutil.which("chromium") or shutil.which("google-chrome") or shutil.which("chrome")
    assert found is not None
    link = tmp_path_factory.mktemp("chrome-link") / "my-chrome"
    link.symlink_to(found)
    daemon.start()
    same = daemon.cli.run("eval", page(server), "1 + 1", "--wait", "0", env={"CDPKIT_CHROME": str(link)})
    assert same.returncode == 0 and same.stdout.strip() == "2", same.stderr
    assert same.stderr == ""
    assert "1 launched in all, 1 command(s) served" in daemon.status()
    direct = daemon.cli.run("eval", page(server), "2 + 2", "--wait", "0", env={"CDPKIT_CHROME": found})
    assert direct.stdout.strip() == "4" and direct.stderr == "", direct.stderr
    assert "2 command(s) served" in daemon.status()
    # Another executable (a copy is another file): its own browser, and it says so.
    copy = link.parent / "another-chrome"
    copy.write_text(f'#!/bin/sh\nexec "{found}" "$@"\n')
    copy.chmod(0o755)
    other = daemon.cli.run("eval", page(server), "3 + 3", "--wait", "0", env={"CDPKIT_CHROME": str(copy)})
    assert other.returncode == 0 and other.stdout.strip() == "6", other.stderr
    assert "note: $CDPKIT_CHROME is" in other.stderr and "running on a browser of its own" in other.stderr
    assert "2 command(s) served" in daemon.status()
