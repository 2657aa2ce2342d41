"""The ``cdpkit tui`` command: registered, light to import, and clear without Textual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cdpkit._browse import BrowseError, Engine
from tests.server import FixtureServer

from .conftest import make_app, settle


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60,
                          env=env)  # fmt: skip


# Runs `cdpkit tui URL` as the console script does (Textual's headless driver standing in
# for the terminal) and prints, once the first page is on the screen, the modules loaded
# by then; then quits.
_RUN_AND_REPORT = """
import json, sys
from cdpkit._tui import _app
show = _app.TuiApp._show_result
def report(self, result, **options):
    show(self, result, **options)
    if result is not None:
        print("shown:", "Terminal reading" in self.visible_text(), json.dumps(sorted(sys.modules)))
        self._do_quit()
_app.TuiApp._show_result = report
from cdpkit.cli import main
main(["tui", sys.argv[1]])
"""


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


def test_cdpkit_tui_shows_a_tier_1_page_without_loading_what_it_does_not_need(
    server: FixtureServer, tmp_path: Path
) -> None:
    env = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
           "CDPKIT_CONFIG": str(tmp_path / "config.toml"), "XDG_DATA_HOME": str(tmp_path / "data")}  # fmt: skip
    done = _python(_RUN_AND_REPORT, server.url("/tui/index.html"), env=env)
    assert done.returncode == 0, done.stderr
    shown, _, modules = next(line for line in done.stdout.splitlines() if line.startswith("shown:")).partition("[")
    assert shown.split() == ["shown:", "True"]
    loaded = set(json.loads("[" + modules))
    assert {"textual", "httpx", "selectolax"} <= loaded  # what a tier-1 page needs
    # Not the typer app and the other commands, not Chrome's side of the engine, not the
    # tools, not the generated bindings (their pydantic models): they load when used.
    for module in ("typer", "cdpkit.cli._app", "cdpkit.cli._tui", "cdpkit.cli._pages", "cdpkit._browse._chrome",
                   "cdpkit.tools", "cdpkit.repl"):  # fmt: skip
        assert module not in loaded, module
    assert not [module for module in loaded if module.startswith("cdpkit.cdp.")]


def test_the_fast_path_refuses_values_as_the_app_does() -> None:
    """``cdpkit tui`` runs without typer; a value it refuses reads as every command's
    (``error: ...``, status 2), and a command line typer words better (an unknown option,
    a tier out of range) still gets typer's message."""
    done = _python(
        "import contextlib, io, sys\n"
        "from cdpkit.cli import main\n"
        "for args in (['--timeout', '0'], ['--session', '../x'], ['nosuch:thing'], ['--tier', '7'], ['--colour']):\n"
        "    err = io.StringIO()\n"
        "    with contextlib.redirect_stderr(err):\n"
        "        try:\n"
        "            main(['tui', *args])\n"
        "        except SystemExit as exc:\n"
        "            print(exc.code, err.getvalue().replace(chr(10), ' '))\n"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "2 error: Invalid --timeout 0: give a positive number of seconds "
    assert lines[1].startswith("2 error: Invalid --session: ")
    assert lines[2].startswith("2 error: Invalid URL 'nosuch:thing': unsupported scheme nosuch")
    assert lines[3].startswith("2 ") and "Invalid value for '--tier'" in lines[3]
    assert lines[4].startswith("2 ") and "No such option: --colour" in lines[4]
