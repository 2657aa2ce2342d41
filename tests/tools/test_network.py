"""network_requests / network_request against a real headless Chromium: what the page
loaded since its last navigation, filtered; one request's headers and body."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.network_pages import DATA, DEAD_PORT, IMAGE, install
from tests.server import FixtureServer


async def _settled(page: cdpkit.Page, count: int) -> list[tools.NetworkRequest]:
    """The requests once ``count`` of them have ended (loaded or failed)."""
    async with asyncio.timeout(10):
        while True:
            found = await tools.network_requests(page)
            if sum(r.duration_ms is not None for r in found) >= count:
                return found
            await asyncio.sleep(0.05)


async def _load(page: cdpkit.Page, server: FixtureServer) -> list[tools.NetworkRequest]:
    install(server)
    await tools.start_network_log(page)
    await tools.navigate(page, server.url("/net/page"))
    await tools.wait_for(page, text="done")
    return await _settled(page, 6)


async def test_lists_every_request_since_navigation_with_status_type_and_size(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    found = await _load(page, server)
    by_url = {r.url: r for r in found}
    document = by_url[server.url("/net/page")]
    assert (document.method, document.status, document.resource_type) == ("GET", 200, "Document")
    assert found[0] is document  # the navigation's own request comes first
    data = by_url[server.url("/net/data.json")]
    assert (data.status, data.resource_type, data.mime_type) == (200, "Fetch", "application/json")
    assert data.size is not None and data.size >= len(json.dumps(DATA))
    assert data.failed is None and data.remote_address == f"127.0.0.1:{server.server_address[1]}"
    assert data.duration_ms is not None and data.duration_ms >= 0
    picture = by_url[server.url("/net/pic.png")]
    assert (picture.status, picture.resource_type, picture.mime_type) == (200, "Image", "image/png")
    assert picture.size is not None and picture.size >= len(IMAGE)
    missing = by_url[server.url("/net/missing.json")]
    assert (missing.status, missing.status_text, missing.failed) == (404, "Not Found", None)
    refused = by_url[f"http://127.0.0.1:{DEAD_PORT}/refused.json"]
    assert refused.status is None and refused.failed == "net::ERR_CONNECTION_REFUSED"
    posted = by_url[server.url("/net/echo")]
    assert (posted.method, posted.status) == ("POST", 501)


async def test_filters_by_url_type_and_failure(page: cdpkit.Page, server: FixtureServer) -> None:
    await _load(page, server)
    assert [r.url for r in await tools.network_requests(page, url_pattern="*.png")] == [
        server.url("/net/pic.png")
    ]
    # Without glob characters: a substring.
    assert {r.url for r in await tools.network_requests(page, url_pattern="/net/d")} == {
        server.url("/net/data.json")
    }
    fetched = await tools.network_requests(page, resource_types=["fetch", "IMAGE"])
    assert {r.resource_type for r in fetched} == {"Fetch", "Image"}
    assert len(fetched) == 5
    failed = await tools.network_requests(page, failed_only=True)
    assert {r.url for r in failed} == {
        server.url("/net/missing.json"),
        f"http://127.0.0.1:{DEAD_PORT}/refused.json",
        server.url("/net/echo"),
    }


async def test_a_new_navigation_clears_the_list(page: cdpkit.Page, server: FixtureServer) -> None:
    await _load(page, server)
    await tools.navigate(page, server.url("/net/plain"))
    found = await tools.network_requests(page)
    assert [(r.url, r.resource_type) for r in found] == [(server.url("/net/plain"), "Document")]


async def test_one_request_json_body_headers_and_post_data(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    found = await _load(page, server)
    data = next(r for r in found if r.url.endswith("/net/data.json"))
    details = await tools.network_request(page, data.id)
    assert details.body is not None and json.loads(details.body) == DATA
    assert details.body_path is None
    assert details.response_headers["Content-Type"] == "application/json"
    assert details.response_headers["Set-Cookie"] == "seen=1; Path=/"
    assert details.request_headers.get("Accept") or details.request_headers.get("accept")
    assert details.timing is not None and details.timing["wait"] >= 0
    posted = next(r for r in found if r.url.endswith("/net/echo"))
    assert (await tools.network_request(page, posted.id, body=False)).post_data == "name=cdpkit"


async def test_binary_body_is_saved_to_a_file(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    found = await _load(page, server)
    picture = next(r for r in found if r.url.endswith("/net/pic.png"))
    details = await tools.network_request(page, picture.id, save_to=tmp_path / "bodies")
    assert details.body is None and details.body_path is not None
    saved = Path(details.body_path)
    assert saved.parent == tmp_path / "bodies" and saved.suffix == ".png"
    assert saved.read_bytes() == IMAGE
    # Asked again, the body never replaces the file already there (the folder may be
    # the user's downloads): it takes the next free name.
    saved.write_bytes(b"the user's own file")
    again = await tools.network_request(page, picture.id, save_to=tmp_path / "bodies")
    assert again.body_path == str(saved.with_name(f"{saved.stem}-1.png"))
    assert saved.read_bytes() == b"the user's own file"
    assert Path(again.body_path).read_bytes() == IMAGE


async def test_no_body_is_a_note_not_an_error(page: cdpkit.Page, server: FixtureServer) -> None:
    found = await _load(page, server)
    refused = next(r for r in found if r.failed)
    details = await tools.network_request(page, refused.id)
    assert details.body is None and "net::ERR_CONNECTION_REFUSED" in (details.body_note or "")


async def test_unknown_id_says_how_to_get_ids(page: cdpkit.Page, server: FixtureServer) -> None:
    await _load(page, server)
    with pytest.raises(ValueError, match=r"No request with id 'nope'.*network_requests\(page\)"):
        await tools.network_request(page, "nope")


async def test_recording_starts_with_the_first_question(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    install(server)
    await tools.navigate(page, server.url("/net/plain"))
    assert await tools.network_requests(page) == []  # nothing recorded before the first ask
    await tools.navigate(page, server.url("/net/page"))
    await tools.wait_for(page, text="done")
    found = await _settled(page, 6)
    assert found[0].url == server.url("/net/page")


async def test_a_redirect_is_listed_as_its_own_hop(page: cdpkit.Page, server: FixtureServer) -> None:
    install(server)
    await tools.start_network_log(page)
    await tools.navigate(page, server.url("/net/plain"))
    await tools.evaluate(page, "fetch('/net/redirect').then(r => r.json())")
    found = await _settled(page, 3)
    hop, final = found[1], found[2]
    assert (hop.url, hop.status, hop.id) == (server.url("/net/redirect"), 302, f"{final.id}.redirect1")
    assert (final.url, final.status) == (server.url("/net/data.json"), 200)
    assert (await tools.network_request(page, hop.id)).body_note == "a redirect (302): it has no body to show"
    assert json.loads((await tools.network_request(page, final.id)).body or "") == DATA


def test_the_log_keeps_the_last_entries_only() -> None:
    from cdpkit.tools._network_log import NetworkLog

    log = NetworkLog(main_frame="F", limit=3)
    for i in range(5):
        log.feed(
            "Network.requestWillBeSent",
            {
                "requestId": f"r{i}", "loaderId": "L", "documentURL": "", "timestamp": i,
                "wallTime": 1e9 + i, "type": "Fetch", "frameId": "F", "initiator": {"type": "script"},
                "redirectHasExtraInfo": False,
                "request": {"url": f"http://x/{i}", "method": "GET", "headers": {}},
            },
        )  # fmt: skip
    assert list(log.entries) == ["r2", "r3", "r4"] and log.dropped == 2


def test_an_event_of_an_unexpected_shape_is_skipped_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    from cdpkit.tools._network_log import NetworkLog

    log = NetworkLog(main_frame="F")
    log.feed(
        "Network.requestWillBeSent",
        {
            "requestId": "r1", "loaderId": "L", "documentURL": "", "timestamp": 1,
            "wallTime": 1e9, "type": "Fetch", "frameId": "F", "initiator": {"type": "script"},
            "redirectHasExtraInfo": False,
            "request": {"url": "http://x/", "method": "GET", "headers": {}},
        },
    )  # fmt: skip
    log.feed("Network.loadingFinished", {"requestId": "r1"})  # no timestamp
    assert "could not read" in caplog.text and not log.entries["r1"].finished
    log.feed("Network.loadingFinished", {"requestId": "r1", "timestamp": 2, "encodedDataLength": 9})
    assert log.entries["r1"].finished
