"""Run one measurement in this fresh process and print its result as one JSON line.

Usage: ``python -m benchmarks.worker CASE SIDE [CTX_JSON]``, e.g. ``roundtrip cdpkit
'{"transport": "pipe"}'``. Prints ``{"metrics": {...}}``; fails with a traceback otherwise.
The harness passes a whole context; run by hand (e.g. under py-spy or pyinstrument), missing
fields get defaults and the pages are served from this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

from benchmarks.cases import CASES
from benchmarks.cases.base import Ctx, Script
from benchmarks.common import FULL, QUICK, find_chrome
from benchmarks.server import serve


def main(argv: list[str]) -> int:
    case_name, side, *rest = argv
    measure = CASES[case_name].sides[side]
    if isinstance(measure, Script):
        raise SystemExit(f"{case_name}/{side} runs in a bare interpreter: use the harness")
    fields = {"transport": "port", "quick": False, "chrome": find_chrome(),
              **(json.loads(rest[0]) if rest else {})}
    with contextlib.ExitStack() as stack:
        if "base_url" not in fields:
            fields["base_url"] = stack.enter_context(serve(QUICK if fields["quick"] else FULL))
        for name in ("chrome_flags", "deps"):
            if name in fields:
                fields[name] = tuple(fields[name])
        metrics = asyncio.run(measure(Ctx(**fields)))
    print(json.dumps({"metrics": metrics}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
