"""``cdpkit mcp``: serve the browser tools to an AI agent over the Model Context Protocol."""

from __future__ import annotations

from typing import Annotated

import typer


def mcp(
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT binds 127.0.0.1).",
        ),
    ] = None,
    headful: Annotated[bool, typer.Option("--headful", help="Show the browser window.")] = False,
    connect: Annotated[
        str | None,
        typer.Option("--connect", metavar="ENDPOINT", help="Drive a running browser instead of launching one."),
    ] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", metavar="NAME", help="Launch on this persistent profile.")
    ] = None,
    downloads: Annotated[
        str | None, typer.Option("--downloads", metavar="DIR", help="Where browser_download saves files.")
    ] = None,
    allow_js: Annotated[
        bool, typer.Option("--allow-js", help="Offer browser_execute_js (runs any JavaScript the agent sends).")
    ] = False,
    allow_file_urls: Annotated[
        bool,
        typer.Option(
            "--allow-file-urls",
            "--allow-unrestricted-file-access",
            help="Let the agent open file: URLs (the local disk) and the browser's own pages (chrome://...), "
            "and upload any local file; by default it cannot, and uploads only files from the download directory.",
        ),
    ] = False,
    allowed_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-origins",
            metavar="ORIGINS",
            help="Only web pages of these origins may be loaded, read or downloaded (default: any); "
            "separated by ';' or ',', or repeat the option. An entry: https://example.com (that scheme, "
            "host and port), http://localhost:* (any port), example.com (http or https, any port), "
            "*.example.com (its subdomains).",
        ),
    ] = None,
    blocked_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--blocked-origins",
            metavar="ORIGINS",
            help="Refuse web pages of these origins, even if allowed (same forms as --allowed-origins).",
        ),
    ] = None,
) -> None:
    """Serve the browser tools to an AI agent over the Model Context Protocol (needs the
    `mcp` extra: pip install 'cdpkit-browser[mcp]'). The browser starts on the first tool
    call and closes when the client disconnects. The same options as `python -m cdpkit.mcp_server`."""
    from .. import mcp_server  # optional extra: imported only here

    try:
        mcp_server.serve(
            http=http,
            headful=headful,
            connect=connect,
            profile=profile,
            downloads=downloads,
            allow_js=allow_js,
            allow_file_urls=allow_file_urls,
            allowed_origins=allowed_origins,
            blocked_origins=blocked_origins,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
