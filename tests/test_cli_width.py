"""What the commands print reads at 80 columns: their closing "wrote ..." lines are
word-wrapped at the console's width (they ran to 95-250 characters: the sweeps' list of the
files written, workflows generate, insitu generate, coupled simulate's notes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli import SMALL, cli_here  # noqa: E402

SPEC = """\
name: two schedulers on a small trace
schedulers: [fcfs, easy]
workloads:
  - name: small
    trace: small.swf
"""


def _long_lines(done) -> list[str]:
    return [x for x in (done.stdout + done.stderr).splitlines() if len(x) > 80]


@pytest.mark.parametrize(
    "args",
    [
        ["insitu", "generate", "--simulations", "4", "--analyses", "4", "--data", "4",
         "--nodes", "16", "--seed", "1", "--out", "a-folder-name-of-some-length/ens.yaml"],
        ["workflows", "generate", "-w", "cybershake", "--share", "0.1", "--machine", "64x24",
         "--window", "86400", "--out", "a-folder-name-of-some-length/wl"],
        ["compare", "spec.yaml", "--out", "a-folder-name-of-some-length/cmp", "--jobs", "1"],
        ["coupled", "simulate", "--system", "kth:load=0.5", "--system", "small.swf:name=small",
         "--pairs", "every:1", "--out", "a-folder-name-of-some-length/cpl"],
    ],
    ids=["insitu-generate", "workflows-generate", "compare", "coupled-simulate"],
)  # fmt: skip
def test_every_line_fits_80_columns(tmp_path, args):
    (tmp_path / "small.swf").write_text(SMALL)
    (tmp_path / "spec.yaml").write_text(SPEC)
    done = cli_here(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout + done.stderr
    assert _long_lines(done) == []
