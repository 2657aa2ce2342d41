"""Every example in examples/ runs and prints what it says it does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import REPO, isolated_env

EXAMPLES = REPO / "examples"


def run_example(name: str, cwd: Path, *args: str) -> str:
    env = isolated_env(cwd / "home")
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    return result.stdout


def test_every_example_is_tested_and_says_what_it_shows() -> None:
    tested_here = {name.removeprefix("test_") + ".py" for name in globals() if name.startswith("test_")}
    tests = [p.read_text() for p in (REPO / "tests").rglob("test_*.py")]
    for example in EXAMPLES.glob("*.py"):
        if example.name.startswith("_"):
            continue  # helpers, not examples
        assert example.name in tested_here or any(
            f"examples/{example.name}" in text for text in tests
        ), f"{example.name} is not run by any test"
        first = example.read_text().splitlines()[0]
        assert first.startswith('"""') and len(first) > 20, example.name  # says what it shows


def test_quickstart(tmp_path: Path) -> None:
    out = run_example("quickstart.py", tmp_path)
    assert re.match(r"Launched (Headless)?Chrome/\d+", out)
    assert "Title: Hello from cdpkit\nHeading: Hello from cdpkit\n" in out


def test_network_log(tmp_path: Path) -> None:
    out = run_example("network_log.py", tmp_path)
    assert re.search(r"^Navigating frame [0-9A-F]{32}$", out, re.M)
    for line in ("-> GET /network.html (Document)", "<- 200 /network.html text/html",
                 "-> GET /data/products.json (Fetch)", "<- 200 /data/products.json application/json",
                 "<- 200 /media/photo.png image/png"):
        assert line in out
    assert 'Body of /data/products.json: [\n  {"name": "Teapot", "price": 24},' in out
    assert out.endswith("The page shows:\nTeapot: 24 EUR\nKettle: 39 EUR\nMug: 8 EUR\n")


def test_snapshot_click(tmp_path: Path) -> None:
    out = run_example("snapshot_click.py", tmp_path)
    assert re.search(r'^\[\d+\] button "Add item" @\(', out, re.M)
    assert re.search(r"^Clicking \[\d+\] button 'Add item'$", out, re.M)
    assert re.search(r"^New line: \[\d+\] checkbox 'Water the plants'$", out, re.M)
    assert "The page now says: 2 items" in out
    assert out.endswith("After clearing 'Buy milk': 1 item\n")


def test_fill_form(tmp_path: Path) -> None:
    out = run_example("fill_form.py", tmp_path)
    assert "  name: 'Ada Lovelace'\n  email: 'ada@example.com'\n  plan: 'pro'\n  newsletter: True\n" in out
    assert out.endswith(
        "Welcome, Ada Lovelace <ada@example.com>! Plan: pro, newsletter: yes, message: Looking forward to it.\n"
    )


def test_screenshot_pdf(tmp_path: Path) -> None:
    out = run_example("screenshot_pdf.py", tmp_path)
    height = int(re.search(r"report-full\.png: \d+ bytes, \d+x(\d+) px", out).group(1))  # type: ignore[union-attr]
    assert height > 2000  # three 700 px sections: more than any viewport
    assert (tmp_path / "report-full.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "report-viewport.jpeg").read_bytes()[:3] == b"\xff\xd8\xff"
    assert (tmp_path / "report.pdf").read_bytes()[:5] == b"%PDF-"
    assert "report.pdf: " in out and "starts with %PDF-" in out


def test_scrape_markdown(tmp_path: Path) -> None:
    out = run_example("scrape_markdown.py", tmp_path)
    assert out.startswith("Title: Brewing tea\n# Brewing tea\n")
    for fragment in ("## Temperatures", "| Green | 80 °C | 2 |", "1. Warm the pot.",
                     "[the history of tea](https://en.wikipedia.org/wiki/Tea)", "```\nsetTimeout("):
        assert fragment in out
    assert "The Tea Society" not in out and "About" not in out  # footer and nav are left out
    assert out.endswith("Links:\n  https://en.wikipedia.org/wiki/Tea  the history of tea\n")


def test_download_media(tmp_path: Path) -> None:
    out = run_example("download_media.py", tmp_path)
    assert re.search(r"^/media/photo\.png -> \d{13}\.png \(301 bytes, image/png\)$", out, re.M)
    assert re.search(r"^/media/chime\.wav -> \d{13}\.wav \(1644 bytes, audio/", out, re.M)
    assert "#notes -> notes.txt (64 bytes, text/plain)" in out
    saved = sorted(p.suffix for p in (tmp_path / "downloads").iterdir())
    assert saved == [".png", ".txt", ".wav"]


def test_intercept_requests(tmp_path: Path) -> None:
    out = run_example("intercept_requests.py", tmp_path)
    before, _, after = out.partition("Intercepting:")
    assert "Local team wins the cup" in before and "Tracking: on" in before
    assert re.search(r"^  blocked   http://127\.0\.0\.1:\d+/tracker\.js$", after, re.M)
    assert re.search(r"^  answered  http://127\.0\.0\.1:\d+/data/headlines\.json$", after, re.M)
    assert re.search(r"^  continued http://127\.0\.0\.1:\d+/news\.html \(\+ X-Demo header\)$", after, re.M)
    with_interception = after.partition("With interception:")[2]
    assert "cdpkit intercepts requests" in with_interception
    assert "Local team" not in with_interception and "Tracking: off" in with_interception


def test_parallel_scrape(tmp_path: Path) -> None:
    out = run_example("parallel_scrape.py", tmp_path)
    assert out.startswith(
        "Teapot     Price: 10 EUR\nKettle     Price: 17 EUR\nMug        Price: 24 EUR\n"
        "Strainer   Price: 31 EUR\nTin        Price: 38 EUR\nTray       Price: 45 EUR\n"
    )
    assert re.search(r"Scraped 6 pages with 3 workers in \d+\.\d s\n$", out)


@pytest.mark.parametrize("run", [1, 2])
def test_login_profile(tmp_path_factory: pytest.TempPathFactory, run: int) -> None:
    # Run twice on the same profile: the example starts from a signed-out state each time.
    home = tmp_path_factory.getbasetemp() / "login-example"
    home.mkdir(exist_ok=True)
    out = run_example("login_profile.py", home)
    assert f"in {home / 'home' / 'profiles' / 'cdpkit-example-login'}" in out
    assert "Before signing in: Not signed in." in out
    assert "After signing in:  Signed in as ada\n" in out
    assert out.endswith("After a restart:   Signed in as ada\n")
