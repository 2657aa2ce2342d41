"""How fetched bytes become text, and which responses a browser may get past (no
network, no browser)."""

from __future__ import annotations

import pytest

from cdpkit._browse._documents import browser_needed, decode_html, is_html, mime_type_of

FRENCH = "<p>Le café crème était brûlant, et la pâtisserie déjà servie à côté du thé.</p>" * 5


def test_the_header_charset_wins_over_the_meta_tag() -> None:
    body = ("<meta charset='utf-8'>" + FRENCH).encode("cp1252")
    assert "café crème" in decode_html(body, "text/html; charset=windows-1252")


def test_the_meta_charset_is_used_without_a_header_charset() -> None:
    body = ('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">' + FRENCH).encode("latin-1")
    assert "pâtisserie" in decode_html(body, "text/html")


def test_without_any_charset_utf8_then_detection() -> None:
    assert "brûlant" in decode_html(FRENCH.encode("utf-8"), "text/html")
    detected = decode_html(FRENCH.encode("cp1252"), "text/html")
    assert "caf\ufffd" not in detected and "café" in detected


def test_an_unknown_charset_name_falls_through() -> None:
    assert "brûlant" in decode_html(FRENCH.encode("utf-8"), "text/html; charset=x-nonsense")


@pytest.mark.parametrize(
    ("status", "html", "expected"),
    [
        (503, "<title>Just a moment...</title>", "bot challenge"),
        (403, "<div id='cf-browser-verification'></div>", "bot challenge"),
        (200, "<script>window.location.href = '/real'</script>", "redirects with a script"),
        (200, "<meta http-equiv='refresh' content='0;url=/x'>", "meta http-equiv=refresh"),
        (404, "<title>Not found</title>", None),
        (503, "<title>Maintenance</title><p>Back soon</p>", None),
        (200, "<p>An ordinary page</p>", None),
    ],
)
def test_what_a_browser_may_get_past(status: int, html: str, expected: str | None) -> None:
    reason = browser_needed(status, html, text_chars=20)
    assert (reason is None) if expected is None else (reason is not None and expected in reason)


def test_types() -> None:
    assert mime_type_of("Text/HTML; charset=UTF-8") == "text/html"
    assert is_html("", b"  <!DOCTYPE html><html>")
    assert not is_html("application/pdf", b"<html>")
