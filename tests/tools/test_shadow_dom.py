"""One element finder for every tool: web components (open shadow roots) are searched the
same way by the DOM tools, the input tools and scrape; an invalid selector is the same
error everywhere; the tools' JavaScript ships as .js files in the package."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

import pytest

import cdpkit
from cdpkit import tools
from cdpkit.tools._scripts import Script
from cdpkit.tools.dom import count_elements, dom_tree, form_values, query_dom, visible_text
from cdpkit.tools.keyboard import type_text
from cdpkit.tools.navigation import navigate, wait_for
from cdpkit.tools.pointer import click
from cdpkit.tools.scraping import scrape
from tests.server import FixtureServer

PAGE = "/shadow/component.html"

# The button and the field of the Inner card (nested in <outer-card>), then the Later one's.
CARDS = """[document.querySelector('outer-card').shadowRoot.querySelector('info-card'),
  document.querySelector('body > info-card')].map(card => ({
    button: card.shadowRoot.querySelector('button'),
    field: card.shadowRoot.querySelector('input')}))"""


async def js(page: cdpkit.Page, expression: str) -> Any:
    return await tools.evaluate(page, expression)


async def test_every_tool_finds_the_same_element_first_in_document_order(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    """Two components match `button.act` and `input.field`: the one nested inside
    <outer-card> comes first in the document, before the later <info-card>, and every
    tool takes that one."""
    await navigate(page, server.url(PAGE))
    assert await count_elements(page, "button.act") == 2
    listed = await query_dom(page, "button.act")
    assert [element.id for element in listed] == ["Inner-button", "Later-button"]

    await click(page, selector="button.act")
    assert await js(page, f"{CARDS}.map(c => c.button.dataset.clicks || '0')") == ["1", "0"]

    fields = await query_dom(page, "input.field")
    assert fields[0].id == "Inner-field"
    await type_text(page, "typed here", selector="input.field")
    assert await js(page, f"{CARDS}.map(c => c.field.value)") == ["typed here", ""]
    assert await visible_text(page, selector="input.field") == "typed here"
    # The unique selector query_dom gives back targets that same element again.
    assert fields[0].selector is not None
    assert await visible_text(page, selector=fields[0].selector) == "typed here"


async def test_scrape_includes_a_components_shadow_content(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url(PAGE)
    text = await scrape(page, url, format="text", wait_for_ms=0)
    assert text.content is not None
    for shown in ("Page with components", "Outer shell", "Inner heading",
                  "Inner paragraph text", "Later paragraph text, slotted light text.",
                  "Later link", "Light paragraph after, a light link."):
        assert shown in text.content, shown
    assert "color: teal" not in text.content

    markdown = await scrape(page, url, format="markdown", wait_for_ms=0)
    md = markdown.content
    assert md is not None
    assert "## Inner heading" in md and "## Later heading" in md
    assert f"[Later link]({server.url('/linked/Later')})" in md
    assert "Later paragraph text, slotted light text." in md
    assert f"[a light link]({server.url('/light')})" in md
    assert "color: teal" not in md

    links = await scrape(page, url, format="links", wait_for_ms=0)
    # In the finder's order: the document, then shadow roots in document order.
    assert [(link.url, link.text) for link in links.links] == [
        (server.url("/light"), "a light link"),
        (server.url("/linked/Inner"), "Inner link"),
        (server.url("/linked/Later"), "Later link"),
    ]


async def test_scrape_selector_inside_a_component(page: cdpkit.Page, server: FixtureServer) -> None:
    url = server.url(PAGE)
    text = await scrape(page, url, format="text", selector="#Later-para", wait_for_ms=0)
    assert text.content == "Later paragraph text, slotted light text."
    markdown = await scrape(page, url, format="markdown", selector="#Inner-para", wait_for_ms=0)
    assert markdown.content is not None and "Inner paragraph text" in markdown.content
    links = await scrape(page, url, format="links", selector="outer-card", wait_for_ms=0)
    assert [link.text for link in links.links] == ["Inner link"]
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found: #nowhere"):
        await scrape(page, url, format="text", selector="#nowhere", wait_for_ms=0)


async def test_wait_for_selector_sees_into_components(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url(PAGE))
    await wait_for(page, selector="#Inner-button", timeout=2)


BAD = "div[["
SELECTOR_TOOLS: dict[str, Callable[[cdpkit.Page, str], Awaitable[Any]]] = {
    "query_dom": lambda page, s: query_dom(page, s),
    "count_elements": lambda page, s: count_elements(page, s),
    "visible_text": lambda page, s: visible_text(page, selector=s),
    "form_values": lambda page, s: form_values(page, selector=s),
    "dom_tree": lambda page, s: dom_tree(page, selector=s),
    "click": lambda page, s: click(page, selector=s),
    "type_text": lambda page, s: type_text(page, "x", selector=s),
    "wait_for": lambda page, s: wait_for(page, selector=s, timeout=2),
    "download": lambda page, s: tools.download(page, selector=s),
    "scrape text": lambda page, s: scrape(page, page.url, format="text", selector=s, wait_for_ms=0),
    "scrape markdown": lambda page, s: scrape(page, page.url, selector=s, wait_for_ms=0),
    "scrape links": lambda page, s: scrape(page, page.url, format="links", selector=s, wait_for_ms=0),
}


async def test_an_invalid_selector_is_the_same_error_for_every_tool(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url(PAGE))
    messages = {}
    for name, use in SELECTOR_TOOLS.items():
        with pytest.raises(ValueError) as caught:
            await use(page, BAD)
        messages[name] = str(caught.value)
    assert messages == dict.fromkeys(SELECTOR_TOOLS, f"Invalid CSS selector: {BAD!r}")


def _scripts_of_the_tools() -> list[Script]:
    found = []
    for module_info in pkgutil.iter_modules(tools.__path__):
        module = importlib.import_module(f"cdpkit.tools.{module_info.name}")
        found += [value for value in vars(module).values() if isinstance(value, Script)]
    return found


def test_the_tools_javascript_loads_from_the_package() -> None:
    packaged = {
        entry.name.removesuffix(".js")
        for entry in (resources.files("cdpkit.tools") / "_js").iterdir()
        if entry.name.endswith(".js")
    }
    scripts = _scripts_of_the_tools()
    used = {script.name for script in scripts}
    assert {"find", "helpers", "text", "hit", "measure", "dom_query", "scrape_text"} <= packaged
    assert used <= packaged
    # Every packaged file is a script a tool runs or a library one uses.
    assert packaged - used <= {"find", "helpers", "text", "hit"}
    for script in scripts:
        source = script.source
        assert source.lstrip().startswith(("function", "async function", "//")), script
        if script.uses:
            assert source.startswith("function(...args) {\nconst H = {};\n"), script
