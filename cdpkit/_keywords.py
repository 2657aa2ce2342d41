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
from typing import TYPE_CHECKING, Any, ForwardRef, TypedDict, TypeVar

if TYPE_CHECKING:
    from ._settings import Proxy

__all__ = ["IdentityKeywords", "LaunchIdentityKeywords", "check_keywords", "keyword_signature"]

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
