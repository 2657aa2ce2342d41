"""Element locators over MCP (the official client SDK): the acting tools take role/name,
text and label as an agent reads them in a snapshot; several matches fail listing them."""

from __future__ import annotations

import json

from tests.server import FixtureServer

from .conftest import McpSession, text_of


async def test_tools_act_on_role_name_label_and_text(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    tools = {tool.name: tool for tool in (await mcp_stdio.client.list_tools()).tools}
    assert {"role", "name", "text", "label"} <= set(tools["browser_click"].input_schema["properties"])
    result = await mcp_stdio.call("browser_navigate", {"url": server.url("/locators/form.html")})
    assert not result.is_error, text_of(result)
    for name, arguments in [
        ("browser_type", {"label": "Email", "text": "ann@example.com"}),
        ("browser_type", {"role": "textbox", "name": "Phone number", "text": "555"}),
        ("browser_select_option", {"label": "Country", "values": "jp"}),
        ("browser_click", {"text": "I accept the terms"}),
    ]:
        result = await mcp_stdio.call(name, arguments)
        assert not result.is_error, (name, arguments, text_of(result))
    values = {
        field["name"]: field["value"]
        for field in json.loads(text_of(await mcp_stdio.call("browser_get_form_values")))
    }
    assert values["email"] == "ann@example.com"
    assert values["phone"] == "555"
    assert values["country"] == "jp"
    state = await mcp_stdio.call("browser_check_element_state", {"label": "I accept the terms"})
    assert json.loads(text_of(state))["checked"] is True


async def test_an_ambiguous_locator_fails_listing_the_candidates(
    mcp_stdio: McpSession, server: FixtureServer
) -> None:
    result = await mcp_stdio.call("browser_navigate", {"url": server.url("/locators/form.html")})
    assert not result.is_error, text_of(result)
    result = await mcp_stdio.call("browser_click", {"role": "button", "name": "Delete"})
    assert result.is_error
    message = text_of(result)
    assert '2 elements match role=button name="Delete"; nothing was done' in message
    assert message.count('button "Delete" @(') == 2
    # Nothing was clicked: no change was reported... and the page still shows both.
    snapshot = text_of(await mcp_stdio.call("browser_snapshot"))
    assert snapshot.count('button "Delete"') == 2
