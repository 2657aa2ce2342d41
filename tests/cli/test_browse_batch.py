"""``cdpkit browse --batch FILE``, run as a user runs it: a file (or stdin) of URLs, one
JSON line each on stdout in input order, a failure that does not stop the others, and
the exit status saying whether any failed."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

from tests.server import FixtureServer, closed_port

from .conftest import CLI, children, wait_gone


def records(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_batch_with_static_js_and_failing_urls(
    cli: CLI, server: FixtureServer, endpoint: str, tmp_path: Path
) -> None:
    article = server.url("/browse-surfaces/article.html")
    app = server.url("/browse-surfaces/app.html")
    missing = server.url("/browse-surfaces/nowhere.html")
    refused = f"http://127.0.0.1:{closed_port()}/"
    listing = tmp_path / "urls.txt"
    listing.write_text(
        f"# the port\n{article}\n\n{missing}\n{app}\nnot a url at all\n{refused}\n"
        f"{article}?again=1\n"
    )
    done = cli.run(
        "browse",
        "--batch",
        str(listing),
        "--connect",
        endpoint,
        "--max-tokens",
        "200",
        "--concurrency",
        "3",
        "--timeout",
        "20",
    )
    assert done.returncode == 1, done.stderr  # some failed
    lines = records(done.stdout)
    assert [line["url"] for line in lines] == [
        article,
        missing,
        app,
        "not a url at all",
        refused,
        f"{article}?again=1",
    ]
    assert [line["ok"] for line in lines] == [True, False, True, False, False, True]
    first, not_found, rendered, invalid, unreachable, last = lines
    assert first["title"] == "The Port of Lisbon" and first["tier_used"] == 1
    assert first["status"] == 200 and first["truncated"] is True
    assert len(first["content"]) <= 200 * 4
    assert not_found["error"]["code"] == "http.404"
    assert set(not_found["error"]) == {"code", "message", "recoverable", "suggestion"}
    assert rendered["tier_used"] in (2, 3)
    assert "the ferry to Cacilhas leaves every fifteen minutes" in rendered["content"]
    assert invalid["error"]["code"] == "page.invalid_url"
    assert invalid["error"]["message"].startswith("line 6: Invalid URL"), invalid
    assert unreachable["error"]["code"].startswith("network.")
    assert unreachable["error"]["recoverable"] in (True, False)
    assert last["ok"] and last["final_url"] == f"{article}?again=1"
    assert "Browsing" not in done.stderr  # no progress bar when stderr is not a terminal


def test_stdin_and_exit_status_0_when_all_succeeded(cli: CLI, server: FixtureServer) -> None:
    # No browser option: static pages stay at tier 1, so no browser is ever started (a
    # Chrome that cannot start would fail them).
    urls = [server.url("/browse-surfaces/article.html"), server.url("/mcp/index.html")]
    done = cli.run(
        "browse",
        "--batch",
        "-",
        "--format",
        "text",
        input="\n".join(urls) + "\n",
        env={"CDPKIT_CHROME": "/nonexistent/chrome"},
    )
    assert done.returncode == 0, done.stderr
    lines = records(done.stdout)
    assert [line["url"] for line in lines] == urls
    assert all(line["ok"] and line["tier_used"] == 1 for line in lines)
    assert lines[0]["format"] == "text"


def test_help_says_order_and_exit_status(cli: CLI) -> None:
    shown = cli.run("browse", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    for words in (
        "--batch",
        "--concurrency",
        "--grid",
        "--connect",
        "--header",
        "input order",
        "exit status 1",
    ):
        assert words in text, words


def test_bad_batch_arguments_exit_2_before_anything_starts(cli: CLI, tmp_path: Path) -> None:
    missing = cli.run("browse", "--batch", str(tmp_path / "none.txt"))
    assert missing.returncode == 2
    assert (
        missing.stderr.strip()
        == f"error: No such file: {tmp_path / 'none.txt'} (--batch takes a file of URLs, one a line, or - for stdin)"
    )
    both = cli.run("browse", "http://127.0.0.1:1/", "--batch", "-", input="http://127.0.0.1:1/\n")
    assert both.returncode == 2 and "URL or --batch" in both.stderr
    neither = cli.run("browse")
    assert neither.returncode == 2
    assert neither.stderr.strip() == "error: Give a URL or --batch FILE (one of them)"
    zero = cli.run("browse", "--batch", "-", "--concurrency", "0", input="http://127.0.0.1:1/\n")
    assert zero.returncode == 2 and "--concurrency" in zero.stderr


def _on_a_terminal(cli: CLI, urls: list[str], *, stdout_too: bool) -> tuple[int, str, str]:
    """Run a batch of ``urls`` with stderr (and stdout, with ``stdout_too``) on a
    pseudo-terminal: its exit status, its stdout (piped) and what the terminal showed."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "cdpkit", "browse", "--batch", "-", "--max-tier", "1"],
            stdin=subprocess.PIPE,
            stdout=follower if stdout_too else subprocess.PIPE,
            stderr=follower,
            text=True,
            env=cli.env,
            cwd=cli.cwd,
        )
    finally:
        os.close(follower)
    shown = bytearray()

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the command closed its end
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    try:
        stdout, _ = process.communicate("\n".join(urls) + "\n", timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(10)
        os.close(leader)
    return process.returncode, stdout or "", shown.decode(errors="replace")


def test_a_progress_bar_on_stderr_when_it_is_a_terminal(cli: CLI, server: FixtureServer) -> None:
    urls = [server.url("/browse-surfaces/article.html"), server.url("/mcp/index.html")]
    status, stdout, terminal = _on_a_terminal(cli, urls, stdout_too=False)
    assert status == 0, terminal
    assert [json.loads(line)["url"] for line in stdout.splitlines()] == urls  # stdout stays JSON
    assert "Browsing" in terminal and "2/2" in terminal, terminal
    # With the lines on the same terminal, no bar: redrawing it would erase them.
    status, _, terminal = _on_a_terminal(cli, urls, stdout_too=True)
    assert status == 0, terminal
    assert "Browsing" not in terminal
    assert [json.loads(line)["url"] for line in terminal.splitlines()] == urls


def test_sigterm_mid_batch_closes_the_browser_and_keeps_the_lines_done(
    cli: CLI, server: FixtureServer, tmp_path: Path
) -> None:
    article = server.url("/browse-surfaces/article.html")
    slow = server.url("/slow?s=60")
    app = server.url("/browse-surfaces/app.html")
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{article}\n{slow}\n{app}\n")
    # stderr on a terminal: the progress bar says when the app page is done ("2/3"), however
    # long a loaded machine takes to render and read it, while the slow page holds its line back.
    leader, follower = pty.openpty()
    try:
        process = cli.popen(
            "browse", "--batch", str(listing), "--concurrency", "3", "--timeout", "90",
            stderr=follower,
        )
    finally:
        os.close(follower)
    shown = bytearray()
    two_done = threading.Event()

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the command closed its end
                return
            if not chunk:
                return
            shown.extend(chunk)
            if b"2/3" in shown:
                two_done.set()

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    assert process.stdout is not None
    try:
        first = process.stdout.readline()  # the article, at once
        assert two_done.wait(60), f"the app page was not done: {shown.decode(errors='replace')}"
        chrome = [pid for pid in children(process.pid) if "chrom" in _command(pid)]
        assert chrome, "no browser was launched for the app page"
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(10)
        os.close(leader)
    terminal = shown.decode(errors="replace")
    assert process.returncode == 128 + signal.SIGTERM, terminal
    assert "error: terminated by SIGTERM" in terminal, terminal
    assert json.loads(first)["url"] == article
    held = records(rest)
    assert [line["url"] for line in held] == [app]  # done, written although the slow one was not
    assert held[0]["ok"] and "Cacilhas" in held[0]["content"]
    wait_gone(chrome)  # no browser left behind


def test_a_reader_that_leaves_early_is_not_an_error(cli: CLI, server: FixtureServer) -> None:
    urls = "".join(f"{server.url('/browse-surfaces/article.html')}?n={n}\n" for n in range(12))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-m', 'cdpkit', 'browse', '--batch', '-', "
            "'--max-tier', '1'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, "
            "stderr=subprocess.PIPE, text=True)\n"
            "p.stdin.write(sys.stdin.read()); p.stdin.close()\n"
            "print(p.stdout.readline(), end=''); p.stdout.close()\n"
            "err = p.stderr.read(); print('STATUS', p.wait()); print(err, end='')\n",
        ],
        input=urls,
        capture_output=True,
        text=True,
        env=cli.env,
        cwd=cli.cwd,
        timeout=90,
    )
    out = done.stdout.splitlines()
    assert json.loads(out[0])["ok"] is True
    assert out[1:] == ["STATUS 0"], done.stdout  # no traceback, no error line, status 0


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return ""


async def test_a_batch_attaches_with_a_header(
    cli: CLI, server: FixtureServer, endpoint: str
) -> None:
    from tests.core.test_remote_endpoints import TOKEN, auth_proxy

    with urllib.request.urlopen(f"{endpoint}/json/version", timeout=10) as response:
        upstream = json.loads(response.read())["webSocketDebuggerUrl"]
    urls = [server.url("/browse-surfaces/article.html"), server.url("/browse-surfaces/app.html")]

    async def batch(*args: str) -> tuple[int, list[dict[str, Any]], str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cdpkit", "browse", "--batch", "-", "--timeout", "20", *args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=cli.env, cwd=cli.cwd,
        )  # fmt: skip
        out, err = await asyncio.wait_for(process.communicate("\n".join(urls).encode()), 90)
        assert process.returncode is not None
        return process.returncode, records(out.decode()), err.decode()

    async with auth_proxy(upstream, header=True) as proxied:
        status, lines, stderr = await batch(
            "--connect", proxied, "--header", f"Authorization: Bearer {TOKEN}"
        )
        assert status == 0, (lines, stderr)
        assert [line["tier_used"] for line in lines] == [1, lines[1]["tier_used"]]
        assert lines[1]["tier_used"] in (2, 3)
        assert "the ferry to Cacilhas" in lines[1]["content"]
        # Without the header the endpoint refuses: both pages are still read over HTTP;
        # the JavaScript one is marked partial, saying why it could not be rendered.
        status, lines, stderr = await batch("--connect", proxied)
        assert status == 0, (lines, stderr)
        assert [line["tier_used"] for line in lines] == [1, 1]
        assert lines[1]["truncated"] is True
        assert "401" in lines[1]["escalations"][-1]
        assert "the ferry to Cacilhas" not in lines[1]["content"]
        assert TOKEN not in json.dumps(lines) + stderr  # the token is never shown


def test_urls_are_isolated_unless_a_session_is_named(
    cli: CLI, server: FixtureServer, tmp_path: Path
) -> None:
    def set_cookie(handler: object) -> None:
        handler.reply(  # type: ignore[attr-defined]
            200, "<title>in</title><p>Signed in.</p>", headers={"Set-Cookie": "visit=batch; Path=/"}
        )

    def echo_cookie(handler: object) -> None:
        cookie = handler.headers.get("Cookie") or "none"  # type: ignore[attr-defined]
        handler.reply(200, f"<title>echo</title><p>Cookie sent: {cookie}.</p>")  # type: ignore[attr-defined]

    server.route("/browse-surfaces/set-cookie", set_cookie)
    server.route("/browse-surfaces/echo-cookie", echo_cookie)
    urls = [server.url("/browse-surfaces/set-cookie"), server.url("/browse-surfaces/echo-cookie")]
    home = {"XDG_DATA_HOME": str(tmp_path / "data"), "CDPKIT_CONFIG": str(tmp_path / "none.toml")}
    args = ("browse", "--batch", "-", "--concurrency", "1", "--format", "text")
    isolated = cli.run(*args, input="\n".join(urls), env=home)
    assert isolated.returncode == 0, isolated.stderr
    assert "Cookie sent: none." in records(isolated.stdout)[1]["content"]
    shared = cli.run(*args, "--session", "crawl", input="\n".join(urls), env=home)
    assert shared.returncode == 0, shared.stderr
    assert "Cookie sent: visit=batch." in records(shared.stdout)[1]["content"]
    assert all(line["session"] == "crawl" for line in records(shared.stdout))
