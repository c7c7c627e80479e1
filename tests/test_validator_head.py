"""The compiled EASY head check (``coschedlab._core.checks``, called by the validator)
against the plain-Python scan it replaced (tests/validator_oracle.py): the same verdicts and
the same messages on random valid schedules of the built-in schedulers and on corrupted ones
(starts moved later or earlier, passes and dependencies included)."""

from __future__ import annotations

import numpy as np
from conftest import workloads
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from validator_oracle import check_easy_head as oracle

from coschedlab import Cluster, simulate
from coschedlab import validator as V
from coschedlab.validator import check_jobs

SCHEDULERS = ["easy", "easy:extra=false", "easy:depth=2", "fcfs", "conservative", "sjf",
              "easy:order=wfp", "firstfit"]  # fmt: skip
clusters = st.builds(Cluster, st.integers(1, 8), st.integers(1, 2), st.integers(1, 2))


def _corrupt(cols: dict, data) -> dict:
    """Move some jobs' starts (and ends, keeping the run) later or earlier."""
    cols = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in cols.items()}
    n = len(cols["start"])
    for _ in range(data.draw(st.integers(0, 3))):
        k = data.draw(st.integers(0, n - 1))
        shift = float(data.draw(st.integers(-50, 200)))
        cols["start"][k] += shift
        cols["end"][k] += shift
    return cols


def _both(table, cluster, guarantees, monkeypatch):
    got = check_jobs(table, cluster, guarantees=guarantees)
    with monkeypatch.context() as m:
        m.setattr(V, "_check_easy_head", oracle)
        want = check_jobs(table, cluster, guarantees=guarantees)
    return got, want


@settings(max_examples=250, deadline=None)
@given(w=workloads(), cluster=clusters, spec=st.sampled_from(SCHEDULERS), data=st.data(),
       kill=st.booleans())  # fmt: skip
def test_same_verdicts_and_messages_as_the_python_scan(w, cluster, spec, data, kill):
    import pytest

    w = w.select(w.procs <= cluster.total_cores)
    assume(len(w) > 0)
    r = simulate(w, cluster, spec, kill_at_walltime=kill)
    table = _corrupt(r.columns, data)
    mp = pytest.MonkeyPatch()
    try:
        got, want = _both(table, cluster, ("head",), mp)
    finally:
        mp.undo()
    assert got.violations == want.violations
    assert got.checked == want.checked and got.not_checked == want.not_checked


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_scan_itself_on_random_tables(data):
    """Straight on random tables (not simulated: any starts, passes, releases, overruns)."""
    n = data.draw(st.integers(1, 30))
    ints = st.integers(0, 60)
    submit = np.array(sorted(data.draw(st.lists(ints, min_size=n, max_size=n))), dtype=float)
    start = submit + np.array(data.draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    run = np.array(data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)), dtype=float)
    req = np.maximum(0, run + np.array(data.draw(st.lists(st.integers(-10, 20), min_size=n,
                                                          max_size=n)), dtype=float))  # fmt: skip
    capacity = data.draw(st.integers(1, 6))
    nodes = np.array(data.draw(st.lists(st.integers(1, capacity), min_size=n, max_size=n)))
    passes = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    joined = np.array(data.draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n)))
    release = submit + np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    ids = np.arange(100, 100 + n)
    order = np.lexsort((ids, submit))
    use_passes = data.draw(st.booleans())
    use_joined = data.draw(st.booleans())
    args = (order, release, start, start + run, req, nodes, ids, passes if use_passes else None,
            capacity, joined if use_joined else None)  # fmt: skip
    assert V._check_easy_head(*args) == oracle(*args)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_scan_on_random_tables_with_many_ties(data):
    """As above on a coarse grid of times (a few instants, many jobs at each): jobs started at
    the instant a job became head, behind it (backfilled around it in that pass, not counted
    in its shadow time), are common here and rare above."""
    n = data.draw(st.integers(1, 30))

    def ints(hi: int, lo: int = 0) -> np.ndarray:
        return np.array(data.draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)))

    submit = np.sort(ints(20)).astype(float)
    start = submit + ints(20)
    run = ints(15).astype(float)
    req = np.maximum(0, run + ints(10, -3)).astype(float)
    capacity = data.draw(st.integers(1, 5))
    nodes = ints(capacity, 1)
    passes, joined, release = ints(2), ints(2, -1), submit + ints(2)
    ids = np.arange(100, 100 + n)
    order = np.lexsort((ids, submit))
    args = (order, release, start, start + run, req, nodes, ids,
            passes if data.draw(st.booleans()) else None, capacity,
            joined if data.draw(st.booleans()) else None)  # fmt: skip
    assert V._check_easy_head(*args) == oracle(*args)


def test_the_oracle_and_the_scan_both_see_a_delayed_head(monkeypatch):
    """A schedule that delays EASY's head: both report it, in the same words (the comparison
    is not vacuous)."""
    from test_validator import delayed_head

    jobs, cluster = delayed_head()
    got, want = _both(jobs, cluster, ("head",), monkeypatch)
    assert len(got.violations) == 1 and "EASY delayed head job 2" in got.violations[0]
    assert got.violations == want.violations


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_node_overlap_scan_is_the_numpy_one(data):
    """The compiled whole-node overlap scan against the NumPy sort it replaced, on random
    allocations (overlapping or not, out of the machine, wrong counts) and times."""
    from validator_oracle import check_nodes as oracle_nodes

    n = data.draw(st.integers(1, 25))
    capacity = data.draw(st.integers(1, 12))
    start = np.array(data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)), dtype=float)
    run = np.array(data.draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)), dtype=float)
    allocs, nodes = [], []
    for _ in range(n):
        parts, held = [], 0
        for _ in range(data.draw(st.integers(0, 3))):
            a = data.draw(st.integers(0, capacity))  # capacity itself: outside the machine
            b = a + data.draw(st.integers(0, 3))
            parts.append(f"{a}-{b}" if b > a else f"{a}")
            held += b - a + 1
        allocs.append(" ".join(parts))
        nodes.append(held + (data.draw(st.integers(-1, 1)) if data.draw(st.booleans()) else 0))
    nodes = np.array(nodes, dtype=np.int64)
    ids = np.arange(1, n + 1)
    args = (allocs, start, start + run, nodes, capacity, ids)
    assert V._check_nodes(*args) == oracle_nodes(*args)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_running_set_walks_its_ranks_in_order(data):
    """The scan's set of running ranks (bit words in levels) against a Python set: sizes that
    need one to four levels, ranks at the ends of words and levels."""
    from coschedlab._core.checks import _ranks_walks

    n = data.draw(st.sampled_from([1, 63, 64, 65, 4095, 4096, 4097, 300_000]))
    edges = [0, n - 1, 63, 64, 4095, 4096, 262_143, 262_144]
    ranks = st.one_of(st.integers(0, n - 1), st.sampled_from([e for e in edges if e < n]))
    members: set[int] = set()
    ops, want = [], []
    for _ in range(data.draw(st.integers(1, 60))):
        p = data.draw(ranks)
        op = data.draw(st.sampled_from([1, -1, 0]))
        if op < 0 and p not in members:
            op = 1
        if op > 0:
            members.add(p)
        elif op < 0:
            members.discard(p)
        else:
            want.append(sorted(q for q in members if q >= p))
        ops.append((op, p))
    assert _ranks_walks(n, ops) == want
