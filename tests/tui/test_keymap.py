"""The keys of the TUI and the [tui.keys] table of the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cdpkit._browse import ConfigError, Engine
from cdpkit._tui import load_keymap
from tests.server import FixtureServer

from .conftest import make_app, settle


def test_defaults_are_vim_like() -> None:
    keymap = load_keymap(Path("/nonexistent/config.toml"))
    assert keymap.match(["j"]) == "scroll_down" and keymap.match(["G"]) == "bottom"
    assert keymap.match(["g"]) is None and keymap.is_prefix(["g"]) and keymap.match(["g", "g"]) == "top"
    assert keymap.match(["ctrl+d"]) == "half_page_down" and keymap.match(["tab"]) == "next_field"


def test_the_config_file_rebinds_keys_and_the_engine_accepts_the_table(_no_user_config: Path) -> None:
    _no_user_config.write_text('[tui.keys]\nscroll_down = ["e", "down"]\nquit = "Q"\n\n[output]\nformat = "text"\n')
    keymap = load_keymap()
    assert keymap.match(["e"]) == "scroll_down" and keymap.match(["j"]) is None
    assert keymap.match(["Q"]) == "quit" and keymap.match(["q"]) is None
    assert Engine().config.output.format == "text"  # the engine reads its tables and skips [tui]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[tui.keys]\nscrol_down = "j"\n', "unknown action [tui.keys] scrol_down (known: scroll_down,"),
        ('[tui.keys]\nquit = "ctrl+hyper+q"\n', "[tui.keys] quit: 'ctrl+hyper+q' is not a key"),
        ('[tui.keys]\nquit = 3\n', "[tui.keys] quit must be a key or a list of keys"),
        ('[tui.keys]\nquit = "j"\n', "[tui.keys] quit: 'j' is already the key of scroll_down"),
        ('[tui.keys]\nreload = "g"\n', "[tui.keys] reload: 'g' starts top's 'gg', so that one could never be typed"),
        ('[tui]\ncolours = "dark"\n', "unknown key [tui] colours (known: keys)"),
    ],
)
def test_a_wrong_key_table_is_a_config_error_naming_file_table_and_action(
    _no_user_config: Path, table: str, message: str
) -> None:
    _no_user_config.write_text(table)
    with pytest.raises(ConfigError) as caught:
        load_keymap()
    assert str(caught.value).startswith(f"config file {_no_user_config}: ")
    assert message in str(caught.value)


async def test_rebound_keys_drive_the_app(_no_user_config: Path, engine: Engine, server: FixtureServer) -> None:
    _no_user_config.write_text('[tui.keys]\nscroll_down = "e"\nfollow = "F"\n')
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("j", "e", "e")
        await pilot.pause()
        assert app.document.scroll_y == 2
        await pilot.press("F", "1", "enter")
        await settle(app, pilot)
        assert "The second page" in app.visible_text()
