"""Persistent login profile: sign in once on a named profile, and a later browser on the
same profile starts signed in. For a real site, do the first step by hand with
`cdpkit open-browser --profile NAME https://site/login` (log in, close the window),
then `cdpkit.launch(profile="NAME")` in your scripts. Profiles live in $CDPKIT_PROFILES
or the platform's data dir (e.g. ~/.local/share/cdpkit/profiles)."""

import asyncio

from _pages import serve_pages

import cdpkit
from cdpkit import tools

PROFILE = "cdpkit-example-login"


async def status(page: cdpkit.Page) -> str:
    return await tools.visible_text(page, selector="#status")


async def main() -> None:
    with serve_pages() as base:
        # First browser: sign in (the site keeps a session cookie in the profile).
        async with cdpkit.launch(profile=PROFILE) as browser:
            assert browser.process is not None
            print(f"Profile {PROFILE!r} in {browser.process.user_data_dir}")
            page = await browser.new_page(f"{base}/account.html")
            if (await status(page)).startswith("Signed in"):  # left over from an earlier run
                await tools.click(page, selector="#logout")
                await tools.wait_for(page, text="Not signed in")
            print(f"Before signing in: {await status(page)}")
            await tools.navigate(page, f"{base}/login.html")
            await tools.type_text(page, "ada", selector="#user")
            await tools.type_text(page, "correct horse", selector="#password", submit=True)
            await tools.wait_for(page, text="Signed in as")
            print(f"After signing in:  {await status(page)}")
            await page.close()  # closing the tab flushes the cookie store to the profile

        # A new browser on the same profile: still signed in.
        async with cdpkit.launch(profile=PROFILE) as browser:
            page = await browser.new_page(f"{base}/account.html")
            print(f"After a restart:   {await status(page)}")


if __name__ == "__main__":
    asyncio.run(main())
