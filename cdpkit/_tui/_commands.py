"""The ``:`` commands of ``cdpkit tui`` and the words of its message line."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._app import TuiApp

__all__ = ["describe", "normalized", "run_command"]


def run_command(app: TuiApp, line: str) -> None:
    """Run a ``:`` command line (``:open``, ``:tier``, ``:snapshot``, ``:click``...)."""
    name, _, rest = line.partition(" ")
    rest = rest.strip()
    driver = app.driver
    try:
        if name in ("q", "quit"):
            app._do_quit()
        elif name in ("o", "open"):
            if not rest:
                raise ValueError(":open needs a URL, e.g. :open example.com")
            app._open_url(rest)
        elif name == "tier":
            if rest not in ("1", "2", "3", "auto"):
                raise ValueError(":tier takes 1 (HTTP), 2 (light Chrome), 3 (full Chrome) or auto")
            driver.tier = None if rest == "auto" else int(rest)
            app._set_message(f"Tier {rest} from now on")
            app._do_reload()
        elif name == "snapshot":
            app._run(driver.snapshot, "Taking a snapshot in Chrome", done=app._show_snapshot)
        elif name == "click":
            index = _number(rest, ":click N (an index of :snapshot)")
            app._run(lambda: driver.click(index), f"Clicking [{index}]")
        elif name == "type":
            first, _, text = rest.partition(" ")
            index = _number(first, ":type N text (an index of :snapshot)")
            app._run(lambda: driver.type_text(index, text), f"Typing into [{index}]")
        elif name == "screenshot":
            path = _one_argument(rest, ":screenshot PATH")
            app._run(lambda: driver.screenshot(path), "Taking a screenshot",
                      done=lambda saved: app._set_message(f"Screenshot saved to {saved}"))  # fmt: skip
        elif name == "download":
            number = _number(rest, ":download N (a link number)")
            app._run(lambda: driver.download(number), f"Downloading [{number}]",
                      done=lambda got: app._set_message(f"Downloaded {got.path} ({got.size} bytes)"))  # fmt: skip
        elif name == "session":
            session = _one_argument(rest, ":session NAME")
            app._run(lambda: driver.use_session(session), f"Switching to session {session}")
        elif name == "markdown":
            path = _one_argument(rest, ":markdown PATH")
            app._run(lambda: driver.save_markdown(path), "Saving",
                      done=lambda saved: app._set_message(f"Page saved to {saved}"))  # fmt: skip
        elif name:
            raise ValueError(
                f"Unknown command :{name} (commands: open, tier, snapshot, click, type, screenshot,"
                " download, session, markdown, quit)"
            )
    except ValueError as exc:
        app._set_message(str(exc), error=True)


def _number(text: str, usage: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(f"Expected a number: {usage}")
    return int(text.strip())


def _one_argument(text: str, usage: str) -> str:
    try:
        parts = shlex.split(text)
    except ValueError:
        parts = []
    if len(parts) != 1:
        raise ValueError(f"Usage: {usage}")
    return parts[0]


def normalized(url: str) -> str:
    """A typed URL as the command line reads it (``example.com`` gets ``https://``, a
    local file becomes a ``file://`` URL).

    Raises:
        ValueError: Not a URL or file it can open (the message says why).
    """
    from .._front.browser_options import CLIError
    from .._front.cli_common import normalize_url

    try:
        return normalize_url(url)
    except CLIError as exc:
        raise ValueError(str(exc)) from None


def describe(exc: BaseException) -> str:
    """An error as one line for the message line."""
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0] if text else type(exc).__name__
