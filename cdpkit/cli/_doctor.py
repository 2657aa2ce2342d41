"""``cdpkit doctor``: check the setup, and how a browser's protocol differs from the
bindings' pin.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Annotated, Any, Unpack

import typer

from .._front.browser_options import open_browser
from .._front.cli_common import run
from ._browser import http_endpoint
from ._params import (
    BrowserFlags,
    DebugOption,
    launch_options,
    with_browser,
)


@dataclass(slots=True)
class ProtocolDiff:
    """How a browser's ``/json/protocol`` differs from the bindings' pin.

    Each list holds wire names: ``added_*`` the browser has and the bindings lack,
    ``removed_*`` the bindings have and the browser lacks.
    """

    added_domains: list[str] = field(default_factory=list)
    removed_domains: list[str] = field(default_factory=list)
    added_commands: list[str] = field(default_factory=list)
    removed_commands: list[str] = field(default_factory=list)
    added_events: list[str] = field(default_factory=list)
    removed_events: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Whether the browser and the bindings know exactly the same items."""
        return not any(
            (
                self.added_domains,
                self.removed_domains,
                self.added_commands,
                self.removed_commands,
                self.added_events,
                self.removed_events,
            )
        )


def diff_protocol(document: dict[str, Any]) -> ProtocolDiff:
    """Compare a protocol document (as served at ``/json/protocol``) with the bindings."""
    from .._front.protocol_docs import registry as _registry

    domains: set[str] = set()
    commands: set[str] = set()
    events: set[str] = set()
    for domain in document.get("domains", []):
        name = domain.get("domain")
        if not isinstance(name, str):
            continue
        domains.add(name)
        commands.update(f"{name}.{c['name']}" for c in domain.get("commands", []) if "name" in c)
        events.update(f"{name}.{e['name']}" for e in domain.get("events", []) if "name" in e)
    pinned_domains = set(_registry.DOMAINS)
    pinned_commands = set(_registry.COMMANDS)
    pinned_events = set(_registry.EVENTS)
    return ProtocolDiff(
        added_domains=sorted(domains - pinned_domains),
        removed_domains=sorted(pinned_domains - domains),
        added_commands=sorted(commands - pinned_commands),
        removed_commands=sorted(pinned_commands - commands),
        added_events=sorted(events - pinned_events),
        removed_events=sorted(pinned_events - events),
    )


def format_protocol_diff(diff: ProtocolDiff, *, limit: int | None = 8) -> list[str]:
    """The lines ``cdpkit doctor`` prints for a :class:`ProtocolDiff`."""
    if diff.identical:
        return ["  the browser's protocol matches the bindings exactly"]
    lines = []
    for sign, what, items, where in (
        ("+", "domains", diff.added_domains, "only in the browser"),
        ("-", "domains", diff.removed_domains, "only in the bindings"),
        ("+", "commands", diff.added_commands, "only in the browser"),
        ("-", "commands", diff.removed_commands, "only in the bindings"),
        ("+", "events", diff.added_events, "only in the browser"),
        ("-", "events", diff.removed_events, "only in the bindings"),
    ):
        if not items:
            continue
        shown = items if limit is None else items[:limit]
        more = f", ... and {len(items) - len(shown)} more" if len(shown) < len(items) else ""
        lines.append(f"  {sign} {len(items)} {what} {where}: {', '.join(shown)}{more}")
    return lines


def _fetch_json(url: str, timeout: float) -> Any:
    import urllib.request

    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


@with_browser("connect grid header chrome_arg timeout full")
def doctor(
    full: Annotated[bool, typer.Option("--full", help="List every protocol difference.")] = False,
    debug: DebugOption = False,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Check the setup: which Chrome cdpkit finds, whether it starts, its versions, and
    whether its live /json/protocol differs from the bindings' pin (and how)."""
    import platform

    import cdpkit

    from .._core.profiles import profiles_root
    from .._front.protocol_docs import registry as _registry

    options = launch_options(flags)

    async def work() -> None:
        print(
            f"cdpkit      {cdpkit.__version__} on Python {platform.python_version()} "
            f"({sys.platform}, {platform.machine()})"
        )
        print(
            f"bindings    {_registry.PROTOCOL_VERSION}: {len(_registry.DOMAINS)} domains, "
            f"{len(_registry.COMMANDS)} commands, {len(_registry.EVENTS)} events"
        )
        print(f"profiles    {profiles_root()}")
        if flags["connect"] is None:
            from ..launcher import find_chrome

            chrome = find_chrome()
            source = "$CDPKIT_CHROME" if os.environ.get("CDPKIT_CHROME") else "PATH and install locations"
            print(f"chrome      {chrome} (from {source})")
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                print("root        yes: cdpkit adds --no-sandbox")
        started = time.monotonic()
        async with open_browser(options) as browser:
            elapsed = time.monotonic() - started
            version = browser.version
            how = f"attached to {options.connect}" if options.connect else f"started headless in {elapsed:.1f} s"
            print(f"browser     {version.product} ({how})")
            print(f"protocol    {version.protocol_version}, V8 {version.js_version}")
            print(f"user agent  {version.user_agent}")
            endpoint = options.connect if options.connect is not None else http_endpoint(browser)
            if endpoint is None:
                print("live protocol: unknown (the browser has no HTTP endpoint)")
                return
            parts = urllib.parse.urlsplit(endpoint)
            base = f"{'https' if parts.scheme in ('https', 'wss') else 'http'}://{parts.netloc}"
            print(f"live protocol ({base}/json/protocol) vs bindings:")
            try:
                document = await asyncio.to_thread(
                    _fetch_json, f"{base}/json/protocol", flags["timeout"]
                )
            except (OSError, ValueError) as exc:
                print(f"  could not read it: {exc}")
                return
        diff = diff_protocol(document)
        for line in format_protocol_diff(diff, limit=None if full else 8):
            print(line)
        if not diff.identical:
            print(
                f"  `cdpkit gen --from-browser {base}` generates bindings from this browser's "
                "own protocol"
            )

    run(work, debug=debug)
