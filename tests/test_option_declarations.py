"""Each option and keyword declared once: the library's identity and browse keywords
(one TypedDict each, shown in the signatures and checked at run time), and the CLI/MCP
options' config keys and environment variables (cdpkit/_options.py) against the config
file's [browser] table."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

import cdpkit
from cdpkit._browse import Engine
from cdpkit._browse._config import BrowserTable, ConfigError, EngineConfig, merge_tables
from cdpkit._browse._engine import EngineKeywords
from cdpkit._browse._result import BrowseCall
from cdpkit._options import IDENTITY, OPTIONS, env_value
from cdpkit._tui._command import prepare
from cdpkit.browser import IdentityKeywords, LaunchIdentityKeywords

KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    ("function", "keywords"),
    [
        (cdpkit.launch, LaunchIdentityKeywords),
        (cdpkit.connect, IdentityKeywords),
        (cdpkit.Browser.new_context, IdentityKeywords),
        (cdpkit.browse, BrowseCall),
        (Engine.browse, BrowseCall),
        (cdpkit.engine, EngineKeywords),
        (Engine, EngineKeywords),
    ],
)
def test_declared_keywords_are_the_signatures_keyword_parameters(function: object, keywords: type) -> None:
    parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    for name in keywords.__annotations__:
        assert parameters[name].kind is KEYWORD_ONLY, name
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    assert parameters.get("keyword_mode", inspect.Parameter("x", KEYWORD_ONLY, default="any")).default == "any"


def test_identity_keywords_are_the_browser_settings_fields() -> None:
    fields = {field.name for field in dataclasses.fields(cdpkit.BrowserSettings)}
    assert set(LaunchIdentityKeywords.__annotations__) <= fields
    assert set(LaunchIdentityKeywords.__annotations__) - set(IdentityKeywords.__annotations__) == {
        "ignore_default_args"
    }


async def test_an_unknown_keyword_is_refused_as_python_refuses_one() -> None:
    with pytest.raises(TypeError, match="launch\\(\\) got an unexpected keyword argument 'user_agnet'"):
        cdpkit.launch(user_agnet="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="connect\\(\\) got an unexpected keyword argument 'ignore_default_args'"):
        cdpkit.connect("9222", ignore_default_args=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="browse\\(\\) got an unexpected keyword argument 'fromat'"):
        await cdpkit.browse("https://example.com", fromat="text")  # type: ignore[call-arg]


def test_every_config_key_of_an_option_is_one_the_config_file_takes(tmp_path: Path) -> None:
    login = tmp_path / "login.json"
    login.write_text('{"cookies": [], "origins": []}', encoding="utf-8")
    identity = {field.name for field in dataclasses.fields(cdpkit.BrowserSettings)}
    table_keys = {field.name for field in dataclasses.fields(BrowserTable)} - {"settings"}
    declared = {
        option.config.partition(".")[2]: option
        for option in OPTIONS.values()
        if option.config and option.config.startswith("browser.")
    }
    # Every [browser] key that is not an identity key is one option's.
    assert table_keys == {key for key in declared if key not in identity}
    assert {key for key, option in declared.items() if option.name in IDENTITY} <= identity
    samples = {"str": "x", "bool": True, "float": 5.0, "list": ["--x"], "int": 1}
    for key, option in declared.items():
        value: object = samples[option.kind]
        if key == "viewport":
            value = "800x600"
        elif key == "extra_headers":
            value = {"X-A": "1"}
        elif key == "proxy":
            value = "http://127.0.0.1:3128"
        elif key == "locale":
            value = "fr-FR"
        elif key == "timezone":
            value = "Europe/Paris"
        elif key == "storage_state":
            value = str(login)
        merge_tables(EngineConfig(), {"browser": {key: value}}, "test")
    with pytest.raises(ConfigError, match=r"unknown key \[browser\] user_agnet"):
        merge_tables(EngineConfig(), {"browser": {"user_agnet": "x"}}, "test")
    # The other options' keys (the media of `cdpkit browse`) are keys of their tables.
    for option in OPTIONS.values():
        table, _, key = (option.config or "").partition(".")
        if table and table != "browser":
            value = {"bool": True, "int": 3}[option.kind]
            config = merge_tables(EngineConfig(), {table: {key: value}}, "test")
            assert getattr(getattr(config, table), key) == value


def test_environment_variables_follow_one_scheme() -> None:
    for option in OPTIONS.values():
        if option.env is not None:
            assert option.env == "CDPKIT_" + option.flag[2:].replace("-", "_").upper()
    assert OPTIONS["chrome"].env == "CDPKIT_CHROME"  # the launcher's own, long before
    assert env_value(OPTIONS["extra_header"], "X-A: 1\nX-B: 2\n") == ["X-A: 1", "X-B: 2"]
    assert env_value(OPTIONS["stealth"], "off") is False


def test_tui_reads_its_variables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CDPKIT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("CDPKIT_USER_AGENT", "tui-env/1")
    monkeypatch.setenv("CDPKIT_HEADFUL", "maybe")
    with pytest.raises(cdpkit.cli.CLIError, match=r"\$CDPKIT_HEADFUL"):
        prepare(None, tier=None, session=None, timeout=5, connect=None, headful=False)


def test_where_the_browser_is_comes_from_one_layer() -> None:
    from cdpkit._options import BROWSER, layered

    def values(flags: dict[str, object], env: dict[str, str], config: dict[str, object]) -> dict[str, object]:
        return layered(flags, BROWSER, environ=env, config=config)

    file = {"connect": "http://127.0.0.1:9222", "viewport": "800x600", "chrome_arg": ["--x"]}
    # The file's browser is attached: its launch settings do not apply.
    assert values({}, {}, file) == {"connect": "http://127.0.0.1:9222"}
    # A launch flag launches, with the file's launch settings.
    assert values({"headful": True}, {}, file) == {"headful": True, "viewport": "800x600", "chrome_arg": ["--x"]}
    # $CDPKIT_CHROME says which Chrome, should one be launched: not to launch one.
    assert values({}, {"CDPKIT_CHROME": "/bin/chrome"}, file) == {"connect": "http://127.0.0.1:9222"}
    # A variable's location replaces the file's; a flag's replaces both.
    assert values({}, {"CDPKIT_GRID": "http://grid:4444"}, file)["grid"] == "http://grid:4444"
    assert "connect" not in values({}, {"CDPKIT_GRID": "http://grid:4444"}, file)
    assert values({"connect": "9333"}, {"CDPKIT_CONNECT": "9444"}, file) == {"connect": "9333"}
    # --header goes to an endpoint: from a variable, only with one.
    assert values({}, {"CDPKIT_HEADER": "A: 1"}, {}) == {}
    assert values({}, {"CDPKIT_HEADER": "A: 1"}, file)["header"] == ["A: 1"]
