"""``scripts/setup.sh`` (``make run``'s first step) as a newcomer meets it: its long steps say
what they do before they start. Run in a copy of the script with stand-ins for ``dpkg``,
``apt-get`` and the venv's pip, so nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "pip $*" >> "$LOG"; exit 0; fi
exec {python} "$@"
"""


def _fake(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)


def _setup_in_copy(tmp_path: Path, installed: bool) -> subprocess.CompletedProcess:
    """Run a copy of setup.sh in a fresh folder: a venv whose pip only logs its calls,
    ``dpkg -s`` saying a package is there when ``installed``, an ``apt-get`` that logs."""
    if shutil.which("bash") is None:
        pytest.skip("no bash here")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    for name in ("pyproject.toml", "setup.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "src" / "coschedlab").mkdir(parents=True)  # (no module to build)
    venv, bin_ = tmp_path / ".venv" / "bin", tmp_path / "bin"
    venv.mkdir(parents=True)
    bin_.mkdir()
    _fake(venv, "python", FAKE_PYTHON.format(python=sys.executable))
    _fake(bin_, "dpkg", f"#!/bin/sh\nexit {0 if installed else 1}\n")
    _fake(bin_, "apt-get", '#!/bin/sh\necho "apt-get $*" >> "$LOG"\n')
    _fake(bin_, "sudo", '#!/bin/sh\nexec "$@"\n')
    return _run_setup(tmp_path)


def _run_setup(tmp_path: Path) -> subprocess.CompletedProcess:
    """The copy's setup.sh run with the stand-ins of ``tmp_path/bin`` first on the path and
    their log in ``tmp_path/log``."""
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env["LOG"] = str(tmp_path / "log")
    return subprocess.run(
        ["bash", "scripts/setup.sh"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_setup_says_what_it_installs_before_the_long_steps(tmp_path):
    """pip's install and the build took 3-6 minutes without a word (pip -q): a newcomer's
    ``make run`` printed "bash scripts/setup.sh" and then nothing."""
    done = _setup_in_copy(tmp_path, installed=False)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert any(x.startswith("setup: installing Debian packages: python3-simgrid") for x in lines)
    assert (
        "setup: installing coschedlab and its pinned packages into .venv, and building its "
        "compiled core (3-6 minutes, once)"
    ) in lines, done.stderr
    log = (tmp_path / "log").read_text()
    assert "apt-get" in log and "pip -m pip install -q -e .[dev]" in log
    assert (tmp_path / ".venv" / ".installed").is_file()


def test_setup_run_again_is_quiet(tmp_path):
    """Everything in place: no line, nothing installed."""
    _setup_in_copy(tmp_path, installed=True)  # the first: installs into the venv
    (tmp_path / "log").unlink()
    done = _run_setup(tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert not (tmp_path / "log").exists()
