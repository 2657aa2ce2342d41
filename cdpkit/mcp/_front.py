"""The stdio server's front: the MCP handshake answered in milliseconds, before the
``mcp`` SDK (and pydantic, and the browser code) is even imported.

An MCP host spawns ``cdpkit mcp`` and waits for ``initialize`` (or the 2026 protocol's
``server/discover``) and ``tools/list`` before the agent can start; importing the SDK
alone takes most of a second. So the front reads the first messages itself, with the
standard library only, and answers ``initialize``, ``notifications/initialized``, ``ping``,
``server/discover`` and ``tools/list`` from the listing (:data:`LISTING_PATH`): the
answers the SDK server gives to those requests, recorded from it at build time by
:mod:`cdpkit.mcp._listing` (``python -m cdpkit.mcp._listing --write``; ``--check`` says
whether the file is stale, and a test runs it). The protocol version is negotiated as the SDK
does: the client's version if the SDK supports it, else the latest it supports.

The first message the front does not answer (a tool call, anything unusual, a message it
cannot parse) hands the connection to the real SDK server: the messages the front
answered that change a session's state (``initialize`` and ``notifications/initialized``,
or ``server/discover``) are replayed into it first and its duplicate answers dropped, so
its session is in the state the client believes; every later message flows through it
unchanged, both ways (notifications, cancellation, errors). The SDK is imported in a
background thread as soon as ``tools/list`` is answered (or after a short wait for the
handshake), together with the check of the command line's values, so the first tool call
does not pay for it; a bad value ends the server with its one-line error, as before.

The front serves only what the listing describes: stdio, no ``--allowed-origins`` or
``--blocked-origins`` (their entries appear in the tools' descriptions), and the ``mcp``
version the listing was recorded with; anything else takes the SDK path from the start.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._session import ServerOptions

__all__ = [
    "LISTING_PATH",
    "Handoff",
    "front_serves",
    "installed_mcp",
    "listing_variant",
    "serve_stdio",
]

LISTING_PATH = Path(__file__).with_name("_listing.json")

# The per-request envelope of the 2026 protocol (keys of params._meta).
_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"

# How long the front waits for the handshake before it checks the options and loads the
# SDK anyway (a person who typed the command sees a bad option's error this soon).
_IDLE_START = 1.0


def _load_listing() -> dict[str, Any] | None:
    try:
        listing: dict[str, Any] = json.loads(LISTING_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return listing


def installed_mcp() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return None


def front_serves(args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The listing the front answers from for these command-line values, or ``None`` when
    the SDK must serve from the start (``--http``, origin lists, no listing, or another
    ``mcp`` version than the one it was recorded with)."""
    if args.get("http") is not None or args.get("allowed_origins") or args.get("blocked_origins"):
        return None
    listing = _load_listing()
    if listing is None or listing.get("mcp") != installed_mcp():
        return None
    return listing


# -- the answers ------------------------------------------------------------------------------


# The fields of an implementation's info the front takes as they are (others, such as
# icons, go to the SDK to check).
_INFO_FIELDS = {"name", "version", "title", "description", "websiteUrl"}


def _is_info(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and {"name", "version"} <= set(value) <= _INFO_FIELDS
        and all(isinstance(field, str) for field in value.values())
    )


def _is_capabilities(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(item, dict) for item in value.values())


def _modern_envelope(params: Any, listing: Mapping[str, Any]) -> bool:
    """``params`` is exactly a well-formed 2026 envelope at a version the SDK serves."""
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return False
    meta = params["_meta"]
    return (
        isinstance(meta, dict)
        and set(meta) == {_VERSION_KEY, _CLIENT_INFO_KEY, _CAPABILITIES_KEY}
        and meta[_VERSION_KEY] in listing["modern_versions"]
        and _is_info(meta[_CLIENT_INFO_KEY])
        and _is_capabilities(meta[_CAPABILITIES_KEY])
    )


class _Front:
    """The handshake's state and answers. :meth:`answer` returns the result of a message
    the front answers itself (``{}`` for a notification it takes), or ``None`` for one
    the SDK must handle."""

    def __init__(self, listing: Mapping[str, Any], *, allow_js: bool, allow_file_urls: bool):
        self.listing = listing
        self.tools = listing["tools"][
            listing_variant(allow_js=allow_js, allow_file_urls=allow_file_urls)
        ]
        self.instructions = listing["instructions"][
            listing_variant(allow_js=False, allow_file_urls=allow_file_urls)
        ]
        self.era: str | None = None  # "legacy" (initialize) or "modern" (server/discover)
        self.initialized = False
        self.replay: list[bytes] = []  # what the SDK must see again
        self.replayed_ids: list[Any] = []  # the requests among them: drop their answers
        self.listed = False

    def answer(self, line: bytes, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return None
        method, params = message.get("method"), message.get("params")
        request_id = message.get("id")
        is_request = isinstance(request_id, (int, str)) and not isinstance(request_id, bool)
        if self.era is None:
            if method == "initialize" and is_request:
                return self._initialize(line, message["id"], params)
            if (
                method == "server/discover"
                and is_request
                and _modern_envelope(params, self.listing)
            ):
                self._keep(line, message["id"])
                self.era = "modern"
                return {**self.listing["discover"], "instructions": self.instructions}
            return None
        if self.era == "legacy":
            if method == "notifications/initialized" and not is_request and "id" not in message:
                if params not in (None, {}):
                    return None
                self._keep(line, None)
                self.initialized = True
                return {}
            if method == "ping" and is_request and params in (None, {}):
                return {}
            if method == "tools/list" and is_request and params in (None, {}) and self.initialized:
                self.listed = True
                return {"tools": self.tools}
            return None
        if method == "tools/list" and is_request and _modern_envelope(params, self.listing):
            self.listed = True
            return {**self.listing["modern_list"], "tools": self.tools}
        return None

    def _initialize(self, line: bytes, request_id: Any, params: Any) -> dict[str, Any] | None:
        if not (
            isinstance(params, dict)
            and set(params) <= {"protocolVersion", "capabilities", "clientInfo"}
            and isinstance(params.get("protocolVersion"), str)
            and _is_capabilities(params.get("capabilities"))
            and _is_info(params.get("clientInfo"))
        ):
            return None
        requested = params["protocolVersion"]
        # As the SDK negotiates: the client's version if supported, else the latest.
        handshake = self.listing["handshake_versions"]
        version = requested if requested in handshake else handshake[-1]
        self._keep(line, request_id)
        self.era = "legacy"
        return {
            **self.listing["initialize"],
            "protocolVersion": version,
            "instructions": self.instructions,
        }

    def _keep(self, line: bytes, request_id: Any) -> None:
        self.replay.append(line)
        if request_id is not None:
            self.replayed_ids.append(request_id)


def listing_variant(*, allow_js: bool, allow_file_urls: bool) -> str:
    """The listing's key for what these options change in the tools and instructions."""
    names = [
        name for name, on in (("allow_js", allow_js), ("allow_file_urls", allow_file_urls)) if on
    ]
    return "+".join(names) or "default"


def _dumps(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


# -- the wire ---------------------------------------------------------------------------------


def _claim_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """The wire on private descriptors; fd 0 then reads the null device and fd 1 goes to
    stderr, so nothing the server or the browser prints can corrupt the protocol (what
    the SDK's stdio transport does, done here once for the whole process)."""
    try:
        import fcntl

        wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout.flush()
        os.dup2(2, 1)
    except (ImportError, OSError):  # no such descriptors to move: serve them in place
        return sys.stdin.buffer, sys.stdout.buffer
    return os.fdopen(wire_in, "rb", closefd=False), os.fdopen(wire_out, "wb", closefd=False)


class Handoff:
    """The connection as the SDK server takes it over: the lines it must read first (the
    front's replay, then the message the front did not answer), then the rest of stdin;
    its answers to the replayed requests are dropped (the front gave them)."""

    def __init__(self, wire_in: IO[bytes], wire_out: IO[bytes], replay: list[bytes],
                 replayed_ids: list[Any]) -> None:  # fmt: skip
        self.wire_in = wire_in
        self.wire_out = wire_out
        self.replay = replay
        self.pending_drops = list(replayed_ids)

    async def lines(self) -> AsyncIterator[str]:
        """The lines for the SDK's stdio transport to read."""
        import anyio.to_thread

        for line in self.replay:
            yield line.decode("utf-8", errors="replace")
        while True:
            line = await anyio.to_thread.run_sync(self.wire_in.readline, abandon_on_cancel=True)
            if not line:
                return
            yield line.decode("utf-8", errors="replace")

    def _dropped(self, text: str) -> bool:
        if not self.pending_drops:
            return False
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if (
            isinstance(message, dict)
            and "method" not in message
            and message.get("id") in self.pending_drops
        ):
            self.pending_drops.remove(message["id"])
            if "error" in message:  # cannot happen while the listing is the SDK's own
                print(
                    f"cdpkit mcp: the SDK server refused the handshake the front answered: "
                    f"{message['error']}",
                    file=sys.stderr,
                    flush=True,
                )
            return True
        return False

    async def write(self, text: str) -> None:
        """Write one message of the SDK's (or drop the duplicate answer of a replayed
        request)."""
        import anyio.to_thread

        if self._dropped(text):
            return
        await anyio.to_thread.run_sync(self.wire_out.write, text.encode())

    async def flush(self) -> None:
        import anyio.to_thread

        await anyio.to_thread.run_sync(self.wire_out.flush)

    # The SDK's transport iterates its stdin.
    def __aiter__(self) -> AsyncIterator[str]:
        return self.lines()


class _Preparation:
    """The options' check and the SDK's import, in a thread, started once."""

    def __init__(self, make_options: Callable[[], ServerOptions], warm: Callable[[], None]) -> None:
        self.make_options = make_options
        self.warm = warm
        self.options: ServerOptions | None = None
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cdpkit-mcp-prepare", daemon=True)
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> None:
        with self._lock:
            if not self._started:
                self._started = True
                self._thread.start()

    def _run(self) -> None:
        from .._front.browser_options import CLIError, report_error

        try:
            self.options = self.make_options()
        except CLIError as exc:
            # The front may be blocked reading stdin: end the process here, as the
            # SDK path ends it (one line, exit status 2); nothing was started yet.
            report_error(exc, debug=False)
            sys.stderr.flush()
            os._exit(exc.exit_code)
        except BaseException as exc:  # reported by the main thread
            self.failure = exc
            return
        try:
            self.warm()
        except BaseException as exc:
            self.failure = exc

    def result(self) -> ServerOptions:
        self.start()
        self._thread.join()
        if self.failure is not None:
            raise self.failure
        assert self.options is not None
        return self.options


def serve_stdio(
    listing: Mapping[str, Any],
    args: Mapping[str, Any],
    make_options: Callable[[], ServerOptions],
    warm: Callable[[], None],
    serve: Callable[[ServerOptions, Handoff], None],
) -> None:
    """Answer the handshake from ``listing``, then hand the connection to
    ``serve(options, handoff)`` (the SDK server) at the first message the front does not
    answer; return at end of input. Once ``tools/list`` is answered (or after a short
    wait), a thread checks the options (``make_options``) and loads the SDK server
    (``warm``: it raises ``SystemExit`` with a message when the SDK is missing).

    Raises:
        SystemExit: The ``mcp`` extra is missing or unusable (its message says how to
            install it).
    """
    front = _Front(
        listing,
        allow_js=bool(args.get("allow_js")),
        allow_file_urls=bool(args.get("allow_file_urls")),
    )
    preparation = _Preparation(make_options, warm)
    timer = threading.Timer(_IDLE_START, preparation.start)
    timer.daemon = True
    timer.start()
    wire_in, wire_out = _claim_stdio()
    pending: list[bytes] = []
    try:
        while True:  # (Ctrl-C here ends the server quietly, as it does once serving)
            line = wire_in.readline()
            if not line:
                break  # the client left during the handshake
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            result = front.answer(line, message)
            if result is None:
                pending.append(line)
                break
            if "id" in message:  # a request (a notification the front took has none)
                try:
                    wire_out.write(
                        _dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
                    )
                    wire_out.flush()
                except OSError:  # the client is gone (a closed pipe): nothing to serve
                    break
            if front.listed:
                preparation.start()
    except KeyboardInterrupt:
        return
    finally:
        timer.cancel()
    options = preparation.result()
    if not pending:
        return
    serve(options, Handoff(wire_in, wire_out, front.replay + pending, front.replayed_ids))
