"""Where cdpkit keeps things for the user: profiles, REPL history, downloads (platformdirs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cdpkit._core.profiles import profile_dir, profiles_root
from cdpkit.repl import history_path
from cdpkit.tools.files import default_download_dir

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")

_VARIABLES = (
    "CDPKIT_PROFILES",
    "CDPKIT_HISTORY",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DOWNLOAD_DIR",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_defaults_under_home(home: Path) -> None:
    assert profiles_root() == home / ".local/share/cdpkit/profiles"
    assert profile_dir("work") == home / ".local/share/cdpkit/profiles/work"
    assert history_path() == home / ".local/state/cdpkit/repl_history"
    assert default_download_dir() == home / "Downloads"
    assert not (home / ".local").exists()  # asking where creates nothing


def test_xdg_variables_move_them(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "dl"))
    assert profiles_root() == home / "data/cdpkit/profiles"
    assert history_path() == home / "state/cdpkit/repl_history"
    assert default_download_dir() == home / "dl"


def test_cdpkit_variables_win(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("CDPKIT_PROFILES", "~/mine")
    monkeypatch.setenv("CDPKIT_HISTORY", "~/history")
    assert profiles_root() == home / "mine"
    assert history_path() == home / "history"


def test_download_dir_from_user_dirs_config(home: Path) -> None:
    """A desktop whose Downloads folder has another name (xdg-user-dirs, e.g. a French
    desktop's ~/Téléchargements) gets its files there, as the file manager shows them."""
    (home / ".config").mkdir()
    (home / ".config/user-dirs.dirs").write_text(
        '# written by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR="$HOME/Téléchargements"\n',
        encoding="utf-8",
    )
    assert default_download_dir() == home / "Téléchargements"
