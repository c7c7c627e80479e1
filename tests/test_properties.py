"""Hypothesis properties over random workloads, for every built-in scheduler."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import workloads
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from reference_easy import reference_schedule
from reference_passes import python_pass, same_as_python

from coschedlab import Cluster, simulate, validate_jobs
from coschedlab.engine.kernel import CQueue
from coschedlab.schedulers import Backfill

SCHEDULERS = ["fcfs", "sjf", "firstfit", "firstfit:order=wfp", "easy", "easy:extra=false",
              "easy:depth=2", "easy:interval=17", "easy:order=wfp",
              "backfill", "backfill:reservations=3", "conservative", "conservative:compress=true",
              "conservative:order=sjf", "easy:order=lxf"]  # fmt: skip
clusters = st.builds(Cluster, st.integers(1, 8), st.integers(1, 2), st.integers(1, 2))


def rows(w):
    return list(
        zip(w.id.tolist(), w.submit.tolist(), w.run.tolist(), w.requested_time.tolist(),
            w.procs.tolist(), strict=True)
    )  # fmt: skip


def fit(w, cluster):
    return w.select(w.procs <= cluster.total_cores)


@given(w=workloads(), cluster=clusters, spec=st.sampled_from(SCHEDULERS))
def test_every_schedule_passes_the_validator(w, cluster, spec):
    w = fit(w, cluster)
    r = simulate(w, cluster, spec)
    assert len(r.jobs) == len(w)
    assert r.validate() == []


@given(w=workloads(), cluster=clusters, kill=st.booleans())
def test_fcfs_starts_in_queue_order(w, cluster, kill):
    r = simulate(fit(w, cluster), cluster, "fcfs", kill_at_walltime=kill)
    start = r.jobs.start.to_numpy()  # rows are in queue order (submit, id)
    assert np.all(np.diff(start) >= 0)


@given(w=workloads(), cluster=clusters, extra=st.booleans())
def test_easy_matches_the_textbook_reference(w, cluster, extra):
    w = fit(w, cluster)
    spec = "easy" if extra else "easy:extra=false"
    r = simulate(w, cluster, spec)
    expected = reference_schedule(rows(w), cluster.nodes, cluster.cores_per_node, extra=extra)
    assert dict(zip(r.jobs.job_id, r.jobs.start, strict=True)) == expected


@given(w=workloads(), cluster=clusters)
def test_fcfs_matches_the_textbook_reference(w, cluster):
    w = fit(w, cluster)
    r = simulate(w, cluster, "fcfs")
    expected = reference_schedule(rows(w), cluster.nodes, cluster.cores_per_node, backfill=False)
    assert dict(zip(r.jobs.job_id, r.jobs.start, strict=True)) == expected


@given(w=workloads(min_req=1), cluster=clusters)
def test_easy_closed_form_equals_one_reservation_on_the_profile(w, cluster):
    # (zero requested times excluded: an instantaneous reservation blocks nothing on the
    # profile, while the closed form's extra = 0 at a shadow time of "now" still does)
    # the closed form is the fast path of Backfill with one reservation: switch it off to get
    # the same policy on the availability profile
    w = fit(w, cluster)
    a = simulate(w, cluster, "easy").jobs
    on_profile = Backfill(reservations=1)
    on_profile.closed_form = False
    b = simulate(w, cluster, on_profile).jobs
    assert a.start.tolist() == b.start.tolist()


@given(w=workloads(estimates="exact"), cluster=clusters)
def test_easy_never_starts_the_head_later_than_fcfs_from_the_same_state(w, cluster):
    # With exact estimates the shadow time IS the FCFS start from the state where the job
    # became head; the validator recomputes it independently and must find no delay.
    w = fit(w, cluster)
    r = simulate(w, cluster, "easy")
    res = r.jobs.reservation.to_numpy()
    started_late = r.jobs.start.to_numpy() > res
    assert not np.any(started_late[np.isfinite(res)])
    assert r.validate() == []


@given(w=workloads(estimates="exact"), cluster=clusters)
def test_conservative_never_delays_a_reservation_with_exact_estimates(w, cluster):
    r = simulate(fit(w, cluster), cluster, "conservative")
    res = r.jobs.reservation.to_numpy()
    ok = np.isfinite(res)
    assert np.all(r.jobs.start.to_numpy()[ok] <= res[ok])


@given(w=workloads(estimates="early"), cluster=clusters)
def test_compressed_conservative_never_delays_a_reservation(w, cluster):
    r = simulate(fit(w, cluster), cluster, "conservative:compress=true")
    res = r.jobs.reservation.to_numpy()
    ok = np.isfinite(res)
    assert np.all(r.jobs.start.to_numpy()[ok] <= res[ok])


@given(w=workloads(), cluster=clusters, spec=st.sampled_from(SCHEDULERS))
def test_same_inputs_same_outputs(w, cluster, spec):
    w = fit(w, cluster)
    pd.testing.assert_frame_equal(simulate(w, cluster, spec).jobs, simulate(w, cluster, spec).jobs)


@given(w=workloads(max_jobs=15), cluster=clusters, data=st.data())
def test_validator_catches_a_broken_schedule(w, cluster, data):
    w = fit(w, cluster)
    assume(len(w) > 0)
    jobs = simulate(w, cluster, "easy").jobs.copy()
    k = data.draw(st.integers(0, len(jobs) - 1))
    broken = jobs.copy()
    broken.loc[k, "start"] = jobs.loc[k, "submit"] - 1.0  # before its submission
    assert any("before its submission" in e for e in validate_jobs(broken, cluster))


COMPILED = ["fcfs", "sjf", "fcfs:order=lxf", "firstfit", "firstfit:order=wfp", "easy",
            "easy:extra=false", "easy:depth=2", "easy:interval=17", "easy:order=sjf",
            "easy:order=wfp", "easy:order=lxf", "backfill", "conservative",
            "conservative:compress=true", "conservative:order=sjf", "conservative:order=wfp",
            "conservative:order=lxf:compress=true", "backfill:reservations=3",
            "backfill:reservations=2:compress=true", "backfill:reservations=1:order=sjf",
            "backfill:reservations=1:compress=true"]  # fmt: skip


@given(w=workloads(), cluster=clusters, spec=st.sampled_from(COMPILED), kill=st.booleans())
def test_the_compiled_pass_gives_the_python_pass_schedule(w, cluster, spec, kill):
    # the kernel calls the built-in's compiled pass (its queue in C arrays); the Python pass
    # it replaced (tests/reference_passes.py) runs through the view: same starts, reservations
    from coschedlab.schedulers import get_scheduler

    w = fit(w, cluster)
    fast = get_scheduler(spec)
    compiled = simulate(w, cluster, fast, kill_at_walltime=kill)
    assert fast.compiled_pass is not None
    slow = python_pass(spec)
    python = simulate(w, cluster, slow, kill_at_walltime=kill)
    assert slow.compiled_pass is None
    assert compiled.jobs.start.tolist() == python.jobs.start.tolist()
    assert compiled.jobs.reservation.fillna(-1).tolist() == (
        python.jobs.reservation.fillna(-1).tolist()
    )


class _CountsOracle:
    """Slurm's node-count space in Python (the oracle of :class:`.passes.CountScan`): the
    profile's test and hold with durations rounded up to the resolution past ``now``, no slot
    beyond the window."""

    def __init__(self, prof, now, res, window):
        self.prof, self.now, self.res, self.window = prof, now, res, now + window

    def rnd(self, t):
        return math.ceil(t / self.res - 1e-9) * self.res

    def test(self, need, limit):
        slot = self.prof.test(need, self.rnd(self.now + limit) - self.now)
        return slot if slot[0] <= self.window else (math.inf, 0)

    def hold(self, need, start, limit):
        self.prof.hold(need, start, self.rnd(self.now + limit) - self.now)

    def start(self, need, order, limit):
        self.hold(need, self.now, limit)


@given(
    data=st.data(),
    n=st.integers(1, 25),
    machine=st.integers(1, 16),
    res=st.sampled_from([1.0, 60.0, 300.0]),
    window=st.sampled_from([600.0, 3600.0, 86400.0]),
    reserve=st.sampled_from([None, 1, 2]),
    tests=st.integers(1, 30),
)
def test_slurm_count_scan_matches_the_python_scan(data, n, machine, res, window, reserve, tests):
    # Slurm's compiled backfill scan on its count profile gives the Python reservation scan's
    # starts and reservations (running jobs with and without a start, jobs just started)
    _check_count_scan(data, n, machine, res, window, reserve, tests, "rwqj")


@given(
    data=st.data(),
    n=st.integers(4, 30),
    machine=st.integers(2, 12),
    res=st.sampled_from([1.0, 60.0]),
    window=st.sampled_from([0.0, 60.0, 600.0, 1800.0]),
    tests=st.integers(3, 30),
)
def test_slurm_count_scan_with_many_slots_beyond_the_window(data, n, machine, res, window, tests):
    # the same, with short windows and mostly pending jobs: many tested jobs find no slot
    # within the window, and the scan skips those it proves beyond it from an earlier one
    # (CountScan.beyond_known)
    _check_count_scan(data, n, machine, res, window, None, tests, "rqqqq")


def _check_count_scan(data, n, machine, res, window, reserve, tests, kinds):
    from coschedlab.schedulers.passes import CountScan
    from coschedlab.schedulers.profile import Profile, reservation_scan

    now = data.draw(st.floats(0, 1e5))
    nodes = data.draw(st.lists(st.integers(1, machine), min_size=n, max_size=n))
    # limits of 1-120 minutes: the pass keeps at least one (``Slurm._limits``); a zero limit
    # at a time within 1e-9 of the resolution's grid rounds its end before ``now``, where
    # the oracle's profile and CountScan part (a draw of now=3e-305 found it)
    limit = [60.0 * m for m in data.draw(st.lists(st.integers(1, 120), min_size=n, max_size=n))]
    roles = data.draw(st.lists(st.sampled_from(kinds), min_size=n, max_size=n))
    start = [now - data.draw(st.floats(0, 9000)) if r == "r" else math.nan for r in roles]
    est = sorted(
        (start[j] + limit[j] if roles[j] == "r" else now + data.draw(st.floats(-50, 9000)), j)
        for j in range(n)
        if roles[j] in "rw"
    )
    just = [j for j in range(n) if roles[j] == "j"]
    queued = [r == "q" for r in roles]
    order = sorted((data.draw(st.integers(0, 5)), j) for j in range(n))
    free = data.draw(st.integers(0, machine))
    got: dict[int, float] = {}
    started, more = CountScan(nodes, limit, res).scan(
        now, free, est, start, just, order, queued, tests, window, reserve, got.__setitem__
    )
    oracle = _CountsOracle(None, now, res, window)
    ends = [(oracle.rnd(e if start[j] != start[j] else start[j] + limit[j]), nodes[j])
            for e, j in est]  # fmt: skip
    ends += [(oracle.rnd(now + limit[j]), nodes[j]) for j in just]
    oracle.prof = Profile(now, free, sorted(ends))
    pending = [j for _, j in order if queued[j] and j not in just]
    want: dict[int, float] = {}
    expected = reservation_scan(
        oracle, pending[:tests], nodes, limit, free, now, want.__setitem__, reserve
    )
    assert started == expected
    assert got == want
    assert more == (len(pending) > tests)


@st.composite
def slurm_options(draw):
    """Slurm options that make its clocks, rounding, window and limits matter on the small
    workloads of :func:`slurm_workloads`."""
    opts = {
        "priority": draw(st.sampled_from(["multifactor", "fifo"])),
        "priority_calc_period": draw(st.sampled_from([45.0, 300.0])),
        "priority_max_age": draw(st.sampled_from([900.0, 7 * 86400.0])),
        "priority_weight_age": draw(st.sampled_from([0.0, 5e7, 1000.0])),
        "priority_weight_job_size": draw(st.sampled_from([0.0, 6e8, 1000.0])),
        "priority_favor_small": draw(st.booleans()),
        "small_relative_to_time": draw(st.booleans()),
        "backfill": draw(st.sampled_from([True, True, True, False])),
        "bf_interval": draw(st.sampled_from([7.0, 30.0, 60.5])),
        "bf_max_job_test": draw(st.sampled_from([1, 2, 5, 50])),
        "bf_resolution": draw(st.sampled_from([1.0, 60.0, 300.0])),
        "bf_window": draw(st.sampled_from([5.0, 30.0, 1440.0])),
        "bf_job_part_count_reserve": draw(st.sampled_from([None, None, 1, 2])),
    }
    opts["bf_phase"] = draw(st.sampled_from([0.0, 3.5])) % opts["bf_interval"]
    sched = draw(st.sampled_from([None, None, 1.0, 7.0]))
    if sched is not None:
        opts["sched_interval"] = sched
        opts["sched_phase"] = draw(st.sampled_from([0.0, 0.5]))
    return opts


@st.composite
def slurm_workloads(draw, max_jobs: int = 30, max_procs: int = 8):
    """Jobs of minutes to an hour, some overrunning their limit, in bursts and gaps; some
    waiting for earlier jobs (plus a think time), so that they join the queue out of order."""
    from coschedlab import Workload

    rows = []
    t = 0
    deps = draw(st.booleans())
    for i in range(draw(st.integers(1, max_jobs))):
        t += draw(st.sampled_from([0, 0, 1, 17, 60, 600, 3000]))
        run = draw(st.integers(0, 3600))
        req = max(0, run + draw(st.integers(-300, 1800)))
        row = {"id": i + 1, "submit": t, "run": run, "requested_time": req}
        row["procs"] = draw(st.integers(1, max_procs))
        if deps and i:
            row["deps"] = tuple(draw(st.lists(st.integers(1, i), max_size=2, unique=True)))
            row["think_time"] = float(draw(st.sampled_from([-1, 0, 45])))
        rows.append(row)
    return Workload.from_records(rows)


@given(
    w=slurm_workloads(),
    nodes=st.integers(1, 8),
    opts=slurm_options(),
    kill=st.booleans(),
    data=st.data(),
)
def test_the_compiled_slurm_pass_gives_the_python_pass_schedule(w, nodes, opts, kill, data):
    # SlurmPass (priorities, main scheduler, backfill thread, its clocks; ticks at which
    # nothing can happen are not passes) against the Python pass: the same starts, the
    # same first reservations and the same number of backfill passes (jobs with
    # dependencies, inherited priority factors as WoAS tasks have)

    cluster = Cluster(nodes, 1, 1)
    w = fit(w, cluster)
    ids = w.id.tolist()
    heirs = data.draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
    opts["inherit"] = {
        j: (data.draw(st.sampled_from([0.0, 100.0, 5000.0])), data.draw(st.integers(1, nodes)),
            data.draw(st.sampled_from([60.0, 3600.0])))
        for j in heirs
    }  # fmt: skip
    fast, slow = same_as_python(w, cluster, opts, kill)
    for j in range(len(ids)):
        assert fast.age_origin(j) == slow.age_origin(j)
        assert fast.priority_of(j, 1e5) == slow.priority_of(j, 1e5)


@given(
    w=slurm_workloads(),
    nodes=st.integers(1, 12),
    opts=slurm_options(),
    kill=st.booleans(),
)
def test_the_compiled_slurm_pass_with_bf_nodes_gives_the_python_pass_schedule(w, nodes, opts, kill):
    # bf_nodes: SlurmPass (priorities, main scheduler, backfill clock, the passes over an
    # unchanged state skipped) with the node-space map's scan against the Python pass: the
    # same starts, nodes, first reservations and backfill passes
    cluster = Cluster(nodes, 1, 1)
    fast, _ = same_as_python(fit(w, cluster), cluster, {**opts, "bf_nodes": True}, kill)
    assert fast.compiled_pass.on_nodes and isinstance(fast._view.queue, CQueue)  # C run


@settings(max_examples=30, deadline=None)
@given(
    w=slurm_workloads(max_jobs=40, max_procs=100),
    nodes=st.integers(13, 140),
    opts=slurm_options(),
    kill=st.booleans(),
)
def test_bf_nodes_on_machines_across_bitset_words_gives_the_python_pass_schedule(
    w, nodes, opts, kill
):
    # the compiled node-space map (nodemap.NodeMap: 64 nodes a word) on machines of one to
    # three words against the Python pass's BackfillMap (Python ints): the same starts, nodes,
    # first reservations and backfill passes
    cluster = Cluster(nodes, 1, 1)
    fast, _ = same_as_python(fit(w, cluster), cluster, {**opts, "bf_nodes": True}, kill)
    assert fast.compiled_pass.on_nodes and isinstance(fast._view.queue, CQueue)  # C run


@pytest.mark.parametrize("sweep", [-1, 10**9])
def test_slurm_release_list_swept_at_once_or_never_gives_the_same_schedules(sweep):
    # SlurmPass keeps one release entry per rounded end (nodes and jobs), leaves an entry
    # whose jobs all ended in place (of no job: skipped by the scans and the look-ahead) and
    # sweeps such entries now and then: swept at each end, or never, the schedules stay the
    # Python pass's
    from coschedlab.schedulers.passes import release_sweep

    old = release_sweep(sweep)
    try:
        test_the_compiled_slurm_pass_gives_the_python_pass_schedule()
    finally:
        release_sweep(old)


@pytest.mark.parametrize("block", [2, 5])
def test_count_scans_on_profiles_in_blocks_of_several_steps(block):
    # CProfile.test walks a profile in blocks one block at a time (its count folded into the
    # need), a flat one in a loop of its own: blocks of several steps forced on the scans'
    # small profiles give the Python scan's starts and reservations (blocks of one step, the
    # fast variant above, never walk inside a block)
    from coschedlab.schedulers.passes import profile_blocks

    old = profile_blocks(block, 0)
    try:
        test_slurm_count_scan_matches_the_python_scan()
        test_slurm_count_scan_with_many_slots_beyond_the_window()
    finally:
        profile_blocks(*old)


#: random scans with many running and held jobs (``_check_count_scan``'s arguments)
_many_holds = given(
    data=st.data(),
    n=st.integers(10, 40),
    machine=st.integers(4, 16),
    tests=st.integers(10, 40),
)


@settings(max_examples=200, deadline=None)
@_many_holds
def test_count_scans_with_many_holds_on_profiles_in_blocks(data, n, machine, tests):
    # many running jobs and many held ones, on blocks of 2 steps: holds that start or end
    # inside a block after an earlier hold lowered another of its steps (CProfile.take keeps
    # the block's least count without walking the steps it does not take from; a block
    # passed whole by a test needs that least, and its last breakpoint, CProfile.last)
    from coschedlab.schedulers.passes import profile_blocks

    old = profile_blocks(2, 0)
    try:
        _check_count_scan(data, n, machine, 60.0, 86400.0, None, tests, "rrqqq")
    finally:
        profile_blocks(*old)


@pytest.mark.parametrize("front, flat", [(0, 0), (1, 0), (1, 1000)])
@settings(max_examples=100, deadline=None)
@_many_holds
def test_count_scans_with_little_room_before_the_profile(front, flat, data, n, machine, tests):
    # CProfile.insert moves the steps before a new breakpoint back into the room kept before
    # the first step when they are the fewer, else (or with no room left) those after it
    # forward: with no room, or room for one insert, in blocks of 2 steps or one flat block,
    # the Python scan's starts and reservations
    from coschedlab.schedulers.passes import profile_blocks, profile_front

    old_front = profile_front(front)
    old = profile_blocks(2, flat)
    try:
        _check_count_scan(data, n, machine, 60.0, 86400.0, None, tests, "rrqqq")
    finally:
        profile_blocks(*old)
        profile_front(old_front)


@pytest.mark.parametrize("block", [1, pytest.param(2, marks=pytest.mark.slow),
                                   pytest.param(3, marks=pytest.mark.slow)])  # fmt: skip
def test_a_profile_in_small_blocks_gives_the_same_scans_and_schedules(block):
    # CProfile in blocks (lazy holds over whole blocks, duration checks passing whole
    # blocks, blocks split as holds add steps), forced on the small profiles of the property
    # tests: the same scans and schedules as the Python oracles
    from coschedlab.schedulers.passes import profile_blocks

    old = profile_blocks(block, 0)
    try:
        test_slurm_count_scan_matches_the_python_scan()
        test_the_compiled_pass_gives_the_python_pass_schedule()
        test_the_compiled_slurm_pass_gives_the_python_pass_schedule()
    finally:
        profile_blocks(*old)
