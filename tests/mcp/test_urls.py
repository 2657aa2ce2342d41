"""The URL policy of the MCP server (``--allow-file-urls``, ``--allowed-origins``,
``--blocked-origins``), without a browser: which URLs are refused and what the refusal
says."""

from __future__ import annotations

import pytest

from cdpkit.mcp._urls import OriginPattern, UrlBlockedError, UrlPolicy, split_origin_list


def _policy(
    allowed: str | None = None, blocked: str | None = None, files: bool = False
) -> UrlPolicy:
    return UrlPolicy.from_options(
        allow_file_urls=files, allowed_origins=allowed, blocked_origins=blocked
    )


def test_by_default_the_web_is_allowed_and_local_urls_are_not() -> None:
    policy = UrlPolicy()
    for url in (
        "https://example.com/a?b#c",
        "http://127.0.0.1:8080/",
        "about:blank",
        "data:text/html,<h1>hi</h1>",
        "chrome-error://chromewebdata/",
        "view-source:https://example.com/",
        "blob:https://example.com/1b2c",
        "blob:null/1b2c",
        "",
    ):
        assert policy.refusal(url) is None, url
    for url in (
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "view-source:file:///etc/passwd",
        "filesystem:file:///tmp/x",
        "chrome://version",
        "chrome-extension://abc/page.html",
        "devtools://devtools/bundled/inspector.html",
        "about:version",
    ):
        reason = policy.refusal(url)
        assert reason is not None and "--allow-file-urls" in reason, url
    with pytest.raises(UrlBlockedError) as caught:
        policy.check("file:///etc/passwd")
    assert str(caught.value) == (
        "Navigation to file:///etc/passwd is blocked: file URLs are not allowed "
        "(start the server with --allow-file-urls to allow them)"
    )
    assert "browser_execute_js" in (policy.refusal("javascript:alert(1)") or "")
    assert "not web pages" in (policy.refusal("ftp://example.com/") or "")
    # Not URLs: left to the tool, which says they are invalid.
    assert policy.refusal("example.com/page") is None
    assert policy.refusal("localhost:8080/page") is None


def test_allow_file_urls_allows_files_and_browser_pages() -> None:
    policy = _policy(files=True)
    for url in ("file:///etc/passwd", "chrome://version", "about:version"):
        assert policy.refusal(url) is None, url
    assert policy.refusal("javascript:1") is not None  # still code, not a page


def test_allowed_origins_forms() -> None:
    policy = _policy("https://example.com; http://localhost:* , api.test;*.cdn.test;[::1]:8080")
    allowed = [
        "https://example.com/x",
        "https://EXAMPLE.com:443/x",
        "http://localhost:1234/",
        "http://localhost/",
        "http://api.test:9000/",
        "https://api.test/",
        "https://img.cdn.test/a.png",
        "https://a.b.cdn.test/",
        "http://[::1]:8080/",
        "http://[::1]:8081/",  # localhost:* allows it: hosts compare as addresses
    ]
    for url in allowed:
        assert policy.refusal(url) is None, url
    refused = [
        "http://example.com/x",  # another scheme: another origin
        "https://example.com:8443/",  # another port
        "https://www.example.com/",
        "https://localhost/",
        "https://cdn.test/",  # *.cdn.test is its subdomains
        "http://[2001:db8::1]:8080/",
        "https://evil.test/?u=https://example.com",
    ]
    for url in refused:
        assert policy.refusal(url) == (
            f"origin {url.split('/')[0]}//{url.split('/')[2].lower()} is not in --allowed-origins"
        ), url
    # File URLs are governed by --allow-file-urls alone.
    assert "--allow-file-urls" in (policy.refusal("file:///etc/passwd") or "")
    assert _policy("https://example.com", files=True).refusal("file:///tmp/x") is None


def test_blocked_origins_win_over_allowed_ones() -> None:
    policy = _policy(allowed="http://127.0.0.1:*", blocked="http://127.0.0.1:9002")
    assert policy.refusal("http://127.0.0.1:9001/") is None
    assert (
        policy.refusal("http://127.0.0.1:9002/x")
        == "origin http://127.0.0.1:9002 is in --blocked-origins"
    )
    blocked = _policy(blocked="tracker.test")
    assert blocked.refusal("https://tracker.test:444/p") == (
        "origin https://tracker.test:444 is in --blocked-origins (tracker.test)"
    )
    assert blocked.refusal("https://example.com/") is None
    everything = _policy(blocked="*")
    assert everything.refusal("https://example.com/") is not None
    assert everything.refusal("data:text/plain,hi") is None


def test_option_values_split_on_semicolons_and_commas_and_repeat() -> None:
    assert split_origin_list("a.test;b.test, c.test ;") == ["a.test", "b.test", "c.test"]
    assert split_origin_list(["a.test", "b.test;c.test"]) == ["a.test", "b.test", "c.test"]
    assert split_origin_list(None) == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("https://example.com/login", "has a path"),
        ("ftp://example.com", "only http and https"),
        ("file:///tmp", "only http and https"),
        ("example.com:99999", "Invalid port"),
        ("exa mple.com", "Invalid host"),
        ("[::zz]:80", "Invalid IPv6"),
    ],
)
def test_bad_entries_say_what_is_wrong(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OriginPattern.parse(entry)


def test_description_for_the_model() -> None:
    assert UrlPolicy(allow_file_urls=True).describe() == ""
    text = _policy(allowed="https://example.com", blocked="ads.test").describe()
    assert "file: URLs" in text
    assert "only these web origins are allowed: https://example.com" in text
    assert "these origins are blocked: ads.test" in text


def test_hosts_are_read_as_the_browser_reads_them() -> None:
    """A URL written to slip past a list is judged by the host Chrome will load."""
    blocked = _policy(blocked="evil.test;127.0.0.1;bücher.test")
    for url in (
        "http://EVIL.test./",
        "http://%65vil.test/",
        "http://ev\til.test/",
        "http://evil.test\\@good.test/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "https://xn--bcher-kva.test/",
        "https://bücher.test/",
    ):
        assert blocked.refusal(url) is not None, url
    assert blocked.refusal("http://good.test\\@evil.test.good.test/") is None
    allowed = _policy(allowed="127.1")
    assert allowed.refusal("http://127.0.0.1:9/") is None
