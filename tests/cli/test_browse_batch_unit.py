"""``cdpkit browse --batch`` without a browser: reading the batch file, and the JSON-lines
writer driven by a scripted engine (the real runs are in test_browse_batch.py)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from cdpkit._browse._result import BrowseError, BrowseResult
from cdpkit._front.browser_options import CLIError
from cdpkit.cli._browse_batch import BatchLine, browse_batch, error_record, read_batch


def test_read_batch_skips_blank_lines_and_comments_and_keeps_bad_lines_in_place(
    tmp_path: Path,
) -> None:
    listing = tmp_path / "urls.txt"
    listing.write_text(
        "# pages to read\n\nhttp://127.0.0.1:1/a\n   localhost:8000/b  \nftp://x/\n# end\n"
    )
    lines = read_batch(str(listing))
    assert [(line.url, line.line) for line in lines] == [
        ("http://127.0.0.1:1/a", 3),
        ("http://localhost:8000/b", 4),
        ("ftp://x/", 5),
    ]
    assert lines[0].problem is None and lines[1].problem is None
    assert lines[2].problem is not None and "unsupported scheme ftp" in lines[2].problem


def test_read_batch_from_stdin_and_its_errors(tmp_path: Path) -> None:
    assert [
        line.url for line in read_batch("-", stdin=io.StringIO("\ufeffhttp://127.0.0.1:9/x\r\n"))
    ] == ["http://127.0.0.1:9/x"]
    with pytest.raises(CLIError, match=r"No such file: .*missing\.txt") as missing:
        read_batch(str(tmp_path / "missing.txt"))
    assert missing.value.exit_code == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n\n")
    with pytest.raises(CLIError, match="lists no URL"):
        read_batch(str(empty))


def _result(url: str) -> BrowseResult:
    return BrowseResult(
        url=url, final_url=url, status=200, title=url[-1], content="text", format="markdown"
    )


class ScriptedEngine:
    """Answers after a delay read from the URL (``.../slow`` last), fails ``.../bad``,
    and records how many calls ran at once."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.options: list[dict[str, Any]] = []

    async def browse(self, url: str, *, session: str | None = None, **options: Any) -> BrowseResult:
        self.options.append({"session": session, **options})
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(0.2 if url.endswith("slow") else 0.01)
            if url.endswith("bad"):
                raise BrowseError(
                    url,
                    "http.404",
                    "the server answered 404 Not Found",
                    recoverable=False,
                    suggestion="check the URL",
                    status=404,
                )
            if url.endswith("boom"):
                raise RuntimeError("unexpected")
            return _result(url)
        finally:
            self.running -= 1


async def test_lines_come_out_in_input_order_and_a_failure_does_not_stop_the_batch() -> None:
    urls = ["http://h/slow", "http://h/bad", "http://h/c", "http://h/boom", "http://h/e"]
    lines = [BatchLine(url, n) for n, url in enumerate(urls, 1)]
    lines.insert(2, BatchLine("nonsense url", 9, "Invalid URL: 'nonsense url'"))
    engine = ScriptedEngine()
    out = io.StringIO()
    failed = await browse_batch(
        engine,
        lines,
        options={"max_tokens": 50},
        concurrency=2,
        session="s",
        out=out,
        progress=False,
    )
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["url"] for r in records] == [
        "http://h/slow",
        "http://h/bad",
        "nonsense url",
        "http://h/c",
        "http://h/boom",
        "http://h/e",
    ]
    assert [r["ok"] for r in records] == [True, False, False, True, False, True]
    assert failed == 3
    assert records[0]["final_url"] == "http://h/slow" and records[0]["content"] == "text"
    assert records[1]["error"] == {
        "code": "http.404",
        "message": "the server answered 404 Not Found",
        "recoverable": False,
        "suggestion": "check the URL",
    }
    assert records[2]["error"]["code"] == "page.invalid_url"
    assert records[4]["error"]["code"] == "processing.internal"
    assert "RuntimeError: unexpected" in records[4]["error"]["message"]
    assert engine.most == 2  # --concurrency bounds the browses at once
    assert all(call == {"session": "s", "max_tokens": 50} for call in engine.options)


def test_error_record_of_a_timeout_says_what_to_raise() -> None:
    record = error_record("http://h/", TimeoutError("took too long"))
    assert record["error"]["code"] == "network.timeout"
    assert record["error"]["recoverable"] is True
    assert "--timeout" in record["error"]["suggestion"]
