"""``cdpkit mcp``: serve the browser tools to an AI agent over the Model Context Protocol.

The options are those of ``python -m cdpkit.mcp_server``: their help comes from
:data:`cdpkit.mcp_server.HELP`, and their values are checked and turned into the server's
options by the same :func:`cdpkit.mcp_server.server_options`, so both entry points accept
and refuse the same values with the same words.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..mcp_server import HELP, run_server, server_options  # imports no `mcp`: safe here


def mcp(
    http: Annotated[str | None, typer.Option("--http", metavar="HOST:PORT", help=HELP["http"])] = None,
    headful: Annotated[bool, typer.Option("--headful", help=HELP["headful"])] = False,
    connect: Annotated[
        str | None, typer.Option("--connect", metavar="ENDPOINT", help=HELP["connect"])
    ] = None,
    grid: Annotated[str | None, typer.Option("--grid", metavar="URL", help=HELP["grid"])] = None,
    header: Annotated[
        list[str] | None, typer.Option("--header", metavar="'NAME: VALUE'", help=HELP["header"])
    ] = None,
    profile: Annotated[str | None, typer.Option("--profile", metavar="NAME", help=HELP["profile"])] = None,
    chrome: Annotated[str | None, typer.Option("--chrome", metavar="PATH", help=HELP["chrome"])] = None,
    chrome_arg: Annotated[
        list[str] | None, typer.Option("--chrome-arg", metavar="FLAG", help=HELP["chrome_arg"])
    ] = None,
    viewport: Annotated[
        str | None, typer.Option("--viewport", metavar="WxH", help=HELP["viewport"], show_default=False)
    ] = None,
    timeout: Annotated[
        str | None, typer.Option("--timeout", metavar="SECONDS", help=HELP["timeout"], show_default=False)
    ] = None,
    downloads: Annotated[
        str | None, typer.Option("--downloads", metavar="DIR", help=HELP["downloads"])
    ] = None,
    allow_js: Annotated[bool, typer.Option("--allow-js", help=HELP["allow_js"])] = False,
    allow_file_urls: Annotated[
        bool,
        typer.Option("--allow-file-urls", "--allow-unrestricted-file-access", help=HELP["allow_file_urls"]),
    ] = False,
    allowed_origins: Annotated[
        list[str] | None,
        typer.Option("--allowed-origins", metavar="ORIGINS", help=HELP["allowed_origins"]),
    ] = None,
    blocked_origins: Annotated[
        list[str] | None,
        typer.Option("--blocked-origins", metavar="ORIGINS", help=HELP["blocked_origins"]),
    ] = None,
    user_agent: Annotated[
        str | None, typer.Option("--user-agent", metavar="UA", help=HELP["user_agent"])
    ] = None,
    locale: Annotated[str | None, typer.Option("--locale", metavar="TAG", help=HELP["locale"])] = None,
    timezone: Annotated[
        str | None, typer.Option("--timezone", metavar="ZONE", help=HELP["timezone"])
    ] = None,
    proxy: Annotated[str | None, typer.Option("--proxy", metavar="URL", help=HELP["proxy"])] = None,
    stealth: Annotated[bool, typer.Option("--stealth", help=HELP["stealth"])] = False,
    extra_header: Annotated[
        list[str] | None,
        typer.Option("--extra-header", metavar="'NAME: VALUE'", help=HELP["extra_header"]),
    ] = None,
    storage_state: Annotated[
        str | None, typer.Option("--storage-state", metavar="PATH", help=HELP["storage_state"])
    ] = None,
    snapshot_after_action: Annotated[
        bool, typer.Option("--snapshot-after-action", help=HELP["snapshot_after_action"])
    ] = False,
    shared_context: Annotated[
        bool, typer.Option("--shared-context", help=HELP["shared_context"])
    ] = False,
) -> None:
    """Serve the browser tools to an AI agent over the Model Context Protocol (needs the
    `mcp` extra: pip install 'cdpkit-browser[mcp]'). The browser starts on the first tool
    call and closes when the client disconnects. The same options as `python -m cdpkit.mcp_server`."""
    status = run_server(
        lambda: server_options(
            http=http,
            headful=headful,
            connect=connect,
            grid=grid,
            header=header,
            profile=profile,
            chrome=chrome,
            chrome_arg=chrome_arg,
            viewport=viewport,
            timeout=timeout,
            downloads=downloads,
            allow_js=allow_js,
            allow_file_urls=allow_file_urls,
            allowed_origins=allowed_origins,
            blocked_origins=blocked_origins,
            user_agent=user_agent,
            locale=locale,
            timezone=timezone,
            proxy=proxy,
            stealth=stealth,
            extra_header=extra_header,
            storage_state=storage_state,
            snapshot_after_action=snapshot_after_action,
            shared_context=shared_context,
        )
    )
    if status:
        raise typer.Exit(status)
