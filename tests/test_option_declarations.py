"""Each option and keyword declared once: the library's identity and browse keywords
(one TypedDict each, shown in the signatures and checked at run time), and the CLI/MCP
options' config keys and environment variables (cdpkit/_front/options.py) against the config
file's [browser] table."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest

import cdpkit
import cdpkit.tools
from cdpkit._browse import Engine
from cdpkit._browse._engine import EngineKeywords
from cdpkit._browse._result import BrowseCall
from cdpkit._browser.config import BrowserTable, ConfigError, EngineConfig, merge_tables
from cdpkit._core.keywords import IdentityKeywords, LaunchIdentityKeywords, TargetKeywords
from cdpkit._front.options import IDENTITY, OPTIONS, env_value
from cdpkit._tui._command import prepare
from cdpkit.tools._locating import DEFAULT_LOCATOR_TIMEOUT
from tests.server import FixtureServer

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
    from cdpkit._front.options import BROWSER, layered

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


# -- the element tools' target keywords: one TypedDict, one reading ---------------------------

_TARGET_NAMES = set(TargetKeywords.__annotations__)


def _element_tools() -> list[str]:
    """The public tools whose signature shows a target keyword (``role``, ``selector``...)."""
    return [
        name
        for name in cdpkit.tools.__all__
        if inspect.iscoroutinefunction(inspect.unwrap(function := getattr(cdpkit.tools, name)))
        and {"role", "index"} & set(inspect.signature(function).parameters)
        and name not in ("locator_for", "snapshot")  # they name a target, they take none
    ]


def test_every_element_tool_takes_the_declared_target_keywords() -> None:
    tools = _element_tools()
    assert {"click", "hover", "drag", "type_text", "select_option", "upload_file", "screenshot",
            "computed_styles", "check_visibility", "get_attributes", "element_state",
            "resource_url", "download"} <= set(tools)  # fmt: skip
    for name in tools:
        function = inspect.unwrap(getattr(cdpkit.tools, name))
        code = function.__code__
        written = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        # Not written out by hand: they reach the tool as one `**target` of a TypedDict.
        assert not written & _TARGET_NAMES - {"text", "timeout"} and code.co_flags & inspect.CO_VARKEYWORDS, name
        shown = inspect.signature(getattr(cdpkit.tools, name)).parameters
        for key in _TARGET_NAMES & set(shown) - written:
            assert shown[key].kind is KEYWORD_ONLY, (name, key)
        if "exact" in shown:
            assert shown["exact"].default is True
        if "timeout" in shown and name != "download":
            assert shown["timeout"].default == DEFAULT_LOCATOR_TIMEOUT


async def test_a_misspelt_target_keyword_is_refused_as_python_refuses_one(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    from cdpkit.tools import click, download, drag, screenshot, type_text

    await cdpkit.tools.navigate(page, server.url("/locators/form.html"))
    with pytest.raises(TypeError, match=r"click\(\) got an unexpected keyword argument 'selectr'"):
        await click(page, selectr="button")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"type_text\(\) got an unexpected keyword argument 'lable'"):
        await type_text(page, "x", lable="Email")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"screenshot\(\) got an unexpected keyword argument 'x'"):
        await screenshot(page, x=1, y=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"download\(\) got an unexpected keyword argument 'x'"):
        await download(page, x=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="Provide one of: to_selector, to_index, to_x/to_y"):
        await drag(page, selector="button", to_x=3)
    with pytest.raises(ValueError, match="Provide one of: selector, index, x/y"):
        await click(page, selector="button", index=1)
    with pytest.raises(ValueError, match="name= goes with role="):
        await click(page, name="Join")


# -- the CLI's browser options: each command's from the one declaration ----------------------

# A flag of a declared option that a command gives another meaning, on purpose: the browse
# engine's --timeout is for a whole page, all tiers (`browse`, `tui`); `open-browser`'s
# --profile is the profile it opens, not one to launch a browser on.
_OWN_MEANING = {("browse", "--timeout"), ("tui", "--timeout"), ("open-browser", "--profile")}


def _cli_options() -> list[tuple[str, Any]]:
    """``(command path, click option)`` of every option of every ``cdpkit`` command."""
    import typer

    from cdpkit.cli._app import app

    found: list[tuple[str, Any]] = []

    def walk(group: Any, prefix: str) -> None:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                walk(command, f"{prefix}{name} ")
                continue
            found.extend((prefix + name, p) for p in command.params if p.param_type_name == "option")

    walk(typer.main.get_command(app), "")
    return found


def test_no_command_writes_a_declared_option_out_by_hand() -> None:
    by_flag = {flag: option for option in OPTIONS.values() for flag in option.flags}
    options = _cli_options()
    assert {command for command, _ in options} >= {"repl", "screenshot", "download", "doctor", "mcp"}
    hand_written = []
    for command, option in options:
        declared = {by_flag[flag] for flag in option.opts if flag in by_flag}
        for entry in declared:
            if any((command, flag) in _OWN_MEANING for flag in option.opts):
                continue
            # Made by typer_option(): the declaration's flags, and its help on a surface.
            if set(option.opts) != set(entry.flags) or option.help not in (
                entry.help_for("cli"), entry.help_for("mcp")
            ):
                hand_written.append(f"cdpkit {command} {'/'.join(option.opts)}")
    assert not hand_written, "options written out by hand, not from cdpkit/_front/options.py: " + ", ".join(hand_written)


def test_every_browser_command_takes_its_browser_options_from_one_declaration() -> None:
    """A command lists its browser options on one line (``with_browser``): none declares
    --connect, --headful, --timeout... as a parameter of its own."""
    import typer

    from cdpkit._front.options import BROWSER
    from cdpkit.cli._app import app

    group = typer.main.get_command(app)
    commands = {name: group.commands[name] for name in group.commands}  # type: ignore[attr-defined]
    taking = {}
    for name, command in commands.items():
        shown = {p.name for p in getattr(command, "params", [])}
        if shown & set(BROWSER) and command.callback is not None:
            taking[name] = inspect.unwrap(command.callback)
    assert {"repl", "screenshot", "pdf", "snapshot", "scrape", "eval", "browse", "download",
            "launch", "doctor", "tui"} <= set(taking)  # fmt: skip
    for name, function in taking.items():
        if name in ("mcp", "daemon"):
            continue  # built from the table as a whole (mcp), or only its own --timeout (daemon)
        code = function.__code__
        written = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        own = {flag.removeprefix("--").replace("-", "_") for command, flag in _OWN_MEANING if command == name}
        by_hand = (written & set(BROWSER)) - own
        assert not by_hand, f"cdpkit {name} writes {sorted(by_hand)} out by hand: list them in @with_browser"
        assert code.co_flags & inspect.CO_VARKEYWORDS, name


def test_the_browser_flags_a_command_gets_are_the_declared_browser_options() -> None:
    from cdpkit._front.options import BROWSER
    from cdpkit.cli._params import BrowserFlags

    # --chrome has no flag on a command: $CDPKIT_CHROME or the config file says it.
    assert set(BrowserFlags.__annotations__) == set(BROWSER) - {"chrome"}
