"""``python -m cdpkit._bridge [--idle SECONDS]``: run the extension bridge (the native
messaging host starts it; see :mod:`cdpkit._bridge._server`)."""

from __future__ import annotations

import argparse
import asyncio
import logging

from ._server import run


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
