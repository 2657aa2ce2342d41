"""The tools' JavaScript: loading it from ``cdpkit/tools/_js/*.js`` and running it in a page.

Each tool script is one file holding one JavaScript function expression
(``function(a, b) {...}``), called with JSON arguments. A script may use helper
libraries: files that add functions to a shared object ``H`` (``find.js``: the one
element finder every tool uses; ``helpers.js``: visibility, unique selectors, text
normalisation; ``text.js``: the visible-text walk; ``hit.js``: what a click at a point
reaches, and how an error names it). The libraries a script names, and the ones they
need, are bundled into its source once, when it is first used, and cached for the life
of the process. A long script may be split by concern into parts (``_js/<name>/<part>.js``,
declarations only): they are put at the start of its function's body, so the page still
runs one function, one closure (:func:`assemble`).

Scripts run through the typed bindings: :func:`evaluate` (``Runtime.evaluate``, in the
page's main frame, ``this`` being the window) and :func:`call_function`
(``Runtime.callFunctionOn``, ``this`` being an element); the element-handle side lives
on :class:`~cdpkit.tools._targeting.Element`. A script's exception becomes
:class:`~cdpkit.EvaluationError`, or ``ValueError("Invalid CSS selector: '...'")`` when
the finder rejected the selector the tool was given (:func:`check_exception`).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .. import cdp
from ..cdp.runtime import CallArgument, ExceptionDetails, RemoteObject, RemoteObjectId
from ..errors import EvaluationError
from ..session import Session

__all__ = [
    "Script", "assemble", "call_function", "check_exception", "evaluate", "evaluate_handle",
    "source", "thrown_at",
]

# The error the finder (find.js, ``H.check``) throws for a selector the browser rejects.
INVALID_SELECTOR = "cdpkit:invalid-selector"

# Helper libraries and the ones each needs (loaded before it).
_LIBRARY_NEEDS: dict[str, tuple[str, ...]] = {
    "find": (),
    "helpers": ("find",),
    "text": ("helpers",),
    "hit": (),
}


@dataclass(frozen=True, slots=True)
class Script:
    """A JavaScript function in ``cdpkit/tools/_js/<name>.js``.

    Attributes:
        name: The file's name without ``.js``.
        uses: The helper libraries it calls through ``H`` (their own needs are added).
        package: The package whose ``_js`` folder holds the file (the tools' by default;
            a front end keeps its own scripts beside its code).
        parts: The files of ``_js/<name>/`` (without ``.js``) that open the function's
            body, in this order: a script split by concern (see :func:`assemble`).
    """

    name: str
    uses: tuple[str, ...] = ()
    package: str = __package__
    parts: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """The function's source, with its libraries bundled in (loaded once, cached)."""
        return source(self)


@functools.cache
def _read(name: str, package: str = __package__) -> str:
    """The text of ``_js/<name>.js`` of ``package`` as installed."""
    return (resources.files(package) / "_js" / f"{name}.js").read_text(encoding="utf-8").strip()


def _read_part(name: str, part: str, package: str) -> str:
    """The text of the part ``_js/<name>/<part>.js`` of ``package`` (indentation kept)."""
    path = resources.files(package).joinpath("_js", name, f"{part}.js")
    return path.read_text(encoding="utf-8").rstrip()


# The line that opens a script's function (after its leading comments).
_OPENING = re.compile(r"^[ \t]*(?:async[ \t]+)?function[ \t]*\([^)]*\)[ \t]*\{[ \t]*$", re.M)


def assemble(body: str, parts: list[str]) -> str:
    """``body`` (a script's function expression) with ``parts`` (each a run of
    declarations) put at the start of its function's body, in order: the one function the
    page runs, whose closure every part shares (so a part calls another's functions and
    reads the walk's state as if all were one file).

    Raises:
        ValueError: No line of ``body`` opens a function (``function(a, b) {``).
    """
    opening = _OPENING.search(body)
    if opening is None:
        raise ValueError("The script has no line opening its function: function(...) {")
    cut = opening.end()
    return body[:cut] + "\n" + "\n".join(parts) + body[cut:]


def _libraries(uses: tuple[str, ...]) -> list[str]:
    """``uses`` and what they need, each once, every library after the ones it needs."""
    ordered: list[str] = []

    def add(name: str) -> None:
        if name not in ordered:
            for need in _LIBRARY_NEEDS[name]:
                add(need)
            ordered.append(name)

    for name in uses:
        add(name)
    return ordered


@functools.cache
def source(script: Script) -> str:
    """The JavaScript source of ``script``: its function, or, when it uses libraries, a
    function that builds ``H`` from them and then applies the script's function."""
    body = _read(script.name, script.package)
    if script.parts:
        parts = [_read_part(script.name, part, script.package) for part in script.parts]
        body = assemble(body, parts)
    if not script.uses:
        return body
    libraries = "\n".join(_read(name) for name in _libraries(script.uses))
    return f"function(...args) {{\nconst H = {{}};\n{libraries}\nreturn ({body}).apply(this, args);\n}}"


def _expression(script: Script, args: tuple[Any, ...]) -> str:
    arguments = ", ".join(json.dumps(arg) for arg in args)
    return f"({script.source})({arguments})"


def thrown_at(details: ExceptionDetails) -> tuple[int | None, int | None]:
    """Where a script threw, 0-based ``(line, column)``, or ``(None, None)`` if unknown.

    Chrome's own ``lineNumber``/``columnNumber`` are 0-based for an exception thrown at
    once, but 1-based for a rejected promise and in REPL mode, where a value that is not
    an Error even comes with ``(0, 0)``; the top frame of the stack is 0-based always.
    A syntax error has no stack: its position is Chrome's (0-based).
    """
    trace = details.stack_trace
    if trace is not None and trace.call_frames:
        frame = trace.call_frames[0]
        return frame.line_number, frame.column_number
    exception = details.exception
    if exception is not None and exception.class_name == "SyntaxError":
        return details.line_number, details.column_number
    return None, None


def check_exception(details: ExceptionDetails | None, selector: str | None = None) -> None:
    """Raise what a script's exception means to the user, if it threw.

    Raises:
        ValueError: The finder rejected ``selector`` (``Invalid CSS selector: '...'``).
        EvaluationError: Any other exception: its text, line and column.
    """
    if details is None:
        return
    exception = details.exception
    text = (exception.description if exception is not None else None) or details.text
    text = text or "JavaScript error"
    if selector is not None and INVALID_SELECTOR in text:
        raise ValueError(f"Invalid CSS selector: {selector!r}")
    raise EvaluationError(text, *thrown_at(details))


async def evaluate(
    session: Session,
    script: Script,
    *args: Any,
    selector: str | None = None,
    await_promise: bool = False,
) -> Any:
    """Call ``script`` with JSON ``args`` in the session's main frame; its JSON value.

    Args:
        session: The page (or frame) session.
        script: The script.
        args: Its arguments, sent as JSON.
        selector: The selector the script is given, for the invalid-selector error.
        await_promise: Wait for a returned promise and return its value.

    Raises:
        ValueError: ``selector`` is not valid CSS.
        EvaluationError: The script threw.
    """
    result = await session.send(
        cdp.runtime.evaluate(
            _expression(script, args), return_by_value=True, await_promise=await_promise or None
        )
    )
    check_exception(result.exception_details, selector)
    return result.result.value


async def evaluate_handle(
    session: Session, script: Script, *args: Any, selector: str | None = None
) -> RemoteObject:
    """Call ``script`` with JSON ``args`` in the session's main frame; a handle on what it
    returned (``object_id`` is set when that is an object, not ``null``).

    Raises:
        ValueError: ``selector`` is not valid CSS.
        EvaluationError: The script threw.
    """
    result = await session.send(cdp.runtime.evaluate(_expression(script, args)))
    check_exception(result.exception_details, selector)
    return result.result


async def call_function(
    session: Session,
    object_id: str,
    function: Script | str,
    *args: Any,
    by_value: bool = True,
    await_promise: bool = False,
) -> RemoteObject:
    """Call ``function`` with ``this`` bound to the object ``object_id`` and JSON ``args``.

    Args:
        session: The session owning the object.
        object_id: The object's ``Runtime.RemoteObjectId``.
        function: A script, or the source of a JavaScript function.
        args: Its arguments, sent as JSON.
        by_value: Return the value as JSON (``.value``); otherwise a handle.
        await_promise: Wait for a returned promise.

    Raises:
        EvaluationError: The function threw.
    """
    declaration = function.source if isinstance(function, Script) else function
    result = await session.send(
        cdp.runtime.call_function_on(
            declaration,
            object_id=RemoteObjectId(object_id),
            arguments=[CallArgument(value=arg) for arg in args] if args else None,
            return_by_value=by_value or None,
            await_promise=await_promise or None,
        )
    )
    check_exception(result.exception_details)
    return result.result
