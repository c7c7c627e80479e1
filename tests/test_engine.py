"""Known-answer micro traces for the kernel and every built-in scheduler."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import workload

from coschedlab import Cluster, InputError, Scheduler, Workload, simulate
from coschedlab.engine.speed import SpeedModel

ALL = ["fcfs", "sjf", "easy", "easy:extra=false", "backfill", "conservative"]


def starts(result) -> dict[int, float]:
    return dict(zip(result.jobs.job_id, result.jobs.start, strict=True))


@pytest.mark.parametrize("scheduler", ALL)
@pytest.mark.parametrize("cluster", [Cluster(1, 1, 4), Cluster(4, 1, 1)])
def test_reference_micro_trace(scheduler, cluster):
    # the textbook EASY example: J1 (10, 100, 3), J2 (11, 100, 4), J3 (12, 1000, 1)
    w = workload((1, 10, 100, 100, 3), (2, 11, 100, 100, 4), (3, 12, 1000, 1000, 1))
    r = simulate(w, cluster, scheduler)
    assert starts(r) == {1: 10, 2: 110, 3: 210}
    assert r.validate() == []


def extra_rule_trace() -> Workload:
    # 4 nodes. J1 holds 2 nodes until 100; head J2 needs 3 -> shadow 100, extra 1.
    # J3 (1 node, 1000 s) can only backfill by the extra-node rule (b); J4 then finds extra 0.
    return workload(
        (1, 0, 100, 100, 2), (2, 1, 100, 100, 3), (3, 2, 1000, 1000, 1), (4, 3, 1000, 1000, 1)
    )


def test_easy_extra_nodes_rule_backfills_long_job():
    r = simulate(extra_rule_trace(), Cluster(4), "easy")
    assert starts(r) == {1: 0, 2: 100, 3: 2, 4: 200}
    assert r.jobs.set_index("job_id").reservation[2] == 100
    assert r.validate() == []


def test_easy_without_extra_rule_does_not_backfill_long_job():
    r = simulate(extra_rule_trace(), Cluster(4), "easy:extra=false")
    assert starts(r) == {1: 0, 2: 100, 3: 100, 4: 200}
    assert starts(simulate(extra_rule_trace(), Cluster(4), "fcfs")) == starts(r)


def test_easy_rule_a_short_job_backfills_without_extra():
    w = workload((1, 0, 100, 100, 2), (2, 1, 100, 100, 4), (3, 2, 50, 50, 2))
    for spec in ("easy", "easy:extra=false", "backfill"):
        assert starts(simulate(w, Cluster(4), spec)) == {1: 0, 2: 100, 3: 2}


def test_conservative_protects_every_reservation_where_easy_does_not():
    w = workload(
        (1, 0, 100, 100, 2), (2, 1, 100, 100, 3), (3, 2, 100, 100, 4), (4, 3, 1000, 1000, 1)
    )
    assert starts(simulate(w, Cluster(4), "easy")) == {1: 0, 2: 100, 3: 1003, 4: 3}
    r = simulate(w, Cluster(4), "conservative")
    assert starts(r) == {1: 0, 2: 100, 3: 200, 4: 300}
    assert r.jobs.set_index("job_id").reservation.to_dict() == pytest.approx(
        {1: math.nan, 2: 100, 3: 200, 4: 300}, nan_ok=True
    )


def test_fcfs_blocks_and_sjf_reorders():
    w = workload((1, 0, 100, 100, 4), (2, 1, 500, 500, 2), (3, 2, 10, 10, 2), (4, 3, 5, 5, 4))
    assert starts(simulate(w, Cluster(4), "fcfs")) == {1: 0, 2: 100, 3: 100, 4: 600}
    # SJF at t=100 orders 4 (5 s), 3 (10 s), 2 (500 s): J4 takes the machine first
    assert starts(simulate(w, Cluster(4), "sjf")) == {1: 0, 4: 100, 3: 105, 2: 105}


def test_tie_end_and_start_on_the_same_node():
    w = workload((1, 0, 10, 10, 1), (2, 0, 10, 10, 1))
    r = simulate(w, Cluster(1), "fcfs")
    assert starts(r) == {1: 0, 2: 10}
    assert list(r.jobs.alloc) == ["0", "0"]
    assert r.validate() == []


def test_zero_run_time_completes_in_a_new_event_then_another_pass():
    w = workload((1, 0, 0, 10, 1), (2, 0, 5, 5, 1))
    r = simulate(w, Cluster(1), "fcfs")
    j = r.jobs.set_index("job_id")
    assert j.start.to_dict() == {1: 0, 2: 0}
    assert j.end.to_dict() == {1: 0, 2: 5}
    assert j.start_pass[2] == j.start_pass[1] + 1  # the second pass at the same instant
    assert r.validate() == []


def test_completions_before_arrivals_at_the_same_instant():
    # J2 arrives at 10, exactly when J1 ends: it must start at 10, not wait for a later event
    w = workload((1, 0, 10, 10, 2), (2, 10, 5, 5, 2))
    assert starts(simulate(w, Cluster(2), "fcfs")) == {1: 0, 2: 10}


def test_queue_order_is_submit_then_id():
    w = workload((5, 0, 10, 10, 1), (3, 0, 10, 10, 1), (4, 0, 10, 10, 1))
    r = simulate(w, Cluster(1), "fcfs")
    assert starts(r) == {3: 0, 4: 10, 5: 20}
    assert list(r.jobs.job_id) == [3, 4, 5]


def test_kill_at_walltime_cuts_overrunning_jobs():
    w = workload((1, 0, 100, 60, 1), (2, 0, 10, 60, 1))
    r = simulate(w, Cluster(1), "fcfs", kill_at_walltime=True)
    j = r.jobs.set_index("job_id")
    assert j.end.to_dict() == {1: 60, 2: 70}
    assert j.killed.to_dict() == {1: True, 2: False}
    r2 = simulate(w, Cluster(1), "fcfs")
    assert r2.jobs.set_index("job_id").end.to_dict() == {1: 100, 2: 110}


def test_overrunning_job_counts_as_ending_now_for_easy():
    # J1 requested 10 s but runs 100. At t=50 the head J2 (2 nodes) sees J1's estimate passed:
    # shadow = now. J3 (1 node, 5 s) cannot end by a shadow that is "now", and extra is 0.
    w = workload((1, 0, 100, 10, 1), (2, 50, 10, 10, 2), (3, 50, 5, 5, 1))
    r = simulate(w, Cluster(2), "easy")
    assert starts(r) == {1: 0, 2: 100, 3: 110}
    assert r.jobs.set_index("job_id").reservation[2] == 50


def test_dependencies_hold_a_job_until_its_parents_end():
    w = Workload.from_records(
        [
            {"id": 1, "submit": 0, "run": 50, "requested_time": 50, "procs": 1},
            {"id": 2, "submit": 0, "run": 10, "requested_time": 10, "procs": 1, "deps": (1,)},
            {"id": 3, "submit": 5, "run": 10, "requested_time": 10, "procs": 1},
        ]
    )
    r = simulate(w, Cluster(4), "fcfs")
    assert starts(r) == {1: 0, 2: 50, 3: 5}


def test_dynamic_speed_model_reschedules_completions():
    class HalfSpeed(SpeedModel):
        dynamic = True

        def end_time(self, j, now):
            return now + 2 * self.sim.duration[j]

    w = workload((1, 0, 10, 100, 1), (2, 0, 10, 100, 1))
    r = simulate(w, Cluster(1), "fcfs", speed_model=HalfSpeed())
    assert r.jobs.end.tolist() == [20, 40]


def test_deterministic_bit_for_bit():
    rng = np.random.default_rng(3)
    rows = [(i, int(t), int(r), int(r * 1.5) + 1, int(p)) for i, (t, r, p) in enumerate(
        zip(np.cumsum(rng.integers(0, 50, 300)), rng.integers(1, 500, 300),
            rng.integers(1, 16, 300), strict=True))]  # fmt: skip
    w = workload(*rows)
    for spec in ALL:
        a = simulate(w, Cluster(16), spec).jobs
        b = simulate(w, Cluster(16), spec).jobs
        assert a.equals(b)


def test_impossible_job_is_a_clear_error():
    with pytest.raises(InputError, match="job 7 needs 5 nodes"):
        simulate(workload((7, 0, 10, 10, 5)), Cluster(4), "fcfs")


def test_policy_starting_a_job_that_does_not_fit_is_reported():
    class Greedy(Scheduler):
        name = "greedy-bad"

        def schedule(self, view):
            return list(view.queue)

    with pytest.raises(InputError, match="greedy-bad started job 2 needing 4 nodes"):
        simulate(workload((1, 0, 10, 10, 4), (2, 0, 10, 10, 4)), Cluster(4), Greedy())


def test_policy_that_never_starts_a_job_is_reported():
    class Lazy(Scheduler):
        name = "lazy"

        def schedule(self, view):
            return []

    with pytest.raises(InputError, match="left 1 jobs waiting"):
        simulate(workload((1, 0, 10, 10, 1)), Cluster(1), Lazy())


def test_easy_interval_backfills_on_a_timer():
    # With interval=50 the backfill pass due at 0 finds no candidate; J3 arrives at 1 but must
    # wait for the next backfill pass at 50, which a timer triggers although no job arrives or
    # ends then; J3 ends by the shadow time 100, so it backfills at 50.
    w = workload((1, 0, 100, 100, 2), (2, 0, 100, 100, 4), (3, 1, 20, 20, 2))
    assert starts(simulate(w, Cluster(4), "easy"))[3] == 1
    assert starts(simulate(w, Cluster(4), "easy:interval=50"))[3] == 50


def test_easy_depth_limits_backfill_candidates():
    w = workload((1, 0, 100, 100, 2), (2, 0, 100, 100, 4), (3, 1, 200, 200, 3), (4, 1, 20, 20, 2))
    assert starts(simulate(w, Cluster(4), "easy"))[4] == 1
    assert starts(simulate(w, Cluster(4), "easy:depth=1"))[4] > 1


@pytest.mark.parametrize("seed", range(6))
def test_moved_ends_pop_earliest_then_lowest_job(seed):
    """Ends moved back and forth onto shared times: each job ends once, at its last end, and
    the kernel ends the running job with the earliest end, the lowest index among equal ends
    (the order of the completion heap, whatever the moves)."""

    class Shuffle(SpeedModel):
        dynamic = True

        def bind(self, sim):
            super().bind(sim)
            self.rng = np.random.default_rng(seed)
            self.ends: dict[int, float] = {}
            self.seen: list[int] = []

        def end_time(self, j, now):
            self.ends[j] = now + float(self.rng.integers(0, 4)) * 5
            return self.ends[j]

        def _move(self, now):
            moved = {}
            for k in list(self.ends):
                if self.rng.random() < 0.5:  # a few times ahead: many ties, some moves back
                    moved[k] = self.ends[k] = now + float(self.rng.integers(0, 4)) * 5
            return moved

        def on_start(self, j, now):
            return self._move(now)

        def on_end(self, j, now):
            first = min(self.ends, key=lambda k: (self.ends[k], k))
            assert (j, now) == (first, self.ends[first])
            del self.ends[j]
            self.seen.append(j)
            return self._move(now)

    rng = np.random.default_rng(100 + seed)
    submits = np.cumsum(rng.integers(0, 4, 80)) * 5
    rows = [(i, int(t), 10, 10, int(p)) for i, (t, p) in enumerate(
        zip(submits, rng.integers(1, 4, 80), strict=True))]  # fmt: skip
    model = Shuffle()
    simulate(workload(*rows), Cluster(8), "fcfs", speed_model=model)
    assert sorted(model.seen) == list(range(80))
    assert not model.ends
