"""Every benchmark case, by name, in the order the report lists them."""

from __future__ import annotations

from benchmarks.cases import (
    browse,
    browsing,
    calls,
    daemon,
    downloads,
    extension_bridge,
    grid,
    media,
    memory,
    outline_agreement,
    recording,
    scrape_corpus,
    startup,
    sync_calls,
    typed,
)
from benchmarks.cases.base import Case

CASES: dict[str, Case] = {
    case.name: case
    for case in (*startup.CASES, *calls.CASES, *browsing.CASES, *downloads.CASES,
                 *typed.CASES, *grid.CASES, *browse.CASES, *scrape_corpus.CASES,
                 *memory.CASES, *outline_agreement.CASES, *daemon.CASES,
                 *media.CASES, *recording.CASES, *sync_calls.CASES,
                 *extension_bridge.CASES)
}
