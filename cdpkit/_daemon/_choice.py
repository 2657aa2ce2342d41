"""What the command decided about the daemon (``--no-daemon``, ``--session NAME``,
``CDPKIT_NO_DAEMON``), read by :func:`cdpkit._daemon._client.daemon_browser`. Light (no
dataclasses, which load ``inspect``): the CLI imports it at start, the fast path too."""

from __future__ import annotations

import contextvars
import os
from typing import NamedTuple


class DaemonUse(NamedTuple):
    """Whether this command may use a running daemon, and in which named session."""

    enabled: bool = True
    session: str | None = None


decided: contextvars.ContextVar[DaemonUse | None] = contextvars.ContextVar(
    "cdpkit_daemon_use", default=None
)


def disabled_by_environment() -> bool:
    """``CDPKIT_NO_DAEMON`` set (to anything but ``0``): no command uses the daemon."""
    return os.environ.get("CDPKIT_NO_DAEMON", "") not in ("", "0")


def current_use() -> DaemonUse | None:
    """What the command decided, ``None`` when it did not (it then uses no daemon)."""
    return decided.get()
