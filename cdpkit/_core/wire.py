"""Decoding the browser's messages; events kept as JSON text until their params are read.

The reader decodes an event only as far as routing needs (its method and session); the
params stay the text Chrome sent (a ``msgspec.Raw``, about a fifth of the memory of the
decoded objects) until a handler or a stream reads them. An event no one reads is never
decoded, and a burst that waits in a stream (10,000 console messages arriving while the
program awaits the command that logged them) holds text, not trees of dicts.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from typing import Any, TypeAlias

import msgspec

from .secrets import get_logger

__all__ = [
    "Envelope",
    "EventParams",
    "decode_envelope",
    "decode_message",
    "decode_params",
    "release_freed_memory",
    "validate_json",
]

log = get_logger("cdpkit")

# An event's params as the reader hands them on: already a dict, or the JSON text.
EventParams: TypeAlias = "dict[str, Any] | msgspec.Raw"


class Envelope(msgspec.Struct, frozen=True):
    """What routing reads of an event: its method and session; the params as text."""

    method: str
    sessionId: str | None = None
    params: msgspec.Raw = msgspec.Raw(b"{}")
    id: int | None = None  # never on an event: such a message takes the full path


decode_envelope = msgspec.json.Decoder(Envelope).decode
_msgspec_decode = msgspec.json.Decoder().decode

# From this size on, a message is parsed with the cyclic garbage collector paused: the
# collector would otherwise walk the growing tree dozens of times (40% of the time a 7 MB
# accessibility tree took to parse), finding nothing to free.
_LARGE_MESSAGE = 1 << 20


def _parse(data: str | bytes | msgspec.Raw) -> Any:
    try:
        return _msgspec_decode(data)
    except msgspec.DecodeError:
        return json.loads(data if isinstance(data, str | bytes) else bytes(data))


def decode_message(
    data: str | bytes | msgspec.Raw, parse: Callable[[str | bytes], Any] | None = None
) -> Any:
    """Parse one message (or an event's params) from the browser (with ``parse``, a
    caller's decoder, if given).

    msgspec parses a small message about eight times as fast as the standard library (an
    answer in 0.4 µs instead of 3.5 µs), for every answer and event alike. What it refuses
    and Chrome may still send goes to the standard library: a lone UTF-16 surrogate (a
    JavaScript string cut mid-pair arrives as ``"\\ud800"``), ``NaN``. Malformed text fails
    both, with ``ValueError``. A large message is parsed with the cyclic collector paused:
    its hundreds of thousands of new objects would make it sweep the heap several times.
    """
    run: Callable[[Any], Any] = parse or _parse
    if len(data) >= _LARGE_MESSAGE and gc.isenabled():
        gc.disable()  # a program that turned the collector off keeps it off
        try:
            return run(data)
        finally:
            gc.enable()
    return run(data)


def decode_params(params: EventParams) -> dict[str, Any]:
    """The params as a dict (``{}`` when they are missing or not an object). Text msgspec
    refuses but Chrome may send (a lone UTF-16 surrogate, ``NaN``) goes to the standard
    library; params nested too deeply to decode arrive as ``{}``, with a warning."""
    if isinstance(params, dict):
        return params
    try:
        value = decode_message(params)
    except ValueError:
        log.warning("Ignoring the malformed params of an event: %.200r", bytes(params))
        return {}
    except RecursionError:
        log.warning("Ignoring the params of an event nested too deeply to decode")
        return {}
    return value if type(value) is dict else {}


def validate_json(validate: Callable[[str | bytes], Any], params: msgspec.Raw) -> Any:
    """Parse and validate an event's params from their JSON text in one pass with
    ``validate`` (a model validator's ``validate_json``), with the cyclic collector paused
    for a large text (as :func:`decode_message` does).

    Raises:
        pydantic.ValidationError: The text is not JSON pydantic reads (e.g. a lone
            surrogate), or not the model's shape.
    """
    return decode_message(bytes(params), validate)


_trim: Callable[[int], int] | None = None
_trim_loaded = False


def release_freed_memory() -> None:
    """Hand the memory a drained burst of events freed back to the OS, where the C library
    can (glibc's ``malloc_trim``; elsewhere nothing happens).

    An event's text (about 500 bytes for a console message) is too big for Python's own
    allocator, so the C library's heap holds it; once a burst is read and freed, that heap
    keeps the pages (10,000 console messages left the process 8 MB bigger for good, 3 MB
    after a trim). Called when a stream that held a burst has been read empty: rare, and a
    few milliseconds.
    """
    global _trim, _trim_loaded
    if not _trim_loaded:
        _trim_loaded = True
        if sys.platform.startswith("linux"):
            import ctypes

            try:
                _trim = ctypes.CDLL(None).malloc_trim  # glibc only (musl has none)
            except (OSError, AttributeError):
                _trim = None
    if _trim is not None:
        _trim(0)
