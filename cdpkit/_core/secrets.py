"""The secrets this process holds (proxy passwords), masked wherever cdpkit writes text.

A :class:`~cdpkit.Proxy` remembers its password here when it is made; from then on
:func:`mask` replaces it (and its JSON, percent-encoded and Basic-credential spellings)
with ``***``. Every cdpkit logger (:func:`get_logger`) and the ``websockets`` logger of
cdpkit's connections carry :class:`MaskingFilter`, so a log record never shows one: the
frame answering a proxy's challenge (``Fetch.continueWithAuth``) carries the password, and
the ``websockets`` library logs every frame at DEBUG (elided to its start and end, which
is why frames are masked before they are turned into text).

Credentials headers are a secret of their own, whatever cdpkit remembers: Chrome answers
an authenticating proxy with ``Proxy-Authorization: Basic <user:password in base64>`` and
reports that header with every request. :func:`mask_headers` (and :func:`mask_header_text`
for a raw header block) keep such a header's scheme only (``Basic ***``); the network log
every request surface reads from (request details, HAR files) holds headers through them.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import re
import threading
import urllib.parse
from collections.abc import Mapping

from websockets.frames import Frame

__all__ = [
    "CREDENTIAL_HEADERS",
    "MASK",
    "MaskingFilter",
    "get_logger",
    "mask",
    "mask_header",
    "mask_header_text",
    "mask_headers",
    "redact_url",
    "remember",
]

MASK = "***"

# Request headers whose value is a credential (lower case). Cookies are left alone: they
# are the page's own data (its scripts read most of them), and HAR users need them.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization"})
# One "Name: value" line of a raw header block, its value in group 2.
_HEADER_LINE = re.compile(r"^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*$")

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # longest first, so a longer spelling is masked whole


def remember(secret: str, *, username: str | None = None) -> None:
    """Mask ``secret`` from now on, in every spelling a message or a log line may carry it.

    Args:
        secret: The password (empty: nothing to mask).
        username: Its user, to mask the ``user:password`` Basic credentials too.
    """
    if not secret:
        return
    spellings = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote(secret),
        urllib.parse.quote_plus(secret),
    }
    if username is not None:
        spellings.add(base64.b64encode(f"{username}:{secret}".encode()).decode())
    global _secrets
    with _lock:
        _secrets = tuple(sorted(set(_secrets) | spellings, key=len, reverse=True))


def mask(text: str) -> str:
    """``text`` with every remembered secret replaced by ``***``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def _masked_credential(value: str) -> str:
    """``Basic dXNlcjpwYXNz`` -> ``Basic ***``: the scheme says how one authenticated."""
    scheme, space, _ = value.strip().partition(" ")
    return f"{scheme} {MASK}" if space and scheme.isalnum() else MASK


def mask_header(name: str, value: str) -> str:
    """One header's value as cdpkit may show it: a credentials header's scheme only (each
    line of a repeated one), any other value with the remembered secrets masked."""
    if name.strip().lower() in CREDENTIAL_HEADERS:
        return "\n".join(_masked_credential(line) for line in value.split("\n"))
    return mask(value)


def mask_headers(headers: Mapping[str, object]) -> dict[str, str]:
    """``headers`` (name -> value, as Chrome reports them) with :func:`mask_header` applied
    to each: what every surface showing or writing request headers holds."""
    return {str(name): mask_header(str(name), str(value)) for name, value in headers.items()}


def mask_header_text(text: str) -> str:
    """A raw header block (``GET / HTTP/1.1\\r\\nHost: ...``) with :func:`mask_header`
    applied to each ``Name: value`` line, line ends kept."""
    parts = re.split(r"(\r?\n)", text)  # HTTP's line ends only: a value may hold others
    for index in range(0, len(parts), 2):
        found = _HEADER_LINE.match(parts[index])
        if found is not None and found.group(1).lower() in CREDENTIAL_HEADERS:
            parts[index] = f"{found.group(1)}: {mask_header(found.group(1), found.group(2))}"
    return mask("".join(parts))


def redact_url(url: str) -> str:
    """``url`` with the password of its user info masked, whatever the rest looks like.

    The user info is everything between ``scheme://`` and the last ``@`` (a password may
    hold an unencoded ``/``, ``?`` or ``#``), and the password what follows its first
    ``:``; without a scheme the same holds from the start.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    userinfo, at, host = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return mask(url)
    user = userinfo.partition(":")[0]
    return mask(f"{scheme}{sep}{user}:{MASK}@{host}")


def _masked_arg(arg: object) -> object:
    if isinstance(arg, str):
        return mask(arg)
    if isinstance(arg, Frame):  # websockets shows a frame's start and end: mask it whole first
        data = bytes(arg.data)
        try:
            text = data.decode()
        except UnicodeDecodeError:
            return arg
        masked = mask(text)
        return arg if masked == text else dataclasses.replace(arg, data=masked.encode())
    return arg


class MaskingFilter(logging.Filter):
    """Masks the remembered secrets in a record's message, arguments and traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        if isinstance(record.args, tuple):
            record.args = tuple(_masked_arg(arg) for arg in record.args)
        message = mask(record.getMessage())
        record.msg, record.args = message, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        return True


_FILTER = MaskingFilter()


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)``, masking the secrets in every record logged on it."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
