"""record_har against a real headless Chromium: a HAR 1.2 file with the page, its JSON and
its image, bodies within the limit, written on exception too; and `cdpkit scrape --har`."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cdpkit
from cdpkit import tools
from tests.network_pages import DATA, DEAD_PORT, IMAGE, install
from tests.server import FixtureServer

# -- a HAR 1.2 structure checker (http://www.softwareishard.com/blog/har-12-spec/) -----------

_NUMBER = (int, float)
_REQUIRED: dict[str, dict[str, Any]] = {
    "log": {"version": str, "creator": dict, "entries": list},
    "creator": {"name": str, "version": str},
    "page": {"startedDateTime": str, "id": str, "title": str, "pageTimings": dict},
    "entry": {
        "startedDateTime": str, "time": _NUMBER, "request": dict, "response": dict,
        "cache": dict, "timings": dict,
    },
    "request": {
        "method": str, "url": str, "httpVersion": str, "cookies": list, "headers": list,
        "queryString": list, "headersSize": int, "bodySize": int,
    },
    "response": {
        "status": int, "statusText": str, "httpVersion": str, "cookies": list, "headers": list,
        "content": dict, "redirectURL": str, "headersSize": int, "bodySize": int,
    },
    "content": {"size": int, "mimeType": str},
    "pair": {"name": str, "value": str},
    "cookie": {"name": str, "value": str},
    "postData": {"mimeType": str, "text": str},
    "timings": {"send": _NUMBER, "wait": _NUMBER, "receive": _NUMBER},
}  # fmt: skip


def _require(kind: str, value: Any, where: str, problems: list[str]) -> None:
    if not isinstance(value, dict):
        problems.append(f"{where}: not an object")
        return
    for key, expected in _REQUIRED[kind].items():
        if key not in value:
            problems.append(f"{where}: missing {key}")
        elif not isinstance(value[key], expected) or isinstance(value[key], bool):
            problems.append(f"{where}.{key}: {value[key]!r} is not {expected}")


def har_problems(har: Any) -> list[str]:
    """What in ``har`` breaks the HAR 1.2 spec's required structure (empty when nothing)."""
    problems: list[str] = []
    if not isinstance(har, dict) or "log" not in har:
        return ["no log object"]
    log = har["log"]
    _require("log", log, "log", problems)
    if problems:
        return problems
    if log["version"] != "1.2":
        problems.append(f"log.version is {log['version']!r}")
    _require("creator", log["creator"], "log.creator", problems)
    page_ids = set()
    for i, page in enumerate(log.get("pages", [])):
        _require("page", page, f"pages[{i}]", problems)
        page_ids.add(page.get("id"))
        for name, value in page.get("pageTimings", {}).items():
            if not isinstance(value, _NUMBER):
                problems.append(f"pages[{i}].pageTimings.{name} is not a number")
    for i, entry in enumerate(log["entries"]):
        where = f"entries[{i}]"
        _require("entry", entry, where, problems)
        if "pageref" in entry and entry["pageref"] not in page_ids:
            problems.append(f"{where}.pageref {entry['pageref']!r} names no page")
        request, response = entry.get("request", {}), entry.get("response", {})
        _require("request", request, f"{where}.request", problems)
        _require("response", response, f"{where}.response", problems)
        for part, message in (("request", request), ("response", response)):
            for j, header in enumerate(message.get("headers", [])):
                _require("pair", header, f"{where}.{part}.headers[{j}]", problems)
            for j, cookie in enumerate(message.get("cookies", [])):
                _require("cookie", cookie, f"{where}.{part}.cookies[{j}]", problems)
        for j, pair in enumerate(request.get("queryString", [])):
            _require("pair", pair, f"{where}.request.queryString[{j}]", problems)
        if "postData" in request:
            _require("postData", request["postData"], f"{where}.request.postData", problems)
        _require("content", response.get("content"), f"{where}.response.content", problems)
        timings = entry.get("timings", {})
        _require("timings", timings, f"{where}.timings", problems)
        for name in ("send", "wait", "receive"):
            if isinstance(timings.get(name), _NUMBER) and timings[name] < 0:
                problems.append(f"{where}.timings.{name} is negative")
        for name in ("blocked", "dns", "connect", "ssl"):
            if name in timings and timings[name] < 0 and timings[name] != -1:
                problems.append(f"{where}.timings.{name} is {timings[name]} (only -1 is allowed)")
    return problems


def test_the_checker_finds_what_is_missing() -> None:
    assert har_problems({"log": {"version": "1.1", "creator": {}, "entries": [{}]}}) == [
        "log.version is '1.1'",
        "log.creator: missing name",
        "log.creator: missing version",
        "entries[0]: missing startedDateTime",
        "entries[0]: missing time",
        "entries[0]: missing request",
        "entries[0]: missing response",
        "entries[0]: missing cache",
        "entries[0]: missing timings",
        "entries[0].request: missing method",
        "entries[0].request: missing url",
        "entries[0].request: missing httpVersion",
        "entries[0].request: missing cookies",
        "entries[0].request: missing headers",
        "entries[0].request: missing queryString",
        "entries[0].request: missing headersSize",
        "entries[0].request: missing bodySize",
        "entries[0].response: missing status",
        "entries[0].response: missing statusText",
        "entries[0].response: missing httpVersion",
        "entries[0].response: missing cookies",
        "entries[0].response: missing headers",
        "entries[0].response: missing content",
        "entries[0].response: missing redirectURL",
        "entries[0].response: missing headersSize",
        "entries[0].response: missing bodySize",
        "entries[0].response.content: not an object",
        "entries[0].timings: missing send",
        "entries[0].timings: missing wait",
        "entries[0].timings: missing receive",
    ]


# -- recording -------------------------------------------------------------------------------


def _entries(har: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["request"]["url"]: entry for entry in har["log"]["entries"]}


async def test_har_of_a_page_with_json_image_and_failures(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    path = tmp_path / "run.har"
    async with tools.record_har(page, path):
        await tools.navigate(page, server.url("/net/page"))
        await tools.wait_for(page, text="done")
        await tools.navigate(page, server.url("/net/plain"))
    har = json.loads(path.read_text())
    assert har_problems(har) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # cookies and Set-Cookie values are in it
    log = har["log"]
    assert log["creator"] == {"name": "cdpkit", "version": cdpkit.__version__}
    assert [(p["id"], p["title"]) for p in log["pages"]] == [
        ("page_1", "Network page"),
        ("page_2", "Plain"),
    ]
    assert all(p["pageTimings"]["onLoad"] > 0 for p in log["pages"])
    entries = _entries(har)
    document = entries[server.url("/net/page")]
    assert (document["pageref"], document["_resourceType"]) == ("page_1", "document")
    assert document["response"]["status"] == 200 and "Network page" in document["response"]["content"]["text"]
    data = entries[server.url("/net/data.json")]
    assert json.loads(data["response"]["content"]["text"]) == DATA
    assert data["response"]["content"]["mimeType"] == "application/json"
    assert data["response"]["cookies"] == [{"name": "seen", "value": "1", "path": "/"}]
    assert data["serverIPAddress"] == "127.0.0.1" and data["_resourceType"] == "fetch"
    assert data["timings"]["wait"] >= 0 and data["time"] >= 0
    picture = entries[server.url("/net/pic.png")]
    assert picture["response"]["content"]["encoding"] == "base64"
    assert base64.b64decode(picture["response"]["content"]["text"]) == IMAGE
    assert picture["response"]["content"]["size"] == len(IMAGE)
    refused = entries[f"http://127.0.0.1:{DEAD_PORT}/refused.json"]
    assert (refused["response"]["status"], refused["_error"]) == (0, "net::ERR_CONNECTION_REFUSED")
    posted = entries[server.url("/net/echo")]
    assert posted["request"]["postData"] == {"mimeType": "text/plain", "text": "name=cdpkit"}
    # The second page's request comes after the first page's, under its own page.
    assert entries[server.url("/net/plain")]["pageref"] == "page_2"


async def test_bodies_over_the_limit_are_left_out_with_a_comment(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    path = tmp_path / "small.har"
    async with tools.record_har(page, path, max_body_size=50):
        await tools.navigate(page, server.url("/net/page"))
        await tools.wait_for(page, text="done")
    har = json.loads(path.read_text())
    assert har_problems(har) == []
    content = _entries(har)[server.url("/net/pic.png")]["response"]["content"]
    assert "text" not in content and "max_body_size=50" in content["comment"]
    assert content["size"] == len(IMAGE)
    no_content = tmp_path / "none.har"
    async with tools.record_har(page, no_content, content=False):
        await tools.navigate(page, server.url("/net/page"))
        await tools.wait_for(page, text="done")
    entries = _entries(json.loads(no_content.read_text()))
    assert not any("text" in e["response"]["content"] for e in entries.values())


async def test_the_har_is_written_when_the_block_raises(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    path = tmp_path / "failed.har"
    path.write_text("an older HAR, readable by all")
    path.chmod(0o644)
    with pytest.raises(RuntimeError, match="the script broke"):
        async with tools.record_har(page, path):
            await tools.navigate(page, server.url("/net/page"))
            await tools.wait_for(page, text="done")
            raise RuntimeError("the script broke")
    har = json.loads(path.read_text())
    assert har_problems(har) == []
    assert server.url("/net/data.json") in _entries(har)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # replaced by a private file
    assert [p.name for p in tmp_path.iterdir()] == ["failed.har"]


def test_cli_scrape_writes_the_har_of_the_run(server: FixtureServer, tmp_path: Path) -> None:
    install(server)
    path = tmp_path / "cli.har"
    done = subprocess.run(
        [sys.executable, "-m", "cdpkit", "scrape", server.url("/net/page"), "--har", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    har = json.loads(path.read_text())
    assert har_problems(har) == []
    entries = _entries(har)
    assert entries[server.url("/net/page")]["response"]["status"] == 200
    assert server.url("/net/pic.png") in entries


async def test_the_har_is_written_when_the_page_closes_in_the_block(
    context: cdpkit.BrowserContext, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    page = await context.new_page()
    path = tmp_path / "closed.har"
    async with tools.record_har(page, path):
        await tools.navigate(page, server.url("/net/page"))
        await tools.wait_for(page, text="done")
        await page.close()
    har = json.loads(path.read_text())
    assert har_problems(har) == []
    entries = _entries(har)
    # Bodies fetched as each request finished survive the page.
    assert json.loads(entries[server.url("/net/data.json")]["response"]["content"]["text"]) == DATA
