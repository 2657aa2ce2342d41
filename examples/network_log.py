"""Raw typed CDP and a live network log: send protocol commands through the generated
bindings (typed arguments and results), and print the page's requests and responses as
the Network events arrive, including the body of the JSON the page fetches."""

import asyncio

from _pages import serve_pages

import cdpkit
from cdpkit import cdp, tools


async def main() -> None:
    with serve_pages() as base:
        async with cdpkit.launch() as browser:
            page = await browser.new_page()
            await page.send(cdp.network.enable())  # typed command, no result

            urls: dict[str, str] = {}
            # Subscribe before acting, so no event is missed; iterate as they arrive.
            async with page.listen(
                cdp.network.RequestWillBeSent,
                cdp.network.ResponseReceived,
                cdp.network.LoadingFinished,
            ) as events:
                navigation = await page.send(cdp.page.navigate(f"{base}/network.html"))
                print(f"Navigating frame {navigation.frame_id}")  # a typed NavigateResult
                async with asyncio.timeout(10):
                    async for event in events:
                        if isinstance(event, cdp.network.RequestWillBeSent):
                            urls[event.request_id] = event.request.url
                            print(f"-> {event.request.method} {event.request.url.removeprefix(base)} ({event.type})")
                        elif isinstance(event, cdp.network.ResponseReceived):
                            response = event.response
                            print(f"<- {response.status} {response.url.removeprefix(base)} {response.mime_type}")
                        elif isinstance(event, cdp.network.LoadingFinished):
                            url = urls.get(event.request_id, "")
                            if url.endswith("products.json"):
                                body = await page.send(cdp.network.get_response_body(event.request_id))
                                print(f"Body of {url.removeprefix(base)}: {body.body.strip()}")
                                break

            await tools.wait_for(page, text="Mug")  # the page renders the list it fetched
            result = await page.send(
                cdp.runtime.evaluate("document.querySelector('#products').innerText", return_by_value=True)
            )
            print("The page shows:")
            print(result.result.value)


if __name__ == "__main__":
    asyncio.run(main())
