"""Fixtures of the runtime tests: the local proxies, and reading a page's identity."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import cdpkit
from cdpkit import cdp, tools
from tests.fixtures.proxy import ProxyServer

PROXY_USER = "scraper"
PROXY_PASSWORD = "s3cr3t-pr0xy-pw"


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = ProxyServer().start()
    yield server
    server.stop()


@pytest.fixture
def auth_proxy() -> Iterator[ProxyServer]:
    server = ProxyServer((PROXY_USER, PROXY_PASSWORD)).start()
    yield server
    server.stop()


async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    """Wait (polling) until ``condition()`` holds; fail the test after ``timeout`` seconds."""
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 (state the browser changes, no event to await)
            await asyncio.sleep(0.05)


async def read_identity(page: cdpkit.Page, url: str | None = None) -> dict[str, Any]:
    """What ``page`` (loaded from ``url`` first, if given) says about itself, with the
    headers its ``fetch('/echo/headers')`` carried under ``"headers"``."""
    if url is not None:
        await tools.navigate(page, url)
    result = await page.send(
        cdp.runtime.evaluate(
            "window.headers.then((headers) => ({...window.identity, headers}))",
            await_promise=True,
            return_by_value=True,
        )
    )
    value = result.result.value
    assert isinstance(value, dict), result
    return value
