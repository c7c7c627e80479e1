"""The co-schedulers' public hooks on the compiled pass (issue 31 item 2).

A subclass overriding ``node_order``, ``node_key``, ``deploy_order``, ``choice_key`` or
``cores_for`` (each with a rule of its own), and best-pair on a speed model other than the
compiled pair predictor, run the compiled :class:`coschedlab.coloc.copass.ColocPass`, which
calls the Python hook; each against the Python class scan (the oracle) on random
co-location workloads. A ranks-family run whose model has a NaN spread-alone or mean speedup
is refused at set-up.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _coloc_data import pool_ab
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_coloc import python_scan
from test_compiled_coloc import PASS_COLS, ranked_cases

from coschedlab import Cluster, Workload
from coschedlab.coloc.schedulers import (
    Bester,
    BestPair,
    EasyColoc,
    Filler,
    Jungle,
    Ranks,
    Slowdown,
)
from coschedlab.coloc.speed import ColocationSpeed, ColocInfo
from coschedlab.engine.kernel import Simulation
from coschedlab.engine.result import Result
from coschedlab.errors import InputError


class CrowdedFirst(EasyColoc):
    """node_order: the most crowded partly used nodes first, then the highest ones."""

    def node_order(self, view, j, runs):
        return sorted(runs, key=lambda r: (-len(r[2]), -r[0]))


class HighestFirst(EasyColoc):
    """node_order over every node with room, idle ones included: highest node first."""

    orders_idle_nodes = True

    def node_order(self, view, j, runs):
        return runs[::-1]


class ByApps(Ranks):
    """node_key: nodes whose jobs have the smallest application numbers, idle ones last."""

    def node_key(self, view, j, jobs):
        if not jobs:
            return (-math.inf, 0)
        return (-sum(view.apps[k] for k in jobs), len(jobs))


class BesterByApps(Bester):
    """bester's backfill with ByApps's node key."""

    node_key = ByApps.node_key


class ShortestFirst(EasyColoc):
    """deploy_order: shortest requested time first (queue order among equals)."""

    def deploy_order(self, view):
        return sorted(view.queue, key=lambda j: view.req[j])


class FillerReversed(Filler):
    """deploy_order: Filler's order, reversed."""

    def deploy_order(self, view):
        return super().deploy_order(view)[::-1]


class ByParity(EasyColoc):
    """choice_key: finer than needed (the parity of the application too)."""

    def choice_key(self, view, j):
        return (self.shape(j), view.apps[j] % 2)


class WholeWhenEven(EasyColoc):
    """cores_for: whole nodes for a multiple of 4 processes, else half of every socket."""

    def cores_for(self, view, j):
        return view.cluster.cores_per_node if view.procs[j] % 4 == 0 else self._half


class MeanSpeed(ColocationSpeed):
    """A speed model whose prediction for a node (best-pair's node order) is the mean pair
    speedup beside its jobs, not the compiled model's minimum: no pair tables for it."""

    def predicted(self, j, others):
        if not others:
            return math.inf
        return sum(super(MeanSpeed, self).predicted(j, (k,)) for k in others) / len(others)


HOOKED = [CrowdedFirst, HighestFirst, ByApps, BesterByApps, ShortestFirst, FillerReversed,
          BestPair]  # fmt: skip
AT_SETUP = [ByParity, WholeWhenEven]  # hooks taken once at set-up: the kernel calls the pass


@settings(max_examples=120, deadline=None)
@given(
    case=ranked_cases(),
    cls=st.sampled_from(HOOKED + AT_SETUP),
    cluster=st.sampled_from([Cluster(8, 2, 2), Cluster(70, 2, 2), Cluster(6, 2, 3)]),
    extra=st.booleans(),
    depth=st.sampled_from([None, 2, 100]),
    fallback=st.booleans(),
    backfill=st.booleans(),
)
def test_a_public_hook_on_the_compiled_pass_equals_the_python_scan(
    case, cls, cluster, extra, depth, fallback, backfill
):
    pool, w = case
    opts = dict(extra=extra, depth=depth, fallback=fallback, backfill=backfill)
    model = MeanSpeed if cls is BestPair else ColocationSpeed
    runs = []
    for sched in (cls(**opts), python_scan(cls)(**opts)):
        sim = Simulation(w, cluster, sched, speed_model=model.from_pool(pool),
                         shared_nodes=True)  # fmt: skip
        sim.run()
        runs.append(Result.from_simulation(sim).jobs[PASS_COLS])
        if not runs[1:]:  # the compiled pass, called by the kernel or from schedule
            assert sched._cpass is not None
            assert (sched.compiled_pass is None) == (cls in HOOKED)
    assert runs[0].equals(runs[1])


def test_best_pair_on_another_model_calls_its_node_order():
    # the node order is BestPair.node_order on the model's own prediction: a job goes where
    # the mean beside its neighbours is highest (here the crowded node, 1.6 > min 1.2 ...)
    calls = []

    class Counting(BestPair):
        def node_order(self, view, j, runs):
            calls.append(j)
            return super().node_order(view, j, runs)

    w = Workload.from_records([
        {"id": i + 1, "submit": 0, "run": 100, "procs": 2, "requested_time": 100, "app": i % 2}
        for i in range(6)
    ])  # fmt: skip
    sim = Simulation(w, Cluster(4, 2, 2), Counting(), speed_model=MeanSpeed.from_pool(pool_ab()),
                     shared_nodes=True)  # fmt: skip
    sim.run()
    assert calls and sim.scheduler._cpass is not None and sim.scheduler.compiled_pass is None


def test_a_scheduler_and_a_model_used_again_read_the_new_run():
    # the co-scheduler's shapes and the model's rows and columns are lists made on first use
    # after each set-up: used for a second run on another workload, a hooked co-scheduler
    # (which reads the shapes) and best-pair's mean model (which reads the rows) answer as new
    # ones, not with the first run's lists
    def run(sched, model, w):
        sim = Simulation(w, Cluster(4, 2, 2), sched, speed_model=model, shared_nodes=True)
        sim.run()
        return Result.from_simulation(sim).jobs[PASS_COLS]

    first = Workload.from_records([
        {"id": i + 1, "submit": 0, "run": 100, "procs": 2, "requested_time": 100, "app": i % 2}
        for i in range(5)
    ])  # fmt: skip
    second = Workload.from_records([
        {"id": i + 1, "submit": 3 * i, "run": 40 + 7 * i, "procs": 8 if i % 3 == 1 else 2,
         "requested_time": 100, "app": 1 - i % 2}
        for i in range(9)
    ])  # fmt: skip
    for cls, model in ((CrowdedFirst, ColocationSpeed), (BestPair, MeanSpeed)):
        sched, speed = cls(), model.from_pool(pool_ab())
        run(sched, speed, first)
        assert len(sched._k) == len(speed.app) == 5  # (the lists of the first run, made)
        again = run(sched, speed, second)
        new_sched, new_speed = cls(), model.from_pool(pool_ab())
        assert again.equals(run(new_sched, new_speed, second))
        assert (sched._cores, sched._k) == (new_sched._cores, new_sched._k)
        assert (speed.app, speed._col) == (new_speed.app, new_speed._col)
        assert speed.info._app == tuple(speed.app) and len(speed.app) == 9


class NaNInfo(ColocationSpeed):
    """A model whose ColocInfo (view.coloc) is hand-made with a NaN spread-alone or mean
    speedup for application A."""

    which = "alone"

    def bind(self, sim):
        super().bind(sim)
        i = self.info
        alone, mean = list(i._alone), list(i._mean)
        (alone if self.which == "alone" else mean)[0] = math.nan
        self.info = ColocInfo(list(i._app), [list(r) for r in i._rows], alone, mean)


NAN_JOBS = Workload.from_records([
    {"id": i + 1, "submit": 0, "run": 10, "procs": 2, "requested_time": 10, "app": i % 2}
    for i in range(4)
])  # fmt: skip


@pytest.mark.parametrize("cls", [Ranks, Jungle, Slowdown, Bester])
@pytest.mark.parametrize("which", ["alone", "mean"])
def test_a_nan_node_key_is_refused_at_setup(cls, which):
    model = type("M", (NaNInfo,), {"which": which}).from_pool(pool_ab())
    sim = Simulation(NAN_JOBS, Cluster(4, 2, 2), cls(), speed_model=model, shared_nodes=True)
    if which == "mean" and cls in (Ranks, Bester):  # ranks reads no mean speedup
        sim.run()
        assert np.isfinite(Result.from_simulation(sim).jobs.end).all()
        return
    with pytest.raises(InputError, match=f"{which}\\S* speedup of heatmap row 0 is NaN"):
        sim.run()
