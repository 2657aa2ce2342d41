"""The documentation site builds (``mkdocs build --strict``: no broken link, no unresolved
reference), renders the docstrings' Sphinx roles as links, and its Python examples call
functions that exist with arguments they take.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cdpkit
import cdpkit.sync as sync
from cdpkit import cdp, tools
from tests._head_start import HeadStart, Run

ROOT = Path(__file__).parent.parent.parent
DOCS = ROOT / "docs"
_PYTHON_BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)


def _build_site(scratch: Path, run: Run) -> Path:
    """The site, built once with ``mkdocs build --strict``."""
    out = scratch / "site"
    built = run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        300,
        cwd=ROOT,
        env={"NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.output[-4000:]}"
    return out


# Started at collection: the build computes on its own while other tests wait on the browser.
SITE = HeadStart("site", _build_site, computes=True, order=3)


@pytest.fixture(scope="module")
def site() -> Path:
    return SITE.result(900)


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_the_site_builds_strict_with_every_page_of_the_nav(site: Path) -> None:
    for page in [
        "index.html",
        "getting-started/index.html",
        "tools/input/index.html",
        "bindings/index.html",
        "cli/index.html",
        "repl/index.html",
        "mcp/index.html",
        "remote/index.html",
        "pytest/index.html",
        "troubleshooting/index.html",
        "api/page/index.html",
        "api/tools/pointer/index.html",
        "api/cdp-runtime/index.html",
    ]:
        assert (site / page).is_file(), f"{page} was not built"


def test_the_page_reference_lists_send_and_the_other_session_methods(site: Path) -> None:
    html = (site / "api/page/index.html").read_text()
    for method in ["send", "send_json", "call", "listen", "wait_for", "expect", "close"]:
        assert f'id="cdpkit.Page.{method}"' in html, f"Page.{method} missing from the API page"


def test_the_input_tools_page_shows_click_with_its_reference(site: Path) -> None:
    html = (site / "tools/input/index.html").read_text()
    assert "tools.click(page, selector=" in _text(html)
    reference = (site / "api/tools/pointer/index.html").read_text()
    assert 'id="cdpkit.tools.pointer.click"' in reference


def test_sphinx_roles_render_as_links_not_as_literal_markup(site: Path) -> None:
    pages = list((site / "api").rglob("*.html"))
    assert len(pages) >= 15
    for page in pages:
        text = _text(page.read_text())
        for leftover in (":class:`", ":func:`", ":meth:`", ":attr:`", ":mod:`", ":data:`", "``"):
            assert leftover not in text, f"{leftover!r} left in {page.relative_to(site)}"
    # A role naming a documented object is a link to it: wait_for_content's docstring
    # says :func:`~cdpkit.tools.navigate` and :class:`SmartWait`.
    scraping = (site / "api/tools/scraping/index.html").read_text()
    assert re.search(
        r'<a class="autorefs[^"]*"[^>]*href="[^"]*#cdpkit\.tools\.scraping\.SmartWait"', scraping
    )
    assert re.search(
        r'href="[^"]*navigation/#cdpkit\.tools\.navigation\.navigate"[^>]*><code>navigate\(\)</code>',
        scraping,
    )


def test_rest_literal_blocks_and_tables_render_as_markdown(site: Path) -> None:
    errors = (site / "api/errors/index.html").read_text()
    # "all under :class:`CDPError`::" then the tree as a code block.
    assert "all under" in errors and "├── ProtocolError" in errors
    assert "CDPError</a></code>::" not in errors
    tools_index = (site / "api/tools/index.html").read_text()
    assert "<table>" in tools_index and "=====" not in tools_index


def _python_blocks() -> Iterator[tuple[str, str]]:
    """(page, code) of each Python example of the docs and the README."""
    for page in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        for match in _PYTHON_BLOCK.finditer(page.read_text()):
            yield str(page.relative_to(ROOT)), match["code"]


def _parse(code: str) -> ast.Module:
    tree = compile(code, "<docs>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    assert isinstance(tree, ast.Module)
    return tree


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)):
        return f"{base}.{node.attr}"
    return None


def _lookup(dotted: str) -> Callable[..., Any] | None:
    """The callable ``tools.x``, ``cdp.domain.x``, ``cdpkit.x`` or ``sync.x`` (the docs'
    ``import cdpkit.sync as sync``) names, else None."""
    roots: dict[str, Any] = {"tools": tools, "cdp": cdp, "cdpkit": cdpkit, "sync": sync}
    head, _, rest = dotted.partition(".")
    if head not in roots or not rest:
        return None
    obj: Any = roots[head]
    for part in rest.split("."):
        assert hasattr(obj, part), f"{dotted} does not exist"
        obj = getattr(obj, part)
    return obj if callable(obj) else None


def test_the_python_examples_call_functions_that_exist_with_arguments_they_take() -> None:
    checked = 0
    for page, code in _python_blocks():
        tree = _parse(code)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (dotted := _dotted(node)):
                _lookup(dotted)  # every tools./cdp./cdpkit. name written exists
            if not isinstance(node, ast.Call) or not (dotted := _dotted(node.func)):
                continue
            function = _lookup(dotted)
            if function is None or isinstance(function, type):
                continue
            signature = inspect.signature(function)
            arguments = [ast.Constant(None)] * len(node.args)
            keywords = {keyword.arg: None for keyword in node.keywords if keyword.arg}
            try:
                signature.bind(*arguments, **keywords)
            except TypeError as error:
                raise AssertionError(f"{page}: {ast.unparse(node)}: {error}") from error
            checked += 1
    assert checked >= 60, f"only {checked} calls checked: are the examples still ```python?"


def test_every_tool_has_an_example_in_its_family_page() -> None:
    family_pages = "\n".join(page.read_text() for page in (DOCS / "tools").glob("*.md"))
    missing = [
        name
        for name in tools.__all__
        if inspect.isfunction(getattr(tools, name)) and f"tools.{name}(" not in family_pages
    ]
    assert not missing, f"tools without an example in docs/tools/: {missing}"


def test_the_cli_page_documents_every_command() -> None:
    from typer.main import get_command

    from cdpkit.cli import app

    commands = get_command(app).commands  # type: ignore[attr-defined]
    cli_page = (DOCS / "cli.md").read_text()
    missing = [name for name in commands if f"## {name}\n" not in cli_page]
    assert not missing, f"commands without a section in docs/cli.md: {missing}"


def test_the_generated_reference_tables_match_the_code() -> None:
    """docs/mcp.md's tools and options and docs/cli.md's options are written from the server's
    listing and the commands (scripts/gen_docs_tables.py): a tool, an option or a help text
    changed without them fails here."""
    import subprocess

    checked = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs_tables.py"), "--check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    import json

    listing = json.loads((ROOT / "cdpkit" / "mcp" / "_listing.json").read_text())
    mcp_page = (DOCS / "mcp.md").read_text()
    every_tool = [tool["name"] for tool in listing["tools"]["allow_js+allow_file_urls"]]
    assert len(every_tool) > 40
    missing = [name for name in every_tool if f"| `{name}` |" not in mcp_page]
    assert not missing, f"tools missing from docs/mcp.md: {missing}"
    for name in ("mcp", "browse", "screenshot", "download"):
        assert f"<!-- BEGIN GENERATED: cli-options {name} -->" in (DOCS / "cli.md").read_text()


def test_the_readme_links_to_the_docs_and_says_how_to_build_them() -> None:
    readme = (ROOT / "README.md").read_text()
    head = readme[: readme.index("## Install")]
    assert "docs/" in head and "mkdocs serve" in head
    assert "mkdocs build --strict" in readme
