"""``python -m cdpkit._bridge [--idle SECONDS]``: run the extension bridge (the native
messaging host starts it; see :mod:`cdpkit._bridge._server`)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal

from websockets.asyncio.server import serve

from ._server import MAX_MESSAGE, Bridge
from ._state import BridgeInfo, remove_bridge_info, write_bridge_info


async def run(*, idle_timeout: float = 10.0) -> None:
    """Serve until idle: listen on 127.0.0.1 at a random port, publish ``bridge.json``,
    and remove it when done."""
    bridge = Bridge(secrets.token_urlsafe(32), idle_timeout=idle_timeout)
    async with serve(
        bridge.handle,
        "127.0.0.1",
        0,
        process_request=bridge.check_request,
        max_size=MAX_MESSAGE,
        # Chrome offers permessage-deflate and websockets accepts it by default: on
        # loopback it only costs CPU on both sides, for every message (and megabytes for a
        # snapshot's answer). Measured: about a tenth of the bridge's and the network
        # service's CPU per round trip.
        compression=None,
        ping_interval=20,
        ping_timeout=None,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        info = BridgeInfo(port, bridge.token, os.getpid())
        write_bridge_info(info)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, bridge.stopped.set)
        watcher = asyncio.create_task(bridge.watch_idle())
        try:
            await bridge.stopped.wait()
        finally:
            watcher.cancel()
            remove_bridge_info(info.pid)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m cdpkit._bridge")
    parser.add_argument(
        "--idle",
        type=float,
        default=10.0,
        help="seconds without the extension or any client before it ends",
    )
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    asyncio.run(run(idle_timeout=arguments.idle))


if __name__ == "__main__":
    main()
