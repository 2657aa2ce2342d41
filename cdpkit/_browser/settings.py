"""How the browser presents itself and reaches the network: :class:`BrowserSettings`.

One frozen settings object, accepted (with the same keyword shortcuts) by
:func:`cdpkit.launch`, :func:`cdpkit.connect`, :meth:`Browser.new_context` and
:func:`cdpkit.pool`. Launch-wide parts become Chrome flags (:meth:`BrowserSettings.launch_args`:
the proxy, ``--lang``/``--accept-lang``, the stealth switch); the rest is applied to every
page of a context the moment it is attached and still paused, before its first request
(:func:`cdpkit._browser.page_setup.page_setup`): new tabs, popups and pages the page opens itself
alike.

Honest by default: without ``stealth`` the user agent stays Chrome's own, ``HeadlessChrome``
included. ``stealth=True`` adds the evasions of ``cdpkit/_js/stealth.js``; a path adds a
script of your own after them.

Proxy credentials never appear in a URL, a ``repr`` or a log line: they are answered to
the proxy's challenge through ``Fetch.authRequired`` (see :mod:`cdpkit.page`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._core.secrets import redact_url, remember
from ..launcher import DEFAULT_ARGS
from .page_setup import (  # re-exported: the settings' callers apply them through here too
    PageSetup,
    page_setup,
    request_headers,
    user_agent_metadata,
    user_agent_override,
)

__all__ = [
    "BrowserSettings",
    "PageSetup",
    "Proxy",
    "page_setup",
    "request_headers",
    "resolve_settings",
    "user_agent_metadata",
    "user_agent_override",
]

_PROXY_SCHEMES = ("http", "https", "socks4", "socks5")
_TOKEN_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP header name (RFC 9110)
_LOCALE_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


def _fail(setting: str, value: object, why: str) -> ValueError:
    return ValueError(f"Invalid {setting}={value!r}: {why}")


@dataclass(frozen=True, slots=True)
class Proxy:
    """A proxy server, with the credentials it asks for.

    Attributes:
        server: ``scheme://host:port`` with scheme ``http``, ``https``, ``socks4`` or
            ``socks5`` (``user:password@`` is not accepted here: use :meth:`from_url`).
        username: Answered when the proxy asks for credentials (HTTP 407).
        password: Likewise; never shown by ``repr``.
        bypass: Hosts reached directly (Chrome's ``--proxy-bypass-list`` rules, e.g.
            ``"*.internal"``, ``"10.0.0.0/8"``). Loopback addresses go through the proxy
            unless a rule names them (``"<loopback>"``), as in Playwright.
    """

    server: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    bypass: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.bypass, str):
            object.__setattr__(self, "bypass", _split(self.bypass))
        else:
            object.__setattr__(self, "bypass", tuple(self.bypass))
        parts = urllib.parse.urlsplit(self.server)
        if parts.scheme.lower() not in _PROXY_SCHEMES or not parts.hostname:
            raise _fail(
                "proxy", redact_url(self.server),
                "expected scheme://host:port with scheme http, https, socks4 or socks5, "
                "e.g. 'http://proxy.example:3128'",
            )
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                f"Invalid proxy={redact_url(self.server)!r}: put the credentials in "
                "Proxy(username=..., password=...) or use Proxy.from_url(url), not in server"
            )
        try:
            parts.port  # noqa: B018 (raises on a bad port)
        except ValueError:
            raise _fail("proxy", self.server, "the port is not a number in 1-65535") from None
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise _fail("proxy", self.server, "a proxy is scheme://host:port, without a path")
        if self.password is not None and self.username is None:
            raise ValueError("Invalid proxy: a password without a username")
        if self.password is not None:
            remember(self.password, username=self.username)

    def __repr__(self) -> str:
        password = ", password='***'" if self.password is not None else ""
        return (
            f"Proxy(server={self.server!r}, username={self.username!r}{password}, "
            f"bypass={self.bypass!r})"
        )

    @classmethod
    def from_url(cls, url: str, bypass: str | Iterable[str] = ()) -> Proxy:
        """A proxy from ``scheme://user:password@host:port``: the credentials are taken
        out of the URL (percent-decoded) into ``username`` and ``password``. The user info
        runs to the last ``@``, so a password may hold an unencoded ``/``, ``?``, ``#`` or
        ``@``; from then on it is masked in every message and log record.

        Raises:
            ValueError: Not a proxy URL (the message shows it with its password masked).
        """
        text = url.strip()
        if "://" not in text:
            raise _fail(
                "proxy", redact_url(text),
                "give the scheme too, e.g. 'http://proxy.example:3128' (or socks5://...)",
            )
        # A proxy URL has no path: its user info runs to the last "@", so a password may
        # hold an unencoded "/", "?" or "#" (urlsplit would end it at the first of them).
        scheme, _, rest = text.partition("://")
        userinfo, at, host = rest.rpartition("@")
        username = password = None
        if at:
            user, colon, secret = userinfo.partition(":")
            username = urllib.parse.unquote(user)
            password = urllib.parse.unquote(secret) if colon else None
            if password is not None:
                remember(password, username=username)  # masked even if the rest is refused
        return cls(f"{scheme}://{host}", username, password, tuple(_split(bypass)))

    @property
    def needs_auth(self) -> bool:
        """Whether cdpkit answers the proxy's challenges with credentials."""
        return self.username is not None

    def bypass_list(self) -> str:
        """The ``--proxy-bypass-list`` / ``proxyBypassList`` value: the rules, plus
        ``<-loopback>`` so that 127.0.0.1 and localhost go through the proxy too
        (Chrome bypasses them by default) unless a rule mentions loopback."""
        rules = list(self.bypass)
        if not any("loopback" in rule for rule in rules):
            rules.append("<-loopback>")
        return ";".join(rules)


def _split(value: str | Iterable[str]) -> tuple[str, ...]:
    items = re.split(r"[;,]", value) if isinstance(value, str) else list(value)
    return tuple(item.strip() for item in items if item.strip())


@dataclass(frozen=True)
class BrowserSettings:
    """How the browser presents itself and reaches the network.

    Attributes:
        user_agent: The ``User-Agent`` (header and ``navigator.userAgent``, with
            ``navigator.userAgentData`` made consistent with it); default Chrome's own.
        user_agents: User agents rotated per context, round robin: each
            :meth:`~cdpkit.Browser.new_context` (so each :func:`cdpkit.pool` page) takes
            the next one; the default context uses the first. Not with ``user_agent``.
        accept_language: The ``Accept-Language`` header and ``navigator.languages``
            (``"fr-FR,fr;q=0.9"``); default from ``locale``.
        locale: The locale of ``Intl``, number and date formatting and
            ``navigator.language`` (``"fr-FR"``).
        timezone: An IANA time zone (``"Europe/Paris"``) for ``Date`` and ``Intl``.
        extra_headers: Headers sent with every request the pages make.
        proxy: A :class:`Proxy`, or its URL (``user:password@`` moved into credentials).
            Launch-wide with :func:`cdpkit.launch`, per context with ``new_context``.
        ignore_default_args: cdpkit's default Chrome flags (``launcher.DEFAULT_ARGS``) to
            leave out, by name (``"--disable-extensions"``), or ``True`` for all of them.
        stealth: ``False`` (honest: Chrome says what it is), ``True`` (the maintained
            evasions: ``navigator.webdriver``, plugins, languages, ``HeadlessChrome`` in
            the user agent and its brands, ``window.chrome``, permissions, WebGL vendor),
            or a path to a script of your own, run in every page after those evasions.
        send_dnt: Send ``DNT: 1`` and report ``navigator.doNotTrack == "1"``.
        storage_state: A saved login (a ``storage_state`` JSON file of cookies,
            localStorage and sessionStorage, Playwright's format; see
            :func:`cdpkit.tools.save_storage_state`) loaded into every context these
            settings create: a launched browser's default context, each
            :meth:`~cdpkit.Browser.new_context`, each pool worker's.

    Raises:
        ValueError: A value Chrome would refuse or misread, naming the setting.
    """

    user_agent: str | None = None
    user_agents: tuple[str, ...] = ()
    accept_language: str | None = None
    locale: str | None = None
    timezone: str | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    proxy: Proxy | None = None
    ignore_default_args: tuple[str, ...] | bool = ()
    stealth: bool | str | os.PathLike[str] = False
    send_dnt: bool = False
    storage_state: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        if isinstance(self.user_agents, str):
            raise _fail("user_agents", self.user_agents, "give a list of user agents")
        set_("user_agents", tuple(self.user_agents))
        for name, agent in [("user_agent", self.user_agent)] + [
            ("user_agents", a) for a in self.user_agents
        ]:
            if agent is not None and (not isinstance(agent, str) or not agent.strip()
                                      or any(c in agent for c in "\r\n")):
                raise _fail(name, agent, "a user agent is one non-empty line of text")
        if self.user_agent is not None and self.user_agents:
            raise ValueError("Give user_agent (one) or user_agents (rotated), not both")
        if self.accept_language is not None and (
            not self.accept_language.strip() or any(c in self.accept_language for c in "\r\n")
        ):
            raise _fail("accept_language", self.accept_language, "expected e.g. 'fr-FR,fr;q=0.9'")
        if self.locale is not None and not _LOCALE_RE.match(self.locale):
            raise _fail("locale", self.locale, "expected a language tag such as 'fr-FR' or 'en'")
        if self.timezone is not None:
            _check_timezone(self.timezone)
        headers = dict(self.extra_headers or {})
        for name, value in headers.items():
            if not isinstance(name, str) or not _TOKEN_RE.match(name):
                raise _fail("extra_headers", name, "not a valid HTTP header name")
            if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
                raise ValueError(
                    f"Invalid extra_headers[{name!r}]: the value must be one line of text"
                )
        set_("extra_headers", headers)
        if isinstance(self.proxy, str):
            set_("proxy", Proxy.from_url(self.proxy))
        elif isinstance(self.proxy, Mapping):
            set_("proxy", _proxy_from_mapping(self.proxy))
        elif self.proxy is not None and not isinstance(self.proxy, Proxy):
            raise _fail("proxy", self.proxy, "give a URL or cdpkit.Proxy(server, ...)")
        if self.ignore_default_args is not True and self.ignore_default_args is not False:
            if isinstance(self.ignore_default_args, str):
                raise _fail("ignore_default_args", self.ignore_default_args,
                            "give a list of flags, or True for all of cdpkit's defaults")
            names = tuple(self.ignore_default_args)
            known = {_flag_name(arg) for arg in DEFAULT_ARGS}
            unknown = [arg for arg in names if _flag_name(arg) not in known]
            if unknown:
                raise ValueError(
                    f"Invalid ignore_default_args: {', '.join(unknown)} not among cdpkit's "
                    f"default flags (cdpkit.launcher.DEFAULT_ARGS: "
                    f"{', '.join(sorted(known))})"
                )
            set_("ignore_default_args", names)
        if self.stealth is not True and self.stealth is not False:
            path = Path(self.stealth).expanduser()
            if not path.is_file():
                raise _fail("stealth", str(self.stealth),
                            "give True, False, or the path of a JavaScript file (no such file)")
            set_("stealth", path)
        if self.storage_state is not None:
            state = Path(self.storage_state).expanduser()
            if not state.is_file():
                raise _fail("storage_state", str(self.storage_state),
                            "give the path of a storage_state JSON file (no such file)")
            set_("storage_state", state)

    def __repr__(self) -> str:
        """The settings given (not the defaults), header values and the proxy's password
        masked."""
        shown = []
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if value != item.default and not (
                item.default_factory is not dataclasses.MISSING and value == item.default_factory()
            ):
                if item.name == "extra_headers":  # values are often tokens: names only
                    value = {name: "***" for name in value}
                shown.append(f"{item.name}={value!r}")
        return f"BrowserSettings({', '.join(shown)})"

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> BrowserSettings:
        """Settings from a mapping, e.g. the ``[browser]`` table of a config file.

        ``proxy`` may be a URL or a table (``server``, ``username``, ``password``,
        ``bypass``); ``extra_headers`` a table; ``user_agents`` a list.

        Raises:
            ValueError: An unknown key (the message lists the known ones) or a bad value.
        """
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(
                f"Unknown browser setting{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; known: {', '.join(known)}"
            )
        return cls(**dict(values))

    def over(self, top: BrowserSettings | Mapping[str, Any]) -> BrowserSettings:
        """These settings with a higher layer's over them: the one merge of two layers
        (the config file's ``[browser]`` table, the engine's own tables, ``settings=``, the
        command line's flags, each over the one below).

        A layer gives a setting when it is not at its default (``top`` a
        :class:`BrowserSettings`), or when its key is there (``top`` a mapping such as a
        config table, where ``stealth = false`` is given). Each setting given replaces
        this one's, except:

        - ``extra_headers`` are added header by header: a name both give (in any case)
          takes ``top``'s value, the other headers are kept;
        - ``user_agent`` and ``user_agents`` are one choice: a layer that gives one drops
          the other's (one user agent replaces a rotation below it, a rotation one user
          agent), rather than the two clashing.

        Raises:
            ValueError: ``top`` is a mapping with an unknown key or a bad value.
        """
        if isinstance(top, BrowserSettings):
            defaults = BrowserSettings()
            given = {
                item.name: getattr(top, item.name)
                for item in dataclasses.fields(top)
                if getattr(top, item.name) != getattr(defaults, item.name)
            }
        else:
            checked = BrowserSettings.from_mapping(top)
            given = {name: getattr(checked, name) for name in top}
        if "user_agent" in given:
            given.setdefault("user_agents", ())
        if "user_agents" in given:
            given.setdefault("user_agent", None)
        if "extra_headers" in given:
            names = {name.lower() for name in given["extra_headers"]}
            kept = {
                name: value
                for name, value in self.extra_headers.items()
                if name.lower() not in names
            }
            given["extra_headers"] = {**kept, **given["extra_headers"]}
        return dataclasses.replace(self, **given) if given else self

    def user_agent_for(self, index: int) -> str | None:
        """The user agent of the ``index``-th context these settings make (from 0; a
        launched browser's default context is the 0th): ``user_agent``, else the
        rotation's next, round robin; ``None``: Chrome's own."""
        if self.user_agent is not None or not self.user_agents:
            return self.user_agent
        return self.user_agents[index % len(self.user_agents)]

    def for_context(self, index: int) -> BrowserSettings:
        """These settings as the ``index``-th context takes them: with ``user_agents``,
        its user agent picked (:meth:`user_agent_for`) and no rotation left."""
        if not self.user_agents:
            return self
        return dataclasses.replace(self, user_agent=self.user_agent_for(index), user_agents=())

    def replace(self, **changes: Any) -> BrowserSettings:
        """A copy with ``changes`` (values ``None`` leave a setting as it is)."""
        given = {name: value for name, value in changes.items() if value is not None}
        return dataclasses.replace(self, **given) if given else self

    @property
    def effective_accept_language(self) -> str | None:
        """``accept_language``, else one made from ``locale`` (``fr-FR`` ->
        ``fr-FR,fr;q=0.9``), else ``None``."""
        if self.accept_language is not None:
            return self.accept_language
        if self.locale is None:
            return None
        tag = self.locale.replace("_", "-")
        base = tag.split("-")[0]
        return tag if base == tag else f"{tag},{base};q=0.9"

    @property
    def languages(self) -> list[str]:
        """``navigator.languages`` as the settings make it (empty: Chrome's own)."""
        header = self.effective_accept_language
        if header is None:
            return []
        return [part.split(";")[0].strip() for part in header.split(",") if part.strip()]

    def launch_args(self) -> list[str]:
        """The Chrome flags these settings add to a launch."""
        args = []
        if self.proxy is not None:
            args += [f"--proxy-server={self.proxy.server}",
                     f"--proxy-bypass-list={self.proxy.bypass_list()}"]
        if self.locale is not None:
            args.append(f"--lang={self.locale.replace('_', '-')}")
        accept = self.effective_accept_language
        if accept is not None:
            args.append(f"--accept-lang={','.join(self.languages)}")
        if self.stealth is not False:
            args.append("--disable-blink-features=AutomationControlled")
        return args

    def default_args(self) -> tuple[str, ...]:
        """cdpkit's default Chrome flags minus ``ignore_default_args``."""
        if self.ignore_default_args is True:
            return ()
        if not self.ignore_default_args:
            return DEFAULT_ARGS
        dropped = {_flag_name(arg) for arg in self.ignore_default_args}
        return tuple(arg for arg in DEFAULT_ARGS if _flag_name(arg) not in dropped)


def _flag_name(arg: str) -> str:
    return "--" + arg.lstrip("-").partition("=")[0]


def _check_timezone(name: str) -> None:
    """Refuse a time zone the system's database does not know (Chrome would refuse it)."""
    import zoneinfo

    if not isinstance(name, str) or not name.strip():
        raise _fail("timezone", name, "expected an IANA time zone such as 'Europe/Paris'")
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        try:
            zoneinfo.ZoneInfo("UTC")
        except zoneinfo.ZoneInfoNotFoundError:
            return  # no time zone database here: Chrome's answer decides
        raise _fail(
            "timezone", name, "not a known IANA time zone (e.g. 'Europe/Paris', 'America/New_York')"
        ) from None


def _proxy_from_mapping(values: Mapping[str, Any]) -> Proxy:
    unknown = sorted(set(values) - {"server", "username", "password", "bypass"})
    if unknown:
        raise ValueError(
            f"Unknown proxy setting {', '.join(unknown)}; known: server, username, password, bypass"
        )
    if "server" not in values:
        raise ValueError("The proxy table needs server = 'http://host:port'")
    proxy = Proxy.from_url(str(values["server"]), values.get("bypass", ()))
    if "username" in values or "password" in values:
        proxy = dataclasses.replace(
            proxy, username=values.get("username"), password=values.get("password")
        )
    return proxy


def resolve_settings(
    settings: BrowserSettings | None, shortcuts: Mapping[str, Any]
) -> BrowserSettings | None:
    """``settings`` with the keyword shortcuts given (not ``None``) applied over it."""
    given = {name: value for name, value in shortcuts.items() if value is not None}
    if settings is not None and not isinstance(settings, BrowserSettings):
        raise TypeError(f"settings= takes a cdpkit.BrowserSettings, got {type(settings).__name__}")
    if not given:
        return settings
    return dataclasses.replace(settings or BrowserSettings(), **given)
