"""Recording a session as a script: :func:`record` and the :class:`Recording` it returns.

While a recording is active (``async with cdpkit.record(page, "flow.py")``, or
:meth:`Recording.activated` around the calls of a surface such as the MCP server), every
action tool of :mod:`cdpkit.tools` that succeeds is written down as the cdpkit call that
replays it (see :mod:`cdpkit.tools._recorded_script` for the program). The public tool
action tools are decorated with :func:`recorded` where they are defined; a call made
inside another recorded call (a tool using another) is not a step of its own.

The element an action targets is described BEFORE the action (it may be gone after), by
:func:`cdpkit.tools.locator_for`: role and name when they are unique, else the label,
the visible text, stable attributes, and only when nothing else identifies it, the
coordinates, with a comment saying so. A snapshot index is never written: it means
nothing to another run.

The file is rewritten whole and atomically after each step (a reader, or a crash, sees
the program before the step or after it, never half of one), so it is always a complete
program holding the steps done so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import datetime
import functools
import inspect
import math
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._core.files import write_private
from .._core.secrets import get_logger
from ..browser import Browser
from ..errors import ElementNotFoundError
from ..page import Dialog, Page
from ._recorded_script import Source, Step, literal, render_call, render_script
from ._recorded_targets import (
    drop_point,
    element_words,
    is_password_field,
    locate,
    summary,
    tab_step,
    types_text,
)
from ._targeting import main_document

if TYPE_CHECKING:
    from .files import DownloadResult

__all__ = ["Recording", "current_recording", "record", "recorded"]

log = get_logger("cdpkit.recording")

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

_ACTIVE: contextvars.ContextVar[Recording | None] = contextvars.ContextVar(
    "cdpkit_recording", default=None
)
# Set while a recorded call runs: the tools it calls in turn are part of it.
_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "cdpkit_recording_inside", default=False
)

# The keyword arguments naming the element an element tool acts on.
_TARGETS = ("selector", "index", "x", "y", "role", "name", "exact", "text", "label")
# The tools whose keyword-only arguments above are an element target.
_ELEMENT_TOOLS = frozenset(
    {"click", "hover", "type_text", "select_option", "upload_file", "drag", "check", "uncheck"}
)
# How long stop() waits for a load the last action asked for (it is waited for in the
# script either way).
_PENDING_LOAD_WAIT = 10.0
# Tools that wait for their own load: no wait is added after them.
_NAVIGATIONS = frozenset({"navigate", "go_back", "go_forward", "reload", "new_tab", "switch_tab"})
# Arguments that belong to the recording process, not to a replay (an object of this
# run, the server's download directory).
_NOT_REPLAYED = frozenset({"context", "dest_dir", "url_policy", "guard"})


def current_recording() -> Recording | None:
    """The recording active in this context (task), if any."""
    recording = _ACTIVE.get()
    return recording if recording is not None and recording.running else None


def recorded(function: F) -> F:
    """``function`` (a tool taking a page or a browser first), written down as a step of
    the active recording each time it succeeds. Without an active recording, or inside
    another recorded call, it is just called."""

    @functools.wraps(function)
    async def run(*args: Any, **kwargs: Any) -> Any:
        recording = current_recording()
        if recording is None or _INSIDE.get():
            return await function(*args, **kwargs)
        try:
            pending = await recording._before(function, args, kwargs)
        except TypeError:  # arguments the tool does not take: its own error says so
            return await function(*args, **kwargs)
        inside = _INSIDE.set(True)
        try:
            result = await function(*args, **kwargs)
        except ElementNotFoundError:
            recording._missed(pending)
            raise
        finally:
            _INSIDE.reset(inside)
            recording._in_flight.remove(pending)
        recording._after(pending, result)
        return result

    return cast(F, run)


@dataclasses.dataclass(slots=True)
class _Pending:
    """A step prepared before its action: written once the action succeeded."""

    build: Callable[[Any, float | None], Step]
    page: Page | None
    document: str | None
    key: tuple[Any, ...] | None = None  # the action and its locator
    dialog: tuple[bool, str | None] | None = None  # answered while the action ran
    requested: int = 0  # navigations of the page's main frame asked for before it ran


class Recording:
    """A session being recorded as a cdpkit script (see :func:`record`).

    Attributes:
        path: The file the script is written to after each step, ``None`` to keep it in
            memory only (:attr:`script`).
        steps: The steps recorded so far.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, start_url: str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.steps: list[Step] = []
        self.running = False
        self._when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        self._start_url = start_url
        self._token: contextvars.Token[Recording | None] | None = None
        # The page and main document of the latest action: did that action load a page?
        self._last: tuple[Step, Page, str | None, int] | None = None
        # Navigations each page's main frame was asked for (a submit, a link), by target
        # id: one an action started but that has not loaded yet is still its load.
        self._requested: dict[str, int] = {}
        self._tab: str | None = None  # the target id the script's `page` is
        self._next_dialog: tuple[bool, str | None] | None = None
        self._in_flight: list[_Pending] = []  # actions started, not ended
        # When an action first failed to find its element, by action and locator.
        self._misses: dict[tuple[Any, ...], float] = {}
        self._secrets = 0  # password fields typed into so far
        # The step typing a password key by key (press_key), and its page's target id:
        # the keys that follow it into that field are that same step.
        self._typing_secret: tuple[Step, str] | None = None

    # -- life ---------------------------------------------------------------------------

    def start(self, *, activate: bool = True) -> Recording:
        """Start recording the actions of this context (the current task and the tasks it
        starts); the file is written at once (a program with no step yet, or with the
        navigation to the page the recording started on).

        Args:
            activate: Record the calls of this context from now on; ``False`` records
                only the calls made in :meth:`activated` blocks.

        Raises:
            RuntimeError: It was started already.
            OSError: The file could not be written.
        """
        if self.running or self._token is not None or self.steps:
            raise RuntimeError("This recording was started already")
        if self._start_url and self._start_url != "about:blank":
            self.steps.append(
                Step(
                    render_call("navigate", "page", [self._start_url]),
                    comments=["Open the page the recording started on."],
                    action="navigate",
                )
            )
        try:
            self._write(starting=True)
        except OSError:
            self.steps.clear()
            raise
        self.running = True
        if activate:
            self._token = _ACTIVE.set(self)
        return self

    async def stop(self) -> str:
        """Stop recording; the last step's load (if it loaded a page) is waited for in
        the script too. Idempotent.

        Returns:
            The script.
        """
        if self.running:
            await self._settle_last()
            self.running = False
            self._write()
        token, self._token = self._token, None
        if token is not None:
            with contextlib.suppress(ValueError):  # stopped from another context
                _ACTIVE.reset(token)
        return self.script

    async def __aenter__(self) -> Recording:
        return self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def activated(self) -> Iterator[Recording]:
        """Record the calls made in the block (for surfaces whose calls run in tasks of
        their own: the MCP server, the REPL)."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    def context(self) -> contextvars.Context:
        """A copy of the current context with this recording active: a task run in it
        (``loop.create_task(coroutine, context=recording.context())``) is recorded."""
        context = contextvars.copy_context()
        context.run(_ACTIVE.set, self)
        return context

    @property
    def script(self) -> str:
        """The script so far: a complete program."""
        name = self.path.name if self.path is not None else "recording.py"
        return render_script(self.steps, when=self._when, name=name)

    def answer_next_dialog(self, accept: bool, prompt_text: str | None) -> None:
        """Note that the next action's JavaScript dialog is to be answered so (the MCP
        server's ``browser_handle_dialog`` before the action that opens it)."""
        self._next_dialog = (accept, prompt_text)

    def _write(self, *, starting: bool = False) -> None:
        if self.path is None:
            return
        try:
            # Whole and atomic: a crash leaves the program before or after a step.
            write_private(self.path, self.script)
        except OSError:
            if starting:
                raise  # the caller learns at once that the file cannot be written
            # The action itself succeeded: it must not look failed. The script stays in
            # memory (script, stop()) and the next step tries the file again.
            log.warning("Could not write the recording to %s", self.path, exc_info=True)

    # -- steps --------------------------------------------------------------------------

    async def _settle_last(self) -> None:
        """Did the latest action load a new document (a submit, a link)? Then the script
        waits for that load, as the session did before its next step."""
        last, self._last = self._last, None
        if last is None:
            return
        step, page, document, requested = last
        if document is None or step.action in _NAVIGATIONS or page.closed:
            return
        now = await main_document(page)
        if now == document and self._requested.get(page.target_id, 0) > requested:
            # Asked for, not committed yet (a form's POST still on its way): its document
            # comes; the replay must wait for it too, or end before the server sees it.
            deadline = time.monotonic() + _PENDING_LOAD_WAIT
            while now == document and time.monotonic() < deadline and not page.closed:
                await asyncio.sleep(0.05)
                now = await main_document(page)
        if now is not None and now != document:
            step.wait_for_load = True
            self._write()

    def _watch(self, page: Page) -> int:
        """Count the navigations ``page``'s main frame is asked for from now on; the count
        so far."""
        target = page.target_id
        if target not in self._requested:
            self._requested[target] = 0

            def requested(params: dict[str, Any]) -> None:
                # Not a link opening a tab, nor a download: a new document in this frame.
                if params.get("frameId") == target and params.get("disposition") == "currentTab":
                    self._requested[target] += 1

            page.on_event("Page.frameRequestedNavigation", requested)
        return self._requested[target]

    async def _before(
        self, function: Callable[..., Awaitable[Any]], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> _Pending:
        await self._settle_last()
        action = function.__name__
        bound = inspect.signature(function).bind(*args, **kwargs)
        first_name, first = next(iter(bound.arguments.items()))
        page = first if isinstance(first, Page) else None
        document = await main_document(page) if page is not None else None
        try:
            builder = await self._describe(action, function, bound, first_name, first)
        except Exception as exc:  # the action still runs; the step says it was not recorded
            # The replay stops there rather than go on without the step.
            stop = f"raise RuntimeError({literal(f'This {action} could not be recorded: {exc}')})"
            step = Step(None, comments=[f"{action}: not recorded"], after=[stop], action=action)
            failed = _Pending(lambda result, waited: step, page, document)
            self._in_flight.append(failed)
            return failed
        build, key = builder
        pending = _Pending(build, page, document, key, requested=self._watch(page) if page is not None else 0)
        self._in_flight.append(pending)
        return pending

    def _missed(self, pending: _Pending) -> None:
        """The action did not find its element: if it is tried again and succeeds, the
        script waits for the element as long as the session did."""
        if pending.key is not None:
            self._misses.setdefault(pending.key, time.monotonic())

    def _after(self, pending: _Pending, result: Any) -> None:
        if not self.running:
            return
        missed = self._misses.pop(pending.key, None) if pending.key is not None else None
        step = pending.build(result, None if missed is None else time.monotonic() - missed)
        if any(written is step for written in self.steps):
            return  # one more key of a password typed key by key: the step says it already
        if step.action == "handle_dialog" and isinstance(result, Dialog):
            # The action that opened it arms the answer in the script: the one running
            # now (the answer was waiting for it), else the latest one.
            answer = (bool(result.accepted), result.prompt_text)
            running = [p for p in self._in_flight if p is not pending and p.page is not None]
            if running:
                running[-1].dialog = answer
                return
            opener = next((s for s in reversed(self.steps) if s.action != "handle_dialog"), None)
            if opener is not None and opener.dialog is None:
                opener.dialog = answer
                self._write()
                return
        if pending.dialog is not None:
            step.dialog = pending.dialog
        if self._next_dialog is not None and step.action in _ELEMENT_TOOLS | {"press_key"}:
            step.dialog, self._next_dialog = self._next_dialog, None
        page = pending.page
        if page is not None and self._tab is not None and page.target_id != self._tab:
            # The session acts on another tab than the script's `page` (one the page
            # opened): the script follows the active tab too.
            self.steps.append(
                Step(
                    None,
                    comments=["The page opened a new tab, which became the active one."],
                    after=["page = current_tab(browser)"],
                    uses=frozenset({"current_tab"}),
                    action="follow_tab",
                )
            )
        if page is not None:
            self._tab = page.target_id
        elif step.assign == "page" and isinstance(result, Page):
            self._tab = result.target_id
        elif step.action == "close_tab":
            self._tab = None
        self.steps.append(step)
        if page is not None:
            self._last = (step, page, pending.document, pending.requested)
        self._write()

    def _new_secret(self) -> str:
        """The environment variable the next password typed is read from in the replay."""
        self._secrets += 1
        return f"CDPKIT_SECRET_{self._secrets}"

    def _secret_key(self, page: Page) -> Callable[[Any, float | None], Step]:
        """A key typed into a password field, never written down: the keys typed one after
        another into it are one step typing a secret the replay reads from the environment
        (the password is never seen here: only that a key typed a character of it)."""
        typing = self._typing_secret
        last = self.steps[-1] if self.steps else None
        if typing is not None and last is typing[0] and typing[1] == page.target_id:
            step = typing[0]
            return lambda result, waited: step

        def build(result: Any, waited: float | None) -> Step:
            variable = self._new_secret()
            step = Step(
                render_call("type_text", "page", [Source(f"secret({literal(variable)})")]),
                comments=[
                    "Type into the password field: pressed key by key when recorded.",
                    f"Set ${variable} to what those keys typed to replay it.",
                ],
                uses=frozenset({"secret"}),
                action="type_text",
            )
            self._typing_secret = (step, page.target_id)
            return step

        return build

    async def _describe(
        self,
        action: str,
        function: Callable[..., Awaitable[Any]],
        bound: inspect.BoundArguments,
        first_name: str,
        first: Any,
    ) -> tuple[Callable[[Any, float | None], Step], tuple[Any, ...] | None]:
        """How to write the step once the action succeeded (its result may matter, and
        how long it took to find its element when it was tried before), with everything
        about the element read now, before the action; and the action's key when it has
        a locator."""
        signature = bound.signature
        first_source = "browser" if isinstance(first, Browser) else "page"
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        targets: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            if name == first_name or name in _NOT_REPLAYED:
                continue
            parameter = signature.parameters[name]
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name in _TARGETS and action in _ELEMENT_TOOLS:
                targets[name] = value
            elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
                if value != parameter.default:
                    keywords[name] = value
            elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
                keywords.update(value)
            else:
                positional.append(value)
        comments: list[str] = []
        key = None
        what = ""
        uses: frozenset[str] = frozenset()
        typed = action == "press_key" and positional and types_text(positional[0])
        if typed and await is_password_field(first, {}):
            return self._secret_key(first), None
        if action == "type_text" and positional and await is_password_field(first, targets):
            # Never written down: the replay reads it from the environment.
            variable = self._new_secret()
            positional[0] = Source(f"secret({literal(variable)})")
            comments.append(f"Typed into a password field: set ${variable} to replay it.")
            uses = frozenset({"secret"})
        if targets:
            locator, comment = await locate(first, targets)
            keywords = {**locator, **keywords}
            comments += comment
            key = (action, *sorted((name, repr(value)) for name, value in locator.items()))
            what = element_words(locator)
        if action == "drag":
            destination, comment = await drop_point(first, keywords)
            keywords = {**keywords, **destination}
            comments += comment
        if action in ("switch_tab", "close_tab"):
            return await tab_step(action, first, positional), None
        # Checked now: a value the script cannot write fails the step, not the action.
        render_call(action, first_source, positional, keywords)

        timeout = signature.parameters.get("timeout")

        def build(result: Any, waited: float | None) -> Step:
            nonlocal keywords
            notes = list(comments)
            if waited is not None and timeout is not None:
                # A wait made it succeed: the replay waits for the element as long.
                given = keywords.get("timeout", timeout.default)
                seconds = max(given if isinstance(given, int | float) else 0, math.ceil(waited * 2))
                keywords = {**keywords, "timeout": seconds}
                notes.append(
                    f"Its element came late (found after {waited:.1f} s of trying): "
                    f"waited for up to {seconds} s."
                )
            if action == "download" and "url" not in keywords:
                # The link's URL at recording time: what the download fetched.
                download: DownloadResult = result
                keywords = {k: v for k, v in keywords.items() if k not in _TARGETS}
                keywords = {"url": download.url, **keywords}
                notes.append("The file at the URL the element linked to when recorded.")
            return Step(
                render_call(action, first_source, positional, keywords),
                assign="page" if action == "new_tab" else None,
                comments=[summary(action, what), *notes],
                uses=uses,
                action=action,
            )

        return build, key


def record(page: Page | None = None, path: str | os.PathLike[str] | None = None) -> Recording:
    """Record what is done with :mod:`cdpkit.tools` as a replayable cdpkit script.

    Every action tool that succeeds while the recording runs (navigate, click, type_text,
    select_option, upload_file, press_key, drag, hover, wait, wait_for, handle_dialog,
    download, new_tab, switch_tab, close_tab...) becomes a line of a complete Python
    program, written to ``path`` after each step::

        async with cdpkit.record(page, "signup.py") as recording:
            await tools.navigate(page, "https://example.com/signup")
            await tools.snapshot(page)
            await tools.type_text(page, "Ada", index=4)    # written: label="Name"
            await tools.click(page, index=9)               # written: role="button", name="Join"
        print(recording.script)

    ``python signup.py`` then replays it headless (``--headful`` to watch). Elements are
    written as the most robust locator :func:`cdpkit.tools.locator_for` finds, read
    before the action; a snapshot index never. An action that loaded a new page is
    followed by a wait for that load. What goes into a password field, typed whole or key
    by key (``press_key``), is never written: the script reads it from an environment
    variable (``$CDPKIT_SECRET_1``...) that a comment names.

    Args:
        page: The page the recording starts on: the script opens its URL first (unless
            it is ``about:blank``).
        path: The file to write (replaced atomically after each step, so a crash keeps
            the steps done); ``None`` to keep the script in memory only.

    Returns:
        The recording: an async context manager, or call :meth:`Recording.start` and
        :meth:`Recording.stop` (which returns the script). It records the calls made
        in the context (task) that started it and in the tasks started from there.
    """
    start_url = page.url if page is not None else None
    return Recording(path, start_url=start_url)
