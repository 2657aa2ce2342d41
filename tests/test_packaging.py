"""What a user installs: the distribution's name, the type information it ships, and the
install hints that name it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from importlib.metadata import distribution
from pathlib import Path

import pytest

import cdpkit
from tests._head_start import HeadStart, Ran, Run

ROOT = Path(__file__).resolve().parent.parent


DISTRIBUTION = "cdpkit-browser"

USER_SAMPLE = """\
import cdpkit
from cdpkit import cdp


async def f(page: cdpkit.Page) -> None:
    r = await page.send(cdp.runtime.evaluate("1"))
    reveal_type(r)
    n = await page.send(cdp.page.navigate("about:blank"))
    reveal_type(n)
    print(r.result.value_typo)
"""


def test_distribution_is_cdpkit_browser_and_installed_under_that_name() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"cdpkit": "cdpkit.cli:main"}
    installed = distribution(DISTRIBUTION)  # raises if the venv still has the old name only
    assert installed.metadata["Name"] == DISTRIBUTION


WIRE_SAMPLE = """\
import cdpkit
from cdpkit import cdp


async def f(page: cdpkit.Page) -> None:
    tree = await page.send_json(cdp.accessibility.get_full_ax_tree())
    node = tree["nodes"][0]
    reveal_type(node["nodeId"])
    reveal_type(node["backendDOMNodeId"])
    node_id: str = node["nodeId"]
    backend_id: int = node["backendDOMNodeId"]
    await page.send(cdp.dom.get_box_model(backend_node_id=node["backendDOMNodeId"]))
    print(node_id, backend_id, node["backendDomNodeId"])
"""


def _users_mypy(scratch: Path, run: Run) -> dict[str, str]:
    """``mypy --strict`` over a user's project outside the checkout holding both samples,
    type-checked against the installed package: each sample file's lines of the report,
    and the whole report under ``"all"``.

    One run for both files: checking the bindings is most of the time, and both samples
    need it with the same options. Each file's errors are counted on its own, so one
    sample's findings never stand in for the other's.
    """
    (scratch / "result_types.py").write_text(USER_SAMPLE)
    (scratch / "wire_types.py").write_text(WIRE_SAMPLE)
    out = run(
        [sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--no-error-summary",
         "--cache-dir", str(scratch / ".mypy_cache"), "result_types.py", "wire_types.py"],
        300,
        cwd=scratch,
    )
    assert out.returncode == 1, out  # both samples hold a deliberate error
    lines = out.output.splitlines()
    return {
        name: "\n".join(line for line in lines if line.startswith(f"{name}:"))
        for name in ("result_types.py", "wire_types.py")
    } | {"all": out.output}


USERS_MYPY = HeadStart("users_mypy", _users_mypy, computes=True, order=2)


@pytest.fixture(scope="module")
def users_mypy() -> dict[str, str]:
    return USERS_MYPY.result(900)


def _errors(report: str) -> list[str]:
    return [line for line in report.splitlines() if ": error:" in line]


def test_users_mypy_strict_sees_the_result_types(users_mypy: dict[str, str]) -> None:
    """A user's project, outside the checkout, type-checked against the installed package."""
    report = users_mypy["result_types.py"]
    assert "missing library stubs or py.typed marker" not in users_mypy["all"], users_mypy["all"]
    revealed = re.findall(r'Revealed type is "([^"]+)"', report)
    assert [name.rsplit(".", 1)[-1] for name in revealed] == [
        "EvaluateResult",
        "NavigateResult",
    ], report
    # The deliberate typo is caught, and it is the only error.
    assert '"RemoteObject" has no attribute "value_typo"' in report, report
    assert len(_errors(report)) == 1, report


def test_users_mypy_strict_sees_the_wire_types_of_send_json(users_mypy: dict[str, str]) -> None:
    """``send_json`` returns raw JSON, yet a user's mypy knows its keys and value types."""
    report = users_mypy["wire_types.py"]
    revealed = re.findall(r'Revealed type is "([^"]+)"', report)
    # The protocol's id types: a str and an int to mypy, and accepted by typed commands.
    assert revealed == ["cdpkit.cdp.accessibility.AXNodeId", "cdpkit.cdp.dom.BackendNodeId"], report
    # The misspelt wire name is caught, and it is the only error.
    assert '"AXNodeJSON" has no key "backendDomNodeId"' in report, report
    assert len(_errors(report)) == 1, report
    # Nothing else in the report: no error in a file other than the two samples.
    assert len(_errors(users_mypy["all"])) == 2, users_mypy["all"]


def _build(scratch: Path, run: Run) -> Path:
    """The wheel and sdist a release would upload (``python -m build``; offline: the build
    backend comes from the dev dependencies)."""
    out = scratch / "dist"
    built = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], 600)
    assert built.returncode == 0, built
    return out


def _install(scratch: Path, run: Run) -> tuple[Path, Ran]:
    """A fresh venv with the built wheel installed by its own pip, as a user does; the
    venv and pip's report. Pip spends this waiting on the package index for each
    dependency: started at collection (a head start), the suite goes on meanwhile."""
    (wheel,) = BUILT.result(900).glob("*.whl")
    venv = scratch / "venv"
    created = run([sys.executable, "-m", "venv", str(venv)], 120)
    assert created.returncode == 0, created
    python = venv / "bin" / "python"
    install = run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], 600)
    return venv, install


# The build first: the install waits on it, then mostly on the index while mypy computes.
BUILT = HeadStart("built", _build, computes=True, order=0)
INSTALLED = HeadStart("installed_wheel", _install, computes=False)


@pytest.fixture(scope="module")
def built() -> Path:
    return BUILT.result(900)


@pytest.fixture(scope="module")
def installed_wheel() -> tuple[Path, Ran]:
    return INSTALLED.result(1500)


def test_wheel_and_sdist_build_and_pass_twine_check(built: Path) -> None:
    (wheel,) = built.glob("*.whl")
    (sdist,) = built.glob("*.tar.gz")
    assert wheel.name == f"cdpkit_browser-{cdpkit.__version__}-py3-none-any.whl"
    assert sdist.name == f"cdpkit_browser-{cdpkit.__version__}.tar.gz"
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


def test_wheel_holds_the_package_and_nothing_else(built: Path) -> None:
    (wheel,) = built.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "cdpkit/py.typed" in names
        assert "cdpkit/cdp/_results/runtime.py" in names
        # The tools' JavaScript: every .js file of the checkout, the shared finder among them.
        scripts = {
            path.relative_to(ROOT).as_posix() for path in (ROOT / "cdpkit").rglob("*.js")
        }
        assert "cdpkit/tools/_js/find.js" in scripts
        assert scripts <= names, sorted(scripts - names)
        # The extension a person loads (`cdpkit extension path`), every file of it.
        extension = {
            path.relative_to(ROOT).as_posix()
            for path in (ROOT / "cdpkit" / "_bridge" / "extension").rglob("*")
            if path.is_file()
        }
        assert "cdpkit/_bridge/extension/manifest.json" in extension
        assert extension <= names, sorted(extension - names)
        # No tests, no protocol JSON (the bindings are generated), nothing outside cdpkit/.
        top = {name.split("/", 1)[0] for name in names}
        assert top == {"cdpkit", f"cdpkit_browser-{cdpkit.__version__}.dist-info"}, top
        assert not [name for name in names if name.endswith("_protocol.json")]
        (metadata,) = (name for name in names if name.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode()
        assert f"\nName: {DISTRIBUTION}\n" in text
        assert f"\nVersion: {cdpkit.__version__}\n" in text
        (entry_points,) = (name for name in names if name.endswith("entry_points.txt"))
        points = archive.read(entry_points).decode()
        assert "cdpkit = cdpkit.cli:main" in points
        assert "[pytest11]\ncdpkit = cdpkit.pytest_plugin" in points


READABLE_BROWSE = """\
import asyncio, http.server, threading
import cdpkit

PAGE = (
    "<html><head><title>An article</title></head><body><nav><a href='/'>Menu link</a></nav>"
    "<article><h1>An article</h1>"
    + "<p>The body of the article, a paragraph long enough to be its main content. </p>" * 12
    + "</article></body></html>"
).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
result = asyncio.run(cdpkit.browse(f"http://127.0.0.1:{server.server_port}/", readability=True, tier=1))
print(result.content)
"""


def test_the_wheel_installs_into_a_fresh_venv_and_runs(
    installed_wheel: tuple[Path, Ran], tmp_path: Path
) -> None:
    """What a user gets from ``pip install``: the command, doctor and the quickstart work
    from outside the checkout."""
    venv, install = installed_wheel
    python = venv / "bin" / "python"
    assert install.returncode == 0, install
    command = venv / "bin" / "cdpkit"
    work = tmp_path / "elsewhere"
    work.mkdir()

    # A user's environment: no PYTHONPATH to the checkout (how the suite may be run).
    environ = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=180, env=environ)

    version = run(str(command), "--version")
    assert version.returncode == 0 and cdpkit.__version__ in version.stdout, version
    doctor = run(str(command), "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    shutil.copytree(ROOT / "examples" / "pages", work / "pages")
    shutil.copy(ROOT / "examples" / "quickstart.py", work / "quickstart.py")
    quickstart = run(str(python), "quickstart.py")
    assert quickstart.returncode == 0, quickstart.stdout + quickstart.stderr
    assert "Title: " in quickstart.stdout and "Heading: " in quickstart.stdout, quickstart.stdout
    imported = run(str(python), "-c", "import cdpkit, sys; print(cdpkit.__file__)")
    assert str(venv) in imported.stdout, imported  # the installed copy, not the checkout
    # readability=True (trafilatura, jusText, lxml.html.clean) works with the venv's stock pip.
    (work / "readable.py").write_text(READABLE_BROWSE)
    readable = run(str(python), "readable.py")
    assert readable.returncode == 0, readable.stdout + readable.stderr
    assert "The body of the article" in readable.stdout and "Menu link" not in readable.stdout, readable
    # Regenerating without the checkout's protocol JSON says how to do it instead.
    gen = run(str(command), "gen", "--check")
    assert gen.returncode != 0 and "--from-browser" in gen.stdout + gen.stderr, gen


def test_every_install_hint_names_the_distribution() -> None:
    """`pip install 'cdpkit[mcp]'` would install an unrelated chemistry toolkit."""
    sources = [ROOT / "README.md", *sorted((ROOT / "cdpkit").rglob("*.py"))]
    sources += sorted((ROOT / "examples").rglob("*.py"))
    hint = re.compile(r"pip install (?:-U )?'?([A-Za-z0-9_.-]+)(\[[a-z,]+\])?")
    named = {}
    for path in sources:
        for match in hint.finditer(path.read_text()):
            named[f"{path.relative_to(ROOT)}: {match.group(0)}"] = match.group(1)
    assert any(name == DISTRIBUTION for name in named.values()), named
    wrong = {where: name for where, name in named.items() if name not in (DISTRIBUTION, ".")}
    assert not wrong, textwrap.indent("\n".join(wrong), "  ")


def _requirement_name(requirement: str) -> str:
    """The package and its extras (``httpx`` and ``httpx[socks]`` are two things)."""
    name = re.match(r"[A-Za-z0-9_.-]+(\[[^\]]*\])?", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def test_every_dependency_is_declared_once() -> None:
    """An extra names another extra (`cdpkit-browser[docs]`) instead of repeating its
    packages, so two copies cannot drift apart; and no two spellings of one extra
    (`lxml[html_clean]` / `lxml[html-clean]`) meet in `.[dev]`, which the pip Python 3.11
    ships (23.2) cannot resolve."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    where: dict[str, list[str]] = {}
    for group, requirements in {"dependencies": project["dependencies"],
                                **project["optional-dependencies"]}.items():
        for requirement in requirements:
            name = _requirement_name(requirement)
            if not name.startswith(DISTRIBUTION):
                where.setdefault(name, []).append(group)
    repeated = {name: groups for name, groups in where.items() if len(groups) > 1}
    assert not repeated, repeated
    # readability-lxml 0.9 asks for lxml[html-clean], jusText for lxml[html_clean].
    compare = " ".join(project["optional-dependencies"]["compare"])
    assert "readability-lxml>=0.8,<0.9" in compare, compare
