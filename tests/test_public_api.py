"""The curated public surface: what `import cdpkit` gives and what it costs."""

from __future__ import annotations

import subprocess
import sys

import cdpkit


def test_all_is_sorted_and_complete() -> None:
    assert cdpkit.__all__ == sorted(cdpkit.__all__)
    for name in cdpkit.__all__:
        assert hasattr(cdpkit, name), name


def test_exported_objects_claim_to_be_public() -> None:
    for name in cdpkit.__all__:
        obj = getattr(cdpkit, name)
        module = getattr(obj, "__module__", None)
        if module is not None and isinstance(obj, type):
            assert module.startswith("cdpkit"), (name, module)


def test_every_error_is_exported() -> None:
    from cdpkit import errors

    assert set(errors.__all__) <= set(cdpkit.__all__)
    assert issubclass(cdpkit.CommandTooLargeError, ValueError)
    assert issubclass(cdpkit.ConnectTimeoutError, cdpkit.ConnectError)
    assert issubclass(cdpkit.ConnectTimeoutError, TimeoutError)


def test_import_cdpkit_stays_light() -> None:
    code = (
        "import sys, cdpkit; "
        "print(sorted(m for m in sys.modules if m.startswith('cdpkit.cdp.'))); "
        "print('typer' in sys.modules, 'cdpkit.tools' in sys.modules, 'markdownify' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    domains, flags = out.stdout.splitlines()
    assert domains == "[]", f"import cdpkit imported domain modules: {domains}"
    assert flags == "False False False"


def test_one_tool_loads_only_its_own_module() -> None:
    # A one-shot `cdpkit screenshot` imports the screenshot tool, not the HAR recorder,
    # the network log or the snapshot engines; every tool is still there when asked for.
    others = ["cdpkit.tools.har", "cdpkit.tools.network", "cdpkit.tools.accessibility"]
    code = (
        "import sys; from cdpkit.tools import screenshot; "
        f"print([m for m in {others!r} if m in sys.modules]); "
        "from cdpkit import tools; "
        "print(all(callable(getattr(tools, name)) for name in tools.__all__), tools.har.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, everything = out.stdout.splitlines()
    assert loaded == "[]", f"importing tools.screenshot loaded {loaded}"
    assert everything == "True cdpkit.tools.har"


def test_import_cdpkit_loads_the_browse_engine_only_when_used() -> None:
    heavy = ["httpx", "selectolax", "trafilatura", "pypdf", "PIL", "cdpkit._browse"]
    code = (
        "import sys, cdpkit; "
        f"print([m for m in {heavy!r} if m in sys.modules]); "
        "cdpkit.browse; "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "[]", f"import cdpkit imported {before}"
    assert "'cdpkit._browse'" in after and "'httpx'" in after


def test_the_browse_api_is_exported() -> None:
    import inspect

    for name in ("browse", "engine", "Engine", "BrowseResult", "BrowseError"):
        assert name in cdpkit.__all__, name
    assert issubclass(cdpkit.BrowseError, cdpkit.CDPError)
    parameters = inspect.signature(cdpkit.browse).parameters
    for option in (
        "format", "selectors", "exclude_selectors", "keywords", "keyword_mode", "query",
        "max_tokens", "readability", "include_media", "max_tier", "tier", "timeout",
    ):  # fmt: skip
        assert parameters[option].kind is inspect.Parameter.KEYWORD_ONLY, option


def test_readme_test_command_is_what_ci_runs() -> None:
    from pathlib import Path

    root = Path(__file__).parent.parent
    readme_lines = (root / "README.md").read_text().splitlines()
    commands = [line.split("#")[0].strip() for line in readme_lines[:6] if line.startswith("bash ")]
    assert len(commands) == 2, commands
    assert commands[1] in (root / ".ci" / "run").read_text()


def test_every_designed_tool_is_exported_from_tools() -> None:
    from cdpkit import tools

    assert tools.__all__ == sorted(tools.__all__)
    designed = [
        "navigate",
        "go_back",
        "go_forward",
        "reload",
        "wait",
        "wait_for",
        "click",
        "hover",
        "type_text",
        "press_key",
        "mouse_move",
        "mouse_down",
        "mouse_up",
        "mouse_wheel",
        "key_down",
        "key_up",
        "drag",
        "select_option",
        "upload_file",
        "handle_dialog",
        "snapshot",
        "screenshot",
        "console_logs",
        "evaluate",
        "pdf",
        "query_dom",
        "visible_text",
        "computed_styles",
        "check_visibility",
        "get_attributes",
        "count_elements",
        "page_metadata",
        "find_by_text",
        "form_values",
        "element_state",
        "dom_tree",
        "list_tabs",
        "new_tab",
        "switch_tab",
        "close_tab",
        "download",
        "expect_download",
        "scrape",
        "wait_for_content",
    ]
    for name in designed:
        assert name in tools.__all__ and callable(getattr(tools, name)), name
