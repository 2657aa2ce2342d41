"""The native messaging host: the browser starts it (``python -m cdpkit._bridge._host``,
through the launcher ``cdpkit extension install`` wrote) when the extension calls
``chrome.runtime.connectNative("com.cdpkit.bridge")``, with the caller's origin as its
first argument, and talks to it on stdin/stdout: each message a 4-byte length in native
byte order, then that many bytes of UTF-8 JSON.

To ``{"type": "hello"}`` it answers ``{"type": "bridge", "port": P, "token": T}`` (the
running bridge, or one started now) or ``{"type": "error", "message": ...}``; the extension
says hello again when the bridge went away. It exits 0 when stdin ends (the browser quit or
the extension let go of the port), 1 for a caller other than the extension or a message
it cannot read. Stdout carries the protocol only: everything else goes to stderr, also
what a library or a child process would write to file descriptor 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import sys
from typing import Any, BinaryIO

from ._state import extension_id, start_bridge

# The extension sends small messages only; a larger length means the stream is not ours.
_MAX_MESSAGE = 1 << 20
_LENGTH = struct.Struct("=I")


class ProtocolError(Exception):
    """A message that is not a native messaging frame of JSON."""


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, ``None`` at the end of the stream.

    Raises:
        ProtocolError: A frame that is too long, cut short, or not a JSON object.
    """
    header = stream.read(_LENGTH.size)
    if not header:
        return None
    if len(header) < _LENGTH.size:
        raise ProtocolError("the stream ended inside a message's length")
    (length,) = _LENGTH.unpack(header)
    if length > _MAX_MESSAGE:
        raise ProtocolError(f"a message of {length} bytes (at most {_MAX_MESSAGE})")
    body = stream.read(length)
    if len(body) < length:
        raise ProtocolError("the stream ended inside a message")
    try:
        message = json.loads(body.decode("utf-8"))
    except ValueError as exc:
        raise ProtocolError(f"a message that is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message that is not a JSON object")
    return message


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    """Send ``message`` as one frame."""
    body = json.dumps(message).encode("utf-8")
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def _answer(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("type") != "hello":
        return {"type": "error", "message": f"unknown message type {message.get('type')!r}"}
    try:
        info = start_bridge()
    except Exception as exc:  # the extension shows it in its popup
        print(f"cdpkit bridge host: {exc}", file=sys.stderr)
        return {"type": "error", "message": str(exc) or type(exc).__name__}
    # The browser started this host: its pid lets the bridge tell a browser that quit from
    # a worker Chrome stopped (which comes back).
    return {"type": "bridge", "port": info.port, "token": info.token, "browserPid": os.getppid()}


def _take_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's streams, on private descriptors; descriptors 0 and 1 then point at
    /dev/null and stderr, so that nothing else (a print, a library, the bridge process
    started from here) can read the browser's messages or write into the protocol."""
    sys.stdout.flush()
    incoming = os.fdopen(os.dup(0), "rb")  # buffered: read(n) waits for n bytes
    outgoing = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return incoming, outgoing


def main(argv: list[str] | None = None) -> int:
    """Serve the extension until stdin ends; the exit status."""
    args = sys.argv[1:] if argv is None else argv
    allowed = f"chrome-extension://{extension_id()}/"
    # The browser names the caller; the host manifest already lets only this origin in.
    if not args or args[0] != allowed:
        caller = args[0] if args else "nobody named"
        print(
            f"cdpkit bridge host: refused: started by {caller}, not by {allowed}", file=sys.stderr
        )
        return 1
    incoming, outgoing = _take_stdio()
    try:
        while True:
            try:
                message = read_message(incoming)
            except ProtocolError as exc:
                print(f"cdpkit bridge host: {exc}", file=sys.stderr)
                return 1
            if message is None:
                return 0
            write_message(outgoing, _answer(message))
    except BrokenPipeError:  # the browser closed the port while we answered
        return 0
    finally:
        incoming.close()
        with contextlib.suppress(BrokenPipeError):
            outgoing.close()


if __name__ == "__main__":
    sys.exit(main())
