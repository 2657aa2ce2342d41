"""emulate(): a device, place or network for one page, lasting across its navigations."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import cdpkit
from cdpkit import tools
from tests.server import FixtureServer, Handler

LAYOUT = """<!doctype html><title>layout</title><meta name="viewport" content="width=device-width">
<style>#layout::after { content: "desktop" } @media (max-width: 500px) { #layout::after { content: "mobile" } }</style>
<div id="layout"></div>"""


def _headers(handler: Handler) -> None:
    handler.reply(200, json.dumps(dict(handler.headers.items())), "application/json")


@pytest.fixture
def site(server: FixtureServer) -> FixtureServer:
    server.route("/emulate/layout", lambda h: h.reply(200, LAYOUT))
    server.route("/emulate/headers", _headers)
    return server


async def js(page: cdpkit.Page, expression: str) -> Any:
    return await tools.evaluate(page, expression)


async def layout(page: cdpkit.Page) -> str:
    return str(await js(page, "getComputedStyle(document.getElementById('layout'), '::after').content"))


async def test_a_phone_gets_the_mobile_layout_its_user_agent_and_touch(
    page: cdpkit.Page, site: FixtureServer
) -> None:
    await tools.navigate(page, site.url("/emulate/layout"))
    assert await layout(page) == '"desktop"'
    await tools.emulate(page, device="iPhone 15")
    await tools.navigate(page, site.url("/emulate/layout"))  # lasts across navigations
    assert await layout(page) == '"mobile"'
    assert await js(page, "[innerWidth, devicePixelRatio, navigator.maxTouchPoints]") == [393, 3, 5]
    assert "iPhone" in await js(page, "navigator.userAgent")
    headers = json.loads(await js(page, f"fetch('{site.url('/emulate/headers')}').then(r => r.text())"))
    assert "iPhone" in headers["User-Agent"]

    await tools.emulate(page, reset=True)
    await tools.navigate(page, site.url("/emulate/layout"))
    assert await layout(page) == '"desktop"'
    assert await js(page, "[innerWidth, navigator.maxTouchPoints]") == [1280, 0]
    assert "iPhone" not in await js(page, "navigator.userAgent")


async def test_an_android_device_names_the_running_chrome(page: cdpkit.Page, browser: cdpkit.Browser) -> None:
    await tools.emulate(page, device="pixel 7")
    agent = await js(page, "navigator.userAgent")
    major = browser.version.product.split("/")[1].split(".")[0]
    assert f"Chrome/{major}.0.0.0 Mobile" in agent and "Pixel 7" in agent


async def test_locale_timezone_and_color_scheme(page: cdpkit.Page, site: FixtureServer) -> None:
    await tools.emulate(page, locale="de-DE", timezone="Asia/Tokyo", color_scheme="dark")
    await tools.navigate(page, site.url("/emulate/layout"))
    assert await js(page, "navigator.language") == "de-DE"
    assert await js(page, "new Intl.NumberFormat().format(1234.5)") == "1.234,5"
    assert await js(page, "Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo"
    assert await js(page, "matchMedia('(prefers-color-scheme: dark)').matches") is True
    headers = json.loads(await js(page, f"fetch('{site.url('/emulate/headers')}').then(r => r.text())"))
    assert headers["Accept-Language"].startswith("de-DE")


async def test_geolocation_is_granted_and_reported(page: cdpkit.Page, site: FixtureServer) -> None:
    await tools.navigate(page, site.url("/emulate/layout"))
    await tools.emulate(page, geolocation=(48.8584, 2.2945, 25))
    coords = await js(
        page,
        "new Promise((ok, no) => navigator.geolocation.getCurrentPosition("
        "p => ok([p.coords.latitude, p.coords.longitude, p.coords.accuracy]), e => no(e.message)))",
    )
    assert coords == [48.8584, 2.2945, 25]


async def test_offline_and_back_and_a_slow_network(page: cdpkit.Page, site: FixtureServer) -> None:
    await tools.navigate(page, site.url("/emulate/layout"))
    await tools.emulate(page, offline=True)
    assert await js(page, "navigator.onLine") is False
    with pytest.raises(cdpkit.NavigationError, match="ERR_INTERNET_DISCONNECTED"):
        await tools.navigate(page, site.url("/emulate/layout"))
    await tools.emulate(page, offline=False, network="slow-3g", cpu_throttle=2)
    started = time.monotonic()
    await tools.navigate(page, site.url("/emulate/layout"))
    # DevTools' Slow 3G adds 2 s of latency: the load cannot be faster than that.
    assert time.monotonic() - started > 1.5
    await tools.emulate(page, reset=True)


# The page's own request: what a page does offline (an app's sync, a service call).
FETCH = "fetch('/emulate/headers?' + Math.random()).then(r => r.status, e => e.name)"


async def test_offline_fails_the_pages_own_fetches_and_navigations_until_back_online(
    page: cdpkit.Page, site: FixtureServer
) -> None:
    url = site.url("/emulate/layout")
    await tools.navigate(page, url)
    await tools.emulate(page, offline=True)
    assert await js(page, FETCH) == "TypeError"  # "Failed to fetch"
    # Another tool turning the Network domain on and off again does not end it.
    await tools.wait_for(page, network_idle=True)
    assert await js(page, FETCH) == "TypeError"
    assert await js(page, "navigator.onLine") is False
    with pytest.raises(cdpkit.NavigationError, match="ERR_INTERNET_DISCONNECTED"):
        await tools.navigate(page, url)
    await tools.emulate(page, offline=False)
    assert (await tools.navigate(page, url)).status == 200
    assert await js(page, FETCH) == 200
    assert await js(page, "navigator.onLine") is True


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"device": "Nokia 3310"}, "Unknown device 'Nokia 3310'; known devices: iPhone 15"),
        ({"network": "dialup"}, "Unknown network 'dialup'; known networks: slow-3g"),
        ({"timezone": "Mars/Olympus"}, "Chrome rejects the timezone 'Mars/Olympus'"),
        ({"viewport": (0, 100)}, "viewport must be"),
        ({"cpu_throttle": 0.5}, "cpu_throttle is how many times slower"),
        ({"geolocation": (91, 0)}, "geolocation must be"),
    ],
)
async def test_bad_settings_say_what_is_wrong(page: cdpkit.Page, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        await tools.emulate(page, **options)
