"""The bindings type-check as users write them: mypy --strict on a small sample file."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests._head_start import HeadStart, Run
from tests.bindings.conftest import REPO

SAMPLE = textwrap.dedent(
    """\
    from typing import Protocol, TypeVar

    from cdpkit import cdp
    from cdpkit._model import Command

    R = TypeVar("R")


    class Sender(Protocol):
        async def send(self, cmd: Command[R]) -> R: ...


    async def use(s: Sender) -> None:
        value = (await s.send(cdp.runtime.evaluate("1", return_by_value=True))).result.value
        reveal_type(value)  # reveal: value
        reveal_type(await s.send(cdp.page.navigate("x")))  # reveal: navigate
        reveal_type(await s.send(cdp.page.enable()))  # reveal: enable
        cdp.browser.set_download_behavior("allow")
        cdp.page.navigate("x", transition_type="link")
        cdp.page.navigate("x", transition_type=cdp.page.TransitionType.TYPED)
        node = cdp.dom.BackendNode(node_type=1, node_name="DIV", backend_node_id=cdp.dom.BackendNodeId(1))
        reveal_type(node.backend_node_id)  # reveal: newtype
        reveal_type(cdp.page.LoadEventFired.method)  # reveal: method
        frame = (await s.send(cdp.page.get_frame_tree())).frame_tree.frame
        reveal_type(frame.loader_id)  # reveal: cross-domain


    def misuse() -> None:
        cdp.browser.set_download_behavior("sometimes")  # error: bad literal
        cdp.page.navigate("x", "https://referrer.test/")  # error: optional is keyword-only
        cdp.page.navigate(url=1)  # error: wrong type
        cdp.dom.BackendNode(nodeType=1, node_name="DIV", backend_node_id=cdp.dom.BackendNodeId(1))  # error: wire name
    """
)


def _line_of(marker: str) -> int:
    for number, line in enumerate(SAMPLE.splitlines(), start=1):
        if line.endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


def _mypy_on_the_sample(scratch: Path, run: Run) -> str:
    """mypy's report on the sample, with the checkout's settings (the pydantic plugin)."""
    sample = scratch / "sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    completed = run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--follow-imports=silent",
            "--no-error-summary",
            "--show-error-codes",
            str(sample),
        ],
        300,
        cwd=REPO,
    )
    assert completed.returncode == 1, completed
    return completed.output


# Most of a minute of mypy: started at collection, it runs while other tests do.
SAMPLE_REPORT = HeadStart("sample_report", _mypy_on_the_sample, computes=True, order=1)


@pytest.fixture
def sample_report() -> str:
    return SAMPLE_REPORT.result(900)


def test_mypy_sees_typed_commands_results_and_models(sample_report: str) -> None:
    output = sample_report
    by_line: dict[int, str] = {}
    for line in output.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[0].endswith("sample.py"):
            by_line[int(parts[1])] = by_line.get(int(parts[1]), "") + parts[3]

    def at(marker: str) -> str:
        return by_line.get(_line_of(marker), "")

    assert 'Revealed type is "Any | None"' in at("reveal: value"), output
    assert "NavigateResult" in at("reveal: navigate"), output
    assert 'Revealed type is "None"' in at("reveal: enable"), output
    assert 'Revealed type is "cdpkit.cdp.dom.BackendNodeId"' in at("reveal: newtype"), output
    assert 'Revealed type is "str"' in at("reveal: method"), output
    assert 'Revealed type is "cdpkit.cdp.network.LoaderId"' in at("reveal: cross-domain"), output

    assert "[arg-type]" in at("error: bad literal"), output
    assert "Too many positional arguments" in at("error: optional is keyword-only"), output
    assert "[arg-type]" in at("error: wrong type"), output
    assert "[call-arg]" in at("error: wire name"), output

    errors = [line for line in output.splitlines() if ": error:" in line]
    assert len(errors) == 4, output
