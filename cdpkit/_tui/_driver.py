"""What the TUI does, without the screen: pages read through the browse engine, history,
and a real page (tier 3) of the session for what must happen in a browser (a form
submitted, a snapshot, a click by index). The app only calls these and shows the results.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CDPError
from ._render import SKIPPED_TYPES

if TYPE_CHECKING:
    from .._browse import BrowseResult, Engine
    from ..page import Page
    from ..tools import DownloadResult

__all__ = ["DEFAULT_SESSION", "Driver"]

DEFAULT_SESSION = "tui"
# How long an action on the live page may take to start a navigation before the page is
# read as it is; and to finish loading once one started.
_NAVIGATION_START = 1.0
_READ_TIMEOUT = 10.0
_TRUE = ("on", "true", "yes", "1", "x", "checked")


class Driver:
    """The TUI's browsing: ``engine.browse`` of the whole page (its navigation, header and
    footer too: every link of the page has a number to follow) with numbered links in one
    named session, a history with back and forward, and a live tier-3 page when one is
    needed.

    Args:
        engine: The engine (its owner closes it; :meth:`close` closes the live page).
        session: The session's name (its cookies are shared by every tier).
        tier: Use exactly this tier (``None``: the engine escalates as needed).
        persist: Save the session's cookies when the engine closes.
        timeout: Seconds for a page, all tiers together.
    """

    def __init__(
        self, engine: Engine, *, session: str = DEFAULT_SESSION, tier: int | None = None,
        persist: bool = False, timeout: float = 30.0,
    ) -> None:  # fmt: skip
        self.engine = engine
        self.session = session
        self.tier = tier
        self.persist = persist
        self.timeout = timeout
        self.history: list[str] = []
        self.position = -1
        self.result: BrowseResult | None = None
        self.snapshot_text: str | None = None
        self._page: Page | None = None

    # -- reading pages ----------------------------------------------------------------------

    async def open(self, url: str, *, record: bool = True) -> BrowseResult:
        """Read ``url`` and make it the current page (added to the history unless
        ``record`` is false). On failure nothing changes and the error is raised.

        Raises:
            BrowseError: The page could not be read (the message says why).
            ValueError: A URL the engine does not read.
        """
        result = await self.engine.browse(
            url, session=self.session, persist=self.persist, tier=self.tier, format="markdown",
            link_style="numbered", timeout=self.timeout, readability=False, keep_page_chrome=True,
        )  # fmt: skip
        self._show(result, record=record)
        return result

    def _show(self, result: BrowseResult, *, record: bool) -> None:
        self.result = result
        self.snapshot_text = None
        if record:
            del self.history[self.position + 1 :]
            self.history.append(result.final_url)
            self.position = len(self.history) - 1

    async def back(self) -> BrowseResult | None:
        """The previous page of the history, ``None`` when there is none."""
        return await self._go(-1)

    async def forward(self) -> BrowseResult | None:
        """The next page of the history, ``None`` when there is none."""
        return await self._go(1)

    async def _go(self, step: int) -> BrowseResult | None:
        target = self.position + step
        if not 0 <= target < len(self.history):
            return None
        result = await self.open(self.history[target], record=False)
        self.position = target
        return result

    async def reload(self) -> BrowseResult | None:
        """The current page read again (``None`` when there is none)."""
        if self.result is None:
            return None
        return await self.open(self.result.final_url, record=False)

    def link_url(self, number: int) -> str:
        """The URL of link ``[number]`` of the current page.

        Raises:
            ValueError: No such link (the message says how many there are).
        """
        links = self.result.links if self.result is not None else []
        for link in links:
            if link.number == number:
                return link.url
        raise ValueError(f"No link [{number}] on this page (it has {len(links)} link{'s' if len(links) != 1 else ''})")

    async def follow(self, number: int) -> BrowseResult:
        """Open link ``[number]`` of the current page."""
        return await self.open(self.link_url(number))

    # -- the live page (tier 3) -------------------------------------------------------------

    async def live_page(self) -> Page:
        """A real page of the session showing the current URL (opened, or navigated there,
        when needed).

        Raises:
            ValueError: No page is open yet.
        """
        from ..tools import navigate

        if self.result is None:
            raise ValueError("Open a page first (o or :open URL)")
        url = self.result.final_url
        if self._page is None or self._page.closed:
            self._page = await self.engine.session_page(self.session, persist=self.persist, timeout=self.timeout)
        if self._page.url != url:
            # The engine's [browser] script_timeout (--script-timeout over the config
            # file's), as its own renders take it: a stalled script does not hold the page.
            script_timeout = self.engine.config.browser.script_timeout or None
            await navigate(self._page, url, timeout=self.timeout, script_timeout=script_timeout)
        return self._page

    async def _read_live(self, page: Page) -> BrowseResult:
        result = await self.engine.page_result(page, session=self.session, link_style="numbered", keep_page_chrome=True)
        if self.result is None or result.final_url != self.result.final_url:
            self._show(result, record=True)  # another page: the snapshot's indices are gone
        else:
            self.result = result
        return result

    async def snapshot(self) -> str:
        """The accessibility snapshot (``[index] role "name"`` lines) of the current page
        in the live page; ``:click``/``:type`` take its indices."""
        from ..tools import snapshot

        page = await self.live_page()
        self.snapshot_text = (await snapshot(page)).text
        return self.snapshot_text

    def _snapshot_page(self) -> Page:
        if self._page is None or self._page.closed or self.snapshot_text is None:
            raise ValueError("Take a snapshot first (:snapshot): :click and :type use its indices")
        return self._page

    async def click(self, index: int) -> BrowseResult:
        """Click element ``[index]`` of the latest snapshot in the live page, wait for a
        navigation it starts, and make what the page shows then the current page."""
        from ..tools import click

        page = self._snapshot_page()
        await _acting(page, click(page, index=index), self.timeout)
        return await self._read_live(page)

    async def type_text(self, index: int, text: str) -> BrowseResult:
        """Type ``text`` into element ``[index]`` of the latest snapshot (replacing what it
        held), then read the page again."""
        from ..tools import type_text

        page = self._snapshot_page()
        await type_text(page, text, index=index, clear=True)
        return await self._read_live(page)

    async def submit(self, form_number: int, values: dict[str, str]) -> BrowseResult:
        """Submit form ``form_number`` of the current page through the live page: each
        field in ``values`` is filled with real key presses (or clicks, for checkboxes and
        choices), then the form's submit control is clicked, so the site receives a real
        browser's submit. The page it leads to becomes the current page.

        Raises:
            ValueError: No such form.
            ElementNotFoundError: A field or the submit control is not on the live page.
        """
        from ..tools import Script, click, count_elements, element_state, select_option, type_text
        from ..tools import evaluate_script as evaluate

        # The TUI's own scripts (cdpkit/_tui/_js/), loaded once like the tools'.
        mark_form = Script("mark_form", package=__package__)
        request_submit = Script("request_submit", package=__package__)

        if self.result is None or not 0 <= form_number < len(self.result.forms):
            raise ValueError(f"No form {form_number + 1} on this page")
        form = self.result.forms[form_number]
        page = await self.live_page()
        mark = secrets.token_hex(4)
        if not await evaluate(page, mark_form, form_number, mark):
            raise ValueError(f"Form {form_number + 1} is no longer on {page.url}")
        scope = f'form[data-cdpkit-tui="{mark}"]'
        types = {field.name: field.type for field in form.fields}
        for name, value in values.items():
            kind = types.get(name, "text")
            if kind in SKIPPED_TYPES:
                continue
            selector = f"{scope} [name={json.dumps(name)}]"
            if kind == "checkbox":
                checked = (await element_state(page, selector=selector)).checked
                if bool(checked) != (value.lower() in _TRUE):
                    await click(page, selector=selector)
            elif kind == "radio":
                await click(page, selector=f"{selector}[value={json.dumps(value)}]")
            elif kind == "select":
                await select_option(page, value, selector=selector)
            else:
                await type_text(page, value, selector=selector, clear=True)
        submit = f"{scope} [type=submit], {scope} button:not([type]), {scope} input[type=image]"
        if await count_elements(page, submit):
            await _acting(page, click(page, selector=submit), self.timeout)
        else:  # no submit control: what Enter in a field does
            await _acting(page, evaluate(page, request_submit, scope), self.timeout)
        return await self._read_live(page)

    async def screenshot(self, path: str) -> Path:
        """Save a screenshot of the current page (in the live page) as PNG to ``path``."""
        from ..tools import screenshot

        page = await self.live_page()
        target = Path(path).expanduser()
        data = await screenshot(page, full_page=False)
        await asyncio.to_thread(target.write_bytes, data)
        return target.resolve()

    async def download(self, number: int, dest_dir: str | None = None) -> DownloadResult:
        """Download link ``[number]``'s resource as the live page would (its cookies and
        referer) into ``dest_dir`` (the current directory by default), named as the server
        or the URL says (never overwriting a file)."""
        from ..tools import download

        url = self.link_url(number)
        page = await self.live_page()
        return await download(
            page, url=url, dest_dir=dest_dir or Path.cwd(), server_filename=True, timeout=self.timeout
        )

    def markdown(self) -> str:
        """The current page as markdown: its content, then its numbered links' URLs."""
        if self.result is None:
            raise ValueError("Open a page first (o or :open URL)")
        result = self.result
        refs = "".join(f"\n[{link.number}]: {link.url}" for link in result.links if link.number is not None)
        header = f"<!-- {result.final_url} -->\n\n"
        return header + result.content.rstrip("\n") + ("\n" + refs if refs else "") + "\n"

    async def save_markdown(self, path: str) -> Path:
        """Write :meth:`markdown` to ``path``."""
        target = Path(path).expanduser()
        text = self.markdown()
        await asyncio.to_thread(target.write_text, text, "utf-8")
        return target.resolve()

    async def use_session(self, name: str) -> BrowseResult | None:
        """Browse in session ``name`` from now on (its cookies), reading the current page
        again in it."""
        from .._browse import check_session_name

        check_session_name(name)
        await self._close_page()
        self.session = name
        return await self.reload()

    async def _close_page(self) -> None:
        page, self._page = self._page, None
        if page is not None and not page.closed:
            with contextlib.suppress(CDPError, TimeoutError):
                await page.close(timeout=2)

    async def close(self) -> None:
        """Close the live page (the engine's owner closes the engine and its browser)."""
        await self._close_page()


async def _acting(page: Page, action: Awaitable[object], timeout: float) -> None:
    """Run ``action`` (an awaitable acting on ``page``) and, when it starts a navigation
    within a second, wait for the new page's load event (at most ``timeout``)."""
    async with page.listen(
        "Page.frameRequestedNavigation", "Page.frameStartedLoading", "Page.loadEventFired", raw=True
    ) as events:
        await action
        loop = asyncio.get_running_loop()
        started = False
        deadline = loop.time() + _NAVIGATION_START
        with contextlib.suppress(TimeoutError):
            while True:
                async with asyncio.timeout(max(0.0, deadline - loop.time())):
                    event = await anext(events)
                if event.method == "Page.loadEventFired":
                    if started:
                        return
                    continue
                if not started:
                    started = True
                    deadline = loop.time() + timeout

