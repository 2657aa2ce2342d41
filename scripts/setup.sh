#!/usr/bin/env bash
# Sets up a development checkout on Debian/Ubuntu: Chromium (only if no Chrome is found),
# a virtualenv in .venv with cdpkit and its dev dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

have_chrome() {
    [ -n "${CDPKIT_CHROME:-}" ] && [ -x "${CDPKIT_CHROME}" ] && return 0
    for name in chromium chromium-browser google-chrome google-chrome-stable chrome msedge; do
        command -v "$name" >/dev/null 2>&1 && return 0
    done
    return 1
}

if ! have_chrome; then
    echo "setup: no Chrome found; installing Debian's chromium" >&2
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
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
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
