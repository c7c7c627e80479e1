"""Properties of what the ELiSE work added, over random workloads (Hypothesis).

* ELiSE's ranks family and its Conservative Scheduler keep every invariant of the validator;
* ``kill_at_walltime="next-event"`` ends an overrunning job at an event at or after its limit
  and before its natural end, and nothing else;
* ELiSE's clock (:class:`EliseClockSimulation`) keeps every invariant, and with the identity
  speed (every pair 1.0, ends that do not move) its schedule is the kernel's;
* ELiSE's generators are reproducible: the same clock readings draw the same jobs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster, Workload, simulate
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.coloc.elise.clock import EliseClockSimulation
from coschedlab.coloc.elise.generators import EliseClock, apply_distribution, generate, setup_jobs
from coschedlab.coloc.speed import ColocationSpeed
from coschedlab.engine.result import Result
from coschedlab.schedulers.registry import get_scheduler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from _coloc_data import pool_ab  # noqa: E402
from reference_passes import python_slurm  # noqa: E402

ELISE = [
    "ranks:extra=false,depth=100", "bester:extra=false,depth=3", "jungle:extra=false,depth=100",
    "slowdown:extra=false,depth=100", "easy-coloc:extra=false,depth=100",
    "filler:extra=false,depth=2", "ranks", "jungle:backfill=false", "elise-conservative:depth=3",
    "easy:extra=false,depth=100", "fcfs",
]  # fmt: skip
# Slurm's clocks (its main and backfill ticks) are wake-ups ELiSE's clock steps to
SLURM = [
    "slurm", "slurm:priority=fifo,bf_max_job_test=2", "slurm:sched_interval=5,bf_interval=7",
    "slurm:bf_interval=7,bf_resolution=13,bf_window=1,bf_phase=3", "slurm:bf_nodes=true",
    "slurm:bf_nodes=true,sched_interval=5,bf_interval=7,priority_weight_age=1000",
]  # fmt: skip
speeds = st.floats(0.4, 2.5)


@st.composite
def workloads(draw, max_jobs=25):
    """Random workloads of apps 0/1 with requested times that are sometimes too short."""
    n = draw(st.integers(1, max_jobs))
    rows, t = [], 0.0
    for i in range(n):
        t += draw(st.sampled_from([0.0, 0.0, 3.5, 10.0, 41.25]))
        run = draw(st.sampled_from([1.0, 7.5, 30.0, 100.0, 250.5]))
        rows.append({"id": i, "submit": t, "run": run, "procs": draw(st.sampled_from([1, 2, 4, 8])),
                     "requested_time": run * draw(st.sampled_from([0.6, 1.0, 1.4, 3.0])),
                     "app": draw(st.integers(0, 1))})  # fmt: skip
    return Workload.from_records(rows)


def _model(ab: float, ba: float) -> ColocationSpeed:
    return ColocationSpeed.from_pool(pool_ab(ab, ba))


@settings(max_examples=60, deadline=None)
@given(w=workloads(), spec=st.sampled_from(ELISE), ab=speeds, ba=speeds,
       kill=st.sampled_from([False, True, "next-event"]))  # fmt: skip
def test_elise_schedulers_keep_the_invariants(w, spec, ab, ba, kill):
    r = simulate(w, Cluster(4, 2, 2), spec, speed_model=_model(ab, ba), shared_nodes=True,
                 kill_at_walltime=kill)  # fmt: skip
    assert len(r.jobs) == len(w)
    assert r.validate() == []


@settings(max_examples=80, deadline=None)
@given(w=workloads(), spec=st.sampled_from(["easy-coloc", "filler", "ranks", "fcfs"]))
def test_a_late_kill_ends_at_the_first_event_past_the_limit(w, spec):
    # speedups all 1.0: a job's natural end is start + run; a job past its limit ends at the
    # first event (an arrival, another job's end, or its own natural end) at or after it
    ones = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], np.ones((2, 2))))
    jobs = simulate(w, Cluster(4, 2, 2), spec, speed_model=ColocationSpeed.from_pool(ones),
                    shared_nodes=True, kill_at_walltime="next-event").jobs  # fmt: skip
    assert (
        simulate(w, Cluster(4, 2, 2), spec, pool=ones, kill_at_walltime="next-event").validate()
        == []
    )
    _assert_late_kills_at_events(jobs)


def _assert_late_kills_at_events(jobs) -> None:
    """Each job past its limit ends at the first submission or end at or after the limit
    (another job's, or its own natural end); the others end naturally, not killed."""
    submits, ends = jobs.submit.to_numpy(), jobs.end.to_numpy()
    for k, j in enumerate(jobs.itertuples()):
        limit, natural = j.start + j.requested_time, j.start + j.compact_run
        if natural < limit:
            assert not j.killed and j.end == natural
            continue
        assert j.killed
        events = np.concatenate([submits, np.delete(ends, k), [natural]])
        assert j.end == events[events >= limit].min()


@settings(max_examples=60, deadline=None)
@given(w=workloads(), spec=st.sampled_from(ELISE + SLURM), ab=speeds, ba=speeds)
def test_elises_clock_keeps_the_invariants(w, spec, ab, ba):
    sim = EliseClockSimulation(w, Cluster(4, 2, 2), get_scheduler(spec),
                               speed_model=_model(ab, ba), shared_nodes=True)  # fmt: skip
    r = Result.from_simulation(sim.run())
    assert len(r.jobs) == len(w) and r.validate() == []


@settings(max_examples=60, deadline=None)
@given(w=workloads(), spec=st.sampled_from(ELISE + SLURM))
def test_elises_clock_is_the_kernel_when_nothing_moves_an_end(w, spec):
    # all speedups 1.0: no end ever moves; whole-second times add without rounding. Slurm's
    # jobs may overrun their limits too: a late kill comes at the first arrival or end past
    # the limit, never at a wake-up, so the ticks the kernel's Slurm pass proves quiet and
    # skips (SlurmPass.lookahead) and the ticks the clock steps to (a gated pass) agree
    ones = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], np.ones((2, 2))))
    model = ColocationSpeed.from_pool(ones)
    sim = EliseClockSimulation(w, Cluster(4, 2, 2), get_scheduler(spec), speed_model=model,
                               shared_nodes=True)  # fmt: skip
    clock = Result.from_simulation(sim.run()).jobs
    kernel = simulate(w, Cluster(4, 2, 2), spec, speed_model=ColocationSpeed.from_pool(ones),
                      shared_nodes=True, kill_at_walltime="next-event").jobs  # fmt: skip
    assert np.allclose(clock.start, kernel.start, atol=1e-9)
    assert np.allclose(clock.end, kernel.end, atol=1e-9)
    assert (clock.alloc == kernel.alloc).all()


#: Slurm with clocks of its own (wake-ups): its main and backfill ticks
TICKING = [s for s in SLURM if "interval" in s] + ["slurm:sched_interval=3,bf_interval=2"]


@settings(max_examples=80, deadline=None)
@given(w=workloads(), spec=st.sampled_from(TICKING), compiled=st.booleans())
def test_a_late_kill_under_slurms_ticks_comes_at_an_arrival_or_an_end(w, spec, compiled):
    # ELiSE has no timers: a job past its limit ends at the first submission or end at or
    # after it (its own natural end included), never at a policy's wake-up (Slurm's ticks).
    # The kernel's compiled pass skips the ticks it proves quiet, the Python pass (the
    # oracle) and ELiSE's clock wake for each: all three kill at the same instants
    ones = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], np.ones((2, 2))))

    def policy():
        return get_scheduler(spec) if compiled else python_slurm(**get_scheduler(spec).params())

    kernel = simulate(w, Cluster(4, 2, 2), policy(), speed_model=ColocationSpeed.from_pool(ones),
                      shared_nodes=True, kill_at_walltime="next-event").jobs  # fmt: skip
    model = ColocationSpeed.from_pool(ones)
    sim = EliseClockSimulation(w, Cluster(4, 2, 2), policy(), speed_model=model, shared_nodes=True)
    clock = Result.from_simulation(sim.run()).jobs
    assert np.allclose(clock.start, kernel.start, atol=1e-9)
    assert np.allclose(clock.end, kernel.end, atol=1e-9)
    assert (clock.killed == kernel.killed).all()
    _assert_late_kills_at_events(kernel)


@settings(max_examples=60, deadline=None)
@given(w=workloads(), spec=st.sampled_from(SLURM), ab=speeds, ba=speeds)
def test_slurm_on_elises_clock_runs_its_compiled_pass_as_the_python_one(w, spec, ab, ba):
    # the compiled pass serves ELiSE's clock (the kernel copies its lists into the pass's
    # arrays at each pass): the same starts, ends and reservations as the Python pass
    def run(sched):
        sim = EliseClockSimulation(w, Cluster(4, 2, 2), sched, speed_model=_model(ab, ba),
                                   shared_nodes=True)  # fmt: skip
        return Result.from_simulation(sim.run()).jobs

    fast = get_scheduler(spec)
    compiled = run(fast)
    assert fast.compiled_pass is not None and fast.compiled_pass.gated
    opts = fast.params()
    slow = python_slurm(**opts)
    python = run(slow)
    assert slow.compiled_pass is None
    assert compiled.start.tolist() == python.start.tolist()
    assert compiled.end.tolist() == python.end.tolist()
    assert compiled.reservation.fillna(-1).tolist() == python.reservation.fillna(-1).tolist()
    assert fast.backfill_passes == slow.backfill_passes


@given(seed=st.integers(0, 2**40), kind=st.sampled_from(["Random Generator",
       "Dictionary Generator", "Random From List Generator"]),
       dist=st.sampled_from(["Constant Distribution", "Poisson Distribution",
                             "Random Distribution"]))  # fmt: skip
def test_the_same_clock_draws_the_same_jobs(seed, kind, dist):
    pool = pool_ab()
    arg = {"Random Generator": 30, "Dictionary Generator": {"A": 7, "B": 5},
           "Random From List Generator": [12, "B\nA\n"]}[kind]  # fmt: skip
    drawn = []
    for _ in range(2):
        clock = EliseClock(seed)
        jobs = generate(kind, arg, clock, pool, "x")
        apply_distribution(jobs, dist, 20, clock, "x")
        drawn.append([(j.app, j.submit) for j in setup_jobs(jobs)])
    assert drawn[0] == drawn[1]
    ids = [j.id for j in setup_jobs(jobs)]
    assert ids == list(range(len(ids)))
    submits = [s for _, s in drawn[0]]
    assert submits[0] == 0.0 and submits == sorted(submits)
