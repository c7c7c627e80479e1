#!/usr/bin/env bash
# One-shot set-up: system packages (SimGrid's Python bindings from Debian), the virtual
# environment and the project with its pinned dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# Debian packages: SimGrid's Python bindings and C++ headers (required: the in situ default
# engine is compiled against libsimgrid); Chromium and its driver for the
# dashboard's browser tests (optional: where apt cannot install them, those tests are skipped
# and say why; the dashboard itself opens in any browser)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
missing() { for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || echo "$pkg"; done; }
need=$(missing python3-simgrid libsimgrid-dev chromium chromium-driver xvfb xdotool)
if [ -n "$need" ]; then
    echo "setup: installing Debian packages:" $need >&2
    $SUDO apt-get update -qq || true
    if [ -n "$(missing python3-simgrid libsimgrid-dev)" ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-simgrid \
            libsimgrid-dev >/dev/null
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

# The compiled modules (every .pyx under src/coschedlab, declared in setup.py) need a C
# compiler and Python's headers: say so in one line before pip would fail at length.
check_compiler() {
    local cc inc
    cc=${CC:-$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("CC") or "cc")')}
    inc=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    if ! command -v "${cc%% *}" >/dev/null 2>&1; then
        echo "setup: no C compiler ('${cc%% *}' not found): coschedlab builds compiled modules; install one (Debian: apt-get install gcc) or set CC, and run again" >&2
        exit 1
    elif [ ! -f "$inc/Python.h" ]; then
        echo "setup: Python's C headers are missing ($inc/Python.h): install them (Debian: apt-get install python3-dev) and run again" >&2
        exit 1
    elif ! printf '#include <Python.h>\nint main(void) { return 0; }\n' \
        | $cc -I"$inc" -x c -c -o /dev/null - >/dev/null 2>&1; then
        echo "setup: the C compiler '$cc' cannot compile against Python's headers ($inc): fix it or set CC, and run again" >&2
        exit 1
    elif ! printf '#include <Python.h>\n#include <vector>\nint main(void) { std::vector<int> v; return 0; }\n' \
        | $cc -I"$inc" -x c++ -c -o /dev/null - >/dev/null 2>&1; then
        echo "setup: '$cc' cannot compile C++ (the compiled kernel uses C++'s standard containers): install g++ (Debian: apt-get install g++) or set CC, and run again" >&2
        exit 1
    fi
}

if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ] \
    || [ setup.py -nt .venv/.installed ]; then
    check_compiler
    # the longest step, silent otherwise (pip -q): said before it starts
    echo "setup: installing coschedlab and its pinned packages into .venv, and building its" \
        "compiled core (3-6 minutes, once)" >&2
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[dev]"  # builds the compiled modules in place
    touch .venv/.installed
fi

# An editable install does not rebuild by itself: rebuild in place when a module is missing
# or any extension source (.pyx, .pxd, .pxi, .c, .h under src/coschedlab) is newer than it.
suffix=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
stale=""
while IFS= read -r pyx; do
    so="${pyx%.pyx}$suffix"
    if [ ! -e "$so" ] || [ -n "$(find src/coschedlab setup.py \( -name '*.pyx' -o -name '*.pxd' \
        -o -name '*.pxi' -o -name '*.c' -o -name '*.h' -o -name setup.py \) -newer "$so" \
        -print -quit)" ]; then
        stale="$pyx"
        break
    fi
done < <(find src/coschedlab -name '*.pyx')
if [ -n "$stale" ]; then
    check_compiler
    echo "setup: building the compiled modules in place ($stale or a source is newer)" >&2
    .venv/bin/python setup.py -q build_ext --inplace
fi

# SimGrid: link its one extension module into the venv (not all of Debian's dist-packages).
so=$(dpkg -L python3-simgrid | grep -E 'simgrid\.cpython-311-.*\.so$' | head -n 1 || true)
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [ -n "$so" ] && [ ! -e "$site/$(basename "$so")" ]; then
    ln -s "$so" "$site/$(basename "$so")"
fi
