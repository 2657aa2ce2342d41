"""Names a package exports without importing the modules that define them until one is
used: the ``__getattr__`` and ``__dir__`` of such a package (PEP 562), written once.

    __getattr__, __dir__ = lazy_exports(__name__, {"Engine": "_engine", ...})

A loaded name is stored in the package's namespace, so the next access is a plain lookup.
It imports nothing of cdpkit (``import cdpkit`` stays light).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]

# A name -> the module defining it, relative to the package ("_engine", ".browser"), or
# (that module, the name there) when the package exports it under another name.
Homes = Mapping[str, str | tuple[str, str]]


def lazy_exports(
    package: str, homes: Homes, *, submodules: bool = False
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package named ``package``.

    Args:
        package: The package's ``__name__``.
        homes: Each exported name and where it is defined (see :data:`Homes`).
        submodules: A name not in ``homes`` is the package's submodule of that name, if
            there is one (``cdpkit.tools.har``), as ``import package.name`` would load it.

    Returns:
        ``(__getattr__, __dir__)``: ``__getattr__`` raises ``AttributeError`` for a name
        neither in ``homes`` nor a submodule; ``__dir__`` lists the loaded names and
        those of ``homes``.
    """

    missing: set[str] = set()  # asked before and not there: not looked for on disk again

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            value = None
            if submodules and name not in missing:
                value = _submodule(package, name)
            if value is None:
                missing.add(name)
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
        else:
            module, attribute = home if isinstance(home, tuple) else (home, name)
            # import_module, not `from . import`: that would ask this hook again.
            value = getattr(importlib.import_module(f".{module.lstrip('.')}", package), attribute)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__


def _submodule(package: str, name: str) -> Any:
    try:
        return importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.{name}":
            raise  # the submodule exists and failed to import something of its own
        return None
