"""Browse sessions: an HTTP cookie jar shared both ways with an isolated browser context
(made only when a page needs the browser), and their saving to disk.

A saved session is a Playwright ``storage_state`` JSON file (``{"cookies": [...],
"origins": []}``), so a file made by Playwright can be restored here and back.

What a session sends with a request (its cookies, its headers, its proxy) is named by
:meth:`BrowseSession.credentials_key`: what one session downloaded is reused (the media
cache) only for a request that key says would carry the same credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import http.cookiejar
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from .. import cdp
from .._core.files import write_private
from ..errors import CDPError
from ._result import BrowseError

if TYPE_CHECKING:
    from .._browser.settings import BrowserSettings
    from ..browser import Browser, BrowserContext

__all__ = ["BrowseSession", "check_session_name"]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}


def check_session_name(name: str) -> str:
    """``name`` if it can name a session (and its file).

    Raises:
        ValueError: Not 1-64 letters, digits, ``.``, ``_`` or ``-`` starting with a
            letter or digit.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"Invalid session name {name!r}: use 1-64 letters, digits, '.', '_' or '-' "
            "(starting with a letter or digit)"
        )
    return name


class BrowseSession:
    """One named session: a cookie jar, the HTTP client using it, and (once a page needed
    the browser) an isolated browser context.

    Attributes:
        name: The session's name (``None`` for a call's throwaway session).
        cookies: The jar tier 1 sends from and the browser context is synced with.
        persist: Whether the jar is saved on close and restored on creation.
        client: The tier-1 HTTP client.
        context: The browser context, ``None`` until a tier-2/3 page is needed.
        settings: The session's identity (its user agent picked from a rotation), given
            to its browser context; ``None``: Chrome's own.
    """

    def __init__(
        self,
        name: str | None,
        client: httpx.AsyncClient,
        *,
        persist: bool,
        path: Path | None,
        settings: BrowserSettings | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        self.client = client
        # The client's own jar: httpx copies a jar given to it, so this is the one it uses.
        self.cookies = client.cookies
        self.persist = persist
        self.path = path
        self.context: BrowserContext | None = None
        self._context_lock = asyncio.Lock()
        self.closed = False
        if settings is not None and settings.storage_state is not None:
            # The saved login's cookies for tier 1 too (its context loads the file itself).
            self._restore(Path(settings.storage_state), saved_login=True)
        if persist and path is not None and path.is_file():
            self._restore(path)

    def credentials_key(self) -> str:
        """A digest of everything the session's requests carry that could make a server
        answer one session differently from another: every cookie of the jar (each one,
        not only the host's: a redirect carries others), the client's headers (extra
        headers, an ``Authorization``...) and its proxy with its credentials. Two
        sessions with the same key send the same credentials on every hop; a cookie set
        or dropped changes it."""
        digest = hashlib.sha256(b"cdpkit-credentials\0")
        cookies = sorted(
            (each.domain, each.path, each.name, each.value or "", each.secure, str(each.port))
            for each in self.cookies.jar
        )
        headers = sorted((name.lower(), value) for name, value in self.client.headers.multi_items())
        proxy = self.settings.proxy if self.settings is not None else None
        where = (proxy.server, proxy.username, proxy.password) if proxy is not None else ()
        digest.update(json.dumps([cookies, headers, where]).encode())
        return digest.hexdigest()

    # -- the browser context, synced with the jar -----------------------------------------

    async def browser_context(self, browser: Browser) -> BrowserContext:
        """The session's browser context (created on first use)."""
        async with self._context_lock:  # two calls at once in a session share one context
            if self.context is None or self.context.browser is not browser:
                # The same identity as the session's HTTP client (user agent, language...).
                self.context = await browser.new_context(settings=self.settings)
            return self.context

    async def push_cookies(self, browser: Browser, context: BrowserContext) -> None:
        """Give the browser context every cookie of the jar (before a page loads)."""
        params = [_to_cookie_param(cookie) for cookie in self.cookies.jar]
        if params:
            await browser.send(cdp.storage.set_cookies(params, browser_context_id=_context_id(context)))

    async def pull_cookies(self, browser: Browser, context: BrowserContext) -> None:
        """Make the jar hold the browser context's cookies (after a page loaded): a cookie
        a page set is sent by tier 1 next time."""
        found = await browser.send_json(cdp.storage.get_cookies(browser_context_id=_context_id(context)))
        self.cookies.jar.clear()
        for cookie in found.get("cookies", []):
            self.cookies.jar.set_cookie(_from_cdp(dict(cookie)))

    # -- closing and saving -----------------------------------------------------------------

    async def close(self) -> None:
        """Save the jar (when it persists), close the HTTP client and the browser context."""
        if self.closed:
            return
        self.closed = True
        try:
            if self.persist and self.path is not None:
                self.save(self.path)
        finally:
            await self.client.aclose()
            if self.context is not None:
                with contextlib.suppress(CDPError):
                    await self.context.close()

    def save(self, path: Path) -> None:
        """Write the jar as a ``storage_state`` JSON file readable by its owner only."""
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        state = {"cookies": [_to_state(cookie) for cookie in self.cookies.jar], "origins": []}
        write_private(path, json.dumps(state, indent=1))

    def _restore(self, path: Path, *, saved_login: bool = False) -> None:
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            for cookie in state.get("cookies", []):
                self.cookies.jar.set_cookie(_from_cdp(cookie))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            if saved_login:
                raise BrowseError(
                    str(path), "session.corrupt", f"the storage_state file could not be read ({exc})",
                    recoverable=False, suggestion="give a storage_state JSON file (cookies and origins)",
                ) from None  # fmt: skip
            raise BrowseError(
                str(path),
                "session.corrupt",
                f"the saved session {self.name!r} could not be read ({exc})",
                recoverable=False,
                suggestion=f"delete {path} to start the session afresh",
            ) from None


def _context_id(context: BrowserContext) -> cdp.browser.BrowserContextID:
    return cdp.browser.BrowserContextID(context.id)


def _to_cookie_param(cookie: http.cookiejar.Cookie) -> cdp.network.CookieParam:
    http_only = cookie.has_nonstandard_attr("HttpOnly")
    domain = cookie.domain
    if cookie.domain_specified or domain.startswith("."):
        where: dict[str, Any] = {"domain": domain, "path": cookie.path}
    else:  # host-only: a URL keeps it so (a domain would widen it to subdomains)
        scheme = "https" if cookie.secure else "http"
        where = {"url": f"{scheme}://{domain}{cookie.path or '/'}", "path": cookie.path}
    if cookie.expires:  # absent: a session cookie (null would be refused)
        where["expires"] = cdp.network.TimeSinceEpoch(float(cookie.expires))
    return cdp.network.CookieParam(
        name=cookie.name, value=cookie.value or "", secure=cookie.secure, http_only=http_only, **where
    )


def _to_state(cookie: http.cookiejar.Cookie) -> dict[str, Any]:
    """A jar cookie as Playwright's ``storage_state`` cookie."""
    same_site = cookie.get_nonstandard_attr("SameSite") or "Lax"
    domain = cookie.domain
    return {
        "name": cookie.name,
        "value": cookie.value or "",
        "domain": domain,
        "hostOnly": not (cookie.domain_specified or domain.startswith(".")),
        "path": cookie.path,
        "expires": float(cookie.expires) if cookie.expires else -1,
        "httpOnly": cookie.has_nonstandard_attr("HttpOnly"),
        "secure": cookie.secure,
        "sameSite": _SAME_SITE.get(str(same_site).lower(), "Lax"),
    }


def _from_cdp(cookie: dict[str, Any]) -> http.cookiejar.Cookie:
    """A CDP cookie (``Storage.getCookies``) or ``storage_state`` cookie as a jar cookie."""
    domain = str(cookie["domain"])
    domain_wide = domain.startswith(".") and not cookie.get("hostOnly", False)
    expires = cookie.get("expires", -1)
    session = bool(cookie.get("session", False)) or expires is None or float(expires) <= 0
    rest: dict[str, str] = {}
    if cookie.get("httpOnly"):
        rest["HttpOnly"] = ""
    if cookie.get("sameSite"):
        rest["SameSite"] = str(cookie["sameSite"])
    return http.cookiejar.Cookie(
        version=0,
        name=str(cookie["name"]),
        value=str(cookie.get("value", "")),
        port=None,
        port_specified=False,
        domain=domain,
        domain_specified=domain_wide,
        domain_initial_dot=domain.startswith("."),
        path=str(cookie.get("path") or "/"),
        path_specified=True,
        secure=bool(cookie.get("secure", False)),
        expires=None if session else int(float(expires)),
        discard=session,
        comment=None,
        comment_url=None,
        rest=rest,
    )
