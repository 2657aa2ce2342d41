"""One merge, one rotation, one applier of :class:`cdpkit.BrowserSettings`: the same layers
give the same identity whichever surface stacks them (``cdpkit.engine(settings=...)``, the
engine's own config tables, ``cdpkit browse`` and the other commands' flags over the config
file), and the identity a context gets is the one its pages and requests present."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cdpkit
from tests.cli.conftest import isolated_env
from tests.server import FixtureServer, Handler

HEADLESS = "HeadlessChrome"


def _header_lines(handler: Handler) -> None:
    """Each request header as a line of an HTML page (names lower-cased), for every tier
    and for ``cdpkit eval`` alike."""
    items = "".join(f"<li>{name.lower()} = {value}</li>" for name, value in handler.headers.items())
    handler.reply(200, f"<title>Headers</title><p>What this request carried.</p><ul>{items}</ul>")


@pytest.fixture(scope="session")
def seen_url(browse_server: FixtureServer) -> str:
    browse_server.route("/one-settings/headers", _header_lines)
    return browse_server.url("/one-settings/headers")


def _cdpkit(*args: str, config: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**isolated_env(home), "CDPKIT_CONFIG": str(config), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "cdpkit", *args],
        capture_output=True, text=True, timeout=90, env=env, cwd=home, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _lines(text: str) -> set[str]:
    """The lines of a page's text, list markers and HTML tags taken off."""
    text = text.replace("<li>", "\n").replace("</li>", "\n")
    return {line.strip().removeprefix("- ").removeprefix("* ").strip() for line in text.splitlines()}


FILE = '[browser]\nuser_agents = ["Rotated/1", "Rotated/2"]\nextra_headers = { "X-Team" = "research" }\n'
EXPECTED = {"user-agent = Flag/1.0", "x-team = research", "x-run = 7"}


async def test_extra_headers_and_user_agent_layer_the_same_through_every_surface(
    config_file: Path, seen_url: str, tmp_path: Path
) -> None:
    # The file's headers and rotation, then one more header and one user agent on top:
    # every surface keeps the file's header, adds its own, and its user agent replaces
    # the file's rotation.
    config_file.write_text(FILE)
    top = cdpkit.BrowserSettings(user_agent="Flag/1.0", extra_headers={"X-Run": "7"})
    async with cdpkit.engine(settings=top) as engine:
        python = (await engine.browse(seen_url, tier=1, format="text")).content
    flags = ("--user-agent", "Flag/1.0", "--extra-header", "X-Run: 7")
    browse = _cdpkit("browse", seen_url, "--tier", "1", "--format", "text", *flags, config=config_file, home=tmp_path)
    assert browse.returncode == 0, browse.stderr
    page = _cdpkit("eval", seen_url, "document.body.innerText", *flags, config=config_file, home=tmp_path)
    assert page.returncode == 0, page.stderr
    seen = {"engine(settings=)": python, "cdpkit browse": browse.stdout, "cdpkit eval": page.stdout}
    for surface, text in seen.items():
        assert _lines(text) >= EXPECTED, (surface, text)
        assert "Rotated/" not in text, surface


async def test_engine_config_tables_layer_like_settings(config_file: Path, seen_url: str) -> None:
    # The same two layers given as the engine's own [browser] table: the same result.
    config_file.write_text(FILE)
    tables = {"browser": {"user_agent": "Flag/1.0", "extra_headers": {"X-Run": "7"}}}
    async with cdpkit.engine(tables) as engine:
        text = (await engine.browse(seen_url, tier=1, format="text")).content
    assert _lines(text) >= EXPECTED, text
    assert "Rotated/" not in text


async def test_a_rotation_over_a_single_user_agent_replaces_it_at_every_tier(
    browser: cdpkit.Browser, config_file: Path, seen_url: str
) -> None:
    config_file.write_text('[browser]\nuser_agent = "FromFile/1.0"\n')
    top = cdpkit.BrowserSettings(user_agents=("Rotated/1", "Rotated/2"))
    async with cdpkit.engine(browser=browser, settings=top) as engine:
        first = await engine.browse(seen_url, tier=1, format="text", session="one")
        second = await engine.browse(seen_url, tier=3, format="text", session="two")
        again = await engine.browse(seen_url, tier=3, format="text", session="one")
    assert "user-agent = Rotated/1" in _lines(first.content)
    assert "user-agent = Rotated/2" in _lines(second.content)
    assert "user-agent = Rotated/1" in _lines(again.content)  # a session keeps its agent
    assert all("FromFile" not in r.content for r in (first, second, again))


async def test_stealth_holds_when_the_network_language_is_set_at_tier_3(
    browser: cdpkit.Browser, config_file: Path, seen_url: str
) -> None:
    # [network] accept_language is applied to the page on top of the context's identity:
    # it must not bring back the HeadlessChrome the stealth settings took out.
    config_file.write_text('[network]\naccept_language = "de-DE,de;q=0.9"\n')
    async with cdpkit.engine(browser=browser, settings=cdpkit.BrowserSettings(stealth=True)) as engine:
        result = await engine.browse(seen_url, tier=3, format="text")
    seen = _lines(result.content)
    agent = next(line for line in seen if line.startswith("user-agent = "))
    assert HEADLESS not in agent and "Chrome/" in agent, agent
    assert "accept-language = de-DE,de;q=0.9" in seen, result.content


async def test_a_user_agent_keeps_its_client_hints_with_the_network_language(
    browser: cdpkit.Browser, config_file: Path, seen_url: str
) -> None:
    # The hints (navigator.userAgentData, Sec-CH-UA) follow the user agent the settings
    # give, also when [network] accept_language adds a language to the page.
    config_file.write_text('[network]\naccept_language = "de-DE,de;q=0.9"\n')
    agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.0.0 Safari/537.36"
    async with cdpkit.engine(browser=browser, settings=cdpkit.BrowserSettings(user_agent=agent)) as engine:
        result = await engine.browse(seen_url, tier=3, format="text")
    seen = _lines(result.content)
    assert f"user-agent = {agent}" in seen
    assert 'sec-ch-ua-platform = "Windows"' in seen, result.content



def test_over_is_the_one_rule_for_two_layers() -> None:
    base = cdpkit.BrowserSettings(user_agents=("Rotated/1", "Rotated/2"), extra_headers={"X-Team": "a", "X-Keep": "k"})
    one = base.over(cdpkit.BrowserSettings(user_agent="One/1", extra_headers={"x-team": "b"}))
    assert (one.user_agent, one.user_agents) == ("One/1", ())
    assert one.extra_headers == {"X-Keep": "k", "x-team": "b"}  # a header is named in any case
    back = one.over({"user_agents": ["Rotated/3"], "stealth": False})  # a table's keys are given
    assert (back.user_agent, back.user_agents) == (None, ("Rotated/3",))
    assert cdpkit.BrowserSettings(stealth=True).over({"stealth": False}).stealth is False
    assert cdpkit.BrowserSettings(stealth=True).over(cdpkit.BrowserSettings()).stealth is True
    assert [back.user_agent_for(n) for n in range(3)] == ["Rotated/3"] * 3
    assert base.for_context(1).user_agent == "Rotated/2" and base.for_context(1).user_agents == ()
