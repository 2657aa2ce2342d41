"""Main-content quality of ``cdpkit.browse``'s extraction against trafilatura and
readability-lxml, on two halves of a saved corpus: one to tune on, one held out.

Reads the saved pages of ``../shared/corpus/readability-dev/*/`` (``source.html`` and the
main content Mozilla Readability found, ``expected.html``; never copied into the repo) and
prints, per half, for each extractor: word-level F1 against ``expected.html`` (mean and
median) and the median ratio of its output's tokens to the expected article's (tokens are
characters / 4). Run: ``python -m benchmarks.quality [--corpus DIR] [--json] [--pages]
[--scrape]``.

The split (:func:`half`): a page belongs to the ``tune`` half when the first byte of the
SHA-256 of its folder name is even, to the ``held-out`` half otherwise. Rules of the
extraction are tuned on the ``tune`` half only; the ``held-out`` half says how they do on
pages nobody looked at.

Extractors: cdpkit ``readability=True`` and the default (whole page without its chrome),
both as markdown, which is what ``browse`` and ``tools.scrape`` return (inline link URLs
count as words against them); ``trafilatura.extract`` with its defaults (text);
``readability-lxml``'s ``Document.summary()`` through markdownify (the ``bench`` extra).
``--scrape`` adds ``tools.scrape(page, url)`` itself: each page served on 127.0.0.1 and
scraped in a headless Chrome (the live DOM, after its scripts ran).

Words are lower-cased ``\\w+`` runs; F1 is over word multisets (bag of words), so markdown
syntax is not counted for or against either side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from cdpkit._browse._extract import extract_html
from cdpkit._browse._result import BrowseOptions

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "readability-dev"
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
_LINK_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
# The corpus's pages were saved from this origin (Readability's test harness).
PAGE_URL = "http://fakehost/test/page.html"
HALVES = ("tune", "held-out")


def half(name: str) -> str:
    """The half a page of the corpus belongs to, from its folder ``name`` alone."""
    return "tune" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def words(text: str) -> Counter[str]:
    """The bag of lower-cased words of ``text``; the URL of a markdown link or image is
    markdown syntax, not words (``[text](url)`` counts as ``text``)."""
    return Counter(_WORD.findall(_LINK_TARGET.sub("]", text).lower()))


def f1(found: Counter[str], expected: Counter[str]) -> float:
    """Word-level F1 of ``found`` against ``expected`` (1.0 when both are empty)."""
    if not found and not expected:
        return 1.0
    common = sum((found & expected).values())
    if not common:
        return 0.0
    precision = common / sum(found.values())
    recall = common / sum(expected.values())
    return 2 * precision * recall / (precision + recall)


def html_text(html: str) -> str:
    tree = LexborHTMLParser(html)
    tree.strip_tags(["script", "style", "template", "noscript"])
    root = tree.body or tree.root
    return _SPACES.sub(" ", root.text(separator=" ")).strip() if root is not None else ""


def pages(corpus: Path) -> list[Path]:
    return sorted(
        p
        for p in corpus.iterdir()
        if (p / "source.html").is_file() and (p / "expected.html").is_file()
    )


def _cdpkit(options: BrowseOptions) -> Callable[[str], str]:
    return lambda html: extract_html(html, PAGE_URL, options).content


def _trafilatura(html: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=PAGE_URL) or ""


def _readability_lxml(html: str) -> str:
    from markdownify import markdownify
    from readability import Document

    return markdownify(Document(html, url=PAGE_URL).summary(html_partial=True), heading_style="ATX")


# Column key -> (label, extractor of a page's HTML).
EXTRACTORS: dict[str, tuple[str, Callable[[str], str]]] = {
    "readability": ("cdpkit browse(readability=True), markdown", _cdpkit(BrowseOptions(readability=True))),
    "default": ("cdpkit browse() default, markdown", _cdpkit(BrowseOptions())),
    "trafilatura": ("trafilatura.extract (defaults)", _trafilatura),
    "readability_lxml": ("readability-lxml + markdownify", _readability_lxml),
}
SCRAPE_LABEL = "cdpkit tools.scrape(page, url), live DOM in Chrome"


def _scraped(corpus: Path, names: list[str]) -> dict[str, str]:
    """Each page's ``tools.scrape`` markdown, served from ``corpus`` to a headless Chrome."""
    import asyncio

    import cdpkit
    from benchmarks.cases.snapshot_peers import serve
    from cdpkit import tools

    async def run(origin: str) -> dict[str, str]:
        found: dict[str, str] = {}
        async with cdpkit.launch() as browser:
            page = await browser.new_page()
            for name in names:
                result = await tools.scrape(page, f"{origin}/{name}/source.html")
                found[name] = result.content or ""
        return found

    with serve(corpus) as origin:
        return asyncio.run(run(origin))


def measure(corpus: Path, *, scrape: bool = False) -> dict[str, object]:
    """Every page's figures and, per half and over all pages, their summary."""
    listed = pages(corpus)
    scraped = _scraped(corpus, [p.name for p in listed]) if scrape else {}
    extractors = dict(EXTRACTORS)
    rows = []
    for page in listed:
        source = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        expected_text = html_text((page / "expected.html").read_text(encoding="utf-8", errors="replace"))
        expected = words(expected_text)
        expected_tokens = max(1, -(-len(expected_text) // 4))
        row: dict[str, object] = {"page": page.name, "half": half(page.name)}
        outputs = {key: (extract, None) for key, (_, extract) in extractors.items()}
        for key, (extract, _) in outputs.items():
            started = time.perf_counter()
            output = extract(source)
            row[f"ms_{key}"] = (time.perf_counter() - started) * 1000
            row[f"f1_{key}"] = f1(words(output), expected)
            row[f"tokens_{key}"] = -(-len(output) // 4) / expected_tokens
        if scrape:
            output = scraped[page.name]
            row["f1_scrape"] = f1(words(output), expected)
            row["tokens_scrape"] = -(-len(output) // 4) / expected_tokens
        rows.append(row)
    keys = [*extractors, *(["scrape"] if scrape else [])]
    summary: dict[str, object] = {"pages": len(rows)}
    for group in ("all", *HALVES):
        chosen = [r for r in rows if group == "all" or r["half"] == group]
        figures: dict[str, float] = {"pages": len(chosen)}
        for key in keys:
            values = [float(r[f"f1_{key}"]) for r in chosen]  # type: ignore[arg-type]
            ratios = [float(r[f"tokens_{key}"]) for r in chosen]  # type: ignore[arg-type]
            figures[f"f1_{key}_mean"] = statistics.fmean(values) if values else 0.0
            figures[f"f1_{key}_median"] = statistics.median(values) if values else 0.0
            figures[f"tokens_{key}_median"] = statistics.median(ratios) if ratios else 0.0
        summary[group] = figures
    # The figures the benchmark harness reads (benchmarks/cases/browse.py): held-out pages.
    held_out = summary["held-out"]
    assert isinstance(held_out, dict)
    for ours, key in (("f1", "readability"), ("f1_trafilatura", "trafilatura")):
        summary[f"{ours}_mean"] = held_out[f"f1_{key}_mean"]
        summary[f"{ours}_median"] = held_out[f"f1_{key}_median"]
    return {"summary": summary, "pages": rows, "labels": {k: v[0] for k, v in extractors.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true", help="print every page's figures as JSON")
    parser.add_argument("--pages", action="store_true", help="print one line per page")
    parser.add_argument("--scrape", action="store_true", help="also scrape each page in Chrome")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (pass --corpus DIR)", file=sys.stderr)
        return 2
    result = measure(args.corpus, scrape=args.scrape)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    summary = result["summary"]
    assert isinstance(summary, dict)
    labels = {key: label for key, (label, _) in EXTRACTORS.items()}
    if args.scrape:
        labels["scrape"] = SCRAPE_LABEL
    if args.pages:
        for row in result["pages"]:  # type: ignore[attr-defined]
            figures = "  ".join(f"{key} {row[f'f1_{key}']:.3f}" for key in labels)
            print(f"{row['page']:45} {row['half']:8} {figures}")
    print(f"pages: {summary['pages']}")
    for group in (*HALVES, "all"):
        figures = summary[group]
        print(f"\n{group} half: {figures['pages']} pages" if group != "all" else f"\nall: {figures['pages']} pages")
        print("| extractor | F1 mean | F1 median | median tokens / article's |")
        print("|---|---|---|---|")
        for key, label in labels.items():
            print(
                f"| {label} | {figures[f'f1_{key}_mean']:.3f} | {figures[f'f1_{key}_median']:.3f}"
                f" | {figures[f'tokens_{key}_median']:.2f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
