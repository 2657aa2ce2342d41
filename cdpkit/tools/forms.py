"""Form and dialog tools: pick options of a ``<select>``, upload files to a file input,
answer JavaScript dialogs (``alert``, ``confirm``, ``prompt``, ``beforeunload``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from typing import Any, Unpack

from .. import cdp
from .._core.keywords import TARGET_DEFAULTS, TargetKeywords, keyword_signature
from ..errors import CDPError, ElementNotFoundError, TargetClosedError, WaitTimeoutError
from ..page import Dialog, Page
from ..session import Session
from ._dispatch import check_no_dialog
from ._pointing import release_elements
from ._recording import recorded
from ._scripts import Script
from ._targeting import Element, target_from

__all__ = [
    "handle_dialog",
    "select_option",
    "upload_file",
]

# -- form controls ----------------------------------------------------------------------------

_SELECT_OPTIONS = Script("select_options")


@recorded
@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def select_option(
    page: Page,
    values: str | Sequence[str],
    **target: Unpack[TargetKeywords],
) -> list[str]:
    """Choose the option(s) of a ``<select>`` element.

    Each value matches an option by its ``value`` attribute, else by its visible label
    (whitespace-insensitive, then case-insensitive). The chosen options become the
    selection (others are deselected) and ``input`` and ``change`` events are dispatched,
    as when a person picks from the list. A ``<label>`` of the select can be the target;
    any other element that is not a ``<select>`` is an error, even one holding a select.

    Args:
        page: The page.
        values: One value or label, or several for a ``<select multiple>``. An empty
            list clears a multiple select.
        selector: CSS selector of the select.
        index: Index of the select in the latest ``snapshot``.
        x: Viewport x of the select (with ``y``).
        y: Viewport y of the select (with ``x``).
        role: Role of the select as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the select.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Returns:
        The ``value`` of every option selected afterwards.

    Raises:
        ValueError: Several values for a single select; no value for a single select;
            the select or an option is disabled; an invalid selector.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element, it is not a ``<select>`` (nor the label of
            one; the message names what it is), or no option matches a value (the
            message lists the options).
        TargetClosedError: The page is closed.
    """
    wanted = [values] if isinstance(values, str) else list(values)
    chosen = target_from(target, "select_option")
    chosen.check()
    check_no_dialog(page)
    element = await chosen.resolve(page)
    try:
        result = await element.call(_SELECT_OPTIONS, wanted)
    finally:
        await release_elements(element)
    error = result.get("error")
    if error == "not-select":
        raise ElementNotFoundError(
            f"Element {element.description} is a <{result['tag']}>, not a <select>: "
            f"select_option needs the <select> itself (or its <label>)"
        )
    if error == "disabled":
        raise ValueError(f"The select {element.description} is disabled")
    if error == "missing":
        listed = ", ".join(
            f"{value!r}" if value == label else f"{value!r} ({label!r})"
            for value, label in result["options"]
        )
        raise ElementNotFoundError(
            f"No option {result['value']!r} in the select {element.description}; "
            f"options: {listed or 'none'}"
        )
    if error == "option-disabled":
        raise ValueError(f"The option {result['value']!r} of {element.description} is disabled")
    if error == "single":
        raise ValueError(
            f"The select {element.description} takes one value (it is not multiple); "
            f"got {len(wanted)}"
        )
    if error == "empty":
        raise ValueError(f"The select {element.description} needs a value (it is not multiple)")
    selected: list[str] = result["selected"]
    return selected


_CHECK_FILE_INPUT = Script("check_file_input")
# How long a clicked upload button has to open its file chooser.
_CHOOSER_WAIT = 3.0
_FIND_FILE_INPUT = Script("find_file_input")


@recorded
@keyword_signature(TargetKeywords, TARGET_DEFAULTS)
async def upload_file(
    page: Page,
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    **target: Unpack[TargetKeywords],
) -> list[str]:
    """Put files into an ``<input type=file>``, as if chosen in the file dialog.

    The input's ``files`` list is replaced and the page gets ``input`` and ``change``
    events. The files are read by the browser, so paths are on the machine where the
    browser runs. A ``<label>`` of the input, or an element wrapping it (a styled upload
    button), can be the target. So can a button that opens the file chooser from script
    (``input.click()`` on a hidden or unattached input): it is clicked with file choosers
    intercepted, and the files go to the input behind the chooser.

    Args:
        page: The page.
        paths: One path or several (several need ``<input multiple>``). An empty list
            clears the selection.
        selector: CSS selector of the file input.
        index: Index of the file input in the latest ``snapshot``.
        x: Viewport x of the input (with ``y``).
        y: Viewport y of the input (with ``x``).
        role: Role of the file input as the snapshot shows it, optionally with ``name``.
        name: With ``role``: its accessible name.
        exact: ``False``: ``name``/``text``/``label`` match a case-insensitive part.
        text: Visible text of the file input.
        label: Label of the form field (``<label>``, ``aria-labelledby``, ``aria-label``).
        timeout: Seconds a ``role``/``text``/``label`` locator waits for its element.

    Returns:
        The absolute paths given to the input.

    Raises:
        FileNotFoundError: A path is not an existing file (the message names it).
        ValueError: Several files for an input without ``multiple``; a disabled input;
            an invalid selector.
        AmbiguousLocatorError: The locator matched several elements (none was used).
        ElementNotFoundError: No such element, or it is not (and holds no) file input and
            clicking it opened no file chooser.
        TargetClosedError: The page is closed.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    files = [os.path.abspath(os.fspath(path)) for path in paths]
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"File not found: {path}")
    chosen = target_from(target, "upload_file")
    chosen.check()
    check_no_dialog(page)
    element = await chosen.resolve(page)
    try:
        chooser = await _set_files(element, files)
    finally:
        await release_elements(element)
    if chooser is not None:
        # No file input there: a button that opens the file chooser from script.
        clicked = (
            {"selector": chosen.selector, "index": chosen.index, "x": chosen.x, "y": chosen.y}
            if chosen.locator is None
            else chosen.locator.as_kwargs()
        )
        await _upload_through_chooser(page, element.session, files, chooser, clicked)
    return files


async def _upload_through_chooser(
    page: Page,
    session: Session,
    files: list[str],
    described: str,
    target: dict[str, Any],
) -> None:
    """Click the element with file choosers intercepted, and give the files to the input
    behind the chooser it opens (an ``<input type=file>`` made or clicked by script)."""
    from .pointer import click

    await session.send(cdp.page.set_intercept_file_chooser_dialog(True))
    try:
        async with session.listen(cdp.page.FileChooserOpened) as opened:
            await click(page, **target)
            try:
                async with asyncio.timeout(_CHOOSER_WAIT):
                    event = await anext(aiter(opened))
            except TimeoutError:
                raise ElementNotFoundError(
                    f"{described}, and clicking it opened no file chooser within "
                    f"{_CHOOSER_WAIT:g} s"
                ) from None
        if event.backend_node_id is None:
            raise ValueError(
                f"Clicking {described.split(' is a ', 1)[0].removeprefix('Element ')} opened a "
                "file picker that is not an <input type=file> (the File System Access API): "
                "it cannot be given files"
            )
        if event.mode == cdp.page.FileChooserOpenedMode.SELECT_SINGLE and len(files) > 1:
            raise ValueError(f"The file chooser it opened takes one file; got {len(files)}")
        await session.send(
            cdp.dom.set_file_input_files(files, backend_node_id=event.backend_node_id)
        )
    finally:
        with contextlib.suppress(CDPError):
            await session.send(cdp.page.set_intercept_file_chooser_dialog(False))


async def _set_files(element: Element, files: list[str]) -> str | None:
    """Give ``files`` to the file input the element is or holds; when it is none, return
    how to describe the element (the caller then tries a file chooser)."""
    check = await element.call(_CHECK_FILE_INPUT, len(files))
    error = check.get("error")
    if error == "not-file":
        described = (
            f"Element {element.description} is a <{check['tag']}>, not a file input "
            f"(<input type=file>), holds none"
        )
        if not check.get("clickable"):
            raise ElementNotFoundError(
                f"{described}, and it is not a button that could open a file chooser (a form "
                "field, a submit button or a link is never clicked for that)"
            )
        return described
    if error == "disabled":
        raise ValueError(f"The file input {element.description} is disabled")
    if error == "single":
        raise ValueError(
            f"The file input {element.description} takes one file (it has no 'multiple' "
            f"attribute); got {len(files)}"
        )
    field = await element.call_for_element(_FIND_FILE_INPUT)
    assert field is not None
    try:
        await field.session.send(
            cdp.dom.set_file_input_files(
                files, object_id=cdp.runtime.RemoteObjectId(field.object_id)
            )
        )
    finally:
        await release_elements(field)
    return None


# -- dialogs ----------------------------------------------------------------------------------


@recorded
async def handle_dialog(
    page: Page,
    *,
    accept: bool = True,
    prompt_text: str | None = None,
    timeout: float = 30,
) -> Dialog:
    """Answer a JavaScript dialog (``alert``, ``confirm``, ``prompt``, ``beforeunload``).

    Answers the dialog open now, if any. Otherwise answers the next one the page opens,
    waiting up to ``timeout`` for it: start this call before the action that opens the
    dialog (e.g. ``asyncio.create_task(handle_dialog(page, prompt_text="Ada"))``, then
    ``click``). Dialogs no call is waiting for are answered by ``page.dialog_policy``
    (dismissed by default) and recorded in ``page.dialogs``.

    Args:
        page: The page.
        accept: Accept (OK) or dismiss (Cancel) the dialog.
        prompt_text: The text to answer a ``prompt()`` with (when accepting).
        timeout: Seconds to wait for a dialog when none is open.

    Returns:
        The dialog answered: its type, message, default prompt, and the answer given.

    Raises:
        WaitTimeoutError: No dialog opened within ``timeout``.
        TargetClosedError: The page is closed (or closed while waiting).
    """
    page.raise_if_closed()
    dialog = page.open_dialog
    if dialog is None:
        dialog = await _next_dialog(page, timeout)
    dialog.accepted = accept
    dialog.prompt_text = prompt_text if accept else None
    await page.send(cdp.page.handle_java_script_dialog(accept, prompt_text=prompt_text))
    return dialog


async def _next_dialog(page: Page, timeout: float) -> Dialog:
    """Wait for the next dialog, keeping the page's dialog policy from answering it."""
    loop = asyncio.get_running_loop()
    arrived: asyncio.Future[Dialog] = loop.create_future()
    previous = page.dialog_policy

    def take(dialog: Dialog) -> tuple[bool, str | None] | None:
        page.dialog_policy = previous
        if not arrived.done():
            arrived.set_result(dialog)
        return None  # leave it open: the caller answers it

    page.dialog_policy = take
    closed: asyncio.Future[Any] = asyncio.ensure_future(page.wait_closed())
    try:
        done, _ = await asyncio.wait(
            {arrived, closed}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        closed.cancel()
        if page.dialog_policy is take:
            page.dialog_policy = previous
    if arrived in done:
        return arrived.result()
    if page.closed:
        raise TargetClosedError("The page was closed while waiting for a dialog")
    raise WaitTimeoutError("a JavaScript dialog to open", timeout)
