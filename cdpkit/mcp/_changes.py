"""What an action changed on the page, said in a few lines instead of a whole snapshot.

Around an action tool (click, type, navigate...), :func:`watch_changes` notes where the
tab was (URL, title) and what its console held; after the action it waits briefly for
the action's consequences (a navigation it started: until that load stops, at most
:data:`NAVIGATION_WAIT` seconds), then :func:`summarize` writes the result: the URL or
title change, a download that started, new console errors, and how the page's outline
changed since the agent's last ``browser_snapshot`` (the change lines themselves when
there are few). The dialog and new-tab notes come from
:func:`cdpkit.mcp._reach.watch_beside`. With nothing to say: one line, the action was
done and nothing visible changed. ``--snapshot-after-action`` appends a full snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

from .. import cdp
from .._core.secrets import get_logger
from ..errors import CDPError
from ..page import ConsoleEntry, Page
from ..tools.accessibility import peek_changes
from ..tools.information import ConsoleMessage, console_message_from
from ._schema import Part, Text

__all__ = ["LOADED_SETTLE", "NAVIGATION_WAIT", "PageChanges", "summarize", "watch_changes"]

log = get_logger("cdpkit.mcp")

# After an action: how long its quick consequences (a timer's error, a navigation's
# start) get to show, and how long a navigation it started gets to finish loading.
SETTLE = 0.15
# The same for a tool that itself waited for the page to load (browser_navigate, back,
# forward, reload): only the events already on their way are read, as playwright-mcp
# answers once the load is done; its own navigation's start is among them, and is not
# waited for again (a page usable before its load event would wait out NAVIGATION_WAIT).
LOADED_SETTLE = 0.02
NAVIGATION_WAIT = 10.0
# The outline's change lines are listed up to this many; more are only counted.
MAX_CHANGE_LINES = 8
# How long the outline comparison may take before it is left out.
OUTLINE_WAIT = 5.0

_EVENTS = (
    "Page.frameRequestedNavigation",
    "Page.frameStartedLoading",
    "Page.frameStoppedLoading",
    "Page.downloadWillBegin",
)


@dataclasses.dataclass(slots=True)
class PageChanges:
    """What :func:`watch_changes` saw around one action.

    Attributes:
        url_before: The tab's URL before the action.
        title_before: Its title before.
        url: Its URL after (the action and the load it started).
        title: Its title after.
        downloads: ``(suggested file name, URL)`` of each download the page started.
        errors: The console errors logged meanwhile, oldest first.
        outline: The change lines of the page's outline since the agent's last full
            snapshot; ``None`` when there was none to compare with (or a new document).
        still_loading: A navigation the action started had not finished loading.
    """

    url_before: str = ""
    title_before: str = ""
    url: str = ""
    title: str = ""
    downloads: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    errors: list[ConsoleMessage] = dataclasses.field(default_factory=list)
    outline: list[str] | None = None
    still_loading: bool = False


async def _where(page: Page) -> tuple[str, str]:
    """The tab's URL and title, asked from the browser: it answers even while a dialog
    blocks the page."""
    try:
        info = await page.browser.send_json(
            cdp.target.get_target_info(target_id=cdp.target.TargetID(page.target_id)), timeout=5
        )
    except (CDPError, TimeoutError):
        return page.url, page.title
    target = info["targetInfo"]
    return target["url"], target["title"]


def _new_entries(before: list[ConsoleEntry], after: list[ConsoleEntry]) -> list[ConsoleEntry]:
    """The entries of ``after`` logged after the last of ``before`` (the buffer may have
    dropped old ones meanwhile: entries are matched by identity)."""
    if not before:
        return after
    last = before[-1]
    for position in range(len(after) - 1, -1, -1):
        if after[position] is last:
            return after[position + 1 :]
    return after  # the last one known was dropped: all are new


@contextlib.asynccontextmanager
async def watch_changes(
    page: Page, settle: float = SETTLE, *, loaded: bool = False
) -> AsyncIterator[PageChanges]:
    """Watch one action on ``page``; the :class:`PageChanges` yielded is filled in when
    the block exits normally (after the action's consequences settled: ``settle``
    seconds without a navigation starting, or after the one started stopped loading).
    ``loaded``: the action waited for its own navigation as far as it was asked to
    (``wait_until``), so a navigation seen starting is not waited for."""
    changes = PageChanges()
    changes.url_before, changes.title_before = await _where(page)
    console_before = page.console_entries()
    main_frame = page.target_id
    async with page.listen(*_EVENTS, raw=True) as events:
        yield changes
        loop = asyncio.get_running_loop()
        loading = False
        try:
            async with asyncio.timeout(settle) as deadline:
                async for event in events:
                    params = event.params
                    if event.method == "Page.downloadWillBegin":
                        changes.downloads.append(
                            (str(params.get("suggestedFilename", "")), str(params.get("url", "")))
                        )
                    elif params.get("frameId") != main_frame:
                        continue
                    elif event.method == "Page.frameStoppedLoading":
                        if loading:
                            # A download answers a navigation right after its load stops.
                            loading = False
                            deadline.reschedule(loop.time() + settle)
                    elif not loading and not loaded:  # a navigation requested or started
                        loading = True
                        deadline.reschedule(loop.time() + NAVIGATION_WAIT)
        except TimeoutError:
            changes.still_loading = loading
    changes.url, changes.title = await _where(page)
    changes.errors = [
        message
        for kind, params in _new_entries(console_before, page.console_entries())
        if (message := console_message_from(kind, params)) is not None
        and message.level == "error"
        and not _is_favicon_miss(message)
    ]
    if page.open_dialog is None and changes.url == changes.url_before:
        # An open dialog would block the accessibility tree; after a navigation, the
        # outline is a new one anyway.
        try:
            async with asyncio.timeout(OUTLINE_WAIT):
                changes.outline = await peek_changes(page, boxes="interactive")
        except (CDPError, TimeoutError) as exc:
            log.debug("No outline comparison after the action: %s", exc)


def _is_favicon_miss(message: ConsoleMessage) -> bool:
    # The browser's own request for a site icon the site does not have: not the page's.
    return message.url.split("?")[0].endswith("/favicon.ico") and message.text.startswith(
        "Failed to load resource"
    )


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize(
    changes: PageChanges, notes: list[Part], said: list[Part] | None = None, *,
    url_said: bool = False,
) -> list[Part]:
    """The parts of an action's result: what the tool said (``said``; ``None`` when it
    returned nothing), the lines saying what the action changed, then ``notes`` (what
    happened beside it, dialogs and new tabs, already worded). A tool that said nothing
    and changed nothing visible gets one line saying so. ``url_said``: the tool's own
    result gives the URL and title (a navigation), so they are not repeated."""
    lines: list[str] = []
    if url_said:
        pass
    elif changes.url != changes.url_before:
        lines.append(
            f"The page is now {changes.url} (was {changes.url_before}); title "
            f"{_short(changes.title)!r}."
        )
    elif changes.title != changes.title_before:
        lines.append(
            f"The title changed to {_short(changes.title)!r} (was "
            f"{_short(changes.title_before)!r})."
        )
    if changes.still_loading:
        lines.append(
            f"The page was still loading after {NAVIGATION_WAIT:g} s; browser_wait_for "
            f"waits for what you need."
        )
    for filename, url in changes.downloads:
        lines.append(
            f"A download started: {filename or 'a file'} from {url}. The server saves it in "
            f"its download directory: browser_downloads lists it with its path."
        )
    if changes.errors:
        count = len(changes.errors)
        lines.append(f"{count} new console error{'s' if count > 1 else ''}:")
        lines += [f"  {_short(str(error), 300)}" for error in changes.errors[-5:]]
        if count > 5:
            lines.append("  (older ones: browser_get_console_logs level=error)")
    outline = changes.outline
    if outline is not None and outline != ["unchanged"]:
        if len(outline) <= MAX_CHANGE_LINES:
            lines.append("Changes since your last browser_snapshot:")
            lines += [f"  {_short(line, 300)}" for line in outline]
        else:
            counts = {sign: sum(line.startswith(sign) for line in outline) for sign in "+-~"}
            lines.append(
                f"{len(outline)} lines changed since your last browser_snapshot "
                f"({counts['+']} added, {counts['-']} removed, {counts['~']} changed): "
                f"browser_snapshot diff=true lists them."
            )
    if said is not None:
        return said + ([Text("\n".join(lines))] if lines else []) + notes
    if not lines and not notes:
        seen = "" if outline is not None else " in the URL, title or console"
        return [Text(f"Done; nothing visible changed{seen}.")]
    return [Text("\n".join(["Done.", *lines])), *notes]

