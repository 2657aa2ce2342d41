"""The Python program a recording is written as: recorded steps -> a complete, typed
script (``python FILE`` replays it headless, ``--headful`` to watch; it passes
``mypy --strict``). Its ``replay(browser, page)`` holds the steps, so another program (a
test, a job with a warm browser) can import it and replay them on its own page.

Each :class:`Step` is one cdpkit call, already written as source (a call expression);
rendering adds what a step needs around it: the dialog answer it arms before the call,
the load it waits for (an action that loaded a new document, such as a submit), and the
comments saying why. :func:`render_script` writes the whole file, so that the program is
complete after every step.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Source", "Step", "literal", "render_call", "render_script"]


class Source(str):
    """Python source written as it is, not as a string literal (``secret("NAME")``)."""

    __slots__ = ()


def literal(value: Any) -> str:
    """``value`` as Python source (a str, number, bool, ``None``, path, or a list or
    tuple of those).

    Raises:
        TypeError: ``value`` has no literal form (an object the script cannot rebuild).
    """
    if isinstance(value, Source):
        return str(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"no literal for the number {value!r}")
        return repr(value)
    if isinstance(value, str):
        # JSON's string escapes are Python's; kept readable (no \u for non-ASCII letters),
        # but what a reader would not see (bidirectional controls) is escaped too.
        return _visible(json.dumps(value, ensure_ascii=False))
    if isinstance(value, os.PathLike):
        return literal(os.fspath(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise TypeError(f"no literal for a {type(value).__name__}")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _visible(text: str) -> str:
    """``text`` with each character that is not printable (line breaks, controls,
    bidirectional overrides, lone surrogates) written as its escape: a comment, string
    or docstring holding it can neither end early nor show the reader another order."""
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _in_docstring(text: str) -> str:
    """``text`` as the body of a triple-quoted string: its backslashes and double quotes
    escaped (no three quotes can end it, nor a quote at its end), the rest made
    :func:`_visible`."""
    return _visible(text.replace("\\", "\\\\").replace('"', '\\"'))


def render_call(
    function: str, first: str, positional: Sequence[Any] = (), keywords: Mapping[str, Any] = {}
) -> str:
    """The expression ``tools.FUNCTION(FIRST, *POSITIONAL, **KEYWORDS)`` as source.

    Raises:
        TypeError: A value has no literal form.
    """
    parts = [first, *(literal(value) for value in positional)]
    parts += [f"{name}={literal(value)}" for name, value in keywords.items()]
    return f"tools.{function}({', '.join(parts)})"


@dataclass(slots=True)
class Step:
    """One recorded action, as source.

    Attributes:
        call: The awaited call expression (``tools.click(page, role="button", name="Send")``),
            or ``None`` for a step of comments and :attr:`after` statements only.
        assign: The variable the call's result is assigned to (``page`` after a tab is
            opened or switched to), or ``None``.
        comments: Comment lines written above the step (without ``#``).
        after: Statements run after the call (``page = current_tab(browser)`` after a tab
            is closed).
        wait_for_load: The action loaded a new document (a submit, a link): the script
            waits for that load before the next step, as the session did.
        dialog: The answer the action's JavaScript dialog got, ``(accept, prompt_text)``:
            armed before the call, awaited after it.
        uses: Names of the script's preamble the step needs (``"current_tab"``).
        action: The tool's name (``"click"``), for the recording's own bookkeeping.
    """

    call: str | None
    assign: str | None = None
    comments: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    wait_for_load: bool = False
    dialog: tuple[bool, str | None] | None = None
    uses: frozenset[str] = frozenset()
    action: str = ""


_HEADER = '''\
"""A cdpkit session, recorded {when}: replays it step by step without the agent.

Run it with ``python {name}`` (headless), or ``python {name} --headful`` to watch.
Written by cdpkit.record; each element is found by its role and name, label, text or
stable attributes, so the script survives a page whose layout, ids and classes change.
"""

from __future__ import annotations

import argparse
import asyncio
{stdlib}
import cdpkit
from cdpkit import {imports}
'''

_SECRET = '''

def secret(name: str) -> str:
    """What was typed into a password field: read from the environment, never written here."""
    value = os.environ.get(name)
    if value is None:
        raise SystemExit(f"Set the environment variable {name}: a password field needs it")
    return value
'''

_CURRENT_TAB = '''

def current_tab(browser: cdpkit.Browser) -> cdpkit.Page:
    """The active tab: the one the next steps act on."""
    page = tools.active_tab(browser)
    if page is None:
        raise RuntimeError("No tab is open")
    return page
'''

_REPLAY = '''

async def replay(browser: cdpkit.Browser, page: cdpkit.Page) -> None:
    """The recorded steps, on ``page`` (a tab of ``browser``)."""
'''

_FOOTER = '''

async def main(*, headless: bool = True) -> None:
    """Replay the recorded steps in a browser of their own."""
    async with cdpkit.launch(headless=headless) as browser:
        await replay(browser, await browser.new_page())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Replay a recorded cdpkit session.")
    parser.add_argument("--headful", action="store_true", help="show the browser window")
    asyncio.run(main(headless=not parser.parse_args().headful))
'''

_INDENT = " " * 4


def _step_lines(number: int, step: Step, dialogs: int) -> list[str]:
    # A comment quotes the page (names, texts): a line break in it would end it.
    lines = [f"# {number}. {_visible(step.comments[0])}" if step.comments else f"# {number}."]
    lines += [f"# {_visible(comment)}" for comment in step.comments[1:]]
    if step.call is None:
        return lines + step.after
    statement = f"await {step.call}"
    if step.assign is not None:
        statement = f"{step.assign} = {statement}"
    answer = f"dialog_{dialogs}"
    if step.dialog is not None:
        accept, prompt_text = step.dialog
        arguments = f"accept={accept!r}"
        if prompt_text is not None:
            arguments += f", prompt_text={literal(prompt_text)}"
        lines.append(f"{answer} = asyncio.ensure_future(tools.handle_dialog(page, {arguments}))")
    if step.wait_for_load:
        lines.append("# It loaded a new page: wait for that page's load event.")
        lines.append("async with page.expect(cdp.page.LoadEventFired):")
        lines.append(f"    {statement}")
    else:
        lines.append(statement)
    if step.dialog is not None:
        lines.append(f"await {answer}")
    lines += step.after
    return lines


def render_script(steps: Sequence[Step], *, when: str, name: str) -> str:
    """The complete program replaying ``steps``.

    Args:
        steps: The recorded steps, in order.
        when: When it was recorded, for the docstring.
        name: The file's name, for the docstring's ``python NAME``.
    """
    imports = "cdp, tools" if any(step.wait_for_load for step in steps) else "tools"
    secrets = any("secret" in step.uses for step in steps)
    # Any name the file may have: quoted for a shell, then escaped for the docstring.
    command = _in_docstring(shlex.quote(name))
    source = _HEADER.format(
        when=_in_docstring(when),
        name=command,
        imports=imports,
        stdlib="import os\n" if secrets else "",
    )
    if secrets:
        source += _SECRET
    if any("current_tab" in step.uses for step in steps):
        source += _CURRENT_TAB
    source += _REPLAY
    if not steps:
        source += f"{_INDENT}# No step recorded yet.\n"
    dialogs = 0
    for number, step in enumerate(steps, 1):
        dialogs += step.dialog is not None
        source += "".join(
            f"{_INDENT}{line}\n" for line in _step_lines(number, step, dialogs)
        )
    return source + _FOOTER
