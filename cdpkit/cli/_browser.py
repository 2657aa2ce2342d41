"""The commands that keep a browser running: ``launch`` and ``open-browser``."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Unpack

import typer

from .._browser.settings import BrowserSettings
from .._front.browser_options import (
    CLIError,
    error_line,
    has_display,
    open_browser,
    report_error,
    start_browser,
)
from .._front.cli_common import TERMINATING_SIGNALS, normalize_url, run
from ..errors import CDPError, ProfileLockedError
from ._params import (
    BrowserFlags,
    DebugOption,
    ProfileFlags,
    launch_options,
    with_browser,
)

if TYPE_CHECKING:
    from ..browser import Browser


def http_endpoint(browser: Browser) -> str | None:
    """``http://127.0.0.1:PORT`` of a browser launched with a debugging port, else ``None``."""
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if lines and lines[0].strip().isdigit():
            return f"http://127.0.0.1:{lines[0].strip()}"
    return None


def _ws_endpoint(browser: Browser) -> str | None:
    process = browser.process
    if process is None:
        return None
    with contextlib.suppress(OSError):
        lines = (process.user_data_dir / "DevToolsActivePort").read_text().splitlines()
        if len(lines) >= 2:
            return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
    return None


async def _until_stopped(
    browser: Browser,
    *,
    window_closed_stops: bool = False,
    ready: Callable[[], None] | None = None,
) -> str:
    """Wait for Ctrl-C, SIGTERM or SIGHUP ("signal"), the browser process exiting
    ("exited"), or, with ``window_closed_stops``, its last page closing ("closed").
    ``ready`` runs once those signals are caught (what it prints tells a caller it may
    stop the command)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
            loop.add_signal_handler(signum, stop.set)
    if ready is not None:
        ready()

    async def signalled() -> str:
        await stop.wait()
        return "signal"

    async def exited() -> str:
        assert browser.process is not None
        await browser.process.wait_for_exit()
        return "exited"

    async def pages_closed() -> str:
        async with browser.listen("Target.targetDestroyed", "Target.detachedFromTarget") as events:
            async for _ in events:
                await asyncio.sleep(0.3)  # a tab replacing another one
                if not browser.pages:
                    return "closed"
        return "exited"

    waiters = [asyncio.create_task(signalled())]
    if browser.process is not None:
        waiters.append(asyncio.create_task(exited()))
    if window_closed_stops:
        waiters.append(asyncio.create_task(pages_closed()))
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        first = next(iter(done))
        try:
            return first.result()
        except CDPError:
            return "exited"  # the connection ended with the browser
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
        for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
                loop.remove_signal_handler(signum)


@with_browser("headful profile chrome_arg viewport timeout")
def launch(
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[BrowserFlags],
) -> None:
    """Start a browser, print its endpoint (http://127.0.0.1:PORT) on stdout, and keep it
    running until Ctrl-C. Other commands attach to it with --connect ENDPOINT."""
    options = launch_options(flags, settings)

    async def work() -> None:
        async with open_browser(options) as browser:
            endpoint = http_endpoint(browser)
            product = browser.version.product

            def announce() -> None:
                # Printed once Ctrl-C stops the browser cleanly: a script that starts
                # `cdpkit launch` and stops it as soon as it reads the endpoint gets 0.
                print(endpoint, flush=True)
                print(
                    f"{product} is running ({_ws_endpoint(browser)}).\n"
                    f"Attach with: cdpkit repl --connect {endpoint}\n"
                    "Press Ctrl-C to stop it.",
                    file=sys.stderr,
                    flush=True,
                )

            why = await _until_stopped(browser, ready=announce)
            if why == "exited":
                assert browser.process is not None
                raise CLIError(f"{browser.process.describe_exit()}")

    run(work, debug=debug)


@with_browser("chrome_arg viewport timeout lock_timeout")
def open_browser_command(
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            metavar="NAME",
            help="The persistent profile to open (created if new).",
            show_default=False,
        ),
    ],
    url: Annotated[
        str | None,
        typer.Argument(metavar="URL", help="Open this page (e.g. the site's login page).", show_default=False),
    ] = None,
    lock_timeout: Annotated[
        float | None,
        typer.Option(
            "--lock-timeout",
            min=0,
            metavar="SECONDS",
            help="How long to wait for the profile while another browser uses it "
            "(default: --timeout).",
            show_default=False,
        ),
    ] = None,
    debug: DebugOption = False,
    settings: BrowserSettings | None = None,
    **flags: Unpack[ProfileFlags],
) -> None:
    """Open a browser window on a persistent profile for a manual login, at URL if given
    (e.g. the site's login page). It holds the profile's lock while open and exits when
    the window is closed; later runs with --profile NAME (or launch(profile="NAME"),
    pool(profile="NAME")) start logged in."""
    import dataclasses

    from .._core.profiles import profile_dir

    options = dataclasses.replace(
        launch_options(flags, settings, headful=True, profile=profile),
        lock_timeout=lock_timeout,
    )
    try:
        directory = profile_dir(profile)
    except ValueError as exc:
        report_error(CLIError(str(exc), 2), debug=debug)
        raise typer.Exit(2) from None
    target = normalize_url(url) if url is not None else None
    if not has_display(options.chrome_args):
        report_error(
            CLIError(
                "open-browser needs a display to show a window, and neither $DISPLAY nor "
                "$WAYLAND_DISPLAY is set (run it on your desktop, or over ssh -X)"
            ),
            debug=debug,
        )
        raise typer.Exit(1)

    async def work() -> None:
        try:
            browser = await start_browser(options)
        except ProfileLockedError as exc:
            raise CLIError(
                str(exc).replace("launch(lock_timeout=...) sets how long",
                                 "--lock-timeout SECONDS sets how long")
            ) from None
        async with browser:
            endpoint = http_endpoint(browser)
            print(endpoint, flush=True)
            if target is not None and browser.pages:
                from ..tools import navigate

                try:
                    await navigate(browser.pages[0], target, timeout=flags["timeout"])
                except CDPError as exc:
                    print(f"warning: {error_line(exc)}", file=sys.stderr)
            print(
                f"Profile {profile!r} is open ({directory}).\n"
                "Log in, then close the browser window to save it.",
                file=sys.stderr,
                flush=True,
            )
            why = await _until_stopped(browser, window_closed_stops=True)
            if why == "signal":
                print("Closing the browser.", file=sys.stderr)
        print(f"Profile {profile!r} saved in {directory}", file=sys.stderr)

    run(work, debug=debug)
