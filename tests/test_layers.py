"""The floors of cdpkit point down: no hand-written module imports one above it, and no
hand-written modules import each other in a cycle.

Floors, bottom to top: the generated bindings with ``_model`` and ``codegen``; the
protocol core (errors, transport, connection, session, launcher, profiles); browser and
page; the tools; the front ends' floor (the options table, the config file, "options ->
running browser", error wording); the daemon (handed to the floor below as a source of
browsers); the programs (CLI, REPL, MCP, TUI). The walk is static (``ast``): every
``import`` counts, also those inside functions, except under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import urllib.parse
from pathlib import Path

import pytest

import cdpkit
from tests.server import FixtureServer, closed_port

PACKAGE = Path(__file__).parent.parent / "cdpkit"

# Module (dotted, relative to cdpkit) or package prefix ending in "." -> floor.
FLOORS: dict[str, int] = {
    "cdp.": 0,
    "codegen.": 0,
    "_model": 0,
    "errors": 1,
    "connection": 1,
    "session": 1,
    "launcher": 1,
    # The protocol core's private modules: the transport, the wire, a session's calls (their
    # JSON text and timeouts) and subscriptions, launching Chrome (by concern in launching/),
    # profiles, endpoints, URLs as the URL standard reads them, secrets' masking, the files
    # that hold credentials, the private runtime folder, fire-and-forget tasks.
    "_core": 1,
    "_core.": 1,
    "_core.lazy": 0,  # the lazy exports of cdpkit's packages: imports nothing of cdpkit
    "_core.keywords": 0,  # a typing helper: imports nothing of cdpkit
    # The extension bridge: a process of its own (stdlib and websockets), and where it is
    # (bridge.json), which connect("extension") reads.
    "_bridge": 1,
    "_bridge.": 1,
    "page": 2,
    "browser": 2,
    # What Browser and Page stand on: launch/connect/attach, navigation and its waits,
    # parser-blocking scripts, frames, the settings and the config file's reader (beside the
    # options table), the settings applied to a page and to cdpkit's own requests, storage,
    # the pool and the grid.
    "_browser": 2,
    "_browser.": 2,
    # The package re-exports the core (floor 2) and imports the tools only lazily, in
    # __getattr__; that import is the one allowed to go up (a re-export, not a use); so are
    # the browse engine's names (cdpkit.browse, cdpkit.engine...).
    "__init__": 2,
    "tools.": 3,
    # The extraction pipeline (HTML in; blocks, main content, markdown, text out): below the
    # tools, which scrape with it, and the browse engine, which drives the browser and the
    # tools (scrape's wait).
    "_extraction": 2,
    "_extraction.": 2,
    "_browse.": 3,
    # The front ends' floor: the options table, "options -> running browser", error wording,
    # the protocol's names for the front ends.
    "_front": 4,
    "_front.": 4,
    "pytest_plugin": 4,
    "sync.": 4,  # blocking twins of the whole public API (browser, tools, browse engine)
    # The daemon sits above the front ends' floor, which is handed it as a source of
    # browsers; its command runner runs the CLI itself.
    "_daemon.": 5,
    "_daemon._worker": 6,
    "cli": 6,
    "cli.": 6,
    "_tui.": 6,  # cdpkit tui: at the CLI's floor; core, tools and browse never import it
    "repl": 6,
    "repl.": 6,
    "mcp": 6,
    "mcp.": 6,
    "mcp_server": 6,
    "__main__": 6,
}
FLOOR_NAMES = ["bindings", "core", "browser/page", "tools", "front ends", "daemon", "programs"]
ALLOWED_UPWARD = {("__init__", "tools"), ("__init__", "_browse")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()  # the package itself; cdpkit/__init__.py is ""
    return ".".join(parts)


def _floor(module: str) -> int:
    if module in FLOORS:
        return FLOORS[module]
    for prefix, floor in FLOORS.items():
        if prefix.endswith(".") and (module + ".").startswith(prefix):
            return floor
    raise AssertionError(f"cdpkit.{module} has no floor: add it to FLOORS in {__file__}")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, int]]:
    """``(imported cdpkit module, line)`` for every import outside ``if TYPE_CHECKING:``."""
    found: list[tuple[str, int]] = []
    parts = module.split(".") if module else []
    package = parts if is_package else parts[:-1]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "cdpkit" or alias.name.startswith("cdpkit."):
                    found.append((alias.name.removeprefix("cdpkit").lstrip("."), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = [*base, *(node.module.split(".") if node.module else [])]
            elif node.module and (node.module == "cdpkit" or node.module.startswith("cdpkit.")):
                target = node.module.split(".")[1:]
            else:
                target = None
            if target is not None:
                for alias in node.names:
                    # `from . import cdp` imports a module; `from .page import Page` a name.
                    candidate = ".".join([*target, alias.name])
                    if _exists(candidate):
                        found.append((candidate, node.lineno))
                    else:
                        found.append((".".join(target), node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _exists(module: str) -> bool:
    path = PACKAGE.joinpath(*module.split(".")) if module else PACKAGE
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _hand_written() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "cdp" not in path.relative_to(PACKAGE).parts[:1]
    }


def _graph() -> dict[str, list[tuple[str, int]]]:
    graph: dict[str, list[tuple[str, int]]] = {}
    for module, path in _hand_written().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        imports = _imports(tree, module if module else "", path.name == "__init__.py")
        graph[module] = [(target, line) for target, line in imports if target != module]
    return graph


def _label(module: str) -> str:
    return f"cdpkit.{module}" if module else "cdpkit"


def _where(module: str, line: int) -> str:
    path = _hand_written()[module]
    return f"{path.relative_to(PACKAGE.parent)}:{line}"


def test_every_module_has_a_floor() -> None:
    for module in _hand_written():
        _floor(module or "__init__")


def test_no_import_goes_up_a_floor() -> None:
    upward = []
    for module, imports in _graph().items():
        own = module or "__init__"
        for target, line in imports:
            if not target:
                continue
            if _floor(target) > _floor(own) and (own, target.split(".")[0]) not in ALLOWED_UPWARD:
                upward.append(
                    f"{_where(module, line)}: {_label(module)} ({FLOOR_NAMES[_floor(own)]}) imports "
                    f"{_label(target)} ({FLOOR_NAMES[_floor(target)]})"
                )
    assert not upward, "imports that go up a floor:\n" + "\n".join(upward)


def _cycle(graph: dict[str, list[tuple[str, int]]]) -> list[tuple[str, str, int]] | None:
    """One import cycle among hand-written modules, as ``(importer, imported, line)`` steps."""
    edges = {
        module: [(t, line) for t, line in imports if t in graph and t != module]
        for module, imports in graph.items()
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[tuple[str, str, int]] = []

    def visit(module: str) -> list[tuple[str, str, int]] | None:
        state[module] = 1
        for target, line in edges[module]:
            path.append((module, target, line))
            if state.get(target) == 1:
                start = next(i for i, step in enumerate(path) if step[0] == target)
                return path[start:]
            if target not in state:
                found = visit(target)
                if found:
                    return found
            path.pop()
        state[module] = 2
        return None

    for module in edges:
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def _without_package_edges(graph: dict[str, list[tuple[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    # A submodule's import runs its package's __init__ first; that is Python's doing, not
    # an import the code wrote, so package inits do not count as imported by children.
    return {
        module: [(t, line) for t, line in imports if not module.startswith(f"{t}.") and t]
        for module, imports in graph.items()
    }


def test_no_import_cycle_among_hand_written_modules() -> None:
    cycle = _cycle(_without_package_edges(_graph()))
    assert cycle is None, "import cycle:\n" + "\n".join(
        f"{_where(a, line)}: {_label(a)} imports {_label(b)}" for a, b, line in cycle
    )


def test_the_walk_sees_imports_inside_functions_and_skips_type_checking() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .errors import CDPError\n"
        "if TYPE_CHECKING:\n"
        "    from .browser import Browser\n"
        "def f():\n"
        "    from .tools.navigation import navigate\n"
        "    from . import cdp\n"
    )
    imports = _imports(ast.parse(source), "page", is_package=False)
    assert [target for target, _ in imports] == ["errors", "tools.navigation", "cdp"]


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"cli": [("repl", 3)], "repl": [("cli", 7)]}, [("cli", "repl", 3), ("repl", "cli", 7)]),
        ({"cli": [("repl", 3)], "repl": []}, None),
    ],
)
def test_the_cycle_finder_names_each_import(
    graph: dict[str, list[tuple[str, int]]], expected: list[tuple[str, str, int]] | None
) -> None:
    assert _cycle(graph) == expected


# -- no reaching into the core's private attributes ------------------------------------------

# The core classes whose private attributes (``page._console``...) only their own modules use.
# Base classes first, so a name is reported on the class that defines it.
CORE_CLASSES = {
    "session": ["Session"],
    "connection": ["Connection"],
    "page": ["Page"],
    "browser": ["Browser"],
}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _core_private_names() -> dict[str, str]:
    """Every private attribute or method of the core classes -> the class defining it:
    methods, properties and ``self._name`` attributes they set or read."""
    names: dict[str, str] = {}
    for module, classes in CORE_CLASSES.items():
        tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ClassDef) and node.name in classes):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef) and _is_private(
                    inner.name
                ):
                    names.setdefault(inner.name, node.name)
                elif (
                    isinstance(inner, ast.Attribute)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id == "self"
                    and _is_private(inner.attr)
                ):
                    names.setdefault(inner.attr, node.name)
    return names


def _above_the_core() -> list[str]:
    """The modules that must use the core through its public API only."""
    tools = FLOOR_NAMES.index("tools")
    return [module for module in _hand_written() if module and _floor(module) >= tools]


def _private_accesses(tree: ast.AST, private: dict[str, str]) -> list[tuple[str, int]]:
    """``(attribute, line)`` of each ``x._name`` where ``_name`` is a core class's private
    name and ``x`` is not ``self``/``cls`` (a module's own classes may use their own)."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in private
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            found.append((node.attr, node.lineno))
    return sorted(found, key=lambda item: item[1])


def test_tools_and_programs_touch_no_private_attribute_of_page_session_browser_connection() -> None:
    private = _core_private_names()
    assert {"_console", "_closed_error", "_connection", "_on"} <= private.keys()
    offenders = []
    for module in _above_the_core():
        path = _hand_written()[module]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for attr, line in _private_accesses(tree, private):
            offenders.append(
                f"{_where(module, line)}: {_label(module)} reads {private[attr]}.{attr}; "
                f"add a public method to {private[attr]} instead"
            )
    assert not offenders, "private access from above the core:\n" + "\n".join(offenders)


def test_the_private_access_walk_finds_reads_calls_and_writes_but_not_self() -> None:
    source = (
        "def f(page, session):\n"
        "    page._console.clear()\n"
        "    session._on('X.y', print)\n"
        "    page._closed_error = None\n"
        "    page.console_entries()\n"
        "class C:\n"
        "    def g(self):\n"
        "        return self._console\n"
    )
    private = {"_console": "Page", "_on": "Session", "_closed_error": "Session"}
    assert _private_accesses(ast.parse(source), private) == [
        ("_console", 2),
        ("_on", 3),
        ("_closed_error", 4),
    ]


# `Browser.new_page(url=)` navigates with the primitive that now sits below the tools
# (cdpkit/_browser/navigation.py); it behaves as `tools.navigate` does.


async def test_new_page_url_waits_for_the_load_event(
    context: cdpkit.BrowserContext, server: FixtureServer
) -> None:
    # The load event waits for the image, which the server sends after half a second.
    url = "data:text/html," + urllib.parse.quote(f'<img src="{server.url("/slow?s=0.5")}">')
    page = await context.new_page(url)
    state = await page.call(
        "Runtime.evaluate",
        {"expression": "[document.readyState, document.images[0].complete]", "returnByValue": True},
    )
    assert state["result"]["value"] == ["complete", True]


async def test_new_page_url_raises_navigation_error_naming_the_url(
    context: cdpkit.BrowserContext,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/nothing"
    with pytest.raises(cdpkit.NavigationError) as caught:
        await context.new_page(url)
    assert caught.value.url == url
    assert caught.value.error_text == "net::ERR_CONNECTION_REFUSED"
    assert url in str(caught.value)


def _underscored_imports(tree: ast.AST) -> list[tuple[str, int]]:
    """``(name, line)`` of every ``from X import _name`` (a module or a name)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((alias.name, node.lineno))
    return found


def test_no_module_imports_a_name_another_module_keeps_private() -> None:
    # A private module (`from . import _grid`) is fine: the package shares it.
    private_modules = {path.stem for path in PACKAGE.rglob("_*.py")} | {
        path.parent.name for path in PACKAGE.rglob("__init__.py")
    }
    offenders = []
    for module, path in _hand_written().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name, line in _underscored_imports(tree):
            if name not in private_modules:
                offenders.append(f"{_where(module, line)}: {_label(module)} imports {name}")
    assert not offenders, (
        "names kept private by their module, imported by another (drop the underscore, or "
        "move the code to where it is used):\n" + "\n".join(offenders)
    )


def test_the_underscored_import_walk_finds_names_not_modules_nor_aliases() -> None:
    source = (
        "from .files import _extension, download\n"
        "from ..cdp.input_ import dispatch_key_event as _dispatch\n"
        "def f():\n"
        "    from .information import _message\n"
    )
    assert _underscored_imports(ast.parse(source)) == [("_extension", 1), ("_message", 4)]


# -- no package reaches into another package's private modules -------------------------------

# A private module (``_engine``) belongs to the package that holds it (``cdpkit._browse``):
# modules inside that package import it; any other module imports what the package's
# ``__init__`` names, a small surface it keeps (lazily, where a load costs). The top-level
# private modules (``cdpkit._core.urls``...) are cdpkit's own and the floors govern them.
# The generated bindings' tables (``cdp._registry``, ``cdp._docs``) are read by two modules
# only: their runtime and the one reader of the protocol's names for the front ends
# (cdpkit.cdp's ``__init__`` is written by codegen and names the domains alone).
PRIVATE_READERS: dict[str, set[str]] = {"cdp": {"_model", "_front.protocol_docs"}}


def _package(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def _keeper(target: str) -> str | None:
    """The package that keeps ``target`` private: the one holding its last private part
    (``None`` for a public module, ``""`` for cdpkit's own private modules)."""
    parts = target.split(".")
    for i in range(len(parts) - 1, -1, -1):
        if _is_private(parts[i]):
            return ".".join(parts[:i])
    return None


def _private_reach(
    module: str, is_package: bool, imports: list[tuple[str, int]]
) -> list[tuple[str, int]]:
    """``(target, line)`` of each import of a module another package keeps private."""
    package = _package(module, is_package)
    found = []
    for target, line in imports:
        keeper = _keeper(target)
        if keeper is None or keeper in ("", package) or package.startswith(f"{keeper}."):
            continue
        if module in PRIVATE_READERS.get(keeper, set()):
            continue
        if (target, line) not in found:
            found.append((target, line))
    return found


def test_no_package_imports_another_packages_private_modules() -> None:
    offenders = []
    paths = _hand_written()
    for module, imports in _graph().items():
        is_package = paths[module].name == "__init__.py"
        for target, line in _private_reach(module, is_package, imports):
            offenders.append(
                f"{_where(module, line)}: {_label(module)} imports {_label(target)}, private to "
                f"{_label(_keeper(target) or '')}"
            )
    assert not offenders, (
        "private modules of another package (import the name from the package, whose "
        "__init__ names what other packages use):\n" + "\n".join(offenders)
    )


def test_the_private_reach_walk_tells_a_packages_surface_from_its_private_modules() -> None:
    source = (
        "from .._urls import parse_url\n"
        "from .._browse import Engine\n"
        "from .._browse._engine import engine\n"
        "from ._app import app\n"
        "def f():\n"
        "    from ..tools import _locating\n"
        "    from ..tools._snapshot import Snapshot\n"
        "    from ..cdp import _registry\n"
    )
    imports = _imports(ast.parse(source), "cli._pages", is_package=False)
    assert _private_reach("cli._pages", False, imports) == [
        ("_browse._engine", 3),
        ("tools._locating", 6),
        ("tools._snapshot", 7),
        ("cdp._registry", 8),
    ]
    # Inside a package its private modules are its own, but not those of a package inside it.
    inner = "from ._snapshot import Snapshot\nfrom ._snapshot._views import fit_budget\n"
    imports = _imports(ast.parse(inner), "tools.scraping", is_package=False)
    assert _private_reach("tools.scraping", False, imports) == [("tools._snapshot._views", 2)]
    assert _private_reach("_front.protocol_docs", False, [("cdp._registry", 9)]) == []


def test_the_root_holds_the_public_modules_and_one_private_package_per_floor() -> None:
    # A newcomer reads the layers off the folder names (docs/architecture.md, "The root").
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    assert modules == {
        "__init__", "__main__", "_model", "browser", "connection", "errors", "launcher",
        "mcp_server", "page", "pytest_plugin", "session",
    }  # fmt: skip
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages == {
        "_bridge", "_browse", "_browser", "_core", "_daemon", "_extraction", "_front", "_tui",
        "cdp", "cli", "codegen", "mcp", "repl", "sync", "tools",
    }  # fmt: skip
