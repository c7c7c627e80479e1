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


def test_missing_kernel_is_said_before_the_trace_is_read(tmp_path):
    """The compiled kernel is looked for before the trace is read: a run that could not
    simulate does not first read (and check) a large trace: here the trace does not even
    exist, and the message is still the kernel's (exit 1), not the missing file's (exit 2)."""
    code = (
        "import sys; sys.modules['coschedlab.engine.kernel'] = None; sys.argv = ['coschedlab', "
        f"'simulate', {str(tmp_path / 'none.swf')!r}, '--out', {str(tmp_path / 'o')!r}]; "
        "from coschedlab.cli.main import main; main()"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "coschedlab.engine.kernel" in p.stderr and "none.swf" not in p.stderr


def test_a_compiled_module_older_than_its_source_is_said(tmp_path, monkeypatch):
    """A .pyx (or its .pxd) edited or checked out after the build: one line naming the module
    and the command that rebuilds it (the CLI exits 1 with it; the API raises it on import)."""
    import importlib.machinery

    from coschedlab import _build

    pkg = tmp_path / "coschedlab"
    (pkg / "engine").mkdir(parents=True)
    so = pkg / "engine" / ("mod" + importlib.machinery.EXTENSION_SUFFIXES[0])
    for path in (pkg / "engine" / "mod.pyx", pkg / "engine" / "mod.pxd", so):
        path.write_text("")
    os.utime(so, (1000, 1000))
    os.utime(pkg / "engine" / "mod.pyx", (900, 900))
    os.utime(pkg / "engine" / "mod.pxd", (900, 900))
    monkeypatch.setattr(_build, "_ROOT", str(pkg))
    monkeypatch.setattr(_build, "_checked", False)
    assert _build.stale_modules() == []
    _build.check_built()  # up to date: no error
    monkeypatch.setattr(_build, "_checked", False)
    os.utime(pkg / "engine" / "mod.pxd", (2000, 2000))  # the .pxd counts too
    assert _build.stale_modules() == [("coschedlab.engine.mod", str(pkg / "engine" / "mod.pxd"))]
    with pytest.raises(_build.StaleBuild) as err:
        _build.check_built()
    text = str(err.value)
    assert "\n" not in text and "coschedlab.engine.mod" in text and "scripts/setup.sh" in text


def test_the_command_says_a_stale_build_in_one_line(tmp_path):
    """The real entry point with a stale module: exit 1, one line, nothing written."""
    code = (
        "import sys, coschedlab._build as b; b.stale_modules = lambda: "
        "[('coschedlab.engine.kernel', 'kernel.pyx')]; sys.argv = ['coschedlab', 'simulate', "
        f"'coschedlab:KTH-SP2-1996-2.1-cln.swf.gz', '--out', {str(tmp_path / 'o')!r}]; "
        "from coschedlab.cli.main import main; main()"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "out of date" in lines[0] and "make run" in lines[0], p.stderr
    assert not (tmp_path / "o").exists()
