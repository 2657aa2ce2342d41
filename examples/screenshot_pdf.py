"""Full-page screenshot and PDF: capture a page taller than the viewport in one image,
a viewport-only JPEG for comparison, and print the page to PDF. Files are written to the
current directory (or the one given as the first argument)."""

import asyncio
import struct
import sys
from pathlib import Path

import cdpkit
from cdpkit import tools

PAGE = (Path(__file__).parent / "pages" / "report.html").resolve().as_uri()


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def main(out: Path) -> None:
    async with cdpkit.launch() as browser:
        page = await browser.new_page(PAGE)

        full = await tools.screenshot(page, full_page=True)
        (out / "report-full.png").write_bytes(full)
        print(f"report-full.png: {len(full)} bytes, %dx%d px (the whole page)" % png_size(full))

        viewport = await tools.screenshot(page, format="jpeg", quality=80)
        (out / "report-viewport.jpeg").write_bytes(viewport)
        print(f"report-viewport.jpeg: {len(viewport)} bytes (the viewport only)")

        document = await tools.pdf(page)
        (out / "report.pdf").write_bytes(document)
        print(f"report.pdf: {len(document)} bytes, starts with {document[:5].decode()}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
