"""Chrome's command line: cdpkit's default flags, headless, the window size that gives every
page its viewport, the flags that contradict what cdpkit sets, the list switches merged."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ...errors import LaunchError

DEFAULT_VIEWPORT = (1280, 720)

# Headless Chrome draws no browser UI but still reserves its height: a page's innerHeight
# is the window height minus this (measured on Chromium 156; tests/core check the exact
# viewport, so a change in Chrome shows up there). Sizing the window once with
# --window-size costs nothing per page, unlike per-page device metrics emulation, and
# covers every page: new tabs, new contexts' pages and pages opened by window.open.
_HEADLESS_UI_HEIGHT = 87


def window_size_arg(viewport: tuple[int, int]) -> str:
    """The ``--window-size`` flag that gives every page this viewport (CSS pixels)."""
    width, height = viewport
    return f"--window-size={width},{height + _HEADLESS_UI_HEIGHT}"


# Flags for a quiet, deterministic automation browser. The network-related ones stop
# Chrome from stalling on background connections on machines without internet.
DEFAULT_ARGS: tuple[str, ...] = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    # Background tabs keep running at full speed: automation drives many pages at once.
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-ipc-flooding-protection",
    # What Chrome sends on its own, to Google, while pages load or nothing happens: through
    # a proxy it would say who is behind it. Off: translation, casting, the optimization
    # guide (hints, models, the on-device model's manifest), the network time queries
    # (clients2.google.com), autofill's server, certificate transparency's updater.
    "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,"
    "OptimizationHintsFetching,OptimizationGuideModelDownloading,OptimizationTargetPrediction,"
    "OptimizationGuideOnDeviceModel,NetworkTimeServiceQuerying,AutofillServerCommunication,"
    "CertificateTransparencyComponentUpdater",
    "--disable-domain-reliability",
    "--no-pings",
    # Two senders no feature switch stops: the account list the sign-in code asks
    # accounts.google.com for at start, and the updater's on-demand component checks
    # (update.googleapis.com), which --disable-component-update lets through. Both are
    # pointed at the discard port of the loopback, which Chrome refuses to connect to
    # (ERR_UNSAFE_PORT): nothing is sent anywhere.
    "--gaia-url=http://127.0.0.1:9",
    "--component-updater=url-source=http://127.0.0.1:9",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--force-color-profile=srgb",
    # No "unsupported command-line flag" info bar (--no-sandbox as root): it takes 56 px of
    # the first tab's viewport. ChromeDriver passes it too.
    "--test-type",
)

# What headless means to cdpkit, wherever its Chrome runs (here, or on a grid's node).
HEADLESS_ARGS: tuple[str, ...] = (
    "--headless",
    "--hide-scrollbars",
    "--mute-audio",
    "--disable-gpu",
)


def has_flag(args: Sequence[str], name: str) -> bool:
    """Whether ``args`` sets the switch ``name`` (Chrome also takes ``-name``)."""
    bare = name.lstrip("-")
    return any(arg.startswith("-") and arg.lstrip("-").partition("=")[0] == bare for arg in args)


def check_args(args: Sequence[str], *, pipe: bool, viewport: tuple[int, int] | None) -> None:
    """Refuse flags that contradict what cdpkit sets itself.

    Raises:
        LaunchError: Names the conflicting flag and the launch() argument to use instead.
    """
    conflicts = []
    if has_flag(args, "--remote-allow-origins"):
        raise LaunchError("cdpkit never allows other origins to reach the DevTools endpoint")
    if has_flag(args, "--user-data-dir"):
        conflicts.append(
            "--user-data-dir in args: cdpkit sets the profile itself; pass "
            "launch(user_data_dir=...) or launch(profile=NAME) instead"
        )
    if pipe and has_flag(args, "--remote-debugging-port"):
        conflicts.append(
            "--remote-debugging-port in args with pipe=True: it would open a TCP debugging "
            "port next to the pipe; drop the flag or use pipe=False"
        )
    if not pipe and has_flag(args, "--remote-debugging-pipe"):
        conflicts.append("--remote-debugging-pipe in args: pass launch(pipe=True) instead")
    if viewport is not None and has_flag(args, "--window-size"):
        conflicts.append(
            "--window-size in args with viewport=: they set the same thing; pass only one"
        )
    if conflicts:
        raise LaunchError("Conflicting Chrome arguments: " + "; ".join(conflicts))


def check_viewport(viewport: tuple[int, int]) -> tuple[int, int]:
    """``viewport`` as validated ``(width, height)``.

    Raises:
        ValueError: Not two whole numbers of pixels between 1 and 16384.
    """
    try:
        width, height = viewport
    except (TypeError, ValueError):
        raise ValueError(
            f"viewport must be (width, height) in pixels, e.g. (1280, 720); got {viewport!r}"
        ) from None
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 16384:
            raise ValueError(
                f"viewport {name} must be a whole number of pixels from 1 to 16384; "
                f"got {value!r} in viewport={viewport!r}"
            )
    return width, height


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def build_args(
    *,
    headless: bool,
    user_data_dir: Path,
    pipe: bool,
    extra_args: Sequence[str] = (),
    viewport: tuple[int, int] | None = DEFAULT_VIEWPORT,
    default_args: Sequence[str] = DEFAULT_ARGS,
) -> list[str]:
    """Chrome's command line (without the executable); ``viewport=None`` leaves the
    window size to ``extra_args`` or Chrome; ``default_args`` replaces
    :data:`DEFAULT_ARGS` (``BrowserSettings.ignore_default_args``)."""
    own_port = has_flag(extra_args, "--remote-debugging-port")
    args = [*default_args, f"--user-data-dir={user_data_dir}"]
    if pipe:
        args.append("--remote-debugging-pipe")
    elif not own_port:
        args.append("--remote-debugging-port=0")  # the OS picks a free port
    if not pipe:
        args.append("--remote-debugging-address=127.0.0.1")
    if headless:
        args += HEADLESS_ARGS
    if viewport is not None:
        args.append(window_size_arg(viewport))
    if _is_root():
        # Chrome refuses to start as root with its sandbox on.
        args.append("--no-sandbox")
    args += list(extra_args)
    args.append("about:blank")
    return merge_list_switches(args)


# Switches whose value is a comma-separated list. Chrome reads only the last copy of a
# switch, so the user's --disable-features=X would silently drop the default's list (and
# with it the switches that keep Chrome from calling Google): the copies are merged.
_LIST_SWITCHES = (
    "disable-features",
    "enable-features",
    "disable-blink-features",
    "enable-blink-features",
)


def merge_list_switches(args: list[str]) -> list[str]:
    """``args`` with each list switch given once, at its first place, holding the items of
    every copy in order (repeats dropped)."""
    items: dict[str, dict[str, None]] = {}
    places: dict[str, int] = {}
    merged: list[str] = []
    for arg in args:
        name, equals, value = arg.lstrip("-").partition("=")
        if not (arg.startswith("-") and equals and name in _LIST_SWITCHES):
            merged.append(arg)
            continue
        if name not in places:
            places[name] = len(merged)
            merged.append(arg)
        items.setdefault(name, {}).update(dict.fromkeys(item for item in value.split(",") if item))
    for name, place in places.items():
        merged[place] = f"--{name}={','.join(items[name])}"
    return merged
