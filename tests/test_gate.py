"""The kernel's gate extension point (issue 31 item 6): a gate registered on a run, without
touching any policy, holds, yields and demotes jobs under every built-in scheduler, and a user
policy written against the View sees the gated queue (demoted jobs last, held and yielded
jobs absent) without any gate field in the view."""

from __future__ import annotations

import math

import pytest

from coschedlab.engine.kernel import HOLD, START, YIELD, Simulation
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers import Scheduler, get_scheduler, start_in_order

BUILT_INS = [
    "fcfs", "sjf", "firstfit", "easy", "conservative", "backfill:reservations=2",
    "conservative:compress=true", "easy:order=wfp", "firstfit:order=wfp", "easy:order=lxf",
    "easy:extra=false", "easy:depth=2", "slurm",
]  # fmt: skip


def workload() -> Workload:
    """Four one-node jobs of 10 s (requested 10 s): three at 0, one at 5."""
    rows = [(1, 0.0), (2, 0.0), (3, 0.0), (4, 5.0)]
    return Workload.from_records(
        [{"id": i, "submit": s, "run": 10.0, "requested_time": 10.0, "procs": 1} for i, s in rows]
    )


class ToyGate:
    """Holds job 1 at its first decision, yields job 2 at its first decision; job 3's decision
    starts the held job 1 with it (Algorithm 1's "the mate holds: both start now")."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.seen: set[int] = set()
        self.yielded_at: dict[int, float] = {}
        self.log: list[tuple[float, int, int]] = []

    def decide(self, j: int) -> int:
        first = j not in self.seen
        self.seen.add(j)
        if j == 1 and first:
            verdict = HOLD
        elif j == 2 and first:
            verdict = YIELD
            self.yielded_at[j] = self.sim.now
        else:
            if j == 3 and 1 in self.sim.held:
                self.sim.start_held(1)
            verdict = START
        self.log.append((self.sim.now, j, verdict))
        return verdict

    def held(self, j: int) -> float:
        return math.inf


def gated_run(scheduler: Scheduler) -> tuple[Simulation, ToyGate]:
    sim = Simulation(
        workload(), Cluster(nodes=2, sockets_per_node=1, cores_per_socket=1), scheduler
    )
    gate = ToyGate(sim)
    sim.gate = gate  # registered on the run: no policy is told
    sim.demote([0])  # job 0 goes last in the first pass
    return sim.run(), gate


@pytest.mark.parametrize("spec", BUILT_INS)
def test_a_toy_gate_holds_yields_and_demotes_under_every_built_in(spec: str) -> None:
    sim, gate = gated_run(get_scheduler(spec))
    start = list(sim.start)
    # the held job starts with the job whose decision releases it, not before
    assert start[1] == start[3]
    assert (0.0, 1, HOLD) in gate.log
    # a yielded job does not start in the pass in which it yielded
    assert start[2] != gate.yielded_at[2]
    assert all(s == s for s in start) and sim.completed == 4
    assert sim.epoch > 0 and not sim.held and not sim.demoted
    if spec == "slurm":  # Slurm orders by its own priorities: job 0 first, no demotion
        assert start == [0.0, 10.0, 20.0, 10.0]
        assert sim.scheduler.compiled_pass.gated  # its compiled pass served the gate
        return
    if spec == "conservative:compress=true":  # reserved jobs go first when asked again
        assert gate.log[:3] == [(0.0, 1, HOLD), (0.0, 0, START), (10.0, 2, YIELD)]
        return
    # at 0 the queue is presented [1, 2, 0]: 1 holds, 2 yields, then 0 (demoted) starts;
    # at 10 job 2 takes job 0's node; at 20 job 3 starts and, with it, the held job 1
    assert gate.log[:3] == [(0.0, 1, HOLD), (0.0, 2, YIELD), (0.0, 0, START)]
    assert start == [0.0, 20.0, 10.0, 20.0]
    # the compiled pass served the gated run
    assert sim.scheduler.compiled_pass is not None


@pytest.mark.parametrize("spec", BUILT_INS)
def test_without_the_gate_the_same_run_is_plain(spec: str) -> None:
    """The control: no gate, no demotion: jobs 0 and 1 start at 0 (the test above can fail)."""
    sim = Simulation(
        workload(), Cluster(nodes=2, sockets_per_node=1, cores_per_socket=1), get_scheduler(spec)
    ).run()
    assert list(sim.start)[:2] == [0.0, 0.0]


class Spy(Scheduler):
    """A user policy written against the View: FCFS over ``ordered_queue``, recording what it
    saw at each call."""

    name = "spy"

    def __init__(self, order="fcfs") -> None:
        super().__init__(order)
        self.seen: list[tuple[float, list[int], list[int]]] = []

    def schedule(self, view):
        q = self.ordered_queue(view)
        self.seen.append((view.now, list(view.queue), list(q)))
        return start_in_order(view, q, view.free)


@pytest.mark.parametrize("order", ["fcfs", "sjf", "wfp", lambda view, j: (-view.submit[j], j)])
def test_a_user_policy_sees_the_gated_queue(order) -> None:
    spy = Spy(order)
    sim, gate = gated_run(spy)
    at0 = [(q, o) for t, q, o in spy.seen if t == 0.0]
    # first call: job 0 demoted last; then held job 1 is absent; then yielded job 2 is absent
    assert [o for _, o in at0] == [[1, 2, 0], [2, 0], [0]]
    assert [q for q, _ in at0] == [[1, 2, 0], [2, 0], [0]]
    # the next pass: job 2 back in the queue (in the view's order), nothing demoted any more
    t, q, _ = next(x for x in spy.seen if x[0] > 0.0)
    assert (t, q) == (5.0, [2, 3])
    assert not hasattr(sim.view, "demoted") and not hasattr(sim.view, "overrides")
    # latest submission first puts job 3 before job 2 at 10: it starts then, with job 1
    want = [0.0, 10.0, 20.0, 10.0] if callable(order) else [0.0, 20.0, 10.0, 20.0]
    assert list(sim.start) == want


def test_a_custom_order_key_runs_compiled_and_honours_demotion() -> None:
    """A built-in with a custom key (a callable) now runs its compiled pass: the kernel sorts
    the queue by the key, demoted jobs last."""
    sched = get_scheduler("easy")
    sched.order_key = lambda view, j: (-view.submit[j], j)  # latest first: ties at 0 by index
    sim, gate = gated_run(sched)
    assert sched.compiled_pass is not None
    assert gate.log[:3] == [(0.0, 1, HOLD), (0.0, 2, YIELD), (0.0, 0, START)]
