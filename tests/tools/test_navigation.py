"""Navigation tools against a real headless Chromium: the result says where the page
really is, timeouts say what to change, and renderer swaps are not errors."""

from __future__ import annotations

import asyncio
import time
import urllib.parse

import pytest

import cdpkit
import cdpkit.tools
from cdpkit import cdp
from cdpkit.tools.navigation import go_back, go_forward, navigate, reload
from tests.server import FixtureServer


async def test_navigate_reports_url_status_and_title(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    result = await navigate(page, server.url("/input/keys.html"))
    assert (result.url, result.status, result.title) == (
        server.url("/input/keys.html"),
        200,
        "Keys",
    )
    missing = await navigate(page, server.url("/status?code=404"))
    assert (missing.status, missing.title) == (404, "status 404")


async def test_navigate_timeout_names_the_url_the_stage_and_the_argument(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url("/slow?s=14")
    started = time.monotonic()
    with pytest.raises(TimeoutError) as caught:
        await navigate(page, url, timeout=1)
    assert time.monotonic() - started < 1 + 11  # the timeout ended it, not the 14 s answer
    assert isinstance(caught.value, cdpkit.WaitTimeoutError)
    assert str(caught.value) == (
        f"Timed out after 1 s waiting for the navigation to {url} to reach its load event; "
        f"pass a larger timeout= to navigate() if the page is just slow"
    )
    # Doing what the message says works: the timed-out attempt does not get in the way.
    result = await navigate(page, url, timeout=40)
    assert (result.url, result.status, result.title) == (url, 200, "slow")


async def test_reload_timeout_names_the_page_and_the_argument(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url("/slow?s=2")
    await navigate(page, url)
    with pytest.raises(cdpkit.WaitTimeoutError, match=r"reload of .*/slow\?s=2 .*timeout= to reload\(\)"):
        await reload(page, timeout=0.5)


async def test_same_document_navigation_reports_the_new_fragment(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url("/input/keys.html")
    await navigate(page, url)
    for n in range(20):
        result = await navigate(page, f"{url}#foo{n}")
        assert result.url == f"{url}#foo{n}"
        assert (result.status, result.title) == (200, "Keys")
    back = await go_back(page)
    assert back is not None and back.url == f"{url}#foo18"
    forward = await go_forward(page)
    assert forward is not None and forward.url == f"{url}#foo19"


async def test_commit_navigations_across_sites_survive_the_renderer_swap(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    # localhost and 127.0.0.1 are different sites: every second navigation moves the page
    # to another renderer process, and the page is briefly attached to none.
    urls = [
        server.url("/input/keys.html"),
        other_server.url("/input/click.html").replace("127.0.0.1", "localhost"),
        other_server.url("/input/keys.html"),
    ]
    for n in range(30):
        url = urls[n % len(urls)]
        result = await navigate(page, url, wait_until="commit")
        assert result.url == url
    for wait_until in ("domcontentloaded", "load"):
        result = await navigate(page, urls[1], wait_until=wait_until)  # type: ignore[arg-type]
        assert (result.url, result.title) == (urls[1], "Click")
        result = await navigate(page, urls[0], wait_until=wait_until)  # type: ignore[arg-type]
        assert (result.url, result.title) == (urls[0], "Keys")
    back = await go_back(page, wait_until="commit")
    assert back is not None and back.url == urls[1]


async def _navigate_watching_commits(page: cdpkit.Page, url: str, wait_until: str) -> None:
    """Navigate as a user would and check that it returned and that a listener of
    ``Page.frameNavigated`` saw the new document (a page not yet set up reports neither)."""
    async with page.listen(cdp.page.FrameNavigated) as navigated:
        result = await navigate(page, url, wait_until=wait_until, timeout=10)  # type: ignore[arg-type]
        event = await asyncio.wait_for(anext(navigated), 5)
    assert (result.url, event.frame.url) == (url, url)


async def test_first_navigation_of_a_new_browsers_own_tab(server: FixtureServer) -> None:
    # The tab a browser starts with existed before cdpkit attached: it is not paused, and
    # the CLI's one-shot commands navigate exactly that tab.
    url = server.url("/input/keys.html")
    for wait_until in ("commit", "load", "commit"):
        async with cdpkit.launch() as browser:
            [page] = browser.pages
            await _navigate_watching_commits(page, url, wait_until)


async def test_first_navigation_of_tabs_open_before_attaching(server: FixtureServer) -> None:
    # The same case, repeated: a tab another client just opened is attached unpaused, and
    # its renderer may enable the Page domain only after the navigation committed (then
    # neither Page.frameNavigated nor a "commit" lifecycle event ever came, and a
    # wait_until="commit" navigation hung for its whole timeout).
    url = server.url("/input/keys.html")
    async with cdpkit.launch() as host:
        assert host.process is not None
        endpoint = await host.process.wait_for_endpoint(5)
        for n in range(24):
            tab = await host.call("Target.createTarget", {"url": "about:blank"})
            async with cdpkit.connect(endpoint) as browser:
                page = browser.page_for(tab["targetId"])
                assert page is not None
                await _navigate_watching_commits(page, url, ("commit", "load")[n % 2])
            await host.call("Target.closeTarget", {"targetId": tab["targetId"]})


def _tracked_page(server: FixtureServer, tracker_server: FixtureServer) -> tuple[str, str]:
    """A page on ``server`` whose image and script hang on ``tracker_server``, and the
    tracker's URL (its requests add ``&kind=...``)."""
    tracker = tracker_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    return server.url("/tracked?tracker=" + urllib.parse.quote(tracker, safe="")), tracker


async def test_usable_navigation_returns_while_a_tracker_never_answers(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    url, tracker = _tracked_page(server, other_server)
    with pytest.raises(cdpkit.WaitTimeoutError, match="its load event"):
        await navigate(page, url, wait_until="load", timeout=3)

    url, tracker = _tracked_page(server, other_server)
    result = await navigate(page, url, wait_until="usable", timeout=15)
    assert (result.url, result.status, result.title) == (url, 200, "Tracked article")
    assert sorted(result.pending) == [tracker + "&kind=pixel", tracker + "&kind=script"]
    heading = await cdpkit.tools.evaluate(page, "document.querySelector('h1').textContent")
    assert heading == "Tracked article"

    # A page whose resources all answer loads as before: nothing pending.
    done = await navigate(page, server.url("/input/keys.html"), wait_until="usable")
    assert (done.title, done.pending) == ("Keys", ())


async def test_the_browsers_own_icon_fetch_is_not_what_the_page_waits_on(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    # Chrome fetches a page's icon itself, as the next navigation begins, and never says
    # it ended when that navigation abandons it: one that never answers is not what the
    # next page waits on. (With the Network domain on throughout, as a network log has it.)
    stamp = time.monotonic_ns()
    icon = server.url(f"/hang?s=60&icon={stamp}")
    html = f"<title>Iconed</title><link rel=icon href='{icon}'><h1>Iconed</h1>"
    server.route(f"/iconed-{stamp}", lambda handler: handler.reply(200, html))
    async with page.enabled("Network"):
        iconed = await navigate(page, server.url(f"/iconed-{stamp}"), wait_until="usable", timeout=20)
        assert (iconed.title, iconed.pending) == ("Iconed", ())
        url, tracker = _tracked_page(server, other_server)
        result = await navigate(page, url, wait_until="usable", timeout=20)
    assert sorted(result.pending) == [tracker + "&kind=pixel", tracker + "&kind=script"]


async def test_usable_reload_and_history_moves_return_while_a_tracker_never_answers(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    url, tracker = _tracked_page(server, other_server)
    hanging = [tracker + "&kind=pixel", tracker + "&kind=script"]
    await navigate(page, url, wait_until="usable", timeout=15)
    reloaded = await reload(page, wait_until="usable", timeout=15)
    assert (reloaded.url, reloaded.title) == (url, "Tracked article")
    assert sorted(reloaded.pending) == hanging  # what the reload still waits on
    await navigate(page, server.url("/input/keys.html"))
    back = await go_back(page, wait_until="usable", timeout=15)
    # Restored from the back/forward cache as it was left: nothing loads.
    assert back is not None
    assert (back.url, back.title, back.pending) == (url, "Tracked article", ())

    # Without that cache, going back loads the page again, and waits as navigate does.
    async with cdpkit.launch(args=["--disable-features=BackForwardCache"]) as browser:
        uncached = await browser.new_page()
        await navigate(uncached, url, wait_until="usable", timeout=15)
        await navigate(uncached, server.url("/input/keys.html"))
        back = await go_back(uncached, wait_until="usable", timeout=15)
        assert back is not None and (back.url, back.title) == (url, "Tracked article")
        assert sorted(back.pending) == hanging
        forward = await go_forward(uncached, wait_until="usable", timeout=15)
        assert forward is not None and (forward.title, forward.pending) == ("Keys", ())


async def test_usable_reload_and_history_moves_return_while_a_parser_blocking_script_never_answers(
    server: FixtureServer, other_server: FixtureServer
) -> None:
    tracker = other_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    url = server.url("/tracked-blocking?tracker=" + urllib.parse.quote(tracker, safe=""))
    async with cdpkit.launch(args=["--disable-features=BackForwardCache"]) as browser:
        page = await browser.new_page()
        await navigate(page, url, wait_until="usable", timeout=20)
        for move in (reload, go_back):
            if move is go_back:
                await navigate(page, server.url("/input/keys.html"))
            started = time.monotonic()
            result = await move(page, wait_until="usable", timeout=20)
            assert time.monotonic() - started < 15  # the stall ends the wait, not the timeout
            assert result is not None and (result.url, result.title) == (url, "Blocked article")
            assert result.pending == (tracker + "&kind=blocking",)


async def test_usable_navigation_returns_while_a_parser_blocking_script_never_answers(
    page: cdpkit.Page, server: FixtureServer, other_server: FixtureServer
) -> None:
    # An old page's ad loader: <script src> in the body, from a host that never answers.
    # DOMContentLoaded never comes; what was parsed before the script is the page.
    tracker = other_server.url(f"/hang?s=60&page={time.monotonic_ns()}")
    url = server.url("/tracked-blocking?tracker=" + urllib.parse.quote(tracker, safe=""))
    started = time.monotonic()
    result = await navigate(page, url, wait_until="usable", timeout=20)
    assert time.monotonic() - started < 15  # the stall ends the wait, not the timeout
    assert (result.url, result.status, result.title) == (url, 200, "Blocked article")
    assert result.pending == (tracker + "&kind=blocking",)
    story = await cdpkit.tools.evaluate(page, "document.querySelector('p').textContent")
    assert story == "The story itself."
    with pytest.raises(cdpkit.WaitTimeoutError, match="DOMContentLoaded"):
        await navigate(page, url, wait_until="domcontentloaded", timeout=2)


async def test_usable_navigation_to_a_document_that_never_answers_times_out(
    page: cdpkit.Page, server: FixtureServer
) -> None:
    url = server.url("/slow?s=4")
    with pytest.raises(cdpkit.WaitTimeoutError) as caught:
        await navigate(page, url, wait_until="usable", timeout=1)
    assert f"the navigation to {url} to reach DOMContentLoaded" in str(caught.value)


async def test_the_browsers_own_pages_open_in_the_default_context_and_are_refused_in_another(
    server: FixtureServer,
) -> None:
    # In a context of its own, chrome://settings (and history, extensions) ends the whole
    # headless Chrome: every context's pages with it. A browser of the test's own, so a
    # regression ends no other test's.
    async with cdpkit.launch() as browser:
        bystander = await browser.new_page()
        await navigate(bystander, server.url("/"))
        async with await browser.new_context() as context:
            page = await context.new_page()
            for url in ["chrome://settings", " CHROME:history", "view-source:chrome://extensions"]:
                with pytest.raises(cdpkit.NavigationError, match="only in the browser's default context"):
                    await navigate(page, url)
            with pytest.raises(cdpkit.NavigationError, match="only in the browser's default context"):
                await cdpkit.tools.new_tab(browser, "chrome://settings", context=context)
            await navigate(page, server.url("/"))  # the page and its context work on
        assert (await navigate(bystander, "chrome://version")).url == "chrome://version/"
        title = await bystander.send(cdp.runtime.evaluate("document.title", return_by_value=True))
        assert title.result.value == "About Version"
