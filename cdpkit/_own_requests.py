"""The requests cdpkit makes itself, not through the browser (the download fallback,
``browse``'s tier 1 and its ``robots.txt``, ``scrape``'s media probe): they go where the
browser's requests go, and only where the caller allows.

* **Where they go**: through the browser's proxy (:class:`~cdpkit.Proxy`: the same
  server, credentials and bypass list, loopback included unless a rule names it, as
  :meth:`~cdpkit.Proxy.bypass_list` tells Chrome), so they never leave from the user's
  own address when the browser does not (:func:`bypasses`, :func:`urllib_opener`).
* **Where they may go**: a caller that limits what may be reached (the MCP server's URL
  policy) installs a check with :func:`checked_by`; every hop of every such request
  (each redirect target, before it is requested) is put to it, and a refused hop raises
  :class:`RequestRefused` instead of being requested.
"""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import http.client
import ipaddress
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import IO, Any

from ._settings import Proxy

__all__ = [
    "Refusal",
    "RequestRefused",
    "bypasses",
    "check",
    "checked_by",
    "current_refusal",
    "urllib_opener",
]

Refusal = Callable[[str], "str | None"]
"""Why a URL may not be requested (the words read on after "... is blocked: "), or
``None`` if it may."""

_refusal: contextvars.ContextVar[Refusal | None] = contextvars.ContextVar(
    "cdpkit_own_request_refusal", default=None
)


class RequestRefused(ValueError):
    """A request cdpkit was about to make itself (or a redirect it was about to follow)
    is refused by the check installed with :func:`checked_by`; nothing was sent.

    Attributes:
        url: The refused URL.
        reason: Why (the check's words).
    """

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url} is blocked: {reason}")
        self.url = url
        self.reason = reason


@contextlib.contextmanager
def checked_by(refusal: Refusal | None) -> Iterator[None]:
    """Within the block (and the tasks it starts), put every request cdpkit makes itself
    to ``refusal`` first, each redirect hop included."""
    token = _refusal.set(refusal)
    try:
        yield
    finally:
        _refusal.reset(token)


def current_refusal() -> Refusal | None:
    """The check in force here (to hand to a worker thread, which does not inherit it)."""
    return _refusal.get()


def check(url: str, refusal: Refusal | None = None) -> None:
    """Raise :class:`RequestRefused` if ``url`` may not be requested (by ``refusal``, else
    the check in force).

    Raises:
        RequestRefused: The check refuses it.
    """
    refusal = refusal if refusal is not None else _refusal.get()
    if refusal is None:
        return
    reason = refusal(url)
    if reason is not None:
        raise RequestRefused(url, reason)


# -- the proxy --------------------------------------------------------------------------------

_LOOPBACK_NAMES = ("localhost", "localhost.", "loopback")


def _is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith((".localhost", ".localhost.")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_link_local


def _rule_matches(rule: str, scheme: str, host: str, port: int) -> bool:
    """Whether one rule of Chrome's proxy bypass grammar names this URL's host."""
    if rule == "<local>":
        return "." not in host and ":" not in host
    with contextlib.suppress(ValueError):
        if "/" in rule and "://" not in rule:
            return ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(rule, strict=False)
    rule_scheme = None
    if "://" in rule:
        rule_scheme, _, rule = rule.partition("://")
    if rule_scheme is not None and rule_scheme.lower() != scheme:
        return False
    rule_host, rule_port = rule, None
    if rule.startswith("["):
        rule_host, _, rest = rule[1:].partition("]")
        rule_port = rest.removeprefix(":") or None
    elif rule.count(":") == 1:
        rule_host, _, rule_port = rule.partition(":")
    if rule_port is not None and rule_port != str(port):
        return False
    rule_host = rule_host.lower()
    if rule_host.startswith("."):
        rule_host = "*" + rule_host
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(rule_host) == ipaddress.ip_address(host.strip("[]"))
    return fnmatch.fnmatchcase(host.strip("[]"), rule_host)


def bypasses(proxy: Proxy, url: str) -> bool:
    """Whether Chrome, given ``proxy`` (its :meth:`~cdpkit.Proxy.bypass_list`), reaches
    ``url`` directly rather than through the proxy."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme, 0)
    except ValueError:
        port = 0
    rules = [rule.strip() for rule in proxy.bypass_list().split(";") if rule.strip()]
    # As Chrome reads the list: loopback is bypassed implicitly unless "<-loopback>" is
    # in it, and a later rule overrides an earlier one ("<-loopback>" last, as
    # bypass_list() puts it, sends loopback through the proxy whatever came before).
    loopback = _is_loopback(host)
    bypass = loopback and "<-loopback>" not in rules
    for rule in rules:
        if rule == "<-loopback>":
            bypass = bypass and not loopback
        elif _rule_matches(rule, scheme, host, port):
            bypass = True
    return bypass


def _proxy_url(proxy: Proxy) -> str:
    """The proxy as urllib takes it: credentials (percent-encoded) in the URL."""
    if proxy.username is None:
        return proxy.server
    parts = urllib.parse.urlsplit(proxy.server)
    user = urllib.parse.quote(proxy.username, safe="")
    password = urllib.parse.quote(proxy.password or "", safe="")
    return urllib.parse.urlunsplit((parts.scheme, f"{user}:{password}@{parts.netloc}", "", "", ""))


class _ProxyHandler(urllib.request.ProxyHandler):
    """urllib's proxy handler with Chrome's bypass rules instead of ``no_proxy``."""

    def __init__(self, proxy: Proxy) -> None:
        url = _proxy_url(proxy)
        super().__init__({"http": url, "https": url})
        self.cdpkit_proxy = proxy

    def proxy_open(self, req: urllib.request.Request, proxy: str, type: str) -> Any:
        if bypasses(self.cdpkit_proxy, req.full_url):
            return None  # straight to the server, as the browser goes
        # urllib adds the credentials only when both are set; Chrome answers with an
        # empty password too.
        if self.cdpkit_proxy.username is not None and not self.cdpkit_proxy.password:
            import base64

            token = base64.b64encode(f"{self.cdpkit_proxy.username}:".encode()).decode()
            req.add_header("Proxy-authorization", f"Basic {token}")
        return super().proxy_open(req, proxy, type)


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a URL the check allows (before requesting it)."""

    def __init__(self, refusal: Refusal | None) -> None:
        self.refusal = refusal

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        check(urllib.parse.urljoin(req.full_url, newurl), self.refusal)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def urllib_opener(
    proxy: Proxy | None,
    refusal: Refusal | None,
    *handlers: urllib.request.BaseHandler,
) -> urllib.request.OpenerDirector:
    """A urllib opener for a request cdpkit makes itself: through ``proxy`` as Chrome
    would send it (none: urllib's default, the environment's proxy variables), each
    redirect put to ``refusal`` before it is followed.

    Raises:
        ValueError: ``proxy`` is a SOCKS proxy, which urllib cannot speak: the request
            would go around it.
    """
    chain: list[urllib.request.BaseHandler] = [_CheckedRedirects(refusal), *handlers]
    if proxy is not None:
        if not proxy.server.lower().startswith(("http://", "https://")):
            scheme = proxy.server.split(":", 1)[0]
            raise ValueError(
                f"cdpkit's own request cannot go through the browser's {scheme} proxy"
            )
        chain.insert(0, _ProxyHandler(proxy))
    return urllib.request.build_opener(*chain)
