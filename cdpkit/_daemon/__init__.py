"""``cdpkit daemon``: a warm browser for one-shot commands.

A one-shot command (``cdpkit screenshot URL``...) pays 2-3 s to start Chrome. The daemon
keeps Chrome running between commands: ``cdpkit daemon start`` runs it in the background,
and every command that needs a browser (screenshot, pdf, snapshot, scrape, eval, download,
browse at tiers 2-3, tui, mcp) asks it for one first, and launches its own when none runs
(``--no-daemon`` or ``CDPKIT_NO_DAEMON=1`` skip it).

Who can drive the browser: only this user. Chrome's ``--remote-debugging-port`` listens on
127.0.0.1, where any local user (and any process of theirs) can connect and drive it, with
no authentication: a warm browser there holding the person's logged-in sessions would be
theirs too. So the daemon starts each Chrome with ``--remote-debugging-pipe`` (no port at
all) and relays CDP over its unix socket, in a folder only this user can enter
(``$XDG_RUNTIME_DIR/cdpkit``, else platformdirs' user runtime folder; mode 0700, and
refused if it belongs to someone else or is open to others), the socket itself 0600.
A command does not get a DevTools URL: it sends CDP over the socket, and the daemon
multiplexes the commands' connections onto the pipe (see :mod:`._server`).

Isolation: each command works in a browser context of its own (cookies, storage, cache),
disposed when it ends, and sees only its own pages; ``--session NAME`` keeps a named
context across commands instead (collected after ``--session-idle`` seconds unused).

Which commands it serves: one shared configuration, cdpkit's default launch (headless, a
temporary profile, cdpkit's flags, the default viewport), on the Chrome the daemon found
when it started. A command uses it when its browser is the one the command would launch:
the same Chrome executable (``--chrome``, else ``$CDPKIT_CHROME``, else the usual names
and places; a link to it is it), and no option that changes the launch (``--headful``,
``--profile``, ``--chrome-arg``, ``--viewport``, ``--proxy``, ``--locale``, ``--stealth``,
``--storage-state``) and no other browser named (``--connect``, ``--grid``); else it runs
on its own browser, as without a daemon (another Chrome is said in a ``note:`` line); the
per-page identity options (``--user-agent``, ``--timezone``, ``--extra-header``) are
applied to its pages in the daemon's browser.

Health: each Chrome is asked ``Browser.getVersion`` every 2 s, and when it has not
answered in the last second, the first call made for a command checks it; one that has
exited, or does not answer
within 2 s (e.g. SIGSTOPped) there or twice in a row in the background (a busy machine may
delay one answer, and a replacement ends the commands working in it), is killed and
replaced on the next need. A command never waits
more than 2 s (or a quarter of its ``--timeout``) for a daemon to acknowledge it, nor more
than its ``--timeout`` in all: then it says so in one line on stderr and launches its own.
The daemon ends after ``--idle-timeout`` seconds without a command.

The parts: :mod:`._use` (what the command line decided; light, imported at start),
:mod:`._paths` (the private folder), :mod:`._client` (a command's side), :mod:`._server`
(the daemon process), :mod:`._worker` (its warm command runner, which forks a child per
one-shot command it is handed) and :mod:`._fast` (the commands' fast path to it: stdlib
only, tried before typer and the rest load). This module imports none of them: it names
what the commands use, each loaded on first access, so a command that uses no browser
loads none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._core.lazy import lazy_exports

if TYPE_CHECKING:
    from ._choice import DaemonUse
    from ._client import request
    from ._engines import daemon_first
    from ._fast import run_by_daemon
    from ._paths import DaemonPathError, DaemonPaths, daemon_paths
    from ._server import run_daemon
    from ._use import daemon_preferred, daemon_use

# What the commands use of the daemon, and the module defining each, loaded on first access
# (the fast path stays stdlib only; a command loads only the parts it uses).
_HOMES = {
    "DaemonPathError": "_paths",
    "DaemonPaths": "_paths",
    "DaemonUse": "_choice",
    "daemon_first": "_engines",
    "daemon_paths": "_paths",
    "daemon_preferred": "_use",
    "daemon_use": "_use",
    "request": "_client",
    "run_by_daemon": "_fast",
    "run_daemon": "_server",
}

__all__ = [
    "DaemonPathError",
    "DaemonPaths",
    "DaemonUse",
    "daemon_first",
    "daemon_paths",
    "daemon_preferred",
    "daemon_use",
    "request",
    "run_by_daemon",
    "run_daemon",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
