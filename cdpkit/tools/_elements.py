"""Element handles and boxes the tools share: a resolved element (:class:`Element`), a
layout box (:class:`Box`), a viewport point (:class:`Point`), and releasing a remote object.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from .. import cdp
from ..cdp.runtime import RemoteObjectId
from ..errors import CDPError, EvaluationError
from ..session import Session
from ._scripts import Script, call_function

__all__ = ["Box", "Element", "Point", "release_remote"]


@dataclass(frozen=True, slots=True)
class Box:
    """A layout box in CSS pixels, relative to the top-left of the viewport (so ``y`` is
    larger than the viewport's height for content below the fold).

    Attributes:
        x: Left edge.
        y: Top edge.
        width: Width.
        height: Height.
    """

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        """The centre point, usable as ``x=``/``y=`` when it is inside the viewport."""
        return (self.x + self.width / 2, self.y + self.height / 2)


@dataclass(frozen=True, slots=True)
class Point:
    """A point in viewport CSS pixels."""

    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Element:
    """A resolved element: a remote object handle in the session that owns its frame.

    Attributes:
        session: The page session, or the session of the out-of-process frame holding it.
        object_id: The ``Runtime.RemoteObjectId`` of the element.
        description: How it was targeted, for error messages ("selector '#go'").
    """

    session: Session
    object_id: str
    description: str

    async def call(self, function: Script | str, *args: Any, await_promise: bool = False) -> Any:
        """Run ``function`` (a script, or the JS source of a function) with ``this`` bound
        to the element and JSON arguments; return its JSON value.

        Raises:
            EvaluationError: The function threw.
        """
        remote = await call_function(
            self.session, self.object_id, function, *args, await_promise=await_promise
        )
        return remote.value

    async def call_for_element(self, function: Script | str, *args: Any) -> Element | None:
        """Run ``function`` on the element; the element it returns (a new handle, to
        release), or ``None`` when it returns no object or throws."""
        try:
            remote = await call_function(self.session, self.object_id, function, *args, by_value=False)
        except EvaluationError:
            return None
        if remote.object_id is None:
            return None
        return Element(self.session, remote.object_id, self.description)

    async def release(self) -> None:
        """Free the page's handle on the element (best effort: a closed page or a gone
        context has freed it already)."""
        await release_remote(self.session, self.object_id)


async def release_remote(session: Session, object_id: str) -> None:
    """Free the page's handle on a remote object (best effort: a closed session or a gone
    context has freed it already)."""
    if not session.closed:
        with contextlib.suppress(CDPError):
            await session.send(cdp.runtime.release_object(RemoteObjectId(object_id)))
