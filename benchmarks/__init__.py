"""cdpkit's benchmark suite: cdpkit against a minimal raw CDP client, in one run.

Run it with ``python -m benchmarks`` (see ``benchmarks/README.md``).
"""
