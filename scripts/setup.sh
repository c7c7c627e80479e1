#!/usr/bin/env bash
# One-shot set-up: system packages (SimGrid's Python bindings from Debian), the virtual
# environment and the project with its pinned dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if ! dpkg -s python3-simgrid >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-simgrid >/dev/null
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
