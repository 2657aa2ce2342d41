"""Locators (role/name, text, label) against a real headless Chromium: one match acts, none
waits then fails naming what was looked for, several fail listing the candidates and act
on none; and locator_for picks one that still finds the element on a re-laid-out page."""

from __future__ import annotations

import time
from typing import Any

import pytest

import cdpkit
from cdpkit.errors import AmbiguousLocatorError, ElementNotFoundError
from cdpkit.tools import Locator, locator_for
from cdpkit.tools._locator_for import generated_id
from cdpkit.tools.accessibility import snapshot
from cdpkit.tools.dom import element_state
from cdpkit.tools.forms import select_option
from cdpkit.tools.keyboard import type_text
from cdpkit.tools.navigation import navigate
from cdpkit.tools.pointer import click, drag, hover
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


async def open_form(page: cdpkit.Page, server: FixtureServer, path: str = "form.html") -> None:
    await navigate(page, server.url(f"/locators/{path}"))


async def clicked(page: cdpkit.Page) -> list[str]:
    return list(await js(page, "window.clicked"))


# -- role and name --------------------------------------------------------------------------


async def test_click_by_role_and_exact_name(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_form(page, server)
    # "Join later" also contains "Join": an exact name is the whole name.
    await click(page, role="button", name="Join")
    assert await clicked(page) == ["join"]


async def test_name_not_exact_is_a_case_insensitive_part(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    await click(page, role="button", name="LATER", exact=False)
    assert await clicked(page) == ["later"]


async def test_missing_element_waits_then_names_what_was_looked_for(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    started = time.monotonic()
    with pytest.raises(ElementNotFoundError) as raised:
        await click(page, role="button", name="Leave", timeout=0.5)
    assert time.monotonic() - started >= 0.5
    assert str(raised.value) == 'No element with role=button name="Leave" after 0.5 s'
    assert await clicked(page) == []


async def test_an_element_that_appears_later_is_waited_for(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    await js(
        page,
        "setTimeout(() => { const b = document.createElement('button');"
        " b.textContent = 'Confirm'; b.onclick = () => window.clicked.push('confirm');"
        " document.body.append(b); }, 300)",
    )
    await click(page, role="button", name="Confirm", timeout=5)
    assert await clicked(page) == ["confirm"]


async def test_several_matches_fail_listing_candidates_and_click_nothing(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    await snapshot(page)
    with pytest.raises(AmbiguousLocatorError) as raised:
        await click(page, role="button", name="Delete")
    error = raised.value
    assert isinstance(error, ElementNotFoundError)
    assert len(error.candidates) == 2
    for line in error.candidates:
        # The snapshot's own line for each: its index (a snapshot listed it), role, name, box.
        assert line.startswith("[") and '] button "Delete" @(' in line
        assert line in str(error)
    snapshot_text = (await snapshot(page)).text
    for line in error.candidates:
        assert line in snapshot_text
    assert "role=button name=\"Delete\"" in str(error)
    assert await clicked(page) == []


# -- locator_for ----------------------------------------------------------------------------


async def test_locator_for_prefers_role_and_name_then_label_then_text(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    assert await locator_for(page, selector="#f-join") == Locator(role="button", name="Join")
    assert await locator_for(page, selector="#f-email") == Locator(role="textbox", name="Email")
    # Visible text, for an element that has no role of its own (a clickable span).
    assert await locator_for(page, selector=".tile") == Locator(text="Weekly report")
    # Two buttons "Delete": role and name are not unique, nor is the text: no stable
    # attribute either, so the point where it is, said in a comment.
    fallback = await locator_for(page, selector="button[onclick*='delete-2']")
    assert fallback.x is not None and fallback.y is not None
    assert fallback.role is None and fallback.text is None and fallback.selector is None
    assert fallback.comment is not None and "no unique" in fallback.comment
    await click(page, **fallback.as_kwargs())
    assert await clicked(page) == ["delete-2"]


async def test_locator_for_uses_stable_attributes_and_rejects_generated_ids(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/locators/attributes.html"))
    assert await locator_for(page, selector="[data-testid]") == Locator(
        selector='[data-testid="save-draft"]'
    )
    assert await locator_for(page, selector="#toolbar-settings") == Locator(
        selector="#toolbar-settings"
    )
    assert await locator_for(page, selector="input[name]") == Locator(
        selector='input[name="nickname"]'
    )
    for generated in ("#\\:r7\\:", "#ember1234", "[id^=b3f9a2c1]"):
        chosen = await locator_for(page, selector=generated)
        assert chosen.selector is None and chosen.x is not None, (generated, chosen)
        assert chosen.comment is not None
    # The fallback point reaches that element.
    chosen = await locator_for(page, selector="#ember1234")
    await click(page, **chosen.as_kwargs())
    assert await clicked(page) == ["ember-id"]


async def test_locator_for_never_gives_an_index(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_form(page, server)
    shot = await snapshot(page)
    join = next(node for node in shot.nodes if node.role == "button" and node.name == "Join")
    chosen = await locator_for(page, index=join.index)
    assert chosen == Locator(role="button", name="Join")
    assert "index" not in chosen.as_kwargs()


def test_locator_reads_as_the_repl_writes_it() -> None:
    assert str(Locator(role="button", name='Say "hi"')) == 'role=button name="Say \\"hi\\""'
    assert str(Locator(text="Sign in", exact=False)) == 'text="Sign in" exact=False'
    assert str(Locator(x=10.5, y=20)) == "x=10.5 y=20"
    assert Locator(label="Email").as_kwargs() == {"label": "Email"}
    assert Locator(role="link", name="Docs", exact=False).as_kwargs() == {
        "role": "link", "name": "Docs", "exact": False
    }


def test_generated_ids_are_told_from_hand_written_ones() -> None:
    for generated in (":r1:", ":R2lae:", "ember123", "ext-gen12", "yui_3_5_1", "mui-42",
                      "radix-:r2:", "headlessui-menu-button-3", "ui-id-4", "react-aria-12",
                      "b3f9a2c1-77de-4c10-9d2e-5a1b2c3d4e5f", "a1b2c3d4e5", "field-12345",
                      "x7f3k9q2", "123", "item.7"):  # fmt: skip
        assert generated_id(generated), generated
    for hand_written in ("email", "signup-form", "step2", "toolbar_settings", "h1-title",
                         "facade", "main-nav", "card10"):  # fmt: skip
        assert not generated_id(hand_written), hand_written


# -- label and text -------------------------------------------------------------------------


async def test_label_finds_a_field_by_label_element_aria_label_and_labelledby(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    await type_text(page, "ann@example.com", label="Email")
    await type_text(page, "555 0100", label="Phone number")
    await select_option(page, "jp", label="Country")
    await click(page, label="I accept the terms")
    assert await js(page, "document.querySelector('[name=email]').value") == "ann@example.com"
    assert await js(page, "document.querySelector('[name=phone]').value") == "555 0100"
    assert await js(page, "document.querySelector('[name=country]').value") == "jp"
    assert (await element_state(page, label="I accept the terms")).checked is True
    # A placeholder is not a label (the field's accessible name is "Search", though).
    with pytest.raises(ElementNotFoundError, match=r'^No element with label="Search" after 0\.3 s$'):
        await type_text(page, "x", label="Search", timeout=0.3)
    await type_text(page, "shoes", role="textbox", name="Search")
    assert await js(page, "document.querySelector('[name=q]').value") == "shoes"


async def test_text_finds_the_element_holding_the_visible_text(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    await click(page, text="Weekly report")
    await click(page, text="Join later")
    assert await clicked(page) == ["tile", "later"]
    # The text of a checkbox's label (the snapshot shows it as the checkbox's name only).
    await click(page, text="I accept the terms")
    assert (await element_state(page, selector="#f-terms")).checked is True


async def test_text_exact_and_not(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_form(page, server)
    with pytest.raises(ElementNotFoundError, match=r'^No element with text="weekly" after 0\.2 s$'):
        await hover(page, text="weekly", timeout=0.2)
    await click(page, text="weekly", exact=False)
    assert await clicked(page) == ["tile"]
    with pytest.raises(AmbiguousLocatorError) as raised:
        await click(page, text="JOIN", exact=False)
    assert [line.split(" @(")[0] for line in raised.value.candidates] == [
        'StaticText "Join"', 'StaticText "Join later"'
    ]
    assert await clicked(page) == ["tile"]


async def test_drag_takes_locators_for_source_and_destination(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/locators/drag.html"))
    # A missing destination fails before anything is pressed.
    with pytest.raises(ElementNotFoundError, match='role=region name="Archive"'):
        await drag(page, text="Card A", to_role="region", to_name="Archive", timeout=0.2)
    assert await js(page, "window.dragEvents") == []
    await drag(page, text="Card A", to_role="region", to_name="Done")
    assert await js(page, "document.getElementById('c1').parentElement.id") == "done"
    assert "drop:done" in await js(page, "window.dragEvents")


# -- shadow roots and frames ----------------------------------------------------------------


async def test_locators_reach_into_an_open_shadow_root(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/locators/shadow.html"))
    await type_text(page, "3", label="Quantity")
    await click(page, role="button", name="Check out")
    assert await clicked(page) == ["checkout"]
    assert await js(
        page, "document.querySelector('cart-widget').shadowRoot.getElementById('qty').value"
    ) == "3"
    assert await locator_for(page, selector="#checkout") == Locator(
        role="button", name="Check out"
    )


async def test_locators_reach_into_a_same_origin_iframe(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/locators/frame.html"))
    await type_text(page, "4242", label="Card number", timeout=5)
    await click(page, role="button", name="Pay now")
    assert await js(page, "window.paid") == 1
    assert await js(
        page, "document.querySelector('iframe').contentDocument.getElementById('card').value"
    ) == "4242"
    shot = await snapshot(page)
    pay = next(node for node in shot.nodes if node.name == "Pay now")
    assert await locator_for(page, index=pay.index) == Locator(role="button", name="Pay now")


# -- a re-laid-out page ---------------------------------------------------------------------


async def test_locators_chosen_on_a_page_still_work_when_it_is_re_laid_out(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await open_form(page, server)
    chosen = {
        key: await locator_for(page, selector=css)
        for key, css in {
            "email": "#f-email", "phone": "#f-phone", "country": "#f-country",
            "terms": "#f-terms", "join": "#f-join", "tile": ".tile",
        }.items()
    }
    for locator in chosen.values():
        assert locator.selector is None and locator.x is None, locator
    # The same form with its fields reordered and every id and class changed.
    await open_form(page, server, "relaid.html")
    await type_text(page, "ann@example.com", **chosen["email"].as_kwargs())
    await type_text(page, "555 0100", **chosen["phone"].as_kwargs())
    await select_option(page, "fr", **chosen["country"].as_kwargs())
    await click(page, **chosen["terms"].as_kwargs())
    await click(page, **chosen["tile"].as_kwargs())
    await click(page, **chosen["join"].as_kwargs())
    assert await clicked(page) == ["tile", "join"]
    assert await js(page, "window.submitted") == {
        "email": "ann@example.com", "phone": "555 0100", "country": "fr", "terms": "on", "q": ""
    }
