"""Every deviation of the generated bindings from the protocol JSON, in one place.

The emitter writes what the protocol model says and stops on names that would clash
(:mod:`cdpkit.codegen.checks`); each change to the model is one function below, applied in
the order of :data:`FIXUPS`, and listed here with the reason for it.

1. :func:`alias_shadowed_modules` (rule). A field named like a domain module that its own
   class's annotations go through would hide that module inside the class body, for
   pydantic and for mypy alike. In that domain's generated files the module is bound as
   ``_<module>`` instead. Field and wire names are untouched. With the pinned protocol it
   applies to ``Animation.animationStarted`` / ``animationUpdated`` (field
   ``animation: _animation.Animation``) and ``Extensions.getExtensions`` (returns
   ``extensions: list[_extensions.ExtensionInfo]``).

Checked and left as the spec says (no fixup needed): Chromium 156 omits
``Page.navigate``'s ``loaderId`` on same-document navigations and sets ``errorText`` only
when navigation fails; both are optional in the spec. Every message captured in
``tests/fixtures/cdp_messages`` parses with the spec's required/optional split.

Generated-name collisions (an event class, a ``<Command>Result`` or an inline enum
``<Owner><Property>`` named like another item of its domain; duplicate enum members): none
occur with the pinned protocol. :mod:`cdpkit.codegen.checks` stops generation when one
appears; the rule resolving it belongs here.

Not fixups but naming rules (:mod:`cdpkit.codegen.naming`): keywords get a trailing ``_``
(``from_``, ``not_``, ``or_``); a domain module that would shadow a builtin does too
(``input_``); acronym plurals stay one word (``setBlockedURLs`` -> ``set_blocked_urls``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .layout import refs
from .protocol import Domain, Property, Protocol

__all__ = ["FIXUPS", "alias_shadowed_modules", "apply_fixups"]


def _owners(domain: Domain) -> Iterator[list[Property]]:
    for typedef in domain.types:
        yield typedef.properties
    for command in domain.commands:
        yield command.returns
    for event in domain.events:
        yield event.parameters


def alias_shadowed_modules(protocol: Protocol) -> None:
    """Bind a domain module as ``_<module>`` in the files of a domain where a field of a
    class whose annotations refer to that module has the module's name."""
    modules = {domain.name: domain.module for domain in protocol.domains}
    for domain in protocol.domains:
        for props in _owners(domain):
            used = {modules[ref.domain] for prop in props for ref in refs(prop.type)}
            for prop in props:
                if prop.python_name in used:
                    domain.module_aliases[prop.python_name] = f"_{prop.python_name}"


FIXUPS: tuple[Callable[[Protocol], None], ...] = (alias_shadowed_modules,)


def apply_fixups(protocol: Protocol) -> None:
    """Apply every fixup to ``protocol`` in place, in the order listed."""
    for fixup in FIXUPS:
        fixup(protocol)
