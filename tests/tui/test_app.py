"""The TUI driven by Textual's pilot: what a person sees after each key."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cdpkit._browse import Engine
from cdpkit._tui import Driver, load_keymap
from cdpkit._tui._app import TuiApp
from tests.server import FixtureServer

from .conftest import command, make_app, settle, type_keys


async def test_opens_a_page_as_text_with_numbered_links_and_a_status_bar(
    engine: Engine, server: FixtureServer
) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = app.visible_text()
        assert "Terminal reading" in screen
        assert "second page [1]" in screen and "contact form [2]" in screen
        assert "[image: A sleeping cat]" in screen
        assert "Name  │ Value" in screen and "• first item" in screen and "│ A quoted remark." in screen
        status = str(app.query_one("#status").render())
        assert "TUI Home" in status and "/tui/index.html" in status and "tier 1" in status and "Top" in status
    assert engine.browser is None  # a tier-1 page starts no Chrome


async def test_scrolls_with_j_k_ctrl_d_gg_and_G(engine: Engine, server: FixtureServer) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        first = app.visible_text().splitlines()[0]
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert app.document.scroll_y == 3
        assert app.visible_text().splitlines()[0] != first
        await pilot.press("k")
        await pilot.pause()
        assert app.document.scroll_y == 2
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert app.document.scroll_y > 2 + 5
        await pilot.press("G")
        await settle(app, pilot)
        assert "The hidden needle is here at the bottom." in app.visible_text()
        assert "Bot" in str(app.query_one("#status").render())
        await pilot.press("g", "g")
        await settle(app, pilot)
        assert app.document.scroll_y == 0 and app.visible_text().splitlines()[0] == first


async def test_follows_a_link_by_number_and_goes_back_and_forward(engine: Engine, server: FixtureServer) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("f", "1", "enter")
        await settle(app, pilot)
        assert "The second page" in app.visible_text()
        assert "/tui/second.html" in str(app.query_one("#status").render())
        await pilot.press("H")
        await settle(app, pilot)
        assert "Terminal reading" in app.visible_text()
        await pilot.press("L")
        await settle(app, pilot)
        assert "The second page" in app.visible_text()
        await pilot.press("f", "9", "9", "enter")
        await settle(app, pilot)
        assert app.message == "No link [99] on this page (it has 1 link)"
        assert "The second page" in app.visible_text()


async def test_searches_with_slash_n_and_N(engine: Engine, server: FixtureServer) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"needle", "enter")
        await settle(app, pilot)
        assert "hidden needle" in app.visible_text()
        assert app.message.startswith("/needle: line ")
        type_keys(app, "/ph 1[0-9]:\r")
        await settle(app, pilot)
        first, message = app.document.scroll_y, app.message
        assert "Paragraph 10:" in app.visible_text().splitlines()[2]  # the match, two rows down
        await pilot.press("n")
        await settle(app, pilot)
        assert app.document.scroll_y > first and "Paragraph 11:" in app.visible_text().splitlines()[2]
        await pilot.press("N")
        await settle(app, pilot)
        assert app.document.scroll_y == first and app.message == message.removesuffix(" (wrapped)")
        type_keys(app, "/zebra\r")
        await settle(app, pilot)
        assert app.message == "Pattern not found: zebra"


async def test_a_failed_load_says_why_and_keeps_the_page(engine: Engine, server: FixtureServer) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("f", "3", "enter")  # the missing page
        await settle(app, pilot)
        assert "HTTP 404: not found" in app.message and "missing.html" in app.message
        assert "Terminal reading" in app.visible_text()
        assert "/tui/index.html" in str(app.query_one("#status").render())
        type_keys(app, "o127.0.0.1:1/nothing\r")
        await settle(app, pilot)
        assert "127.0.0.1:1/nothing" in app.message and "refused" in app.message.lower()
        assert "Terminal reading" in app.visible_text()


async def test_help_lists_the_keys(engine: Engine) -> None:
    app = make_app(engine, None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        shown = str(app.screen.query_one("Static").render())
        assert "gg home" in shown and "go to the top" in shown and "f " in shown
        await pilot.press("x")
        await pilot.pause()
        assert app.screen.id == "_default"


async def test_markdown_command_saves_the_page_with_its_links(
    engine: Engine, server: FixtureServer, tmp_path: Path
) -> None:
    app = make_app(engine, server.url("/tui/second.html"))
    target = tmp_path / "page.md"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await command(app, pilot, f"markdown {target}")
        assert app.message == f"Page saved to {target}"
        await command(app, pilot, "zap")
        assert app.message.startswith("Unknown command :zap (commands: open, tier, snapshot")
        await command(app, pilot, "tier 5")
        assert app.message == ":tier takes 1 (HTTP), 2 (light Chrome), 3 (full Chrome) or auto"
        await command(app, pilot, "session w")
        assert app.driver.session == "w" and "session w" in str(app.query_one("#status").render())
        assert engine.sessions == ["tui", "w"] and "The second page" in app.visible_text()
    saved = target.read_text()
    assert "# The second page" in saved and "home page [1]" in saved
    assert f"[1]: {server.url('/tui/index.html')}" in saved


async def test_keys_typed_right_after_colon_o_or_slash_reach_the_prompt(
    engine: Engine, server: FixtureServer, tmp_path: Path
) -> None:
    app = make_app(engine, server.url("/tui/index.html"))
    target = tmp_path / "burst.md"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        # As a terminal reads them: a first chunk, the app busy a moment, the rest.
        type_keys(app, ":mark")
        await pilot.pause()
        type_keys(app, f"down {target}\r")
        await settle(app, pilot)
        assert app.message == f"Page saved to {target}"
        type_keys(app, "/nee")
        await pilot.pause()
        type_keys(app, "dle\r")
        await settle(app, pilot)
        assert app.message.startswith("/needle: line ") and "hidden needle" in app.visible_text()
        type_keys(app, "/ph 1[0-9]:\rn")  # n typed before the search ran: after it
        await settle(app, pilot)
        assert "Paragraph 11:" in app.visible_text().splitlines()[2], app.message
        type_keys(app, f"o{server.url('/tui/second.html')}\r")
        await settle(app, pilot)
        assert "The second page" in app.visible_text(), app.message
        type_keys(app, "f1\r")
        await settle(app, pilot)
        assert "Terminal reading" in app.visible_text(), app.message
    assert "# The second page" not in target.read_text() and "Terminal reading" in target.read_text()


async def test_a_start_page_already_loading_when_the_app_starts_that_fails_says_why(
    engine: Engine, server: FixtureServer
) -> None:
    """``cdpkit tui URL`` starts loading URL before Textual is imported; the app shows what
    that load gives, a failure included."""
    driver = Driver(engine)
    missing = server.url("/tui/missing.html")
    app = TuiApp(driver, load_keymap(), missing, asyncio.ensure_future(driver.open(missing)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert "HTTP 404: not found" in app.message and "missing.html" in app.message
        assert "no page" in str(app.query_one("#status").render())


async def test_a_form_shows_once_as_fields_to_edit(engine: Engine, server: FixtureServer) -> None:
    # browse's markdown lists the form where the page has it; the TUI shows it as the
    # fields Tab and Enter edit instead, not twice.
    app = make_app(engine, server.url("/tui/form.html"))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        assert app.driver.result is not None and "**Form** (GET " in app.driver.result.content
        shown = "\n".join(row for row, _, _ in app.rows)
        assert shown.count("Your name") == 1 and "Your name: [____________]" in shown
        assert "Form (GET" not in shown and "[Send]" not in shown
