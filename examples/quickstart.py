"""Quickstart: launch headless Chromium, open a page that ships with the examples, print
its title, and read a value through a typed CDP command."""

import asyncio
from pathlib import Path

import cdpkit
from cdpkit import cdp, tools

PAGE = (Path(__file__).parent / "pages" / "hello.html").resolve().as_uri()


async def main() -> None:
    async with cdpkit.launch() as browser:
        print(f"Launched {browser.version.product}")
        page = await browser.new_page()
        result = await tools.navigate(page, PAGE)
        print(f"Title: {result.title}")
        heading = await page.send(
            cdp.runtime.evaluate("document.querySelector('h1').textContent", return_by_value=True)
        )
        print(f"Heading: {heading.result.value}")


if __name__ == "__main__":
    asyncio.run(main())
