"""What a case is: the metrics it reports, their targets, and one coroutine per side."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from benchmarks.common import CHROME_FLAGS, FULL, QUICK, Sizes

SIDES = ("raw", "cdpkit", "playwright")
# What every cdpkit side that drives a browser uses; the probe checks each exists.
CORE_API = ("launch", "cdp.browser", "cdp.target", "cdp.page", "cdp.runtime")


@dataclass(frozen=True)
class Ctx:
    """Everything one measurement needs; passed to the worker process as JSON."""

    base_url: str
    transport: str  # "port", "pipe", or "" where no browser is involved
    quick: bool
    chrome: str
    chrome_flags: tuple[str, ...] = CHROME_FLAGS  # for the raw and Playwright launches
    deps: tuple[str, ...] = ()  # modules `import cdpkit` loads, for the import baseline

    @property
    def sizes(self) -> Sizes:
        return QUICK if self.quick else FULL

    @property
    def pipe(self) -> bool:
        return self.transport == "pipe"


@dataclass(frozen=True)
class Target:
    """Pass/fail rule of a metric, checked on cdpkit's figures: a ratio to raw, or an absolute
    bound on its median (on every run with ``every_run``). ``abs_min`` may name a
    :class:`Sizes` field (e.g. all events received)."""

    ratio_max: float | None = None
    ratio_min: float | None = None
    abs_max: float | None = None
    abs_min: float | str | None = None
    every_run: bool = False

    def bound(self, sizes: Sizes) -> float | None:
        if isinstance(self.abs_min, str):
            return float(getattr(sizes, self.abs_min))
        return self.abs_min

    def describe(self, sizes: Sizes) -> str:
        if self.ratio_max is not None:
            return f"≤ {self.ratio_max:g}x"
        if self.ratio_min is not None:
            return f"≥ {self.ratio_min:g}x"
        every = ", every run" if self.every_run else ""
        if self.abs_max is not None:
            return f"< {self.abs_max:g}{every}"
        return f"≥ {self.bound(sizes):g}{every}"

    def check(self, ratio: float | None, values: list[float], sizes: Sizes) -> bool | None:
        if self.ratio_max is not None:
            return None if ratio is None else ratio <= self.ratio_max
        if self.ratio_min is not None:
            return None if ratio is None else ratio >= self.ratio_min
        median = statistics.median(values)
        if self.abs_max is not None:
            return (max(values) if self.every_run else median) < self.abs_max
        bound = self.bound(sizes)
        return None if bound is None else (min(values) if self.every_run else median) >= bound


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    target: Target | None = None


Measure = Callable[[Ctx], Coroutine[Any, Any, dict[str, float]]]


@dataclass(frozen=True)
class Script:
    """A side measured by Python source run in a bare interpreter, so nothing is pre-imported."""

    source: Callable[[Ctx], str]


@dataclass(frozen=True)
class Case:
    name: str
    metrics: tuple[Metric, ...]
    sides: dict[str, Measure | Script]
    transports: tuple[str, ...] = ("port",)
    needs: tuple[str, ...] = CORE_API  # cdpkit attributes its side uses, e.g. "tools.snapshot"
    repeat: int = 1  # cheap, noisy cases run this many times the repetitions asked for
    worker_timeout: float = 120.0  # seconds one measurement may take before it is stopped
    notes: tuple[str, ...] = field(default=())
