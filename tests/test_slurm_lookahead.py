"""Slurm's compiled pass does not wake for the backfill ticks it proves quiet
(:meth:`coschedlab.schedulers.passes.SlurmPass.lookahead`): the starts, the first
reservations and the number of backfill passes stay the Python pass's (the oracle, which
makes every tick a pass), on random workloads with long quiet stretches and on a real trace."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_passes import same_as_python

from coschedlab import Cluster, Workload, simulate
from coschedlab.schedulers.slurm import Slurm
from coschedlab.workload.swf import cluster_from_header, read_swf

KTH = "src/coschedlab/data/KTH-SP2-1996-2.1-cln.swf.gz"


@st.composite
def quiet_workloads(draw, nodes: int):
    """Jobs of minutes to hours on up to all the nodes, limits up to several times the run
    (reservations far ahead, beyond short windows) or a quarter of it (jobs long past their
    planned ends without kill: holds that move with the tick), in bursts and gaps: long
    stretches in which jobs wait with nodes free and nothing starts."""
    rows = []
    t = 0
    for i in range(draw(st.integers(5, 45))):
        t += draw(st.sampled_from([0, 0, 5, 60, 900, 3600, 20000]))
        run = draw(st.integers(0, 6 * 3600))
        times = draw(st.sampled_from([0, 1, 1, 2, 4]))  # 0: a quarter (overruns, kill off)
        req = max(1, (run // 4 if times == 0 else run * times) + draw(st.integers(-600, 3600)))
        procs = draw(st.integers(1, nodes))
        rows.append({"id": i + 1, "submit": t, "run": run, "requested_time": req, "procs": procs})
    return Workload.from_records(rows)


@st.composite
def integer_clocks(draw):
    """Slurm options with whole-second clocks (the look ahead's classes of ticks: 1 to 10 of
    them, beyond 8 one per tick), short to long windows and few to many tested jobs."""
    opts = {
        "priority": draw(st.sampled_from(["multifactor", "multifactor", "fifo"])),
        "priority_calc_period": draw(st.sampled_from([45.0, 300.0, 600.0])),
        "priority_max_age": draw(st.sampled_from([900.0, 7 * 86400.0])),
        "priority_weight_age": draw(st.sampled_from([0.0, 5e7, 1000.0])),
        "priority_weight_job_size": draw(st.sampled_from([0.0, 6e8, 1000.0])),
        "priority_favor_small": draw(st.booleans()),
        "bf_interval": draw(st.sampled_from([30.0, 20.0, 60.0, 45.0, 7.0])),
        "bf_max_job_test": draw(st.sampled_from([1, 3, 50])),
        "bf_resolution": draw(st.sampled_from([60.0, 30.0, 1.0, 120.0, 300.0])),
        "bf_window": draw(st.sampled_from([10.0, 60.0, 240.0, 1440.0])),
        "bf_job_part_count_reserve": draw(st.sampled_from([None, None, 1, 3])),
    }
    opts["bf_phase"] = float(draw(st.sampled_from([0, 10, 29])) % opts["bf_interval"])
    return opts


@given(
    nodes=st.integers(2, 16),
    opts=integer_clocks(),
    kill=st.booleans(),
    data=st.data(),
)
def test_ticks_not_woken_change_nothing(nodes, opts, kill, data):
    w = data.draw(quiet_workloads(nodes))
    same_as_python(w, Cluster(nodes, 1, 1), opts, kill)


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"bf_interval": 20.0},  # three classes of ticks
        {"bf_window": 30.0, "bf_phase": 7.0},  # slots beyond the window coming within it
        {"priority": "fifo", "bf_job_part_count_reserve": 1},
        {"bf_resolution": 300.0},  # ten classes: each tick its own
        {"bf_interval": 30.5},  # no integer clock: each tick its own
    ],
    ids=["default", "interval20", "window30", "fifo-reserve1", "resolution300", "interval30.5"],
)
@pytest.mark.parametrize("kill", [True, False], ids=["kill", "overrun"])
def test_a_real_trace_skips_most_ticks_and_changes_nothing(opts, kill):
    w = read_swf(KTH)
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    w = w.select(np.arange(len(w)) < 2000)
    fast, _ = same_as_python(w, cluster, opts, kill)
    # most backfill ticks are accounted for without a pass (one at each, before)
    assert fast.compiled_pass.skipped > 0.5 * fast.backfill_passes


def _rows(rows: list[tuple[int, float, float, float, int]]) -> Workload:
    """Jobs given as ``(id, submit, run, requested_time, procs)``."""
    return Workload.from_records(
        [
            {"id": i, "submit": t, "run": run, "requested_time": req, "procs": n}
            for i, t, run, req, n in rows
        ]
    )


def test_a_release_that_passes_ends_the_proof():
    """A running job past its planned end (kill off) has its nodes in the first step of every
    later profile: the ticks proved quiet before its planned end say nothing of those after
    (the look ahead's bound "the first release after T"). Here, FIFO on 10 nodes, one class of
    ticks: A (3 nodes, planned end 600) overruns, R (5 nodes) ends at 3000; K (9 nodes) is
    reserved at 3000, J (4 nodes, 1200 s) at 600 and D (2 nodes, 600 s) at 1800. From 600 on,
    J holds the first step; from the first tick after 1800, J's 1200 s no longer fit before
    K's hold, J moves after it, and D starts there (1860) on the two idle nodes: a start that
    no event brings, which a proof carried past 600 would miss."""
    rows = [
        (1, 0, 100000, 600, 3),  # A: overruns its limit
        (2, 0, 3000, 3000, 5),  # R
        (3, 10, 1020, 1020, 9),  # K
        (4, 10, 1200, 1200, 4),  # J
        (5, 10, 600, 600, 2),  # D
    ]
    w = _rows(rows)
    opts = {"priority": "fifo", "bf_interval": 60.0, "bf_resolution": 60.0}
    fast, _ = same_as_python(w, Cluster(10, 1, 1), opts, kill=False)
    result = simulate(w, Cluster(10, 1, 1), Slurm(**opts), kill_at_walltime=False)
    assert result.jobs.start.tolist()[4] == 1860.0  # D, backfilled with no event at 1860
    assert fast.compiled_pass.skipped > 0  # ticks were proved quiet, before 600


def test_ticks_with_a_job_past_its_planned_end_are_proved_quiet():
    """While a running job is past its planned end (kill off), its nodes are free in the first
    step of every profile: a job that needs them is reserved at the tick itself, and so is,
    after its hold, the next one; both holds move with the tick (:meth:`.passes.SlurmPass.
    lookahead`). Their reservations are recorded, so such ticks do nothing, and they are
    proved quiet in classes while the moving holds end before the next release: here A (3 of
    10 nodes, planned end 600) overruns to 100,000 s, R (5 nodes) ends at 50,000, K (4 nodes,
    600 s) is held from each tick and D (2 nodes, 20,000 s) from K's end, for ~1,600 ticks
    of which only a few are passes."""
    rows = [
        (1, 0, 100000, 600, 3),  # A: overruns its limit
        (2, 0, 50000, 50000, 5),  # R
        (3, 10, 600, 600, 4),  # K
        (4, 10, 20000, 20000, 2),  # D
    ]
    w = _rows(rows)
    fast, _ = same_as_python(w, Cluster(10, 1, 1), {"priority": "fifo"}, kill=False)
    assert fast.backfill_passes > 1600
    assert fast.compiled_pass.skipped > 0.9 * fast.backfill_passes  # (each one a pass, before)


def test_a_hold_from_the_end_of_a_moving_hold_moves_too():
    """A hold that starts where a moving hold ends moves with the tick as well, and bounds the
    proof by its own end (:meth:`.passes.SlurmPass.lookahead`). FIFO on 10 nodes: A (5 nodes,
    planned end 600) overruns, R (3 nodes) ends at 3000; K (9 nodes) is reserved at 3000;
    from 600 on, K0 (3 nodes, 300 s) is held from each tick, J (6 nodes, 1200 s) from K0's
    end and D (2 nodes, 900 s) after J. At the first tick at which J's hold would reach K's
    (1470, with the durations of its class of ticks), J moves after K and D starts on the two
    idle nodes, with no event: a proof bounded by K0's end alone would miss it."""
    rows = [
        (1, 0, 100000, 600, 5),  # A: overruns its limit
        (2, 0, 3000, 3000, 3),  # R
        (3, 10, 1020, 1020, 9),  # K
        (4, 10, 300, 300, 3),  # K0
        (5, 10, 1200, 1200, 6),  # J
        (6, 10, 900, 900, 2),  # D
    ]
    w = _rows(rows)
    same_as_python(w, Cluster(10, 1, 1), {"priority": "fifo"}, kill=False)
    result = simulate(w, Cluster(10, 1, 1), Slurm(priority="fifo"), kill_at_walltime=False)
    assert result.jobs.start.tolist()[5] == 1470.0  # D, backfilled with no event at 1470


@st.composite
def long_queues(draw, nodes: int):
    """A few wide jobs that wait long (a job past its planned end holds nodes, kill off)
    while many narrow ones arrive behind them: arrivals below the tested jobs, and passes
    that only record reservations, leave the state a look ahead scanned unchanged."""
    rows = []
    t = 0
    for i in range(draw(st.integers(5, 40))):
        t += draw(st.sampled_from([0, 5, 30, 61, 300, 3600]))
        run = draw(st.integers(0, 4 * 3600))
        times = draw(st.sampled_from([0, 1, 2]))  # 0: overruns its limit (kill off)
        req = max(1, (run // 4 if times == 0 else run * times) + draw(st.integers(0, 1800)))
        procs = draw(st.sampled_from([nodes, nodes - 1, 1, 2, max(1, nodes // 2)]))
        rows.append({"id": i + 1, "submit": t, "run": run, "requested_time": req, "procs": procs})
    return Workload.from_records(rows)


@given(
    nodes=st.integers(3, 12),
    opts=integer_clocks(),
    tests=st.sampled_from([1, 2, 3, 50]),
    kill=st.booleans(),
    data=st.data(),
)
def test_proofs_carried_across_look_aheads_change_nothing(nodes, opts, tests, kill, data):
    """A look ahead takes over the proofs of an earlier one made on the same state
    (:meth:`.passes.SlurmPass.hold_state`): the starts, reservations and passes stay the
    Python pass's."""
    w = data.draw(long_queues(nodes))
    same_as_python(w, Cluster(nodes, 1, 1), {**opts, "bf_max_job_test": tests}, kill)


@pytest.mark.parametrize(
    "opts",
    [{}, {"bf_max_job_test": 3}, {"bf_interval": 20.0, "bf_max_job_test": 5}],
    ids=["default", "tests3", "interval20-tests5"],
)
def test_a_real_trace_carries_proofs_and_changes_nothing(opts):
    w = read_swf(KTH)
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    w = w.select(np.arange(len(w)) < 2000)
    fast, _ = same_as_python(w, cluster, opts, kill=False)
    assert fast.compiled_pass.carried > 0  # scans spared by a proof of an earlier look ahead


@pytest.mark.parametrize(
    "opts",
    [{}, {"bf_interval": 20.0, "bf_max_job_test": 5}, {"bf_window": 60.0}],
    ids=["default", "interval20-tests5", "window60"],
)
def test_proofs_past_moving_holds_change_nothing(opts):
    """A quiet scan whose holds move with the tick past the first release proves the later
    ticks of its class quiet while no moving time reaches a fixed one
    (:meth:`.passes.CountScan.shift_bound`): KTH's jobs 10,000 to 12,000 (jobs past their
    planned ends, kill off), the Python pass's starts, reservations and passes."""
    w = read_swf(KTH)
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    k = np.arange(len(w))
    w = w.select((k >= 10000) & (k < 12000))
    fast, _ = same_as_python(w, cluster, opts, kill=False)
    assert fast.compiled_pass.stretched > 0  # proofs made longer by the bound


def test_a_fixed_candidate_window_bounds_a_proof_past_moving_holds():
    """A candidate window from a fixed breakpoint counts in the bound of a proof past moving
    holds (:meth:`.passes.CountScan.shift_bound`). FIFO on 12 nodes, a window of 190
    minutes: A (6 nodes, planned end 600) overruns, R (4 nodes) ends at 3000; from 600 on M
    (3 nodes, 3600 s) is held from each tick, K (10 nodes) from M's end, X (6 nodes, 2400 s)
    from K's end (recorded at 11,460) and Y (7 nodes, 3600 s) beyond the window after X.
    X's window from R's release, ``[3000, 5400)``, holds K's start until the tick 1800, at
    which X moves to 3000 and Y comes within the window, recorded at 1800 + 10,800: a bound
    of the releases and moving times alone (3000) would carry the proof past 1800."""
    rows = [
        (1, 0, 100000, 600, 6),  # A: overruns its limit
        (2, 0, 3000, 3000, 4),  # R
        (3, 10, 3600, 3600, 3),  # M
        (4, 10, 7200, 7200, 10),  # K
        (5, 10, 2400, 2400, 6),  # X
        (6, 10, 3600, 3600, 7),  # Y
    ]
    opts = {"priority": "fifo", "bf_window": 190.0}
    fast, _ = same_as_python(_rows(rows), Cluster(12, 1, 1), opts, kill=False)
    assert fast.compiled_pass.stretched > 0


def test_a_release_under_a_moving_hold_bounds_the_proof():
    """A release counts in the bound of a proof past moving holds
    (:meth:`.passes.CountScan.shift_bound`) even when no candidate window reaches it. FIFO on
    10 nodes: A (3 nodes, planned end 600) and B (4 nodes, planned end 3000) overrun; from
    600 on M (4 nodes, 7200 s) is held from each tick, over B's planned end, and S (3 nodes,
    600 s) is reserved at 3000. From 3000 on, B's nodes are in the first step and S starts
    on the three idle nodes, at 3000, with no event: a proof bounded by S's window alone
    would carry past 3000."""
    rows = [
        (1, 0, 100000, 600, 3),  # A: overruns its limit
        (2, 0, 100000, 3000, 4),  # B: overruns its limit
        (3, 10, 7200, 7200, 4),  # M
        (4, 10, 600, 600, 3),  # S
    ]
    w = _rows(rows)
    fast, _ = same_as_python(w, Cluster(10, 1, 1), {"priority": "fifo"}, kill=False)
    result = simulate(w, Cluster(10, 1, 1), Slurm(priority="fifo"), kill_at_walltime=False)
    assert result.jobs.start.tolist()[3] == 3000.0  # S, backfilled with no event at 3000
    assert fast.compiled_pass.stretched > 0


def test_bf_nodes_runs_in_the_kernels_c_run_and_a_former_node_scan_override_is_refused():
    # bf_nodes: the compiled pass builds and scans the node-space map and starts its jobs
    # itself (no Python scan to override): the kernel runs it on its C arrays, and a subclass
    # that overrides the former Python scan (Slurm._node_scan) is told so at set-up
    from coschedlab.engine.kernel import CQueue
    from coschedlab.errors import InputError

    w = Workload.from_records(
        [(1, 0.0, 100.0, 120.0, 2), (2, 0.0, 50.0, 60.0, 1), (3, 10.0, 30.0, 60.0, 3),
         (4, 20.0, 10.0, 60.0, 1)]
    )  # fmt: skip
    sched = Slurm(bf_nodes=True, bf_interval=5)
    r = simulate(w, Cluster(4), sched)
    assert isinstance(sched._view.queue, CQueue) and sched.compiled_pass.on_nodes
    assert r.jobs.start.notna().all()

    class OwnScan(Slurm):
        def _node_scan(self, main, tested, free):
            return [], free, 0, 0.0

    with pytest.raises(InputError, match="_node_scan"):
        simulate(w, Cluster(4), OwnScan(bf_nodes=True))


@given(data=st.data(), n=st.integers(1, 12), most=st.sampled_from([1, 2, 3, 50]))
def test_a_proved_order_is_the_recomputed_order(data, n, most):
    # SlurmPass.reorder keeps the look-ahead's tested jobs without computing a key while a
    # proof (order_holds_to) covers the recalculation time: over random age origins (ties,
    # saturated ages, ages saturating on the way), sizes and weights, the order recomputed at
    # any time the proof covers has the same tested jobs in the same order
    from coschedlab.schedulers.passes import SlurmPass

    max_age = data.draw(st.sampled_from([900.0, 3600.0, 7 * 86400.0]))
    t0 = 10 * max_age
    w_age = data.draw(st.sampled_from([0.0, 1.0, 7.5, 1000.0, 5e7]))
    w_size = data.draw(st.sampled_from([0.0, 3.0, 1000.0, 6e8]))
    back = st.one_of(st.sampled_from([0.0, 1.0, max_age - 1, max_age, max_age + 1]),
                     st.floats(0, 2 * max_age))  # fmt: skip
    origin = [t0 - data.draw(back) for _ in range(n)]
    cpus = [data.draw(st.sampled_from([1, 2, 64])) for _ in range(n)]
    limit = [data.draw(st.sampled_from([60.0, 3600.0])) for _ in range(n)]
    p = SlurmPass([1] * n, [1] * n, [60.0] * n, 64.0, 1, "multifactor", w_age, w_size,
                  max_age, True, True, 300.0, True, 30.0, most, 60.0, 3600.0, None, 0.0,
                  None, 0.0)  # fmt: skip
    p.inherit(np.arange(n), np.array(origin), np.array(cpus), np.array(limit))
    later = data.draw(st.floats(0, 3 * max_age))
    end, changed = p.order_proof(t0, t0 + later)
    if t0 + later <= end:
        assert not changed
    end, changed = p.order_proof(t0, end)
    assert end == t0 or not changed  # (the proof's last time)


def test_proved_orders_over_many_random_queues():
    # the same over 20,000 seeded queues of jobs whose priorities lie a few units apart (small
    # weights, ages saturating within the draws): the truncation to integers makes two rising
    # jobs 1 or 2 apart tie or swap later, which a proof must not claim away (a proof that
    # takes 1 apart as safe fails here); a job may start after the proof is made (carried
    # only when the tested jobs stay proved: a tested job starting while untested ones wait
    # brings in an untested one, whose place the proof does not say); and proofs are made
    from coschedlab.schedulers.passes import SlurmPass

    rng = np.random.default_rng(1)
    proved = 0
    for _ in range(20000):
        n, most = int(rng.integers(2, 10)), int(rng.choice([1, 2, 3, 50]))
        max_age = float(rng.choice([900.0, 3600.0]))
        t0 = 10 * max_age
        w_age, w_size = float(rng.choice([1.0, 7.5, 1000.0])), float(rng.choice([0.0, 3.0]))
        p = SlurmPass([1] * n, [1] * n, [60.0] * n, 64.0, 1, "multifactor", w_age, w_size,
                      max_age, True, True, 300.0, True, 30.0, most, 60.0, 3600.0, None, 0.0,
                      None, 0.0)  # fmt: skip
        p.inherit(np.arange(n), t0 - rng.uniform(0, 1.2 * max_age, n),
                  rng.choice([1, 2, 64], n), rng.choice([60.0, 3600.0], n))  # fmt: skip
        t = t0 + float(rng.uniform(0, 2 * max_age))
        end, changed = p.order_proof(t0, t, int(rng.integers(-1, n)))
        proved += end > t0
        assert not (t <= end and changed), (n, most, w_age, w_size, max_age)
    assert proved > 5000


def test_order_proofs_are_made_kept_and_change_nothing():
    # the proof is not vacuous: on KTH's first 2,000 jobs the look-ahead's recalculations
    # keep their tested jobs without a key computed, and the schedule is the Python pass's
    w = read_swf(KTH)
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    w = w.select(np.arange(len(w)) < 2000)
    fast, _ = same_as_python(w, cluster, {}, True)
    assert fast.compiled_pass.kept > 100


@given(
    nodes=st.integers(2, 12),
    opts=integer_clocks(),
    sched=st.sampled_from([1.0, 7.0, 30.0, 45.0]),
    phase=st.sampled_from([0.0, 0.5, 3.0]),
    kill=st.booleans(),
    data=st.data(),
)
def test_ticks_not_woken_with_sched_interval_change_nothing(nodes, opts, sched, phase, kill, data):
    """With the main scheduler on its own clock (``sched_interval``) the backfill ticks are
    looked ahead over too, while the main scheduler provably starts nothing at its ticks
    (:meth:`.passes.SlurmPass.main_quiet`): the Python pass's starts, reservations and
    passes."""
    w = data.draw(quiet_workloads(nodes))
    opts = {**opts, "sched_interval": sched, "sched_phase": phase % sched}
    same_as_python(w, Cluster(nodes, 1, 1), opts, kill)


@pytest.mark.parametrize("opts", [{}, {"priority": "fifo"}, {"priority_weight_age": 0.0}])
def test_a_long_wait_with_sched_interval_wakes_few_ticks(opts):
    """A job of 10^8 s leaves one of two nodes idle while a two-node job waits behind it: with
    ``sched_interval`` every backfill tick (3.3 million) was a pass; the look ahead proves them
    quiet (the main scheduler cannot start the waiting job, whose priority is final once its
    age factor is 1), with the same schedule and backfill passes as the Python pass on a
    shorter wait."""
    rows = [(1, 0, 1e8, 1e8, 1), (2, 10, 100, 200, 2)]
    fast = Slurm(sched_interval=1.0, **opts)
    result = simulate(_rows(rows), Cluster(2, 1, 1), fast)
    assert result.jobs.start.tolist() == [0.0, 1e8]
    assert fast.backfill_passes > 3_000_000
    assert fast.compiled_pass.skipped > fast.backfill_passes - 1000
    short = [(1, 0, 2e6, 2e6, 1), (2, 10, 100, 200, 2), (3, 3e5, 50, 60, 1)]
    same_as_python(_rows(short), Cluster(2, 1, 1), {"sched_interval": 1.0, **opts}, True)


@given(data=st.data(), n=st.integers(1, 10), most=st.sampled_from([1, 2, 3, 50]))
def test_the_one_answer_on_the_order_holds_where_it_says(data, n, most):
    # SlurmPass.order_kept_to, the one answer to "can the tested order still change?" (the
    # look-ahead skips the recalculations it covers; main_quiet reads it): where it answers an end
    # for a recalculation at t (a proof made at t0, FIFO or no age weight: inf), the order
    # recomputed at t, at that end and between has the tested jobs of t0, in order; not before t0
    # (a rising job ahead of a still one at t0 may have been behind it earlier)
    from coschedlab.schedulers.passes import SlurmPass

    max_age = data.draw(st.sampled_from([900.0, 3600.0]))
    t0 = 10 * max_age
    w_age = data.draw(st.sampled_from([0.0, 1.0, 7.5, 1000.0, 5e7]))
    w_size = data.draw(st.sampled_from([0.0, 3.0, 1000.0]))
    back = st.one_of(st.sampled_from([0.0, 1.0, max_age - 1, max_age, max_age + 1]),
                     st.floats(0, 2 * max_age))  # fmt: skip
    origin = [t0 - data.draw(back) for _ in range(n)]
    cpus = [data.draw(st.sampled_from([1, 2, 64])) for _ in range(n)]
    p = SlurmPass([1] * n, [1] * n, [60.0] * n, 64.0, 1, "multifactor", w_age, w_size,
                  max_age, True, True, 300.0, True, 30.0, most, 60.0, 3600.0, None, 0.0,
                  None, 0.0)  # fmt: skip
    p.inherit(np.arange(n), np.array(origin), np.array(cpus), np.array([60.0] * n))
    t = t0 + data.draw(st.floats(-max_age, 3 * max_age))
    end = p.order_kept(t0, t)
    if end >= t:
        later = [t, t + data.draw(st.floats(0, 1)) * (min(end, t + 4 * max_age) - t)]
        for x in later + ([end] if end < float("inf") else []):
            assert not p.order_proof(t0, x)[1], (t, x, end)


@pytest.mark.parametrize("opts", [{}, {"sched_interval": 1.0}])
def test_one_waiting_job_keeps_its_order_for_good(opts):
    # one pending job is its own order at every recalculation: the proof of order_kept_to
    # says so at once (inf), so the look ahead neither stops at its 32nd recalculation nor
    # waits for the job's age factor to reach 1 (7 days) before proving every tick quiet
    rows = [(1, 0, 9e9, 9e9, 1), (2, 10, 100, 200, 2)]
    fast = Slurm(**opts)
    result = simulate(_rows(rows), Cluster(2, 1, 1), fast)
    assert result.jobs.start.tolist() == [0.0, 9e9]
    assert fast.backfill_passes == 299_999_999
    assert fast.compiled_pass.skipped == fast.backfill_passes - 1
