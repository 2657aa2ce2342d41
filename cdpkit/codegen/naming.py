"""Python names for protocol names.

Only words are re-cased: a wire name is split into words (an acronym is one word, so is an
acronym plural such as ``URLs``; digits stay with the word before them) and the words are
joined again. Wire names themselves are never derived from Python names: every generated
field keeps the wire name it came from as its alias.
"""

from __future__ import annotations

import builtins
import keyword
import re

__all__ = [
    "enum_member_name",
    "module_name",
    "pascal_case",
    "python_identifier",
    "snake_case",
    "split_words",
]

# Acronym plural (URLs), acronym (DOM, X509), capitalised or lower-case word, bare digits.
_WORD = re.compile(r"[A-Z]+s(?![a-z])|[A-Z]+[0-9]*(?![a-z0-9])|[A-Z]?[a-z]+[0-9]*|[A-Z]|[0-9]+")
_SEPARATOR = re.compile(r"[^A-Za-z0-9]+")
_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))


def split_words(name: str) -> list[str]:
    """The words of a protocol name: ``"backendDOMNodeId"`` -> ``backend DOM Node Id``."""
    words: list[str] = []
    for part in _SEPARATOR.split(name):
        words.extend(_WORD.findall(part))
    return words


def python_identifier(name: str) -> str:
    """``name`` with a trailing ``_`` when it is a Python keyword (``from`` -> ``from_``)."""
    return f"{name}_" if keyword.iskeyword(name) else name


def snake_case(name: str) -> str:
    """Acronym-aware snake_case: ``backendDOMNodeId`` -> ``backend_dom_node_id``."""
    return python_identifier("_".join(word.lower() for word in split_words(name)))


def module_name(domain: str) -> str:
    """The module of a domain: ``DOMSnapshot`` -> ``dom_snapshot``, ``Input`` -> ``input_``.

    Besides keywords, a module name that would shadow a builtin (``input``) gets the ``_`` too:
    ``from cdpkit.cdp import input`` would hide the builtin in the importing module.
    """
    name = snake_case(domain)
    return f"{name}_" if name in _BUILTIN_NAMES else name


def pascal_case(name: str) -> str:
    """``loadEventFired`` -> ``LoadEventFired``; acronyms keep their case (``consoleAPICalled``)."""
    return "".join(word[0].upper() + word[1:] for word in split_words(name))


def enum_member_name(value: str) -> str:
    """UPPER_SNAKE member name for an enum's wire value: ``"same-origin"`` -> ``SAME_ORIGIN``."""
    return "_".join(word.upper() for word in split_words(value))
