"""The page engine against Chrome's tree on generated documents (a differential test).

`hypothesis` builds small, varied documents: labels and the controls they name or hold,
ARIA names and references (``aria-labelledby`` / ``aria-describedby`` chains, hidden
targets), hidden states (``display: none``, ``visibility``, ``aria-hidden``, the
``hidden`` attribute), CSS ``::before`` / ``::after`` content, shadow roots and slots,
tables, lists, forms, inline / inline-block mixes and elements with implicit roles. A
batch of them is loaded as one page (each in a container of its own, its ids prefixed),
and the two outlines (``engine="page"``, ``engine="chrome"``) are matched by DOM node:
a node agrees when both list it with the same role and the same name.

The suite runs a fixed-seed bounded run (``tests/tools/test_outline_names.py``); the
long run is the ``outline_agreement`` benchmark case (``outline_agreement.py``) and, on
its own, ``python -m benchmarks.cases.outline_differential --examples 300``, which also
prints the disagreements, smallest documents first.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# -- the documents ---------------------------------------------------------------------------

# One stylesheet for every batch: classes the generator puts on elements.
STYLE = """
.before::before { content: "Pre "; }
.after::after { content: " post"; }
.icon::before { content: "\\2605"; }
.alttext::before { content: "\\2192" / "Arrow"; }
.blockbefore::before { content: "Top"; display: block; }
.ib { display: inline-block; }
.blk { display: block; }
.inl { display: inline; }
.contents { display: contents; }
.vh { visibility: hidden; }
.vv { visibility: visible; }
.none { display: none; }
.flex { display: flex; }
.upper { text-transform: uppercase; }
"""
CLASSES = ("before", "after", "icon", "alttext", "blockbefore", "ib", "blk", "inl",
           "contents", "vh", "vv", "none", "flex", "upper")
WORDS = ("Alpha", "beta", "Gamma", "delta", "Echo", "fox", "Golf", "hotel", "India",
         "Juliet", "kilo", "Lima", "7", "x", "Über")
IDS = tuple(f"t{k}" for k in range(6))
EXPLICIT_ROLES = ("button", "link", "heading", "img", "group", "region", "navigation",
                  "list", "listitem", "checkbox", "textbox", "combobox", "listbox", "option",
                  "slider", "spinbutton", "tab", "menuitem", "none", "presentation",
                  "tooltip", "cell", "row", "table", "grid", "gridcell", "note", "generic",
                  "term", "definition", "article", "switch", "radio", "searchbox")
INLINE_TAGS = ("span", "b", "em", "strong", "code", "a", "abbr", "mark", "label", "small",
               "i", "q", "cite", "time", "del", "ins", "sub", "sup", "dfn", "kbd")
BLOCK_TAGS = ("div", "p", "section", "article", "aside", "nav", "header", "footer", "main",
              "form", "address", "blockquote", "figure", "details", "ul", "ol", "menu", "dl",
              "fieldset", "h1", "h3", "h6", "hgroup", "search", "pre", "figcaption", "li",
              "dt", "dd", "legend", "caption", "summary", "output", "dialog")
INPUT_TYPES = ("text", "checkbox", "radio", "range", "number", "search", "email", "submit",
               "button", "reset", "image", "tel", "url", "password", "", "file")

Attributes = dict[str, str | None]


@dataclass
class Element:
    """An element of a generated document; ``@`` in attribute values is the id prefix."""

    tag: str
    attributes: Attributes = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    shadow: list[Element | str] | None = None  # an open shadow root's content

    def render(self, prefix: str, ids: set[str]) -> str:
        parts = [self.tag]
        for name, value in self.attributes.items():
            if name == "id":
                if value in ids:
                    continue  # each id once in a document
                ids.add(str(value))
            if value is None:
                parts.append(name)
            else:
                value = value.replace("@", prefix).replace("&", "&amp;").replace('"', "&quot;")
                parts.append(f'{name}="{value}"')
        opening = "<" + " ".join(parts) + ">"
        if self.tag in ("input", "img", "br", "hr", "wbr"):
            return opening
        inner = "".join(render(child, prefix, ids) for child in self.children)
        if self.shadow is not None:
            shadow = "".join(render(child, prefix, ids) for child in self.shadow)
            inner = f'<template shadowrootmode="open">{shadow}</template>' + inner
        return f"{opening}{inner}</{self.tag}>"


def render(node: Element | str, prefix: str, ids: set[str]) -> str:
    """The HTML of a node, its ids (each given once: ``ids`` holds those already given)
    prefixed."""
    if isinstance(node, str):
        return node.replace("&", "&amp;").replace("<", "&lt;")
    return node.render(prefix, ids)


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
# Text as written: words, with or without white space around them.
texts = st.tuples(st.sampled_from(("", " ", "\n  ")), words,
                  st.sampled_from(("", " ", "  \n"))).map("".join)
references = st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True).map(
    lambda ids: " ".join("@" + i for i in ids))


@st.composite
def global_attributes(draw: st.DrawFn, chance: int = 3) -> Attributes:
    """Attributes any element may carry: an id, names, references, hiding, classes."""
    attributes: Attributes = {}
    if draw(st.integers(0, 9)) < chance:
        attributes["id"] = "@" + draw(st.sampled_from(IDS))
    for name, strategy, odds in (
        ("aria-label", st.one_of(words, st.just(""), st.just(" ")), 2),
        ("aria-labelledby", references, 2),
        ("aria-describedby", references, 1),
        ("title", words, 1),
        ("class", st.lists(st.sampled_from(CLASSES), min_size=1, max_size=2).map(" ".join), 4),
        ("role", st.sampled_from(EXPLICIT_ROLES), 1),
        ("aria-hidden", st.sampled_from(("true", "false")), 1),
        ("hidden", st.none(), 1),
        ("tabindex", st.sampled_from(("0", "-1")), 1),
    ):
        if draw(st.integers(0, 19)) < odds:
            attributes[name] = draw(strategy)
    return attributes


@st.composite
def control(draw: st.DrawFn) -> Element:
    """A form control, named or not, with or without a value."""
    kind = draw(st.sampled_from(("input", "input", "select", "textarea", "button", "img",
                                 "progress", "meter")))
    attributes = draw(global_attributes(chance=5))
    if kind == "input":
        attributes["type"] = draw(st.sampled_from(INPUT_TYPES))
        if draw(st.booleans()):
            attributes["value"] = draw(st.one_of(words, st.just(""), st.just("42")))
        if draw(st.integers(0, 3)) == 0:
            attributes["placeholder"] = draw(words)
        if draw(st.integers(0, 5)) == 0:
            attributes["alt"] = draw(words)
        if draw(st.integers(0, 4)) == 0:
            attributes["checked"] = None
        return Element("input", attributes)
    if kind == "select":
        if draw(st.integers(0, 3)) == 0:
            attributes["multiple"] = None
        if draw(st.integers(0, 3)) == 0:
            attributes["size"] = draw(st.sampled_from(("1", "3")))
        options = [Element("option", {"selected": None} if draw(st.integers(0, 3)) == 0 else {},
                           [draw(words)]) for _ in range(draw(st.integers(1, 3)))]
        return Element("select", attributes, list(options))
    if kind == "textarea":
        return Element("textarea", attributes, [draw(words)] if draw(st.booleans()) else [])
    if kind == "button":
        return Element("button", attributes, draw(st.lists(inline(0), max_size=2)))
    if kind == "img":
        alt = draw(st.sampled_from((None, "", "word")))
        if alt is not None:
            attributes["alt"] = draw(words) if alt == "word" else ""
        attributes["src"] = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
        attributes["width"] = "8"
        attributes["height"] = "8"
        return Element("img", attributes)
    attributes["value"] = draw(st.sampled_from(("0.3", "1", "5")))
    if kind == "meter":
        attributes["max"] = "10"
    return Element(kind, attributes)


def inline(depth: int) -> st.SearchStrategy[Element | str]:
    """Phrasing content: text, inline elements, controls."""
    leaves: st.SearchStrategy[Element | str] = st.one_of(texts, texts, control())
    if depth <= 0:
        return leaves
    return st.one_of(leaves, inline_element(depth), inline_element(depth))


@st.composite
def inline_element(draw: st.DrawFn, depth: int) -> Element:
    tag = draw(st.sampled_from(INLINE_TAGS))
    attributes = draw(global_attributes())
    if tag == "a" and draw(st.booleans()):
        attributes["href"] = "#"
    if tag == "label" and draw(st.booleans()):
        attributes["for"] = "@" + draw(st.sampled_from(IDS))
    return Element(tag, attributes, draw(st.lists(inline(depth - 1), min_size=0, max_size=3)))


@st.composite
def table(draw: st.DrawFn, depth: int) -> Element:
    attributes = draw(global_attributes(chance=2))
    rows: list[Element | str] = []
    for _ in range(draw(st.integers(1, 3))):
        cells: list[Element | str] = []
        for _ in range(draw(st.integers(1, 3))):
            tag = draw(st.sampled_from(("td", "td", "th")))
            cell_attributes = draw(global_attributes(chance=1))
            if tag == "th" and draw(st.booleans()):
                cell_attributes["scope"] = draw(st.sampled_from(("row", "col")))
            cells.append(Element(tag, cell_attributes,
                                 draw(st.lists(inline(depth - 1), max_size=2))))
        rows.append(Element("tr", {}, cells))
    parts: list[Element | str] = []
    if draw(st.booleans()):
        parts.append(Element("caption", {}, [draw(words)]))
    if draw(st.booleans()):
        parts.append(Element("thead", {}, rows[:1]))
        rows = rows[1:]
    parts.append(Element("tbody", {}, rows))
    return Element("table", attributes, parts)


@st.composite
def shadow_host(draw: st.DrawFn, depth: int) -> Element:
    """A custom element with an open shadow root: its content around one or two slots,
    and light children (one of them slotted by name)."""
    shadow: list[Element | str] = draw(st.lists(flow(depth - 1), max_size=2))
    slot_attributes = draw(global_attributes(chance=2))
    shadow.insert(draw(st.integers(0, len(shadow))), Element("slot", slot_attributes))
    named = draw(st.booleans())
    if named:
        shadow.append(Element("slot", {"name": "n"}))
    light: list[Element | str] = draw(st.lists(inline(depth - 1), max_size=2))
    if named:
        light.append(Element("span", {"slot": "n"}, [draw(words)]))
    return Element("x-host", draw(global_attributes()), light, shadow)


@st.composite
def block(draw: st.DrawFn, depth: int) -> Element:
    tag = draw(st.sampled_from(BLOCK_TAGS))
    attributes = draw(global_attributes())
    children: list[Element | str]
    if tag in ("ul", "ol", "menu"):
        children = [Element("li", draw(global_attributes(chance=1)),
                            draw(st.lists(inline(depth - 1), max_size=2)))
                    for _ in range(draw(st.integers(0, 3)))]
    elif tag == "dl":
        children = []
        for _ in range(draw(st.integers(1, 2))):
            children.append(Element("dt", {}, [draw(texts)]))
            children.append(Element("dd", {}, draw(st.lists(inline(depth - 1), max_size=2))))
    elif tag == "details":
        if draw(st.booleans()):
            attributes["open"] = None
        children = [Element("summary", {}, draw(st.lists(inline(depth - 1), min_size=1,
                                                             max_size=2)))]
        children += draw(st.lists(flow(depth - 1), max_size=2))
    elif tag == "figure":
        children = draw(st.lists(flow(depth - 1), max_size=2))
        if draw(st.booleans()):
            children.append(Element("figcaption", {}, [draw(texts)]))
    elif tag == "fieldset":
        children = [Element("legend", {}, [draw(texts)])] if draw(st.booleans()) else []
        children += draw(st.lists(flow(depth - 1), max_size=2))
    elif tag == "dialog":
        attributes["open"] = None
        children = draw(st.lists(flow(depth - 1), max_size=2))
    else:
        children = draw(st.lists(flow(depth - 1), min_size=0, max_size=3))
    return Element(tag, attributes, children)


def flow(depth: int) -> st.SearchStrategy[Element | str]:
    """Flow content: blocks, tables, shadow hosts, and phrasing content."""
    if depth <= 0:
        return inline(0)
    return st.one_of(inline(depth), block(depth), block(depth), table(depth),
                     shadow_host(depth))


# A document: a few pieces of flow content.
documents = st.lists(flow(2), min_size=1, max_size=3)
# A batch: the documents loaded together as one page.
batches = st.lists(documents, min_size=1, max_size=6)


def case_html(batch: list[list[Element | str]]) -> list[str]:
    """The HTML of each document of the batch (ids prefixed by its number)."""
    cases = []
    for number, document in enumerate(batch):
        ids: set[str] = set()
        cases.append("".join(render(node, f"d{number}-", ids) for node in document))
    return cases


def page_html(cases: list[str]) -> str:
    """One page holding each document in a container of its own."""
    bodies = "".join(f'<div data-case="{number}">{html}</div>'
                     for number, html in enumerate(cases))
    return (f"<!doctype html><html><head><meta charset=utf-8><title>Generated</title>"
            f"<style>{STYLE}</style></head><body>{bodies}</body></html>")


# -- the comparison --------------------------------------------------------------------------


@dataclass
class Agreement:
    """Nodes either outline lists, and those they agree on."""

    nodes: int = 0  # listed by either
    listed: int = 0  # listed by both
    roles: int = 0  # listed by both, same role
    names: int = 0  # listed by both, same name
    agree: int = 0  # listed by both, same role and name
    pages: int = 0
    # (what Chrome says, what the engine says, the document), each "role 'name'" or "-"
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, other: Agreement) -> None:
        self.nodes += other.nodes
        self.listed += other.listed
        self.roles += other.roles
        self.names += other.names
        self.agree += other.agree
        self.pages += other.pages
        self.disagreements += other.disagreements

    @property
    def share(self) -> float:
        """Nodes listed by both with the same role and name, over nodes listed by either (%)."""
        return 100.0 * self.agree / self.nodes if self.nodes else 100.0

    def summary(self) -> str:
        def pct(part: int, whole: int) -> str:
            return f"{100.0 * part / whole if whole else 100.0:.2f}%"

        return (f"{self.pages} pages, {self.nodes} nodes: agree {pct(self.agree, self.nodes)}"
                f" (listed by both {pct(self.listed, self.nodes)}; of those, same role "
                f"{pct(self.roles, self.listed)}, same name {pct(self.names, self.listed)})")


async def unreachable_nodes(page: Any) -> set[int]:
    """Backend ids of the nodes a page's scripts cannot reach: inside user-agent shadow
    roots (a file field's button, a media element's controls) and CSS pseudo-elements (the
    text of ``::before`` / ``::after``). Chrome lists some; the page engine puts their
    text in names but lists no line for them."""
    from cdpkit import cdp

    document = (await page.send(cdp.dom.get_document(depth=-1, pierce=True))).root
    inside: set[int] = set()

    def visit(node: Any, hidden: bool) -> None:
        if hidden:
            inside.add(int(node.backend_node_id))
        for child in node.children or []:
            visit(child, hidden)
        for root in node.shadow_roots or []:
            visit(root, hidden or root.shadow_root_type == "user-agent")
        for pseudo in node.pseudo_elements or []:
            visit(pseudo, True)

    visit(document, False)
    return inside


async def _case_of(page: Any, backend_id: int) -> int | None:
    """The number of the generated document holding a node (for a disagreement's report)."""
    from cdpkit import cdp

    resolved = await page.send(cdp.dom.resolve_node(backend_node_id=cdp.dom.BackendNodeId(
        backend_id)))
    object_id = resolved.object.object_id
    if object_id is None:
        return None
    result = await page.send(cdp.runtime.call_function_on(
        "function() { let n = this; while (n && !(n.dataset && n.dataset.case)) "
        "n = n.parentNode || n.host; return n ? Number(n.dataset.case) : null; }",
        object_id=object_id, return_by_value=True))
    await page.send(cdp.runtime.release_object(object_id))
    value = result.result.value
    return value if isinstance(value, int) else None


class PageServer(http.server.ThreadingHTTPServer):
    """Serves the page of the batch being compared on 127.0.0.1 (from a thread). A data:
    URL would do, but each one is an opaque origin, a new renderer process."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pages: dict[str, bytes] = {}
        self.count = 0

    def publish(self, html: str) -> str:
        """Serve ``html`` at a new address; the address."""
        self.count += 1
        path = f"/generated/{self.count}.html"
        self.pages = {path: html.encode()}
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: PageServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = self.server.pages.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")


@contextlib.contextmanager
def serving() -> Iterator[PageServer]:
    server = PageServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


async def compare_page(page: Any, url: str, cases: list[str] | None = None) -> Agreement:
    """Load ``url`` in ``page`` and match the two outlines node by node; a disagreement
    names the document (of ``cases``, the HTML of each) it happened in."""
    from benchmarks.cases.outline_fidelity import chrome_lines, engine_lines
    from cdpkit import tools

    await tools.navigate(page, url)
    chrome = await chrome_lines(page)
    engine = await engine_lines(page)
    hidden = await unreachable_nodes(page)
    chrome = {key: line for key, line in chrome.items() if key not in hidden}
    figures = Agreement(pages=1)
    keys = chrome.keys() | engine.keys()
    figures.nodes = len(keys)
    for key in sorted(keys):
        ours, theirs = engine.get(key), chrome.get(key)
        if ours is not None and theirs is not None:
            figures.listed += 1
            figures.roles += ours.role == theirs.role
            figures.names += ours.name == theirs.name
            if (ours.role, ours.name) == (theirs.role, theirs.name):
                figures.agree += 1
                continue
        if cases is not None:
            said = lambda line: "-" if line is None else f"{line.role} {line.name!r}"  # noqa: E731
            number = await _case_of(page, key)
            html = cases[number] if number is not None and number < len(cases) else "(page)"
            figures.disagreements.append((said(theirs), said(ours), html))
    return figures


def run_examples(page: Any, loop: asyncio.AbstractEventLoop, server: PageServer, examples: int,
                 seed: int | None, on_batch: Callable[[Agreement], None]) -> None:
    """Draw ``examples`` batches with hypothesis (in this thread) and compare each in
    ``page`` (on ``loop``, which runs elsewhere); ``seed`` fixes the draws."""

    @settings(max_examples=examples, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=("generate",))
    @given(batches)
    def check(batch: list[list[Element | str]]) -> None:
        cases = case_html(batch)
        future = asyncio.run_coroutine_threadsafe(
            compare_page(page, server.publish(page_html(cases)), cases), loop)
        on_batch(future.result(timeout=120))

    if seed is not None:
        check = hypothesis.seed(seed)(check)
    check()


async def agreement(page: Any, examples: int, seed: int | None = 0) -> Agreement:
    """The agreement over ``examples`` generated batches loaded in ``page``."""
    total = Agreement()
    loop = asyncio.get_running_loop()
    with serving() as server:
        await asyncio.to_thread(run_examples, page, loop, server, examples, seed, total.add)
    return total


# -- on its own -------------------------------------------------------------------------------

EXAMPLES = 300  # batches in the long run (about 1,000 documents)


async def _main(examples: int, seed: int | None, show: int) -> str:
    import cdpkit
    from benchmarks.cases.snapshot_peers import chrome_path

    async with cdpkit.launch(executable_path=chrome_path()) as browser:
        page = await browser.new_page()
        total = await agreement(page, examples, seed)
    return report(total, show)


def report(total: Agreement, show: int) -> str:
    """The figures, then the disagreements: the smallest documents first."""
    lines = [total.summary(), ""]
    for chrome, engine, html in sorted(total.disagreements, key=lambda d: len(d[2]))[:show]:
        lines.append(f"chrome {chrome} / engine {engine}\n    {html}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--examples", type=int, default=EXAMPLES, help="batches to draw")
    parser.add_argument("--seed", type=int, default=None, help="fix the draws")
    parser.add_argument("--show", type=int, default=40, help="disagreements to print")
    args = parser.parse_args(argv)
    print(asyncio.run(_main(args.examples, args.seed, args.show)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
