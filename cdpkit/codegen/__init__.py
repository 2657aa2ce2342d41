"""The generator of :mod:`cdpkit.cdp`: protocol JSON -> typed Python bindings.

``python -m cdpkit.codegen [--check] [--from-browser URL] [--out DIR]``

The pipeline, one module per step:

1. :mod:`~cdpkit.codegen.sources` reads the pinned ``protocol/*.json`` (or a live browser's
   ``/json/protocol``);
2. :mod:`~cdpkit.codegen.protocol` parses it into small dataclasses and names every item
   (:mod:`~cdpkit.codegen.naming`);
3. :mod:`~cdpkit.codegen.fixups` applies every deviation from the spec, each listed there;
4. :mod:`~cdpkit.codegen.checks` refuses names that would clash or shadow;
5. :mod:`~cdpkit.codegen.emit` writes the Python source: :mod:`~cdpkit.codegen.layout`
   decides which file holds what (and why the classes live in private modules),
   :mod:`~cdpkit.codegen.spelling` how annotations are written, :mod:`~cdpkit.codegen.docs`
   the docstrings, :mod:`~cdpkit.codegen.wire` the wire TypedDicts (the JSON of types,
   results and events, for ``Session.send_json``), :mod:`~cdpkit.codegen.pysource` the
   formatting;
6. :mod:`~cdpkit.codegen.output` writes the files, or compares them with what is on disk.

The same input always gives byte-identical files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .emit import DEFAULT_PACKAGE, emit_package
from .fixups import apply_fixups
from .protocol import Protocol, ProtocolError, parse_protocol

__all__ = ["ProtocolError", "build_protocol", "generate"]


def build_protocol(documents: Sequence[Mapping[str, Any]], source: str) -> Protocol:
    """Parse protocol documents and apply the fixups: the model the emitter writes out."""
    protocol = parse_protocol(documents, source)
    apply_fixups(protocol)
    return protocol


def generate(
    documents: Sequence[Mapping[str, Any]], source: str, package: str = DEFAULT_PACKAGE
) -> dict[str, str]:
    """Every generated file (relative path -> text) for the given protocol documents."""
    return emit_package(build_protocol(documents, source), package)
