"""Main-content quality of ``cdpkit.browse``'s extraction against trafilatura and
readability-lxml, on the same pages, scored one way (:func:`score`), in one run.

Sets of saved pages, each page's article text known:

- ``readability-dev``: ``../shared/corpus/readability-dev/*/`` (``source.html`` and the
  main content Mozilla Readability found, ``expected.html``; never copied into the repo),
  split in two halves (:func:`half`): ``tune`` and ``held-out``;
- ``aeb``: 120 pages of Zyte's article-extraction-benchmark with hand-written article
  bodies, in ``benchmarks/data/article-extraction-benchmark/`` (MIT; see its README):
  tuned on in round 2 of issue #45 (its scores were seen in round 1), so no longer held out;
- ``trafilatura-eval``: 120 pages of trafilatura's evaluation set (Apache-2.0), each with
  snippets of its article that must appear and of its boilerplate that must not, in
  ``benchmarks/data/trafilatura-eval/`` (see its README): held out, scored by
  :func:`snippet_score` (it has snippets, not whole articles).

Per set and extractor it prints precision, recall and F1 (means over pages), the median
tokens of the output (characters / 4) and its median ratio to the article's, the mean
milliseconds a page, and the ten worst pages of cdpkit's main content with why (``--worst``:
it quotes words of the pages, so leave it off while writing rules). Run:
``python -m benchmarks.quality [--corpus DIR] [--aeb DIR] [--json] [--pages] [--worst]
[--scrape]``.

The split (:func:`half`): a page belongs to the ``tune`` half when the first byte of the
SHA-256 of its folder name is even, to the ``held-out`` half otherwise. Rules of the
extraction are tuned on the ``tune`` half only; the other sets say how they do on pages
nobody looked at.

Extractors: cdpkit ``readability=True`` as markdown and as text, and the default (whole
page without its chrome) as markdown, which is what ``browse`` and ``tools.scrape`` return;
``trafilatura.extract`` with its defaults (text); ``readability-lxml``'s
``Document.summary()`` through markdownify (the ``bench`` extra). ``--scrape`` adds
``tools.scrape(page, url)`` itself on ``readability-dev``: each page served on 127.0.0.1
and scraped in a headless Chrome (the live DOM, after its scripts ran).

Words are lower-cased ``\\w+`` runs; scores are over word multisets (bag of words), and
the URL of a markdown link or image is syntax, not words, so markdown is not counted for or
against either side.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from cdpkit._extraction import BrowseOptions, extract_html

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "readability-dev"
AEB = Path(__file__).resolve().parent / "data" / "article-extraction-benchmark"
TRAFILATURA_EVAL = Path(__file__).resolve().parent / "data" / "trafilatura-eval"
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


def score(found: Counter[str], expected: Counter[str]) -> tuple[float, float, float]:
    """Word-level ``(precision, recall, F1)`` of ``found`` against ``expected``: the one
    scoring of every extractor and set (all 1.0 when both are empty)."""
    if not found and not expected:
        return 1.0, 1.0, 1.0
    common = sum((found & expected).values())
    if not common:
        return 0.0, 0.0, 0.0
    precision = common / sum(found.values())
    recall = common / sum(expected.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def _phrase(text: str) -> str:
    return " ".join(_WORD.findall(_LINK_TARGET.sub("]", text).lower()))


def snippet_score(
    output: str, must: tuple[str, ...], must_not: tuple[str, ...]
) -> tuple[float, float, float]:
    """``(precision, recall, F1)`` of ``output`` on a page known by snippets: a snippet of
    the article found is a true positive, one missed a false negative, a snippet of its
    boilerplate found a false positive (trafilatura's evaluation, per page). A snippet is
    found when its words appear in that order in the output's words (case, punctuation and
    markdown syntax left out, as in :func:`words`); its first and last word may be cut, as
    some of the set's snippets begin or end inside a word."""
    text = _phrase(output)
    kept = sum(1 for s in must if _phrase(s) in text)
    wrong = sum(1 for s in must_not if _phrase(s) and _phrase(s) in text)
    precision = kept / (kept + wrong) if kept + wrong else (1.0 if not must else 0.0)
    recall = kept / len(must) if must else 1.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f


def f1(found: Counter[str], expected: Counter[str]) -> float:
    """Word-level F1 of ``found`` against ``expected`` (1.0 when both are empty)."""
    return score(found, expected)[2]


def html_text(html: str) -> str:
    tree = LexborHTMLParser(html)
    tree.strip_tags(["script", "style", "template", "noscript"])
    root = tree.body or tree.root
    return _SPACES.sub(" ", root.text(separator=" ")).strip() if root is not None else ""


@dataclass(frozen=True)
class Page:
    """A saved page: its name, the group it is reported in, its HTML and its article."""

    name: str
    group: str
    html: str
    expected: str
    # Pages known by snippets (trafilatura-eval) instead of a whole article.
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()


def pages(corpus: Path) -> list[Path]:
    return sorted(
        p
        for p in corpus.iterdir()
        if (p / "source.html").is_file() and (p / "expected.html").is_file()
    )


def readability_pages(corpus: Path) -> Iterator[Page]:
    """The pages of ``readability-dev``, each in its half."""
    for page in pages(corpus):
        source = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        expected = (page / "expected.html").read_text(encoding="utf-8", errors="replace")
        yield Page(page.name, half(page.name), source, html_text(expected))


def aeb_pages(folder: Path) -> Iterator[Page]:
    """The pages of the article-extraction-benchmark subset (group ``aeb``)."""
    with gzip.open(folder / "ground-truth.json.gz", "rt", encoding="utf-8") as file:
        truth = json.load(file)
    for name in sorted(truth):
        path = folder / "html" / f"{name}.html.gz"
        if path.is_file():
            html = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            yield Page(name, "aeb", html, truth[name]["articleBody"])


def trafilatura_eval_pages(folder: Path) -> Iterator[Page]:
    """The pages of the trafilatura-eval subset (group ``trafilatura-eval``)."""
    truth = json.loads((folder / "evaldata.json").read_text(encoding="utf-8"))
    for name in sorted(truth):
        path = folder / "html" / f"{name}.html.gz"
        if path.is_file():
            html = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            entry = truth[name]
            must, must_not = tuple(entry["with"]), tuple(entry["without"])
            yield Page(name, "trafilatura-eval", html, "", must, must_not)


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
    "readability": (
        "cdpkit browse(readability=True), markdown",
        _cdpkit(BrowseOptions(readability=True)),
    ),
    "readability_text": (
        "cdpkit browse(readability=True), text",
        _cdpkit(BrowseOptions(readability=True, format="text")),
    ),
    "default": ("cdpkit browse() default, markdown", _cdpkit(BrowseOptions())),
    "trafilatura": ("trafilatura.extract (defaults)", _trafilatura),
    "readability_lxml": ("readability-lxml + markdownify", _readability_lxml),
}
SCRAPE_LABEL = "cdpkit tools.scrape(page, url), live DOM in Chrome"
# The extractor whose worst pages are listed.
WORST_OF = "readability"


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


def _tokens(text: str) -> int:
    return -(-len(text) // 4)


def why(found: Counter[str], expected: Counter[str]) -> str:
    """Why a page scores low, in words: what was kept that the article lacks, or missed."""
    extra = found - expected
    missed = expected - found
    extra_words, missed_words = sum(extra.values()), sum(missed.values())
    if extra_words >= missed_words:
        sample = " ".join(word for word, _ in extra.most_common(8))
        return f"kept {extra_words} words not in the article (most: {sample})"
    sample = " ".join(word for word, _ in missed.most_common(8))
    return f"missed {missed_words} of the article's {sum(expected.values())} words (most: {sample})"


def _snippet_why(output: str, page: Page) -> str:
    text = _phrase(output)
    missed = [s for s in page.must if _phrase(s) not in text]
    kept = [s for s in page.must_not if _phrase(s) and _phrase(s) in text]
    return f"missed {missed!r}; kept boilerplate {kept!r}"


def _row(
    page: Page, keys: dict[str, Callable[[str], str]], extra: dict[str, str]
) -> dict[str, object]:
    expected = words(page.expected)
    expected_tokens = max(1, _tokens(page.expected))
    row: dict[str, object] = {"page": page.name, "half": page.group}
    outputs: dict[str, tuple[str, float]] = {}
    for key, extract in keys.items():
        started = time.perf_counter()
        output = extract(page.html)
        outputs[key] = (output, (time.perf_counter() - started) * 1000)
    for key, output in extra.items():
        outputs[key] = (output, 0.0)
    for key, (output, ms) in outputs.items():
        found = words(output)
        if page.must:
            precision, recall, f = snippet_score(output, page.must, page.must_not)
        else:
            precision, recall, f = score(found, expected)
            row[f"tokens_{key}"] = _tokens(output) / expected_tokens
        row[f"ms_{key}"] = ms
        row[f"precision_{key}"], row[f"recall_{key}"], row[f"f1_{key}"] = precision, recall, f
        row[f"output_tokens_{key}"] = _tokens(output)
        if key == WORST_OF:
            row["why"] = _snippet_why(output, page) if page.must else why(found, expected)
    return row


def _summary(rows: list[dict[str, object]], keys: list[str]) -> dict[str, float]:
    figures: dict[str, float] = {"pages": len(rows)}

    def column(name: str) -> list[float]:
        return [float(r[name]) for r in rows if name in r]  # type: ignore[arg-type]

    for key in keys:
        for measure_ in ("precision", "recall", "f1", "ms"):
            values = column(f"{measure_}_{key}")
            figures[f"{measure_}_{key}_mean"] = statistics.fmean(values) if values else 0.0
        f1s = column(f"f1_{key}")
        figures[f"f1_{key}_median"] = statistics.median(f1s) if f1s else 0.0
        ratios = column(f"tokens_{key}")
        figures[f"tokens_{key}_median"] = statistics.median(ratios) if ratios else 0.0
        counts = column(f"output_tokens_{key}")
        figures[f"output_tokens_{key}_median"] = statistics.median(counts) if counts else 0.0
    return figures


def measure_pages(
    listed: list[Page], groups: tuple[str, ...], *, scraped: dict[str, str] | None = None
) -> dict[str, object]:
    """Every page's figures, each group's summary, and its worst pages."""
    extractors = {key: extract for key, (_, extract) in EXTRACTORS.items()}
    rows = [
        _row(page, extractors, {"scrape": scraped[page.name]} if scraped else {}) for page in listed
    ]
    keys = [*extractors, *(["scrape"] if scraped else [])]
    summary: dict[str, object] = {"pages": len(rows)}
    worst: dict[str, list[dict[str, object]]] = {}
    for group in groups:
        # "all" is readability-dev's two halves; other sets are reported apart.
        chosen = [r for r in rows if r["half"] == group or (group == "all" and r["half"] in HALVES)]
        summary[group] = _summary(chosen, keys)
        ranked = sorted(chosen, key=lambda r: float(r[f"f1_{WORST_OF}"]))  # type: ignore[arg-type]
        worst[group] = [
            {
                "page": r["page"],
                "f1": r[f"f1_{WORST_OF}"],
                "precision": r[f"precision_{WORST_OF}"],
                "recall": r[f"recall_{WORST_OF}"],
                "why": r["why"],
            }
            for r in ranked[:10]
        ]
    return {"summary": summary, "pages": rows, "worst": worst}


def measure(
    corpus: Path,
    *,
    scrape: bool = False,
    aeb: Path | None = None,
    trafilatura_eval: Path | None = None,
) -> dict[str, object]:
    """Every page's figures and, per half of ``corpus`` (and over its pages, and for the
    ``aeb`` and ``trafilatura-eval`` sets when given), their summary."""
    listed = list(readability_pages(corpus))
    scraped = _scraped(corpus, [p.name for p in listed]) if scrape else None
    groups: tuple[str, ...] = ("all", *HALVES)
    # Scraped pages are served from the corpus folder alone: --scrape leaves the other sets out.
    if aeb is not None and scraped is None:
        listed += list(aeb_pages(aeb))
        groups += ("aeb",)
    if trafilatura_eval is not None and scraped is None:
        listed += list(trafilatura_eval_pages(trafilatura_eval))
        groups += ("trafilatura-eval",)
    result = measure_pages(listed, groups, scraped=scraped)
    summary = result["summary"]
    assert isinstance(summary, dict)
    summary["pages"] = sum(1 for p in listed if p.group in HALVES)
    # The figures the benchmark harness reads (benchmarks/cases/browse.py): held-out pages.
    held_out = summary["held-out"]
    assert isinstance(held_out, dict)
    for ours, key in (("f1", "readability"), ("f1_trafilatura", "trafilatura")):
        summary[f"{ours}_mean"] = held_out[f"f1_{key}_mean"]
        summary[f"{ours}_median"] = held_out[f"f1_{key}_median"]
    result["labels"] = {k: v[0] for k, v in EXTRACTORS.items()}
    return result


_GROUP_TITLES = {
    "tune": "readability-dev, tune half",
    "held-out": "readability-dev, held-out half",
    "all": "readability-dev, all",
    "aeb": "article-extraction-benchmark (tuned on in round 2)",
    "trafilatura-eval": "trafilatura-eval (held out; snippets must / must not appear)",
}


def _ratio(value: float) -> str:
    # A set known by snippets has no article's length to divide by.
    return f"{value:.2f}" if value else "—"


def _print_group(title: str, figures: dict[str, float], labels: dict[str, str]) -> None:
    print(f"\n{title}: {int(figures['pages'])} pages")
    print(
        "| extractor | precision | recall | F1 mean | F1 median | median tokens | median tokens / article's | ms / page |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for key, label in labels.items():
        print(
            f"| {label} | {figures[f'precision_{key}_mean']:.3f} | {figures[f'recall_{key}_mean']:.3f}"
            f" | {figures[f'f1_{key}_mean']:.3f} | {figures[f'f1_{key}_median']:.3f}"
            f" | {figures[f'output_tokens_{key}_median']:.0f} | {_ratio(figures[f'tokens_{key}_median'])}"
            f" | {figures[f'ms_{key}_mean']:.1f} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--aeb", type=Path, default=AEB, help="the article-extraction-benchmark folder"
    )
    parser.add_argument("--no-aeb", action="store_true", help="leave the aeb set out")
    parser.add_argument(
        "--trafilatura-eval",
        type=Path,
        default=TRAFILATURA_EVAL,
        help="the trafilatura-eval folder (held out)",
    )
    parser.add_argument(
        "--no-trafilatura-eval", action="store_true", help="leave the trafilatura-eval set out"
    )
    parser.add_argument("--json", action="store_true", help="print every page's figures as JSON")
    parser.add_argument("--pages", action="store_true", help="print one line per page")
    parser.add_argument(
        "--worst", action="store_true", help="list each set's ten worst pages, with why"
    )
    parser.add_argument("--scrape", action="store_true", help="also scrape each page in Chrome")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (pass --corpus DIR)", file=sys.stderr)
        return 2
    aeb = None if args.no_aeb or not args.aeb.is_dir() else args.aeb
    held = args.trafilatura_eval
    held = None if args.no_trafilatura_eval or not held.is_dir() else held
    if args.scrape:
        aeb = held = None
    result = measure(args.corpus, scrape=args.scrape, aeb=aeb, trafilatura_eval=held)
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
    others = [*(["aeb"] if aeb else []), *(["trafilatura-eval"] if held else [])]
    for group in (*HALVES, "all", *others):
        _print_group(_GROUP_TITLES[group], summary[group], labels)
        if args.worst:
            print(f"\nworst pages of {labels[WORST_OF]}:")
            for item in result["worst"][group]:  # type: ignore[index]
                print(
                    f"- {item['page']}: F1 {item['f1']:.3f} (precision {item['precision']:.3f},"
                    f" recall {item['recall']:.3f}): {item['why']}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
