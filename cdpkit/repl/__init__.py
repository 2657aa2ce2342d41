"""``cdpkit repl``: a Python console with top-level ``await`` on a live page.

Preloaded: ``cdpkit``, ``cdp`` (the bindings), ``tools``, ``browser``, ``page`` (the
current page) and ``asyncio``. Besides Python, the console takes

* raw protocol lines, sent to the current page, the JSON result pretty-printed::

      Page.navigate url=https://example.com
      Runtime.evaluate expression="1 + 2" returnByValue=true
      Emulation.setDeviceMetricsOverride {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": true}

  Values are read as JSON when they parse as JSON (``true``, ``12``, ``"a b"``,
  ``{"x": 1}``), else as strings (``https://example.com``); ``'...'`` quotes a string;

* commands: ``:help``, ``:goto URL``, ``:events Network`` / ``:events off``, ``:tabs``,
  ``:tab N``, ``:snapshot``, ``:doc Page.navigate``, ``:quit``.

The first page, ``:goto URL`` and ``:tab new URL`` wait for the page's content to settle
(:func:`cdpkit.tools.wait_for_content`), or as ``--wait MS`` says.

How it runs: the event loop (the browser connection, event printers and whatever you
type) runs in a background thread, and the console reads input in the main thread, so
Ctrl-C always reaches the console: at the prompt it clears the line, during a command it
cancels that command (a second Ctrl-C interrupts code that ignores the cancellation).
Tab completion covers Python names, ``cdp.<domain>.<command>``, ``Domain.method`` and
its parameters; history is kept in ``$XDG_STATE_HOME/cdpkit/repl_history`` (or the
platform's equivalent). With stdin not a terminal, lines are read as a script: no
prompts, and the exit status is 1 if any line failed.

The package, one job a module: :mod:`~cdpkit.repl._console` (the console and the entry
point), :mod:`~cdpkit.repl._lines` (raw protocol lines), :mod:`~cdpkit.repl._commands`
(the ``:commands``), :mod:`~cdpkit.repl._runner` (the event loop thread) and
:mod:`~cdpkit.repl._complete` (completion and history).
"""

from __future__ import annotations

from ._commands import HELP
from ._complete import history_path
from ._console import ReplConsole, run
from ._lines import parse_raw_line

__all__ = ["HELP", "ReplConsole", "history_path", "parse_raw_line", "run"]
