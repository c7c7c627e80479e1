"""Slurm's compiled pass (:class:`coschedlab.schedulers.passes.SlurmPass`) against the Python
pass (:meth:`.slurm.Slurm._pass`, the oracle: a subclass that overrides the pass runs it) on
random workloads, options, dependencies and WoAS inheritance tables: the same starts,
reservations, passes, backfill passes and recorded priority factors."""

from __future__ import annotations

import math

from conftest import workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster
from coschedlab.engine.kernel import Simulation
from coschedlab.engine.result import Result
from coschedlab.jobs import Workload
from coschedlab.schedulers import Slurm

clusters = st.builds(Cluster, st.integers(1, 8), st.integers(1, 4), st.integers(1, 2))


class PythonSlurm(Slurm):
    """The Python pass (overriding ``_pass`` turns the compiled one off)."""

    def _pass(self, view):  # noqa: ANN001, ANN202
        return Slurm._pass(self, view)


options = st.fixed_dictionaries(
    {
        "priority": st.sampled_from(["multifactor", "multifactor", "fifo"]),
        "priority_weight_age": st.sampled_from([0, 1000, 5e7]),
        "priority_weight_job_size": st.sampled_from([0, 1000, 6e8]),
        "priority_max_age": st.sampled_from([30, 600, 7 * 86400]),
        "priority_favor_small": st.booleans(),
        "small_relative_to_time": st.booleans(),
        "priority_calc_period": st.sampled_from([1, 7, 60, 300]),
        "backfill": st.booleans(),
        "bf_interval": st.sampled_from([1, 5, 30, 45.5]),
        "bf_max_job_test": st.integers(1, 6),
        "bf_resolution": st.sampled_from([1, 7, 60]),
        "bf_window": st.sampled_from([1, 3, 1440]),
        "bf_job_part_count_reserve": st.sampled_from([None, None, 1, 2]),
    }
)


@st.composite
def runs(draw):
    """A workload with random dependencies on earlier jobs, its machine, Slurm's options, an
    inheritance table (WoAS: some jobs take another submit time and geometry) and the bf
    phase."""
    cluster = draw(clusters)
    w = draw(workloads(max_procs=cluster.total_cores))
    ids = w.columns["id"].tolist()
    deps = {}
    for k, jid in enumerate(ids[1:], 1):
        parents = draw(st.lists(st.sampled_from(ids[:k]), max_size=2, unique=True))
        if parents:
            deps[jid] = tuple(parents)
    w = Workload(dict(w.columns), deps=deps)
    opts = draw(options)
    opts["bf_phase"] = draw(st.sampled_from([0.0, 0.5])) * opts["bf_interval"]
    inherit = {}
    for jid in draw(st.lists(st.sampled_from(ids), unique=True)):
        inherit[jid] = (
            float(draw(st.integers(0, 200))),
            draw(st.integers(0, cluster.total_cores)),
            float(draw(st.integers(0, 500))),
        )
    return w, cluster, opts, inherit


def _run(cls, w, cluster, opts, inherit, kill):
    sched = cls(**opts, inherit=inherit)
    sim = Simulation(w, cluster, sched, kill_at_walltime=kill)
    sim.run()
    res = Result.from_simulation(sim)
    factors = [(sched.age_origin(j), sched.priority_of(j, 1000.0)) for j in range(sim.n)]
    return sched, sim, res, factors


def _nan(x):
    return [-1.0 if math.isnan(v) else v for v in x]


@settings(max_examples=300, deadline=None)
@given(run=runs(), kill=st.booleans())
def test_the_compiled_slurm_pass_gives_the_python_pass_schedule(run, kill):
    w, cluster, opts, inherit = run
    fast, sim_f, res_f, fac_f = _run(Slurm, w, cluster, opts, inherit, kill)
    slow, sim_s, res_s, fac_s = _run(PythonSlurm, w, cluster, opts, inherit, kill)
    assert fast.compiled_pass is not None and fast.compiled_pass.ran
    assert slow.compiled_pass is None
    assert res_f.jobs.start.tolist() == res_s.jobs.start.tolist()
    assert _nan(res_f.jobs.reservation) == _nan(res_s.jobs.reservation)
    assert sim_f.passes == sim_s.passes
    assert fast.backfill_passes == slow.backfill_passes
    assert fac_f == fac_s


def test_the_compiled_pass_only_runs_what_it_covers():
    # bf_nodes (the node-space map) and the main scheduler's own clock stay Python
    w = Workload.from_records([(1, 0, 10, 60, 1), (2, 0, 10, 60, 2)])
    cluster = Cluster(2, 1, 1)
    for opts in ({"bf_nodes": True}, {"sched_interval": 1}):
        sched = Slurm(**opts)
        Simulation(w, cluster, sched).run()
        assert sched.compiled_pass is None
    sched = Slurm()
    Simulation(w, cluster, sched).run()
    assert sched.compiled_pass.ran
