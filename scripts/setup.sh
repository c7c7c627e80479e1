#!/usr/bin/env bash
# One-shot set-up: system packages (SimGrid's Python bindings from Debian), the virtual
# environment and the project with its pinned dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# Debian packages: SimGrid's Python bindings (required); Chromium and its driver for the
# dashboard's browser tests (optional: where apt cannot install them, those tests are skipped
# and say why; the dashboard itself opens in any browser)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
missing() { for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || echo "$pkg"; done; }
need=$(missing python3-simgrid chromium chromium-driver xvfb xdotool)
if [ -n "$need" ]; then
    $SUDO apt-get update -qq || true
    if [ -n "$(missing python3-simgrid)" ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-simgrid >/dev/null
    fi
    if [ -n "$(missing chromium chromium-driver)" ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver \
            >/dev/null 2>&1 || echo "setup: chromium not installed: the browser tests will be skipped" >&2
    fi
    if [ -n "$(missing xvfb xdotool)" ]; then  # a virtual screen for the desktop-window test
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq xvfb xdotool \
            >/dev/null 2>&1 || echo "setup: xvfb not installed: the window test will be skipped" >&2
    fi
fi

if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[dev]"
    touch .venv/.installed
fi

# SimGrid: link its one extension module into the venv (not all of Debian's dist-packages).
so=$(dpkg -L python3-simgrid | grep -E 'simgrid\.cpython-311-.*\.so$' | head -n 1 || true)
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [ -n "$so" ] && [ ! -e "$site/$(basename "$so")" ]; then
    ln -s "$so" "$site/$(basename "$so")"
fi
