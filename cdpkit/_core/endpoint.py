"""Finding a running browser's WebSocket from an endpoint a person gave, and naming that
endpoint in errors without its secrets.

An endpoint is ``http(s)://host:port`` (its ``/json/version`` names the browser's
WebSocket) or the ``ws(s)://`` URL itself. Hosted browser fleets and grids put a token in
the query (``?token=...``) or want a header (``Authorization: Bearer ...``): both are sent
on the ``/json/version`` lookup and on the WebSocket upgrade, and the query is carried over
to a WebSocket URL the lookup returns without one. Error messages show the endpoint with
its password and query values masked, and never a header.
"""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.parse
from collections.abc import Mapping

from ..errors import ConnectError

__all__ = ["browser_ws_url", "check_headers", "http_request", "redact"]

_MAX_VERSION_RESPONSE = 1024 * 1024


def redact(url: str) -> str:
    """``url`` with the password and every query value replaced by ``***``: safe to print."""
    try:
        parsed = urllib.parse.urlsplit(url)
        netloc = parsed.netloc
        if parsed.password is not None:
            netloc = netloc.replace(f":{parsed.password}@", ":***@", 1)
        query = parsed.query
        if query:
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
            query = "&".join(f"{name}=***" for name, _ in pairs) or "***"
        return urllib.parse.urlunsplit(
            (parsed.scheme, netloc, parsed.path, query, "")
        )
    except ValueError:
        return "<an unparsable URL>"


def check_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers as a dict, checked: names and values must be strings without line
    breaks (a header cannot be split into two)."""
    checked: dict[str, str] = {}
    for name, value in (headers or {}).items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"Header names and values must be strings, got {name!r}")
        if not name or any(c in name for c in ":\r\n ") or "\r" in value or "\n" in value:
            raise ValueError(f"Invalid header {name!r}: no line breaks, and a name without ':'")
        checked[name] = value
    return checked


async def browser_ws_url(endpoint: str, headers: Mapping[str, str]) -> str:
    """The browser's WebSocket URL: ``endpoint`` itself, or read from its ``/json/version``.

    Raises:
        ConnectError: The endpoint is not a URL, refuses, closes, or answers something that
            is not a DevTools ``/json/version``; the message names it (redacted) and what
            was seen.
    """
    parsed = urllib.parse.urlparse(endpoint)
    if parsed.scheme in ("ws", "wss"):
        return endpoint
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConnectError(
            f"Not a browser endpoint: {redact(endpoint)!r} "
            "(expected http(s)://host:port or ws(s)://...)"
        )
    base = parsed.path.rstrip("/")
    version_url = urllib.parse.urlunparse(
        (parsed.scheme, parsed.netloc, f"{base}/json/version", "", parsed.query, "")
    )
    shown = redact(version_url)
    status, body = await _http_get(version_url, headers)
    if status in (401, 403):
        raise ConnectError(
            f"{shown} answered {status}: the endpoint wants credentials "
            "(connect(headers={...}) or a token in the URL)"
        )
    if status != 200:
        raise ConnectError(f"{shown} answered {status}: not a Chrome DevTools endpoint")
    try:
        info = json.loads(body)
    except ValueError:
        raise ConnectError(
            f"{shown} did not answer JSON: not a DevTools endpoint (it sent {body[:80]!r})"
        ) from None
    url = info.get("webSocketDebuggerUrl") if isinstance(info, dict) else None
    if not isinstance(url, str) or not url:
        raise ConnectError(f"{shown} gives no webSocketDebuggerUrl")
    ws = urllib.parse.urlparse(url)
    if parsed.query and not ws.query:  # a token in the endpoint's query is needed there too
        url = urllib.parse.urlunparse(ws._replace(query=parsed.query))
    return url


async def _http_get(url: str, headers: Mapping[str, str]) -> tuple[int, bytes]:
    return await http_request("GET", url, headers=headers)


async def http_request(
    method: str, url: str, *, headers: Mapping[str, str], body: bytes | None = None
) -> tuple[int, bytes]:
    """A minimal HTTP/1.1 request with ``Connection: close`` on asyncio streams, so the
    caller's deadline cancels it at any point (a thread blocked in ``urlopen`` cannot be).

    Returns:
        The status code and the body.

    Raises:
        ConnectError: Refused, closed early, or not an HTTP answer (quotes what came).
    """
    parsed = urllib.parse.urlparse(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.hostname or ""
    shown = redact(url)
    try:
        reader, writer = await asyncio.open_connection(
            host, port, ssl=True if parsed.scheme == "https" else None
        )
    except OSError as exc:
        raise ConnectError(
            f"Could not reach {shown}: {exc.strerror or exc}. Is Chrome running with "
            "--remote-debugging-port?"
        ) from None
    try:
        target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        host_header = parsed.netloc.rpartition("@")[2]  # never the credentials
        sent = dict(headers)
        if parsed.username is not None and not any(k.lower() == "authorization" for k in sent):
            credentials = f"{urllib.parse.unquote(parsed.username)}:{urllib.parse.unquote(parsed.password or '')}"
            sent["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode()
        extra = "".join(f"{name}: {value}\r\n" for name, value in sent.items())
        if body is not None:
            extra += f"Content-Length: {len(body)}\r\n"
        writer.write(
            f"{method} {target} HTTP/1.1\r\nHost: {host_header}\r\nAccept: application/json\r\n"
            f"{extra}Connection: close\r\n\r\n".encode()
            + (body or b"")
        )
        try:
            return await _read_http_response(reader, shown)
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise ConnectError(f"{shown}: the connection failed while reading: {exc}") from None
    finally:
        writer.close()


async def _read_http_response(reader: asyncio.StreamReader, url: str) -> tuple[int, bytes]:
    # Bytes are checked as they come: a peer speaking another protocol is reported at
    # once, not when the deadline expires.
    data = b""
    while b"\r\n\r\n" not in data:
        more = await reader.read(65536)
        data += more
        if not b"HTTP/".startswith(data[:5]) or not more or len(data) > _MAX_VERSION_RESPONSE:
            seen = repr(data[:80]) if data else "nothing (it closed the connection)"
            raise ConnectError(
                f"{url} did not answer HTTP: it sent {seen}. Not a DevTools endpoint"
            )
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, _, header_text = head.partition(b"\r\n")
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ConnectError(f"{url} sent a malformed HTTP status line: {status_line[:80]!r}")
    headers = {}
    for line in header_text.split(b"\r\n"):
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    length = headers.get(b"content-length", b"")
    if length.isdigit() and int(length) <= _MAX_VERSION_RESPONSE:
        if len(body) < int(length):
            body += await reader.readexactly(int(length) - len(body))
        body = body[: int(length)]
    else:  # chunked or close-delimited: the server closes after it (we asked it to)
        body += await reader.read(_MAX_VERSION_RESPONSE)
        while more := await reader.read(_MAX_VERSION_RESPONSE):
            body += more
            if len(body) > _MAX_VERSION_RESPONSE:
                break
        if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = _dechunk(body)
    return int(parts[1]), body


def _dechunk(body: bytes) -> bytes:
    pieces = []
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        pieces.append(rest[:size])
        body = rest[size + 2 :]
    return b"".join(pieces)
