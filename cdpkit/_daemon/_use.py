"""Whether a command may use a running daemon (``--no-daemon``, ``--session NAME``,
``CDPKIT_NO_DAEMON``): what the command line sets before the command runs (kept in
:mod:`._choice`), and the daemon handed to the commands as a source of browsers. Light:
the CLI imports it at start."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ._choice import DaemonUse, current_use, decided, disabled_by_environment

__all__ = ["DaemonUse", "current_use", "daemon_preferred", "daemon_use", "disabled_by_environment"]


@contextlib.contextmanager
def daemon_use(use: DaemonUse) -> Iterator[None]:
    """Within the block, :func:`daemon_browser` does as ``use`` says; the daemon is then a
    source of browsers for the commands (:func:`cdpkit._front.browser_options.add_browser_source`:
    the floor below is handed the daemon, it never imports it)."""
    from .._front.browser_options import add_browser_source
    from ._client import daemon_browser

    add_browser_source(daemon_browser)
    token = decided.set(use)
    try:
        yield
    finally:
        decided.reset(token)


@contextlib.contextmanager
def daemon_preferred() -> Iterator[None]:
    """Within the block, use a running daemon unless the command already decided (e.g.
    ``--no-daemon``): for the surfaces that start their browser themselves (TUI, MCP)."""
    if decided.get() is not None:
        yield
        return
    with daemon_use(DaemonUse()):
        yield
