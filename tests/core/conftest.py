"""Fixtures of the core tests."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def private_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A temp dir of this test's own, where launch() creates its temporary profiles."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path
