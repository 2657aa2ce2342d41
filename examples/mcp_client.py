"""An MCP client driving cdpkit's MCP server, as an AI agent's host would: start the
server over stdio, list its tools, read a page with `browse` (no browser needed), open it,
read it as a numbered snapshot, click a button by its index, take a screenshot, read a
resource, and see an error come back as a result. Needs the mcp extra: pip install 'cdpkit-browser[mcp]'."""

import asyncio
import base64
import json
import os
import re
import struct
import sys

from _pages import serve_pages
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult


def text(result: CallToolResult) -> str:
    """The text parts of a tool result."""
    return "\n".join(part.text for part in result.content if part.type == "text")


async def main() -> None:
    # What an MCP host (Claude Desktop, an IDE...) runs: `cdpkit mcp`, here without the CLI.
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "cdpkit.mcp_server"], env=dict(os.environ)
    )
    with serve_pages() as base:
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
            print(f"{len(tools)} tools, e.g. {', '.join(tool.name for tool in tools[:4])}")

            # Reading a page: `browse` fetches it over HTTP, no browser needed.
            result = await client.call_tool("browse", {"url": f"{base}/hello.html", "max_tokens": 200})
            print(f"Browsed: {text(result).splitlines()[0]}")

            # The browser starts with the first browser_* tool call.
            result = await client.call_tool("browser_navigate", {"url": f"{base}/hello.html"})
            print(f"Opened: {json.loads(text(result))['title']}")

            snapshot = text(await client.call_tool("browser_snapshot", {}))
            print(snapshot)
            greet = int(re.search(r'\[(\d+)\] button "Greet"', snapshot).group(1))

            await client.call_tool("browser_click", {"index": greet})
            after = text(await client.call_tool("browser_snapshot", {}))
            print("After the click:", re.search(r'button "[^"]*"', after).group(0))

            result = await client.call_tool("browser_screenshot", {})
            image = next(part for part in result.content if part.type == "image")
            png = base64.b64decode(image.data)
            width, height = struct.unpack(">II", png[16:24])
            print(f"Screenshot: {image.mime_type}, {width}x{height}")

            tabs = json.loads((await client.read_resource("tabs://list")).contents[0].text)
            print(f"Tabs: {[tab['url'].removeprefix(base) for tab in tabs]}")

            # A failing tool is a result the model reads, not a crash.
            result = await client.call_tool("browser_click", {"selector": "#missing"})
            print(f"Error result: {result.is_error}, {text(result)!r}")
    # Leaving the client closed the server, and the server closed the browser.


if __name__ == "__main__":
    asyncio.run(main())
