"""What the types cost: typed ``send`` and ``send_json`` against cdpkit's own untyped ``call``.

Here the raw side is not the raw client: it is cdpkit's ``page.call`` of the same command,
so each ratio is the price of the typed path alone (building the command, parsing the
result into models, or for ``send_json`` only the typing, which costs nothing at run time).
"""

from __future__ import annotations

import statistics
from typing import Any

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target
from benchmarks.cases.browsing import _median_ms
from benchmarks.cases.calls import BLOCKS, _per_call_us
from benchmarks.cases.clients import cdpkit_page
from benchmarks.common import now

# The element whose box is asked for; the page is the 5,000-element one (300 when quick).
_BUTTON = "document.querySelector('button')"
AX_WARMUPS, AX_REPEATS = 1, 2


async def _button_object_id(page: Any) -> str:
    from cdpkit import cdp

    found = await page.send(cdp.runtime.evaluate(_BUTTON))
    object_id = found.result.object_id
    if object_id is None:
        raise RuntimeError(f"{_BUTTON} found nothing on {page.url}")
    return str(object_id)


async def _ax_tree_ms(fetch: Any) -> tuple[float, int]:
    """Median ms of ``fetch()`` (a full AX tree) after a warm-up, and the node count."""
    counts: list[int] = []

    async def once(_: int) -> None:
        counts.append(await fetch())

    return await _median_ms(once, AX_WARMUPS, AX_REPEATS), min(counts)


async def _call(ctx: Ctx) -> dict[str, float]:
    async with cdpkit_page(ctx, "/elements") as page:
        params = {"objectId": await _button_object_id(page)}
        box = await _per_call_us(lambda: page.call("DOM.getBoxModel", params), ctx)

        async def tree() -> int:
            return len((await page.call("Accessibility.getFullAXTree"))["nodes"])

        ax_ms, nodes = await _ax_tree_ms(tree)
        return {"box_us": box["us"], "ax_json_ms": ax_ms, "ax_send_ms": ax_ms, "nodes": nodes}


async def _typed(ctx: Ctx) -> dict[str, float]:
    from cdpkit import cdp
    from cdpkit.cdp.runtime import RemoteObjectId

    async with cdpkit_page(ctx, "/elements") as page:
        object_id = RemoteObjectId(await _button_object_id(page))
        box = await _per_call_us(
            lambda: page.send(cdp.dom.get_box_model(object_id=object_id)), ctx)

        async def tree_json() -> int:
            return len((await page.send_json(cdp.accessibility.get_full_ax_tree()))["nodes"])

        async def tree_models() -> int:
            return len((await page.send(cdp.accessibility.get_full_ax_tree())).nodes)

        json_ms, nodes = await _ax_tree_ms(tree_json)
        send_ms, _ = await _ax_tree_ms(tree_models)
        ratio = await _interleaved_ratio(
            lambda: page.send(cdp.dom.get_box_model(object_id=object_id)),
            lambda: page.call("DOM.getBoxModel", {"objectId": object_id}),
            ctx,
        )
        return {"box_us": box["us"], "box_ratio": ratio, "ax_json_ms": json_ms,
                "ax_send_ms": send_ms, "nodes": nodes}


async def _interleaved_ratio(typed: Any, raw: Any, ctx: Ctx) -> float:
    """``typed``'s time over ``raw``'s, the same command on the same page in this process,
    in alternating blocks (median block of each): what the types cost, without the spread
    between two Chrome processes that the side-by-side figure carries.

    The order alternates too (typed, raw, raw, typed, ...): the second block of a pair read
    2-5% slower than the first whichever path it timed, a bias as large as the target."""
    calls = max(1, ctx.sizes.sequential_calls // BLOCKS)
    for _ in range(ctx.sizes.warmup_calls):
        await typed()
        await raw()
    typed_blocks: list[float] = []
    raw_blocks: list[float] = []
    pair = ((typed, typed_blocks), (raw, raw_blocks))
    for round_number in range(2 * BLOCKS):
        for call, blocks in pair if round_number % 2 == 0 else pair[::-1]:
            start = now()
            for _ in range(calls):
                await call()
            blocks.append((now() - start) / calls)
    return statistics.median(typed_blocks) / statistics.median(raw_blocks)


TYPED = Case(
    name="typed-send",
    metrics=(
        Metric("box_us", "typed `send` vs raw `call`, same command: DOM.getBoxModel, "
               "separate processes (µs/call)"),
        Metric("box_ratio", "typed `send` / raw `call`, same command, same page, interleaved "
               "(DOM.getBoxModel)", Target(abs_max=1.05)),
        Metric("ax_json_ms", "`send_json` vs raw `call`: Accessibility.getFullAXTree (ms)",
               Target(ratio_max=1.05)),
        Metric("ax_send_ms", "typed `send` (models) vs raw `call`: getFullAXTree (ms)"),
        Metric("nodes", "AX nodes in the tree", Target(abs_min=1, every_run=True)),
    ),
    sides={"raw": _call, "cdpkit": _typed},
    needs=(*CORE_API, "cdp.dom", "cdp.accessibility"),
    notes=("typed-send: the raw side is cdpkit's own untyped `page.call` of the same command on "
           "the element page; cdpkit is `page.send(cdp...)` (typed command and result models) "
           "and `page.send_json(cdp...)` (typed command, raw JSON typed by a TypedDict). "
           "getBoxModel: sequential, timed in blocks like the round trip; side by side the "
           "figure also carries the spread between two Chrome processes, so the target is on "
           "the interleaved ratio measured in one process (blocks in alternating order: typed, "
           "raw, raw, typed, ...); the AX tree: median "
           f"of {AX_REPEATS} after {AX_WARMUPS} warm-up.",),
)

CASES = (TYPED,)
