"""Progress and deadlock (issue 29): with release on, a coupled run always progresses (the pass
after a release holds nothing); without release, a deadlock is reported when it forms (the
wait-for graph of held jobs and their mates), not when the rest of the machines has drained.
Each case failed on the code before the fix."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_coupled import M, W, pairs_of, run, starts

from coschedlab.coupled import CoupledDeadlock, CoupledSimulation, System
from coschedlab.coupled.mates import make_pairs
from coschedlab.coupled.result import CoupledResult
from coschedlab.coupled.setup import build_systems
from coschedlab.jobs import Workload


def _no_quiet_stretch(r: CoupledResult, c: CoupledSimulation) -> None:
    """Once no arrival is left, whenever no machine runs anything while jobs wait, a job starts
    within two release periods plus the release age (every hold is then released and the
    release's pass gives the nodes to jobs that can start). A machine alone may stay quiet
    longer: its waiting jobs' mates may wait for the other machine's running jobs."""
    cols = [{k: x.jobs[k].to_numpy(float) for k in ("submit", "start", "end")} for x in r.results]
    last = max(float(j["submit"].max()) for j in cols)
    bound = max(3 * st.period + st.system.release_age for st in c.state)
    starts_sorted = np.sort(np.concatenate([j["start"] for j in cols]))
    times = np.unique(np.concatenate([j[k] for j in cols for k in ("start", "end")]))
    for t in times[times >= last]:
        running = any(np.any((j["start"] <= t) & (j["end"] > t)) for j in cols)
        waiting = any(np.any((j["submit"] <= t) & (j["start"] > t)) for j in cols)
        if waiting and not running:
            nxt = starts_sorted[np.searchsorted(starts_sorted, t, side="right")]
            assert nxt - t <= bound, (t, nxt)


def test_the_issue_livelock_progresses():
    """The issue's case: Theta (hold) with KTH at load 0.75 (hold), every third job paired.
    Before: from day 44.95 nothing started on either machine (5,065 hold/release cycles, both
    machines empty: the paired jobs that had yielded took the released nodes up to the hold cap,
    so the unpaired 2,048-node jobs never fitted and the mates never met); the stall guard
    reported a livelock."""
    systems, _ = build_systems(["theta:scheme=hold", "kth:load=0.75,scheme=hold"], [], 0)
    pairs = make_pairs("every:3", [s.workload for s in systems])
    c, r = run(systems, pairs)
    for x in r.results:
        assert np.isfinite(x.jobs["start"]).all()
    _no_quiet_stretch(r, c)
    m = r.metrics()
    assert m["theta"]["releases"] > 0 and m["kth"]["releases"] > 0


def _small_livelock_case(seed: int) -> list[Workload]:
    """Two 20-node machines, 10-40 jobs each in half an hour: 60% small short jobs, 40% wide
    long ones (the shape of the issue's case); seed 22 livelocked before the fix."""
    rng = random.Random(seed)
    n = rng.randint(10, 40)
    out = []
    for _ in range(2):
        rows = []
        for i in range(n):
            big = rng.random() < 0.4
            req = float(rng.choice([7200, 14400, 43200] if big else [600, 1800, 3600]))
            rows.append({
                "id": i + 1, "submit": float(rng.randint(0, 1800)),
                "run": req * rng.uniform(0.3, 1), "requested_time": req,
                "procs": rng.randint(11, 20) if big else rng.randint(1, 5),
            })  # fmt: skip
        out.append(Workload.from_records(rows))
    return out


@pytest.mark.parametrize("seed", [22, 23, 42])
def test_small_livelocks_progress(seed):
    ws = _small_livelock_case(seed)
    systems = [System("A", ws[0], M(20)), System("B", ws[1], M(20))]
    c, r = run(systems, make_pairs("every:2", ws))
    for x in r.results:
        assert np.isfinite(x.jobs["start"]).all()
    _no_quiet_stretch(r, c)


def test_a_deadlock_is_reported_when_it_forms():
    """Fig. 2's cycle forms at t=1 (when a2 and b1 arrive), while A goes on running a day of
    4-node jobs beside a1's hold: it is reported at t=1, naming only the cycle's holds (before:
    at the day's end, when A's other jobs had drained)."""
    fillers = [(10 + i, 2 + 100 * i, 100, 4) for i in range(864)]
    a = W((1, 0, 100, 6), (2, 1, 100, 6), *fillers)
    b = W((2, 0, 100, 6), (1, 1, 100, 6))
    pairs = pairs_of(((0, 1), (1, 1)), ((0, 2), (1, 2)))
    systems = [
        System("A", a, M(10), scheme="hold", release=None),
        System("B", b, M(10), scheme="hold", release=None),
    ]
    with pytest.raises(CoupledDeadlock) as e:
        CoupledSimulation(systems, pairs).run()
    msg = str(e.value)
    assert msg.startswith("deadlock at t=1 s (day 0.0)")
    assert "A job 1 holds 6 nodes since t=0 for B job 1 (which needs 6 of 10)" in msg
    assert "B job 2 holds 6 nodes since t=0 for A job 2 (which needs 6 of 10)" in msg


def test_a_hold_that_will_resolve_is_not_a_deadlock():
    """a1 holds 6 of A's 10 nodes for b1 (6 nodes) while B runs a long 10-node job: b1 can
    start once that job ends, so this is waiting, not a deadlock, even without release."""
    a = W((1, 0, 100, 6))
    b = W((2, 0, 5000, 10), (1, 1, 100, 6))
    pairs = pairs_of(((0, 1), (1, 1)))
    systems = [
        System("A", a, M(10), scheme="hold", release=None),
        System("B", b, M(10), scheme="hold", release=None),
    ]
    _, r = run(systems, pairs)
    assert starts(r, 0)[1] == starts(r, 1)[1] == 5000.0
