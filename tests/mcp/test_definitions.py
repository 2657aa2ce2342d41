"""The MCP server without a browser: tool definitions generated from the tool functions,
the command line, and what happens without the ``mcp`` extra."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdpkit import tools
from cdpkit.mcp import _render, _tools
from cdpkit.mcp._schema import describe
from cdpkit.mcp._text import TOOL_TEXT
from cdpkit.mcp._tools import (
    BrowserSession,
    Image,
    ServerOptions,
    Text,
    ToolArgumentError,
    build_tools,
    mcp_words,
    parse_docstring,
)
from cdpkit.mcp._urls import UrlPolicy
from cdpkit.mcp_server import INSTALL_HINT, parse_http

from .conftest import EXPECTED_TOOLS, ROOT


def _specs(allow_js: bool = False) -> dict[str, _tools.ToolSpec]:
    return {spec.name: spec for spec in build_tools(ServerOptions(allow_js=allow_js))}


def test_every_design_tool_is_there_and_execute_js_only_when_allowed() -> None:
    assert set(_specs()) == EXPECTED_TOOLS
    assert set(_specs(allow_js=True)) == EXPECTED_TOOLS | {"browser_execute_js"}


def test_schemas_come_from_signatures_without_the_page() -> None:
    for spec in build_tools(ServerOptions(allow_js=True)):
        properties = spec.input_schema["properties"]
        assert "page" not in properties and "browser" not in properties, spec.name
        assert spec.description, spec.name
        # Unknown arguments are refused when called (test_arguments_are_validated...),
        # not said in every schema.
        assert "additionalProperties" not in spec.input_schema, spec.name
    specs = _specs()
    navigate = specs["browser_navigate"].input_schema
    assert navigate["required"] == ["url"]
    wait_until = navigate["properties"]["wait_until"]
    assert (wait_until["default"], wait_until["enum"]) == (
        "usable",  # over MCP a page is there when it is usable, not at its load event
        ["load", "domcontentloaded", "networkidle", "commit", "usable"],
    )
    assert navigate["properties"]["url"] == {"description": "An absolute URL.", "type": "string"}
    # Sequence[str] and os.PathLike become JSON lists and strings.
    paths = specs["browser_upload_file"].input_schema["properties"]["paths"]
    assert paths["anyOf"] == [{"type": "string"}, {"items": {"type": "string"}, "type": "array"}]
    # Optional parameters say only their type; defaults that say nothing are left out.
    click = specs["browser_click"].input_schema["properties"]
    assert click["modifiers"] == {"items": {"type": "string"}, "type": "array"}
    assert click["index"] == {"type": "integer"}
    assert click["click_count"]["default"] == 1
    # The server chooses where downloads go; the tuning knob of scrape is left out.
    assert "dest_dir" not in specs["browser_download"].input_schema["properties"]
    assert "smart_wait" not in specs["browser_scrape"].input_schema["properties"]
    # Snapshot with a budget for agents and its scopes, and with every filter.
    snapshot_properties = specs["browser_snapshot"].input_schema["properties"]
    assert set(snapshot_properties) == {
        "max_chars", "selector", "index", "interactive_only", "depth", "diff", "boxes",
    }  # fmt: skip
    assert snapshot_properties["max_chars"]["default"] == 20_000
    assert snapshot_properties["max_chars"]["type"] == ["integer", "null"]  # null: no limit
    assert snapshot_properties["boxes"]["default"] == "interactive"
    assert set(specs["browser_get_filtered_aria_tree"].input_schema["properties"]) == {
        "max_chars", "selector", "index", "interactive_only", "depth", "diff", "roles", "name",
        "boxes",
    }  # fmt: skip


def test_descriptions_are_short_and_say_what_an_agent_needs() -> None:
    specs = _specs()
    # Without a line of its own in _text, a tool says its docstring's summary.
    assert "browser_wait" in TOOL_TEXT  # (every tool has one today; the fallback:)
    doc = parse_docstring(tools.click.__doc__)
    first_line = inspect.cleandoc(tools.click.__doc__ or "").splitlines()[0]
    assert describe(doc, page_content=False).startswith(first_line)
    assert "\n" not in describe(doc, page_content=False)
    # A parameter without a table entry keeps its docstring's first sentence.
    back = specs["browser_download"].input_schema["properties"]["initiation_timeout"]
    assert back["description"] == "Seconds for the response to start."
    # Python words become tool names and JSON words.
    assert "`null`" in specs["browser_go_back"].description
    assert "`null`" in specs["browser_snapshot"].input_schema["properties"]["max_chars"]["description"]
    assert "``" not in "".join(spec.description for spec in specs.values())
    for name in ("browser_get_visible_text", "browser_snapshot", "browser_scrape", "browser_tabs"):
        assert _tools.PAGE_CONTENT_NOTE in specs[name].description
    # Every table entry names a tool and only parameters that tool has.
    all_specs = _specs(allow_js=True)
    for name, (purpose, parameters) in TOOL_TEXT.items():
        assert name in all_specs, name
        assert purpose and "\n" not in purpose, name
        assert set(parameters) <= set(all_specs[name].input_schema["properties"]), name


def test_the_tool_list_stays_small() -> None:
    """The whole list goes with every request to the model: a regression guard on its size
    (playwright-mcp's is about 21,300 characters for 25 tools; ours holds 46)."""
    for allow_js in (False, True):
        listed = [
            {"name": s.name, "description": s.description, "inputSchema": s.input_schema}
            | ({"annotations": {"readOnlyHint": True}} if s.read_only else {})
            for s in build_tools(ServerOptions(allow_js=allow_js))
        ]
        # 60,500 before issue 19; the locators (role/name/text/label on the tools that act,
        # issue 32) cost ~760 characters, the two recording tools (issue 32) ~400.
        assert len(json.dumps(listed)) < 20_900
    # No parameter is described twice: not in the tool's description and its schema both.
    for spec in _specs().values():
        for name, prop in spec.input_schema["properties"].items():
            assert "title" not in prop, (spec.name, name)
            if "default" in prop:
                assert prop["default"] not in (None, []) and prop["default"] is not False


def test_parse_docstring_and_mcp_words() -> None:
    doc = parse_docstring(
        """Do a thing.

        More about it,
        over two lines.

        Args:
            page: The page.
            count (int): How many
                times.

        Returns:
            The result.

        Raises:
            ValueError: Never.

        A closing paragraph.
        """
    )
    assert (
        doc.description == "Do a thing.\n\nMore about it, over two lines.\n\nA closing paragraph."
    )
    assert doc.args == {"page": "The page.", "count": "How many times."}
    assert doc.returns == "The result."
    assert mcp_words("see :func:`~cdpkit.tools.snapshot` and ``wait_for``") == (
        "see `browser_snapshot` and `browser_wait_for`"
    )
    assert (
        mcp_words("``mousedown``/``click`` events; ``None``")
        == "`mousedown`/`click` events; `null`"
    )
    assert mcp_words("take one with snapshot() first") == "take one with browser_snapshot first"


def test_parse_docstring_keeps_body_text_around_the_sections() -> None:
    """Only the sections the tools use are sections: ``Example:`` stays text, and a body
    paragraph between ``Args:`` and ``Returns:`` (as ``snapshot`` has) stays in the
    description."""
    doc = parse_docstring(
        """Summary
        wrapped.

        Example:
            x = 1

        Args:
            **options: Passed on.

        With filters, fewer nodes.

        Returns:
            ok: a thing.
        """
    )
    assert doc.description == "Summary wrapped.\n\nExample: x = 1\n\nWith filters, fewer nodes."
    assert doc.args == {"options": "Passed on."}
    assert doc.returns == "ok: a thing."


def test_arguments_are_validated_and_only_given_ones_passed() -> None:
    click = _specs()["browser_click"]
    assert click.arguments({"index": 3}) == {"index": 3}
    assert click.arguments({"selector": "#a", "modifiers": ("Shift",)}) == {
        "selector": "#a",
        "modifiers": ["Shift"],
    }
    with pytest.raises(ToolArgumentError, match=r"^Invalid arguments for browser_click: index: "):
        click.arguments({"index": "x"})
    with pytest.raises(ToolArgumentError, match="bogus: Extra inputs are not permitted"):
        click.arguments({"bogus": 1})


def test_large_downloads_are_reported_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = BrowserSession(ServerOptions(downloads=tmp_path))
    image = tmp_path / "a.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    result = tools.DownloadResult(True, "a.png", str(image), 108, "image/png", "http://x/a.png")
    parts = _tools.render_download(result, session)
    assert json.loads(parts[0].text)["path"] == str(image)  # type: ignore[union-attr]
    assert parts[1] == Image(image.read_bytes(), "image/png")

    monkeypatch.setattr(_render, "MAX_INLINE_BYTES", 100)
    parts = _tools.render_download(result, session)
    assert len(parts) == 2 and isinstance(parts[1], Text)
    assert f"saved at {image}" in parts[1].text


def test_parse_http() -> None:
    assert parse_http("8931") == ("127.0.0.1", 8931)
    assert parse_http(":8931") == ("127.0.0.1", 8931)
    assert parse_http("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_http("[::1]:8931") == ("::1", 8931)
    for bad in ("localhost", "host:0", "::1:80", "host:70000"):
        with pytest.raises(ValueError):
            parse_http(bad)


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_importing_the_server_module_does_not_import_mcp() -> None:
    out = _run(
        "import sys, cdpkit, cdpkit.tools, cdpkit.mcp_server, cdpkit.mcp._tools; "
        "print('mcp' in sys.modules, 'uvicorn' in sys.modules)"
    )
    assert out.stdout.strip() == "False False", out.stderr


def test_without_the_extra_it_says_how_to_install_it() -> None:
    # The mcp package made unimportable, then `python -m cdpkit.mcp_server` run.
    out = _run(
        "import runpy, sys; sys.modules['mcp'] = None; sys.argv = ['cdpkit.mcp_server']; "
        "runpy.run_module('cdpkit.mcp_server', run_name='__main__')"
    )
    assert out.returncode == 1
    assert out.stderr.strip() == INSTALL_HINT
    assert "pip install 'cdpkit-browser[mcp]'" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_options_exit_2_with_the_reason() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cdpkit.mcp_server", "--http", "nohost:port"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2
    assert "--http takes HOST:PORT" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "cdpkit.mcp_server", "--connect", "http://127.0.0.1:9222", "--headful"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "--connect" in out.stderr


@pytest.mark.parametrize("entry", [("-m", "cdpkit.mcp_server"), ("-m", "cdpkit", "mcp")])
def test_an_origin_with_a_path_exits_2_with_the_reason(entry: tuple[str, ...]) -> None:
    out = subprocess.run(
        [sys.executable, *entry, "--allowed-origins", "https://example.com/login"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "Origin 'https://example.com/login' has a path" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_url_policy_is_told_to_the_model_where_urls_are_given() -> None:
    policy = UrlPolicy.from_options(allowed_origins="https://example.com")
    specs = {spec.name: spec for spec in build_tools(ServerOptions(url_policy=policy))}
    for name in ("browser_navigate", "browser_tabs", "browser_download", "browser_scrape"):
        assert "only these web origins are allowed: https://example.com" in specs[name].description
    assert "url_policy" not in specs["browser_tabs"].input_schema["properties"]
    # browser_download keeps its description and schema.
    assert specs["browser_download"].description.startswith("Download a URL")
    assert {"url", "selector", "index"} <= set(specs["browser_download"].input_schema["properties"])
    assert "only these" not in _specs()["browser_navigate"].description
