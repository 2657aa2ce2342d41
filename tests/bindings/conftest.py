"""Helpers for the binding tests: the pinned protocol JSON, and emitting a generated
package from a protocol fragment into a temporary directory to import it."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cdpkit.codegen import generate

REPO = Path(__file__).resolve().parents[2]
PROTOCOL_DIR = REPO / "protocol"
FIXTURES = REPO / "tests" / "fixtures" / "cdp_messages"


def load_protocol_domains() -> list[dict[str, Any]]:
    """Every domain of the pinned protocol JSON, read directly (not through the generator)."""
    domains: list[dict[str, Any]] = []
    for name in ("browser_protocol.json", "js_protocol.json"):
        domains += json.loads((PROTOCOL_DIR / name).read_text(encoding="utf-8"))["domains"]
    return domains


EmitFn = Callable[[Mapping[str, Any]], tuple[str, dict[str, str]]]


@pytest.fixture
def emit_package(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[EmitFn]:
    """Generate a package from a protocol fragment into ``tmp_path`` and make it importable.

    Returns ``(package name, files)``; the package's modules are forgotten afterwards.
    """
    package = f"generated_{request.node.name.replace('[', '_').replace(']', '_').replace('-', '_')}"

    def emit(fragment: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
        files = generate([fragment], "golden test", package=package)
        root = tmp_path / package
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return package, files

    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        yield emit
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
            del sys.modules[name]


def import_generated(package: str, module: str = "") -> ModuleType:
    """Import ``package`` or one of its modules (the package emitted by ``emit_package``)."""
    return importlib.import_module(f"{package}.{module}" if module else package)
