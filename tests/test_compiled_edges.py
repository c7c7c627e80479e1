"""The compiled core at its edges: Ctrl-C inside a compiled run, and inputs at the limits."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from coschedlab import Cluster, Workload, simulate


def _scan_heavy(n: int) -> Workload:
    """Job 1 holds 3 of 4 nodes for ever (its estimate long past), job 2 needs all 4: every
    later one-node job is scanned by EASY's backfill at each arrival and none may start, so
    the run is quadratic in ``n`` and never calls Python (no job ends: no progress report)."""
    run = np.full(n, 10.0)
    req = run.copy()
    procs = np.ones(n, dtype=np.int64)
    run[0], req[0], procs[0], procs[1] = 1e9, 1.0, 3, 4
    return Workload(
        {
            "id": np.arange(1, n + 1),
            "submit": np.arange(n, dtype=float),
            "run": run,
            "requested_time": req,
            "procs": procs,
        }
    )


@pytest.mark.parametrize("spec", ["easy", "easy:order=sjf"])
def test_ctrl_c_stops_a_compiled_run_promptly(spec):
    """A SIGINT during a compiled loop that calls no Python raises KeyboardInterrupt at the next
    event (the kernel checks for signals), not when the run is over. The signal comes from
    another process: the loop holds the GIL, so a thread of this one would not run."""
    w = _scan_heavy(80_000)  # about 5 s of compiled passes when run to the end
    killer = subprocess.Popen(["sh", "-c", f"sleep 0.3; kill -INT {os.getpid()}"])
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            simulate(w, Cluster(4), spec)
        assert time.monotonic() - t0 < 2.5
    finally:
        killer.wait()


@pytest.mark.parametrize("module", ["coschedlab.engine.kernel", "coschedlab._core.swf_parse"])
def test_missing_compiled_module_says_how_to_build(module, tmp_path):
    """Without a compiled module (never built, or a failed build) the command says in one line
    how to build it, instead of an internal error."""
    trace = tmp_path / "t.swf"
    job = "1 0 -1 10 1 -1 -1 1 10 -1 1" + " -1" * 7
    trace.write_text(f"; MaxNodes: 4\n; MaxProcs: 4\n{job}\n")
    code = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv = ['coschedlab', 'simulate', "
        f"{str(trace)!r}, '--out', {str(tmp_path / 'o')!r}]; "
        "from coschedlab.cli.main import main; main()"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "scripts/setup.sh" in lines[0] and module in lines[0], p.stderr
    assert not (tmp_path / "o").exists()


def test_a_generator_of_decisions_that_raises_is_the_policys_failure():
    """``schedule`` may return any iterable; a generator that raises midway is the policy's
    error (one line naming it, its file and line), not an internal error."""
    from coschedlab import InputError, Scheduler

    class Midway(Scheduler):
        name = "midway"

        def schedule(self, view):
            def decisions():
                yield view.queue[0]
                raise ValueError("broken midway")

            return decisions()

    w = Workload.from_records([(1, 0, 10, 10, 1), (2, 0, 10, 10, 1)])
    with pytest.raises(InputError, match=r"midway.*t=0.*ValueError: broken midway"):
        simulate(w, Cluster(4), Midway())
