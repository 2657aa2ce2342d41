"""Scraping without async: cdpkit.sync in a plain script, one browser shared by a thread
pool (a page per thread), the same tools, results and errors as the async API."""

import time
from concurrent.futures import ThreadPoolExecutor

from _pages import serve_pages

import cdpkit
import cdpkit.sync as sync
from cdpkit import cdp


def scrape_item(browser: sync.Browser, url: str) -> tuple[str, str]:
    page = browser.new_page()  # each thread its own page; one browser for all
    try:
        result = sync.tools.scrape(page, url, format="text", wait_for_ms=0)
        price = next(
            line for line in (result.content or "").splitlines() if line.startswith("Price")
        )
        return result.title, price
    finally:
        page.close()


def main() -> None:
    with serve_pages() as base, sync.launch() as browser:
        urls = [f"{base}/catalog/item-{n}.html" for n in range(1, 7)]
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=3) as threads:
            results = list(threads.map(lambda url: scrape_item(browser, url), urls))
        for title, price in results:
            print(f"{title:<10} {price}")
        print(f"Scraped {len(results)} pages with 3 threads in {time.monotonic() - started:.1f} s")

        page = browser.new_page(urls[0])
        answer = page.send(cdp.runtime.evaluate("document.title", return_by_value=True))
        print(f"Typed send: {type(answer).__name__} {answer.result.value!r}")
        try:
            sync.tools.click(page, selector="#no-such-button", timeout=0.5)
        except cdpkit.ElementNotFoundError as error:  # the async API's own error class
            print(f"{type(error).__name__}: {str(error).splitlines()[0]}")


if __name__ == "__main__":
    main()
