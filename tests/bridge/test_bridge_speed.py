"""The bridge's per-message cost (issue #43, Speed): nothing on the loopback hops is
compressed. Chrome's WebSocket offers permessage-deflate to the bridge and so does a
websockets client; deflating every relayed command, answer and event costs CPU on both
sides of a link that never leaves the computer (measured in docs/extension.md)."""

from __future__ import annotations

from collections.abc import Callable

import websockets
from websockets.typing import Origin

import cdpkit
from cdpkit import cdp
from cdpkit._bridge import extension_id
from tests.bridge.conftest import PersonsBrowser

StartBrowser = Callable[..., PersonsBrowser]


async def test_the_bridge_negotiates_no_compression_with_the_extension_or_a_client(
    persons_browser: StartBrowser,
) -> None:
    person = persons_browser()
    info = person.bridge()
    async with cdpkit.connect("extension") as browser:  # the browser's own worker is connected
        page = await browser.new_page()
        assert (await page.send(cdp.runtime.evaluate("6 * 7"))).result.value == 42
    # Both offer permessage-deflate, as Chrome's WebSocket and the websockets client do.
    ends: list[tuple[str, dict[str, str], Origin | None]] = [
        (f"ws://127.0.0.1:{info.port}/client", {"Authorization": f"Bearer {info.token}"}, None),
        (f"ws://127.0.0.1:{info.port}/extension?token={info.token}", {},
         Origin(f"chrome-extension://{extension_id()}")),
    ]  # fmt: skip
    for url, headers, origin in ends:
        async with websockets.connect(
            url, additional_headers=headers, origin=origin, compression="deflate"
        ) as offered:
            assert offered.response is not None
            assert offered.response.headers.get("Sec-WebSocket-Extensions") is None, url
