"""Make one page look like another device, place, or network: ``emulate``.

Each setting given changes only that aspect and stays in effect for the page (across its
navigations) until changed again or until ``emulate(page, reset=True)``; settings not given
are left as they are.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Literal

from .. import cdp
from .._model import Command
from ..errors import ProtocolError
from ..page import Page

__all__ = ["DEVICES", "NETWORK_PRESETS", "Device", "NetworkConditions", "emulate"]


@dataclass(frozen=True, slots=True)
class Device:
    """A device to emulate: its viewport in CSS pixels, pixel ratio, whether it is a phone
    or tablet (mobile layout, touch), and its browser's user agent (``{chrome}`` stands for
    the running Chrome's version)."""

    width: int
    height: int
    scale: float
    mobile: bool
    user_agent: str


_ANDROID = "Mozilla/5.0 (Linux; Android 14; {model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome} {kind}Safari/537.36"
_IOS = "Mozilla/5.0 ({model}; CPU {os} 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

DEVICES: dict[str, Device] = {
    "iPhone 15": Device(393, 852, 3, True, _IOS.format(model="iPhone", os="iPhone OS")),
    "iPhone SE": Device(375, 667, 2, True, _IOS.format(model="iPhone", os="iPhone OS")),
    "iPad Mini": Device(768, 1024, 2, True, _IOS.format(model="iPad", os="OS")),
    "Pixel 7": Device(
        412, 915, 2.625, True, _ANDROID.format(model="Pixel 7", chrome="{chrome}", kind="Mobile ")
    ),
    "Galaxy S24": Device(
        360, 780, 3, True, _ANDROID.format(model="SM-S921B", chrome="{chrome}", kind="Mobile ")
    ),
    "Galaxy Tab S9": Device(
        800, 1280, 2, True, _ANDROID.format(model="SM-X710", chrome="{chrome}", kind="")
    ),
    "Desktop 1080p": Device(1920, 1080, 1, False, ""),
    "Laptop": Device(1366, 768, 1, False, ""),
}
"""Common devices by name (for ``emulate(device=...)``, case-insensitive). A desktop entry
keeps the browser's own user agent."""


@dataclass(frozen=True, slots=True)
class NetworkConditions:
    """A network to emulate: added round-trip latency, and throughput in kilobits per second
    (``None``: not limited)."""

    latency_ms: float = 0
    download_kbps: float | None = None
    upload_kbps: float | None = None


NETWORK_PRESETS: dict[str, NetworkConditions] = {
    # Chrome DevTools' own presets.
    "slow-3g": NetworkConditions(2000, 400, 400),
    "fast-3g": NetworkConditions(562.5, 1474.56, 675),
    "slow-4g": NetworkConditions(150, 1474.56, 675),
    "4g": NetworkConditions(20, 9000, 1500),
}
"""Named networks for ``emulate(network=...)``: DevTools' throttling presets."""

ColorScheme = Literal["light", "dark", "no-preference"]


async def emulate(
    page: Page,
    *,
    viewport: tuple[int, int] | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    locale: str | None = None,
    timezone: str | None = None,
    geolocation: tuple[float, float] | tuple[float, float, float] | None = None,
    color_scheme: ColorScheme | None = None,
    offline: bool | None = None,
    cpu_throttle: float | None = None,
    network: str | NetworkConditions | None = None,
    reset: bool = False,
) -> None:
    """Emulate a device, place or network on this page; each setting given replaces that
    aspect only, and lasts across the page's navigations.

    Args:
        page: The page.
        viewport: ``(width, height)`` in CSS pixels.
        device: A name of :data:`DEVICES` (``"iPhone 15"``, ``"Pixel 7"``...): its
            viewport, pixel ratio, mobile layout, touch and user agent (``viewport`` and
            ``user_agent``, when given too, win).
        user_agent: The ``User-Agent`` header and ``navigator.userAgent``.
        locale: e.g. ``"de-DE"``: ``Intl`` formatting, ``navigator.language`` and the
            ``Accept-Language`` header.
        timezone: An IANA time zone, e.g. ``"Asia/Tokyo"``.
        geolocation: ``(latitude, longitude)`` or with an accuracy in metres; the page's
            origin is granted the geolocation permission.
        color_scheme: ``prefers-color-scheme``: ``"light"``, ``"dark"`` or
            ``"no-preference"``.
        offline: Cut the page off the network (``True``): its navigations and its own
            requests (``fetch``, XHR, images...) fail, ``navigator.onLine`` is false; or
            back on (``False``). While offline or throttled, the page keeps its
            ``Network`` domain enabled (Chrome applies the emulation only then).
        cpu_throttle: Slow the CPU down this many times (1 is normal speed).
        network: A name of :data:`NETWORK_PRESETS` (``"slow-3g"``, ``"fast-3g"``,
            ``"slow-4g"``, ``"4g"``) or :class:`NetworkConditions`.
        reset: First clear every emulation this function set on the page.

    Raises:
        ValueError: An unknown device or network name (the message lists the known ones),
            a timezone or locale Chrome rejects, a viewport or throttle out of range.
    """
    chosen = _device(device) if device is not None else None
    conditions = _network(network) if network is not None else None
    _check_emulation(viewport, cpu_throttle, color_scheme, geolocation)
    if reset:
        await _reset(page)
    if chosen is not None or viewport is not None:
        await _emulate_device(page, chosen, viewport)
    agent = user_agent or (
        _device_user_agent(page, chosen) if chosen and chosen.user_agent else None
    )
    if agent is not None or locale is not None:
        await page.send(
            cdp.emulation.set_user_agent_override(
                agent or page.browser.version.user_agent,
                accept_language=_accept_language(locale) if locale else None,
            )
        )
    if locale is not None:
        await _checked(page, cdp.emulation.set_locale_override(locale=locale), f"locale {locale!r}")
    if timezone is not None:
        await _checked(
            page, cdp.emulation.set_timezone_override(timezone), f"timezone {timezone!r}"
        )
    if geolocation is not None:
        await _emulate_geolocation(page, geolocation)
    if color_scheme is not None:
        await page.send(
            cdp.emulation.set_emulated_media(
                features=[
                    cdp.emulation.MediaFeature(name="prefers-color-scheme", value=color_scheme)
                ]
            )
        )
    if cpu_throttle is not None:
        await page.send(cdp.emulation.set_cpu_throttling_rate(cpu_throttle))
    if offline is not None or conditions is not None:
        state = page.state(_NetworkState)
        if offline is not None:
            state.offline = offline
        if conditions is not None:
            state.conditions = conditions
        await _apply_network(page, state)


def _check_emulation(
    viewport: tuple[int, int] | None,
    cpu_throttle: float | None,
    color_scheme: str | None,
    geolocation: tuple[float, ...] | None,
) -> None:
    """Refuse values out of range before anything is sent (see :func:`emulate`)."""
    if viewport is not None and (viewport[0] < 1 or viewport[1] < 1):
        raise ValueError(f"viewport must be (width, height) of at least 1 px, got {viewport}")
    if cpu_throttle is not None and cpu_throttle < 1:
        raise ValueError(f"cpu_throttle is how many times slower: 1 or more, got {cpu_throttle}")
    if color_scheme is not None and color_scheme not in ("light", "dark", "no-preference"):
        raise ValueError(f"color_scheme must be light, dark or no-preference, got {color_scheme!r}")
    if geolocation is not None and not (
        -90 <= geolocation[0] <= 90 and -180 <= geolocation[1] <= 180
    ):
        raise ValueError(
            f"geolocation must be (latitude -90..90, longitude -180..180), got {geolocation}"
        )


async def _emulate_device(page: Page, chosen: Device | None, viewport: tuple[int, int] | None) -> None:
    """The viewport (and a device's pixel ratio, mobile layout and touch)."""
    size = viewport or (chosen.width, chosen.height) if chosen else viewport
    assert size is not None
    await page.send(
        cdp.emulation.set_device_metrics_override(
            size[0], size[1], chosen.scale if chosen else 0, chosen.mobile if chosen else False
        )
    )
    if chosen is not None:
        await page.send(
            cdp.emulation.set_touch_emulation_enabled(
                chosen.mobile, max_touch_points=5 if chosen.mobile else None
            )
        )


async def _emulate_geolocation(page: Page, geolocation: tuple[float, ...]) -> None:
    """The position, with the page's origin granted the geolocation permission."""
    accuracy = geolocation[2] if len(geolocation) == 3 else 10
    origin = _origin(page)
    await page.browser.send(
        cdp.browser.grant_permissions(
            [cdp.browser.PermissionType.GEOLOCATION],
            origin=origin,
            browser_context_id=cdp.browser.BrowserContextID(page.context.id)
            if page.context
            else None,
        )
    )
    await page.send(
        cdp.emulation.set_geolocation_override(
            latitude=geolocation[0], longitude=geolocation[1], accuracy=accuracy
        )
    )


class _NetworkState:
    """What ``emulate`` set for the page's network, so offline and throttling combine."""

    def __init__(self) -> None:
        self.offline = False
        self.conditions = NetworkConditions()
        # The Network domain, kept on while an emulation is in effect: Chrome applies
        # one to the page's own requests (fetch, XHR, subresources) only while the domain
        # is enabled (before, a fetch still went through offline), and disabling the
        # domain ends it.
        self.network_on: contextlib.AsyncExitStack | None = None


_METHOD_NOT_FOUND = -32601


async def _apply_network(page: Page, state: _NetworkState) -> None:
    # kbps -> bytes per second; -1 means not limited.
    def rate(kbps: float | None) -> float:
        return -1 if kbps is None else kbps * 1000 / 8

    conditions = state.conditions
    latency, download, upload = (
        conditions.latency_ms, rate(conditions.download_kbps), rate(conditions.upload_kbps)
    )
    active = state.offline or conditions != NetworkConditions()
    if active and state.network_on is None:
        network_on = contextlib.AsyncExitStack()
        await network_on.enter_async_context(page.enabled("Network"))
        state.network_on = network_on
    # Every request of the page (an empty pattern), and navigator.onLine / connection to
    # match: the pair that replaces the deprecated Network.emulateNetworkConditions.
    rules = [
        cdp.network.NetworkConditions(
            url_pattern="", latency=latency, download_throughput=download,
            upload_throughput=upload, offline=state.offline,
        )
    ] if active else []
    try:
        await page.send(cdp.network.emulate_network_conditions_by_rule(rules))
        await page.send(cdp.network.override_network_state(state.offline, latency, download, upload))
    except ProtocolError as error:
        if error.code != _METHOD_NOT_FOUND:
            raise
        # A Chrome older than those commands (before 2025).
        await page.send(cdp.network.emulate_network_conditions(state.offline, latency, download, upload))
    if not active and state.network_on is not None:
        network_on, state.network_on = state.network_on, None
        await network_on.aclose()


async def _reset(page: Page) -> None:
    await page.send(cdp.emulation.clear_device_metrics_override())
    await page.send(cdp.emulation.set_touch_emulation_enabled(False))
    await page.send(cdp.emulation.set_user_agent_override(page.browser.version.user_agent))
    await page.send(cdp.emulation.set_locale_override())
    await page.send(cdp.emulation.set_timezone_override(""))
    await page.send(cdp.emulation.clear_geolocation_override())
    await page.send(cdp.emulation.set_emulated_media(features=[]))
    await page.send(cdp.emulation.set_cpu_throttling_rate(1))
    state = page.state(_NetworkState)
    state.offline = False
    state.conditions = NetworkConditions()
    await _apply_network(page, state)


def _device(name: str) -> Device:
    for known, device in DEVICES.items():
        if known.lower() == name.strip().lower():
            return device
    raise ValueError(f"Unknown device {name!r}; known devices: {', '.join(DEVICES)}")


def _network(network: str | NetworkConditions) -> NetworkConditions:
    if isinstance(network, NetworkConditions):
        return network
    preset = NETWORK_PRESETS.get(network.strip().lower())
    if preset is None:
        raise ValueError(
            f"Unknown network {network!r}; known networks: {', '.join(NETWORK_PRESETS)}"
        )
    return preset


def _device_user_agent(page: Page, device: Device) -> str:
    product = page.browser.version.product  # "HeadlessChrome/156.0.8078.73" or "Chrome/..."
    version = product.split("/", 1)[-1]
    major = version.split(".", 1)[0]
    # Chrome's reduced user agent: the major version, then zeros.
    return device.user_agent.format(chrome=f"{major}.0.0.0")


def _accept_language(locale: str) -> str:
    language = re.split(r"[-_]", locale, maxsplit=1)[0]
    return locale if language == locale else f"{locale},{language};q=0.9"


def _origin(page: Page) -> str | None:
    url = page.url
    match = re.match(r"^(https?://[^/]+)", url)
    return match.group(1) if match else None


async def _checked(page: Page, command: Command[None], what: str) -> None:
    try:
        await page.send(command)
    except ProtocolError as error:
        raise ValueError(f"Chrome rejects the {what}: {error.message}") from None
