"""``python -m cdpkit``: the ``cdpkit`` command line (see :mod:`cdpkit.cli`)."""

from .cli import main

if __name__ == "__main__":
    main()
