"""``python -m benchmarks``: run the benchmark suite (``--help`` for the options)."""

import sys

from benchmarks.harness import main

sys.exit(main())
