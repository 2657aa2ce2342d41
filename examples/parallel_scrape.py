"""Parallel scraping with the pool: one browser, several isolated pages at once (each in
its own context: no shared cookies), scraping a catalog's pages concurrently."""

import asyncio
import time

from _pages import serve_pages

import cdpkit
from cdpkit import tools


async def scrape_item(pool: cdpkit.Pool, url: str) -> tuple[str, str]:
    async with pool.page() as page:  # waits for a free slot; the context is discarded after
        result = await tools.scrape(page, url, format="text", wait_for_ms=0)
        price = next(line for line in (result.content or "").splitlines() if line.startswith("Price"))
        return result.title, price


async def main() -> None:
    with serve_pages() as base:
        urls = [f"{base}/catalog/item-{n}.html" for n in range(1, 7)]
        started = time.monotonic()
        async with cdpkit.pool(size=3) as pool:  # at most 3 pages at a time
            results = await asyncio.gather(*(scrape_item(pool, url) for url in urls))
        for title, price in results:
            print(f"{title:<10} {price}")
        print(f"Scraped {len(results)} pages with 3 workers in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    asyncio.run(main())
