"""Main-content quality of ``cdpkit.browse``'s extraction against trafilatura, and its speed.

Reads the saved pages of ``../shared/corpus/readability-dev/*/`` (``source.html`` and the
main content Mozilla Readability found, ``expected.html``; never copied into the repo) and
prints, for ``extract_html(readability=True)`` and plain ``trafilatura.extract``:
word-level F1 against ``expected.html`` (mean and median), the median tokens (chars / 4) of
the output, and extraction times. Run: ``python -m benchmarks.quality [--corpus DIR] [--json]``.

Words are lower-cased ``\\w+`` runs; F1 is over word multisets (bag of words), so markdown
syntax is not counted for or against either side.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from cdpkit._browse._extract import extract_html
from cdpkit._browse._result import BrowseOptions

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "readability-dev"
_WORD = re.compile(r"\w+")
# The corpus's pages were saved from this origin (Readability's test harness).
PAGE_URL = "http://fakehost/test/page.html"


def words(text: str) -> Counter[str]:
    """The bag of lower-cased words of ``text``."""
    return Counter(_WORD.findall(text.lower()))


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
    return root.text(separator=" ") if root is not None else ""


def pages(corpus: Path) -> list[Path]:
    return sorted(
        p
        for p in corpus.iterdir()
        if (p / "source.html").is_file() and (p / "expected.html").is_file()
    )


def measure(corpus: Path) -> dict[str, object]:
    import trafilatura

    rows = []
    options = BrowseOptions(readability=True, format="text")
    markdown_options = BrowseOptions(readability=True)  # links inline: their URLs count as words
    plain_options = BrowseOptions()
    for page in pages(corpus):
        source = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        expected = words(
            html_text((page / "expected.html").read_text(encoding="utf-8", errors="replace"))
        )
        started = time.perf_counter()
        ours = extract_html(source, PAGE_URL, options)
        ours_ms = (time.perf_counter() - started) * 1000
        markdown = extract_html(source, PAGE_URL, markdown_options)
        started = time.perf_counter()
        whole = extract_html(source, PAGE_URL, plain_options)
        whole_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        theirs = trafilatura.extract(source, url=PAGE_URL) or ""
        theirs_ms = (time.perf_counter() - started) * 1000
        rows.append(
            {
                "page": page.name,
                "f1": f1(words(ours.content), expected),
                "f1_markdown": f1(words(markdown.content), expected),
                "f1_trafilatura": f1(words(theirs), expected),
                "tokens": -(-len(ours.content) // 4),
                "tokens_markdown": -(-len(markdown.content) // 4),
                "tokens_whole_page": -(-len(whole.content) // 4),
                "ms": ours_ms,
                "ms_without_readability": whole_ms,
                "ms_trafilatura": theirs_ms,
                "html_kb": len(source) / 1024,
            }
        )
    summary: dict[str, object] = {"pages": len(rows)}
    for key in ("f1", "f1_markdown", "f1_trafilatura"):
        values = [float(r[key]) for r in rows]  # type: ignore[arg-type]
        summary[f"{key}_mean"] = statistics.fmean(values)
        summary[f"{key}_median"] = statistics.median(values)
    for key in (
        "tokens",
        "tokens_markdown",
        "tokens_whole_page",
        "ms",
        "ms_without_readability",
        "ms_trafilatura",
    ):
        summary[f"{key}_median"] = statistics.median(float(r[key]) for r in rows)  # type: ignore[arg-type]
    # Speed on pages the size of the benchmark's article (150-300 KB of HTML).
    sized = [r for r in rows if 150 <= float(r["html_kb"]) <= 300]  # type: ignore[arg-type]
    summary["pages_150_300_kb"] = len(sized)
    if sized:
        for key in ("ms", "ms_without_readability"):
            summary[f"{key}_150_300_kb_median"] = statistics.median(float(r[key]) for r in sized)  # type: ignore[arg-type]
    return {"summary": summary, "pages": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true", help="print every page's figures as JSON")
    parser.add_argument("--pages", action="store_true", help="print one line per page")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (pass --corpus DIR)", file=sys.stderr)
        return 2
    result = measure(args.corpus)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s = result["summary"]
    assert isinstance(s, dict)
    if args.pages:
        for row in result["pages"]:  # type: ignore[attr-defined]
            print(
                f"{row['page']:45} ours {row['f1']:.3f}  trafilatura {row['f1_trafilatura']:.3f}  {row['tokens']:6} tok"
            )
    print(f"pages: {s['pages']}")
    print("| extractor | F1 mean | F1 median |")
    print("|---|---|---|")
    print(
        f"| cdpkit extract_html(readability=True, format='text') | {s['f1_mean']:.3f} | {s['f1_median']:.3f} |"
    )
    print(
        f"| cdpkit extract_html(readability=True), markdown with inline link URLs"
        f" | {s['f1_markdown_mean']:.3f} | {s['f1_markdown_median']:.3f} |"
    )
    print(
        f"| trafilatura.extract (defaults) | {s['f1_trafilatura_mean']:.3f} | {s['f1_trafilatura_median']:.3f} |"
    )
    print(
        f"median tokens (chars/4): readability text {s['tokens_median']:.0f},"
        f" readability markdown {s['tokens_markdown_median']:.0f},"
        f" whole page markdown {s['tokens_whole_page_median']:.0f}"
    )

    print(
        f"median ms: readability {s['ms_median']:.1f}, without readability {s['ms_without_readability_median']:.1f},"
        f" trafilatura alone {s['ms_trafilatura_median']:.1f}"
    )
    if s.get("pages_150_300_kb"):
        print(
            f"median ms on the {s['pages_150_300_kb']} pages of 150-300 KB: without readability"
            f" {s['ms_without_readability_150_300_kb_median']:.1f}, with readability {s['ms_150_300_kb_median']:.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
