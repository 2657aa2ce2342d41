"""A small made-up news page (none is a copy of a real site) that the main-content rule
tests build on: four sentences of article text, the page around a body, and its content."""

from __future__ import annotations

from cdpkit._extraction import BrowseOptions, extract_html

TIDE = (
    "The harbour authority dredged the channel again this spring, and the pilots say the tides"
    " now run faster past the northern breakwater than they did a decade ago."
)
SALT = (
    "Fishermen working the outer banks report that the salt marsh has crept a few metres"
    " inland each year, swallowing the old sheep paths along the estuary."
)
FERRY = (
    "When the winter ferry stopped calling at the island, its last three families moved their"
    " boats to the mainland quay and rented lock-ups for their nets and lobster pots."
)
MILL = (
    "A volunteer crew restored the tide mill's wheel from oak felled on the estate, and on"
    " spring tides it grinds flour again for the village bakery twice a month."
)


def page(body: str, head: str = "") -> str:
    """The page: a navigation header, ``body``, a footer (``head`` goes into <head>)."""
    return (
        f"<!doctype html><html lang='en'><head><title>The channel is deeper now</title>{head}"
        "</head><body><header><a href='/'>Home</a> <a href='/news'>News</a></header>"
        f"{body}<footer>Copyright the Harbour Gazette</footer></body></html>"
    )


def main_content(html: str, fmt: str = "text") -> str:
    """What ``readability=True`` keeps of ``html`` in format ``fmt``."""
    options = BrowseOptions(readability=True, format=fmt)  # type: ignore[arg-type]
    return extract_html(html, "https://harbour.example/news/1", options).content
