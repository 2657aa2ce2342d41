"""What a session's subscriptions are keyed by: an event spec (a model class, a wire name,
``"Domain.*"``, ``"*"``) read as its key, and an event model's validator built when its
stream is made rather than on its first event (see :meth:`cdpkit.session.Session.listen`)."""

from __future__ import annotations

import contextlib

from .._model import Event
from .streams import EventSpec


def event_key(spec: EventSpec) -> str:
    if isinstance(spec, str):
        if not spec or spec.startswith(".") or spec.endswith("."):
            raise ValueError(f"Not an event name: {spec!r} (expected 'Domain.event' or 'Domain.*')")
        return spec
    method = getattr(spec, "method", None)
    if not isinstance(method, str):
        raise TypeError(f"{spec!r} is not a CDP event type (e.g. cdp.page.LoadEventFired)")
    return method


def build_validator(model: type[Event]) -> None:
    """Build ``model``'s validator now if it is not built yet.

    Models build their validator on first use (importing a domain stays cheap). For an
    event that first use would be the first event read from the stream, in the middle of
    the burst the program subscribed for: in a fresh process that build (and pydantic's
    one-time look-up of its plugins) took 20-90 ms, a tenth of a 10,000-message console
    flood. Subscribing comes before the events, so the build is done here instead.
    """
    if not model.__pydantic_complete__:
        with contextlib.suppress(Exception):  # reading the first event reports any problem
            model.model_rebuild()
