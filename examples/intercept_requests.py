"""Intercept and modify requests with the Fetch domain: block a tracker script, answer
the page's API call with our own JSON, and add a header to every other request, then
show what the page displays with and without interception."""

import asyncio
import base64
import json

from _pages import serve_pages

import cdpkit
from cdpkit import cdp, tools


async def handle(page: cdpkit.Page, paused: cdp.fetch.RequestPaused) -> None:
    """Decide what happens to one paused request."""
    url = paused.request.url
    if url.endswith("/tracker.js"):
        await page.send(cdp.fetch.fail_request(paused.request_id, "BlockedByClient"))
        print(f"  blocked   {url}")
    elif url.endswith("/headlines.json"):
        body = json.dumps({"headlines": ["cdpkit intercepts requests", "Nothing else happened"]})
        await page.send(
            cdp.fetch.fulfill_request(
                paused.request_id,
                200,
                response_headers=[cdp.fetch.HeaderEntry(name="Content-Type", value="application/json")],
                body=base64.b64encode(body.encode()).decode(),  # Fetch takes bodies in base64
            )
        )
        print(f"  answered  {url}")
    else:
        headers = [cdp.fetch.HeaderEntry(name=k, value=v) for k, v in paused.request.headers.items()]
        headers.append(cdp.fetch.HeaderEntry(name="X-Demo", value="cdpkit"))
        await page.send(cdp.fetch.continue_request(paused.request_id, headers=headers))
        print(f"  continued {url} (+ X-Demo header)")


async def show(page: cdpkit.Page, url: str, label: str) -> None:
    await tools.navigate(page, url)
    await tools.wait_for(page, selector="#headlines li")
    print(f"{label}:")
    print("  " + (await tools.visible_text(page)).replace("\n", "\n  "))


async def main() -> None:
    with serve_pages() as base:
        async with cdpkit.launch() as browser:
            page = await browser.new_page()
            await show(page, f"{base}/news.html", "Without interception")

            print("Intercepting:")
            async with page.listen(cdp.fetch.RequestPaused) as paused_requests:
                # Pause every request of the page before it is sent.
                await page.send(cdp.fetch.enable(patterns=[cdp.fetch.RequestPattern(url_pattern="*")]))

                async def answer_all() -> None:
                    async for paused in paused_requests:
                        await handle(page, paused)

                handler = asyncio.create_task(answer_all())
                try:
                    await show(page, f"{base}/news.html", "With interception")
                finally:
                    handler.cancel()
                    await page.send(cdp.fetch.disable())


if __name__ == "__main__":
    asyncio.run(main())
