"""The compiled co-location mechanisms against their Python oracles, on random workloads.

* the segments (:class:`coschedlab.engine.segments.SharedNodes`, :class:`CoreProjection`)
  against ``segments_oracle.py`` (the Python code they replaced), operation by operation;
* the shared-core accounting (:class:`coschedlab.engine.segments.SharedCores`) against the
  oracle's segments driven as the old accounting drove them;
* the co-schedulers' compiled pass (:mod:`coschedlab.coloc.copass`), called by the kernel and
  from Python, against the Python class scan of :mod:`coschedlab.coloc.schedulers`;
* the speed model's per-event work (:class:`coschedlab.engine.cspeed.NeighbourSpeed`, called
  by the kernel in C) against ``speed_oracle.py`` (the same model in Python, called by the
  kernel as any Python speed model): whole co-scheduled runs, every job's start, end, speedup,
  neighbours met and kill flag equal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import segments_oracle as oracle
from _coloc_data import pool_ab
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_coloc import python_scan
from speed_oracle import OracleSpeed
from test_coloc_engine import busy, coloc_workloads

from coschedlab import Cluster, Workload, simulate
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.coloc.schedulers import (
    Bester,
    BestPair,
    EasyColoc,
    Filler,
    Jungle,
    Ranks,
    Slowdown,
)
from coschedlab.coloc.speed import ColocationSpeed
from coschedlab.engine.kernel import Simulation
from coschedlab.engine.placement import Placement
from coschedlab.engine.result import Result
from coschedlab.engine.segments import SharedCores, SharedNodes
from coschedlab.errors import InputError
from coschedlab.intervals import format_intervals


@st.composite
def segment_ops(draw):
    """A machine and a random sequence of placements (node sets, cores) and releases."""
    n = draw(st.integers(1, 14))
    cpn = draw(st.integers(1, 6))
    ops = []
    for _ in range(draw(st.integers(1, 50))):
        nodes = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        release = draw(st.sampled_from([None, "first", "last"]))
        ops.append((nodes, draw(st.integers(1, cpn)), release))
    return n, cpn, ops


def same_state(c: SharedNodes, o: oracle.SharedNodes, running: dict) -> None:
    """Every query of the compiled segments answers as the oracle's."""
    assert c.segments() == o.segments()
    assert c.nseg == len(c.starts)  # (the projection's reset copies by it)
    assert (c.n_idle, c.total_free) == (o.n_idle, o.total_free)
    assert c.nodes_by_free == o.nodes_by_free and c.room() == o.room()
    assert c.free.tolist() == o.free.tolist()
    for cores in range(0, c.cpn + 2):
        assert c.count_with(cores) == o.count_with(cores)
        assert c.partly_free(cores) == o.partly_free(cores)
        assert c.free_runs(cores) == o.free_runs(cores)
        for limit in (1, 3):
            assert c.partly_free(cores, limit) == o.partly_free(cores, limit)
    # the idle-node index holds the idle segments, and gives the lowest k idle nodes
    assert c.idle_runs == [(a, b) for a, b, f, _ in o.segments() if f == o.cpn]
    # the rows of nodes by free cores
    assert c.free_rows == [[x for x in range(c.n) if o.free_cores(x) == f] for f in range(c.cpn)]
    for k in range(c.n_idle + 1):
        assert c.idle_intervals(k) == o.idle_intervals(k)
    for j in running:
        assert c.neighbours_of(j) == o.neighbours_of(j)
        listed = c.neighbour_list(j)  # (the speed model sums over it: each job once)
        assert len(listed) == len(set(listed))
    for x in range(c.n):
        assert c.occupants(x) == o.occupants(x) and c.free_cores(x) == o.free_cores(x)


@settings(max_examples=150)
@given(segment_ops(), st.integers(0, 4))
def test_compiled_segments_equal_the_python_oracle(case, ids):
    # ids > 0: job numbers reused once released (from the ``ids`` lowest free): a number
    # placed again must not be taken for a neighbour where it ran before, nor listed twice
    drive_against_oracle(case, ids)


@st.composite
def crowded_ops(draw):
    """Many one- or two-core jobs on wide nodes, each on several runs of nodes: a job placed
    has tens of neighbours, each met on several segments (place_c lists each once: against
    the oracle, and each list without a job twice)."""
    n = draw(st.integers(4, 24))
    cpn = draw(st.integers(16, 40))
    ops = []
    for _ in range(draw(st.integers(20, 70))):
        nodes = set()
        for _ in range(draw(st.integers(1, 3))):
            a = draw(st.integers(0, n - 1))
            nodes.update(range(a, min(n, a + draw(st.integers(1, n)))))
        release = draw(st.sampled_from([None, None, None, "first", "last"]))
        ops.append((sorted(nodes), draw(st.integers(1, 2)), release))
    return n, cpn, ops


def test_neighbours_met_on_many_segments_are_listed_once():
    # twenty jobs on nested runs of nodes, then one across all of them: it meets all twenty
    # on the first segment, then each again on the later ones
    sh = SharedNodes(30, 40)
    for k in range(20):
        sh.place(k, [(0, k + 2)], 1)
    sh.place(99, [(0, 25)], 1)
    assert sh.neighbour_list(99) == list(range(20))
    for k in range(20):
        assert sh.neighbour_list(k).count(99) == 1
    sh.release(99, [(0, 25)], 1)
    assert all(99 not in sh.neighbours_of(k) for k in range(20))


@settings(max_examples=60)
@given(crowded_ops(), st.integers(0, 4))
def test_compiled_segments_with_many_neighbours_equal_the_python_oracle(case, ids):
    drive_against_oracle(case, ids)


def drive_against_oracle(case, ids) -> None:
    """Place and release ``case``'s jobs on the compiled segments and the oracle, comparing
    every query after each step (ids > 0: job numbers reused, :func:`test_compiled_segments_
    equal_the_python_oracle`)."""
    n, cpn, ops = case
    c, o = SharedNodes(n, cpn), oracle.SharedNodes(n, cpn)
    running: dict[int, tuple] = {}
    for step, (nodes, cores, release) in enumerate(ops):
        if release and running:
            k = min(running) if release == "first" else max(running)
            iv, ck = running.pop(k)
            c.release(k, iv, ck)
            o.release(k, iv, ck)
            assert c.neighbours_of(k) == o.neighbours_of(k)  # the job released last
            with pytest.raises(KeyError):
                c.release(k, iv, ck)  # (ended: not running)
        free = [j for j in range(ids + len(running)) if j not in running]
        job = free[step % len(free)] if ids else step
        p, q = Placement(job, nodes, cores), Placement(job, nodes, cores)
        why = c.check(p)
        assert why == o.check(q)
        if why is not None:  # placing it anyway: refused on the same node, nothing changed
            with pytest.raises(ValueError, match=f"node {why.split()[5][:-1]} has "):
                c.place(job, p._iv, cores)
            same_state(c, o, running)
        elif len(p._iv) > 1:  # out of order: refused after placing the first interval
            with pytest.raises(ValueError, match="out of order"):
                c.place(job, p._iv[::-1], cores)
            same_state(c, o, running)
        if why is None:
            iv = c.claim(p)
            assert iv == o.claim(q)
            running[job] = (iv, cores)
        for j in running:
            assert sorted(c.neighbours_of(j)) == sorted(o.neighbours_of(j))
        same_state(c, o, running)


@st.composite
def wide_ops(draw):
    """A machine of one to several words of the node bitmaps (64 nodes a word, 4,096 a word
    of their summaries) and placements of runs of nodes across word boundaries."""
    n = draw(st.sampled_from([63, 64, 65, 127, 129, 200, 4095, 4097, 8300]))
    cpn = draw(st.integers(1, 5))
    ops = []
    for _ in range(draw(st.integers(1, 10))):
        runs = []
        for _ in range(draw(st.integers(1, 3))):
            a = draw(st.sampled_from([0, 1, 62, 63, 64, 65, 127, 128, 4095, 4096, n // 2, n - 1]))
            a = min(a, n - 1)
            runs.append(range(a, min(n, a + draw(st.integers(1, 150)))))
        nodes = sorted({x for r in runs for x in r})
        ops.append((nodes, draw(st.integers(1, cpn)), draw(st.sampled_from([None, "first"]))))
    return n, cpn, ops


@settings(max_examples=40, deadline=None)
@given(wide_ops(), st.data())
def test_compiled_segments_across_words_equal_the_python_oracle(case, data):
    # segments indexed by first node in bitmaps of 64-node words (with a summary word per
    # 4,096 nodes), and rows of nodes by free cores: runs crossing words, machines of
    # several summary words
    n, cpn, ops = case
    c, o = SharedNodes(n, cpn), oracle.SharedNodes(n, cpn)
    running: dict[int, tuple] = {}
    for job, (nodes, cores, release) in enumerate(ops):
        if release and running:
            k = min(running)
            iv, ck = running.pop(k)
            c.release(k, iv, ck)
            o.release(k, iv, ck)
        p, q = Placement(job, nodes, cores), Placement(job, nodes, cores)
        why = c.check(p)
        assert why == o.check(q)
        if why is None:
            iv = c.claim(p)
            assert iv == o.claim(q)
            running[job] = (iv, cores)
        segs = o.segments()
        assert c.segments() == segs
        assert c.nseg == len(segs)
        assert c.nodes_by_free == o.nodes_by_free and c.n_idle == o.n_idle
        assert c.idle_runs == [(a, b) for a, b, f, _ in segs if f == cpn]
        rows = [[] for _ in range(cpn)]
        for a, b, f, _ in segs:
            if f < cpn:
                rows[f].extend(range(a, b))
        assert c.free_rows == rows
        for a, b, _, _ in segs:
            for x in {a, b - 1}:
                assert c.free_cores(x) == o.free_cores(x) and c.occupants(x) == o.occupants(x)
        k = data.draw(st.integers(0, c.n_idle))
        assert c.idle_intervals(k) == o.idle_intervals(k)
        for cores in range(cpn + 1):
            assert c.partly_free(cores) == o.partly_free(cores)
    thr = data.draw(st.integers(0, cpn + 1))
    pc, po = c.projection(thr), o.projection(thr)
    for nodes, cores, _ in ops:
        iv = Placement(0, nodes, cores).intervals
        assert pc.loss(iv, cores) == po.loss(iv, cores)
        sign = data.draw(st.sampled_from([1, -1]))
        assert pc.add(iv, sign * cores) == po.add(iv, sign * cores)
        assert (pc.starts, pc.free) == (po.starts, po.free)


@st.composite
def short_runs(draw):
    """Machines of two to four 64-node blocks and placements of short runs: many segments
    (more than one per 16 nodes: the projection's reset then copies by blocks)."""
    n = draw(st.sampled_from([65, 130, 200]))
    cpn = draw(st.integers(2, 4))
    ops = []
    for _ in range(draw(st.integers(10, 40))):
        a = draw(st.integers(0, n - 1))
        nodes = list(range(a, min(n, a + draw(st.integers(1, 4)))))
        ops.append((nodes, draw(st.integers(1, cpn)), draw(st.sampled_from([None, "first"]))))
    return n, cpn, ops


@settings(max_examples=60, deadline=None)
@given(st.one_of(wide_ops(), short_runs()), st.data())
def test_projection_reset_again_equals_a_new_projection(case, data):
    # a projection reset from the same segments copies only the 64-node blocks that it or the
    # segments wrote since its last reset: after each reset it answers as a new projection,
    # whether reset after every change or after several, moved or not
    n, cpn, ops = case
    c = SharedNodes(n, cpn)
    kept = [c.projection(0), c.projection(1)]  # reset at every change / every third
    running: dict[int, tuple] = {}

    def moves(proj):
        # what-if moves on the projection, anywhere on the machine
        for _ in range(3):
            a = data.draw(st.integers(0, n - 1))
            iv = [(a, min(n, a + data.draw(st.integers(1, 20))))]
            cores = data.draw(st.integers(1, cpn))
            proj.loss(iv, cores)
            proj.add(iv, data.draw(st.sampled_from([1, -1])) * cores)

    for job, (nodes, cores, release) in enumerate(ops):
        if release and running:
            k = min(running)
            iv, ck = running.pop(k)
            c.release(k, iv, ck)
        p = Placement(job, nodes, cores)
        if c.check(p) is None:
            running[job] = (c.claim(p), cores)
        for i, proj in enumerate(kept):
            if i == 1 and job % 3:
                moves(proj)
                continue
            thr = data.draw(st.integers(0, cpn + 1))
            proj.reset(c, thr)
            new = c.projection(thr)
            assert (proj.starts, proj.free, proj.count) == (new.starts, new.free, new.count)
            for nodes2, cores2, _ in ops:
                iv = Placement(0, nodes2, cores2).intervals
                assert proj.loss(iv, cores2) == new.loss(iv, cores2)
            moves(proj)


@settings(max_examples=150)
@given(segment_ops(), st.data())
def test_compiled_projection_equals_the_python_oracle(case, data):
    # what-if moves on a copy of the segments: the counts, the losses and the copy itself
    n, cpn, ops = case
    c, o = SharedNodes(n, cpn), oracle.SharedNodes(n, cpn)
    for job, (nodes, cores, _) in enumerate(ops[: len(ops) // 2]):
        p = Placement(job, nodes, cores)
        if c.check(p) is None:
            iv = c.claim(p)
            o.place(job, iv, cores)
    thr = data.draw(st.integers(0, cpn + 1))
    pc, po = c.projection(thr), o.projection(thr)
    assert pc.count == po.count
    for nodes, cores, _ in ops[len(ops) // 2 :]:
        iv = Placement(0, nodes, cores).intervals
        lost = po.loss(iv, cores)
        assert pc.loss(iv, cores) == lost
        # as far as a limit (EASY's rule (b) asks only whether the loss fits): exact up to
        # it, above it past it (the walk stops after the interval that passes it)
        for limit in range(-1, lost + 1):
            got = pc.loss(iv, cores, limit)
            assert got == lost if lost <= limit else got > limit
        sign = data.draw(st.sampled_from([1, -1]))
        assert pc.add(iv, sign * cores) == po.add(iv, sign * cores)
        assert (pc.starts, pc.free) == (po.starts, po.free)


@given(segment_ops())
def test_compiled_shared_cores_equal_the_oracle_accounting(case):
    # take (whole idle nodes or a placement) and release, as the old Python accounting did
    # on the oracle's segments: allocations, cores per node, the segments
    n, cpn, ops = case
    cluster = Cluster(n, 1, cpn)
    acct = SharedCores(cluster, len(ops))
    o = oracle.SharedNodes(n, cpn)
    alloc: dict[int, tuple] = {}
    held: dict[int, tuple] = {}  # every job that started, ended or not
    for job, (nodes, cores, release) in enumerate(ops):
        if release and alloc:
            k = min(alloc) if release == "first" else max(alloc)
            acct.release(k)
            o.release(k, *alloc.pop(k))
        if release == "last":  # whole idle nodes
            k = min(len(nodes), o.n_idle)
            if not k:
                continue
            acct.take(job, k, None)
            iv, c = o.idle_intervals(k), cpn
            o.place(job, iv, cpn)
        else:
            p = Placement(job, nodes, cores)
            if acct.check(job, p, 1) is not None:
                continue
            acct.take(job, 0, p)
            iv, c = o.claim(p), cores
        alloc[job] = held[job] = (iv, c)
        assert acct.allocation(job) == iv and acct.cores_of(job) == c
        assert acct.nodes.segments() == o.segments() and acct.idle == o.n_idle
    # the result's columns (held nodes of ended jobs too; a job never started: "" and 0)
    assert acct.alloc_column(len(ops)).tolist() == [
        format_intervals(held[j][0]) if j in held else "" for j in range(len(ops))
    ]
    assert acct.node_counts(len(ops)).tolist() == [
        sum(b - a for a, b in held[j][0]) if j in held else 0 for j in range(len(ops))
    ]


COLS = ["start", "end", "speedup", "neighbours", "killed", "alloc"]


@settings(max_examples=80, deadline=None)
@given(
    w=st.one_of(coloc_workloads(), busy),
    spec=st.sampled_from(["easy-coloc", "filler", "best-pair", "ranks", "jungle"]),
    ab=st.floats(0.4, 2.5),
    ba=st.floats(0.4, 2.5),
    kill=st.sampled_from([False, True, "next-event"]),
    rule=st.sampled_from(["measured", "elise"]),
)
def test_compiled_speed_model_equals_the_python_oracle(w, spec, ab, ba, kill, rule):
    pool = pool_ab(ab, ba)
    runs = []
    for cls in (ColocationSpeed, OracleSpeed):
        model = cls.from_pool(pool, rule)
        r = simulate(w, Cluster(8, 2, 2), spec, speed_model=model, shared_nodes=True,
                     kill_at_walltime=kill)  # fmt: skip
        runs.append(r.jobs[COLS])
    assert runs[0].equals(runs[1])
    assert np.isfinite(runs[0].end).all()


class PythonLoop(Simulation):
    """The kernel with its loop as a subclass's: the compiled co-pass is then called from the
    scheduler's ``schedule`` (``run_view``, jobs started through the view)."""


PASS_COLS = ["start", "end", "alloc", "reservation", "neighbours", "killed"]


@settings(max_examples=60, deadline=None)
@given(
    w=busy,
    cls=st.sampled_from([EasyColoc, Filler, BestPair, Ranks, Jungle, Slowdown, Bester]),
    extra=st.booleans(),
    depth=st.sampled_from([None, 1, 3]),
    fallback=st.booleans(),
    backfill=st.booleans(),
    placement=st.sampled_from(["spread", "spread", "compact"]),
    kill=st.booleans(),
)
def test_compiled_co_pass_equals_the_python_scan(
    w, cls, extra, depth, fallback, backfill, placement, kill
):
    # the compiled pass called by the kernel, the same pass called from Python, and the
    # Python class scan (tests/coloc/reference_coloc.py checks that one against the plain scan);
    # best-pair's node order compiled on the speed model's tables, or BestPair.node_order
    opts = dict(extra=extra, depth=depth, fallback=fallback, backfill=backfill,
                placement=placement)  # fmt: skip
    cluster, pool = Cluster(8, 2, 2), pool_ab(1.3, 0.7)
    runs = []
    for sim_cls, sched in ((Simulation, cls(**opts)), (PythonLoop, cls(**opts)),
                           (Simulation, python_scan(cls)(**opts))):  # fmt: skip
        sim = sim_cls(w, cluster, sched, speed_model=ColocationSpeed.from_pool(pool),
                      shared_nodes=True, kill_at_walltime=kill)  # fmt: skip
        sim.run()
        assert (sched.compiled_pass is not None) == (len(runs) < 2)
        runs.append(Result.from_simulation(sim).jobs[PASS_COLS])
    assert runs[0].equals(runs[2]) and runs[1].equals(runs[2])
    assert np.isfinite(runs[0].end).all()


# speedups with ties (between pairs, and between a pair and a spread-alone speedup), an
# unmeasured pair (NaN) and a job whose application is not in the pool (app 3)
tie_speeds = st.sampled_from([0.5, 0.8, 1.0, 1.0, 1.25, 2.0, math.nan])


@st.composite
def ranked_cases(draw, widths: tuple[int, ...] = (1, 2, 4, 6, 8, 12)):
    """A three-application pool (random speedups, some spread-alone speedups measured) and a
    workload of those applications and an unknown one (``widths`` processes), queued behind
    wide heads."""
    values = [[draw(tie_speeds) for _ in range(3)] for _ in range(3)]
    alone = [draw(st.sampled_from([None, 0.8, 1.0, 1.25, 2.0])) for _ in range(3)]
    pool = Pool(
        tuple(App(n, 2, 100.0, a) for n, a in zip("ABC", alone, strict=True)),
        Heatmap(["A", "B", "C"], values),
    )
    n = draw(st.integers(1, 40))
    rows, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 15))
        run = draw(st.integers(1, 300))
        rows.append({"id": i + 1, "submit": t, "run": run,
                     "procs": draw(st.sampled_from(widths)),
                     "requested_time": draw(st.sampled_from((0.5, 1.0, 1.4))) * run,
                     "app": draw(st.integers(0, 3))})  # fmt: skip
    return pool, Workload.from_records(rows)


@settings(max_examples=120, deadline=None)
@given(
    case=ranked_cases(),
    cls=st.sampled_from([Ranks, Jungle, Slowdown, Bester]),
    cluster=st.sampled_from([Cluster(8, 2, 2), Cluster(70, 2, 2), Cluster(6, 2, 3)]),
    extra=st.booleans(),
    depth=st.sampled_from([None, 2, 100]),
    fallback=st.booleans(),
    rule=st.sampled_from(["measured", "elise"]),
)
def test_compiled_node_keys_equal_the_python_scan(case, cls, cluster, extra, depth, fallback,
                                                  rule):  # fmt: skip
    # the ranks family's node keys compiled (ColocPass._choose_keyed), called by the kernel
    # and from Python, against the Python class scan with the node_key hooks
    pool, w = case
    opts = dict(extra=extra, depth=depth, fallback=fallback)
    runs = []
    for sim_cls, sched in ((Simulation, cls(**opts)), (PythonLoop, cls(**opts)),
                           (Simulation, python_scan(cls)(**opts))):  # fmt: skip
        sim = sim_cls(w, cluster, sched, speed_model=ColocationSpeed.from_pool(pool, rule),
                      shared_nodes=True)  # fmt: skip
        sim.run()
        assert (sched.compiled_pass is not None) == (len(runs) < 2)
        runs.append(Result.from_simulation(sim).jobs[PASS_COLS])
    assert runs[0].equals(runs[2]) and runs[1].equals(runs[2])


@st.composite
def wide_ranked_cases(draw):
    """:func:`ranked_cases` with jobs of thousands of processes on 20,000 nodes: the partly
    used segments start in several 4,096-node blocks (``SharedNodes.stop``'s words), which
    the node orders of best-pair and the ranks family visit (``_starts_with_room``)."""
    return draw(ranked_cases((1, 2, 8000, 18000, 20000, 30000)))


@settings(max_examples=25, deadline=None)
@given(case=wide_ranked_cases(), cls=st.sampled_from([BestPair, Ranks, Jungle, Bester]))
def test_compiled_node_orders_across_node_blocks_equal_the_python_scan(case, cls):
    pool, w = case
    cluster = Cluster(20000, 2, 2)
    runs = []
    for sched in (cls(), python_scan(cls)()):
        sim = Simulation(w, cluster, sched, speed_model=ColocationSpeed.from_pool(pool),
                         shared_nodes=True)  # fmt: skip
        sim.run()
        runs.append(Result.from_simulation(sim).jobs[PASS_COLS])
    assert runs[0].equals(runs[1])


def test_a_node_key_hook_is_called_by_the_compiled_pass():
    # a subclass with its own node_key keeps its hook (the compiled pass calls it, from the
    # scheduler's schedule: the kernel does not call the pass directly), and ranks
    # without a co-location model still says it needs one (at its first node order)
    class Mine(Ranks):
        def node_key(self, view, j, jobs):
            return -len(jobs)

    w = Workload.from_records([{"id": 1, "submit": 0, "run": 10, "procs": 2,
                                "requested_time": 10, "app": 0}])  # fmt: skip
    for sched, compiled in ((Mine(), False), (Ranks(), True)):
        model = ColocationSpeed.from_pool(pool_ab())
        Simulation(w, Cluster(4, 2, 2), sched, speed_model=model, shared_nodes=True).run()
        assert (sched.compiled_pass is not None) == compiled and sched._cpass is not None
    with pytest.raises(InputError, match="needs a co-location model"):
        simulate(w, Cluster(4, 2, 2), "ranks", shared_nodes=True)


def test_shared_cores_release_a_job_whose_intervals_straddle_two_blocks():
    # the intervals are written in blocks of 2**18 ints: a job's may start in one block and
    # end in the next; releasing it gives back exactly its nodes
    fill = 2**17 - 1  # one-interval jobs: the next job's intervals start 2 ints before a block
    acct = SharedCores(Cluster(4, 1, 2), fill + 2)
    for j in range(fill):
        acct.take(j, 1, None)
        acct.release(j)
    acct.take(fill, 0, Placement(fill, [0, 2], 1))  # nodes 0 and 2: two intervals
    acct.take(fill + 1, 0, Placement(fill + 1, [0, 1, 2, 3], 1))
    assert acct.allocation(fill) == [(0, 1), (2, 3)]
    acct.release(fill)
    assert acct.nodes.segments() == [(0, 4, 1, (fill + 1,))]
    assert acct.alloc_column(fill + 2).tolist()[-2:] == ["0 2", "0-3"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, 0.0, -1.0, "fast", None])
def test_a_spread_alone_speedup_that_is_not_a_positive_number_is_refused(bad):
    """The model's spread-alone speedups key idle nodes in the ranks family's order: a NaN
    key left the order to how Python's sort happens to compare (each comparison False), and
    the compiled pass could not follow it. Refused at once, as a pool's App refuses it."""
    heatmap = pool_ab().heatmap
    name = heatmap.names[0]
    with pytest.raises(InputError, match=f"application '{name}': spread speedup must be > 0"):
        ColocationSpeed(heatmap, {name: bad})
    ColocationSpeed(heatmap, {name: 1.5})  # a number > 0 is taken
