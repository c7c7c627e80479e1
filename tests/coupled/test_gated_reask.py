"""Slurm's compiled pass asked again within one gated pass (``SlurmPass.run_gated``,
``regate``), on its own: a small coupled workload, its schedule checked by hand, and the
compiled pass against the Python pass (tests/reference_passes.py ``python_slurm``).

A hold or a yield makes the kernel ask the pass again within the same pass, with the held or
yielded job gone and the decisions after it dropped (still queued: the pass must take them
back); jobs that arrive at the very time of a re-ask, and jobs a mate attempt hid, join.
"""

from __future__ import annotations

from reference_passes import python_slurm
from test_coupled import M, W, pairs_of, run, starts

from coschedlab.coupled import System
from coschedlab.schedulers import Slurm

OPTS = {"sched_interval": 1.0, "bf_interval": 7.0}

# (id, submit, run, nodes). A (8 nodes, yield): a1 pairs with b1, a3/a4 with the held b3/b4,
# a5 with b5 (submitted at 200, so a5 yields until then); a6 is unpaired.
A = W((1, 10, 50, 2), (3, 100, 20, 2), (4, 100, 20, 1), (5, 10, 20, 1), (6, 10, 30, 1))
# B (5 nodes, hold): b0 fills B until 10; b2 is unpaired and arrives at 10 with b3, b4.
B = W((0, 0, 10, 5), (1, 5, 50, 2), (2, 10, 30, 1), (3, 10, 20, 1), (4, 10, 20, 1), (5, 200, 20, 1))
PAIRS = (((0, 1), (1, 1)), ((0, 3), (1, 3)), ((0, 4), (1, 4)), ((0, 5), (1, 5)))


def _run(make, asks=None):
    scheds = [make("A", asks), make("B", asks)]
    systems = [
        System("A", A, M(8), scheduler=scheds[0], scheme="yield"),
        System("B", B, M(5), scheduler=scheds[1], scheme="hold"),
    ]
    _, r = run(systems, pairs_of(*PAIRS))
    return scheds, r


def _compiled(name, asks):
    return Slurm(**OPTS)


def _python(name, asks):
    """The Python pass, each call logged in ``asks``: (system, time, queue, decisions)."""
    p = python_slurm(**OPTS)
    schedule = p.schedule

    def logged(view):
        out = list(schedule(view))
        asks.append((name, view.now, list(view.queue), out))
        return out

    p.schedule = logged
    return p


def test_reasks_within_one_gated_pass_give_the_hand_checked_schedule_both_ways():
    asks: list = []
    fast, rf = _run(_compiled)
    slow, rs = _run(_python, asks)
    assert all(s.compiled_pass is not None and s.compiled_pass.gated for s in fast)
    assert all(s.compiled_pass is None for s in slow)
    # the scenario asks again within a pass where it means to (job indexes, per system):
    # at 10 in A, a5 yields first: a6 and a1 (dropped) are asked again; at 10 in B, a mate
    # attempt for b1 hides b3 and b4 and starts b2 (arrived at 10) and b1; then b3 holds and
    # b4 (dropped) is asked again, and holds; at 100 in A, a3 and a4 arrive, a5 yields, they
    # are asked again and start with their held mates
    at = [(n, t, q, d) for n, t, q, d in asks if t in (10.0, 100.0)]
    assert at == [
        ("A", 10.0, [0, 1, 2], [1, 2, 0]),
        ("A", 10.0, [0, 2], [2, 0]),
        ("B", 10.0, [1, 2], [2, 1]),
        ("B", 10.0, [3, 4], [3, 4]),
        ("B", 10.0, [4], [4]),
        ("A", 100.0, [1, 3, 4], [1, 4, 3]),
        ("A", 100.0, [3, 4], [4, 3]),
    ]
    # by hand: b0 fills B until 10; at 10 a1 starts with b1 (the mate attempt), a6 and b2
    # start, b3 and b4 hold B's last 2 nodes until a3 and a4 arrive at 100; a5 yields until
    # b5 arrives at 200
    want_a = {1: 10.0, 3: 100.0, 4: 100.0, 5: 200.0, 6: 10.0}
    want_b = {0: 0.0, 1: 10.0, 2: 10.0, 3: 100.0, 4: 100.0, 5: 200.0}
    for r in (rf, rs):
        assert starts(r, 0) == want_a and starts(r, 1) == want_b
        assert r.holds[["system", "job_id", "start", "end", "outcome"]].values.tolist() == [
            ["B", 3, 10.0, 100.0, "start"],
            ["B", 4, 10.0, 100.0, "start"],
        ]
    for x, y in zip(rf.results, rs.results, strict=True):
        assert x.jobs["start"].tolist() == y.jobs["start"].tolist()
        assert (
            x.jobs["reservation"].fillna(-1).tolist() == y.jobs["reservation"].fillna(-1).tolist()
        )
    assert rf.holds.equals(rs.holds)
