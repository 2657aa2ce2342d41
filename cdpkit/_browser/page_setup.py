"""Applying :class:`~cdpkit.BrowserSettings` to a page and to cdpkit's own requests: the
commands a page of a context gets while it is attached and still paused, before its first
request (:func:`page_setup`: the user agent and client hints, languages, locale, time zone,
extra headers, the stealth scripts), and the same identity for a request
(:func:`request_headers`).

The settings themselves, their checks and the Chrome flags are :mod:`cdpkit._browser.settings`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import cdp
from .._model import Command

if TYPE_CHECKING:
    from .settings import BrowserSettings, Proxy

__all__ = ["PageSetup", "page_setup", "request_headers", "user_agent_metadata", "user_agent_override"]

_CHROME_VERSION_RE = re.compile(r"(?:Headless)?Chrome/(\d+)((?:\.\d+){0,3})")


@functools.cache
def _stealth_source() -> str:
    return resources.files("cdpkit").joinpath("_js", "stealth.js").read_text(encoding="utf-8")


_DNT_SCRIPT = (
    "Object.defineProperty(Navigator.prototype, 'doNotTrack', "
    "{get: () => '1', configurable: true});"
)


def user_agent_metadata(user_agent: str, *, stealth: bool) -> cdp.emulation.UserAgentMetadata | None:
    """``navigator.userAgentData`` (and ``Sec-CH-UA-*``) consistent with a Chrome-like
    ``user_agent``; ``None`` for another browser's (Chrome then sends no client hints)."""
    match = _CHROME_VERSION_RE.search(user_agent)
    if match is None:
        return None
    major = match[1]
    full = major + (match[2] or ".0.0.0")
    brand = cdp.emulation.UserAgentBrandVersion
    names = ["Not:A-Brand", "Chromium"] + (["Google Chrome"] if stealth else [])
    brands = [brand(brand=name, version="8" if name == "Not:A-Brand" else major) for name in names]
    full_list = [
        brand(brand=name, version="8.0.0.0" if name == "Not:A-Brand" else full) for name in names
    ]
    if "Windows" in user_agent:
        platform = "Windows"
    elif "Android" in user_agent:
        platform = "Android"
    elif "Mac OS X" in user_agent or "Macintosh" in user_agent:
        platform = "macOS"
    elif "CrOS" in user_agent:
        platform = "Chrome OS"
    else:
        platform = "Linux"
    arm = re.search(r"\b(arm|aarch64)", user_agent, re.IGNORECASE) is not None
    return cdp.emulation.UserAgentMetadata(
        brands=brands,
        full_version_list=full_list,
        full_version=full,
        platform=platform,
        platform_version="",
        architecture="arm" if arm else "x86",
        model="",
        mobile="Mobile" in user_agent,
    )


@dataclass(frozen=True, slots=True)
class PageSetup:
    """What a page of one context gets before it runs anything.

    Attributes:
        commands: Sent on the page's session, in order, while it is paused.
        proxy: The proxy whose challenges the page answers (``None``: none to answer).
        network: Whether the commands keep the ``Network`` domain enabled.
    """

    commands: tuple[Command[Any], ...]
    proxy: Proxy | None
    network: bool


def user_agent_override(
    settings: BrowserSettings | None,
    *,
    user_agent: str | None,
    browser_user_agent: str,
    languages: Sequence[str] = (),
) -> Command[Any] | None:
    """The ``Emulation.setUserAgentOverride`` that gives a page its identity: the user
    agent (``user_agent``: the context's, e.g. from the rotation, else
    ``browser_user_agent``, Chrome's own, ``HeadlessChrome`` taken out with ``stealth``),
    client hints consistent with it, and the languages (the settings', else
    ``languages``). ``None`` when Chrome's own would do."""
    stealth = settings is not None and settings.stealth is not False
    agent = user_agent or browser_user_agent
    if stealth:
        agent = agent.replace("HeadlessChrome", "Chrome")
    # Chrome takes the languages and adds the q-values to the header itself.
    own = settings.languages if settings is not None else []
    accept_language = ",".join(own or languages) or None
    if user_agent is None and not stealth and accept_language is None:
        return None
    return cdp.emulation.set_user_agent_override(
        agent,
        accept_language=accept_language,
        user_agent_metadata=user_agent_metadata(agent, stealth=stealth),
    )


def request_headers(
    settings: BrowserSettings | None, *, user_agent: str, accept_language: str
) -> dict[str, str]:
    """The identity of a request cdpkit makes itself (``User-Agent``, ``Accept-Language``,
    ``DNT``, the extra headers), as :func:`page_setup` gives it to a page: the settings'
    user agent (a rotation's first: give a context's, :meth:`BrowserSettings.for_context`),
    else ``user_agent``; their language, else ``accept_language``."""
    headers = {"User-Agent": user_agent, "Accept-Language": accept_language}
    if settings is None:
        return headers
    headers["User-Agent"] = settings.user_agent_for(0) or user_agent
    headers["Accept-Language"] = settings.effective_accept_language or accept_language
    if settings.send_dnt:
        headers["DNT"] = "1"
    headers.update(settings.extra_headers)
    return headers


def page_setup(
    settings: BrowserSettings, *, user_agent: str | None, browser_user_agent: str
) -> PageSetup:
    """The commands that give a page ``settings`` (``user_agent``: the one this context
    got, :meth:`BrowserSettings.user_agent_for`; ``browser_user_agent``: Chrome's own)."""
    commands: list[Command[Any]] = []
    headers = dict(settings.extra_headers)
    if settings.send_dnt:
        headers.setdefault("DNT", "1")
    if headers:
        commands += [cdp.network.enable(), cdp.network.set_extra_http_headers(headers)]
    stealth = settings.stealth is not False
    override = user_agent_override(
        settings, user_agent=user_agent, browser_user_agent=browser_user_agent
    )
    if override is not None:
        commands.append(override)
    if settings.locale is not None:
        commands.append(cdp.emulation.set_locale_override(locale=settings.locale.replace("-", "_")))
    if settings.timezone is not None:
        commands.append(cdp.emulation.set_timezone_override(settings.timezone))
    scripts = []
    if stealth:
        config = {"languages": settings.languages}
        scripts.append(f"({_stealth_source().strip().rstrip(';')})({json.dumps(config)});")
    if settings.send_dnt:
        scripts.append(_DNT_SCRIPT)
    if isinstance(settings.stealth, Path):
        scripts.append(settings.stealth.read_text(encoding="utf-8"))
    for script in scripts:
        commands.append(cdp.page.add_script_to_evaluate_on_new_document(script, run_immediately=True))
    proxy = settings.proxy if settings.proxy is not None and settings.proxy.needs_auth else None
    return PageSetup(tuple(commands), proxy, bool(headers))
