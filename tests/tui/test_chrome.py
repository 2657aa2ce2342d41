"""The TUI's actions that need a real page (tier 3): a form submitted through Chrome, a
snapshot and a click by its index; on the suite's shared browser."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from cdpkit._browse import Engine
from tests.server import FixtureServer, Handler

from .conftest import command, make_app, settle


def _submit_route(server: FixtureServer) -> list[dict[str, list[str]]]:
    received: list[dict[str, list[str]]] = []

    def answer(handler: Handler) -> None:
        fields = urllib.parse.parse_qs(urllib.parse.urlsplit(handler.path).query, keep_blank_values=True)
        received.append(fields)
        who = fields.get("who", [""])[0]
        handler.reply(200, f"<html><head><title>Thanks</title></head><body><h1>Thank you, {who}</h1>"
                           "<p>Your message reached the server; it will answer shortly, by post.</p></body></html>")

    server.route("/tui-submit", answer)
    return received


async def test_fills_a_form_with_tab_and_enter_and_submits_it_through_chrome(
    chrome_engine: Engine, server: FixtureServer
) -> None:
    received = _submit_route(server)
    app = make_app(chrome_engine, server.url("/tui/form.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.driver.result is not None and app.driver.result.tier_used == 1
        assert "Your name: [____________]" in app.visible_text()
        await pilot.press("tab", "enter", *"Ada L", "enter")  # the name field
        await pilot.press("tab", "enter", *"green", "enter")  # the select
        await pilot.press("tab", "enter")  # the checkbox toggles
        await pilot.pause()
        assert "Your name: [Ada L]" in app.visible_text() and "[x] Newsletter" in app.visible_text()
        await pilot.press("tab")
        assert "Enter to submit" in app.message
        await pilot.press("enter")
        await settle(app, pilot)
        assert received == [{"who": ["Ada L"], "colour": ["green"], "news": ["on"]}], app.message
        assert "Thank you, Ada L" in app.visible_text(), app.message
        status = str(app.query_one("#status").render())
        assert "/tui-submit?" in status and "tier 3" in status
        await pilot.press("H")  # back to the form, in history
        await settle(app, pilot)
        assert "Contact us" in app.visible_text()


async def test_snapshot_then_click_by_index(chrome_engine: Engine, server: FixtureServer, tmp_path: Path) -> None:
    app = make_app(chrome_engine, server.url("/tui/second.html"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await command(app, pilot, "snapshot")
        shown = app.visible_text()
        assert "Accessibility snapshot of" in shown, app.message
        line = next(row for row in shown.splitlines() if 'link "home page"' in row)
        index = line.strip().split("]")[0].lstrip("[")
        await command(app, pilot, f"click {index}")
        assert "Terminal reading" in app.visible_text(), app.message
        assert "/tui/index.html" in str(app.query_one("#status").render())
        await command(app, pilot, "click 3")
        assert app.message == "Take a snapshot first (:snapshot): :click and :type use its indices"
        await command(app, pilot, f"screenshot {tmp_path}/s.png")
        assert app.message == f"Screenshot saved to {tmp_path}/s.png"
        assert (tmp_path / "s.png").read_bytes().startswith(b"\x89PNG")


async def test_type_and_click_by_snapshot_index_submit_a_form(chrome_engine: Engine, server: FixtureServer) -> None:
    received = _submit_route(server)
    app = make_app(chrome_engine, server.url("/tui/form.html"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await command(app, pilot, "snapshot")
        rows = app.visible_text().splitlines()

        def index_of(text: str) -> str:
            row = next(row for row in rows if text in row)
            return row.strip().split("]")[0].lstrip("[")

        name_box, send = index_of('textbox "Your name"'), index_of('button "Send"')
        await command(app, pilot, f"type {name_box} Bo")
        assert app.message == "", app.message
        await command(app, pilot, f"click {send}")
        assert received == [{"who": ["Bo"], "colour": ["red"]}]
        assert "Thank you, Bo" in app.visible_text()


async def test_download_command_saves_a_linked_file(
    chrome_engine: Engine, server: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(chrome_engine, server.url("/tui/index.html"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await command(app, pilot, "download 4")
        assert app.message == f"Downloaded {tmp_path / 'notes.txt'} (29 bytes)"
        await command(app, pilot, "download 9")
        assert app.message == "No link [9] on this page (it has 4 links)"
    assert (tmp_path / "notes.txt").read_text() == "Notes for the download test.\n"
