"""The passes a run makes on a clock with no look ahead are bounded before it starts
(:meth:`coschedlab.engine.kernel.Simulation._check_ticks`,
:meth:`coschedlab.schedulers.passes.SlurmPass.tick_count`): a run is refused only when the
ticks that really wake a pass exceed the limit, not every tick of the span. The limit is
lowered here (``MAX_TICKS``) so that the runs stay short; passes are counted, never timed."""

from __future__ import annotations

import pytest

from coschedlab import Cluster, Workload, simulate
from coschedlab.engine import kernel
from coschedlab.errors import InputError
from coschedlab.schedulers.slurm import Slurm

LIMIT = 20_000


def _wait(length: float, run_past: bool = False, extra: int = 0) -> Workload:
    """A job of ``length`` s on one of two nodes (its limit 100 s when ``run_past``), a
    two-node job waiting behind it, and ``extra`` one-node jobs of 100 s after that."""
    rows = [(1, 0.0, length, 100.0 if run_past else length, 1), (2, 10.0, 100.0, 200.0, 2)]
    rows += [(3 + k, 20.0, 100.0, 200.0, 1) for k in range(extra)]
    return Workload.from_records(
        [
            {"id": i, "submit": t, "run": run, "requested_time": req, "procs": n}
            for i, t, run, req, n in rows
        ]
    )


@pytest.fixture
def low_limit(monkeypatch):
    monkeypatch.setattr(kernel, "MAX_TICKS", LIMIT)


def test_bf_nodes_wakes_at_recalculations_only(low_limit):
    """``bf_nodes`` skips a pass over an unchanged state: on a wait of 3e6 s it wakes at each
    300-s recalculation (10^4 passes), not at each 30-s tick (10^5): it runs, under the
    limit that the ticks of the span would exceed (refused before: a false positive)."""
    sched = Slurm(bf_nodes=True)
    result = simulate(_wait(3e6), Cluster(2, 1, 1), sched)
    assert result.jobs.start.tolist() == [0.0, 3e6]
    assert 3e6 / 30 > LIMIT > result.passes > 3e6 / 300 - 10


@pytest.mark.parametrize(
    "opts, kill, extra, match",
    [  # each would wake a pass at every 30-s tick of the 3e6 s (10^5 passes)
        ({"bf_nodes": True, "priority_calc_period": 30}, False, 0, "priority_calc_period=30"),
        ({"bf_nodes": True}, False, 0, "while a job runs past its time limit"),
        ({"bf_nodes": True, "bf_max_job_test": 2}, True, 3, "bf_interval=30 s while jobs wait"),
        ({"bf_interval": 0.1, "bf_resolution": 1}, True, 0, "proving each tick on its own"),
        ({"bf_interval": 7, "bf_resolution": 3600}, False, 0, "runs past its time limit"),
    ],
)
def test_runs_that_would_wake_at_every_tick_are_refused(low_limit, opts, kill, extra, match):
    """A run with more woken ticks than the limit is refused before the first event, naming
    what wakes it: the recalculations, a job past its limit (kill off), more jobs waiting
    than a pass tests, clocks the look ahead cannot group in classes off the 1/64-s grid (each
    tick scanned), or on it while a job runs past its limit."""
    w = _wait(3e6 if opts.get("bf_interval") != 0.1 else 1e5, run_past=not kill, extra=extra)
    with pytest.raises(InputError, match=match):
        simulate(w, Cluster(2, 1, 1), Slurm(**opts), kill_at_walltime=kill)


def test_the_same_runs_killed_at_their_limit_or_grouped_run(low_limit):
    """The same waits run when nothing wakes at every tick: a job killed at its limit
    (``bf_nodes``), clocks the look ahead groups (``bf_resolution`` a multiple of
    ``bf_interval``, at most 8 of its ticks)."""
    w = _wait(3e6, run_past=True)
    assert simulate(w, Cluster(2, 1, 1), Slurm(bf_nodes=True), kill_at_walltime=True).passes < 10
    fast = Slurm(bf_interval=7, bf_resolution=56)
    result = simulate(_wait(3e6), Cluster(2, 1, 1), fast)
    assert result.jobs.start.tolist() == [0.0, 3e6]
    assert result.passes < LIMIT


@pytest.mark.parametrize(
    "opts", [{"bf_interval": 7, "bf_resolution": 3600}, {"bf_interval": 0.5, "bf_resolution": 1}]
)
def test_clocks_in_no_classes_run_on_a_long_wait(low_limit, opts):
    """Clocks the look ahead cannot group in classes, on the 1/64-s grid: the wait of 3e6 s
    (4 x 10^5 to 6 x 10^6 ticks, refused before) is leapt over
    (:meth:`coschedlab.schedulers.passes.SlurmPass.first_reach`): a few passes. (The limit
    counts a scan per tick within ``bf_window`` of each job's arrival and end: 30 min here.)"""
    sched = Slurm(bf_window=30, **opts)
    result = simulate(_wait(3e6), Cluster(2, 1, 1), sched, kill_at_walltime=True)
    assert result.jobs.start.tolist() == [0.0, 3e6]
    assert result.passes < 20
    assert sched.backfill_passes > 3e6 / 7 - 10
