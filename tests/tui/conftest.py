"""Fixtures of the TUI tests: an app driven by Textual's headless pilot, on pages the
suite's server serves (tests/pages/tui/), with the user's config file kept out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from textual import events
from textual.keys import _character_to_key

import cdpkit
from cdpkit._browse import Engine
from cdpkit._tui import Driver, load_keymap
from cdpkit._tui._app import TuiApp


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    config = tmp_path / "config.toml"
    monkeypatch.setenv("CDPKIT_CONFIG", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    yield config


@pytest.fixture
async def engine() -> AsyncIterator[Engine]:
    """An engine that launches no browser until a page needs one (the tier-1 tests check
    it never does)."""
    async with Engine() as made:
        yield made


@pytest.fixture
async def chrome_engine(browser: cdpkit.Browser) -> AsyncIterator[Engine]:
    """An engine on the suite's shared browser (left running when it closes)."""
    async with Engine(browser=browser) as made:
        yield made


def make_app(engine: Engine, url: str | None, **driver: object) -> TuiApp:
    return TuiApp(Driver(engine, **driver), load_keymap(), url)  # type: ignore[arg-type]


async def settle(app: TuiApp, pilot: object) -> None:
    """Wait until what the keys started (loads, actions) is done and painted."""
    await pilot.pause()  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def type_keys(app: TuiApp, keys: str) -> None:
    """Queue every key at once, as a terminal delivers keys typed (or pasted, or sent by
    tmux) faster than the app handles them: no pause for the app between two keys
    (``pilot.press`` waits for the app after each one). ``\\r`` is Enter."""
    assert app._driver is not None
    for character in keys:
        key = "enter" if character == "\r" else character if character.isalnum() else _character_to_key(character)
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)


async def command(app: TuiApp, pilot: object, line: str) -> None:
    """Type ``:line`` and Enter, then wait until what it started is done."""
    type_keys(app, f":{line}\r")
    await settle(app, pilot)
