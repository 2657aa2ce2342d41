"""Main content (``readability=True``): the article without menus, sidebars and comments.

trafilatura finds the main content of the HTML and gives it back as HTML (headings,
paragraphs, lists, tables, code, links and images kept); the block reader then reads that
the same way as a whole page, so every format and filter works on it unchanged.
"""

from __future__ import annotations

import logging

__all__ = ["main_content_html"]

# trafilatura logs at WARNING about pages it finds empty or odd; the caller falls back.
logging.getLogger("trafilatura").setLevel(logging.ERROR)


def main_content_html(html: str, url: str) -> str | None:
    """The main content of ``html`` as an HTML fragment, or ``None`` when none was found."""
    import trafilatura  # imported on first use: ~150 ms, paid only by readability=True

    return trafilatura.extract(
        html,
        url=url or None,
        output_format="html",
        include_links=True,
        include_images=True,
        include_tables=True,
        include_formatting=True,
        include_comments=False,
        with_metadata=False,
        deduplicate=False,
    )
