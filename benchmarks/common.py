"""What the harness, the workers and both clients share: sizes, Chrome, flags, measuring."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass

# Every client starts Chrome with these. The harness adds the defaults cdpkit's launcher
# uses, so all clients run the same Chrome command line; the raw client then adds
# --user-data-dir and the transport flag.
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
# Flags handed to cdpkit.launch(args=...): it chooses headless and the profile itself.
CDPKIT_ARGS = tuple(flag for flag in CHROME_FLAGS if flag != "--headless")


@dataclass(frozen=True)
class Sizes:
    article_bytes: int = 200_000
    tall_px: int = 20_000
    elements: int = 5_000
    console_messages: int = 10_000
    file_bytes: int = 100 * 2**20
    sequential_calls: int = 500
    warmup_calls: int = 50
    pipelined_calls: int = 2_000
    navigations: int = 5
    # Chrome keeps working for a while after it answers (first renderer, startup tasks):
    # every client waits this long after its set-up, so no one measures that storm.
    settle_seconds: float = 1.0


FULL = Sizes()
QUICK = Sizes(article_bytes=20_000, tall_px=3_000, elements=300, console_messages=200,
              file_bytes=4 * 2**20, sequential_calls=50, warmup_calls=5, pipelined_calls=100,
              navigations=2, settle_seconds=0.2)


def find_chrome() -> str:
    path = os.environ.get("CDPKIT_CHROME") or shutil.which("chromium") or "/usr/bin/chromium"
    return path


def now() -> float:
    return time.perf_counter()


def rss_mb() -> float:
    """Current resident set size of this process, in MB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def reset_peak_rss() -> None:
    """Restart the high-water mark read by :func:`peak_rss_mb` (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def peak_rss_mb() -> float:
    """Highest resident set size since :func:`reset_peak_rss`, in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError("no VmHWM in /proc/self/status")
