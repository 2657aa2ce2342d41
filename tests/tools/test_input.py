"""Input tools against a real headless Chromium: the page must see trusted events and
really change."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import cdpkit
from cdpkit.tools.accessibility import snapshot
from cdpkit.tools.forms import handle_dialog, select_option, upload_file
from cdpkit.tools.keyboard import key_down, key_up, press_key, type_text
from cdpkit.tools.navigation import navigate
from cdpkit.tools.pointer import click, drag, hover, mouse_down, mouse_move, mouse_up, mouse_wheel
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


async def open_page(page: cdpkit.Page, server: FixtureServer, path: str) -> None:
    await navigate(page, server.url(path))


# -- click ------------------------------------------------------------------------------------


async def test_click_runs_the_handler_with_trusted_events(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/click.html")
    await click(page, selector="#go")
    events = await js(page, "window.events.filter(e => e.target === 'go')")
    assert [e["type"] for e in events if e["type"] in ("mousedown", "mouseup", "click")] == [
        "mousedown",
        "mouseup",
        "click",
    ]
    assert all(e["trusted"] for e in events)
    box = await js(
        page, "JSON.parse(JSON.stringify(document.getElementById('go').getBoundingClientRect()))"
    )
    clicked = events[-1]
    assert clicked["x"] == pytest.approx(box["x"] + box["width"] / 2, abs=1)
    assert clicked["y"] == pytest.approx(box["y"] + box["height"] / 2, abs=1)


async def test_click_on_a_background_tab_is_not_held_back(
    context: cdpkit.BrowserContext, server: FixtureServer
) -> None:
    # A second tab of the window hides the first; Chrome then holds pointer input to the
    # first for about 5 s unless its tab is brought to the front.
    first = await context.new_page(server.url("/input/click.html"))
    second = await context.new_page(server.url("/input/click.html"))
    assert await js(first, "document.visibilityState") == "hidden"
    loop = asyncio.get_running_loop()
    started = loop.time()
    await click(first, selector="#go")
    assert loop.time() - started < 2.5
    assert await js(first, "window.events.some(e => e.type === 'click' && e.target === 'go')")
    assert await js(first, "document.visibilityState") == "visible"
    started = loop.time()
    await click(second, selector="#go")  # and back: the other one is behind it now
    assert loop.time() - started < 2.5
    assert await js(second, "window.events.some(e => e.type === 'click' && e.target === 'go')")


async def test_click_on_the_opener_after_it_opened_a_popup(
    context: cdpkit.BrowserContext, server: FixtureServer
) -> None:
    opener = await context.new_page(server.url("/runtime/identity.html"))
    await click(opener, selector="#open")  # window.open: the popup takes the front
    for _ in range(100):
        if len(context.pages) == 2:
            break
        await asyncio.sleep(0.05)
    assert len(context.pages) == 2
    loop = asyncio.get_running_loop()
    started = loop.time()
    await click(opener, selector="#blank")  # target=_blank: a third tab
    assert loop.time() - started < 2.5
    for _ in range(100):
        if len(context.pages) == 3:
            break
        await asyncio.sleep(0.05)
    assert len(context.pages) == 3


async def test_click_scrolls_a_far_element_into_view(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/click.html")
    assert await js(page, "window.scrollY") == 0
    await click(page, selector="#far")
    assert await js(page, "window.scrollY") > 1000
    assert await js(
        page, "window.events.some(e => e.type === 'click' && e.target === 'far' && e.trusted)"
    )


async def test_double_right_and_modified_clicks(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/click.html")
    await click(page, selector="#go", click_count=2)
    types = await js(
        page, "window.events.filter(e => e.target === 'go').map(e => e.type + e.detail)"
    )
    assert "dblclick2" in types and types.count("click1") == 1 and "click2" in types

    await js(page, "window.events = []")
    await click(page, selector="#go", button="right")
    menu = await js(page, "window.events.filter(e => e.type === 'contextmenu')")
    assert len(menu) == 1 and menu[0]["button"] == 2 and menu[0]["trusted"]

    await js(page, "window.events = []")
    await click(page, selector="#go", modifiers=["Shift", "Control"])
    clicked = await js(page, "window.events.find(e => e.type === 'click')")
    assert clicked["shift"] and clicked["ctrl"] and not clicked["alt"] and not clicked["meta"]


async def test_click_at_coordinates_clicks_exactly_there(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/click.html")
    box = await js(
        page, "JSON.parse(JSON.stringify(document.getElementById('go').getBoundingClientRect()))"
    )
    await click(page, x=box["x"] + 5, y=box["y"] + 7)
    clicked = await js(page, "window.events.find(e => e.type === 'click')")
    assert clicked["target"] == "go"
    assert (clicked["x"], clicked["y"]) == (round(box["x"] + 5), round(box["y"] + 7))


async def test_click_reaches_a_button_in_an_open_shadow_root(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/click.html")
    await click(page, selector="button.inner")
    assert await js(page, "window.shadowClicked") is True


async def test_click_target_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/click.html")
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await click(page)
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await click(page, selector="#go", x=1, y=2)
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: \.nonexistent$"):
        await click(page, selector=".nonexistent")
    with pytest.raises(ValueError, match=r"Invalid CSS selector.*'#go\['"):
        await click(page, selector="#go[")
    with pytest.raises(cdpkit.ElementNotFoundError, match="not visible"):
        await click(page, selector="#hidden")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r'covered by <div id="overlay">'):
        await click(page, selector="#covered")
    with pytest.raises(ValueError, match="button must be one of"):
        await click(page, selector="#go", button="top")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unknown modifier 'Hyper'"):
        await click(page, selector="#go", modifiers=["Hyper"])
    assert await js(page, "window.events.filter(e => e.type === 'click').length") == 0


async def test_tools_on_a_closed_page_raise_target_closed(
    context: cdpkit.BrowserContext, server: FixtureServer, tmp_path: Path
) -> None:
    page = await context.new_page()
    await open_page(page, server, "/input/click.html")
    await page.close()
    upload = tmp_path / "a.txt"
    upload.write_text("a")
    calls = [
        click(page, selector="#go"),
        hover(page, selector="#go"),
        type_text(page, "x", selector="#go"),
        type_text(page, "x"),
        press_key(page, "Enter"),
        drag(page, selector="#go", to_x=1, to_y=1),
        select_option(page, "a", selector="select"),
        upload_file(page, str(upload), selector="input"),
        handle_dialog(page),
    ]
    for call in calls:
        with pytest.raises(cdpkit.TargetClosedError):
            await call


# -- hover ------------------------------------------------------------------------------------


async def test_hover_opens_a_hover_menu(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/click.html")
    assert (
        await js(page, "getComputedStyle(document.querySelector('#menu .items')).display") == "none"
    )
    await hover(page, selector="#menu")
    assert (
        await js(page, "getComputedStyle(document.querySelector('#menu .items')).display")
        == "block"
    )
    entered = await js(
        page, "window.events.filter(e => e.type === 'mouseenter' && e.target === 'menu')"
    )
    assert entered and entered[0]["trusted"]
    assert await js(page, "window.events.filter(e => e.type === 'click').length") == 0


async def test_hover_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/click.html")
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await hover(page, x=5)
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await hover(page, selector="#nope")


# -- type_text --------------------------------------------------------------------------------


async def test_type_into_a_controlled_input_updates_its_state(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "Ada Lovelace", selector="#name")
    assert await js(page, "window.state.name") == "Ada Lovelace"
    assert await js(page, "document.getElementById('name').value") == "Ada Lovelace"
    # Appends by default; clear=True replaces.
    await type_text(page, "!", selector="#name")
    assert await js(page, "window.state.name") == "Ada Lovelace!"
    await type_text(page, "Grace", selector="#name", clear=True)
    assert await js(page, "window.state.name") == "Grace"
    await js(page, "document.getElementById('name').blur()")  # re-renders from state
    assert await js(page, "document.getElementById('name').value") == "Grace"
    assert await js(page, "document.getElementById('state').textContent") == "Grace"


async def test_type_clear_with_empty_text_empties_the_field(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "abc", selector="#name")
    await type_text(page, "", selector="#name", clear=True)
    assert await js(page, "window.state.name") == ""
    assert await js(page, "document.getElementById('name').value") == ""


async def test_type_submit_presses_enter(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "Linus", selector="#name", submit=True)
    assert await js(page, "window.submits") == ["Linus"]


async def test_type_into_contenteditable(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, " world", selector="#editor")
    assert await js(page, "document.getElementById('editor').textContent") == "Hello world"
    await type_text(page, "Replaced", selector="#editor", clear=True)
    assert await js(page, "document.getElementById('editor').textContent") == "Replaced"


async def test_type_special_characters_and_newlines(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    text = 'Zoë says "héllo" 👋 — 1+1=2\nsecond line ~!@#$%^&*()_{}|:<>?'
    await type_text(page, text, selector="#notes")
    assert await js(page, "document.getElementById('notes').value") == text


async def test_type_through_a_label_wrapper_and_into_an_email_field(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "x.y", selector="#wrapper")
    assert await js(page, "document.getElementById('email').value") == "a@b.cx.y"


async def test_type_without_target_types_into_the_focused_element(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    await click(page, selector="#notes")
    await type_text(page, "focused")
    assert await js(page, "document.getElementById('notes').value") == "focused"


async def test_type_sets_date_inputs_and_fires_events(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "2024-05-17", selector="#date")
    assert await js(page, "document.getElementById('date').value") == "2024-05-17"
    assert await js(page, "window.dateEvents") == ["input", "change"]


async def test_type_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/controlled.html")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"not editable"):
        await type_text(page, "x", selector="#plain")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"not editable"):
        await type_text(page, "x", selector="#readonly")
    assert await js(page, "document.getElementById('readonly').value") == "fixed"
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: \.nonexistent$"):
        await type_text(page, "x", selector=".nonexistent")
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await type_text(page, "x", selector="#name", index=0)
    with pytest.raises(ValueError, match="clear=True needs a target"):
        await type_text(page, "x", clear=True)


# -- press_key --------------------------------------------------------------------------------


async def test_press_named_keys_sends_trusted_events(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await js(page, "document.getElementById('first').focus()")
    await press_key(page, "Escape")
    assert await js(page, "document.title") == "escaped"
    await press_key(page, "Tab")
    assert await js(page, "document.activeElement.id") == "second"
    await press_key(page, "Shift+Tab")
    assert await js(page, "document.activeElement.id") == "first"
    downs = await js(page, "window.keys.filter(k => k.type === 'keydown')")
    assert [(k["key"], k["code"], k["keyCode"]) for k in downs] == [
        ("Escape", "Escape", 27),
        ("Tab", "Tab", 9),
        ("Shift", "ShiftLeft", 16),
        ("Tab", "Tab", 9),
    ]
    assert all(k["trusted"] for k in downs)
    assert downs[-1]["shift"]


async def test_press_editing_keys_and_combos(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/keys.html")
    await click(page, selector="#first")
    await press_key(page, "End")
    await press_key(page, "Backspace")
    assert await js(page, "document.getElementById('first').value") == "hello worl"
    await press_key(page, "Home")
    await press_key(page, "ArrowRight")
    await press_key(page, "Delete")
    assert await js(page, "document.getElementById('first').value") == "hllo worl"
    await press_key(page, "Control+A")
    assert await js(
        page,
        "[document.getElementById('first').selectionStart, document.getElementById('first').selectionEnd]",
    ) == [0, 9]
    await press_key(page, "Backspace")
    assert await js(page, "document.getElementById('first').value") == ""
    await press_key(page, "Shift+a")
    await press_key(page, "?")
    await press_key(page, "é")
    assert await js(page, "document.getElementById('first').value") == "A?é"
    combo = await js(page, "window.keys.filter(k => k.type === 'keydown' && k.key === 'a')")
    assert combo[0]["ctrl"] and combo[0]["code"] == "KeyA"


async def test_press_key_enter_submits(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/controlled.html")
    await type_text(page, "Ken", selector="#name")
    await press_key(page, "Enter")
    assert await js(page, "window.submits") == ["Ken"]


async def test_press_key_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/keys.html")
    with pytest.raises(ValueError, match="Unknown key 'Entr'"):
        await press_key(page, "Entr")
    with pytest.raises(ValueError, match="not a modifier"):
        await press_key(page, "A+B")
    with pytest.raises(ValueError, match="Invalid key combination"):
        await press_key(page, "Control+")
    assert await js(page, "window.keys.length") == 0


# -- drag -------------------------------------------------------------------------------------


async def test_drag_html5_item_onto_a_drop_zone(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/drag.html")
    await drag(page, selector="#item-1", to_selector="#zone")
    assert await js(page, "document.getElementById('item-1').parentElement.id") == "zone"
    events = await js(page, "window.dragEvents")
    assert events[:2] == ["dragstart:true", "drop:item-1:true"]
    assert "dragend" in events
    # The mouse is usable afterwards.
    await drag(page, selector="#item-2", to_selector="#zone")
    assert await js(page, "document.getElementById('zone').children.length") == 2


async def test_drag_to_a_far_away_zone(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/drag.html")
    await drag(page, selector="#item-2", to_selector="#far-zone")
    assert await js(page, "document.getElementById('item-2').parentElement.id") == "far-zone"


async def test_drag_a_mouse_driven_slider_to_a_point(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/drag.html")
    track = await js(
        page, "JSON.parse(JSON.stringify(document.getElementById('track').getBoundingClientRect()))"
    )
    await drag(page, selector="#thumb", to_x=track["x"] + 160, to_y=track["y"] + 10)
    assert await js(page, "document.getElementById('thumb').style.left") == "150px"
    assert await js(page, "window.dragEvents") == []


async def test_drag_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/drag.html")
    with pytest.raises(ValueError, match=r"^Provide one of: to_selector, to_index, to_x/to_y, to_role \(with to_name\), to_text, or to_label$"):
        await drag(page, selector="#item-1")
    with pytest.raises(ValueError, match=r"^Provide one of: to_selector, to_index, to_x/to_y, to_role \(with to_name\), to_text, or to_label$"):
        await drag(page, selector="#item-1", to_selector="#zone", to_x=1, to_y=1)
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await drag(page, to_selector="#zone")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #missing$"):
        await drag(page, selector="#item-1", to_selector="#missing")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #missing$"):
        await drag(page, selector="#missing", to_selector="#zone")
    with pytest.raises(cdpkit.ElementNotFoundError, match="is not visible"):
        await drag(page, selector="#item-1", to_selector="#hidden-zone")
    assert await js(page, "document.getElementById('zone').children.length") == 0
    # Nothing was left half done: the next drag works.
    await drag(page, selector="#item-1", to_selector="#zone")
    assert await js(page, "document.getElementById('zone').children.length") == 1


# -- select_option ----------------------------------------------------------------------------


async def test_select_by_value_and_by_label_fires_change(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/form.html")
    assert await select_option(page, "de", selector="#country") == ["de"]
    assert await js(page, "document.getElementById('country').value") == "de"
    assert await select_option(page, "France", selector="#country") == ["fr"]
    assert await js(page, "window.changes.filter(c => c.id === 'country')") == [
        {"id": "country", "value": "de"},
        {"id": "country", "value": "fr"},
    ]
    assert await js(page, "window.inputs.filter(i => i === 'country').length") == 2


async def test_select_several_options_of_a_multiple_select(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/form.html")
    selected = await select_option(page, ["ham", "black olives"], selector="#toppings")
    assert selected == ["ham", "olives"]
    assert await js(page, "window.changes.at(-1)") == {"id": "toppings", "value": ["ham", "olives"]}
    assert await select_option(page, [], selector="#toppings") == []


async def test_select_option_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_page(page, server, "/input/form.html")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"No option 'Italy'.*'fr' \('France'\)"):
        await select_option(page, "Italy", selector="#country")
    with pytest.raises(ValueError, match="takes one value"):
        await select_option(page, ["fr", "de"], selector="#country")
    with pytest.raises(ValueError, match=r"'jp' .* is disabled"):
        await select_option(page, "jp", selector="#country")
    with pytest.raises(ValueError, match="is disabled"):
        await select_option(page, "a", selector="#locked")
    with pytest.raises(cdpkit.ElementNotFoundError, match="is a <input>, not a <select>"):
        await select_option(page, "a", selector="#text")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await select_option(page, "a", selector="#nope")
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await select_option(page, "a")
    assert await js(page, "window.changes") == []


# -- upload_file ------------------------------------------------------------------------------


async def test_upload_a_file_sets_files_and_fires_change(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await open_page(page, server, "/input/form.html")
    report = tmp_path / "report.txt"
    report.write_text("twelve bytes")
    assert await upload_file(page, str(report), selector="#avatar") == [str(report)]
    files = await js(
        page, "[...document.getElementById('avatar').files].map(f => [f.name, f.size])"
    )
    assert files == [["report.txt", 12]]
    assert await js(page, "window.changes") == [{"id": "avatar", "value": ["report.txt:12"]}]
    content = await js(page, "document.getElementById('avatar').files[0].text()")
    assert content == "twelve bytes"


async def test_upload_several_files_and_through_a_styled_label(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await open_page(page, server, "/input/form.html")
    paths = []
    for name, size in [("a.png", 3), ("b.png", 5)]:
        path = tmp_path / name
        path.write_bytes(b"x" * size)
        paths.append(path)
    await upload_file(page, paths, selector="#photos")
    assert await js(
        page, "[...document.getElementById('photos').files].map(f => f.name + ':' + f.size)"
    ) == [
        "a.png:3",
        "b.png:5",
    ]
    await upload_file(page, paths[0], selector="#upload-button")
    assert await js(page, "document.getElementById('styled-file').files[0].name") == "a.png"


async def test_upload_file_errors(page: cdpkit.Page, server: FixtureServer, tmp_path: Path) -> None:
    await open_page(page, server, "/input/form.html")
    missing = tmp_path / "missing.pdf"
    with pytest.raises(FileNotFoundError, match=f"File not found: {missing}"):
        await upload_file(page, str(missing), selector="#avatar")
    present = tmp_path / "present.txt"
    present.write_text("x")
    with pytest.raises(ValueError, match="takes one file"):
        await upload_file(page, [str(present), str(present)], selector="#avatar")
    with pytest.raises(cdpkit.ElementNotFoundError, match="not a file input"):
        await upload_file(page, str(present), selector="#text")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await upload_file(page, str(present), selector="#nope")
    assert await js(page, "document.getElementById('avatar').files.length") == 0


# -- handle_dialog ----------------------------------------------------------------------------


async def test_dialogs_are_dismissed_and_recorded_by_default(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/dialogs.html")
    await click(page, selector="#confirm")
    assert await js(page, "document.getElementById('result').textContent") == "confirm:false"
    assert page.dialogs[-1].type == "confirm" and page.dialogs[-1].message == "Sure?"
    assert page.dialogs[-1].accepted is False


async def test_handle_dialog_answers_the_next_prompt(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/dialogs.html")
    answer = asyncio.create_task(handle_dialog(page, accept=True, prompt_text="Ada", timeout=5))
    await asyncio.sleep(0)
    await click(page, selector="#prompt")
    dialog = await answer
    assert (dialog.type, dialog.message, dialog.default_prompt) == (
        "prompt",
        "Your name?",
        "nobody",
    )
    assert dialog.accepted is True and dialog.prompt_text == "Ada"
    assert await js(page, "document.getElementById('result').textContent") == "prompt:Ada"
    # The default policy is back: the next dialog is dismissed.
    await click(page, selector="#prompt")
    assert await js(page, "document.getElementById('result').textContent") == "prompt:null"


async def test_handle_dialog_answers_an_open_dialog(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/dialogs.html")
    page.dialog_policy = lambda dialog: None  # leave dialogs open
    await click(page, selector="#confirm")  # returns although the page is blocked
    with pytest.raises(RuntimeError, match="confirm dialog is open"):
        await click(page, selector="#alert")
    dialog = await handle_dialog(page, accept=True)
    assert dialog.type == "confirm" and dialog.accepted is True
    assert await js(page, "document.getElementById('result').textContent") == "confirm:true"
    await click(page, selector="#alert")
    dialog = await handle_dialog(page, accept=False)
    assert (dialog.type, dialog.message) == ("alert", "Hello!")
    assert await js(page, "document.getElementById('result').textContent") == "alerted"


async def test_handle_dialog_times_out_when_no_dialog_comes(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/dialogs.html")
    with pytest.raises(cdpkit.WaitTimeoutError, match="a JavaScript dialog"):
        await handle_dialog(page, timeout=0.2)
    # Not armed any more: dialogs are dismissed again.
    await click(page, selector="#confirm")
    assert await js(page, "document.getElementById('result').textContent") == "confirm:false"


async def test_handle_dialog_fails_when_the_page_closes_while_waiting(
    context: cdpkit.BrowserContext,
) -> None:
    page = await context.new_page()
    waiting = asyncio.create_task(handle_dialog(page, timeout=10))
    await asyncio.sleep(0.05)
    await page.close()
    with pytest.raises(cdpkit.TargetClosedError):
        await waiting


# -- index targeting (snapshot) and iframes ---------------------------------------------------


async def test_click_by_snapshot_index_in_the_page_and_in_iframes(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    other_site = server.origin.replace("127.0.0.1", "localhost")
    await navigate(page, server.url(f"/input/frames.html?other={other_site}"))
    snap = await snapshot(page, roles=["button"])
    indices = {(node.name, node.session is page): node.index for node in snap.nodes}
    await click(page, index=indices[("Top button", True)])
    assert await js(page, "window.topClicked") is True
    # A same-origin iframe (same session) and another site's (out-of-process) iframe.
    await click(page, index=indices[("Frame button", True)])
    assert (
        await js(
            page,
            "document.getElementById('same').contentDocument.getElementById('inner').textContent",
        )
        == "Trusted same"
    )
    await click(page, index=indices[("Frame button", False)])
    names = {node.name for node in (await snapshot(page, roles=["button"])).nodes}
    assert names == {"Top button", "Trusted same", "Trusted other"}


async def test_index_out_of_range_and_stale_index(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/input/frames.html"))
    snap = await snapshot(page, roles=["button"])
    count = len(snap.nodes)
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=rf"^Element index {count + 4} out of range \(snapshot has {count}\)$",
    ):
        await click(page, index=count + 4)
    [top] = [node for node in snap.nodes if node.name == "Top button"]
    await js(page, "document.getElementById('top').remove()")
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=rf"^Element index {top.index} is stale: that element was removed from the page; "
        r"take a new snapshot$",
    ):
        await click(page, index=top.index)
    with pytest.raises(cdpkit.ElementNotFoundError, match="stale"):
        await type_text(page, "x", index=top.index)


async def test_type_and_select_by_snapshot_index(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/input/form.html"))
    snap = await snapshot(page, interactive_only=True)
    [email] = [n for n in snap.nodes if n.role == "textbox" and n.name == "Email"]
    [country] = [n for n in snap.nodes if n.role == "combobox" and n.name == "Country"]
    await type_text(page, "grace@example.com", index=email.index)
    assert await js(page, "document.getElementById('email').value") == "grace@example.com"
    assert await select_option(page, "France", index=country.index) == ["fr"]


# -- where a click lands (hit.html: smooth scrolling, generated labels, wide rows, frames) ----


async def clicks(page: cdpkit.Page) -> list[str]:
    result: list[str] = await js(page, "window.clicks")
    return result


async def test_click_a_button_whose_label_is_generated_content(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    # The point lands on the label's ::before text: that is still the button.
    await open_page(page, server, "/input/hit.html")
    await click(page, selector="#before")
    assert await clicks(page) == ["before"]


async def test_click_buttons_partly_and_wholly_past_the_right_edge(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/hit.html")
    await click(page, selector="#b3")
    await click(page, selector="#b4")
    await click(page, selector="#b1")
    assert await clicks(page) == ["b3", "b4", "b1"]


async def test_click_brings_an_element_out_from_under_a_sticky_header(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/hit.html")
    # Scrolled so that the button is in the viewport, under the sticky header.
    await js(
        page,
        "window.scrollTo({top: document.getElementById('row').offsetTop - 5, behavior: 'instant'})",
    )
    assert await js(page, "document.elementFromPoint(100, 25).id") == "sticky"
    await click(page, selector="#b1")
    assert await clicks(page) == ["b1"]


async def test_click_scrolls_the_box_that_hides_the_element(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    # The button is inside the viewport but below the visible part of an overflow box.
    await open_page(page, server, "/input/hit.html")
    await click(page, selector="#clipped")
    await click(page, selector="#in-scroller")
    assert await clicks(page) == ["clipped", "in-scroller"]


async def test_click_measures_after_the_page_stops_scrolling(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    # The page is in the middle of a smooth scroll of its own when the click starts: the
    # button is on screen (or about to be) now, and somewhere else when the scroll ends.
    await open_page(page, server, "/input/hit.html")
    for selector, away, after_ms in [("#b2", 3000, 30), ("#bottom", 0, 30), ("#b2", 3000, 100),
                                     ("#bottom", 0, 100)]:
        await js(page, f"window.scrollTo(0, {away}); new Promise(r => setTimeout(r, {after_ms}))")
        await click(page, selector=selector)
    assert await clicks(page) == ["b2", "bottom", "b2", "bottom"]


async def test_click_a_text_line_of_the_snapshot_clicks_its_owner(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/hit.html")
    snap = await snapshot(page)
    [text] = [n for n in snap.nodes if n.role == "StaticText" and n.name == "Just some text"]
    # In the iframe the div has no line of its own: its text is the only line.
    [framed] = [n for n in snap.nodes if n.name == "Only a line of text"]
    assert framed.role == "StaticText"
    await click(page, index=text.index)
    assert await clicks(page) == ["text-owner"]
    await click(page, index=framed.index)
    assert await js(page, "window.textClicked") is True


async def test_click_inside_bordered_and_padded_iframes(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    other_site = server.origin.replace("127.0.0.1", "localhost")
    await navigate(page, server.url(f"/input/hit.html?other={other_site}"))
    await js(
        page,
        "document.getElementById('same').contentWindow.addEventListener('click', "
        "(e) => { window.frameClick = [e.clientX, e.clientY]; })",
    )
    snap = await snapshot(page, roles=["button"])
    buttons = {node.session is page: node.index for node in snap.nodes if node.name == "Frame button"}
    await click(page, index=buttons[True])
    # frame-child.html's button is at (30, 40), 120 x 30, in the frame's own viewport.
    assert await js(page, "window.frameClick") == [90, 55]
    await click(page, index=buttons[False])
    names = {node.name for node in (await snapshot(page, roles=["button"])).nodes}
    assert {"Trusted same", "Trusted other"} <= names
    assert await clicks(page) == []  # nothing in the page itself was clicked


async def test_covered_error_names_the_element_on_top(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/hit.html")
    with pytest.raises(cdpkit.ElementNotFoundError) as caught:
        await click(page, selector="#under")
    message = str(caught.value)
    assert message.startswith(
        "Element selector '#under' is covered by <div id=\"banner\" class=\"cookie notice\">"
    )
    assert "nothing" not in message
    assert await clicks(page) == []


# -- the keyboard at the caret, any character ------------------------------------------------


async def value_of(page: cdpkit.Page, element_id: str) -> Any:
    return await js(page, f"document.getElementById('{element_id}').value")


async def test_type_into_the_focused_field_types_at_the_caret(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await type_text(page, "Hello World!", selector="#area")
    for _ in range(6):
        await press_key(page, "ArrowLeft")
    await type_text(page, "inserted ")
    assert await value_of(page, "area") == "Hello inserted World!"
    # A selection is replaced, as when a person types over it.
    await js(page, "document.getElementById('area').setSelectionRange(0, 5)")
    await type_text(page, "Bye")
    assert await value_of(page, "area") == "Bye inserted World!"
    # contenteditable: at the caret too.
    await click(page, selector="#editor")
    await press_key(page, "End")
    for _ in range(3):
        await press_key(page, "ArrowLeft")
    await type_text(page, "inserted ")
    assert await js(page, "document.getElementById('editor').textContent") == "abc inserted def"


async def test_press_key_newline_and_return_press_enter(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await type_text(page, "ab", selector="#area")
    await press_key(page, "\n")
    await press_key(page, "\r")
    await type_text(page, "c")
    assert await value_of(page, "area") == "ab\n\nc"
    downs = await js(page, "window.keys.filter(k => k.type === 'keydown').slice(2, 4)")
    assert [(k["key"], k["code"], k["keyCode"]) for k in downs] == [("Enter", "Enter", 13)] * 2


async def test_press_key_types_a_character_of_any_script(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await click(page, selector="#second")
    for char in ["ё", "ж", "😊", "中", "👍🏽", "🇫🇷", "e\u0301"]:
        await press_key(page, char)
    assert await value_of(page, "second") == "ёж😊中👍🏽🇫🇷e\u0301"


async def test_press_key_rejects_a_name_that_is_no_key(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await click(page, selector="#second")
    for name in ["NotARealKey", "ёё", "ab"]:
        with pytest.raises(ValueError, match=f"^Unknown key {name!r}"):
            await press_key(page, name)
    assert await value_of(page, "second") == ""
    assert await js(page, "window.keys.length") == 0


# -- low-level mouse and keyboard: held keys and buttons --------------------------------------


async def test_shift_held_with_key_down_applies_to_keys_typing_and_clicks(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/keys.html")
    await type_text(page, "hello", selector="#second")
    await key_down(page, "Shift")
    await press_key(page, "ArrowLeft")
    await press_key(page, "ArrowLeft")
    selection = "[document.activeElement.selectionStart, document.activeElement.selectionEnd]"
    assert await js(page, selection) == [3, 5]
    await type_text(page, "p")  # Shift is still down: a capital replaces the selection
    await key_up(page, "Shift")
    await type_text(page, "!")
    assert await value_of(page, "second") == "helP!"
    shifts = await js(page, "window.keys.filter(k => k.type === 'keydown').map(k => k.shift)")
    assert shifts == [False] * 5 + [True] * 4 + [False]

    await open_page(page, server, "/input/click.html")
    await key_down(page, "Shift")
    await click(page, selector="#go")
    await key_up(page, "Shift")
    await click(page, selector="#go")
    clicks_seen = await js(page, "window.events.filter(e => e.type === 'click')")
    assert [(e["target"], e["shift"]) for e in clicks_seen] == [("go", True), ("go", False)]


async def test_mouse_down_move_up_drags_a_slider_by_hand(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/drag.html")
    track = await js(
        page, "JSON.parse(JSON.stringify(document.getElementById('track').getBoundingClientRect()))"
    )
    start_x, y = track["x"] + 10, track["y"] + 10
    await mouse_move(page, start_x, y)
    await mouse_down(page, start_x, y)
    await mouse_move(page, start_x + 100, y, steps=5)
    assert await js(page, "document.getElementById('thumb').style.left") == "100px"
    await mouse_up(page, start_x + 100, y)
    await mouse_move(page, start_x + 200, y)  # released: the thumb stays
    assert await js(page, "document.getElementById('thumb').style.left") == "100px"
    with pytest.raises(ValueError, match="button must be one of"):
        await mouse_down(page, 1, 1, button="top")  # type: ignore[arg-type]


async def test_mouse_wheel_scrolls_what_is_under_the_pointer(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/hit.html")
    box = await js(
        page,
        "JSON.parse(JSON.stringify(document.getElementById('scroller').getBoundingClientRect()))",
    )
    await js(page, "window.wheels = []; document.addEventListener('wheel', "
                   "(e) => wheels.push([e.deltaY, e.isTrusted]))")
    await mouse_wheel(page, box["x"] + 20, box["y"] + 20, delta_y=400)
    # The wheel event and the scroll reach the page a moment after the call returns.
    scrolled = (
        "new Promise((resolve) => { const check = () => "
        "wheels.length && document.getElementById('scroller').scrollTop >= 400 ? resolve() : "
        "requestAnimationFrame(check); check(); })"
    )
    await asyncio.wait_for(js(page, scrolled), 5)
    assert await js(page, "window.wheels") == [[400, True]]
    assert await js(page, "window.scrollY") == 0  # the page itself did not move


async def test_select_option_on_an_element_that_is_not_a_select_says_so(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/select.html")
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=r"^Element selector '#wrap' is a <div>, not a <select>: select_option needs",
    ):
        await select_option(page, "b", selector="#wrap")
    assert await value_of(page, "inner") == "a"  # the select inside was left alone
    assert await select_option(page, "Large", selector="#label") == ["l"]
    assert await js(page, "window.changes") == ["size=l"]


async def test_click_into_an_iframe_covered_in_the_page_names_the_cover(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    other_site = server.origin.replace("127.0.0.1", "localhost")
    await navigate(page, server.url(f"/input/hit.html?other={other_site}"))
    snap = await snapshot(page, roles=["button"])
    buttons = {node.session is page: node.index for node in snap.nodes if node.name == "Frame button"}
    # A sheet over both iframes, in the page's own document.
    await js(
        page,
        "(() => { const frames = document.getElementById('frames').getBoundingClientRect();"
        " const cover = document.createElement('div'); cover.id = 'sheet';"
        " cover.style = `position: absolute; left: ${frames.left + scrollX}px; width: ${frames.width}px;"
        " top: ${frames.top + scrollY}px;"
        " height: ${frames.height}px; background: rgba(0, 0, 0, 0.3)`;"
        " document.body.appendChild(cover); })()",
    )
    for same_process in (True, False):
        with pytest.raises(
            cdpkit.ElementNotFoundError, match=r"covered by <div id=\"sheet\">"
        ):
            await click(page, index=buttons[same_process])
    assert await clicks(page) == []
    names = {node.name for node in (await snapshot(page, roles=["button"])).nodes}
    assert "Frame button" in names and not names & {"Trusted same", "Trusted other"}


async def test_click_lands_on_the_element_whatever_its_boxes(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_page(page, server, "/input/boxes.html")
    for selector in ["#wrapped", "#outside", "#contents", "#far-contents"]:
        await click(page, selector=selector)
    assert await clicks(page) == ["wrapped", "outside", "contents", "far-contents"]
    # A position: fixed button of an iframe far below: the frame is scrolled into view.
    await js(page, "window.scrollTo({top: 0, behavior: 'instant'})")
    snap = await snapshot(page, roles=["button"])
    [fixed] = [node for node in snap.nodes if node.name == "Fixed in a frame"]
    await click(page, index=fixed.index)
    assert await js(page, "window.fixedClicked") is True


# -- upload_file through a file chooser ------------------------------------------------------


async def wait_until(page: cdpkit.Page, condition: str) -> None:
    """The chooser's change handler reads the files asynchronously."""
    for _ in range(100):
        if await js(page, condition):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never true: {condition}")


async def test_upload_through_a_button_that_opens_the_file_chooser(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await open_page(page, server, "/input/chooser.html")
    one = tmp_path / "one.txt"
    one.write_text("first")
    two = tmp_path / "two.txt"
    two.write_text("second")
    assert await upload_file(page, one, selector="#pick") == [str(one)]
    await wait_until(page, "window.picked.length === 1")
    assert await js(page, "window.picked") == ["one.txt:first"]
    await upload_file(page, [one, two], selector="#pick-many")
    await wait_until(page, "window.picked.length === 3")
    assert await js(page, "window.picked.slice(1)") == ["one.txt:first", "two.txt:second"]
    with pytest.raises(ValueError, match="takes one file; got 2"):
        await upload_file(page, [one, two], selector="#pick")


async def test_upload_to_a_button_that_opens_nothing_or_would_submit_says_so(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await open_page(page, server, "/input/chooser.html")
    one = tmp_path / "one.txt"
    one.write_text("first")
    with pytest.raises(cdpkit.ElementNotFoundError, match="opened no file chooser within 3 s"):
        await upload_file(page, one, selector="#nothing")
    with pytest.raises(cdpkit.ElementNotFoundError, match="a submit button or a link is never clicked"):
        await upload_file(page, one, selector="#submit")
    assert await js(page, "window.submitted === undefined")
    # The chooser is no longer intercepted: the page's own file inputs behave as before.
    assert await js(page, "window.picked.length") == 0
