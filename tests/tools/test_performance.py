"""performance_trace against a real headless Chromium: a trace file DevTools opens (JSON with
traceEvents and metadata) and the Web Vitals measured in it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.network_pages import install
from tests.server import FixtureServer


async def test_trace_of_a_page_with_a_big_image_and_text(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    await tools.navigate(page, server.url("/net/lcp"))
    report = await tools.performance_trace(page, tmp_path / "trace.json")
    assert report.path == str(tmp_path / "trace.json")
    trace = json.loads(Path(report.path).read_text())
    assert isinstance(trace["traceEvents"], list) and isinstance(trace["metadata"], dict)
    names = {event.get("name") for event in trace["traceEvents"]}
    # What the DevTools Performance panel needs to show a page load.
    assert {"TracingStartedInBrowser", "navigationStart", "RunTask"} <= names
    assert report.event_count == len(trace["traceEvents"])
    assert report.lcp_ms is not None and report.fcp_ms is not None
    assert 0 < report.fcp_ms <= report.lcp_ms < 10_000
    assert report.ttfb_ms is not None and 0 <= report.ttfb_ms <= report.fcp_ms
    assert report.cls == 0.0  # nothing moves on this page
    assert report.inp_ms is None  # no interaction during a reload
    # The page's script busies the main thread for 120 ms: the longest task.
    assert report.long_tasks and report.long_tasks[0].duration_ms >= 100
    assert report.long_tasks == sorted(report.long_tasks, key=lambda t: -t.duration_ms)
    assert not list(tmp_path.glob(".*.part"))


async def test_cls_of_a_page_whose_layout_shifts(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    await tools.navigate(page, server.url("/net/shift"))
    report = await tools.performance_trace(page, tmp_path / "shift.json")
    assert report.cls is not None and report.cls > 0.05


async def test_tracing_again_works_and_without_reload_nothing_navigates(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    await tools.navigate(page, server.url("/net/plain"))
    first = await tools.performance_trace(page, tmp_path / "a.json", duration=0.2)
    assert first.lcp_ms is not None
    await tools.start_network_log(page)
    second = await tools.performance_trace(page, tmp_path / "b.json", reload=False, duration=0.3)
    assert await tools.network_requests(page) == []  # no reload happened
    assert second.lcp_ms is None and json.loads(Path(second.path).read_text())["traceEvents"]


async def test_a_reload_that_times_out_stops_tracing_and_keeps_the_trace(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    await tools.navigate(page, server.url("/slow?s=3"))
    path = tmp_path / "slow.json"
    with pytest.raises(TimeoutError) as caught:
        await tools.performance_trace(page, path, timeout=0.5)
    assert f"The trace recorded until then is in {path}" in caught.value.__notes__
    assert json.loads(path.read_text())["traceEvents"]
    assert not list(tmp_path.glob(".*.part"))
    # Tracing was stopped: the next trace starts.
    report = await tools.performance_trace(page, tmp_path / "again.json", reload=False, duration=0.1)
    assert Path(report.path).exists()


async def test_inp_of_a_slow_click_during_the_trace(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    install(server)
    await tools.navigate(page, server.url("/net/slow-click"))

    async def click_soon() -> None:
        await asyncio.sleep(0.3)
        await tools.click(page, selector="#go")

    clicking = asyncio.ensure_future(click_soon())
    report = await tools.performance_trace(page, tmp_path / "inp.json", reload=False, duration=1.5)
    await clicking
    assert report.inp_ms is not None and report.inp_ms >= 150
