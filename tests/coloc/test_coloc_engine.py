"""Co-location in the engine: shared nodes, ELiSE's speed rule, the co-schedulers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from _coloc_data import jobs, pool_ab
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_coloc import plain

from coschedlab import Cluster, InputError, Workload, simulate
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.coloc.schedulers import BestPair, EasyColoc, Filler
from coschedlab.engine.placement import Placement
from coschedlab.engine.segments import SharedNodes

CO = ["easy-coloc", "filler", "best-pair", "easy-coloc:extra=false,depth=3"]


def test_elise_speed_rule_known_answer():
    # 2 nodes x 2 sockets x 2 cores: spread = 2 cores/node. J1 (A) and J2 (B) pair on node 0.
    # J1 runs at min(alone=2.0, A|B=2.0) = 2 -> ends at 50. J2 runs at B|A = 0.5 until 50
    # (25 compact-seconds done), then alone at its best pair speedup 1.0: ends at 125.
    w = jobs((1, 0, 100, 2, 0), (2, 0, 100, 2, 1))
    r = simulate(w, Cluster(2, 2, 2), "easy-coloc", pool=pool_ab(), kill_at_walltime=True)
    j = r.jobs.set_index("job_id")
    assert j.alloc.to_dict() == {1: "0", 2: "0"}
    assert j.end.to_dict() == pytest.approx({1: 50.0, 2: 125.0})
    assert j.speedup.to_dict() == pytest.approx({1: 2.0, 2: 0.8})
    assert list(j.placement) == ["spread", "spread"]
    assert r.validate() == []


def test_kill_at_walltime_with_slow_neighbour():
    # B beside A at 0.5 forever (A is long): B needs 200 s > requested 140 s -> killed at 140
    w = jobs((1, 0, 1000, 2, 0), (2, 0, 100, 2, 1))
    r = simulate(w, Cluster(2, 2, 2), "easy-coloc", pool=pool_ab(ab=1.0), kill_at_walltime=True)
    j = r.jobs.set_index("job_id")
    assert j.end[2] == pytest.approx(140.0) and bool(j.killed[2])
    assert not bool(j.killed[1])


def test_unknown_pair_falls_back_to_the_jobs_mean_speedup():
    heat = Heatmap(["A", "B", "C"], [[1.2, np.nan, 1.4], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    pool = Pool((App("A", 2, 100.0), App("B", 2, 100.0), App("C", 2, 100.0)), heat)
    w = jobs((1, 0, 100, 2, 0), (2, 0, 1000, 2, 1))
    r = simulate(w, Cluster(1, 2, 2), "easy-coloc", pool=pool)
    # A beside B (unmeasured) runs at A's mean measured speedup (1.2 + 1.4) / 2 = 1.3
    assert r.jobs.set_index("job_id").speedup[1] == pytest.approx(1.3)


def test_compact_placement_is_plain_easy():
    rng = np.random.default_rng(5)
    n = 300
    w = jobs(*[(i + 1, float(t), float(r), int(p), int(a)) for i, (t, r, p, a) in enumerate(
        zip(np.cumsum(rng.integers(0, 40, n)), rng.integers(1, 400, n),
            rng.choice([2, 4, 8, 16], n), rng.integers(0, 2, n), strict=True))])  # fmt: skip
    c = Cluster(8, 2, 2)
    a = simulate(w, c, "easy")
    b = simulate(w, c, "easy-coloc:placement=compact", pool=pool_ab())
    assert a.jobs.start.tolist() == b.jobs.start.tolist()
    assert b.jobs.speedup.dropna().eq(1.0).all()


@st.composite
def coloc_workloads(draw, max_jobs=20, max_gap=50, procs=(1, 2, 4, 6, 8), factors=(1.4,)):
    """Random workloads of apps 0/1; requested time = a factor x the compact time."""
    n = draw(st.integers(1, max_jobs))
    rows, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, max_gap))
        run = draw(st.integers(1, 300))
        rows.append({"id": i + 1, "submit": t, "run": run, "procs": draw(st.sampled_from(procs)),
                     "requested_time": draw(st.sampled_from(factors)) * run,
                     "app": draw(st.integers(0, 1))})  # fmt: skip
    return Workload.from_records(rows)


# queues that build up behind a wide head, with estimates that are sometimes too short
busy = coloc_workloads(40, 15, (2, 4, 6, 8, 12, 16, 32), (0.5, 1.0, 1.4, 3.0))


speeds = st.floats(0.4, 2.5)


@given(w=coloc_workloads(), spec=st.sampled_from(CO), ab=speeds, ba=speeds, kill=st.booleans())
def test_co_schedules_pass_the_validator(w, spec, ab, ba, kill):
    r = simulate(w, Cluster(4, 2, 2), spec, pool=pool_ab(ab, ba), kill_at_walltime=kill)
    assert len(r.jobs) == len(w)
    assert r.validate() == []


@given(w=coloc_workloads(), spec=st.sampled_from(CO))
def test_all_ones_heatmap_runs_every_job_at_its_compact_time(w, spec):
    ones = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], np.ones((2, 2))))
    r = simulate(w, Cluster(4, 2, 2), spec, pool=ones)
    assert np.allclose(r.jobs.run, r.jobs.compact_run)


@settings(max_examples=60)  # 150 took 10 s
@given(w=busy, cls=st.sampled_from([EasyColoc, Filler, BestPair]),
       fallback=st.booleans(), kill=st.booleans(), ab=speeds, ba=speeds)  # fmt: skip
def test_backfill_by_classes_equals_the_plain_linear_scan(w, cls, fallback, kill, ab, ba):
    # the class scan, with and without the kept shadow time, against tests/reference_coloc.py
    runs = []
    for s in (cls(fallback=fallback), cls(fallback=fallback), plain(cls)(fallback=fallback)):
        s.incremental = len(runs) == 0
        r = simulate(w, Cluster(8, 2, 2), s, pool=pool_ab(ab, ba), kill_at_walltime=kill)
        runs.append(r.jobs[["start", "end", "alloc", "reservation"]])
    assert runs[0].equals(runs[2]) and runs[1].equals(runs[2])


@settings(max_examples=60)  # 150 took 10 s
@given(w=busy, data=st.data())
def test_backfill_by_classes_with_dependencies_equals_the_plain_scan(w, data):
    # released dependents join the queue in the middle: the classes must pick them up
    ids = w.columns["id"].tolist()
    deps = {}
    for k, jid in enumerate(ids[1:], start=1):
        parents = data.draw(st.lists(st.sampled_from(ids[:k]), max_size=2, unique=True))
        if parents:
            deps[jid] = tuple(parents)
    w = Workload(w.columns, deps)
    runs = []
    for cls in (EasyColoc, plain(EasyColoc)):
        r = simulate(w, Cluster(8, 2, 2), cls(), pool=pool_ab(), kill_at_walltime=True)
        assert r.validate() == []
        runs.append(r.jobs[["start", "end", "alloc", "reservation"]])
    assert runs[0].equals(runs[1])


@pytest.mark.parametrize("cls", [EasyColoc, Filler, BestPair])
def test_backfill_by_classes_on_a_long_saturated_queue(cls):
    # 600 jobs arriving faster than they run: queues of hundreds, many rule (b) verdicts
    rng = np.random.default_rng(11)
    n = 600
    procs = rng.choice([4, 8, 12, 16, 24, 32, 48, 64, 96], n)
    run = rng.choice([300.0, 500.0, 800.0, 1300.0], n) * rng.choice([1.0, 1.5], n)
    recs = [{"id": i + 1, "submit": float(t), "run": float(r), "requested_time": 1.4 * float(r),
             "procs": int(p), "app": int(a)} for i, (t, r, p, a) in enumerate(zip(
                 np.cumsum(rng.integers(0, 30, n)), run, procs, rng.integers(0, 2, n),
                 strict=True))]  # fmt: skip
    w = Workload.from_records(recs)
    runs = [
        simulate(w, Cluster(32, 2, 4), s, pool=pool_ab(1.3, 0.9), kill_at_walltime=True).jobs
        for s in (cls(), plain(cls)())
    ]
    assert runs[0][["start", "end", "alloc", "reservation"]].equals(
        runs[1][["start", "end", "alloc", "reservation"]]
    )


@settings(max_examples=60)  # 150 took 10 s
@given(w=busy, depth=st.integers(1, 4), extra=st.booleans())
def test_backfill_depth_and_rule_a_only_equal_the_plain_scan(w, depth, extra):
    runs = []
    for cls in (EasyColoc, plain(EasyColoc)):
        s = cls(depth=depth, extra=extra)
        r = simulate(w, Cluster(8, 2, 2), s, pool=pool_ab(), kill_at_walltime=True)
        runs.append(r.jobs[["start", "end", "alloc", "reservation"]])
    assert runs[0].equals(runs[1])


def test_filler_orders_by_algorithm_2():
    sh = SharedNodes(1, 8)  # 8 free cores
    view = SimpleNamespace(
        machine=sh, procs=[8, 4, 16, 2], ids=[0, 1, 2, 3], n=4, queue=[0, 1, 2, 3]
    )
    # factor0: exact fit 1; 4 of 8 -> 0.5; does not fit -> -1; 2 of 8 -> 0.25
    # key = factor0 / ((id + 1) / 4): 4.0, 1.0, -1.333, 0.25
    assert Filler().deploy_order(view) == [0, 1, 3, 2]


def test_filler_factor1_uses_the_job_id_not_the_queue_position():
    # ELiSE's code divides by (job.job_id + 1). Queue positions 0, 1 but trace ids 1000, 1001:
    # by position the keys tie (0.5 / 1 = 1.0 / 2) and the first stays first; by id
    # 0.5 / 1001 < 1.0 / 1002, so the exact fit (job 1) is deployed first.
    sh = SharedNodes(1, 8)
    view = SimpleNamespace(machine=sh, procs=[4, 8], ids=[1000, 1001], n=2, queue=[0, 1])
    assert Filler().deploy_order(view) == [1, 0]


def test_co_scheduler_needs_a_pool():
    with pytest.raises(InputError, match="needs shared nodes"):
        simulate(jobs((1, 0, 10, 2, 0)), Cluster(2, 2, 2), "easy-coloc")


def test_best_pair_picks_the_friendliest_neighbour():
    sh = SharedNodes(3, 4)
    for job, node in ((10, 0), (11, 1), (12, 2)):
        sh.place(job, [(node, node + 1)], 2)
    speed = {10: 0.9, 11: 1.5, 12: 1.2}  # predicted speedup of job 0 beside each resident
    view = SimpleNamespace(speedup=lambda j, others: min((speed[k] for k in others), default=9))
    runs = sh.partly_free(2)
    assert [r[:2] for r in runs] == [(0, 1), (1, 2), (2, 3)]
    assert [r[0] for r in BestPair().node_order(view, 0, runs)] == [1, 2, 0]
    assert [r[0] for r in EasyColoc().node_order(view, 0, runs)] == [0, 1, 2]


def test_shared_nodes_accounting():
    sh = SharedNodes(4, 4)
    sh.place(1, [(0, 2)], 2)
    sh.place(2, [(1, 3)], 2)
    assert sh.free.tolist() == [2, 0, 2, 4] and sh.n_idle == 1 and sh.total_free == 8
    assert sh.neighbours_of(1) == {2} and sh.neighbours_of(2) == {1}
    assert sh.count_with(2) == 3 and [r[:2] for r in sh.partly_free(2)] == [(0, 1), (2, 3)]
    assert [r[:2] for r in sh.partly_free(2, limit=1)] == [(0, 1)]
    sh.place(3, [(0, 1)], 1)  # a third job on node 0
    assert sorted(sh.occupants(0)) == [1, 3]
    sh.release(1, [(0, 2)], 2)
    assert sh.free.tolist() == [3, 2, 2, 4] and sh.occupants(0) == [3]
    sh.release(3, [(0, 1)], 1)
    sh.release(2, [(1, 3)], 2)
    assert sh.free.tolist() == [4, 4, 4, 4] and sh.n_idle == 4
    assert sh.segments() == [(0, 4, 4, ())]  # everything idle again: one segment


def test_placement_check_names_the_problem():
    sh = SharedNodes(4, 4)
    sh.place(1, [(0, 2)], 3)
    assert sh.check(Placement(2, [2, 2], 1)) == "uses a node twice"
    assert sh.check(Placement(2, [3], 5)) == "asks for 5 cores per node on 4-core nodes"
    assert sh.check(Placement(2, [4], 1)) == "uses a node that does not exist"
    assert sh.check(Placement(2, [3, 1], 2)) == "needs 2 cores on node 1, which has 1 free"
    assert sh.check(Placement(2, intervals=[(1, 4)], cores=1)) is None


@st.composite
def shared_ops(draw):
    n = draw(st.integers(1, 12))
    cpn = draw(st.integers(1, 6))
    ops = []
    for _ in range(draw(st.integers(1, 40))):
        nodes = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        ops.append((nodes, draw(st.integers(1, cpn)), draw(st.booleans())))
    return n, cpn, ops


@given(shared_ops())
def test_segments_match_a_per_node_oracle(case):
    # random places and releases against plain per-node arrays: free cores, occupants,
    # idle count, neighbours, runs of partly free nodes, and the projection's counts
    n, cpn, ops = case
    sh = SharedNodes(n, cpn)
    free = np.full(n, cpn)
    occ: list[set] = [set() for _ in range(n)]
    running: dict[int, tuple] = {}
    for job, (nodes, c, release) in enumerate(ops):
        if release and running:
            k = min(running)
            iv, ck = running.pop(k)
            sh.release(k, iv, ck)
            for a, b in iv:
                free[a:b] += ck
                for x in range(a, b):
                    occ[x].discard(k)
        p = Placement(job, nodes, c)
        fits = all(free[x] >= c for x in nodes)
        assert (sh.check(p) is None) == fits
        if fits:
            iv = sh.claim(p)
            running[job] = (iv, c)
            free[nodes] -= c
            for x in nodes:
                occ[x].add(job)
        assert sh.free.tolist() == free.tolist()
        assert all(set(sh.occupants(x)) == occ[x] for x in range(n))
        assert sh.n_idle == int((free == cpn).sum()) and sh.total_free == int(free.sum())
        for c2 in range(1, cpn + 1):
            assert sh.count_with(c2) == sh.room()[c2] == int((free >= c2).sum())
            want = [x for x in range(n) if c2 <= free[x] < cpn]
            assert [x for a, b, _ in sh.partly_free(c2) for x in range(a, b)] == want
        for k, (iv, _) in running.items():
            want = set().union(*(occ[x] for a, b in iv for x in range(a, b))) - {k}
            assert sh.neighbours_of(k) == want
        starts = sh.starts  # maximal runs: neighbouring segments differ
        assert all(
            sorted(sh.seg_jobs[i - 1]) != sorted(sh.seg_jobs[i]) for i in range(1, len(starts))
        )
        thr = 1 + job % cpn
        proj = sh.projection(thr)
        assert proj.count == int((free >= thr).sum())
        pf = free.copy()
        for iv, ck in running.values():
            before = pf.copy()
            drop = sum(int(before[x] >= thr > before[x] - ck) for a, b in iv for x in range(a, b))
            assert proj.loss(iv, ck) == drop
            got = proj.add(iv, ck)
            for a, b in iv:
                pf[a:b] += ck
            assert got == int((pf >= thr).sum())
        assert sh.free.tolist() == free.tolist()  # the projection never touches the real state


def test_fallback_runs_compact_when_spread_does_not_fit():
    # 4 nodes x 2 x 2 cores (spread = 2 cores/node). J1 and J2 pair on nodes 0-1; J3 (6 procs)
    # would need 3 half-free nodes but only nodes 2-3 are idle: it waits, or runs compact on them
    w = jobs((1, 0, 1000, 4, 0), (2, 0, 1000, 4, 1), (3, 0, 10, 6, 0))
    c = Cluster(4, 2, 2)
    waits = simulate(w, c, "easy-coloc", pool=pool_ab()).jobs.set_index("job_id")
    assert waits.start[3] > 0
    r = simulate(w, c, "easy-coloc:fallback=true", pool=pool_ab())
    j = r.jobs.set_index("job_id")
    assert j.start[3] == 0 and j.placement[3] == "compact" and j.alloc[3] == "2-3"
    assert r.validate() == []


def test_an_end_moved_by_rounding_is_never_in_the_past():
    # Found by examples/elise_observations.py (2026-11-27): job 7 ended 2e-14 s after job 23's
    # end; job 7's end changed 23's speed, and 23's work left, a rounding error below 0, put
    # its new end before "now": the clock went back and a job started on cores still in use.
    from _coloc_data import real_pool_dir

    from coschedlab.coloc import load_pool
    from coschedlab.generate import generate_workload

    where = real_pool_dir()
    if where is None:
        pytest.skip("real ELiSE pool files not available")
    pool = load_pool(where / "lm-aris.compute-NAS.json")
    frame = pool.app_frame()
    apps = frame[frame.procs.isin([64, 121, 128, 256, 484, 512, 1024])].reset_index(drop=True)
    w = generate_workload(apps, 500, arrival="constant:0", seed=3)
    r = simulate(w, Cluster(200, 2, 10), "filler:extra=false,depth=100", pool=pool,
                 kill_at_walltime=True)  # fmt: skip
    assert r.validate() == []
