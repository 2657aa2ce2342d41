"""The pages the benchmark loads, generated deterministically from :class:`~benchmarks.common.Sizes`."""

from __future__ import annotations

import random
from collections.abc import Iterator

from benchmarks.common import Sizes

_WORDS = ["protocol", "chromium", "session", "target", "frame", "network", "runtime", "page",
          "event", "command", "browser", "devtools", "python", "async", "socket", "message",
          "result", "stream", "render", "layout"]


def _html(title: str, body: str, head: str = "") -> bytes:
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
            f"{head}</head><body>{body}</body></html>").encode()


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def article(size: int) -> bytes:
    """A long article of about ``size`` bytes: headings, paragraphs, links and a table."""
    rng = random.Random(1)
    parts = ["<article><h1>Benchmark article</h1>"]
    length, section = 0, 0
    while length < size:
        section += 1
        block = [f"<h2>Section {section}</h2>"]
        for n in range(4):
            text = " ".join(_sentence(rng, rng.randint(8, 20)) for _ in range(5))
            block.append(f'<p>{text} <a href="/article?ref={section}-{n}">read more</a></p>')
        if section % 5 == 0:
            rows = "".join(f"<tr><td>{r}</td><td>{rng.choice(_WORDS)}</td><td>{rng.random():.4f}</td></tr>"
                           for r in range(10))
            block.append(f"<table><tr><th>#</th><th>word</th><th>value</th></tr>{rows}</table>")
        chunk = "".join(block)
        parts.append(chunk)
        length += len(chunk)
    parts.append("</article>")
    return _html("Article", "".join(parts))


def tall(height_px: int) -> bytes:
    """A page ``height_px`` CSS pixels tall: coloured 1,000 px bands full of text."""
    rng = random.Random(3)
    bands = []
    for i in range(-(-height_px // 1000)):
        height = min(1000, height_px - i * 1000)
        text = "".join(f"<p>{_sentence(rng, 14)}</p>" for _ in range(height // 25))
        bands.append(f'<section style="height:{height}px;overflow:hidden;'
                     f'background:hsl({(i * 37) % 360},60%,85%)">{text}</section>')
    return _html("Tall", "".join(bands), "<style>body{margin:0}p{margin:0;height:25px}</style>")


def elements(count: int) -> bytes:
    """``count`` elements for an accessibility snapshot: buttons, links, inputs, items, headings."""
    makers = (
        lambda i: f"<button>Button {i}</button>",
        lambda i: f'<a href="#item{i}">Link {i}</a>',
        lambda i: f'<input aria-label="Field {i}" value="{i}">',
        lambda i: f"<ul><li>Item {i}</li></ul>",
        lambda i: f"<h3>Heading {i}</h3>",
    )
    body = "".join(makers[i % len(makers)](i) for i in range(count))
    return _html("Elements", f"<main>{body}</main>")


CONSOLE = _html("Console", "<p>console flood</p>", "<script>function flood(n) {"
                "for (let i = 0; i < n; i++) console.log('message', i); return n;}</script>")

BLANK = _html("Blank", "<p>blank</p>")

# The recording case's form (posted to /submit, which answers THANKS).
FORM = _html("Sign up", """<form method="post" action="/submit">
<p><label for="n">Full name</label> <input id="n" name="fullname"></p>
<p><label for="m">Email</label> <input id="m" name="email" type="email"></p>
<p><label for="c">Country</label> <select id="c" name="country">
<option value="fr">France</option><option value="de">Germany</option></select></p>
<p><label><input type="checkbox" id="s" name="newsletter" value="yes"> Subscribe</label></p>
<button type="submit" id="go">Send</button></form>""")
THANKS = _html("Thanks", "<h1>Thanks</h1>")

_BLOCK = random.Random(2).randbytes(2**20)


def file_chunks(size: int) -> Iterator[bytes]:
    """The big file, ``size`` bytes, one MiB at a time: never held in memory whole."""
    for start in range(0, size, len(_BLOCK)):
        yield _BLOCK[: min(len(_BLOCK), size - start)]


def all_pages(sizes: Sizes) -> dict[str, bytes]:
    return {
        "/blank": BLANK,
        "/article": article(sizes.article_bytes),
        "/tall": tall(sizes.tall_px),
        "/elements": elements(sizes.elements),
        "/console": CONSOLE,
        "/form": FORM,
    }


# -- the media pipeline's pages (benchmarks/cases/media.py), made on first request --------------

MEDIA_IMAGES = 8  # images on /media-page: as many as browse downloads from one page
MEDIA_VIDEOS = 2  # videos on /media-videos


def media_page() -> bytes:
    """A page of :data:`MEDIA_IMAGES` distinct photos (``/media/photo<i>.png``)."""
    images = "".join(f"<img src='/media/photo{i}.png' alt='photo {i}'>" for i in range(MEDIA_IMAGES))
    return _html("Media", f"<h1>Photos</h1><p>{_sentence(random.Random(2), 30)}</p>{images}")


def media_videos_page() -> bytes:
    """A page of :data:`MEDIA_VIDEOS` distinct clips (``/media/clip<i>.mp4``)."""
    videos = "".join(f"<video src='/media/clip{i}.mp4' title='clip {i}'></video>" for i in range(MEDIA_VIDEOS))
    return _html("Clips", f"<h1>Clips</h1><p>{_sentence(random.Random(3), 30)}</p>{videos}")


def photo(index: int) -> bytes:
    """A 1600x1200 PNG like a photo (a gradient under noise), different for each ``index``."""
    import io

    from PIL import Image

    base = Image.linear_gradient("L").resize((1600, 1200)).rotate(index * 40, expand=False)
    noise = Image.effect_noise((1600, 1200), 40 + index)
    image = Image.merge("RGB", (base, noise, Image.blend(base, noise, 0.5)))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)  # made once per run, on the first request
    return out.getvalue()


def clip(index: int) -> bytes:
    """A 4-second 640x360 H.264 clip of ffmpeg's test source, different for each ``index``."""
    import subprocess
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y", "-f", "lavfi",
             "-i", f"testsrc2=duration=4:size=640x360:rate=25,hue=h={index * 90}",
             "-pix_fmt", "yuv420p", str(path)],
            check=True, timeout=120)
        return path.read_bytes()
