"""The engine's settings: defaults < the config file < the engine's config < per-call
options, and errors naming the file, the table and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdpkit
from cdpkit._browse import ConfigError
from cdpkit._browser.config import EngineConfig, load_config
from tests.server import FixtureServer


def test_defaults_without_a_file(config_file: Path) -> None:
    assert load_config() == EngineConfig()
    assert str(load_config().sessions_dir).endswith("browse-sessions")


async def test_file_then_engine_config_then_call_options(browse_server: FixtureServer, config_file: Path) -> None:
    config_file.write_text('[output]\nformat = "text"\nmax_tokens = 20\n[extraction]\nmax_tier = 1\n')
    url = browse_server.url("/browse/article.html")
    from_file = await cdpkit.browse(url)
    assert from_file.format == "text" and from_file.truncated and len(from_file.content) <= 80
    async with cdpkit.engine(output={"format": "links"}) as engine:
        from_engine = await engine.browse(url)
        from_call = await engine.browse(url, format="markdown", max_tokens=1000)
    assert from_engine.format == "links" and from_engine.truncated  # the file's budget still applies
    assert from_call.format == "markdown" and not from_call.truncated
    assert "A static article" in from_call.content


async def test_the_config_max_tier_keeps_a_js_app_at_tier_1(browse_server: FixtureServer, config_file: Path) -> None:
    config_file.write_text("[extraction]\nmax_tier = 1\n")
    async with cdpkit.engine() as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"))
        assert engine.browser is None
    assert result.tier_used == 1


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[browser]\nheadles = true\n", "unknown key [browser] headles"),
        ("[browsr]\nheadless = true\n", "unknown table [browsr]"),
        ('[browser]\nheadless = "yes"\n', "[browser] headless must be true or false"),
        ("[network]\nretries = -1\n", "[network] retries must be a whole number from 0 to 10"),
        ('[browser]\nviewport = "big"\n', "[browser] viewport must be WIDTHxHEIGHT"),
        ("[output]\nformat = ", "not valid TOML"),
    ],
)
def test_a_wrong_file_is_an_error_naming_the_file_table_and_key(config_file: Path, text: str, named: str) -> None:
    config_file.write_text(text)
    with pytest.raises(ConfigError) as caught:
        cdpkit.engine()
    assert str(config_file) in str(caught.value)
    assert named in str(caught.value)


def test_engine_config_errors_say_engine_config() -> None:
    with pytest.raises(ConfigError, match=r"engine config: \[media\] quality must be a whole number from 1 to 100"):
        cdpkit.engine(media={"quality": 0})


def test_viewport_and_sessions_dir(config_file: Path, tmp_path: Path) -> None:
    config_file.write_text(f'[browser]\nviewport = "800x600"\n[session]\ndir = "{tmp_path}/s"\n')
    config = load_config()
    assert config.viewport == (800, 600)
    assert config.sessions_dir == tmp_path / "s"


def test_where_the_config_and_sessions_live_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cdpkit._browser.config import config_path

    for name in ("CDPKIT_CONFIG", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_path() == tmp_path / ".config/cdpkit/config.toml"
    assert EngineConfig().sessions_dir == tmp_path / ".local/share/cdpkit/browse-sessions"
    monkeypatch.setenv("CDPKIT_CONFIG", "~/elsewhere.toml")
    assert config_path() == tmp_path / "elsewhere.toml"
