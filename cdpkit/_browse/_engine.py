"""The browse engine: tiers, sessions and configuration (API contract; being built)."""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

from ._result import BrowseResult


class Engine:
    """Keeps what :func:`browse` needs between calls: the configuration, named sessions
    (an isolated browser context plus an HTTP cookie jar each) and a browser launched
    lazily, the first time a page needs tier 2 or 3.

    Use it as an async context manager (``async with cdpkit.engine() as engine:``); leaving
    it closes every session (saving the persistent ones) and the browser it launched.
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **settings: Any) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        raise NotImplementedError

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        raise NotImplementedError

    async def browse(self, url: str, *, session: str | None = None, **options: Any) -> BrowseResult:
        """Browse ``url`` in ``session`` (created on first use; ``None``: a throwaway one)."""
        raise NotImplementedError

    @property
    def sessions(self) -> list[str]:
        """The names of the open sessions."""
        raise NotImplementedError

    async def close_session(self, name: str) -> None:
        """Close a session (its browser context and cookie jar; saved first when it
        persists). Raises :class:`BrowseError` ``session.unknown`` for a name not open."""
        raise NotImplementedError

    async def close(self) -> None:
        """Close every session and the browser the engine launched."""
        raise NotImplementedError


def engine(config: Mapping[str, Any] | None = None, **settings: Any) -> Engine:
    """An :class:`Engine` with this configuration (over the config file's and defaults)."""
    return Engine(config, **settings)


async def browse(url: str, **options: Any) -> BrowseResult:
    """One call from URL to content: a throwaway engine that owns what it starts."""
    async with Engine() as throwaway:
        return await throwaway.browse(url, **options)
