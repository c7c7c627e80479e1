"""Submission modes and the Slurm-like scheduler: the seed's Figure 1 story, priority
inheritance, the FIFO pass, the backfill cadence, and properties over random workloads."""

from __future__ import annotations

import numpy as np
import pytest
from _regular_jobs import regular
from conftest import workflow_dags
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.api import simulate
from coschedlab.errors import InputError
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers import Multifactor, Slurm
from coschedlab.workflows import (
    MODES,
    WorkflowWorkload,
    builtin,
    completed_in_all,
    expand,
    generate,
    simulate_mode,
)
from coschedlab.workflows.metrics import compared_title
from coschedlab.workflows.simulate import simulate_modes

_regular = regular


def figure1() -> WorkflowWorkload:
    """CyberShake on an 800-core machine (1-core nodes), submitted at 1 s behind B1 (680 cores,
    running from 0) and before B2 (700 cores, submitted at 100, waiting for B1)."""
    regular = _regular((1, 0, 11000, 11040, 680), (2, 100, 4000, 4020, 700))
    return WorkflowWorkload(
        regular, [builtin("cybershake")], [(1.0, 0)], Cluster.from_cores(800, 1), (0.0, 1e6)
    )


def test_simulate_modes_compares_the_workflows_completed_in_every_mode():
    """Figure 1 with the window [0, 1000): the run stops 6 h after it, when the chained and
    WoAS workflows have ended (at 4,000 s + the critical path) but the pilot, waiting 10,999 s
    for B1's cores, has not: no workflow is compared, in any mode; each mode's phase is
    announced to the progress bar before it runs."""
    regular = _regular((1, 0, 11000, 11040, 680), (2, 100, 4000, 4020, 700))
    ww = WorkflowWorkload(regular, [builtin("cybershake")], [(1.0, 0)],
                          Cluster.from_cores(800, 1), (0.0, 1000.0))  # fmt: skip

    class Bar:
        phases: list = []

        def __call__(self, done, total=None):
            pass

        def phase(self, label, total):
            self.phases.append((label, total))

    runs, summaries = simulate_modes(ww, progress=Bar())
    assert Bar.phases == [(m, None) for m in MODES] == [(m, None) for m in summaries]
    assert [runs[m].workflows["completed"].tolist() for m in MODES] == [[True], [False], [True]]
    assert runs["chained"].summary()["workflows_compared"] == 1  # alone, it counts
    assert [s["workflows_compared"] for s in summaries.values()] == [0, 0, 0]
    assert compared_title(summaries) == ("1 workflow in the window, 0 completed in every mode "
                                         "(compared)", None)  # fmt: skip
    runs, summaries = simulate_modes(ww, ("chained", "woas"))
    assert list(summaries) == ["chained", "woas"] and summaries["woas"]["workflows_compared"] == 1


def test_figure1_chained_waits_pilot_wastes_woas_neither():
    runs = {m: simulate_mode(figure1(), m) for m in MODES}
    wf = {m: r.workflows.iloc[0] for m, r in runs.items()}
    cp = builtin("cybershake").critical_path
    # chained: S1 becomes eligible when S0 ends (11574 s) with age 0, behind B2 -> waits
    assert wf["chained"]["wait"] == 0
    assert wf["chained"]["gaps"] == pytest.approx(4000, abs=1)  # B2 runs first
    assert wf["chained"]["turnaround"] == pytest.approx(cp + 4000, abs=1)
    # pilot: waits for B1's 680 cores, then holds 721 cores for the whole critical path
    assert wf["pilot"]["wait"] == 10999 and wf["pilot"]["gaps"] == pytest.approx(0, abs=1e-6)
    waste = runs["pilot"].summary()["waste_core_h"]
    assert waste * 3600 == pytest.approx(builtin("cybershake").potential_waste)
    # WoAS: S0 starts at once; S1 inherits the workflow's age and pilot size: no gap, no waste
    assert wf["woas"]["wait"] == 0 and wf["woas"]["gaps"] == pytest.approx(0, abs=1)
    assert wf["woas"]["turnaround"] == pytest.approx(cp)
    assert runs["woas"].summary()["waste_core_h"] == 0
    assert wf["woas"]["turnaround"] < min(wf["pilot"]["turnaround"], wf["chained"]["turnaround"])
    for r in runs.values():
        assert r.result.validate() == []


def test_chained_age_counts_from_eligibility_woas_from_the_workflow():
    ww = figure1()
    ex = expand(ww, "chained")
    sched = Slurm()
    from coschedlab.engine.kernel import Simulation

    sim = Simulation(ex.workload, ww.cluster, sched).run()
    s1 = sim.ids.tolist().index(ex.first_wf_id + 1)  # view index (submit, id order) of task S1
    assert sched.age_origin(s1) == pytest.approx(11575.44)  # S0's end: S1's eligibility
    exw = expand(ww, "woas")
    sw = Slurm(inherit=exw.inherit)
    Simulation(exw.workload, ww.cluster, sw).run()
    assert sw.age_origin(s1) == 1.0  # the workflow's submit time


def test_woas_tasks_have_the_workflow_jobs_priority():
    """While the workflow has not started (priority view: one job), every task's priority is
    exactly that of a pilot-shaped job submitted with the workflow (Algorithm 1)."""
    wf = builtin("montage")
    regular = _regular((1, 0, 5000, 5000, 100))  # fills the machine: nothing else starts
    ww = WorkflowWorkload(regular, [wf], [(10.0, 0)], Cluster.from_cores(100, 24), (0, 1e5))
    ww.regular.columns["procs"][:] = 2400  # the regular job holds all 100 nodes x 24 cores
    ex = expand(ww, "woas")
    sched = Slurm(inherit=ex.inherit)
    from coschedlab.engine.kernel import Simulation

    sim = Simulation(ex.workload, ww.cluster, sched).run()
    f = Multifactor(total_cpus=2400, cores_per_node=24)
    size = f.size(-(-wf.max_cores // 24), wf.max_cores, wf.critical_path_limit)
    for k, task in enumerate(wf.tasks):
        j = sim.ids.tolist().index(ex.first_wf_id + k)
        assert sched.age_origin(j) == 10.0
        for t in (10.0, 3000.0, 4999.0):
            assert sched.priority_of(j, t) == f.priority(10.0, size, t)
        assert task.id  # every task, roots and dependants alike


def test_fifo_pass_stops_at_the_first_blocked_job():
    # 4 nodes: A runs 2 nodes; B (4 nodes) blocks; C (1 node) would fit
    w = _regular((1, 0, 100, 100, 2), (2, 1, 50, 60, 4), (3, 2, 10, 60, 1))
    plain = simulate(w, Cluster(4), Slurm(priority="fifo", backfill=False))
    start = plain.jobs.set_index("job_id")["start"]
    assert start[3] >= start[2]  # no backfilling: C waits behind B
    bf = simulate(w, Cluster(4), Slurm(priority="fifo"))
    s2 = bf.jobs.set_index("job_id")["start"]
    # backfill passes at multiples of bf_interval = 30 s: C starts at 30, not at 2
    assert s2[3] == 30.0
    bf1 = simulate(w, Cluster(4), Slurm(priority="fifo", bf_interval=1))
    assert bf1.jobs.set_index("job_id")["start"][3] == 2.0


def test_backfill_depth_and_reservations():
    # 4 nodes, A runs 3 nodes for 100 s; B needs 4 (reserved at 100); C and D need 1 node:
    # C (limit 60) ends before B's reservation and starts, D (limit 600) would delay B
    w = _regular((1, 0, 100, 100, 3), (2, 1, 50, 60, 4), (3, 2, 10, 60, 1), (4, 3, 10, 600, 1))
    r = simulate(w, Cluster(4), Slurm(priority="fifo", bf_interval=1, bf_resolution=1))
    s = r.jobs.set_index("job_id")["start"]
    assert s[3] == 2.0 and s[2] == 100.0 and s[4] >= s[2]
    shallow = simulate(
        w, Cluster(4), Slurm(priority="fifo", bf_interval=1, bf_resolution=1, bf_max_job_test=1)
    )
    assert shallow.jobs.set_index("job_id")["start"][3] >= 100.0  # only B is tested


def test_slurm_is_listed_and_checks_options():
    from coschedlab.errors import InputError
    from coschedlab.schedulers import available, get_scheduler

    assert "slurm" in available()
    s = get_scheduler("slurm:bf_interval=10,priority=fifo")
    assert s.describe() == "slurm:priority=fifo,bf_interval=10"
    for bad in (
        "slurm:priority=fair",
        "slurm:bf_interval=0",
        "slurm:bf_max_job_test=2.5",
        "slurm:priority_weight_age=-1",
        "slurm:colour=1",
    ):
        with pytest.raises(InputError):
            get_scheduler(bad)


def test_slurm_runs_a_plain_swf_trace(tmp_path):
    from coschedlab.workload.swf import read_swf

    path = "src/coschedlab/data/KTH-SP2-1996-2.1-cln.swf.gz"
    w = read_swf(path)
    small = w.select(np.arange(len(w)) < 2000)
    r = simulate(small, Cluster(100), "slurm")
    assert r.validate() == [] and len(r.jobs) == 2000


# -- properties over random workloads with workflows --------------------------------------------
@st.composite
def small_workloads(draw):
    wf = draw(workflow_dags(5, 2, cores=(1, 6), runs=(1, 3000), slack=(0, 600), prefix="S",
                            core_unit=24))  # fmt: skip
    seed = draw(st.integers(0, 2**32))
    share = draw(st.sampled_from([None, 0.2, 0.6]))
    return generate(
        wf,
        cluster=Cluster.from_cores(40, 24),
        seed=seed,
        share=share,
        period=None if share else 1800.0,
        warmup=0.0,
        window=6 * 3600.0,
        target_wait=1800.0,
    )


SCHEDULERS = ["slurm", "slurm:priority=fifo", "slurm:bf_nodes=true,bf_interval=60", "easy"]


@settings(max_examples=8, deadline=None)
@given(small_workloads(), st.sampled_from(SCHEDULERS))
def test_every_mode_gives_a_valid_schedule(ww, sched):
    check_every_mode(ww, sched)


@pytest.mark.slow  # one example of 174 workflows takes 4 min with a backfill pass every second
@settings(max_examples=25, deadline=None)
@given(small_workloads(), st.sampled_from(SCHEDULERS + ["slurm:bf_nodes=true,bf_interval=1"]))
def test_every_mode_gives_a_valid_schedule_with_one_second_backfill(ww, sched):
    check_every_mode(ww, sched)


def check_every_mode(ww, sched: str) -> None:
    """Every mode's schedule of ``ww`` is valid, and the workflows' times are consistent
    (woas only under slurm's multifactor priority: another scheduler refuses it)."""
    multifactor = sched.startswith("slurm") and "priority=fifo" not in sched
    modes = MODES if multifactor else tuple(m for m in MODES if m != "woas")
    if "woas" not in modes:
        with pytest.raises(InputError, match="mode woas needs"):
            simulate_mode(ww, "woas", sched)
    runs = {m: simulate_mode(ww, m, sched) for m in modes}
    reg = {m: expand(ww, m).workload.columns for m in modes}
    n_reg = len(ww.regular)
    for m, r in runs.items():
        # dependencies respected, capacity never exceeded (the validator reads the deps column)
        assert r.result.validate() == [], m
        s = r.summary()
        if m != "pilot":
            assert s["waste_core_h"] == 0
        else:
            assert s["waste_core_h"] >= -1e-6
        # the regular jobs are the same in every mode
        for col in ("id", "submit", "run", "requested_time", "procs"):
            assert np.array_equal(reg[m][col][:n_reg], reg["chained"][col][:n_reg])
    # a task never starts before its workflow is submitted; runtime >= critical path
    for m, r in runs.items():
        wf = r.workflows
        started = wf[wf["start"].notna()]
        assert (started["start"] >= started["submit"]).all()
        done = wf[wf["completed"]]
        assert done["end"].notna().all() and (done["end"] <= r.stop).all()
        assert (done["runtime"] >= done["critical_path"] - 1e-6).all()
        assert wf.loc[~wf["completed"], "end"].isna().all()
        if m == "pilot":
            assert np.allclose(done["gaps"], 0, atol=1e-6)
    mask = completed_in_all({m: r.workflows for m, r in runs.items()})
    assert len(mask) == ww.n_workflows


def test_same_seed_same_workload_and_reproducible_runs():
    kw = dict(cluster=Cluster.from_cores(200, 24), share=0.2, warmup=0, window=86400,
              target_wait=3600)  # fmt: skip
    a = generate(builtin("sipht"), seed=3, **kw)
    b = generate(builtin("sipht"), seed=3, **kw)
    assert a.submits == b.submits
    for col in a.regular.columns:
        assert np.array_equal(a.regular.columns[col], b.regular.columns[col])
    r1 = simulate_mode(a, "woas").result.jobs
    r2 = simulate_mode(b, "woas").result.jobs
    assert r1.equals(r2)
    c = generate(builtin("sipht"), seed=4, **kw)
    assert c.submits != a.submits


def test_generator_pressure_share_and_prefill():
    ww = generate(
        builtin("cybershake"),
        cluster=Cluster.from_cores(1000, 24),
        seed=1,
        share=0.25,
        warmup=0,
        window=2 * 86400,
    )
    w = ww.work()
    assert w["workflows"] / (w["workflows"] + w["regular"]) == pytest.approx(0.25, abs=0.02)
    start = ww.meta["start"]
    span = ww.window[1] - start
    pressure = (w["workflows"] + w["regular"]) / (ww.cluster.total_cores * span)
    assert 0.9 <= pressure <= 1.0 + 1e-9
    fill = ww.regular.columns["submit"][ww.filler]
    assert len(fill) == 1000 and fill.max() < start
    periodic = generate(
        builtin("montage"),
        cluster=Cluster.from_cores(1000, 24),
        seed=1,
        period=3600,
        warmup=0,
        window=86400,
    )
    times = [t for t, _ in periodic.submits]
    assert len(times) == 24 and np.allclose(np.diff(times), 3600)


def test_node_level_backfill_reserves_specific_nodes():
    """Slurm's node-space map: 16 nodes, four idle now (0-3), twelve held until t=100. An
    8-node job reserved at t=100 takes nodes 0-7 (select/linear's best fit over the nodes free
    then), so a 4-node 200-s job cannot use the idle nodes 0-3 now: it waits for the end of
    the reservation. A node-count profile starts it at once (12 nodes remain for the 8-node
    job at t=100)."""
    from nodespace_oracle import BackfillMap, best_fit

    assert best_fit([0, 1, 2, 5, 6, 7, 8, 10], 3) == [0, 1, 2]  # smallest run that holds it
    assert best_fit([0, 1, 5, 6, 7, 8, 10], 2) == [0, 1]
    # no run holds 4: the longest run whole, then the smallest run that holds the rest
    assert best_fit([0, 1, 5, 6, 7, 10], 4) == [5, 6, 7, 10]

    def space() -> BackfillMap:  # a running job holds 4-15 until t=100: nodes 0-3 idle
        return BackfillMap(0.0, 16, [(100.0, 1, list(range(4, 16)))])

    m = space()
    t, nodes = m.test(8, 60.0)
    assert t == 100.0 and nodes == list(range(8))
    m.reserve(nodes, t, 60.0)
    assert m.test(4, 200.0) == (100.0, [8, 9, 10, 11])
    assert m.test(4, 99.0) == (0.0, [0, 1, 2, 3])
    assert m.test(4, 100.0)[0] == 100.0  # ends as the reservation begins: refused now
    # through the scheduler: A (4 nodes) ends at 1 leaving nodes 0-3 idle, B holds 4-15 until
    # 100; C (8 nodes) is reserved at 100 on nodes 0-7; D (4 nodes, 240 s) fits the count
    # profile at once but not the node map. Jobs: (id, submit, run, limit, procs)
    w = _regular((1, 0, 1, 60, 4), (2, 0, 100, 100, 12), (3, 1.5, 60, 60, 8), (4, 2, 200, 240, 4))
    opts = dict(priority="fifo", bf_interval=1, bf_resolution=1)
    count = simulate(w, Cluster(16), Slurm(**opts)).jobs.set_index("job_id")["start"]
    nodes = simulate(w, Cluster(16), Slurm(**opts, bf_nodes=True))
    start = nodes.jobs.set_index("job_id")["start"]
    assert nodes.validate() == []
    assert count[3] == start[3] == 100.0
    assert count[4] == 2.0  # backfilled on the idle nodes 0-3
    assert start[4] == 100.0  # the node map keeps nodes 0-3 for job C
    assert list(nodes.jobs.set_index("job_id")["alloc"])[2] == "0-7"


def test_will_run_frees_running_jobs_one_at_a_time():
    """select/linear's will-run (Slurm 22.05, ``_will_run_test``) removes the running jobs one
    at a time in order of their end and plans the job as soon as enough nodes are free: with
    A on node 0 and B on nodes 1-8 both ending at 100 and nodes 9-15 idle, an 8-node job is
    planned at 100 on nodes 0 and 9-15 (freed by A alone), not on 0-7. The idle nodes are then
    promised from t=100: a 2-node job whose limit reaches past 100 cannot start on them now, a
    one-node job that ends by then can (the real Slurm's choice at t=75 of the w3 run)."""
    from nodespace_oracle import BackfillMap

    m = BackfillMap(0.0, 16, [(100.0, 1, [0]), (100.0, 2, list(range(1, 9)))])
    t, nodes = m.test(8, 120.0)
    assert (t, nodes) == (100.0, [0, 9, 10, 11, 12, 13, 14, 15])
    m.reserve(nodes, t, 120.0)
    assert m.test(2, 180.0)[0] > 0.0
    assert m.test(1, 60.0) == (0.0, [9])
    # the reservation's nodes are off limits for its whole span, the rest are not
    assert m.test(7, 300.0) == (100.0, [1, 2, 3, 4, 5, 6, 7])


def _random_jobs(seed: int, n: int, nodes: int, long: float) -> Workload:
    """``n`` random jobs on ``nodes`` nodes: a share ``long`` of them runs 1000-5000 s; without
    long jobs one in ten runs past its limit and submissions fall between seconds too."""
    rng = np.random.default_rng(seed)
    run = np.where(rng.random(n) < long, rng.integers(1000, 5000, n), rng.integers(1, 200, n))
    run = run.astype(float)
    submit = np.sort(rng.integers(0, 600, n)).astype(float)
    limit = (run * rng.uniform(1, 3, n)).round() + 1
    procs = rng.choice([1, 1, 2, 3, 4, 8, nodes // 2], n)
    if not long:
        submit += rng.choice([0, 0.3], n)
        limit = np.where(rng.random(n) < 0.1, (run * 0.5).round() + 1, limit)
    return Workload({"id": np.arange(1, n + 1), "submit": submit, "run": run,
                     "requested_time": limit, "procs": procs})  # fmt: skip


AGE = dict(priority="multifactor", priority_weight_age=1000, priority_max_age=600,
           priority_weight_job_size=1000, priority_calc_period=60)  # fmt: skip
CLOCK = dict(sched_interval=1, bf_interval=1, bf_phase=0.3, sched_phase=0.5)


@pytest.mark.parametrize(
    "seed, n, nodes, long, opts",
    [
        (s, 60, 16, 0.0, o)
        for s in range(3)
        for o in (
            dict(priority="fifo", **CLOCK),
            dict(**AGE, **CLOCK),
            dict(priority="fifo", bf_interval=30),
            dict(priority="fifo", bf_job_part_count_reserve=1, **CLOCK),
            dict(priority="fifo", bf_max_job_test=3, **CLOCK),
        )
    ]  # fmt: skip
    # busy 32-node machines where a job a pass starts lets the next pass start a job it had
    # tested before (a skip recorded after the pass's own starts missed it); the slowest case
    # of the suite (35 s), and the only one that catches that (none of 60 jobs on 16 or 32
    # nodes or 80 on 32, seeds 0-4, nor of 100 on 32, seeds 0-2, does): run with -m slow
    + [
        pytest.param(2, 150, 32, 0.2, dict(priority="fifo", **CLOCK), marks=pytest.mark.slow),
        pytest.param(9, 150, 32, 0.2, dict(priority="fifo", **CLOCK), marks=pytest.mark.slow),
    ],
)
def test_skipping_passes_over_an_unchanged_state_changes_nothing(
    seed, n, nodes, long, opts, monkeypatch
):
    """On Slurm's clock the node-level model skips a pass when nothing happened since the last
    one, which tested every job and started none (KTH's first 1,000 jobs: 149 s -> 3.6 s).
    Random workloads with jobs past their limits, age priorities, one reservation and a short
    bf_max_job_test give the very schedule of running every pass (the Python pass of
    tests/reference_passes.py with its skip turned off), and the compiled pass (which skips)
    gives the Python pass's starts, nodes, reservations and backfill passes."""
    from reference_passes import PySlurm, python_slurm

    w = _random_jobs(seed, n, nodes, long)
    o = dict(bf_nodes=True, bf_resolution=1, **opts)
    fast = Slurm(**o)
    skipping = simulate(w, Cluster(nodes), fast)
    assert fast.compiled_pass is not None
    assert skipping.validate() == []
    slow = python_slurm(**o)
    python = simulate(w, Cluster(nodes), slow)
    for col in ("start", "alloc", "reservation"):
        assert skipping.jobs[col].fillna(-1).tolist() == python.jobs[col].fillna(-1).tolist()
    assert fast.backfill_passes == slow.backfill_passes
    with monkeypatch.context() as m:
        m.setattr(PySlurm, "_state", lambda self, view: None)
        every = simulate(w, Cluster(nodes), python_slurm(**o))
    assert np.array_equal(skipping.jobs["start"], every.jobs["start"])
