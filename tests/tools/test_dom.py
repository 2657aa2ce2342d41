"""DOM exploration tools against a real headless Chromium."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import cdpkit
from cdpkit.tools import Box
from cdpkit.tools.accessibility import snapshot
from cdpkit.tools.dom import (
    DomElement,
    check_visibility,
    computed_styles,
    count_elements,
    dom_tree,
    element_state,
    find_by_text,
    form_values,
    get_attributes,
    page_metadata,
    query_dom,
    visible_text,
)
from cdpkit.tools.forms import select_option
from cdpkit.tools.keyboard import type_text
from cdpkit.tools.navigation import navigate
from cdpkit.tools.pointer import click
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def as_json(value: Any) -> Any:
    """Round-trip through JSON as the MCP server will."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    elif isinstance(value, list):
        value = [dataclasses.asdict(item) for item in value]
    return json.loads(json.dumps(value))


# -- query_dom / count_elements ---------------------------------------------------------------


async def test_query_dom_lists_matches_with_usable_selectors(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    found = await query_dom(page, "li.product")
    assert [(e.tag, e.classes, e.text) for e in found] == [
        ("li", ("product",), "Red shoes Buy now"),
        ("li", ("product",), "Blue shoes Buy now"),
        ("li", ("product", "sold-out"), "Green shoes Sold out"),
    ]
    for element in found:
        assert element.selector is not None
        assert await count_elements(page, element.selector) == 1
    # The selector targets the same element in other tools.
    await click(page, selector=found[1].selector)
    assert await js(page, "document.getElementById('clicked').textContent") == "clicked p2"
    assert as_json(found[0])["classes"] == ["product"]


async def test_query_dom_includes_shadow_dom_and_respects_limit(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    buttons = await query_dom(page, "button.buy")
    assert [b.text for b in buttons] == ["Buy now", "Buy now", "Sold out", "Shadow buy"]
    assert buttons[3].selector is not None
    await click(page, selector=buttons[3].selector)  # reaches the shadow button
    first = await query_dom(page, "#main, #prices", limit=1)
    assert first == [DomElement("main", "main", (), first[0].text, "#main")]
    assert await query_dom(page, ".nothing-here") == []


async def test_count_elements(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/text.html"))
    assert await count_elements(page, "li") == 3
    assert await count_elements(page, "button.buy") == 4  # one is in a shadow root
    assert await count_elements(page, ".nothing-here") == 0


async def test_query_and_count_reject_invalid_selectors(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    with pytest.raises(ValueError, match=r"Invalid CSS selector: 'li\['"):
        await query_dom(page, "li[")
    with pytest.raises(ValueError, match=r"Invalid CSS selector: '>>>'"):
        await count_elements(page, ">>>")
    with pytest.raises(ValueError, match="limit"):
        await query_dom(page, "li", limit=0)


# -- visible_text -----------------------------------------------------------------------------


async def test_visible_text_is_only_what_a_user_sees(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    text = await visible_text(page)
    assert text.startswith("Welcome to the shop\n\nPick a product below.")
    assert "Red shoes Buy now\nBlue shoes Buy now\nGreen shoes Sold out" in text
    assert "Item\tPrice\nRed shoes\t$40" in text
    assert "Coupon SAVE10 Check out" in text  # what form fields show
    assert "Slotted title" in text and "Shadow paragraph" in text  # shadow DOM, slots
    for hidden in [
        "Secret discount",
        "Invisible coupon",
        "Skip to content",
        "Offscreen promo",
        "Script text",
        "window.ignored",
    ]:
        assert hidden not in text
    assert text.count("Buy now") == 2  # not the display: none one


async def test_visible_text_skips_hidden_elements_of_every_kind(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    text = await visible_text(page)
    for shown in ["Visibility test", "Plainly visible text", "More", "Below the fold"]:
        assert shown in text
    for hidden in [
        "Display none",
        "Inside hidden parent",
        "Invisible text",
        "Transparent",
        "Zero sized",
        "Screen reader only",
        "Offscreen text",
        "Details body",
    ]:
        assert hidden not in text
    await click(page, selector="#summary")  # open the details
    assert "Details body text" in await visible_text(page)


async def test_visible_text_of_one_element_and_max_chars(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    assert await visible_text(page, selector="#prices") == "Item\tPrice\nRed shoes\t$40"
    assert (
        await visible_text(page, selector="#card")
        == "Slotted title\n\nShadow paragraph\n\nShadow buy"
    )
    assert await visible_text(page, max_chars=7) == "Welcome"
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: \.nonexistent$"):
        await visible_text(page, selector=".nonexistent")
    with pytest.raises(ValueError, match="Invalid CSS selector"):
        await visible_text(page, selector="p[")


# -- computed_styles --------------------------------------------------------------------------


async def test_computed_styles(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    styles = await computed_styles(page, selector="#styled")
    assert styles["color"] == "rgb(255, 0, 0)"
    assert styles["background-color"] == "rgb(0, 0, 255)"
    assert styles["display"] == "inline-block"
    assert styles["width"] == "150px"
    assert styles["margin"] == "4px 8px"
    picked = await computed_styles(
        page, selector="#styled", properties=["fontSize", "font-weight", "--accent"]
    )
    assert picked == {"font-size": "20px", "font-weight": "400", "--accent": "#abcdef"}
    with pytest.raises(ValueError, match="Unknown CSS properties: colour"):
        await computed_styles(page, selector="#styled", properties=["colour"])
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await computed_styles(page, selector="#nope")
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
        await computed_styles(page)


# -- check_visibility -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("element_id", "reason"),
    [
        ("display-none", "display: none"),
        ("in-hidden-parent", "display: none on <div>"),
        ("invisible", "visibility: hidden"),
        ("transparent", 'opacity: 0 on <div id="faded">'),
        ("zero", "zero size (0x0)"),
        ("sr-only", "clipped away (clip)"),
        ("offscreen", "positioned outside the page (-9999, 16)"),
        ("in-details", 'inside a closed <details id="details">'),
        ("covered", 'covered by <div id="overlay">'),
        ("scrolled-out", 'clipped out of <div id="scroller"> (overflow: hidden)'),
    ],
)
async def test_check_visibility_says_why_not(
    page: cdpkit.Page, server: FixtureServer, element_id: str, reason: str
) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    result = await check_visibility(page, selector=f"#{element_id}")
    assert result.visible is False
    assert result.reason == reason


async def test_check_visibility_of_visible_elements(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    shown = await check_visibility(page, selector="#shown")
    rect = await js(
        page, "JSON.parse(JSON.stringify(document.getElementById('shown').getBoundingClientRect()))"
    )
    assert shown.visible and shown.in_viewport and shown.reason is None
    assert shown.box == Box(
        round(rect["x"], 2), round(rect["y"], 2), round(rect["width"], 2), round(rect["height"], 2)
    )
    below = await check_visibility(page, selector="#below")
    assert below.visible and not below.in_viewport
    assert below.reason == "outside the viewport: scroll to see it"
    assert below.box is not None and below.box.y > 3000
    inner = await check_visibility(page, selector="#scroll-to-see")
    assert inner.visible and not inner.in_viewport
    assert (
        inner.reason == 'scrolled out of view inside <div id="auto-scroller">: scroll it to see it'
    )
    await js(page, "document.getElementById('below').scrollIntoView()")
    assert (await check_visibility(page, selector="#below")).in_viewport
    assert as_json(shown)["box"]["width"] == shown.box.width


# -- get_attributes ---------------------------------------------------------------------------


async def test_get_attributes(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    assert await get_attributes(page, selector="#styled") == {
        "id": "styled",
        "class": "fancy big",
        "data-role": "demo",
        "title": "Styled!",
    }
    assert list(await get_attributes(page, selector="#styled")) == [
        "id",
        "class",
        "data-role",
        "title",
    ]
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: \.nonexistent$"):
        await get_attributes(page, selector=".nonexistent")


# -- page_metadata ----------------------------------------------------------------------------


async def test_page_metadata(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/metadata.html"))
    meta = await page_metadata(page)
    assert meta.url == server.url("/dom/metadata.html")
    assert meta.title == "Métadonnées"
    assert meta.description == "A page about metadata."
    assert meta.canonical == server.url("/dom/canonical.html")
    assert (meta.lang, meta.charset) == ("fr", "UTF-8")
    assert (meta.keywords, meta.robots) == ("cdp, chrome", "noindex")
    assert meta.viewport == "width=device-width, initial-scale=1"
    assert meta.favicon == server.url("/favicon.png")
    assert meta.open_graph == {
        "og:title": "OG title",
        "og:type": "article",
        "og:image": "https://example.com/og.png",
    }
    assert meta.twitter == {"twitter:card": "summary"}
    assert as_json(meta)["open_graph"]["og:type"] == "article"


async def test_page_metadata_of_a_bare_page(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/bare.html"))
    meta = await page_metadata(page)
    assert (meta.title, meta.description, meta.canonical, meta.lang) == ("", "", "", "")
    assert meta.open_graph == {} and meta.twitter == {}


async def test_metadata_and_text_search_survive_a_document_without_root(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    # What an error page or a script that wiped the document leaves behind.
    await navigate(page, server.url("/dom/bare.html"))
    await page.call("Runtime.evaluate", {"expression": "document.documentElement.remove()"})
    meta = await page_metadata(page)
    assert meta.lang == ""
    assert await find_by_text(page, "anything") == []


# -- find_by_text -----------------------------------------------------------------------------


async def test_find_by_text_returns_innermost_targetable_elements(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    matches = await find_by_text(page, "buy now")
    assert [(m.tag, m.text, m.visible) for m in matches] == [
        ("button", "Buy now", True),
        ("button", "Buy now", True),
        ("p", "Buy now", False),  # hidden matches come last
    ]
    selector = matches[1].selector
    assert selector is not None
    await click(page, selector=selector)
    assert await js(page, "document.getElementById('clicked').textContent") == "clicked p2"


async def test_find_by_text_exact_attributes_and_shadow(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/text.html"))
    exact = await find_by_text(page, "Red shoes", exact=True)
    assert [(m.tag, m.text) for m in exact] == [("span", "Red shoes"), ("td", "Red shoes")]
    assert await find_by_text(page, "red shoes", exact=True) == []
    assert [m.tag for m in await find_by_text(page, "shop")] == ["em"]  # innermost only
    [checkout] = await find_by_text(page, "check out")
    assert (checkout.tag, checkout.selector) == ("input", "#checkout")
    [close] = await find_by_text(page, "Close dialog")
    assert (close.tag, close.selector) == ("a", "#close")
    [shadow] = await find_by_text(page, "Shadow paragraph")
    assert shadow.tag == "p" and shadow.selector is not None
    assert await count_elements(page, shadow.selector) == 1
    assert len(await find_by_text(page, "shoes", limit=2)) == 2
    assert await find_by_text(page, "no such words anywhere") == []
    with pytest.raises(ValueError, match="text is empty"):
        await find_by_text(page, "  ")


# -- form_values ------------------------------------------------------------------------------


async def test_form_values_reflect_what_the_user_did(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/input/form.html"))
    await type_text(page, "ada@example.com", selector="#email")
    await click(page, selector="#news")
    await click(page, selector="#plan-free")
    await select_option(page, ["ham", "basil"], selector="#toppings")
    await select_option(page, "Germany", selector="#country")
    fields = {f.name or f.selector: f for f in await form_values(page)}
    assert fields["text"].value == "initial" and fields["text"].label == "Text"
    assert fields["email"].value == "ada@example.com"
    assert fields["news"].checked is True and fields["news"].type == "checkbox"
    assert fields["agree"].checked is True
    plans = [f for f in await form_values(page) if f.name == "plan"]
    assert [(p.value, p.checked) for p in plans] == [("free", True), ("pro", False)]
    assert fields["toppings"].value == ["ham", "basil"]
    assert fields["toppings"].type == "select-multiple"
    assert fields["country"].value == "de" and fields["country"].label == "Country"
    assert fields["token"].value == "abc123" and fields["token"].type == "hidden"
    assert fields["off"].disabled and fields["in-fieldset"].disabled
    assert fields["bio"].value == "Hi there" and fields["bio"].form == "signup"
    assert "submit" not in {f.type for f in fields.values()}  # buttons are left out
    assert fields["email"].selector == "#email"
    assert as_json(list(fields.values()))[0]["tag"] == "input"


async def test_form_values_of_one_form(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/input/form.html"))
    [query] = await form_values(page, selector="#other")
    assert (query.name, query.value, query.form) == ("q", "query", "other")
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await form_values(page, selector="#nope")


# -- element_state ----------------------------------------------------------------------------


async def test_element_state(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/input/form.html"))
    agree = await element_state(page, selector="#agree")
    assert (agree.visible, agree.enabled, agree.checked, agree.editable) == (
        True,
        True,
        True,
        False,
    )
    news = await element_state(page, selector="#news")
    assert news.checked is False
    text = await element_state(page, selector="#text")
    assert text.editable and not text.focused and text.checked is None and text.selected is None
    await click(page, selector="#text")
    assert (await element_state(page, selector="#text")).focused
    assert not (await element_state(page, selector="#off")).enabled
    fieldset = await element_state(page, selector="#in-fieldset")
    assert not fieldset.enabled and not fieldset.editable
    read_only = await element_state(page, selector="#ro")
    assert read_only.enabled and not read_only.editable
    assert (await element_state(page, selector="#country option[value=fr]")).selected is False
    await select_option(page, "fr", selector="#country")
    assert (await element_state(page, selector="#country option[value=fr]")).selected is True
    assert not (await element_state(page, selector="#styled-file")).visible
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await element_state(page, selector="#nope")


# -- dom_tree ---------------------------------------------------------------------------------


async def test_dom_tree(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/text.html"))
    tree = await dom_tree(page)
    assert tree["tag"] == "body"
    json.dumps(tree)  # JSON-able as is
    main = next(child for child in tree["children"] if child.get("id") == "main")
    products = next(child for child in main["children"] if child.get("id") == "products")
    first = products["children"][0]
    assert first["tag"] == "li" and first["classes"] == ["product"]
    assert [c["tag"] for c in first["children"]] == ["span", "button"]
    assert first["children"][0]["text"] == "Red shoes"
    assert all(c["tag"] != "script" for c in tree["children"])
    hidden = next(child for child in main["children"] if child.get("id") == "hidden-match")
    assert hidden["hidden"] is True
    checkout = next(child for child in main["children"] if child.get("id") == "checkout")
    assert checkout["attributes"] == {"type": "submit", "value": "Check out"}
    card = next(child for child in main["children"] if child.get("id") == "card")
    assert card["shadow_root"][0]["classes"] == ["card"]


async def test_dom_tree_limits(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/dom/text.html"))
    shallow = await dom_tree(page, max_depth=1)
    main = next(child for child in shallow["children"] if child.get("id") == "main")
    assert "children" not in main and main["children_omitted"] > 5
    small = await dom_tree(page, max_nodes=3)
    assert small["truncated"] is True
    assert json.dumps(small).count('"tag"') == 3
    sub = await dom_tree(page, selector="#products")
    assert sub["tag"] == "ul" and len(sub["children"]) == 3
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"^Element not found: #nope$"):
        await dom_tree(page, selector="#nope")


# -- every tool -------------------------------------------------------------------------------


async def test_target_errors_are_worded_for_the_caller(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/dom/visibility.html"))
    for tool in (computed_styles, check_visibility, get_attributes, element_state):
        with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
            await tool(page)
        with pytest.raises(ValueError, match=r"^Provide one of: selector, index, x/y, role \(with name\), text, or label$"):
            await tool(page, selector="#shown", index=1)
        with pytest.raises(
            cdpkit.ElementNotFoundError, match=r"^Element not found: \.nonexistent$"
        ):
            await tool(page, selector=".nonexistent")
        with pytest.raises(ValueError, match=r"Invalid CSS selector: '#shown\['"):
            await tool(page, selector="#shown[")
    # x/y targeting: the element at that point.
    box = await check_visibility(page, selector="#styled")
    assert box.box is not None
    attributes = await get_attributes(page, x=box.box.x + 5, y=box.box.y + 5)
    assert attributes["id"] == "styled"


async def test_dom_tools_on_a_closed_page_raise_target_closed(
    context: cdpkit.BrowserContext, server: FixtureServer
) -> None:
    page = await context.new_page()
    await navigate(page, server.url("/dom/text.html"))
    await page.close()
    calls = [
        query_dom(page, "li"),
        count_elements(page, "li"),
        visible_text(page),
        computed_styles(page, selector="li"),
        check_visibility(page, selector="li"),
        get_attributes(page, selector="li"),
        page_metadata(page),
        find_by_text(page, "shoes"),
        form_values(page),
        element_state(page, selector="li"),
        dom_tree(page),
    ]
    for call in calls:
        with pytest.raises(cdpkit.TargetClosedError):
            await call


async def test_dom_tools_take_snapshot_indices(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/input/form.html"))
    snap = await snapshot(page, interactive_only=True)
    [agree] = [n for n in snap.nodes if n.role == "checkbox" and n.name == "Agree"]
    state = await element_state(page, index=agree.index)
    assert state.tag == "input" and state.checked is True
    assert (await get_attributes(page, index=agree.index))["id"] == "agree"
    assert (await check_visibility(page, index=agree.index)).visible
    assert (await computed_styles(page, index=agree.index, properties=["display"])) == {
        "display": "inline-block"
    }
    with pytest.raises(
        cdpkit.ElementNotFoundError,
        match=rf"^Element index {len(snap.nodes)} out of range \(snapshot has {len(snap.nodes)}\)$",
    ):
        await element_state(page, index=len(snap.nodes))
