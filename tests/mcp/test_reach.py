"""What an agent may reach over MCP: no local files or browser pages without
``--allow-file-urls``; web origins as ``--allowed-origins`` / ``--blocked-origins`` say,
checked on every way a tab can get somewhere (navigation, redirects, clicked links, new
tabs, downloads, scrapes) and before every tool that reads a page.

One server per configuration; each test drives one through the MCP client SDK.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import cdpkit
from cdpkit.mcp import _page_tools, _tools
from cdpkit.mcp._tools import BrowserSession, ServerOptions, build_tools
from cdpkit.mcp._urls import UrlBlockedError, UrlPolicy
from tests.server import FixtureServer

from .conftest import McpSession, text_of

FILE_BLOCKED = (
    "Navigation to file:///etc/passwd is blocked: file URLs are not allowed "
    "(start the server with --allow-file-urls to allow them)"
)


@pytest.fixture(scope="module")
def sites(
    server: FixtureServer, other_server: FixtureServer
) -> Iterator[tuple[FixtureServer, FixtureServer]]:
    """``server`` (the allowed origin) with a route redirecting to ``other_server``."""

    def redirect(handler: object) -> None:
        handler.send_response(302)  # type: ignore[attr-defined]
        handler.send_header("Location", other_server.url("/mcp/index.html"))  # type: ignore[attr-defined]
        handler.send_header("Content-Length", "0")  # type: ignore[attr-defined]
        handler.end_headers()  # type: ignore[attr-defined]

    server.route("/mcp/reach/redirect", redirect)
    yield server, other_server


async def start(args: list[str], tmp_path: Path, **kwargs: object) -> McpSession:
    return await McpSession([*args, "--downloads", str(tmp_path)], **kwargs).start()  # type: ignore[arg-type]


def assert_refused(result: object, starts: str) -> str:
    text = text_of(result)
    assert result.is_error, text  # type: ignore[attr-defined]
    assert text.startswith(starts), text
    return text


async def test_by_default_no_local_file_or_browser_page(
    tmp_path: Path, server: FixtureServer
) -> None:
    session = await start([], tmp_path)
    try:
        result = await session.call("browser_navigate", {"url": "file:///etc/passwd"})
        assert result.is_error and text_of(result) == FILE_BLOCKED
        text = text_of(await session.call("browser_get_visible_text"))
        assert "root:" not in text

        await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
        for url in ("file:///etc/passwd", "view-source:file:///etc/passwd"):
            result = await session.call("browser_navigate", {"url": url})
            assert_refused(result, f"Navigation to {url} is blocked: file URLs are not allowed")
        result = await session.call("browser_navigate", {"url": "chrome://version"})
        assert_refused(
            result,
            "Navigation to chrome://version is blocked: the browser's own pages (chrome:) are "
            "not allowed (start the server with --allow-file-urls",
        )
        result = await session.call("browser_navigate", {"url": "javascript:document.title"})
        assert "browser_execute_js" in assert_refused(result, "Navigation to javascript:")
        # The tab stayed where it was.
        text = text_of(await session.call("browser_get_visible_text"))
        assert "MCP test page" in text and "root:" not in text

        result = await session.call("browser_tabs", {"action": "new", "url": "file:///etc/passwd"})
        assert result.is_error and text_of(result) == FILE_BLOCKED
        tabs = json.loads(text_of(await session.call("browser_tabs")))
        assert len(tabs) == 1

        result = await session.call("browser_download", {"url": "file:///etc/passwd"})
        assert_refused(
            result, "Download of file:///etc/passwd is blocked: file URLs are not allowed"
        )
        assert list(tmp_path.iterdir()) == []

        result = await session.call(
            "browser_scrape", {"url": "file:///etc/passwd", "format": "text"}
        )
        assert result.is_error and text_of(result) == FILE_BLOCKED

        # What the agent writes itself is fine.
        result = await session.call(
            "browser_navigate", {"url": "data:text/html,<title>Mine</title><p>Data page</p>"}
        )
        assert not result.is_error, text_of(result)
        assert "Data page" in text_of(await session.call("browser_get_visible_text"))

        # Uploads: a page given a local file could show it; only downloaded files go.
        await session.call("browser_navigate", {"url": "data:text/html,<input type=file id=f>"})
        result = await session.call(
            "browser_upload_file", {"paths": "/etc/passwd", "selector": "#f"}
        )
        assert result.is_error and text_of(result) == (
            f"Upload of /etc/passwd is blocked: only files in the download directory "
            f"({tmp_path.resolve()}) can be uploaded (start the server with --allow-file-urls "
            f"to allow any local file)"
        )
        mine = tmp_path / "mine.txt"
        mine.write_text("mine")
        result = await session.call("browser_upload_file", {"paths": [str(mine)], "selector": "#f"})
        assert not result.is_error, text_of(result)
    finally:
        await session.stop()


def requests_for(site: FixtureServer, path: str) -> int:
    return sum(1 for request in site.requests if request.split("?")[0] == path)


async def test_allowed_origins_and_file_urls(
    tmp_path: Path, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    site, other = sites
    blocked = f"origin {other.origin} is not in --allowed-origins"
    session = await start(["--allow-file-urls", "--allowed-origins", site.origin], tmp_path)
    try:
        # Allowed by the person running the server.
        result = await session.call("browser_navigate", {"url": "file:///etc/passwd"})
        assert not result.is_error, text_of(result)
        assert "root:" in text_of(await session.call("browser_get_visible_text"))

        await session.call("browser_navigate", {"url": "data:text/html,<input type=file id=f>"})
        result = await session.call(
            "browser_upload_file", {"paths": "/etc/passwd", "selector": "#f"}
        )
        assert not result.is_error, text_of(result)

        result = await session.call("browser_navigate", {"url": site.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)

        # Another origin, asked for directly.
        url = other.url("/mcp/index.html")
        loads_of_blocked_page = requests_for(other, "/mcp/index.html")
        result = await session.call("browser_navigate", {"url": url})
        assert result.is_error and text_of(result) == f"Navigation to {url} is blocked: {blocked}"

        # Redirected there: the browser refuses the request itself; nothing is loaded.
        redirect = site.url("/mcp/reach/redirect")
        result = await session.call("browser_navigate", {"url": redirect})
        assert result.is_error and text_of(result) == (
            f"Navigation to {redirect} was redirected to {url}, which is blocked: {blocked}. "
            f"Nothing was loaded from there."
        )
        assert "MCP test page" not in text_of(await session.call("browser_get_visible_text"))
        result = await session.call("browser_scrape", {"url": url})
        assert result.is_error and text_of(result) == f"Navigation to {url} is blocked: {blocked}"

        # A link clicked into it: refused by the browser, said in a note.
        reach = site.url(f"/mcp/reach.html?to={other.origin}")
        await session.call("browser_navigate", {"url": reach})
        texts = [text_of(await session.call("browser_click", {"selector": "#away"}))]
        note = (
            f"Note: the page tried to load {url} (a link, a script or a frame), which is "
            f"blocked: {blocked}. The request was refused."
        )
        deadline = time.monotonic() + 15
        while note not in texts[-1]:
            assert time.monotonic() < deadline, texts
            await asyncio.sleep(0.1)
            texts.append(text_of(await session.call("browser_get_visible_text")))
        assert not any("MCP test page" in text for text in texts)
        assert requests_for(other, "/mcp/index.html") == loads_of_blocked_page
        result = await session.call("browser_go_back")
        assert json.loads(text_of(result))["url"] == reach

        # A frame of it: not loaded either.
        framed = requests_for(other, "/mcp/index.html")
        result = await session.call("browser_navigate", {"url": reach + "&frame"})
        assert not result.is_error, text_of(result)
        assert f"Note: the page tried to load {url}?framed" in text_of(result)
        assert requests_for(other, "/mcp/index.html") == framed
        await session.call("browser_navigate", {"url": reach})

        # New tabs.
        result = await session.call("browser_tabs", {"action": "new", "url": url})
        assert result.is_error and text_of(result) == f"Navigation to {url} is blocked: {blocked}"
        result = await session.call("browser_tabs", {"action": "new", "url": redirect})
        assert result.is_error and text_of(result) == (
            f"Navigation to {redirect} was redirected to {url}, which is blocked: {blocked}. "
            f"Nothing was loaded from there. The new tab was closed."
        )
        (tab,) = json.loads(text_of(await session.call("browser_tabs")))
        assert tab["url"] == reach and tab["active"]
        assert requests_for(other, "/mcp/index.html") == loads_of_blocked_page

        # Downloads: by URL, and of what an element points to.
        result = await session.call("browser_download", {"url": other.url("/mcp/reach.html")})
        download_refusal = f"Download of {other.url('/mcp/reach.html')} is blocked: {blocked}"
        assert result.is_error and text_of(result) == download_refusal
        result = await session.call("browser_download", {"selector": "#file"})
        assert result.is_error and text_of(result) == download_refusal
        assert list(tmp_path.iterdir()) == []
        result = await session.call("browser_download", {"url": "/mcp/reach/redirect"})
        # The redirect's target is judged before it is requested (not after it was saved).
        assert result.is_error and text_of(result) == (
            f"Download of {redirect} was redirected to {url}, which is blocked: {blocked}. "
            f"Nothing was requested from there."
        )
        assert list(tmp_path.iterdir()) == []
        # Relative URLs resolve against the (allowed) page, as before.
        result = await session.call("browser_download", {"url": "/mcp/index.html"})
        assert not result.is_error, text_of(result)
        assert b"MCP test page" in Path(json.loads(result.content[0].text)["path"]).read_bytes()
    finally:
        await session.stop()


async def test_no_tool_reads_a_tab_at_a_blocked_url(
    browser: cdpkit.Browser, sites: tuple[FixtureServer, FixtureServer]
) -> None:
    """The tools' own checks, without the request guard (a browser given to the session,
    not launched by it, has none): the tab does reach the blocked page here."""
    site, other = sites
    blocked = f"origin {other.origin} is not in --allowed-origins"
    policy = UrlPolicy.from_options(allowed_origins=site.origin)
    session = BrowserSession(ServerOptions(url_policy=policy))
    session._browser = browser
    specs = {spec.name: spec for spec in build_tools(session.options)}

    async def call(name: str, **arguments: object) -> list[_tools.Part]:
        return await specs[name].run(session, specs[name].arguments(arguments))

    tab = await cdpkit.tools.new_tab(browser)
    try:
        reach = site.url(f"/mcp/reach.html?to={other.origin}")
        await call("browser_navigate", url=reach)
        url = other.url("/mcp/index.html")
        try:
            await call("browser_click", selector="#away")
        except UrlBlockedError as exc:  # the navigation landed before the click returned
            assert str(exc).startswith(f"browser_click: the tab went to {url}, which is blocked")
        deadline = time.monotonic() + 15
        while True:  # until the click's navigation lands: never the blocked page's text
            try:
                (text,) = await call("browser_get_visible_text")
            except UrlBlockedError as exc:
                refusal = str(exc)
                break
            assert "MCP test page" not in str(text)
            assert time.monotonic() < deadline, "the link did not navigate within 15 s"
            await asyncio.sleep(0.1)
        assert refusal == (
            f"browser_get_visible_text refused: the active tab is at {url}, which is blocked: "
            f"{blocked}. To go on, navigate elsewhere (browser_navigate, browser_go_back) or "
            f"switch tabs (browser_tabs)."
        )
        for name in ("browser_snapshot", "browser_screenshot", "browser_get_page_metadata"):
            with pytest.raises(UrlBlockedError, match=f"^{name} refused: the active tab is at"):
                await call(name)
        page = json.loads(await _page_tools.dom_resource(session))
        assert page == {"url": url, "title": None, "tree": None, "blocked": blocked}
        tabs = json.loads(await _page_tools.tabs_resource(session))
        (listed,) = [t for t in tabs if t["id"] == tab.target_id]
        assert listed["title"] == "(not shown: this URL is blocked)"
        # The way out works.
        (result,) = await call("browser_go_back")
        assert json.loads(str(getattr(result, "text", "")))["url"] == reach

        # A redirect there: the tab is sent away before anything can be read.
        redirect = site.url("/mcp/reach/redirect")
        with pytest.raises(UrlBlockedError) as caught:
            await call("browser_navigate", url=redirect)
        assert str(caught.value) == (
            f"Navigation to {redirect} was redirected to {url}, which is blocked: {blocked}. "
            f"The tab was sent to about:blank."
        )
        assert await _tools.location(tab) == "about:blank"
    finally:
        await tab.close()


async def test_blocked_origins_through_the_cdpkit_command(
    tmp_path: Path, server: FixtureServer, other_server: FixtureServer
) -> None:
    session = await start(
        [
            "--blocked-origins",
            f"{other_server.origin};ads.test",
            "--allowed-origins",
            "http://127.0.0.1:*",
        ],
        tmp_path,
        entry=("-m", "cdpkit", "mcp"),
    )
    try:
        tools = {tool.name: tool for tool in (await session.client.list_tools()).tools}
        description = tools["browser_navigate"].description or ""
        assert f"these origins are blocked: {other_server.origin}, ads.test" in description

        result = await session.call("browser_navigate", {"url": server.url("/mcp/index.html")})
        assert not result.is_error, text_of(result)
        url = other_server.url("/mcp/index.html")
        result = await session.call("browser_navigate", {"url": url})
        assert result.is_error and text_of(result) == (
            f"Navigation to {url} is blocked: origin {other_server.origin} is in --blocked-origins"
        )
        assert "MCP test page" in text_of(await session.call("browser_get_visible_text"))
    finally:
        await session.stop()
