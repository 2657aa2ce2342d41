"""Where a browser option's value comes from, for every command that starts a browser
(``cdpkit mcp`` included): the flag, else its environment variable, else the config file's
``[browser]`` table, else the default; and every surface made from the one table of
options (cdpkit._front.options)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cdpkit._front.browser_options import CLIError
from cdpkit._front.options import MCP, OPTIONS
from cdpkit.mcp_server import build_parser, server_options
from tests.cli.conftest import CLI
from tests.cli.conftest import cli as cli  # the fixtures, shared
from tests.cli.conftest import cli_home as cli_home
from tests.mcp.conftest import McpSession, text_of
from tests.server import FixtureServer, Handler

UA = "navigator.userAgent"


def _config(tmp_path: Path, body: str) -> dict[str, str]:
    path = tmp_path / "config.toml"
    path.write_text(body, encoding="utf-8")
    return {"CDPKIT_CONFIG": str(path)}


def test_eval_takes_the_user_agent_of_the_config_file(cli: CLI, tmp_path: Path) -> None:
    env = _config(tmp_path, '[browser]\nuser_agent = "from-the-file/1"\n')
    result = cli.run("eval", "data:text/html,x", UA, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-the-file/1"


def test_the_environment_overrides_the_file_and_a_flag_both(cli: CLI, tmp_path: Path) -> None:
    env = {**_config(tmp_path, '[browser]\nuser_agent = "from-the-file/1"\n'),
           "CDPKIT_USER_AGENT": "from-the-env/2"}  # fmt: skip
    result = cli.run("eval", "data:text/html,x", UA, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-the-env/2"
    result = cli.run("eval", "data:text/html,x", UA, "--user-agent", "from-the-flag/3", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-the-flag/3"


def test_screenshot_requests_carry_the_config_files_user_agent(
    cli: CLI, server: FixtureServer, tmp_path: Path
) -> None:
    seen: list[str] = []

    def page(handler: Handler) -> None:
        seen.append(handler.headers.get("User-Agent", ""))
        handler.reply(200, "<p>hello</p>")

    server.route("/who", page)
    env = _config(tmp_path, '[browser]\nuser_agent = "shot-agent/1"\nviewport = "640x360"\n')
    result = cli.run("screenshot", server.url("/who"), "-o", str(tmp_path / "shot.png"), env=env)
    assert result.returncode == 0, result.stderr
    assert seen and set(seen) == {"shot-agent/1"}
    assert (tmp_path / "shot.png").read_bytes()[16:24] == (640).to_bytes(4, "big") + (360).to_bytes(4, "big")


def test_browser_options_come_from_the_environment_then_the_file(cli: CLI, tmp_path: Path) -> None:
    size = "JSON.stringify([innerWidth, innerHeight])"
    env = _config(tmp_path, '[browser]\nviewport = "640x400"\n')
    assert cli.run("eval", "data:text/html,x", size, env=env).stdout.strip() == "[640,400]"
    env["CDPKIT_VIEWPORT"] = "660x300"
    assert cli.run("eval", "data:text/html,x", size, env=env).stdout.strip() == "[660,300]"
    flagged = cli.run("eval", "data:text/html,x", size, "--viewport", "700x250", env=env)
    assert flagged.stdout.strip() == "[700,250]", flagged.stderr


def test_a_bad_environment_variable_or_file_is_one_line_naming_it(cli: CLI, tmp_path: Path) -> None:
    result = cli.run("eval", "data:text/html,x", "1", env={"CDPKIT_STEALTH": "maybe"})
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: Invalid $CDPKIT_STEALTH 'maybe': expected 1, true, yes or on (or 0, false, no, off)"
    ]
    env = _config(tmp_path, "[browser]\nuser_agnet = 'x'\n")
    result = cli.run("eval", "data:text/html,x", "1", env=env)
    assert result.returncode == 2
    assert "[browser] user_agnet" in result.stderr and "config file" in result.stderr


def test_a_connect_flag_leaves_out_the_files_launch_settings(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # [browser] args and viewport say how to launch: with --connect they do not apply
    # (given as flags they are an error).
    for name, value in _config(tmp_path, '[browser]\nargs = ["--lang=fr"]\nviewport = "640x400"\n'
                               'proxy = "http://127.0.0.1:3128"\n').items():  # fmt: skip
        monkeypatch.setenv(name, value)
    launched = server_options().browser
    assert (launched.chrome_args, launched.viewport) == (("--lang=fr",), (640, 400))
    options = server_options(connect="9222")
    assert options.browser.connect == "http://127.0.0.1:9222"
    assert options.browser.chrome_args == () and options.browser.viewport is None
    assert options.browser.settings is None or options.browser.settings.proxy is None
    with pytest.raises(CLIError, match="--viewport only apply"):
        server_options(connect="9222", viewport="300x300")


def test_mcp_server_options_take_flag_then_environment_then_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _config(tmp_path, '[browser]\ntimeout = 12\nheadless = false\n'
                               'user_agent = "file/1"\nlocale = "de-DE"\n').items():  # fmt: skip
        monkeypatch.setenv(name, value)
    options = server_options()
    assert options.browser.timeout == 12 and options.browser.headful
    assert options.browser.settings is not None
    assert (options.browser.settings.user_agent, options.browser.settings.locale) == ("file/1", "de-DE")
    monkeypatch.setenv("CDPKIT_TIMEOUT", "7")
    monkeypatch.setenv("CDPKIT_USER_AGENT", "env/2")
    monkeypatch.setenv("CDPKIT_ALLOW_JS", "yes")
    options = server_options()
    assert options.browser.timeout == 7 and options.allow_js
    assert options.browser.settings is not None and options.browser.settings.user_agent == "env/2"
    assert options.browser.settings.locale == "de-DE"
    options = server_options(timeout="3", user_agent="flag/3")
    assert options.browser.timeout == 3
    assert options.browser.settings is not None and options.browser.settings.user_agent == "flag/3"
    monkeypatch.setenv("CDPKIT_TIMEOUT", "soon")
    with pytest.raises(CLIError, match=r"Invalid \$CDPKIT_TIMEOUT 'soon'"):
        server_options()
    with pytest.raises(TypeError, match="unexpected options: user_agnet"):
        server_options(user_agnet="x")


async def test_mcp_pages_send_the_config_files_user_agent(
    server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _config(tmp_path, '[browser]\nuser_agent = "mcp-file-agent/4"\n').items():
        monkeypatch.setenv(name, value)  # the server's environment is this process's
    session = await McpSession([], entry=("-m", "cdpkit", "mcp")).start()
    try:
        await session.call("browser_navigate", {"url": server.url("/echo/headers")})
        result = await session.call("browser_get_visible_text", {})
        assert not result.is_error, text_of(result)
        assert "mcp-file-agent/4" in text_of(result)
    finally:
        await session.stop()


def test_the_mcp_parser_and_command_are_made_from_the_table(cli: CLI) -> None:
    parser = build_parser()
    actions = {action.dest: action for action in parser._actions if action.dest in OPTIONS}
    assert list(actions) == list(MCP)
    for name, action in actions.items():
        assert tuple(action.option_strings) == OPTIONS[name].flags
        assert action.help == OPTIONS[name].help_for("mcp")
        assert isinstance(action, argparse._StoreTrueAction) == (OPTIONS[name].kind == "bool")
    text = cli.run("mcp", "--help").stdout
    for name in MCP:
        assert all(flag in text for flag in OPTIONS[name].flags), name


def test_browse_takes_the_identity_from_the_environment(cli: CLI, server: FixtureServer) -> None:
    # Tier 1 (HTTP, no browser) sends it too; the engine reads the config file itself.
    result = cli.run("browse", server.url("/echo/headers"), "--tier", "1", "--format", "text",
                     env={"CDPKIT_USER_AGENT": "browse-env/5"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "browse-env/5" in result.stdout
