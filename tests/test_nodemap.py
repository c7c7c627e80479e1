"""The compiled node-space map (:class:`coschedlab.schedulers.nodemap.NodeMap`) against
:class:`nodespace_oracle.BackfillMap` (tests/nodespace_oracle.py): the same answers to every
``test``, the same slices after every ``reserve`` and the same idle nodes after every
``start``, on random machines (word boundaries included), running sets, resolutions and windows."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from nodespace_oracle import BackfillMap, best_fit

from coschedlab.schedulers.nodemap import NodeMap


def _bits(nodes):
    b = 0
    for k in nodes:
        b |= 1 << k
    return b


def _slices(space: BackfillMap) -> list:
    return [[b, e, [k for k in range(space.n) if bits >> k & 1]] for b, e, bits in space.slices]


@st.composite
def scenarios(draw):
    n = draw(st.sampled_from([1, 2, 3, 5, 8, 13, 40, 63, 64, 65, 127, 128, 130, 200]))
    now = draw(st.sampled_from([0.0, 17.0, 60.0, 1000.0, 3601.5]))
    free = list(range(n))
    running = []
    order = 0
    for _ in range(draw(st.integers(0, 12))):
        if not free:
            break
        take = draw(st.lists(st.sampled_from(free), min_size=1, max_size=min(len(free), 40),
                             unique=True))  # fmt: skip
        free = [k for k in free if k not in take]
        end = now + draw(st.sampled_from([-5.0, 0.0, 30.0, 60.0, 90.0, 600.0, 3600.0, 7200.0]))
        order += draw(st.integers(1, 3))
        running.append((end, order, sorted(take)))
    resolution = draw(st.sampled_from([1.0, 30.0, 60.0, 300.0]))
    window = draw(st.sampled_from([math.inf, 600.0, 3600.0, 86400.0]))
    jobs = draw(
        st.lists(
            st.tuples(st.integers(1, n), st.sampled_from([60.0, 120.0, 600.0, 3600.0, 7200.0]),
                      st.booleans()),
            max_size=15,
        )
    )  # fmt: skip
    return n, now, running, resolution, window, jobs, order


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_node_map_matches_backfill_map(sc):
    n, now, running, resolution, window, jobs, order = sc
    py = BackfillMap(now, n, running, resolution, window)
    c = NodeMap(now, n, running, resolution, window)
    assert c.idle_nodes() == [k for k in range(n) if py.idle >> k & 1]
    assert c.map_slices() == _slices(py)
    for need, limit, start_if_now in jobs:
        got = c.test(need, limit)
        want = py.test(need, limit)
        assert got == want, (need, limit)
        t, where = want
        if not where:
            continue
        if t <= now and start_if_now:
            order += 1
            py.start(where, order, limit)
            c.start(where, order, limit)
            assert c.idle_nodes() == [k for k in range(n) if py.idle >> k & 1]
        else:
            py.reserve(where, t, limit)
            c.reserve(where, t, limit)
            assert c.map_slices() == _slices(py)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=200), st.integers(1, 200))
def test_best_fit_on_bitsets(free, need):
    avail = [k for k, f in enumerate(free) if f]
    need = min(need, len(avail))
    if need == 0:
        return
    n = len(free)
    busy = [k for k in range(n) if not free[k]]
    c = NodeMap(0.0, n, [(10.0, 0, busy)] if busy else [], 1.0)
    t, where = c.test(need, 5.0)
    assert t == 0.0 and where == best_fit(avail, need)
    assert _bits(where) & _bits(busy) == 0


def test_a_machine_of_100000_nodes():
    n = 100_000
    running = [(100.0 + k, k, list(range(k * 1000, k * 1000 + 990))) for k in range(100)]
    c = NodeMap(0.0, n, running, 60.0, 86400.0)
    py = BackfillMap(0.0, n, running, 60.0, 86400.0)
    for need in (500, 1000, 5000, 99_500):
        got, want = c.test(need, 3600.0), py.test(need, 3600.0)
        assert got == want
        if want[1]:
            c.reserve(want[1], want[0], 3600.0)
            py.reserve(want[1], want[0], 3600.0)
    assert c.map_slices() == _slices(py)


def test_bad_nodes_are_refused():
    import pytest

    with pytest.raises(ValueError, match="not one of"):
        NodeMap(0.0, 4, [(10.0, 0, [4])])
    c = NodeMap(0.0, 4, [])
    with pytest.raises(ValueError, match="not one of"):
        c.reserve([-1], 0.0, 10.0)


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.sampled_from([None, 1, 2, 5]), st.booleans())
def test_scan_matches_reservation_scan(sc, reservations, as_ranges):
    """:meth:`NodeMap.scan` is :func:`.profile.reservation_scan` over BackfillMap: the same
    jobs started on the same nodes, the same reservations recorded, the same map after."""
    import numpy as np

    from coschedlab.schedulers.profile import reservation_scan

    n, now, running, resolution, window, jobs, _ = sc
    # the running jobs' orders are jobs of their own, apart from the scanned ones (as in a run:
    # view indices); a shared (end, order) would be broken by BackfillMap's bitmask, an artifact
    running = [(end, len(jobs) + o, ids) for end, o, ids in running]
    free = n - sum(len(nodes) for _, _, nodes in running)
    nodes = np.array([need for need, _, _ in jobs], dtype=np.int64)
    limit = np.array([lim for _, lim, _ in jobs], dtype=np.float64)
    order = list(range(len(jobs)))[::-1]
    py = BackfillMap(now, n, running, resolution, window)
    rec_py: list = []
    places: list = []
    want = reservation_scan(
        py, order, nodes.tolist(), limit.tolist(), free, now,
        lambda j, t: rec_py.append((j, t)), reservations, places=places,
    )  # fmt: skip
    if as_ranges:  # the kernel's allocation: (first, end) runs of node ids
        runs = []
        for end, o, ids in running:
            iv: list = []
            for k in ids:
                if iv and iv[-1][1] == k:
                    iv[-1][1] = k + 1
                else:
                    iv.append([k, k + 1])
            runs.append((end, o, [tuple(x) for x in iv]))
        c = NodeMap(now, n, runs, resolution, window, ranges=True)
    else:
        c = NodeMap(now, n, running, resolution, window)
    rec_c: list = []
    got = c.scan(order, nodes, limit, free, lambda j, t: rec_c.append((j, t)), reservations)
    assert got == (want, places)
    assert rec_c == rec_py
    assert c.map_slices() == _slices(py)
    assert c.idle_nodes() == [k for k in range(n) if py.idle >> k & 1]
