r"""One URL text, one URL: every surface a person or an agent types a URL into reads it as
Chrome does (the URL standard), on two origins (127.0.0.1 and localhost, two ports).

`http:\\host\page`, `http:host/page` and `http://host\page` are the same URL to Chrome and
to the MCP server; the command line and `cdpkit.browse()` used to refuse them, and one
escaped `browse()` as a raw `httpx.InvalidURL`."""

from __future__ import annotations

import json

import pytest

import cdpkit
from cdpkit import tools
from cdpkit._core.urls import InvalidUrlError, url_to_open
from tests.cli.conftest import CLI
from tests.server import FixtureServer

PAGE = "<title>Reached</title><p>The page at the path</p>"


def _spellings(server: FixtureServer, host: str) -> list[str]:
    port = server.server_address[1]
    spellings = [
        f"http:\\\\{host}:{port}\\url\\page?q=1",
        f"http:{host}:{port}/url/page?q=1",
        f"http://{host}:{port}\\url/page?q=1",
        f"\x01 HTTP://{host.upper()}:{port}/url/pa\tge?q=1\n",
        f"hTtP://{host}:{port}/url/page?q=1#part",
    ]
    if host == "127.0.0.1":
        spellings += [f"http://0x7f.1:{port}/url/page?q=1", f"http://2130706433:{port}/url/page?q=1"]
    return spellings


@pytest.fixture
def origins(server: FixtureServer, other_server: FixtureServer) -> list[tuple[FixtureServer, str]]:
    for each in (server, other_server):
        each.route("/url/page", lambda h: h.reply(200, PAGE))
    return [(server, "127.0.0.1"), (other_server, "localhost")]


async def _chrome_reads(page: cdpkit.Page, text: str) -> str:
    """What Chrome's own parser makes of ``text`` (its URL class follows the standard)."""
    href = await tools.evaluate(page, f"new URL({json.dumps(text)}).href")
    assert isinstance(href, str)
    return href


async def test_the_library_reads_every_spelling_as_chrome_does(
    page: cdpkit.Page, origins: list[tuple[FixtureServer, str]]
) -> None:
    for server, host in origins:
        for text in _spellings(server, host):
            expected = await _chrome_reads(page, text)
            assert url_to_open(text) == expected, text
            # The tools hand Chrome the text; Chrome loads what its parser says.
            result = await tools.navigate(page, text)
            assert result.url == expected, text
            assert result.title == "Reached"
            # browse() reads it the same way (tier 1: no browser), and fetches it.
            browsed = await cdpkit.browse(text, tier=1)
            assert browsed.url == expected.partition("#")[0] or browsed.url == expected, text
            assert "The page at the path" in browsed.content


async def test_bad_urls_are_refused_the_same_way_with_words() -> None:
    for text in ("http://", "http://exa mple.com/", "https://[::1/"):
        with pytest.raises(InvalidUrlError):
            url_to_open(text)
        with pytest.raises(ValueError, match="Invalid URL"):
            await cdpkit.browse(text, tier=1)  # never a raw httpx error


def test_the_command_line_reads_them_as_chrome_does(
    cli: CLI, origins: list[tuple[FixtureServer, str]]
) -> None:
    for server, host in origins:
        texts = _spellings(server, host)
        for text in texts[:3]:
            browsed = cli.run("browse", text, "--tier", "1", "--json")
            assert browsed.returncode == 0, browsed.stderr
            assert json.loads(browsed.stdout)["url"].startswith(
                f"http://{host}:{server.server_address[1]}/url/page?q=1"
            ), text
        # A browser for a few of them: the page loaded is the one Chrome's parser names.
        for text in texts[:1]:
            evaluated = cli.run("eval", text, "location.href", "--no-daemon")
            assert evaluated.returncode == 0, evaluated.stderr
            assert evaluated.stdout.strip() == f"http://{host}:{server.server_address[1]}/url/page?q=1", text
