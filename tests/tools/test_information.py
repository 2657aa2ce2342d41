"""Screenshots, console logs, evaluate and PDF against a real headless Chromium."""

from __future__ import annotations

import base64
import json
import math
import struct
from typing import Any

import pytest

import cdpkit
from cdpkit.tools.accessibility import snapshot
from cdpkit.tools.information import console_logs, evaluate, pdf, screenshot
from cdpkit.tools.navigation import navigate
from tests.server import FixtureServer


async def js(page: cdpkit.Page, expression: str) -> Any:
    result = await page.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"].get("value")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def decode(page: cdpkit.Page, data: bytes, mime: str, points: list[tuple[int, int]]) -> Any:
    """Let Chrome decode the image: its natural size and the RGBA of each point."""
    source = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    return await js(page, f"""(async () => {{
        const img = new Image();
        img.src = {json.dumps(source)};
        await img.decode();
        const canvas = new OffscreenCanvas(1, 1);
        const ctx = canvas.getContext("2d");
        const colours = [];
        for (const [x, y] of {json.dumps(points)}) {{
            ctx.clearRect(0, 0, 1, 1);
            ctx.drawImage(img, x, y, 1, 1, 0, 0, 1, 1);
            colours.push(Array.from(ctx.getImageData(0, 0, 1, 1).data));
        }}
        return [img.naturalWidth, img.naturalHeight, colours];
    }})()""")


def band_colour(i: int) -> list[int]:
    """The colour of band ``i`` of /info/long.html."""
    r = (10 * i) % 256
    return [r, 255 - r, (37 * i) % 256, 255]


def close_to(actual: list[int], expected: list[int], tolerance: int = 8) -> bool:
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


# -- screenshot -------------------------------------------------------------------------------


async def test_viewport_screenshot_is_a_png_of_the_viewport(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/info/long.html"))
    data = await screenshot(page)
    assert png_size(data) == tuple(await js(page, "[innerWidth, innerHeight]"))
    _, _, [colour] = await decode(page, data, "image/png", [(10, 10)])
    assert colour == band_colour(0)


async def test_full_page_taller_than_16384_px_is_complete(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/info/long.html"))
    root = "document.documentElement"
    size = await js(page, f"[{root}.scrollWidth, {root}.scrollHeight]")
    assert size[1] == 20_000
    data = await screenshot(page, full_page=True)
    assert png_size(data) == tuple(size)
    _, _, colours = await decode(
        page, data, "image/png", [(10, 1000 * i + 500) for i in range(20)]
    )
    assert colours == [band_colour(i) for i in range(20)]
    assert await js(page, "scrollY") == 0  # the page was not scrolled


async def test_full_page_webp_is_scaled_to_fit_the_format(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/info/long.html"))
    data = await screenshot(page, full_page=True, format="webp", quality=90)
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    width, height, colours = await decode(
        page, data, "image/webp", [(10, round((1000 * i + 500) * 16383 / 20000)) for i in range(20)]
    )
    assert height == 16383 and 0 < width < await js(page, "innerWidth")
    assert all(close_to(c, band_colour(i)) for i, c in enumerate(colours)), colours


async def test_jpeg_quality_changes_the_encoding(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    low = await screenshot(page, format="jpeg", quality=5)
    high = await screenshot(page, format="jpeg", quality=95)
    assert low[:3] == high[:3] == b"\xff\xd8\xff"
    assert len(low) < len(high)


async def test_element_screenshot_by_selector_outside_the_viewport(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/info/long.html"))
    data = await screenshot(page, selector=".band:nth-of-type(17)")  # band 16, at y=16,000
    assert png_size(data) == (await js(page, "innerWidth"), 1000)  # a full-width band
    _, _, colours = await decode(page, data, "image/png", [(5, 5), (700, 995)])
    assert colours == [band_colour(16), band_colour(16)]


async def test_element_screenshot_by_index_inside_out_of_process_iframe(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    port = server.server_address[1]
    await navigate(
        page, server.url(f"/snapshot/frames.html?cross={other_server.origin}&oop=http://localhost:{port}")
    )
    snap = await snapshot(page, roles=["button"])
    out_of_process = [n for n in snap.nodes if n.session is not page]
    assert len(out_of_process) == 1
    data = await screenshot(page, index=out_of_process[0].index)
    assert png_size(data) == (100, 30)
    _, _, colours = await decode(page, data, "image/png", [(2, 2), (97, 27)])
    assert all(close_to(c, [200, 30, 30, 255]) for c in colours), colours  # the red button


async def test_screenshot_errors(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    with pytest.raises(ValueError, match="format must be"):
        await screenshot(page, format="gif")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="quality"):
        await screenshot(page, quality=50)
    with pytest.raises(ValueError, match="quality must be between 0 and 100"):
        await screenshot(page, format="jpeg", quality=101)
    with pytest.raises(ValueError, match=r"^Provide one of: selector, index, role \(with name\), text, or label$"):
        await screenshot(page, selector="#go", index=0)
    with pytest.raises(ValueError, match="full_page"):
        await screenshot(page, full_page=True, selector="#go")
    with pytest.raises(cdpkit.ElementNotFoundError, match="Element not found: #nope"):
        await screenshot(page, selector="#nope")
    snap = await snapshot(page)
    with pytest.raises(cdpkit.ElementNotFoundError, match="out of range"):
        await screenshot(page, index=len(snap.nodes))
    with pytest.raises(cdpkit.ElementNotFoundError, match=r"not rendered|empty box"):
        await screenshot(page, selector=".hidden button")


async def test_closed_page_raises_target_closed(page: cdpkit.Page) -> None:
    await page.close()
    for call in (
        screenshot(page),
        console_logs(page),
        evaluate(page, "1"),
        pdf(page),
    ):
        with pytest.raises(cdpkit.TargetClosedError):
            await call


# -- console ----------------------------------------------------------------------------------


async def open_console_page(page: cdpkit.Page, url: str) -> None:
    """Load the page that logs, and wait for its uncaught exception (thrown after load)."""
    async with page.expect("Runtime.exceptionThrown", timeout=10):
        await navigate(page, url)


async def test_console_messages_in_order_with_source_line(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url("/info/console.html")
    await open_console_page(page, url)
    messages = [m for m in await console_logs(page) if m.url == url]
    assert [(m.level, m.text, m.line) for m in messages] == [
        ("log", "plain message 42 true null undefined", 10),
        ("info", "format list has 3 items and {a: 1, b: 'x'}", 11),
        ("warning", "careful [1, 2, 3]", 12),
        ("error", f"broken Error: bad thing\n    at {url}:13:25", 13),
        ("debug", "styled text", 14),
        ("log", "p", 15),
        ("error", f"Uncaught TypeError: uncaught boom\n    at fail ({url}:16:25)", 16),
    ]
    missing = [m for m in await console_logs(page) if m.url.endswith("/info/missing.png")]
    assert len(missing) == 1 and missing[0].level == "error"
    assert "404" in missing[0].text
    assert str(messages[2]) == f"[warning] careful [1, 2, 3] ({url}:12)"


async def test_console_level_filter_and_clear(page: cdpkit.Page, server: FixtureServer) -> None:
    await open_console_page(page, server.url("/info/console.html"))
    everything = await console_logs(page)
    assert {m.level for m in everything} == {"debug", "log", "info", "warning", "error"}
    warnings = await console_logs(page, level="warning")
    assert {m.level for m in warnings} == {"warning", "error"}
    assert [m for m in everything if m.level in ("warning", "error")] == warnings
    assert {m.level for m in await console_logs(page, level="info")} == {
        "log", "info", "warning", "error"
    }
    assert {m.level for m in await console_logs(page, level="error")} == {"error"}
    assert await console_logs(page, clear=True) == everything
    assert await console_logs(page) == []
    await evaluate(page, "console.log('after clear', {n: [1, {deep: true}]})")
    # Nested objects are summarised as DevTools does.
    assert [m.text for m in await console_logs(page)] == ["after clear {n: Array(2)}"]
    with pytest.raises(ValueError, match="level must be one of"):
        await console_logs(page, level="loud")  # type: ignore[arg-type]


# -- evaluate ---------------------------------------------------------------------------------


async def test_evaluate_returns_exact_json_values(page: cdpkit.Page) -> None:
    cases: dict[str, Any] = {
        "0": 0,
        "false": False,
        "''": "",
        "null": None,
        "undefined": None,
        "1.5": 1.5,
        "'text'": "text",
        "[1, 'a', null, undefined]": [1, "a", None, None],
        "({a: {b: [1, 2]}, c: undefined})": {"a": {"b": [1, 2]}},
        "10n ** 20n": 10**20,
        "Promise.resolve(7)": 7,
        "await new Promise(r => setTimeout(() => r('later'), 10))": "later",
        "let fromStatement = 6; fromStatement * 7": 42,
    }
    for expression, expected in cases.items():
        value = await evaluate(page, expression)
        assert value == expected and type(value) is type(expected), (expression, value)
    assert math.isnan(await evaluate(page, "NaN"))
    assert await evaluate(page, "-Infinity") == -math.inf
    assert await evaluate(page, "Promise.resolve(1)", await_promise=False) == "[Promise]"


async def test_evaluate_describes_values_json_cannot_hold(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    assert await evaluate(page, "document.getElementById('go')") == '<button id="go" type="button">'
    assert await evaluate(page, "[...document.querySelectorAll('#fields > button')]") == [
        '<button id="off" disabled="">',
        '<button id="menu" aria-expanded="true" aria-controls="menu-list">',
    ]
    assert await evaluate(page, "(() => { const a = {n: 1}; a.self = a; return a; })()") == {
        "n": 1, "self": "[Circular]"
    }
    assert await evaluate(page, "new Map([['k', new Set([1, 2])]])") == {"k": [1, 2]}
    assert await evaluate(page, "new Date(0)") == "1970-01-01T00:00:00.000Z"
    assert await evaluate(page, "(function named() {})") == "[Function named]"
    assert await evaluate(page, "Symbol('s')") == "Symbol(s)"
    assert (await evaluate(page, "window")).startswith("[Window http://127.0.0.1")


async def test_evaluate_runs_as_the_devtools_console_does(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    # Top-level await anywhere in the expression, not only where a statement starts.
    assert await evaluate(page, "(await fetch(location.href)).status") == 200
    assert await evaluate(page, "[await Promise.resolve(1), await 2]") == [1, 2]
    # A declaration may be run again, as when an agent retries a snippet.
    assert await evaluate(page, "let total = 1; total") == 1
    assert await evaluate(page, "let total = 2; const twice = total * 2; twice") == 4
    assert await evaluate(page, "const twice = 10; twice + total") == 12
    assert await evaluate(page, "class Retry {}; typeof Retry") == "function"
    assert await evaluate(page, "class Retry {}; 'again'") == "again"
    # The page's own globals are still the page's.
    assert await evaluate(page, "typeof document.title") == "string"


async def test_evaluate_errors_carry_message_line_and_column(page: cdpkit.Page) -> None:
    with pytest.raises(cdpkit.EvaluationError) as info:
        await evaluate(page, "const ok = 1;\n  null.boom")
    assert info.value.text == "TypeError: Cannot read properties of null (reading 'boom')"
    assert (info.value.line, info.value.column) == (1, 7)  # 0-based, as the protocol
    # The message counts from 1, as the DevTools console does.
    assert str(info.value).endswith("(reading 'boom') (line 2, column 8)")
    with pytest.raises(cdpkit.EvaluationError) as info:
        await evaluate(page, "Promise.reject(new Error('later'))")
    assert (info.value.line, info.value.column) == (0, 15)  # where the Error was made
    assert str(info.value) == "Uncaught (in promise) Error: later (line 1, column 16)"
    with pytest.raises(cdpkit.EvaluationError) as info:
        await evaluate(page, "1 +")
    assert str(info.value) == "SyntaxError: Unexpected end of input (line 1, column 4)"
    with pytest.raises(cdpkit.EvaluationError, match="SyntaxError"):
        await evaluate(page, "this is not javascript")
    with pytest.raises(cdpkit.EvaluationError, match=r"Uncaught \(in promise\) Error: nope"):
        await evaluate(page, "Promise.reject(new Error('nope'))")
    with pytest.raises(cdpkit.EvaluationError, match="Uncaught 'plain'"):
        await evaluate(page, "throw 'plain'")


# -- pdf --------------------------------------------------------------------------------------


async def test_pdf_is_a_pdf_of_the_page(page: cdpkit.Page, server: FixtureServer) -> None:
    await navigate(page, server.url("/snapshot/form.html"))
    data = await pdf(page)
    assert data.startswith(b"%PDF-")
    assert data.rstrip().endswith(b"%%EOF")
    assert b"/Type /Page" in data or b"/Type/Page" in data
