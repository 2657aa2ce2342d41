"""Save and restore a login: cookies, localStorage and sessionStorage, in Playwright's
``storage_state`` JSON format, so state files move between the two.

The core of :func:`cdpkit.tools.save_storage_state` / ``load_storage_state``, here below
the tools because ``launch(storage_state=...)`` and ``new_context(storage_state=...)`` use
it too.

The file is ``{"cookies": [...], "origins": [{"origin", "localStorage": [{"name",
"value"}], "sessionStorage": [...]}]}``; cookies carry ``name``, ``value``, ``domain``,
``path``, ``expires`` (``-1`` for a session cookie), ``httpOnly``, ``secure`` and
``sameSite`` (``"Strict"``, ``"Lax"`` or ``"None"``). ``sessionStorage`` is cdpkit's
addition (Playwright ignores it); a Playwright file loads as it is.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import anyio

from .. import cdp
from .._core.files import write_private
from ..errors import CDPError, EvaluationError
from ..page import Page
from .navigation import load

if TYPE_CHECKING:
    from ..browser import Browser, BrowserContext

__all__ = ["StorageState", "load_storage_state", "save_storage_state"]

StorageState: TypeAlias = dict[str, Any]
"""A ``storage_state`` document: ``{"cookies": [...], "origins": [...]}``."""

_READ = "storage_read"
_WRITE = "storage_write"
_SAME_SITE = {"Strict", "Lax", "None"}


async def save_storage_state(
    target: Page | BrowserContext | Browser, path: str | os.PathLike[str] | None = None
) -> StorageState:
    """Save the cookies of ``target``'s browser context and the localStorage and
    sessionStorage of its open pages (each page's top-level origin).

    Args:
        target: A page (its context is saved, with that page's storage), a context (all
            its pages), or a browser (its default context).
        path: Where to write the JSON (mode 0600: it holds credentials; a file already
            there is replaced by a new 0600 file, atomically); ``None`` only returns it.

    Returns:
        The state, as written.
    """
    browser, context_id, pages = _scope(target)
    result = await browser.send(cdp.storage.get_cookies(browser_context_id=_context_id(context_id)))
    cookies = [_cookie_out(cookie.model_dump(by_alias=True)) for cookie in result.cookies]
    origins: dict[str, dict[str, Any]] = {}
    for page in pages:
        with contextlib.suppress(CDPError):
            read = await evaluate(page, _READ)
            if not isinstance(read, dict) or not str(read.get("origin", "")).startswith("http"):
                continue  # about:blank, data: and file: pages have no origin to restore
            entry = origins.setdefault(
                read["origin"], {"origin": read["origin"], "localStorage": [], "sessionStorage": []}
            )
            entry["localStorage"] = read["localStorage"]
            entry["sessionStorage"] = read["sessionStorage"]
    state: StorageState = {"cookies": cookies, "origins": list(origins.values())}
    if path is not None:
        text = json.dumps(state, indent=2)
        await anyio.to_thread.run_sync(write_private, Path(path), text)
    return state


async def load_storage_state(
    target: BrowserContext | Browser, state: str | os.PathLike[str] | Mapping[str, Any]
) -> None:
    """Load a ``storage_state`` file (or the dict :func:`save_storage_state` returned) into
    a context (or a browser's default context): its cookies are set, and each origin's
    localStorage is written through a blank document of that origin that never reaches
    the network. sessionStorage belongs to a tab, so it is restored into the target's
    pages that are open at that origin (none, for a fresh context).

    Raises:
        ValueError: The file is not a storage state (says what is wrong with it).
        FileNotFoundError: No such file.
    """
    data = await _read_state(state)
    browser, context_id, pages = _scope(target)
    cookies = [_cookie_in(cookie, index) for index, cookie in enumerate(data["cookies"])]
    if cookies:
        await browser.send(
            cdp.storage.set_cookies(cookies, browser_context_id=_context_id(context_id))
        )
    for origin in data["origins"]:
        local = origin.get("localStorage") or []
        session = origin.get("sessionStorage") or []
        if local:
            await _write_origin(target, origin["origin"], local)
        if session:
            for page in pages:
                with contextlib.suppress(CDPError):
                    await evaluate(page, _WRITE, origin["origin"], [], session)


def _scope(target: Page | BrowserContext | Browser) -> tuple[Browser, str | None, list[Page]]:
    if isinstance(target, Page):
        context = target.context
        return target.browser, context.id if context else None, [target]
    owner = getattr(target, "browser", None)
    if owner is not None:  # a BrowserContext (not imported here: browser.py imports this)
        context = cast("BrowserContext", target)
        return context.browser, context.id, context.pages
    browser = cast("Browser", target)
    return browser, None, [page for page in browser.pages if page.context is None]


def _context_id(context_id: str | None) -> cdp.browser.BrowserContextID | None:
    return cdp.browser.BrowserContextID(context_id) if context_id else None


def _cookie_out(cookie: Mapping[str, Any]) -> dict[str, Any]:
    out = {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie["path"],
        "expires": -1 if cookie.get("session") else cookie.get("expires", -1),
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": cookie.get("sameSite") or "Lax",  # Chrome's default when unset
    }
    return out


def _cookie_in(cookie: Any, index: int) -> cdp.network.CookieParam:
    if not isinstance(cookie, Mapping) or not {"name", "value"} <= cookie.keys():
        raise ValueError(f"storage state: cookies[{index}] needs at least name and value")
    if not cookie.get("domain") and not cookie.get("url"):
        raise ValueError(f"storage state: cookie {cookie['name']!r} needs a domain or a url")
    same_site = cookie.get("sameSite")
    if same_site is not None and same_site not in _SAME_SITE:
        raise ValueError(
            f"storage state: cookie {cookie['name']!r} has sameSite {same_site!r}; use Strict, Lax or None"
        )
    expires = cookie.get("expires")
    # Only what the file has: an unset field is left out of the command (null is invalid).
    fields: dict[str, Any] = {
        "url": cookie.get("url"),
        "domain": cookie.get("domain"),
        "path": cookie.get("path", "/"),
        "secure": cookie.get("secure"),
        "http_only": cookie.get("httpOnly"),
        "same_site": cdp.network.CookieSameSite(same_site) if same_site else None,
        "expires": (
            cdp.network.TimeSinceEpoch(float(expires))
            if isinstance(expires, int | float) and expires >= 0
            else None
        ),
    }
    return cdp.network.CookieParam(
        name=str(cookie["name"]),
        value=str(cookie["value"]),
        **{name: value for name, value in fields.items() if value is not None},
    )


async def _read_state(state: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(state, Mapping):
        data: Any = dict(state)
        where = "storage state"
    else:
        path = Path(state)
        text = await anyio.to_thread.run_sync(path.read_text)
        where = f"storage state {path}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where} is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be a JSON object with cookies and origins")
    cookies = data.get("cookies", [])
    origins = data.get("origins", [])
    if not isinstance(cookies, list) or not isinstance(origins, list):
        raise ValueError(f"{where}: cookies and origins must be lists")
    for index, origin in enumerate(origins):
        if not isinstance(origin, dict) or not str(origin.get("origin", "")).startswith(
            ("http://", "https://")
        ):
            raise ValueError(f"{where}: origins[{index}] needs an http(s) origin")
    return {"cookies": cookies, "origins": origins}


async def _write_origin(target: BrowserContext | Browser, origin: str, items: list[Any]) -> None:
    """Write localStorage of ``origin`` through a throwaway page whose document request is
    answered here (an empty page), so the site is never contacted."""
    page = await target.new_page()
    url = origin.rstrip("/") + "/"
    try:
        await page.send(
            cdp.fetch.enable(patterns=[cdp.fetch.RequestPattern(url_pattern=url + "*")])
        )
        async with (
            page.listen(cdp.fetch.RequestPaused) as paused,
            anyio.create_task_group() as group,
        ):

            async def answer_first() -> None:
                async for event in paused:
                    await page.send(
                        cdp.fetch.fulfill_request(
                            event.request_id,
                            200,
                            response_headers=[
                                cdp.fetch.HeaderEntry(name="Content-Type", value="text/html")
                            ],
                            body=base64.b64encode(b"<!doctype html><title></title>").decode(),
                        )
                    )
                    return

            group.start_soon(answer_first)
            await load(page, url, timeout=30)
        await page.send(cdp.fetch.disable())
        await evaluate(page, _WRITE, origin.rstrip("/"), items, [])
    finally:
        await page.close()


async def evaluate(page: Page, script: str, *args: Any) -> Any:
    """Call the function in ``cdpkit/_js/<script>.js`` in the page with JSON arguments."""
    source = resources.files("cdpkit").joinpath("_js", f"{script}.js").read_text(encoding="utf-8")
    call = f"({source})(...{json.dumps(list(args))})"
    result = await page.send(cdp.runtime.evaluate(call, return_by_value=True, await_promise=True))
    if result.exception_details is not None:
        raise EvaluationError(
            result.exception_details.text,
            result.exception_details.line_number,
            result.exception_details.column_number,
        )
    return result.result.value

