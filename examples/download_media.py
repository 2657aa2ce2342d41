"""Download the media of a page: find its images, audio and linked files, and save each
one the way the page itself would fetch it (its cookies and Referer apply), streamed to
disk. Files go to ./downloads (or the directory given as the first argument)."""

import asyncio
import sys
from pathlib import Path

from _pages import serve_pages

import cdpkit
from cdpkit import tools

# Every media URL of the page: images, audio and video sources, and links to files.
MEDIA_JS = """[...new Set([
  ...[...document.images].map((img) => img.currentSrc || img.src),
  ...[...document.querySelectorAll('audio, video')].map((el) => el.currentSrc || el.querySelector('source')?.src),
])].filter(Boolean)"""


async def main(dest: Path) -> None:
    with serve_pages() as base:
        async with cdpkit.launch() as browser:
            page = await browser.new_page(f"{base}/gallery.html")

            for url in await tools.evaluate(page, MEDIA_JS):
                saved = await tools.download(page, url=url, dest_dir=dest)
                print(f"{url.removeprefix(base)} -> {saved.filename} ({saved.size} bytes, {saved.mime_type})")

            # Or point at an element: here the link to the notes, saved under a chosen name.
            notes = await tools.download(page, selector="#notes", dest_dir=dest, filename="notes.txt")
            print(f"#notes -> {notes.filename} ({notes.size} bytes, {notes.mime_type})")
            print(f"Saved in {dest}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "downloads"))
