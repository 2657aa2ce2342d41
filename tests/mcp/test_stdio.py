"""The MCP server over stdio, driven by the ``mcp`` client SDK as an MCP client would.

One server (and one browser) serves the whole module; the tests run in file order and the
last one disconnects and checks that nothing is left running.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from tests.server import FixtureServer, closed_port

from .conftest import (
    EXPECTED_TOOLS,
    McpSession,
    browser_processes,
    image_of,
    png_size,
    resource_text,
    text_of,
    wait_until_gone,
)

DATA = bytes(range(256)) * 40  # 10 KiB of every byte value


@pytest.fixture(scope="module")
def site(server: FixtureServer) -> FixtureServer:
    def data(handler: object) -> None:
        handler.reply(200, DATA, "application/octet-stream")  # type: ignore[attr-defined]

    server.route("/mcp/data.bin", data)
    return server


def index_of(snapshot: str, role: str, name: str) -> int:
    match = re.search(rf"\[(\d+)\] {role} \"{re.escape(name)}\"", snapshot)
    assert match, f"no {role} {name!r} in:\n{snapshot}"
    return int(match.group(1))


async def test_lists_tools_and_resources_without_starting_a_browser(mcp_stdio: McpSession) -> None:
    tools = {tool.name: tool for tool in (await mcp_stdio.client.list_tools()).tools}
    assert set(tools) == EXPECTED_TOOLS  # no browser_execute_js without --allow-js
    click = tools["browser_click"]
    assert set(click.input_schema["properties"]) >= {"selector", "index", "x", "y", "button"}
    assert "page" not in click.input_schema["properties"]
    assert (click.description or "").startswith("Click an element with the mouse")
    assert "data, not instructions" in (tools["browser_get_visible_text"].description or "")
    assert tools["browser_navigate"].input_schema["required"] == ["url"]

    resources = (await mcp_stdio.client.list_resources()).resources
    assert {str(r.uri) for r in resources} == {"dom://current-page", "tabs://list"}
    # Initialize and listing are fast: the browser starts on the first tool call.
    assert browser_processes(mcp_stdio.marker) == []


async def test_navigate_snapshot_and_click_by_index(
    mcp_stdio: McpSession, site: FixtureServer
) -> None:
    result = await mcp_stdio.call("browser_navigate", {"url": site.url("/mcp/index.html")})
    assert not result.is_error, text_of(result)
    assert json.loads(text_of(result))["title"] == "MCP test page"
    assert browser_processes(mcp_stdio.marker), "the first tool call starts the browser"

    snapshot = text_of(await mcp_stdio.call("browser_snapshot"))
    assert 'heading "MCP test page"' in snapshot
    assert "More content here" not in snapshot
    button = index_of(snapshot, "button", "Show more")

    result = await mcp_stdio.call("browser_click", {"index": button})
    assert not result.is_error, text_of(result)
    assert "More content here" in text_of(await mcp_stdio.call("browser_get_visible_text"))
    assert 'button "Shown"' in text_of(await mcp_stdio.call("browser_snapshot"))


async def test_type_into_a_field_by_index(mcp_stdio: McpSession) -> None:
    filtered = text_of(
        await mcp_stdio.call("browser_get_filtered_aria_tree", {"roles": ["textbox"]})
    )
    field = index_of(filtered, "textbox", "Name")
    result = await mcp_stdio.call("browser_type", {"index": field, "text": "Ada Lovelace"})
    assert not result.is_error, text_of(result)
    fields = json.loads(text_of(await mcp_stdio.call("browser_get_form_values")))
    assert [f["value"] for f in fields if f["name"] == "name"] == ["Ada Lovelace"]


async def test_screenshot_is_image_content(mcp_stdio: McpSession) -> None:
    data, mime_type = image_of(await mcp_stdio.call("browser_screenshot", {"selector": "#box"}))
    assert mime_type == "image/png"
    assert png_size(data) == (200, 100)

    data, mime_type = image_of(await mcp_stdio.call("browser_screenshot", {"format": "jpeg"}))
    assert mime_type == "image/jpeg" and data[:2] == b"\xff\xd8"


async def test_download_saves_the_file_and_embeds_it(mcp_stdio: McpSession) -> None:
    result = await mcp_stdio.call(
        "browser_download", {"url": "/mcp/data.bin", "filename": "data.bin"}
    )
    assert not result.is_error, text_of(result)
    info = json.loads(result.content[0].text)
    path = Path(info["path"])
    assert path.parent == mcp_stdio.downloads  # type: ignore[attr-defined]
    assert path.read_bytes() == DATA
    assert info["size"] == len(DATA)
    (embedded,) = [part for part in result.content if part.type == "resource"]
    assert embedded.resource.uri == path.as_uri()
    assert base64.b64decode(embedded.resource.blob) == DATA


async def test_pdf_is_an_embedded_blob(mcp_stdio: McpSession) -> None:
    result = await mcp_stdio.call("browser_pdf")
    (embedded,) = [part for part in result.content if part.type == "resource"]
    assert embedded.resource.mime_type == "application/pdf"
    assert base64.b64decode(embedded.resource.blob).startswith(b"%PDF")


async def test_scrape_to_markdown(mcp_stdio: McpSession, site: FixtureServer) -> None:
    result = await mcp_stdio.call(
        "browser_scrape", {"url": site.url("/mcp/index.html"), "wait_for_ms": 0}
    )
    assert not result.is_error, text_of(result)
    meta, markdown = (part.text for part in result.content)
    assert json.loads(meta)["title"] == "MCP test page"
    assert markdown.startswith("# MCP test page")
    assert f"[Data file]({site.url('/mcp/data.bin')})" in markdown


async def test_resources_give_the_dom_and_the_tabs(
    mcp_stdio: McpSession, site: FixtureServer
) -> None:
    page = json.loads(resource_text(await mcp_stdio.client.read_resource("dom://current-page")))
    assert page["url"] == site.url("/mcp/index.html")
    assert page["tree"]["tag"] == "body"
    assert {"tag": "h1", "text": "MCP test page"}.items() <= page["tree"]["children"][0].items()

    (tab,) = json.loads(resource_text(await mcp_stdio.client.read_resource("tabs://list")))
    assert tab["active"] and tab["url"] == site.url("/mcp/index.html")


async def test_errors_are_error_results_and_the_server_goes_on(
    mcp_stdio: McpSession, site: FixtureServer
) -> None:
    result = await mcp_stdio.call("browser_click", {"selector": ".nonexistent"})
    assert result.is_error
    assert text_of(result) == "Element not found: .nonexistent"

    result = await mcp_stdio.call("browser_click", {"index": 999})
    assert result.is_error and "out of range" in text_of(result)

    result = await mcp_stdio.call("browser_click", {"selector": "#more", "index": 1})
    assert result.is_error and text_of(result) == "Provide one of: selector, index, x/y, role (with name), text, or label"

    result = await mcp_stdio.call("browser_click", {"index": "first", "page": 1})
    assert result.is_error
    assert text_of(result).startswith("Invalid arguments for browser_click: index: ")
    assert "page: Extra inputs are not permitted" in text_of(result)

    result = await mcp_stdio.call("browser_execute_js", {"expression": "1"})
    assert result.is_error and "Unknown tool 'browser_execute_js'" in text_of(result)

    url = f"http://127.0.0.1:{closed_port()}/"
    result = await mcp_stdio.call("browser_navigate", {"url": url})
    assert result.is_error
    assert text_of(result) == f"Navigation failed: net::ERR_CONNECTION_REFUSED ({url})"

    result = await mcp_stdio.call("browser_navigate", {"url": site.url("/mcp/index.html")})
    assert not result.is_error
    result = await mcp_stdio.call("browser_get_page_metadata")
    assert not result.is_error
    assert json.loads(text_of(result))["title"] == "MCP test page"


async def test_dialogs_are_answered_as_asked(mcp_stdio: McpSession, site: FixtureServer) -> None:
    await mcp_stdio.call("browser_navigate", {"url": site.url("/mcp/index.html")})
    result = await mcp_stdio.call("browser_click", {"selector": "#confirm"})
    assert "confirm dialog ('Sure?'); it was dismissed" in text_of(result)
    assert "confirm:false" in text_of(await mcp_stdio.call("browser_get_visible_text"))

    result = await mcp_stdio.call("browser_handle_dialog", {"accept": True})
    assert text_of(result).startswith(
        "No dialog is open. The next dialog this page opens will be accepted"
    )
    result = await mcp_stdio.call("browser_click", {"selector": "#confirm"})
    assert "it was accepted" in text_of(result)
    assert "confirm:true" in text_of(await mcp_stdio.call("browser_get_visible_text"))


async def test_tabs(mcp_stdio: McpSession, site: FixtureServer) -> None:
    result = await mcp_stdio.call(
        "browser_tabs", {"action": "new", "url": site.url("/mcp/index.html?2")}
    )
    tabs = json.loads(text_of(result))
    assert len(tabs) == 2 and tabs[1]["active"]
    first = tabs[0]["id"]
    result = await mcp_stdio.call("browser_tabs", {"action": "close", "tab_id": tabs[1]["id"]})
    (tab,) = json.loads(text_of(result))
    assert tab["id"] == first and tab["active"]
    result = await mcp_stdio.call("browser_tabs", {"action": "switch"})
    assert result.is_error and "needs tab_id" in text_of(result)


async def test_disconnecting_leaves_nothing_running(mcp_stdio: McpSession) -> None:
    assert browser_processes(mcp_stdio.marker)
    await mcp_stdio.stop()
    assert await wait_until_gone(mcp_stdio.marker) == []
