"""Draws the extension's toolbar icons (``cdpkit/_bridge/extension/icons/{16,48,128}.png``)
with Pillow: a rounded square with a bridge arch. Run again after changing the drawing.

    python scripts/draw_extension_icons.py
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

FOLDER = Path(__file__).resolve().parent.parent / "cdpkit" / "_bridge" / "extension" / "icons"
SIZES = (16, 48, 128)
BACKGROUND = (26, 115, 232, 255)
FOREGROUND = (255, 255, 255, 255)


def draw(size: int) -> Image.Image:
    # Drawn at 8x and scaled down: smooth edges at every size.
    scale = 8
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 5, fill=BACKGROUND)
    line = max(big // 10, scale)
    # The deck, an arch over it from bank to bank, and hangers from the arch to the deck.
    deck, top, left, right = big * 0.66, big * 0.26, big * 0.14, big * 0.86
    pen.rectangle((big * 0.08, deck - line / 2, big * 0.92, deck + line / 2), fill=FOREGROUND)
    pen.arc((left, top, right, 2 * deck - top), start=180, end=360, fill=FOREGROUND, width=line)
    middle, half_width, height = big / 2, (right - left) / 2, deck - top
    for x in (0.32, 0.5, 0.68):
        under_arch = deck - height * math.sqrt(max(0.0, 1 - ((big * x - middle) / half_width) ** 2))
        pen.rectangle((big * x - line / 4, under_arch, big * x + line / 4, deck), fill=FOREGROUND)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        draw(size).save(FOLDER / f"{size}.png", optimize=True)
        print(FOLDER / f"{size}.png")


if __name__ == "__main__":
    main()
