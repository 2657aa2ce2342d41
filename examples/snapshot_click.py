"""Accessibility snapshot and click by index: list the page's controls as numbered lines
(what an AI agent reads), pick one by its role and name, and click it by its index."""

import asyncio
from pathlib import Path

import cdpkit
from cdpkit import tools

PAGE = (Path(__file__).parent / "pages" / "todo.html").resolve().as_uri()


async def main() -> None:
    async with cdpkit.launch() as browser:
        page = await browser.new_page(PAGE)

        controls = await tools.snapshot(page, interactive_only=True)
        print("Controls:")
        print(controls.text)

        # Every line has an [index]; it stays valid until the next snapshot of the page.
        add = next(n for n in controls.nodes if n.role == "button" and n.name == "Add item")
        print(f"Clicking [{add.index}] {add.role} {add.name!r}")
        await tools.click(page, index=add.index)

        after = await tools.snapshot(page)
        new_item = next(n for n in after.nodes if n.role == "checkbox" and "Water the plants" in n.name)
        print(f"New line: [{new_item.index}] {new_item.role} {new_item.name!r}")
        print(f"The page now says: {await tools.visible_text(page, selector='#count')}")

        # Tick the first item and clear the done ones, again by index.
        first = next(n for n in after.nodes if n.role == "checkbox")
        await tools.click(page, index=first.index)
        clear = next(n for n in after.nodes if n.role == "button" and n.name == "Clear done")
        await tools.click(page, index=clear.index)
        print(f"After clearing {first.name!r}: {await tools.visible_text(page, selector='#count')}")


if __name__ == "__main__":
    asyncio.run(main())
