"""The ``cdpkit tui`` command: registered, light to import, and clear without Textual."""

from __future__ import annotations

import subprocess
import sys

from cdpkit._browse import BrowseError, Engine
from tests.server import FixtureServer

from .conftest import make_app, settle


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_help_lists_tui_and_neither_it_nor_import_cdpkit_loads_textual() -> None:
    done = _python(
        "import sys, contextlib, io\n"
        "import cdpkit\n"
        "assert 'textual' not in sys.modules and 'cdpkit._tui' not in sys.modules\n"
        "from cdpkit.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "assert ' tui ' in out.getvalue(), out.getvalue()\n"
        "assert 'textual' not in sys.modules, 'cdpkit --help loaded textual'\n"
    )
    assert done.returncode == 0, done.stderr


def test_without_textual_the_command_says_what_to_install() -> None:
    done = _python(
        "import sys\n"
        "sys.modules['textual'] = None  # as if it were not installed\n"
        "from cdpkit.cli import main\n"
        "main(['tui', 'http://127.0.0.1:1/'])\n"
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "error: cdpkit tui needs Textual, which is not installed: pip install 'cdpkit-browser[tui]'"
    )


async def test_ctrl_c_quits_and_closes_the_engine(engine: Engine, server: FixtureServer) -> None:
    app = make_app(engine, server.url("/tui/second.html"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+c")
        await settle(app, pilot)
    assert not app.is_running
    try:
        await engine.browse(server.url("/tui/second.html"))
    except BrowseError as exc:
        assert exc.code == "session.closed"
    else:
        raise AssertionError("the engine still browses after Ctrl-C")
