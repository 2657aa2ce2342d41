"""Whether a command may use a running daemon (``--no-daemon``, ``--session NAME``,
``CDPKIT_NO_DAEMON``): what the command line sets before the command runs, and
:func:`cdpkit._daemon._client.daemon_browser` reads. Light (no dataclasses, which load ``inspect``): the CLI imports it at start, the
fast path (:mod:`._fast`) too."""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import NamedTuple


class DaemonUse(NamedTuple):
    """Whether this command may use a running daemon, and in which named session."""

    enabled: bool = True
    session: str | None = None


_use: contextvars.ContextVar[DaemonUse | None] = contextvars.ContextVar("cdpkit_daemon_use", default=None)


def disabled_by_environment() -> bool:
    """``CDPKIT_NO_DAEMON`` set (to anything but ``0``): no command uses the daemon."""
    return os.environ.get("CDPKIT_NO_DAEMON", "") not in ("", "0")


@contextlib.contextmanager
def daemon_use(use: DaemonUse) -> Iterator[None]:
    """Within the block, :func:`daemon_browser` does as ``use`` says."""
    token = _use.set(use)
    try:
        yield
    finally:
        _use.reset(token)


@contextlib.contextmanager
def daemon_preferred() -> Iterator[None]:
    """Within the block, use a running daemon unless the command already decided (e.g.
    ``--no-daemon``): for the surfaces that start their browser themselves (TUI, MCP)."""
    if _use.get() is not None:
        yield
        return
    with daemon_use(DaemonUse()):
        yield


def current_use() -> DaemonUse | None:
    """What the command decided, ``None`` when it did not (it then uses no daemon)."""
    return _use.get()
