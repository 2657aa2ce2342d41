"""What keeps the sync API a twin of the async one: every async class it hands out has a
twin, every public function and method has its twin with the same parameters and
docstring, the generated files are up to date, mypy sees the async API's types through it,
and Ctrl-C interrupts a blocked call."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import cdpkit
import cdpkit.sync as sync
import cdpkit.tools
from cdpkit.launcher import ChromeProcess
from cdpkit.sync import _generate, _sources
from cdpkit.sync._runner import Twin
from tests._head_start import HeadStart, Run
from tests.sync.conftest import gone_within

REPO = Path(__file__).resolve().parents[2]
# The async class -> its twin.
TWINS = {
    cdpkit.Session: sync.Session,
    cdpkit.Page: sync.Page,
    cdpkit.Browser: sync.Browser,
    cdpkit.BrowserContext: sync.BrowserContext,
    cdpkit.Pool: sync.Pool,
    cdpkit.Engine: sync.Engine,
    cdpkit.Recording: sync.Recording,
    cdpkit.GridBrowser: sync.GridBrowser,
    cdpkit.EventStream: sync.EventStream,
    cdpkit.Expectation: sync.Expectation,
}


def _same_parameters(original: object, twin: object, what: str) -> None:
    expected = [
        (p.name, p.kind, p.default) for p in inspect.signature(original).parameters.values()
    ]  # type: ignore[arg-type]
    got = [(p.name, p.kind, p.default) for p in inspect.signature(twin).parameters.values()]  # type: ignore[arg-type]
    assert got == expected, f"{what}: the sync twin's parameters differ"
    assert inspect.getdoc(twin) == inspect.getdoc(original), f"{what}: the docstring differs"


def _public_members(cls: type) -> dict[str, object]:
    members = {}
    for name, value in inspect.getmembers(cls):
        if name.startswith("_") and name not in _generate.KEPT_DUNDERS:
            continue
        if callable(value) or isinstance(value, property):
            members[name] = value
    return members


def _classes_named(module: str, annotation: object) -> set[type]:
    """The classes an annotation of ``module`` names, also those it imports only for the
    type checker."""
    if not isinstance(annotation, str):
        return {annotation} if inspect.isclass(annotation) else set()
    namespace = vars(sys.modules[module])
    found: set[object] = set()
    for name in _sources.names_in(ast.parse(annotation, mode="eval").body):
        origin = _sources.source(module).names.get(name)
        if name in namespace:
            found.add(namespace[name])
        elif origin is not None and origin.name is not None:
            found.add(getattr(importlib.import_module(origin.module), origin.name, None))
    return {obj for obj in found if inspect.isclass(obj)}


def _returned_classes(member: object) -> set[type]:
    function = inspect.unwrap(member.fget if isinstance(member, property) else member)  # type: ignore[arg-type]
    if not inspect.isfunction(function):
        return set()
    return _classes_named(function.__module__, inspect.get_annotations(function).get("return"))


def _has_async_api(cls: type) -> bool:
    for member in _public_members(cls).values():
        function = inspect.unwrap(member.fget if isinstance(member, property) else member)  # type: ignore[arg-type]
        if inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function):
            return True
    return False


def _handed_out_by_the_sync_api() -> dict[type, type | None]:
    """Each class of the async API the sync API hands out, with its twin (None: none, the
    sync caller gets the async object): the classes named by the return annotations of the
    sync entry points and tools, then of the methods and properties of each twin reached."""
    sync_twin_names = {*_generate.RENAMED.values(), *_generate.KEPT_DUNDERS}
    todo: list[object] = [getattr(sync, name) for name in sync.__all__]
    todo += [getattr(sync.tools, name) for name in sync.tools.__all__]
    seen: set[type] = set()
    while todo:
        item = todo.pop()
        if not inspect.isclass(item):
            todo += _returned_classes(item)
        elif item not in seen and item.__module__.startswith("cdpkit."):
            seen.add(item)
            if issubclass(item, Twin):
                members = inspect.getmembers(item)
                todo += [m for n, m in members if not n.startswith("_") or n in sync_twin_names]
    handed: dict[type, type | None] = {}
    for cls in seen:
        if issubclass(cls, Twin):
            (async_class,) = _classes_named(cls.__module__, inspect.get_annotations(cls)["_impl"])
            handed[async_class] = cls
        elif _has_async_api(cls):
            handed.setdefault(cls, None)
    return handed


# The fixed list, and every async class the sync API hands out: one it hands out without a
# twin (a property returning the async object) fails below.
HANDED_OUT = {**_handed_out_by_the_sync_api(), **TWINS}


def test_the_classes_handed_out_are_found() -> None:
    assert set(TWINS) <= set(HANDED_OUT)
    assert HANDED_OUT[ChromeProcess] is sync.ChromeProcess  # browser.process


@pytest.mark.parametrize("async_class", sorted(HANDED_OUT, key=lambda cls: cls.__qualname__), ids=lambda cls: cls.__name__)
def test_every_public_method_and_property_has_its_twin(async_class: type) -> None:
    twin_class = HANDED_OUT[async_class]
    assert twin_class is not None, f"the sync API hands out {async_class} as it is: no twin"
    for name, member in _public_members(async_class).items():
        twin_name = _generate.RENAMED.get(name, name)
        what = f"{async_class.__name__}.{name}"
        assert hasattr(twin_class, twin_name), f"{what} has no sync twin"
        twin = getattr(twin_class, twin_name)
        if isinstance(member, property):
            assert isinstance(twin, property), what
            assert inspect.getdoc(twin) == inspect.getdoc(member), what
        elif name not in ("__aexit__",):  # __exit__ takes the same, under another name
            _same_parameters(member, twin, what)


def test_every_entry_point_and_tool_has_its_twin() -> None:
    for name in _generate.ENTRY_POINTS:
        _same_parameters(getattr(cdpkit, name), getattr(sync, name), f"cdpkit.{name}")
    assert sync.tools.__all__ == cdpkit.tools.__all__
    for name in cdpkit.tools.__all__:
        original, twin = getattr(cdpkit.tools, name), getattr(sync.tools, name)
        if inspect.isfunction(original) and twin is not original:
            assert not inspect.iscoroutinefunction(twin), name
            _same_parameters(original, twin, f"cdpkit.tools.{name}")
    # Results and locators are the async API's own classes.
    assert sync.tools.NavigationResult is cdpkit.tools.NavigationResult
    assert sync.tools.Recording is sync.Recording


def test_the_generated_files_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate.main(["--check"]) == 0, capsys.readouterr().err


def test_the_check_fails_when_the_async_api_grows(monkeypatch: pytest.MonkeyPatch) -> None:
    # An entry point added without regenerating (here: one the generator forgets): the
    # check fails and writes nothing.
    monkeypatch.setattr(_generate, "ENTRY_POINTS", [*_generate.ENTRY_POINTS[:-1]])
    monkeypatch.setattr(_generate, "OUTPUTS", {"_generated.py": _generate.generated})
    before = (REPO / "cdpkit/sync/_generated.py").read_text()
    assert _generate.main(["--check"]) == 1
    assert (REPO / "cdpkit/sync/_generated.py").read_text() == before


TYPED_SCRIPT = textwrap.dedent(
    """\
    import cdpkit.sync as sync
    from cdpkit import cdp

    with sync.launch() as browser:
        page = browser.new_page()
        answer = page.send(cdp.runtime.evaluate("1", return_by_value=True))
        reveal_type(answer)  # reveal: send
        value = answer.result.value
        reveal_type(sync.tools.navigate(page, "about:blank"))  # reveal: tool
        reveal_type(browser.pages)  # reveal: pages
        with page.expect(cdp.page.LoadEventFired) as load:
            page.send(cdp.page.reload())
        reveal_type(load.value)  # reveal: expect
        answer.no_such_field  # error: attribute
        sync.tools.click(page, selector=1)  # error: argument
    """
)


def _mypy_on_the_typed_script(scratch: Path, run: Run) -> str:
    script = scratch / "typed_sync.py"
    script.write_text(TYPED_SCRIPT, encoding="utf-8")
    completed = run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(REPO / "pyproject.toml"),
         "--follow-imports=silent", "--no-error-summary", "--show-error-codes", str(script)],
        300, cwd=REPO,
    )  # fmt: skip
    assert completed.returncode == 1, completed
    return completed.output


TYPED_REPORT = HeadStart("sync_typed_report", _mypy_on_the_typed_script, computes=True, order=2)


@pytest.fixture
def sync_typed_report() -> str:
    return TYPED_REPORT.result(900)


def test_mypy_strict_sees_the_async_types_through_the_sync_api(sync_typed_report: str) -> None:
    output = sync_typed_report
    lines = TYPED_SCRIPT.splitlines()

    def at(marker: str) -> str:
        number = next(i for i, line in enumerate(lines, 1) if line.endswith(f"# {marker}"))
        return "".join(line for line in output.splitlines() if f"typed_sync.py:{number}:" in line)

    assert re.search(
        r'Revealed type is "cdpkit\.cdp\.[\w.]*runtime\.EvaluateResult"', at("reveal: send")
    ), output
    assert re.search(r'Revealed type is "cdpkit\.[\w.]*\.NavigationResult"', at("reveal: tool")), (
        output
    )
    assert 'Revealed type is "list[cdpkit.sync._generated.Page]"' in at("reveal: pages"), output
    assert re.search(
        r'Revealed type is "cdpkit\.cdp\.[\w.]*page\.LoadEventFired"', at("reveal: expect")
    ), output
    assert '"EvaluateResult" has no attribute "no_such_field"' in at("error: attribute"), output
    assert "[arg-type]" in at("error: argument"), output
    assert len([line for line in output.splitlines() if ": error:" in line]) == 2, output


# After the with block the script still runs, so its watchdog has not acted: what it
# prints there tells whether leaving the block closed Chrome.
BLOCKED_SCRIPT = """
import sys, time
import cdpkit.sync as sync
from cdpkit._core.launching._process import group_alive
try:
    with sync.launch() as browser:
        page = browser.new_page()
        pgid, profile = browser.process.pid, browser.process.user_data_dir
        print(pgid, flush=True)
        started = time.monotonic()
        try:
            sync.tools.evaluate(page, "new Promise(() => {})")
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - started:.1f}", flush=True)
            raise
finally:
    chrome = "running" if group_alive(pgid) else "gone"
    print(f"after the with block: Chrome {chrome}, profile there: {profile.exists()}", flush=True)
"""


def test_ctrl_c_interrupts_a_blocked_call_and_leaves_no_chrome(tmp_path: Path) -> None:
    script = tmp_path / "blocked.py"
    script.write_text(BLOCKED_SCRIPT)
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    pgid = None
    try:
        assert child.stdout is not None
        pgid = int(child.stdout.readline())
        time.sleep(1.0)  # the evaluate is waiting on the promise
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        interrupted, after_the_block = out.splitlines()
        assert interrupted.startswith("interrupted after"), out + err
        assert float(interrupted.split()[2]) < 10
        expected = "after the with block: Chrome gone, profile there: False"
        assert after_the_block == expected, out + err
        assert time.monotonic() - sent < 10  # KeyboardInterrupt at once, then the browser closes
        assert child.returncode != 0 and "KeyboardInterrupt" in err, err
        assert gone_within(pgid, 5), "Chrome outlived the interrupted script"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if pgid is not None and not gone_within(pgid, 0):
            os.killpg(pgid, signal.SIGKILL)


def test_the_interrupt_reaches_the_caller_within_two_seconds(tmp_path: Path) -> None:
    script = tmp_path / "blocked.py"
    script.write_text(BLOCKED_SCRIPT.replace("raise\n", "raise SystemExit(3)\n"))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                             stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        assert child.stdout is not None
        pgid = int(child.stdout.readline())
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline()
        assert line.startswith("interrupted after"), line
        assert time.monotonic() - sent < 6.0  # a second or two, with room for a loaded machine
        assert child.wait(timeout=30) == 3
        assert gone_within(pgid, 5)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
