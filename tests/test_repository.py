"""What the checkout holds: nothing that only works on the machine it was written on."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A quoted or backticked absolute path into a home, a workspace or the shared data: data
# beside the checkout is read through ``../shared`` (or an option), never a fixed place.
_MACHINE_PATH = re.compile(r"""["'`(]/(?:work|root|home/[a-z_][\w-]*(?<!/me))/[^\s"'`)]*""")


def test_no_file_names_a_path_of_the_machine() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0")
    found = []
    for name in filter(None, listed):
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".toml", ".sh", ".yml", ".js", ".cfg", ""}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        found += [f"{name}: {match.group(0)}" for match in _MACHINE_PATH.finditer(text)]
    assert not found, found


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    """The README's first lines: one command for what running needs (and the quickstart), one
    for what the tests need (and the suite); CI runs the second as it is written."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    run, test = (line.split("#", 1)[0].strip() for line in block.strip().splitlines())
    assert run == "bash scripts/setup.sh && .venv/bin/python examples/quickstart.py"
    setup, suite = test.split(" && ")
    assert setup == "bash scripts/setup.sh --tests"
    # The whole suite (no path or -k narrows it), in parallel with each module on one worker.
    assert re.fullmatch(r"\.venv/bin/python -m pytest -n \d+ --dist loadfile", suite), suite
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in ci, ci


def test_every_cdpkit_logger_masks_secrets() -> None:
    """A logger taken with ``logging.getLogger("cdpkit...")`` would skip the filter that masks
    proxy passwords (``cdpkit._core.secrets.get_logger`` adds it)."""
    direct = re.compile(r"""logging\.getLogger\(\s*(?:["']cdpkit|__name__)""")
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "cdpkit").rglob("*.py")
        if path.name != "_secrets.py" and direct.search(path.read_text(encoding="utf-8"))
    ]
    assert not found, found
