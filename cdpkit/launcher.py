"""Find, start and stop a local Chrome or Chromium.

Chrome runs in its own process group with a fresh temporary profile (mode 0700) unless one
is given; the DevTools endpoint is read from ``<profile>/DevToolsActivePort`` (port 0, so
the OS picks a free port, bound to 127.0.0.1); its output is drained continuously so it
can never block on a full pipe, and the last lines are kept for error messages. Stopping
waits briefly for a graceful exit, then kills the whole process group and removes the
temporary profile. Any Chrome still running when the interpreter exits is killed too.

Chrome never outlives its owner, however the owner ends (SIGKILL included): each launch
starts a tiny watchdog (``/bin/sh``, in its own session) that blocks reading a pipe whose
write end only the owner holds. When cdpkit stops Chrome itself it dismisses the watchdog
with one line; if the owner dies first, the kernel closes the write end, the watchdog's
read sees end-of-file, and it kills Chrome's process group and removes the temporary
profile. A temporary profile also records its owner (pid and start time), so the next
:func:`start_chrome` removes profiles whose owner is gone (e.g. after a power loss).

One module, past 600 lines, on purpose: finding, flags, the process group, the watchdog
and the profile sweep are one mechanism (what is started is what must be stopped), and
split apart each part would hide what the others assume.
"""

from __future__ import annotations

import _thread
import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio

from .errors import LaunchError

__all__ = [
    "DEFAULT_ARGS",
    "DEFAULT_VIEWPORT",
    "ChromeProcess",
    "check_user_data_dir",
    "check_viewport",
    "find_chrome",
    "start_chrome",
]

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

TEMP_PROFILE_PREFIX = "cdpkit-profile-"
_OWNER_FILE = "cdpkit-owner"  # in a temporary profile: "<owner pid> <owner start time>"

# The watchdog's whole program. $1: Chrome's process group, $2: a temporary profile or "".
# A line on stdin means "cdpkit stopped Chrome itself"; end-of-file means the owner died.
_WATCHDOG_SCRIPT = (
    "trap '' HUP INT; "
    "read -r _ && exit 0; "
    'kill -KILL -"$1" 2>/dev/null; '
    '[ -n "$2" ] || exit 0; '
    # Chrome's helpers may still be flushing files a moment after the kill.
    'rm -rf -- "$2"; sleep 0.2; rm -rf -- "$2"'
)
# Whether launches start the owner-death watchdog (the benchmark compares both ways).
_watchdog_enabled = os.name == "posix" and os.path.exists("/bin/sh")

CHROME_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "msedge",
)


def _install_locations() -> list[Path]:
    home = Path.home()
    if sys.platform == "darwin":
        apps = [
            "Google Chrome.app/Contents/MacOS/Google Chrome",
            "Chromium.app/Contents/MacOS/Chromium",
            "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
            "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        ]
        return [root / app for root in (Path("/Applications"), home / "Applications") for app in apps]
    if sys.platform == "win32":
        roots = [os.environ.get(v) for v in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
        exes = [
            r"Google\Chrome\Application\chrome.exe",
            r"Chromium\Application\chrome.exe",
            r"Microsoft\Edge\Application\msedge.exe",
        ]
        return [Path(root) / exe for root in roots if root for exe in exes]
    return [
        Path(p)
        for p in (
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/usr/lib/chromium/chromium",
            "/usr/bin/google-chrome",
            "/usr/bin/google-chrome-stable",
            "/opt/google/chrome/chrome",
            "/snap/bin/chromium",
            "/usr/bin/microsoft-edge",
        )
    ]


def _default_user_data_dirs() -> list[Path]:
    """Chrome's own default profile locations, which cdpkit refuses to launch on."""
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library/Application Support"
        names = ["Google/Chrome", "Google/Chrome Canary", "Chromium", "Microsoft Edge"]
        return [base / n for n in names]
    if sys.platform == "win32":
        local = Path(os.environ.get("LOCALAPPDATA", home / "AppData/Local"))
        names = ["Google/Chrome/User Data", "Chromium/User Data", "Microsoft/Edge/User Data"]
        return [local / n for n in names]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    names = ["google-chrome", "google-chrome-beta", "google-chrome-unstable", "chromium"]
    return [config / n for n in [*names, "microsoft-edge"]]


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_chrome(executable_path: str | os.PathLike[str] | None = None) -> str:
    """The Chrome to launch: ``executable_path``, else ``$CDPKIT_CHROME``, else the usual
    names on ``PATH``, else the standard install locations.

    Raises:
        LaunchError: Nothing usable found; the message lists where it looked.
    """
    for source, value in (
        ("executable_path", executable_path),
        ("CDPKIT_CHROME", os.environ.get("CDPKIT_CHROME")),
    ):
        if value:
            path = Path(value).expanduser()
            if not _usable(path):
                raise LaunchError(f"Chrome not found at {path} (from {source}): no such executable")
            return str(path)
    for name in CHROME_NAMES:
        found = shutil.which(name)
        if found:
            return found
    locations = _install_locations()
    for path in locations:
        if _usable(path):
            return str(path)
    raise LaunchError(
        "No Chrome or Chromium found. Looked at executable_path=, $CDPKIT_CHROME, "
        f"{', '.join(CHROME_NAMES)} on PATH, and {', '.join(map(str, locations))}. "
        "Install one (Debian/Ubuntu: `apt-get install chromium`; or Google Chrome), "
        "or pass executable_path= / set CDPKIT_CHROME."
    )


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
HEADLESS_ARGS: tuple[str, ...] = ("--headless", "--hide-scrollbars", "--mute-audio", "--disable-gpu")

_live_groups: set[int] = set()


@atexit.register
def _kill_leftovers() -> None:
    # Last resort for a browser whose `async with launch()` never exited (e.g. os._exit
    # is not covered, but an abandoned event loop or sys.exit from a thread is).
    for pgid in list(_live_groups):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


def check_user_data_dir(path: str | os.PathLike[str]) -> Path:
    """The resolved profile path; refuses Chrome's own default profile directories.

    Raises:
        LaunchError: ``path`` is (inside) one of Chrome's default user data dirs.
    """
    resolved = Path(path).expanduser().resolve()
    for default in _default_user_data_dirs():
        with contextlib.suppress(OSError):
            default = default.resolve()
        if resolved == default or default in resolved.parents:
            raise LaunchError(
                f"Refusing to launch on Chrome's default profile directory {resolved}: Chrome "
                "ignores remote debugging there and would hang. Use profile='NAME', another "
                "user_data_dir=, or cdpkit.connect() to a Chrome you started yourself."
            )
    return resolved


class ChromeProcess:
    """A running Chrome started by :func:`start_chrome`."""

    def __init__(
        self,
        process: asyncio.subprocess.Process | SpawnedProcess,
        user_data_dir: Path,
        *,
        temporary_profile: bool,
        pipe_fds: tuple[int, int] | None,
    ) -> None:
        self.process = process
        self.pid = process.pid
        self.user_data_dir = user_data_dir
        self.temporary_profile = temporary_profile
        # Our ends of the debugging pipes (read_fd, write_fd); the transport owns them.
        self.pipe_fds = pipe_fds
        self.output: deque[str] = deque(maxlen=40)
        self._listening = asyncio.Event()
        self.listening_url: str | None = None  # from Chrome's "DevTools listening on ws://..."
        self._drain = asyncio.create_task(self._drain_output(), name="cdpkit-chrome-output")
        self._exit = asyncio.create_task(self._watch_exit(), name="cdpkit-chrome-exit")
        self._stopping = False
        _live_groups.add(self.pid)
        # The watchdog: its pid (started with posix_spawn), or its Popen elsewhere.
        self._watchdog: int | subprocess.Popen[bytes] | None = None
        self._watchdog_fd: int | None = None  # our write end of the watchdog's pipe
        if _watchdog_enabled:
            # Off the critical path: runs while launch() waits for Chrome to come up.
            asyncio.get_running_loop().call_soon(self._start_watchdog)

    def _start_watchdog(self) -> None:
        if self._stopping or self.exited:
            return
        read_end, write_end = os.pipe()  # both close-on-exec: Chrome never inherits them
        profile = str(self.user_data_dir) if self.temporary_profile else ""
        command = ["/bin/sh", "-c", _WATCHDOG_SCRIPT, "cdpkit-watchdog", str(self.pid), profile]
        try:
            if _CAN_POSIX_SPAWN:
                # A vfork, not subprocess's fork and bookkeeping: this runs in the event
                # loop while Chrome starts (2-5 ms of it under load with subprocess).
                read_end = _above_std_fds(read_end)
                self._watchdog = os.posix_spawn(
                    "/bin/sh",
                    command,
                    # All it runs is kill, rm and sleep: PATH is enough (copying the whole
                    # environment out of os.environ cost more than the spawn).
                    {"PATH": os.environ.get("PATH", os.defpath)},
                    file_actions=[
                        (os.POSIX_SPAWN_DUP2, read_end, 0),
                        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                    ],
                    setsid=True,  # a terminal's Ctrl-C or hang-up must not reach it
                )
            else:
                self._watchdog = subprocess.Popen(
                    command,
                    stdin=read_end,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a terminal's Ctrl-C or hang-up must not reach it
                )
        except OSError:
            os.close(write_end)  # no watchdog: the atexit hook and the sweep still apply
        else:
            self._watchdog_fd = write_end
        finally:
            os.close(read_end)

    async def _dismiss_watchdog(self) -> None:
        """Tell the watchdog Chrome is handled (so it exits without acting) and reap it."""
        fd, self._watchdog_fd = self._watchdog_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, b"stopped\n")
            os.close(fd)
        watchdog, self._watchdog = self._watchdog, None
        if isinstance(watchdog, int):
            await _reap(watchdog, within=5)
        elif watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                await anyio.to_thread.run_sync(lambda: watchdog.wait(5))

    async def _drain_output(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue  # a line longer than the buffer: skip it, keep draining
            if not line:
                return
            text = line.decode(errors="replace").rstrip()
            if text:
                self.output.append(text)
                if text.startswith("DevTools listening on"):
                    self.listening_url = text.rpartition(" ")[2]
                    self._listening.set()

    async def _watch_exit(self) -> int:
        return await self.process.wait()

    @property
    def exited(self) -> bool:
        return self._exit.done()

    def describe_exit(self) -> str:
        code = self.process.returncode
        if code is None:
            return "Chrome is running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"Chrome exited (killed by {name})"
        return f"Chrome exited with code {code}"

    def last_output(self) -> str:
        if not self.output:
            return "(Chrome printed nothing)"
        return "Chrome's last output:\n  " + "\n  ".join(self.output)

    async def wait_for_exit(self) -> None:
        await asyncio.shield(self._exit)

    async def wait_for_endpoint(self, timeout: float) -> str:
        """The browser WebSocket URL from ``DevToolsActivePort``.

        Raises:
            LaunchError: Chrome exited first, or wrote no endpoint within ``timeout``.
        """
        port_file = self.user_data_dir / "DevToolsActivePort"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with contextlib.suppress(OSError):
                lines = port_file.read_text().splitlines()
                if len(lines) >= 2 and lines[0].strip().isdigit():
                    return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            if self.listening_url:  # a fixed --remote-debugging-port writes no port file
                return self.listening_url
            if self.exited:
                await asyncio.sleep(0.05)  # let the drain task read Chrome's last words
                raise LaunchError(f"{self.describe_exit()} before it was ready. {self.last_output()}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise LaunchError(
                    f"Chrome did not open its DevTools endpoint within {timeout:g} s "
                    f"(launch(timeout=...) sets this). {self.last_output()}"
                )
            # Chrome prints "DevTools listening" as it writes the file: wake up on either.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listening.wait(), min(0.01, remaining))

    async def stop(self, grace: float = 5.0) -> None:
        """Wait up to ``grace`` seconds for Chrome to exit by itself, then kill its process
        group and remove a temporary profile. Safe to call twice; not cancellable."""
        if self._stopping and self.pid not in _live_groups:
            return
        self._stopping = True
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wait_for_exit(), grace)
            await self._kill_group()
            self._drain.cancel()
            await asyncio.gather(self._drain, return_exceptions=True)
            if self.temporary_profile:
                await _remove_tree(self.user_data_dir)
            # Last: if a second Ctrl-C (KeyboardInterrupt) interrupts the lines above, the
            # watchdog still removes the profile when this process exits.
            await self._dismiss_watchdog()

    async def _kill_group(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait_for_exit(), 5)
        # Wait until the group's members are gone (zombies left to init count as gone).
        for _ in range(100):
            if not _group_alive(self.pid):
                break
            await asyncio.sleep(0.01)
        _live_groups.discard(self.pid)


async def _reap(pid: int, *, within: float) -> None:
    """Collect child ``pid``'s exit status once it exits, waiting at most ``within``
    seconds (the dismissed watchdog exits at once)."""
    for _ in range(int(within / 0.01)):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)  # noqa: ASYNC222 - WNOHANG: never blocks
        except ChildProcessError:
            return
        if done:
            return
        await asyncio.sleep(0.01)


def _group_alive(pgid: int) -> bool:
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except OSError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


async def _remove_tree(path: Path) -> None:
    # Chrome's helpers may still be flushing files a moment after the kill.
    for attempt in range(5):
        await anyio.to_thread.run_sync(lambda: shutil.rmtree(path, ignore_errors=True))
        if not path.exists():
            return
        await asyncio.sleep(0.05 * (attempt + 1))


def _process_start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot), ``"?"`` where there is
    no ``/proc``, ``None`` if no such process. A pid reused by another process has another
    start time, so it is not mistaken for the owner."""
    if not _HAS_PROC:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except OSError:
            pass  # it exists, owned by someone else
        return "?"
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()[19]


_HAS_PROC = os.path.exists("/proc/self/stat")


def _mark_owner(profile: Path) -> None:
    (profile / _OWNER_FILE).write_text(f"{os.getpid()} {_process_start_time(os.getpid())}\n")


def _owner_alive(profile: Path) -> bool:
    """Whether the process that created this temporary profile still runs. A profile with
    no readable owner record (another tool's, or one being created) counts as alive."""
    try:
        pid_text, started = (profile / _OWNER_FILE).read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return True
    current = _process_start_time(pid)
    return current is not None and (current == started or "?" in (current, started))


def sweep_stale_profiles(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove cdpkit's temporary profiles whose owner process is gone.

    Args:
        directory: Where temporary profiles are created; default the temp dir.

    Returns:
        The profiles removed.
    """
    root = Path(directory if directory is not None else tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError):
        for profile in root.glob(TEMP_PROFILE_PREFIX + "*"):
            if profile.is_dir() and not _owner_alive(profile):
                shutil.rmtree(profile, ignore_errors=True)
                removed.append(profile)
    return removed


def _has_flag(args: Sequence[str], name: str) -> bool:
    """Whether ``args`` sets the switch ``name`` (Chrome also takes ``-name``)."""
    bare = name.lstrip("-")
    return any(
        arg.startswith("-") and arg.lstrip("-").partition("=")[0] == bare for arg in args
    )


def _check_args(args: Sequence[str], *, pipe: bool, viewport: tuple[int, int] | None) -> None:
    """Refuse flags that contradict what cdpkit sets itself.

    Raises:
        LaunchError: Names the conflicting flag and the launch() argument to use instead.
    """
    conflicts = []
    if _has_flag(args, "--remote-allow-origins"):
        raise LaunchError("cdpkit never allows other origins to reach the DevTools endpoint")
    if _has_flag(args, "--user-data-dir"):
        conflicts.append(
            "--user-data-dir in args: cdpkit sets the profile itself; pass "
            "launch(user_data_dir=...) or launch(profile=NAME) instead"
        )
    if pipe and _has_flag(args, "--remote-debugging-port"):
        conflicts.append(
            "--remote-debugging-port in args with pipe=True: it would open a TCP debugging "
            "port next to the pipe; drop the flag or use pipe=False"
        )
    if not pipe and _has_flag(args, "--remote-debugging-pipe"):
        conflicts.append("--remote-debugging-pipe in args: pass launch(pipe=True) instead")
    if viewport is not None and _has_flag(args, "--window-size"):
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
    own_port = _has_flag(extra_args, "--remote-debugging-port")
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


async def start_chrome(
    *,
    executable_path: str | os.PathLike[str] | None = None,
    headless: bool = True,
    args: Sequence[str] = (),
    user_data_dir: str | os.PathLike[str] | None = None,
    pipe: bool = False,
    env: Mapping[str, str] | None = None,
    viewport: tuple[int, int] | None = None,
    default_args: Sequence[str] = DEFAULT_ARGS,
) -> ChromeProcess:
    """Start Chrome; the caller waits for its endpoint (or uses the pipe) and stops it.

    Args:
        viewport: Every page's ``innerWidth x innerHeight`` in headless mode; default
            :data:`DEFAULT_VIEWPORT`, unless ``args`` sets ``--window-size``.
        default_args: The flags used instead of :data:`DEFAULT_ARGS`.

    Raises:
        LaunchError: No Chrome found, the profile is Chrome's default one, ``args``
            conflict with what cdpkit sets, or Chrome won't start.
        ValueError: ``viewport`` is not two pixel sizes.
    """
    _check_args(args, pipe=pipe, viewport=viewport)
    if viewport is not None:
        viewport = check_viewport(viewport)
    elif not _has_flag(args, "--window-size"):
        viewport = DEFAULT_VIEWPORT
    executable = find_chrome(executable_path)
    temp_root = tempfile.gettempdir()
    if user_data_dir is None:
        profile = Path(tempfile.mkdtemp(prefix=TEMP_PROFILE_PREFIX, dir=temp_root))  # mode 0700
        temporary = True
    else:
        profile = check_user_data_dir(user_data_dir)
        profile.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            (profile / "DevToolsActivePort").unlink()  # stale from an earlier run
        temporary = False

    command = [
        executable,
        *build_args(
            headless=headless,
            user_data_dir=profile,
            pipe=pipe,
            extra_args=args,
            viewport=viewport,
            default_args=default_args,
        ),
    ]
    child_env = dict(os.environ if env is None else env)
    _shorten_socket_tmpdir(child_env)
    our_fds: tuple[int, int] | None = None
    child_fds: tuple[int, int] | None = None
    if pipe:
        chrome_in, our_out = os.pipe()  # Chrome reads commands on its fd 3
        our_in, chrome_out = os.pipe()  # and writes answers on its fd 4
        our_fds = (our_in, our_out)
        child_fds = (chrome_in, chrome_out)
        if _CAN_POSIX_SPAWN:
            child_fds = (_above_std_fds(chrome_in), _above_std_fds(chrome_out))
            try:
                spawned = await _posix_spawn_with_pipes(command, child_env, child_fds)
            except OSError as exc:
                if temporary:
                    shutil.rmtree(profile, ignore_errors=True)
                for fd in our_fds:
                    os.close(fd)
                raise LaunchError(f"Could not start {executable}: {exc}") from exc
            finally:
                for fd in child_fds:
                    os.close(fd)
            return _started(spawned, profile, temp_root, temporary=temporary, pipe_fds=our_fds)

    def place_pipe_fds() -> None:
        # Runs in the child between fork and exec. Copy both ends first, since either may
        # already sit on fd 3 or 4; dup2 makes 3 and 4 inheritable, everything else Python
        # opened is close-on-exec, which is why close_fds can stay off.
        assert child_fds is not None
        copy_in, copy_out = os.dup(child_fds[0]), os.dup(child_fds[1])
        os.dup2(copy_in, 3)
        os.dup2(copy_out, 4)

    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=child_env,
            start_new_session=True,  # own process group: killed as one on stop
            preexec_fn=place_pipe_fds if pipe else None,
            close_fds=not pipe,
        )
    except OSError as exc:
        if temporary:
            shutil.rmtree(profile, ignore_errors=True)
        if our_fds is not None and child_fds is not None:
            for fd in (*our_fds, *child_fds):
                os.close(fd)
        raise LaunchError(f"Could not start {executable}: {exc}") from exc
    finally:
        if child_fds is not None:
            for fd in child_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
    return _started(process, profile, temp_root, temporary=temporary, pipe_fds=our_fds)


# Chrome makes its singleton socket at $TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket
# and aborts ("Socket path too long") when that passes the 107 bytes a socket path may have.
_SOCKET_SUFFIX_BYTES = len("/.org.chromium.Chromium.XXXXXX/SingletonSocket")
_SOCKET_PATH_MAX = 107
_SHORT_TMPDIR = "/tmp"


def _shorten_socket_tmpdir(child_env: dict[str, str]) -> None:
    """Give Chrome a short ``TMPDIR`` when the caller's is too long for its socket.

    Only Chrome's own temporary files move (the socket and what Chrome writes there); the
    temporary profile stays where the caller's temporary folder is.
    """
    tmpdir = child_env.get("TMPDIR")
    if not tmpdir or os.name != "posix":
        return
    if len(os.fsencode(tmpdir)) + _SOCKET_SUFFIX_BYTES <= _SOCKET_PATH_MAX:
        return
    if os.path.isdir(_SHORT_TMPDIR) and os.access(_SHORT_TMPDIR, os.W_OK | os.X_OK):
        child_env["TMPDIR"] = _SHORT_TMPDIR


def _started(
    process: asyncio.subprocess.Process | SpawnedProcess,
    profile: Path,
    temp_root: str,
    *,
    temporary: bool,
    pipe_fds: tuple[int, int] | None,
) -> ChromeProcess:
    # The bookkeeping waits until Chrome is on its way: it then costs nothing while Chrome
    # starts (hundreds of ms), where before the spawn it delayed the whole launch. Until
    # the owner record is written, a sweep elsewhere counts the profile as alive.
    if temporary:
        _mark_owner(profile)
    _sweep_in_background(temp_root)
    return ChromeProcess(process, profile, temporary_profile=temporary, pipe_fds=pipe_fds)


# Linux (and other systems with pidfds): Chrome on a pipe is started with posix_spawn.
_CAN_POSIX_SPAWN = hasattr(os, "posix_spawn") and hasattr(os, "pidfd_open")


def _above_std_fds(fd: int) -> int:
    """``fd`` moved to 10 or above (close-on-exec), so that placing the child's fds 0-4
    can never overwrite one of them before it is copied."""
    import fcntl  # POSIX only, as the posix_spawn path is

    if fd >= 10:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class SpawnedProcess:
    """A Chrome started by :func:`os.posix_spawn`: what :class:`ChromeProcess` reads of
    an ``asyncio.subprocess.Process`` (``pid``, ``stdout``, ``returncode``, ``wait()``),
    its exit watched through a pidfd in the event loop."""

    def __init__(self, pid: int, stdout: asyncio.StreamReader) -> None:
        self.pid = pid
        self.stdout = stdout
        self.returncode: int | None = None
        loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = loop.create_future()
        self._pidfd = os.pidfd_open(pid)
        loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: its status is lost
            pid, status = self.pid, 0
        if pid == 0:
            return
        asyncio.get_running_loop().remove_reader(self._pidfd)
        os.close(self._pidfd)
        self.returncode = os.waitstatus_to_exitcode(status)
        if not self._exited.done():
            self._exited.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)


async def _posix_spawn_with_pipes(
    command: list[str], env: dict[str, str], child_fds: tuple[int, int]
) -> SpawnedProcess:
    """Start Chrome with its debugging pipes on fds 3 and 4, in a new session, its output
    on a pipe of ours, stdin from /dev/null.

    Not ``subprocess``: placing fds 3 and 4 takes a ``preexec_fn`` there, which makes it
    fork this whole process (5-50 ms under load, on the launch's critical path) where
    posix_spawn does a vfork (0.2 ms).
    """
    out_read, out_write = os.pipe()
    out_write = _above_std_fds(out_write)
    try:
        pid = os.posix_spawn(  # noqa: ASYNC221 - returns once Chrome execs (a vfork)
            command[0],
            command,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_write, 1),
                (os.POSIX_SPAWN_DUP2, out_write, 2),
                (os.POSIX_SPAWN_DUP2, child_fds[0], 3),
                (os.POSIX_SPAWN_DUP2, child_fds[1], 4),
            ],
            setsid=True,  # own process group: killed as one on stop
        )
    except BaseException:
        os.close(out_read)
        raise
    finally:
        os.close(out_write)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(loop=loop)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(out_read, "rb", 0)
    )
    return SpawnedProcess(pid, reader)


def _sweep_in_background(directory: str) -> None:
    """Run :func:`sweep_stale_profiles` in a thread of its own, without waiting for it.

    Not the event loop's executor: creating that pool (importing ``concurrent.futures.
    thread`` and ``queue``) cost a launch 3 ms, and ``asyncio.run`` would wait for the
    sweep of a large temp dir at exit. Not ``threading.Thread`` either: its ``start()``
    waits until the new thread runs, which on a loaded machine held the launch up to
    15 ms. A ``_thread`` thread is never joined at exit, like a daemon thread.
    """
    _thread.start_new_thread(_sweep_quietly, (directory,))


def _sweep_quietly(directory: str) -> None:
    with contextlib.suppress(Exception):  # nothing to report to: the next launch sweeps again
        sweep_stale_profiles(directory)
