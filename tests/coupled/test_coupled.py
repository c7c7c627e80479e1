"""Coupled-system co-scheduling (issue 12): known answers on tiny machines (the seed's Fig. 2,
each scheme combination, the hold cap, an unknown mate, the release's lowest priority),
exactness of unpaired systems against the core, and properties over random coupled workloads."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.api import simulate
from coschedlab.coupled import (
    CoupledDeadlock,
    CoupledSimulation,
    Pairs,
    System,
    pair_by_vicinity,
    pair_every,
)
from coschedlab.coupled.result import CoupledResult
from coschedlab.engine.kernel import HOLD, START, YIELD
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers import get_scheduler


def W(*rows: tuple) -> Workload:
    """(id, submit, run, nodes) rows; requested time = run."""
    return Workload.from_records(
        [{"id": i, "submit": s, "run": r, "requested_time": r, "procs": p} for i, s, r, p in rows]
    )


def M(nodes: int) -> Cluster:
    return Cluster(nodes=nodes, sockets_per_node=1, cores_per_socket=1)


def run(systems, pairs, **kw) -> tuple[CoupledSimulation, CoupledResult]:
    c = CoupledSimulation(systems, pairs, **kw).run()
    r = CoupledResult.from_simulation(c)
    assert r.validate() == []
    return c, r


def starts(r: CoupledResult, system: int) -> dict[int, float]:
    j = r.results[system].jobs
    return dict(zip(j["job_id"].tolist(), j["start"].tolist(), strict=True))


def pairs_of(*items: tuple[tuple[int, int], tuple[int, int]]) -> Pairs:
    p = Pairs()
    for a, b in items:
        p.add(a, b)
    return p


# -- the seed's Fig. 2 ----------------------------------------------------------------------------
def fig2(release):
    """Machine A: a1 holds 6 of 10 nodes for b1; machine B: b2 holds 6 of 10 for a2; the
    other job of each pair asks for 6 nodes and cannot fit."""
    a = W((1, 0, 100, 6), (2, 1, 100, 6))
    b = W((2, 0, 100, 6), (1, 1, 100, 6))
    pairs = pairs_of(((0, 1), (1, 1)), ((0, 2), (1, 2)))
    systems = [
        System("A", a, M(10), scheme="hold", release=release),
        System("B", b, M(10), scheme="hold", release=release),
    ]
    return systems, pairs


def test_fig2_deadlocks_without_release_and_names_the_held_jobs():
    systems, pairs = fig2(release=None)
    with pytest.raises(CoupledDeadlock) as e:
        CoupledSimulation(systems, pairs).run()
    msg = str(e.value)
    assert "A job 1 holds 6 nodes since t=0 for B job 1" in msg
    assert "B job 2 holds 6 nodes since t=0 for A job 2" in msg
    assert "release" in msg and "\n" not in msg


def test_fig2_release_breaks_the_deadlock_and_gives_the_released_job_the_lowest_priority():
    systems, pairs = fig2(release=1200)
    c, r = run(systems, pairs)
    a, b = starts(r, 0), starts(r, 1)
    # at A's first release (t = 0 + 1200) a1 (held since 0, older than 600 s) lets go; it
    # is ordered last, so a2 takes the nodes and starts with its holding mate b2
    assert a[2] == b[2] == 1200.0
    # a1 and b1 start together once a2 and b2 end
    assert a[1] == b[1] == 1300.0
    h = r.holds
    assert list(h["outcome"]) == ["release", "start"]
    m = r.metrics()
    assert m["A"]["su_loss_node_hours"] == pytest.approx(6 * 1200 / 3600)
    assert m["A"]["releases"] == 1 and m["B"]["releases"] == 0


def test_allocated_utilization_counts_held_nodes_as_busy_but_idle():
    """Fig. 2 with release: A's nodes are held 6 x 1200 node-s, used 6 x 100 (a2) + 6 x 100
    (a1) node-s, over 10 nodes x 1400 s (first submit 0, last end 1400). The useful
    utilization counts only the runs; the allocated one adds the held node-time."""
    systems, pairs = fig2(release=1200)
    _, r = run(systems, pairs)
    m = r.metrics()["A"]
    assert m["utilization"] == pytest.approx(1200 / 14000)
    assert m["allocated_utilization"] == pytest.approx((1200 + 6 * 1200) / 14000)
    assert m["allocated_utilization"] - m["utilization"] == pytest.approx(m["su_loss_share"])


def test_a_stalled_release_holds_nothing_so_even_a_policy_ignoring_demotion_progresses():
    """The same run where the policy ignores view.demoted: a1 (highest WFP score) is picked
    first again after its release and, as in Cobalt, holds the freed nodes again at t=1200.
    Nothing started anywhere since, so A's next release (t=2400) is a stalled one and its pass
    may not hold: a1 yields, a2 takes the nodes and starts with its holding mate b2. Before
    the rule, a1 re-held at every release and the set never progressed (a livelock)."""

    class IgnoreDemoted(type(get_scheduler("easy:order=wfp"))):  # type: ignore[misc]
        def ordered_queue(self, view):
            key = self.order_key
            return sorted(view.queue, key=lambda j: key(view, j))

    systems, pairs = fig2(release=1200)
    for s in systems:
        s.scheduler = IgnoreDemoted(order="wfp")
    c, r = run(systems, pairs)
    a, b = starts(r, 0), starts(r, 1)
    assert a[2] == b[2] == 2400.0
    assert a[1] == b[1] == 2500.0
    assert [h.outcome for h in c.holds if h.system == 0] == ["release", "release"]


# -- the four scheme combinations on a hand-made pair ---------------------------------------------
@pytest.mark.parametrize(
    "combo, pair_start, filler_start, a_holds, a_yields",
    [
        # a1 is picked at 0 while B is full: A holds 5 nodes until b1 starts at 100, so the
        # 10-node filler a2 waits for a1 to end (150); with yield, a2 starts at once (1) and
        # a1 yields at 0, 1 and 51 (a2 ends) before b1 is picked at 100
        ("HH", 100.0, 150.0, 1, 0),
        ("HY", 100.0, 150.0, 1, 0),
        ("YH", 100.0, 1.0, 0, 3),
        ("YY", 100.0, 1.0, 0, 3),
    ],
)
def test_scheme_combinations(combo, pair_start, filler_start, a_holds, a_yields):
    a = W((1, 0, 50, 5), (2, 1, 50, 10))
    b = W((0, 0, 100, 10), (1, 0, 50, 5))
    pairs = pairs_of(((0, 1), (1, 1)))
    sa, sb = ("hold" if x == "H" else "yield" for x in combo)
    systems = [System("A", a, M(10), scheme=sa), System("B", b, M(10), scheme=sb)]
    c, r = run(systems, pairs)
    sa_, sb_ = starts(r, 0), starts(r, 1)
    assert sa_[1] == sb_[1] == pair_start
    assert sa_[2] == filler_start
    m = r.metrics()
    assert m["A"]["holds"] == a_holds
    assert m["A"]["yields"] == a_yields
    # the mate on B never waited by its own scheme: B's attempt started b0 at 0, and b1 was
    # picked at 100 when a1 was holding or could start
    assert m["B"]["holds"] == 0 and m["B"]["yields"] == 0
    jobs = r.results[0].jobs.set_index("job_id")
    assert jobs.loc[1, "sync"] == 100.0  # first hold or yield at 0, start at 100
    assert math.isnan(jobs.loc[2, "sync"])  # unpaired
    expect_loss = 5 * 100 / 3600 if sa == "hold" else 0.0
    assert m["A"]["su_loss_node_hours"] == pytest.approx(expect_loss)


def test_hold_cap_turns_a_hold_into_a_yield():
    a = W((1, 0, 50, 7))
    b = W((0, 0, 100, 10), (1, 0, 50, 5))
    pairs = pairs_of(((0, 1), (1, 1)))
    for cap, holds in ((0.6, 0), (0.7, 1)):
        systems = [
            System("A", a, M(10), scheme="hold", hold_cap=cap),
            System("B", b, M(10), scheme="hold"),
        ]
        _, r = run(systems, pairs)
        m = r.metrics()["A"]
        assert m["holds"] == holds
        assert m["yields"] == 1 - holds
        assert starts(r, 0)[1] == starts(r, 1)[1] == 100.0


def test_max_yields_then_hold():
    a = W((1, 0, 50, 5), (2, 1, 10, 1), (3, 2, 10, 1))
    b = W((0, 0, 100, 10), (1, 0, 50, 5))
    pairs = pairs_of(((0, 1), (1, 1)))
    systems = [
        System("A", a, M(10), scheme="yield", max_yields=2),
        System("B", b, M(10), scheme="hold"),
    ]
    _, r = run(systems, pairs)
    m = r.metrics()["A"]
    assert m["yields"] == 2 and m["holds"] == 1  # yields at 0 and 1, then holds at 2


def test_unknown_mate_starts_alone():
    """The mate's system does not know the pair (Cobalt: a failed or unknown mate): the mate
    runs and ends alone; the job then starts alone, counted."""
    a = W((1, 50, 10, 2))
    b = W((1, 0, 10, 2))
    p = Pairs()
    p.mate[(0, 1)] = (1, 1)  # one-sided
    systems = [System("A", a, M(4)), System("B", b, M(4))]
    c = CoupledSimulation(systems, p).run()
    assert c.sims[0].start[0] == 50.0 and c.sims[1].start[0] == 0.0
    assert c.info()["A"]["started_alone"] == 1


def test_unsubmitted_mate_holds_then_both_start_when_it_arrives():
    a = W((1, 0, 10, 2))
    b = W((1, 30, 10, 2))
    pairs = pairs_of(((0, 1), (1, 1)))
    systems = [System("A", a, M(4), scheme="hold"), System("B", b, M(4), scheme="yield")]
    _, r = run(systems, pairs)
    assert starts(r, 0)[1] == starts(r, 1)[1] == 30.0
    assert r.metrics()["A"]["sync_mean"] == 30.0


def test_mate_attempt_yielded_follows_cobalts_code():
    """Cobalt's try_to_run_mate_job tries only a mate that yielded since its system's last
    event: here b1 waits queued (it never yielded), so a1 cannot trigger it and yields until
    b1 is picked by B's own pass."""
    a = W((1, 0, 50, 5))
    b = W((0, 0, 100, 6), (1, 10, 50, 4))
    pairs = pairs_of(((0, 1), (1, 1)))
    out = {}
    for mode in ("queued", "yielded"):
        systems = [System("A", a, M(10), scheme="yield"), System("B", b, M(10), scheme="yield")]
        _, r = run(systems, pairs, mate_attempt=mode)
        out[mode] = (starts(r, 0)[1], starts(r, 1)[1])
    assert out["queued"] == (10.0, 10.0)  # b1 arrives at 10 and is picked: a1 is ready
    assert out["yielded"][0] == out["yielded"][1]


# -- no pairs: exactly the core -------------------------------------------------------------------
def _core_starts(w: Workload, nodes: int, spec: str) -> list[float]:
    return simulate(w, M(nodes), spec).jobs["start"].tolist()


@settings(max_examples=40, deadline=None)
@given(workloads(max_jobs=20, max_procs=6), workloads(max_jobs=20, max_procs=6),
       workloads(max_jobs=20, max_procs=6), st.sampled_from(["easy:order=wfp", "easy", "fcfs",
                                                             "conservative"]))  # fmt: skip
def test_a_system_without_pairs_gets_exactly_the_core_schedule(wa, wb, wc, spec):
    pairs = pair_by_vicinity(wa, wb, 5.0)
    systems = [
        System("A", wa, M(8), scheduler=get_scheduler(spec)),
        System("B", wb, M(8), scheduler=get_scheduler(spec), scheme="yield"),
        System("C", wc, M(6), scheduler=get_scheduler(spec)),
    ]
    c, r = run(systems, pairs)
    assert r.results[2].jobs["start"].tolist() == _core_starts(wc, 6, spec)
    if len(pairs) == 0:
        assert r.results[0].jobs["start"].tolist() == _core_starts(wa, 8, spec)
        assert r.results[1].jobs["start"].tolist() == _core_starts(wb, 8, spec)


# -- properties over random coupled workloads -----------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    workloads(max_jobs=25, max_procs=6),
    workloads(max_jobs=25, max_procs=4),
    st.sampled_from(["HH", "HY", "YH", "YY"]),
    st.sampled_from(["vicinity", "every"]),
    st.sampled_from(["queued", "yielded"]),
    st.floats(0.3, 1.0),
)
def test_pairs_start_together_and_nothing_is_lost(wa, wb, combo, how, attempt, cap):
    pairs = pair_by_vicinity(wa, wb, 20.0) if how == "vicinity" else pair_every(wa, wb, 2)
    mk = lambda: [  # noqa: E731
        System("A", wa, M(8), scheme="hold" if combo[0] == "H" else "yield", hold_cap=cap,
               release=100.0, release_age=50.0),
        System("B", wb, M(5), scheme="hold" if combo[1] == "H" else "yield", hold_cap=cap,
               release=100.0, release_age=50.0),
    ]  # fmt: skip
    c, r = run(mk(), pairs, mate_attempt=attempt)
    for res, w in zip(r.results, (wa, wb), strict=True):
        assert len(res.jobs) == len(w)
        assert np.isfinite(res.jobs["start"]).all() and np.isfinite(res.jobs["end"]).all()
    for a, ja, b, jb in pairs.table():
        assert starts(r, a)[ja] == starts(r, b)[jb]
    # the same inputs give the same outputs
    _, r2 = run(mk(), pairs, mate_attempt=attempt)
    for x, y in zip(r.results, r2.results, strict=True):
        assert x.jobs.equals(y.jobs)
    assert r.holds.equals(r2.holds)


# -- the gate's kernel side -----------------------------------------------------------------------
def test_a_gate_verdict_other_than_start_hold_yield_is_refused():
    from coschedlab.engine.kernel import Simulation

    class Bad:
        def decide(self, j):
            return 7

        def held(self, j):
            return math.inf

    sim = Simulation(W((1, 0, 10, 1)), M(2), get_scheduler("fcfs"))
    sim.gate = Bad()
    with pytest.raises(ValueError, match="gate verdict"):
        sim.run()
    assert (START, HOLD, YIELD) == (0, 1, 2)


# -- the validator --------------------------------------------------------------------------------
def test_validator_catches_a_pair_apart_and_a_job_on_held_nodes():
    systems, pairs = fig2(release=1200)
    c, r = run(systems, pairs)
    jobs = r.results[1].jobs
    jobs.loc[jobs["job_id"] == 1, ["start", "end"]] += 5.0
    assert any("started at 1300 and 1305" in p for p in r.validate())
    systems, pairs = fig2(release=1200)
    c, r = run(systems, pairs)
    h = r.holds
    h.loc[0, "end"] = 1250.0  # the hold of a1 now overlaps a2 on nodes 0-5
    assert any("node" in p for p in r.validate())


# -- against an independent reference simulator -------------------------------------------------
@st.composite
def coupled_case(draw):
    def jobs(k, nodes):
        out, t = [], 0
        for i in range(draw(st.integers(1, k))):
            t += draw(st.integers(0, 40))
            run = draw(st.integers(1, 120))
            out.append((i + 1, float(t), float(run), float(run + draw(st.integers(0, 60))),
                        draw(st.integers(1, nodes))))  # fmt: skip
        return out

    na, nb = draw(st.integers(2, 10)), draw(st.integers(2, 6))
    ja, jb = jobs(14, na), jobs(14, nb)
    k = draw(st.integers(1, 3))
    pairs = {}
    for i in range(0, min(len(ja), len(jb)), k):
        pairs[(0, ja[i][0])] = (1, jb[i][0])
        pairs[(1, jb[i][0])] = (0, ja[i][0])
    combo = draw(st.sampled_from(["HH", "HY", "YH", "YY"]))
    cap = draw(st.sampled_from([0.3, 0.6, 1.0]))
    release = draw(st.sampled_from([None, 100.0, 300.0]))
    return na, nb, ja, jb, pairs, combo, cap, release


@settings(max_examples=150, deadline=None)
@given(coupled_case())
def test_same_schedule_as_an_independent_reference(case):
    from reference_coupled import Stuck
    from reference_coupled import simulate as reference

    na, nb, ja, jb, pairs, combo, cap, release = case
    scheme = ["hold" if x == "H" else "yield" for x in combo]
    specs = [
        {"jobs": ja, "nodes": na, "scheme": scheme[0], "cap": cap, "release": release, "age": 50.0},
        {"jobs": jb, "nodes": nb, "scheme": scheme[1], "cap": cap, "release": release, "age": 50.0},
    ]
    try:
        want = reference(specs, pairs)
    except Stuck:
        want = None
    systems = [
        System(name, W(*[(i, s, r, n) for i, s, r, _, n in js]), M(nodes),
               scheduler=get_scheduler("firstfit:order=wfp"), scheme=sc, hold_cap=cap,
               release=release, release_age=50.0)
        for name, js, nodes, sc in (("A", ja, na, scheme[0]), ("B", jb, nb, scheme[1]))
    ]  # fmt: skip
    for s, js in zip(systems, (ja, jb), strict=True):  # requested times as drawn
        s.workload.columns["requested_time"] = np.asarray([x[3] for x in js], dtype=float)
    p = Pairs()
    p.mate.update(pairs)
    if want is None:
        with pytest.raises(CoupledDeadlock):
            CoupledSimulation(systems, p).run()
        return
    _, r = run(systems, p)
    assert starts(r, 0) == want[0]
    assert starts(r, 1) == want[1]


@settings(max_examples=60, deadline=None)
@given(
    workloads(max_jobs=20, max_procs=6),
    workloads(max_jobs=20, max_procs=4),
    st.sampled_from(["slurm", "conservative", "backfill:reservations=2", "easy:order=lxf",
                     "firstfit"]),
    st.sampled_from(["HH", "HY", "YH", "YY"]),
)  # fmt: skip
def test_any_core_policy_runs_a_coupled_system(wa, wb, spec, combo):
    pairs = pair_every(wa, wb, 2)
    systems = [
        System(name, w, M(n), scheduler=get_scheduler(spec), release=100.0, release_age=50.0,
               scheme="hold" if letter == "H" else "yield")
        for name, w, n, letter in (("A", wa, 8, combo[0]), ("B", wb, 5, combo[1]))
    ]  # fmt: skip
    _, r = run(systems, pairs)  # with release on, every run progresses to its end
    for a, ja, b, jb in pairs.table():
        assert starts(r, a)[ja] == starts(r, b)[jb]
    assert all(np.isfinite(x.jobs["start"]).all() for x in r.results)


# -- Slurm's compiled pass under a gate: the Python pass's schedules ------------------------------
@st.composite
def gated_slurm_options(draw):
    """Slurm options whose clocks, rounding and priorities matter on :func:`workloads`'
    jobs of up to 100 s arriving up to 30 s apart."""
    opts = {
        "priority": draw(st.sampled_from(["multifactor", "fifo"])),
        "priority_calc_period": draw(st.sampled_from([45.0, 300.0])),
        "priority_max_age": draw(st.sampled_from([90.0, 7 * 86400.0])),
        "priority_weight_age": draw(st.sampled_from([0.0, 5e7, 1000.0])),
        "priority_weight_job_size": draw(st.sampled_from([0.0, 6e8, 1000.0])),
        "priority_favor_small": draw(st.booleans()),
        "backfill": draw(st.sampled_from([True, True, True, False])),
        "bf_interval": draw(st.sampled_from([7.0, 30.0])),
        "bf_max_job_test": draw(st.sampled_from([1, 2, 50])),
        "bf_resolution": draw(st.sampled_from([1.0, 60.0])),
        "bf_window": draw(st.sampled_from([2.0, 1440.0])),
        "bf_job_part_count_reserve": draw(st.sampled_from([None, None, 1])),
        "bf_nodes": draw(st.sampled_from([False, False, True])),  # the node-space map
    }
    sched = draw(st.sampled_from([None, None, 1.0, 7.0]))
    if sched is not None:
        opts["sched_interval"] = sched
    return opts


@settings(max_examples=80, deadline=None)
@given(
    workloads(max_jobs=25, max_procs=6),
    workloads(max_jobs=25, max_procs=4),
    gated_slurm_options(),
    st.sampled_from(["HH", "HY", "YH", "YY"]),
    st.sampled_from(["vicinity", "every"]),
    st.sampled_from(["queued", "yielded"]),
)
def test_slurms_compiled_pass_under_a_gate_gives_the_python_pass_schedule(
    wa, wb, opts, combo, how, attempt
):
    # the gate re-asks the pass within a pass (holds, yields), hides and demotes jobs and
    # starts held jobs later: SlurmPass serves it (serve_gate) with the Python pass's schedule
    from reference_passes import python_slurm

    from coschedlab.schedulers import Slurm

    pairs = pair_by_vicinity(wa, wb, 20.0) if how == "vicinity" else pair_every(wa, wb, 2)

    def both(make):
        scheds = [make(), make()]
        systems = [
            System(name, w, M(n), scheduler=s, scheme="hold" if letter == "H" else "yield",
                   release=100.0, release_age=50.0)
            for name, w, n, letter, s in (("A", wa, 8, combo[0], scheds[0]),
                                          ("B", wb, 5, combo[1], scheds[1]))
        ]  # fmt: skip
        _, r = run(systems, pairs, mate_attempt=attempt)
        return scheds, r

    fast, rf = both(lambda: Slurm(**opts))
    slow, rs = both(lambda: python_slurm(**opts))
    assert all(s.compiled_pass is not None and s.compiled_pass.gated for s in fast)
    assert all(s.compiled_pass is None for s in slow)
    for x, y in zip(rf.results, rs.results, strict=True):
        assert x.jobs["start"].tolist() == y.jobs["start"].tolist()
        assert x.jobs["alloc"].tolist() == y.jobs["alloc"].tolist()
        assert (
            x.jobs["reservation"].fillna(-1).tolist() == y.jobs["reservation"].fillna(-1).tolist()
        )
    assert rf.holds.equals(rs.holds)
    assert [s.backfill_passes for s in fast] == [s.backfill_passes for s in slow]
