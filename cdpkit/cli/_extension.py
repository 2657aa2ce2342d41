"""``cdpkit extension path|id|install|uninstall``: the extension that lets cdpkit drive
the person's own browser (see :mod:`cdpkit._bridge` and docs/extension.md)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from .._front.browser_options import CLIError

extension = typer.Typer(
    name="extension",
    help="The browser extension that lets cdpkit drive the browser you already use "
    "(`--connect extension`): its folder, its ID, and the native host it starts the bridge with.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Browser(enum.StrEnum):
    """A browser whose native messaging hosts ``install`` registers with."""

    chrome = "chrome"
    chromium = "chromium"
    edge = "edge"


UserDataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--user-data-dir",
        metavar="DIR",
        help="For a browser started with --user-data-dir DIR: use DIR/NativeMessagingHosts "
        "instead of the browsers' own folders.",
        show_default=False,
    ),
]
BrowserOption = Annotated[
    list[Browser] | None,
    typer.Option(
        "--browser",
        help="A browser to register with (repeat for several; default: each of chrome, "
        "chromium, edge whose user folder exists).",
        show_default=False,
    ),
]


@extension.command()
def path() -> None:
    """Print the extension's folder: load it at chrome://extensions (Developer mode,
    Load unpacked)."""
    from .._bridge import EXTENSION_DIR

    print(EXTENSION_DIR)


@extension.command("id")
def id_() -> None:
    """Print the extension's ID (the same on every machine: its manifest has a key)."""
    from .._bridge import extension_id

    print(extension_id())


def _chosen(browsers: list[Browser] | None, user_data_dir: Path | None) -> list[str]:
    from .._bridge import BROWSERS, default_browsers

    if browsers:
        if user_data_dir is not None:
            raise CLIError(
                "--user-data-dir names the one folder to use: give it without --browser", 2
            )
        return list(dict.fromkeys(browser.value for browser in browsers))
    if user_data_dir is not None:
        return []
    found = default_browsers()
    if not found:
        raise CLIError(
            f"None of {', '.join(BROWSERS)} has a user folder here: name one with --browser, "
            "or give the folder of a browser started with --user-data-dir"
        )
    return found


@extension.command()
def install(
    user_data_dir: UserDataDirOption = None,
    browser: BrowserOption = None,
) -> None:
    """Register the native messaging host the extension starts the bridge with: a host
    manifest that only this extension may use, and its launcher, for this user."""
    from .._bridge import InstallError
    from .._bridge import install as install_host

    try:
        written = install_host(_chosen(browser, user_data_dir), user_data_dir)
    except InstallError as exc:
        raise CLIError(str(exc)) from None
    for file in written:
        print(f"wrote {file}")
    print(
        "next: load the folder `cdpkit extension path` prints at chrome://extensions "
        "(Developer mode, Load unpacked), then use --connect extension"
    )


@extension.command()
def uninstall(
    user_data_dir: UserDataDirOption = None,
    browser: BrowserOption = None,
) -> None:
    """Remove what `cdpkit extension install` wrote (same options)."""
    from .._bridge import BROWSERS, InstallError
    from .._bridge import uninstall as uninstall_host

    names = [b.value for b in browser] if browser else ([] if user_data_dir else list(BROWSERS))
    if browser and user_data_dir is not None:
        raise CLIError("--user-data-dir names the one folder to use: give it without --browser", 2)
    try:
        removed = uninstall_host(names, user_data_dir)
    except InstallError as exc:
        raise CLIError(str(exc)) from None
    for file in removed:
        print(f"removed {file}")
    if not removed:
        print("nothing to remove: the host was not installed there")
