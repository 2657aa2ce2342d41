"""``python -m cdpkit.codegen [--check] [--from-browser URL] [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import generate
from .output import compare_files, unexpected_files, write_files
from .sources import fetch_browser_protocol, load_vendored_protocol

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "cdp"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m cdpkit.codegen",
        description="Generate cdpkit.cdp from the pinned protocol JSON (protocol/*.json).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="generate in memory and fail if the files in --out differ (nothing is written)",
    )
    parser.add_argument(
        "--from-browser",
        metavar="URL",
        help="generate from a running browser's URL/json/protocol, e.g. http://127.0.0.1:9222",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"the generated package directory (default: {DEFAULT_OUT})",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    if args.from_browser:
        documents, source = fetch_browser_protocol(args.from_browser)
    else:
        documents, source = load_vendored_protocol()
    files = generate(documents, source)
    out: Path = args.out
    if args.check:
        comparison = compare_files(files, out)
        if comparison.identical:
            print(f"{out}: {len(files)} generated files up to date ({source})")
            return 0
        print(f"{out}: generated files differ from {source}; run python -m cdpkit.codegen")
        print(comparison.summary())
        return 1
    removed = write_files(files, out)
    elapsed = time.perf_counter() - started
    note = f", removed {len(removed)} stale" if removed else ""
    print(f"{out}: wrote {len(files)} files from {source} in {elapsed:.2f} s{note}")
    foreign = unexpected_files(files, out)
    if foreign:
        print(f"warning: not generated, left alone: {', '.join(foreign)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
