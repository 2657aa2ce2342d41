"""Scrape to markdown: load a page and turn its article into clean markdown (headings,
links with absolute URLs, tables, lists, code), with the navigation and footer left out;
then list the page's links."""

import asyncio
from pathlib import Path

import cdpkit
from cdpkit import tools

PAGE = (Path(__file__).parent / "pages" / "article.html").resolve().as_uri()


async def main() -> None:
    async with cdpkit.launch() as browser:
        page = await browser.new_page()

        result = await tools.scrape(page, PAGE, format="markdown")
        print(f"Title: {result.title}")
        print(result.content)

        links = await tools.scrape(page, PAGE, format="links", wait_for_ms=0)
        print("Links:")
        for link in links.links:
            print(f"  {link.url}  {link.text}")


if __name__ == "__main__":
    asyncio.run(main())
