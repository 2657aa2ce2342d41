"""The browse engine against real pages on 127.0.0.1: which tier it uses and why, what
the browser tiers load, sessions and their cookies, documents that are not HTML, and
errors. Tiers 2 and 3 run in the suite's shared browser (``engine(browser=browser)``)
except where the test is about the engine's own browser."""

from __future__ import annotations

import asyncio
import io
import json
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cdpkit
from cdpkit import BrowseError
from tests.browse.conftest import chrome_children
from tests.server import FixtureServer, closed_port


def _requests_for(server: FixtureServer, marker: str) -> list[str]:
    return [path for path in server.requests if marker in path]


# -- tiers ------------------------------------------------------------------------------


async def test_a_static_article_stays_at_tier_1_without_a_browser(browse_server: FixtureServer) -> None:
    before = set(chrome_children())
    async with cdpkit.engine() as engine:
        result = await engine.browse(browse_server.url("/browse/article.html"))
        assert engine.browser is None  # no browser launched for a tier-1 page
        assert set(chrome_children()) == before
    assert result.tier_used == 1
    assert result.escalations == []
    assert result.status == 200
    assert result.title == "A static article"
    assert "HTTP client alone can read it" in result.content
    assert result.timing.total_ms >= result.timing.fetch_ms > 0


async def test_cdpkit_browse_reads_a_static_page_and_starts_no_chrome(browse_server: FixtureServer) -> None:
    before = set(chrome_children())
    result = await cdpkit.browse(browse_server.url("/browse/article.html"), format="text")
    assert set(chrome_children()) == before
    assert result.tier_used == 1 and result.format == "text"
    assert "need no browser at all" in result.content


async def test_a_javascript_app_escalates_and_its_rendered_text_is_read(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/app.html?t=escalates"))
    assert result.tier_used == 2
    assert len(result.escalations) == 1
    # The reason is the extraction's words (an empty app root...): present, after the tier move.
    assert result.escalations[0].startswith("tier 1 -> 2: ") and len(result.escalations[0]) > 20
    assert "exists only once the app's script ran" in result.content


async def test_tier_2_blocks_images_and_stylesheets(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    browse_server.requests.clear()
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"), tier=2)
    assert result.tier_used == 2
    assert "exists only once the app's script ran" in result.content
    assert _requests_for(browse_server, "/browse/app.html")  # the page itself was loaded
    assert _requests_for(browse_server, "from=app") == []  # neither the image nor the CSS


async def test_tier_3_loads_the_full_page(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    browse_server.requests.clear()
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"), tier=3)
    assert result.tier_used == 3 and result.escalations == []
    assert "exists only once the app's script ran" in result.content
    assert _requests_for(browse_server, "/browse/pixel.png?from=app")


async def test_tier_3_forced_on_a_static_page(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/article.html"), tier=3)
    assert result.tier_used == 3
    assert "HTTP client alone can read it" in result.content


async def test_a_noscript_page_escalates(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/noscript.html"))
    assert result.tier_used >= 2
    assert result.escalations[0].startswith("tier 1 -> 2: ")
    assert "Text written by the script" in result.content


async def test_max_tier_1_returns_the_thin_content_without_a_browser(browse_server: FixtureServer) -> None:
    async with cdpkit.engine() as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"), max_tier=1)
        assert engine.browser is None
    assert result.tier_used == 1
    assert result.title == "A JavaScript app"
    assert "exists only once" not in result.content
    assert result.escalations and "max_tier=1" in result.escalations[0]


async def test_a_bot_challenge_is_passed_by_the_browser(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/challenge"), timeout=20)
    assert "HTTP 503" in result.escalations[0] and "challenge" in result.escalations[0]
    assert result.status == 200
    assert "The content behind the bot check" in result.content


async def test_a_bot_challenge_at_max_tier_1_is_an_http_error(browse_server: FixtureServer) -> None:
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(browse_server.url("/browse/challenge"), max_tier=1)
    assert caught.value.code == "http.503"
    assert "max_tier" in caught.value.suggestion


async def test_format_a11y_reads_the_accessibility_tree_within_the_budget(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        full = await engine.browse(browse_server.url("/browse/article.html"), format="a11y")
        cut = await engine.browse(browse_server.url("/browse/article.html"), format="a11y", max_tokens=30)
    assert full.tier_used == 3
    assert 'heading "Why static pages are fast"' in full.content
    assert len(cut.content) <= 30 * 4
    assert cut.truncated and "lines cut" in cut.truncation[-1]
    assert all(line in full.content for line in cut.content.splitlines()[:-1])  # whole lines


# -- sessions ---------------------------------------------------------------------------


async def test_a_cookie_set_by_a_tier_3_login_is_sent_by_tier_1_in_the_same_session_only(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        login = await engine.browse(browse_server.url("/browse/login"), session="work", tier=3)
        assert "Welcome back, alice" in login.content
        echo = browse_server.url("/browse/echo-cookie")
        mine = await engine.browse(echo, session="work", format="text")
        other = await engine.browse(echo, session="other", format="text")
        throwaway = await engine.browse(echo, format="text")
        assert engine.sessions == ["work", "other"]
    assert mine.tier_used == 1 and "login=alice" in mine.content
    assert "login=alice" not in other.content
    assert "login=alice" not in throwaway.content
    assert mine.session == "work" and throwaway.session is None


async def test_a_cookie_from_tier_1_is_sent_by_the_browser(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        await engine.browse(browse_server.url("/browse/set-cookie"), session="s")
        echoed = await engine.browse(browse_server.url("/browse/echo-cookie"), session="s", tier=2, format="text")
    assert "visit=header-cookie" in echoed.content


async def test_a_persistent_session_is_restored_by_the_next_engine(
    browse_server: FixtureServer, tmp_path: Path
) -> None:
    sessions = tmp_path / "sessions"
    async with cdpkit.engine(session={"persist": True, "dir": str(sessions)}) as engine:
        await engine.browse(browse_server.url("/browse/set-cookie"), session="kept")
        await engine.browse(browse_server.url("/browse/set-cookie"), session="dropped", persist=False)
    saved = sessions / "kept.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert [c["name"] for c in json.loads(saved.read_text())["cookies"]] == ["visit"]
    assert not (sessions / "dropped.json").exists()
    async with cdpkit.engine(session={"persist": True, "dir": str(sessions)}) as engine:
        again = await engine.browse(browse_server.url("/browse/echo-cookie"), session="kept", format="text")
        fresh = await engine.browse(browse_server.url("/browse/echo-cookie"), session="dropped", format="text")
    assert "visit=header-cookie" in again.content
    assert "visit=header-cookie" not in fresh.content


async def test_closing_an_unknown_session_is_a_session_error(browse_server: FixtureServer) -> None:
    async with cdpkit.engine() as engine:
        await engine.browse(browse_server.url("/browse/article.html"), session="a")
        await engine.close_session("a")
        assert engine.sessions == []
        with pytest.raises(BrowseError) as caught:
            await engine.close_session("a")
    assert caught.value.code == "session.unknown" and caught.value.family == "session"
    assert "'a'" in str(caught.value)
    with pytest.raises(BrowseError) as closed:
        await engine.browse(browse_server.url("/browse/article.html"))
    assert closed.value.code == "session.closed"


async def test_the_engine_closes_its_own_browser_and_leaves_a_given_one(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    async with cdpkit.engine() as engine:
        await engine.browse(browse_server.url("/browse/app.html"), tier=2)
        own = engine.browser
        assert own is not None and own is not browser
    assert own.closed
    contexts = len(browser.contexts)
    async with cdpkit.engine(browser=browser) as engine:
        await engine.browse(browse_server.url("/browse/app.html"), tier=2, session="x")
        assert len(browser.contexts) == contexts + 1
    assert not browser.closed and len(browser.contexts) == contexts


async def test_cdpkit_browse_leaves_no_chrome_behind_after_a_browser_tier(browse_server: FixtureServer) -> None:
    before = set(chrome_children())
    result = await cdpkit.browse(browse_server.url("/browse/app.html"))
    assert result.tier_used == 2
    await asyncio.sleep(0.2)
    assert set(chrome_children()) == before


async def test_a_browser_factory_is_called_only_when_a_page_needs_it(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    calls: list[str] = []

    async def factory() -> cdpkit.Browser:
        calls.append("made")
        return await cdpkit.launch()

    async with cdpkit.engine(browser_factory=factory) as engine:
        await engine.browse(browse_server.url("/browse/article.html"))
        assert calls == []
        await engine.browse(browse_server.url("/browse/app.html"), tier=2)
        await engine.browse(browse_server.url("/browse/app.html"), tier=2)
        made = engine.browser
    assert calls == ["made"]
    assert made is not None and made.closed


# -- documents that are not HTML --------------------------------------------------------


async def test_a_pdf_gives_its_text_and_title(browse_server: FixtureServer) -> None:
    result = await cdpkit.browse(browse_server.url("/browse/report.pdf"))
    assert result.mime_type == "application/pdf" and result.tier_used == 1
    assert "Quarterly figures of the browse engine" in result.content
    assert result.title == "Browse engine report"


async def test_an_image_with_include_media_is_a_webp_within_640x480(browse_server: FixtureServer) -> None:
    from PIL import Image

    result = await cdpkit.browse(browse_server.url("/browse/big.png"), include_media=True)
    [item] = result.media
    assert (item.kind, item.width, item.height, item.mime_type) == ("image", 1600, 1200, "image/webp")
    assert item.data is not None
    with Image.open(io.BytesIO(item.data)) as image:
        assert image.format == "WEBP"
        assert image.size == (640, 480)
    plain = await cdpkit.browse(browse_server.url("/browse/big.png"))
    assert plain.media[0].data is None and plain.media[0].width == 1600


async def test_a_broken_image_is_its_url_and_no_error(browse_server: FixtureServer) -> None:
    result = await cdpkit.browse(browse_server.url("/browse/broken.png"), include_media=True)
    [item] = result.media
    assert item.url == browse_server.url("/browse/broken.png")
    assert item.data is None and item.width is None
    assert "could not be decoded" in result.truncation[0]


async def test_json_and_csv_pass_through(browse_server: FixtureServer) -> None:
    data = await cdpkit.browse(browse_server.url("/browse/data.json"))
    table = await cdpkit.browse(browse_server.url("/browse/table.csv"))
    assert json.loads(data.content) == {"answer": 42, "name": "browse"}
    assert data.mime_type == "application/json"
    assert table.content.splitlines() == ["id,name", "1,alpha", "2,beta"]


async def test_garbage_bytes_are_unsupported_with_a_download_suggestion(browse_server: FixtureServer) -> None:
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(browse_server.url("/browse/garbage"))
    assert caught.value.code == "processing.unsupported"
    assert "cdpkit download" in caught.value.suggestion
    assert caught.value.recoverable is False


async def test_the_charset_of_a_meta_tag_is_used(browse_server: FixtureServer) -> None:
    result = await cdpkit.browse(browse_server.url("/browse/latin1"))
    assert result.title == "Café"
    assert "Crème brûlée" in result.content


# -- errors and time --------------------------------------------------------------------


async def test_a_silent_port_is_a_network_timeout_within_the_timeout(silent_port: int) -> None:
    began = time.monotonic()
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(f"http://127.0.0.1:{silent_port}/", timeout=1.5)
    assert time.monotonic() - began < 1.5 + 10  # bounds a hang, not the machine's speed
    assert caught.value.code == "network.timeout" and caught.value.recoverable
    assert "timeout=" in caught.value.suggestion


async def test_a_refused_port_is_network_refused() -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(url)
    assert caught.value.code == "network.refused" and caught.value.family == "network"
    assert caught.value.url == url


async def test_a_404_is_http_404(browse_server: FixtureServer) -> None:
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(browse_server.url("/status?code=404"))
    assert caught.value.code == "http.404" and caught.value.status == 404
    assert not caught.value.recoverable


async def test_a_5xx_is_recoverable(browse_server: FixtureServer) -> None:
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(browse_server.url("/status?code=502"))
    assert caught.value.code == "http.502" and caught.value.recoverable


async def test_robots_txt_is_respected_when_the_config_says_so(
    browse_server: FixtureServer, config_file: Path
) -> None:
    url = browse_server.url("/browse/private/page.html")
    assert (await cdpkit.browse(url)).title == "private"  # off by default
    config_file.write_text("[privacy]\nrespect_robots_txt = true\n")
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(url)
    assert caught.value.code == "http.robots" and caught.value.recoverable is False
    assert "Disallow: /browse/private" in str(caught.value)
    assert (await cdpkit.browse(browse_server.url("/browse/article.html"))).tier_used == 1


async def test_robots_txt_is_respected_for_one_call_when_it_asks(
    browse_server: FixtureServer, config_file: Path
) -> None:
    url = browse_server.url("/browse/private/page.html")
    async with cdpkit.engine() as engine:
        with pytest.raises(BrowseError) as caught:
            await engine.browse(url, respect_robots_txt=True)
        assert caught.value.code == "http.robots"
        assert (await engine.browse(url)).title == "private"  # the next call: the config's (off)
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(url, respect_robots_txt=True)
    assert "respect_robots_txt=False" in caught.value.suggestion
    config_file.write_text("[privacy]\nrespect_robots_txt = true\n")
    assert (await cdpkit.browse(url, respect_robots_txt=False)).title == "private"  # the call over the file


async def test_a_slow_page_in_the_browser_gives_what_it_has_when_time_runs_out(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    # The page's text is there at once; an image keeps the load event away for 15 s.
    url = browse_server.url("/browse/slow-image")
    began = time.monotonic()
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(url, tier=3, timeout=4)
    assert time.monotonic() - began < 4 + 4  # not the image's 15 s
    assert result.truncated and "did not finish loading" in result.truncation[0]
    assert "Text that was there" in result.content


async def test_bad_options_are_value_errors_naming_them() -> None:
    with pytest.raises(ValueError, match="max_tier"):
        await cdpkit.browse("http://127.0.0.1:1/", max_tier=4)
    with pytest.raises(ValueError, match="session name"):
        async with cdpkit.engine() as engine:
            await engine.browse("http://127.0.0.1:1/", session="../etc")



async def test_page_images_with_include_media_and_a_failing_one_keeps_its_alt(
    browse_server: FixtureServer,
) -> None:
    result = await cdpkit.browse(browse_server.url("/browse/gallery"), include_media=True)
    big, missing = result.media
    assert (big.width, big.height, big.mime_type) == (1600, 1200, "image/webp") and big.data
    assert missing.alt == "missing chart" and missing.data is None
    assert any("missing chart" in note and "http.404" in note for note in result.truncation)
    without = await cdpkit.browse(browse_server.url("/browse/gallery"))
    assert all(item.data is None for item in without.media)


async def test_a_crash_in_the_browser_falls_back_to_the_static_content(
    browser: cdpkit.Browser, browse_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cdpkit._browse import _chrome

    async def crash(*args: object, **kwargs: object) -> object:
        raise cdpkit.PageCrashedError("The page crashed (killed, error code 9)")

    monkeypatch.setattr(_chrome, "render", crash)
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"))
        with pytest.raises(BrowseError) as caught:
            await engine.browse(browse_server.url("/browse/app.html"), tier=3)
    assert result.tier_used == 1 and result.title == "A JavaScript app"
    assert result.truncated and "tier 2 failed (the page crashed)" in result.escalations[-1]
    assert caught.value.code == "page.crashed" and caught.value.recoverable


async def test_a_pdf_forced_to_tier_3_is_read_over_http(browser: cdpkit.Browser, browse_server: FixtureServer) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/report.pdf"), tier=3)
    assert "Quarterly figures of the browse engine" in result.content
    assert result.mime_type == "application/pdf"


async def test_a_file_url_is_read_by_the_browser(browser: cdpkit.Browser) -> None:
    path = Path(__file__).parent.parent / "pages" / "browse" / "article.html"
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(path.as_uri())
    assert result.tier_used == 2 and "file: URL" in result.escalations[0]
    assert "HTTP client alone can read it" in result.content


async def test_a_silent_port_in_the_browser_is_a_network_timeout_within_the_timeout(
    browser: cdpkit.Browser, silent_port: int
) -> None:
    began = time.monotonic()
    async with cdpkit.engine(browser=browser) as engine:
        with pytest.raises(BrowseError) as caught:
            await engine.browse(f"http://127.0.0.1:{silent_port}/", tier=2, timeout=2)
    assert time.monotonic() - began < 2 + 10  # bounds a hang, not the machine's speed
    assert caught.value.code == "network.timeout"


async def test_tier_1_says_who_it_is_unless_the_config_sets_an_agent(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    url = browse_server.url("/browse/echo-headers")
    plain = await cdpkit.browse(url, format="text")
    assert f"Agent: [cdpkit/{cdpkit.__version__} (+" in plain.content
    assert "Language: [en-US,en;q=0.9]" in plain.content
    config = {"browser": {"user_agent": "MyAgent/2.0"}, "network": {"accept_language": "fr-CH, fr;q=0.9"}}
    async with cdpkit.engine(config, browser=browser) as engine:
        tier_1 = await engine.browse(url, format="text")
        tier_2 = await engine.browse(url, tier=2, format="text")
    for result in (tier_1, tier_2):
        assert "Agent: [MyAgent/2.0]" in result.content
        assert "Language: [fr-CH," in result.content  # Chrome words the q-values its own way


async def test_content_after_a_slow_request_escalates_to_tier_3(
    browser: cdpkit.Browser, browse_server: FixtureServer
) -> None:
    async with cdpkit.engine(browser=browser) as engine:
        result = await engine.browse(browse_server.url("/browse/xhr-app"))
        capped = await engine.browse(browse_server.url("/browse/xhr-app"), max_tier=2)
    assert result.tier_used == 3
    assert [reason.split(":")[0] for reason in result.escalations] == ["tier 1 -> 2", "tier 2 -> 3"]
    assert "Arrived after a slow request" in result.content
    # At the highest tier allowed, what there is (no failure).
    assert capped.tier_used == 2 and capped.title == "Slow app"
    assert "Arrived after a slow request" not in capped.content


async def test_a_browser_that_cannot_start_falls_back_or_says_so(browse_server: FixtureServer) -> None:
    broken = {"browser": {"args": ["--user-data-dir=/nonexistent"]}}  # refused by launch()
    async with cdpkit.engine(broken) as engine:
        result = await engine.browse(browse_server.url("/browse/app.html"))
        with pytest.raises(BrowseError) as caught:
            await engine.browse(browse_server.url("/browse/app.html"), tier=2)
    assert result.tier_used == 1 and "no browser could be started" in result.escalations[-1]
    assert caught.value.code == "page.browser" and "cdpkit doctor" in caught.value.suggestion


async def test_a_damaged_saved_session_is_an_error_naming_its_file(
    browse_server: FixtureServer, tmp_path: Path
) -> None:
    (tmp_path / "kept.json").write_text("{not json")
    async with cdpkit.engine(session={"persist": True, "dir": str(tmp_path)}) as engine:
        with pytest.raises(BrowseError) as caught:
            await engine.browse(browse_server.url("/browse/article.html"), session="kept")
        assert engine.sessions == []
    assert caught.value.code == "session.corrupt"
    assert str(tmp_path / "kept.json") in caught.value.suggestion


async def test_the_config_can_attach_to_a_running_browser(
    browser: cdpkit.Browser, browse_server: FixtureServer, config_file: Path
) -> None:
    from cdpkit.cli import http_endpoint

    endpoint = http_endpoint(browser)
    assert endpoint is not None
    config_file.write_text(f'[browser]\nconnect = "{endpoint}"\n')
    targets = len(browser.pages)
    before = set(chrome_children())
    result = await cdpkit.browse(browse_server.url("/browse/app.html"), tier=2)
    assert result.tier_used == 2 and "exists only once the app's script ran" in result.content
    assert set(chrome_children()) == before  # attached, nothing launched
    assert not browser.closed and len(browser.pages) == targets


ENDLESS_ROBOTS = '''
import asyncio, resource, sys, time
sys.path.insert(0, sys.argv[1])
# Keep a runaway read from taking the machine down: it fails with MemoryError instead.
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
import cdpkit
from tests.server import start_server

HEAD = b"User-agent: *\\nDisallow: /private\\n"
BLOCK = b"# a robots.txt that never ends\\n" * 2048

def endless(h):
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    h.send_header("Connection", "close")
    h.end_headers()
    try:
        h.wfile.write(HEAD)
        while True:
            h.wfile.write(BLOCK)
    except OSError:
        h.close_connection = True  # the client stopped reading: done

async def main():
    server = start_server()
    server.route("/robots.txt", endless)
    server.route("/page", lambda h: h.reply(200, "<title>page</title><p>hello</p>"))
    server.route("/private", lambda h: h.reply(200, "<title>private</title>"))
    config = {"privacy": {"respect_robots_txt": True}}
    async with cdpkit.engine() as engine:
        await engine.browse(server.url("/page"), tier=1)  # loads what a browse needs
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    async with cdpkit.engine(config=config) as engine:
        page = await engine.browse(server.url("/page"), tier=1, timeout=20)
        try:
            await engine.browse(server.url("/private"), tier=1, timeout=20)
            refused = "no"
        except cdpkit.BrowseError as error:
            refused = error.code
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(page.title, refused, (after - before) // 1024)

asyncio.run(main())
'''


def test_an_endless_robots_txt_is_read_within_bounds(tmp_path: Path, config_file: Path) -> None:
    """Measured in a child process (its peak memory, not the suite's)."""
    script = tmp_path / "robots.py"
    script.write_text(ENDLESS_ROBOTS)
    root = Path(__file__).parent.parent.parent
    done = subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    title, refused, growth_mb = done.stdout.split()
    # The first 500 KiB are read (as Google does) and obeyed; the rest is not read.
    assert (title, refused) == ("page", "http.robots")
    assert int(growth_mb) < 30, f"peak RSS grew by {growth_mb} MB"


@pytest.mark.parametrize(
    ("location", "scheme"),
    [("data:text/html,<h1>hi</h1>", "data"), ("javascript:alert(1)", "javascript"),
     (" \tJava\tScript:alert(1)", "javascript"), ("file:///etc/passwd", "file")],
)
async def test_a_redirect_out_of_http_is_a_browse_error_naming_its_scheme(
    browse_server: FixtureServer, location: str, scheme: str
) -> None:
    browse_server.route("/browse/away", lambda h: h.reply(302, "", "text/plain", {"Location": location}))
    with pytest.raises(BrowseError) as caught:
        await cdpkit.browse(browse_server.url("/browse/away"), tier=1)
    assert caught.value.code == "network.redirect" and not caught.value.recoverable
    assert f"redirects to a {scheme}: URL" in str(caught.value)
