"""The command line tells the truth: it waits for pages rendered by scripts, says what is
wrong with a path, a URL, an endpoint or an output file before starting Chrome, and names
its own options (not the library's arguments) in its errors."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from cdpkit.tools import SmartWait
from tests.cli.conftest import CLI
from tests.server import FixtureServer, Handler

NO_CHROME = {"CDPKIT_CHROME": "/nonexistent/chrome"}  # proves a check ran before any launch


def assert_one_line_error(stderr: str, *fragments: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0], stderr
    assert "Traceback" not in stderr and "[Errno" not in stderr
    return lines[0]


def pdf_pages(data: bytes) -> int:
    assert data[:5] == b"%PDF-"
    counts = [int(n) for n in re.findall(rb"/Count (\d+)", data)]
    assert counts, "no page tree in the PDF"
    return max(counts)


# -- a page rendered by a script: "Loading..." first, the content 1.5 s after the load ----------


def test_snapshot_waits_for_a_page_rendered_by_a_script(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/late.html")
    settled = cli.run("snapshot", url, "-i", "--connect", endpoint)
    assert settled.returncode == 0, settled.stderr
    assert re.search(r'^\[0\] button "Order now" @\(', settled.stdout, re.M), settled.stdout
    assert 'link "More"' in settled.stdout

    hurried = cli.run("snapshot", url, "-i", "--wait", "0", "--connect", endpoint)
    assert (hurried.returncode, hurried.stdout) == (0, "")  # --wait 0: the placeholder only

    fixed = cli.run("snapshot", url, "-i", "--wait", "2500", "--connect", endpoint)
    assert 'button "Order now"' in fixed.stdout, fixed.stderr


def test_snapshot_engines_give_the_same_outline(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    """--engine chrome asks Chrome's accessibility tree; the default computes it in the page:
    the same lines for the same page (the numbering of a fresh page starts at 0 in both)."""
    url = server.url("/cli/late.html")
    page = cli.run("snapshot", url, "-i", "--connect", endpoint)
    chrome = cli.run("snapshot", url, "-i", "--engine", "chrome", "--connect", endpoint)
    assert (page.returncode, chrome.returncode) == (0, 0), page.stderr + chrome.stderr
    assert 'button "Order now"' in page.stdout and page.stdout == chrome.stdout
    wrong = cli.run("snapshot", url, "--engine", "fast", "--connect", endpoint)
    assert wrong.returncode == 2 and "'fast' is not one of 'page', 'chrome'" in wrong.stderr


def test_screenshot_eval_and_pdf_wait_for_the_content(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/late.html")
    shot = cli.run("screenshot", url, "--full-page", "-o", "late.png", "--connect", endpoint)
    assert shot.returncode == 0, shot.stderr
    height = struct.unpack(">II", (cli.cwd / "late.png").read_bytes()[16:24])[1]
    assert height > 3000  # the rendered content (a 3000 px block), not "Loading..."

    heading = cli.run("eval", url, "document.querySelector('h1')?.textContent ?? 'none'", "--connect", endpoint)
    assert (heading.returncode, heading.stdout) == (0, "Late content\n"), heading.stderr

    printed = cli.run("pdf", url, "-o", "late.pdf", "--connect", endpoint)
    assert printed.returncode == 0, printed.stderr
    assert re.fullmatch(r"Saved late\.pdf \(pdf, \d+\.\d kB\)\n", printed.stdout)
    assert pdf_pages((cli.cwd / "late.pdf").read_bytes()) > 1  # 3000 px of content

    # Content 10 s after load: even on a loaded machine, a PDF taken without waiting is early.
    placeholder = cli.run("pdf", url + "?after=10000", "-o", "early.pdf", "--wait", "0", "--connect", endpoint)
    assert placeholder.returncode == 0, placeholder.stderr
    assert pdf_pages((cli.cwd / "early.pdf").read_bytes()) == 1


def test_scrape_waits_out_a_loading_placeholder(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    # The text stays "Loading..." for 3 s, well past looking stable: still not settled.
    url = server.url("/cli/late.html?after=3000")
    result = cli.run("scrape", url, "--format", "text", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Late content\n")


def test_pdf_command(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    default = cli.run("pdf", server.url("/cli/other.html"), "--wait", "0", "--connect", endpoint)
    assert default.returncode == 0, default.stderr
    assert default.stdout.startswith("Saved page.pdf (pdf, ")
    assert pdf_pages((cli.cwd / "page.pdf").read_bytes()) == 1

    piped = subprocess.run(
        [sys.executable, "-m", "cdpkit", "pdf", server.url("/cli/other.html"), "-o", "-",
         "--wait", "0", "--connect", endpoint],
        capture_output=True, env=cli.env, cwd=cli.cwd, timeout=60,
    )
    assert piped.returncode == 0, piped.stderr
    assert pdf_pages(piped.stdout) == 1


def test_repl_start_page_and_goto_wait_for_the_content(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    url = server.url("/cli/late.html")
    script = (
        f":snapshot -i\n:goto {url}?again\n:snapshot -i\n:goto ./nothere.html\n"
        f":tab new {url}?tab\n:snapshot -i\n"
    )
    result = cli.run("repl", url, "--connect", endpoint, input=script)
    first, _, rest = result.stdout.partition(f"{url}?again (HTTP 200): Late page\n")
    after_goto, _, in_new_tab = rest.partition(f"{url}?tab\n")
    for shown in (first, after_goto, in_new_tab):
        assert 'button "Order now"' in shown, result.stdout + result.stderr
    assert "error: No such file: ./nothere.html" in result.stderr


async def test_wait_for_content_tool(page: cdpkit.Page, server: FixtureServer) -> None:
    await tools.navigate(page, server.url("/cli/late.html"))
    assert await tools.wait_for_content(page) is True
    assert await tools.evaluate(page, "document.querySelector('h1')?.textContent") == "Late content"

    # A page that never gets past its placeholder: False after max_wait, not an exception.
    server.route("/cli/stuck.html", lambda h: h.reply(200, "<title>Stuck</title><div>Loading...</div>"))
    await tools.navigate(page, server.url("/cli/stuck.html"))
    started = time.monotonic()
    assert await tools.wait_for_content(page, settings=SmartWait(max_wait=1.0)) is False
    assert time.monotonic() - started < 1 + 10  # max_wait ended it; the page never would
    assert await tools.evaluate(page, "document.body.innerText.trim()") == "Loading..."


# -- paths, URLs and endpoints ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["./nothere.html", "nothere.html", "../nothere/page.html", "~/nothere.html", "pages/nothere.html"]
)
def test_a_missing_local_file_is_named(cli: CLI, path: str) -> None:
    result = cli.run("snapshot", path, env=NO_CHROME)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, f"No such file: {path}")


def test_a_missing_file_url_is_named(cli: CLI) -> None:
    missing = cli.cwd / "gone.html"
    result = cli.run("screenshot", missing.as_uri(), env=NO_CHROME)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, f"No such file: {missing}")


def test_an_existing_local_file_opens(cli: CLI, endpoint: str) -> None:
    (cli.cwd / "mine.html").write_text("<title>Mine</title><h1>Local heading</h1>")
    result = cli.run("eval", "mine.html", "document.title", "--wait", "0", "--connect", endpoint)
    assert (result.returncode, result.stdout) == (0, "Mine\n"), result.stderr


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/file.txt", "Chrome no longer loads ftp: URLs"),
        ("javascript:alert(1)", "use `cdpkit eval URL EXPR`"),
    ],
)
def test_unsupported_schemes_exit_2_with_a_reason(cli: CLI, url: str, reason: str) -> None:
    result = cli.run("snapshot", url, env=NO_CHROME)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, "unsupported scheme", reason)


def test_connect_to_a_bare_port(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    port = endpoint.rpartition(":")[2]
    result = cli.run("eval", server.url("/cli/index.html"), "document.title", "--wait", "0", "--connect", port)
    assert (result.returncode, result.stdout) == (0, "CLI test page\n"), result.stderr
    bad = cli.run("snapshot", server.url("/cli/index.html"), "--connect", "99999")
    assert bad.returncode == 2
    assert_one_line_error(bad.stderr, "Invalid --connect '99999'")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(OSError):  # the 0.1 s timeout: check stop again
                accepted.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        listener.close()


def test_connect_to_a_port_that_never_answers(cli: CLI, server: FixtureServer, silent_port: int) -> None:
    started = time.monotonic()
    result = cli.run("snapshot", server.url("/cli/index.html"), "--connect", str(silent_port), "--timeout", "2")
    elapsed = time.monotonic() - started
    assert result.returncode == 1
    assert_one_line_error(
        result.stderr, f"http://127.0.0.1:{silent_port} did not answer within 2 s", "--timeout"
    )
    assert elapsed < 2 + 28  # the timeout, plus starting Python on a loaded machine: no hang


@pytest.mark.parametrize("command", [["snapshot", "URL"], ["repl"]])
def test_headful_without_a_display_says_so(cli: CLI, server: FixtureServer, command: list[str]) -> None:
    args = [server.url("/cli/index.html") if arg == "URL" else arg for arg in command]
    result = cli.run(*args, "--headful")
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "--headful needs a display", "$DISPLAY")


# -- errors in the CLI's words -------------------------------------------------------------------


def test_a_command_timeout_names_the_timeout_option(cli: CLI, server: FixtureServer) -> None:
    # Launched (not the shared browser): the page's renderer is stuck in a loop. The
    # timeout also bounds the launch: 4 s leaves a loaded machine's Chrome time to start.
    result = cli.run("eval", server.url("/cli/index.html"), "while (true) {}", "--wait", "0", "--timeout", "4")
    assert result.returncode == 1
    line = assert_one_line_error(
        result.stderr, "Runtime.evaluate got no answer within 4 s (--timeout SECONDS sets how long)"
    )
    assert "send(" not in line and "timeout=" not in line


def test_a_load_timeout_names_the_timeout_option(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    def never_finishes(handler: Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        handler.wfile.write(b"<title>slow</title><p>the rest never comes")
        handler.wfile.flush()
        time.sleep(6)

    server.route("/cli/never.html", never_finishes)
    result = cli.run("snapshot", server.url("/cli/never.html"), "--timeout", "2", "--connect", endpoint)
    assert result.returncode == 1
    line = assert_one_line_error(result.stderr, "Timed out after 2 s")
    assert line.endswith(" (--timeout SECONDS sets how long)"), line
    assert "navigate()" not in line and "timeout=" not in line  # the library's words


def test_eval_takes_top_level_await_and_reports_positions_from_one(
    cli: CLI, server: FixtureServer, endpoint: str
) -> None:
    url = server.url("/cli/index.html")
    fetched = cli.run("eval", url, "(await fetch(location.href)).status", "--wait", "0",
                      "--connect", endpoint)
    assert (fetched.returncode, fetched.stdout) == (0, "200\n"), fetched.stderr
    plain = cli.run("eval", url, "let n = 6; n * 7", "--wait", "0", "--connect", endpoint)
    assert (plain.returncode, plain.stdout) == (0, "42\n"), plain.stderr
    # Positions count from 1, as in the DevTools console (the first character is 1, 1).
    failed = cli.run("eval", url, "undefinedThing", "--wait", "0", "--connect", endpoint)
    assert failed.returncode == 1
    assert_one_line_error(
        failed.stderr, "ReferenceError: undefinedThing is not defined (line 1, column 1)"
    )
    failed = cli.run("eval", url, "const ok = 1;\n  null.boom", "--wait", "0", "--connect", endpoint)
    assert_one_line_error(failed.stderr, "(reading 'boom') (line 2, column 8)")


def test_a_locked_profile_names_the_timeout_option(cli: CLI, server: FixtureServer) -> None:
    from cdpkit._core.profiles import ProfileLock

    lock = ProfileLock(Path(cli.env["CDPKIT_PROFILES"]) / "busy")
    asyncio.run(lock.acquire(1))  # this process holds it, as another cdpkit run would
    try:
        result = cli.run("snapshot", server.url("/cli/index.html"), "--profile", "busy", "--timeout", "1")
    finally:
        lock.release()
    assert result.returncode == 1
    line = assert_one_line_error(result.stderr, "is in use by pid")
    assert line.endswith("; waited 1 s (--timeout SECONDS sets how long)"), line


# -- output files are checked before Chrome starts ------------------------------------------------


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["screenshot", "URL", "-o", "shot.gif"], "Cannot write a screenshot as .gif (supported: .jpeg, .jpg, .png, .webp)"),
        (["screenshot", "URL", "-o", "shot.png", "--format", "jpeg"], "-o shot.png names a png file but --format is jpeg"),
        (["screenshot", "URL", "-o", "existing"], "Cannot write existing: it is a directory"),
        (["screenshot", "URL", "-o", "missing/shot.png"], "Cannot write missing/shot.png: the directory missing does not exist"),
        (["screenshot", "URL", "-o", "file.txt/shot.png"], "Cannot write file.txt/shot.png: file.txt is not a directory"),
        (["pdf", "URL", "-o", "page.png"], "Cannot write a PDF as .png (supported: .pdf)"),
        (["pdf", "URL", "-o", "existing"], "Cannot write existing: it is a directory"),
        (["scrape", "URL", "-o", "missing/page.md"], "Cannot write missing/page.md: the directory missing does not exist"),
    ],
)
def test_output_that_cannot_be_written_is_refused_before_launching(
    cli: CLI, server: FixtureServer, command: list[str], message: str
) -> None:
    (cli.cwd / "existing").mkdir()
    (cli.cwd / "file.txt").write_text("a file")
    before = sorted(p.name for p in cli.cwd.iterdir())
    args = [server.url("/cli/index.html") if arg == "URL" else arg for arg in command]
    result = cli.run(*args, env=NO_CHROME)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, message)
    assert sorted(p.name for p in cli.cwd.iterdir()) == before  # nothing written


def test_scrape_of_a_file_that_is_not_a_page_says_to_download_it(
    cli: CLI, server: FixtureServer, endpoint: str
) -> None:
    url = server.url("/cli/prices.csv")
    result = cli.run("scrape", url, "--connect", endpoint)
    assert result.returncode == 1
    assert_one_line_error(result.stderr, f"{url} is a file (text/csv), not a page", f"`cdpkit download {url}`")
    assert result.stdout == ""


def test_a_dir_that_cannot_hold_files_is_refused(tmp_path: Path) -> None:
    # For `download --dir` (the download command calls it): a sentence, not [Errno 17].
    from cdpkit.cli import CLIError, check_output_dir

    a_file = tmp_path / "file.txt"
    a_file.write_text("a file")
    for given in (a_file, a_file / "sub"):
        with pytest.raises(CLIError) as caught:
            check_output_dir(given)
        assert str(caught.value) == f"Cannot save into {given}: {a_file} is a file, not a directory"
        assert caught.value.exit_code == 2
    check_output_dir(tmp_path / "new" / "deeper")  # to be created: fine
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            cdpkit.CommandTimeoutError("Page.navigate", 5),
            "Page.navigate got no answer within 5 s (--timeout SECONDS sets how long)",
        ),
        (
            cdpkit.LaunchError("Chrome was not ready within 5 s (launch(timeout=...) sets this). [err] x"),
            "Chrome was not ready within 5 s (--timeout SECONDS sets how long). [err] x",
        ),
        (
            cdpkit.ProfileLockedError("Profile /p is in use by pid 7; waited 5 s (launch(lock_timeout=...) sets how long)"),
            "Profile /p is in use by pid 7; waited 5 s (--timeout SECONDS sets how long)",
        ),
        (
            cdpkit.WaitTimeoutError("the load event of http://x/", 5),
            "Timed out after 5 s waiting for the load event of http://x/ (--timeout SECONDS sets how long)",
        ),
        (TimeoutError(), "Timed out (--timeout SECONDS sets how long)"),
        # Chrome's own output is left alone, whatever it looks like.
        (cdpkit.LaunchError("Chrome exited (code=1): [x] bad flag (flag=value)"), "Chrome exited (code=1): [x] bad flag (flag=value)"),
    ],
)
def test_errors_are_reported_with_the_cli_options(error: BaseException, said: str) -> None:
    from cdpkit.cli import error_line

    assert error_line(error) == said


def test_viewport_of_a_launched_browser(cli: CLI, server: FixtureServer, endpoint: str) -> None:
    size = "[innerWidth, innerHeight].join('x')"
    url = server.url("/cli/index.html")
    default = cli.run("eval", url, size, "--wait", "0")
    assert (default.returncode, default.stdout) == (0, "1280x720\n"), default.stderr
    custom = cli.run("eval", url, size, "--wait", "0", "--viewport", "1024x600")
    assert (custom.returncode, custom.stdout) == (0, "1024x600\n"), custom.stderr
    for bad in ("1024", "0x600", "wide"):
        result = cli.run("eval", url, size, "--viewport", bad)
        assert result.returncode == 2
        assert_one_line_error(result.stderr, f"Invalid --viewport {bad!r}")
    attached = cli.run("eval", url, size, "--viewport", "800x600", "--connect", endpoint)
    assert attached.returncode == 2
    assert_one_line_error(attached.stderr, "--viewport only apply to a launched browser")
