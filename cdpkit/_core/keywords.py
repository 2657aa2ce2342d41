"""Keyword arguments declared once, as a ``TypedDict``, and taken by several functions
as ``**keywords: Unpack[TheDict]``: mypy checks each call against the dict, and
:func:`keyword_signature` gives the functions the signature ``help()``, ``inspect`` and
the docs show (one keyword-only parameter per key), while :func:`check_keywords` refuses
a name the dict does not have, as Python refuses an unknown keyword.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, ForwardRef, TypedDict, TypeVar

if TYPE_CHECKING:
    from .._browser.settings import Proxy

__all__ = [
    "DRAG_DEFAULTS",
    "TARGET_DEFAULTS",
    "DragKeywords",
    "FieldKeywords",
    "IdentityKeywords",
    "LaunchIdentityKeywords",
    "ResourceKeywords",
    "TargetKeywords",
    "UnpointedKeywords",
    "check_keywords",
    "keyword_signature",
]

F = TypeVar("F", bound=Callable[..., Any])


class IdentityKeywords(TypedDict, total=False):
    """The keywords of :func:`cdpkit.launch`, :func:`cdpkit.connect`,
    :meth:`cdpkit.Browser.new_context` and :func:`cdpkit.engine` that each change one
    setting over ``settings=`` (the :class:`~cdpkit.BrowserSettings` field of the same
    name), declared once; each defaults to ``None``, the setting left as it is."""

    user_agent: str | None
    user_agents: Sequence[str] | None
    accept_language: str | None
    locale: str | None
    timezone: str | None
    extra_headers: Mapping[str, str] | None
    proxy: Proxy | str | None
    stealth: bool | str | os.PathLike[str] | None
    send_dnt: bool | None


class LaunchIdentityKeywords(IdentityKeywords, total=False):
    """:class:`IdentityKeywords` and what only a launch takes."""

    ignore_default_args: Sequence[str] | bool | None


# The target keywords, declared once in pieces so that each tool takes the ones that
# make sense for it in the same order (`selector, index, x, y, role, name, exact, text,
# label, timeout`); `TARGET_DEFAULTS` are the defaults its signature shows.
class _Where(TypedDict, total=False):
    selector: str | None
    index: int | None


class _Point(TypedDict, total=False):
    x: float | None
    y: float | None


class _Role(TypedDict, total=False):
    role: str | None
    name: str | None
    exact: bool


class _Text(TypedDict, total=False):
    text: str | None


class _Label(TypedDict, total=False):
    label: str | None


class _Wait(TypedDict, total=False):
    timeout: float


class TargetKeywords(_Where, _Point, _Role, _Text, _Label, _Wait, total=False):
    """The keywords an element tool (:func:`~cdpkit.tools.click`...) takes to say which
    element: exactly one of ``selector``, ``index``, ``x``/``y``, ``role`` (with
    ``name``), ``text`` or ``label``; ``exact`` and ``timeout`` tune a locator."""


class FieldKeywords(_Where, _Point, _Role, _Label, _Wait, total=False):
    """:class:`TargetKeywords` but ``text`` (:func:`~cdpkit.tools.type_text`'s ``text``
    is what to type)."""


class UnpointedKeywords(_Where, _Role, _Text, _Label, _Wait, total=False):
    """:class:`TargetKeywords` but ``x``/``y`` (:func:`~cdpkit.tools.screenshot`)."""


class ResourceKeywords(_Where, _Role, _Text, _Label, total=False):
    """:class:`TargetKeywords` but ``x``/``y`` and ``timeout`` (the element whose
    resource :func:`~cdpkit.tools.download` fetches)."""


class _DropWhere(TypedDict, total=False):
    to_selector: str | None
    to_index: int | None


class _DropPoint(TypedDict, total=False):
    to_x: float | None
    to_y: float | None


class _DropLocator(TypedDict, total=False):
    to_role: str | None
    to_name: str | None
    to_exact: bool
    to_text: str | None
    to_label: str | None


class DragKeywords(
    _Where, _Point, _DropWhere, _DropPoint, _Role, _Text, _Label, _DropLocator, _Wait, total=False
):
    """:func:`~cdpkit.tools.drag`'s: :class:`TargetKeywords` for the element dragged, the
    same prefixed ``to_`` (but ``timeout``) for where it is dropped."""


TARGET_DEFAULTS: Final[Mapping[str, Any]] = {"exact": True, "timeout": 5.0}
DRAG_DEFAULTS: Final[Mapping[str, Any]] = {**TARGET_DEFAULTS, "to_exact": True}


def keyword_signature(keywords: type, defaults: Mapping[str, Any] | None = None) -> Callable[[F], F]:
    """A decorator: the function's ``**keywords`` shown as one keyword-only parameter per
    key of the ``TypedDict`` ``keywords`` (default ``None``, or as ``defaults`` says)."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        parameters = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        given = {p.name for p in parameters}
        parameters += [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=(defaults or {}).get(name),
                              annotation=_shown(annotation))
            for name, annotation in keywords.__annotations__.items()
            if name not in given
        ]  # fmt: skip
        function.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        return function

    return decorate


def check_keywords(function: str, given: Mapping[str, Any], keywords: type) -> None:
    """Refuse the names in ``given`` that ``keywords`` (a ``TypedDict``) does not declare.

    Raises:
        TypeError: As Python's own, naming ``function`` and the first unknown keyword.
    """
    for name in given:
        if name not in keywords.__annotations__:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")


def _shown(annotation: Any) -> Any:
    """An annotation as a signature shows it: a TypedDict's postponed one as its text."""
    return annotation.__forward_arg__ if isinstance(annotation, ForwardRef) else annotation
