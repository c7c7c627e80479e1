"""The policy contract: a read-only view without actual run times; declared guarantees;
options derived from the constructor; passes only at real events."""

from __future__ import annotations

import gzip
import json
from array import array

import pytest
from conftest import workload

from coschedlab import Cluster, InputError, Scheduler, Workload, simulate, validate_jobs
from coschedlab.engine.speed import SpeedModel
from coschedlab.engine.view import FrozenList, ReadOnlyError
from coschedlab.schedulers import EASY, get_scheduler

# run times no policy may learn: odd values that appear nowhere else in the workload
RUNS = (1234.5, 777.25, 55.125)


def secret_workload() -> Workload:
    return workload((1, 0, RUNS[0], 2000, 2), (2, 1, RUNS[1], 3000, 2), (3, 2, RUNS[2], 100, 1))


def _values(obj, depth=0):
    """Every value reachable through the public and private attributes of the view."""
    if depth > 2:
        return
    for name in dir(obj):
        if name.startswith("__"):
            continue
        try:
            v = getattr(obj, name)
        except Exception:  # noqa: BLE001 (shared-node queries raise on whole nodes)
            continue
        if callable(v):
            continue
        yield name, v
        if hasattr(v, "__slots__") and not isinstance(v, tuple | list):
            yield from _values(v, depth + 1)


def test_a_policy_cannot_reach_actual_run_times():
    seen: list = []

    class Peek(Scheduler):
        name = "peek"

        def schedule(self, view):
            for attr in ("run_time", "duration", "end", "workload", "speed_model"):
                assert not hasattr(view, attr), attr
            for name, v in _values(view):
                seen.append(name)
                items = list(v) if isinstance(v, tuple | list | array | memoryview) else [v]
                flat = [x for it in items for x in (it if isinstance(it, tuple) else (it,))]
                numbers = {x for x in flat if isinstance(x, int | float)}
                assert not set(RUNS) & numbers, f"view.{name} holds an actual run time"
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    r = simulate(secret_workload(), Cluster(4), Peek())
    assert {"queue", "req", "submit", "est_sorted", "machine"} <= set(seen)
    assert {"users", "groups", "queues", "partitions"} <= set(seen)
    assert sorted(r.jobs.run) == sorted(RUNS)  # the run really had those run times


def test_a_policy_cannot_change_the_view_and_the_run_is_intact():
    tried: list[str] = []

    class Vandal(Scheduler):
        name = "vandal"

        def schedule(self, view):
            attempts = {
                "nodes[j] = 0": lambda: view.nodes.__setitem__(view.queue[0], 0),
                "users[j] = 0": lambda: view.users.__setitem__(view.queue[0], 0),
                "groups[j] = 0": lambda: view.groups.__setitem__(view.queue[0], 0),
                "queues[j] = 0": lambda: view.queues.__setitem__(view.queue[0], 0),
                "partitions[j] = 0": lambda: view.partitions.__setitem__(view.queue[0], 0),
                "users = ()": lambda: setattr(view, "users", ()),
                "queue.append": lambda: view.queue.append(0),
                "queue.sort": lambda: view.queue.sort(reverse=True),
                "del queue[0]": lambda: view.queue.__delitem__(0),
                "queue +=": lambda: view.queue.__iadd__([0]),
                "est_sorted.clear": lambda: view.est_sorted.clear(),
                "queued[j] = 0": lambda: view.queued.__setitem__(view.queue[0], 0),
                "start[j] = 0": lambda: view.start.__setitem__(view.queue[0], 0.0),
                "free = 99": lambda: setattr(view, "free", 99),
                "now = 0": lambda: setattr(view, "now", 0.0),
                "new attribute": lambda: setattr(view, "x", 1),
                "machine.idle": lambda: setattr(view.machine, "idle", 99),
            }
            for what, f in attempts.items():
                with pytest.raises((TypeError, AttributeError)):
                    f()
                tried.append(what)
            head = view.queue[0]  # a queued job's start: a float, NaN
            assert type(view.start[head]) is float and view.start[head] != view.start[head]
            return [j for j in view.queue[:1] if view.nodes[j] <= view.free]

    w = secret_workload()
    r = simulate(w, Cluster(4), Vandal())
    ref = simulate(w, Cluster(4), "fcfs")
    assert len(tried) >= 17
    assert r.jobs.start.tolist() == ref.jobs.start.tolist()
    assert r.validate() == []


def test_the_view_holds_each_jobs_user_group_queue_and_partition_in_queue_order():
    # ids 1..4 submitted out of id order: queue order is (submit, id) = 3, 1, 4, 2
    cols = ("id", "submit", "user", "group", "queue", "partition")
    rows = [(1, 5, 7, 70, 1, 2), (2, 9, 8, 80, -1, 3), (3, 0, -1, -1, 2, -1), (4, 5, 7, 70, 1, 2)]
    rows = [dict(zip(cols, r, strict=True), run=10, requested_time=10, procs=1) for r in rows]
    seen: dict = {}

    class Look(Scheduler):
        name = "look"

        def setup(self, view):
            for name in ("ids", "users", "groups", "queues", "partitions"):
                seen[name] = getattr(view, name)

        def schedule(self, view):
            return list(view.queue)

    r = simulate(Workload.from_records(rows), Cluster(4), Look())
    assert tuple(seen["ids"]) == (3, 1, 4, 2)
    assert seen["users"] == (-1, 7, 7, 8)
    assert seen["groups"] == (-1, 70, 70, 80)
    assert seen["queues"] == (2, 1, 1, -1)
    assert seen["partitions"] == (-1, 2, 2, 3)
    assert all(type(v) is tuple for k, v in seen.items() if k != "ids")
    # ids, like submit, req, nodes and procs: a read-only array that gives Python ints
    assert type(seen["ids"]) is memoryview and seen["ids"].readonly
    assert all(type(x) is int for x in seen["ids"])
    # the same values as the result table, row for row
    assert tuple(r.jobs.user) == seen["users"] and tuple(r.jobs.queue) == seen["queues"]


def test_frozen_list_reads_like_a_list():
    q = FrozenList([3, 1, 2])
    assert q[0] == 3 and q[-1] == 2 and q[1:] == [1, 2] and len(q) == 3 and 1 in q
    assert sorted(q) == [1, 2, 3] and list(reversed(q)) == [2, 1, 3]
    with pytest.raises(ReadOnlyError, match="read only"):
        q.remove(1)
    with pytest.raises(TypeError):  # list's own methods do not reach its list (bound23)
        list.append(q, 4)
    assert q == [3, 1, 2] and q.copy() == [3, 1, 2] and q.copy() is not q.copy()


def test_no_pass_at_a_superseded_end():
    # job 1 would end at 200; job 2 starting at 50 slows it to end at 225 (the speed model
    # moves the end): 200 is no longer an event, so no scheduling pass may run then
    class SlowDown(SpeedModel):
        dynamic = True

        def on_start(self, j, now):
            return {0: 225.0} if j == 1 else {}

    times: list[float] = []

    class Recorder(Scheduler):
        name = "recorder"

        def schedule(self, view):
            times.append(view.now)
            return [j for j in view.queue[:1] if view.nodes[j] <= view.free]

    w = workload((1, 0, 200, 300, 1), (2, 50, 10, 300, 1), (3, 60, 10, 10, 4))
    r = simulate(w, Cluster(4), Recorder(), speed_model=SlowDown())
    assert r.jobs.set_index("job_id").end[1] == 225
    assert 200.0 not in times
    assert times == [0.0, 50.0, 60.0, 225.0]
    assert r.passes == len(times)


def _swf(path, rows):
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    for jid, submit, run, procs, prec, think in rows:
        f = [jid, submit, -1, run, procs, -1, -1, procs, run, -1, 1, 1, 1, -1, 1, -1, prec, think]
        lines.append(" ".join(str(x) for x in f))
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(lines) + "\n")


def test_swf_preceding_job_and_think_time_are_enforced_on_request(tmp_path):
    from coschedlab.workload.swf import read_swf

    # job 2 follows job 1 with 30 s think time; job 3 follows job 2 without think time;
    # job 4 names a job not in the trace (ignored and counted)
    path = tmp_path / "w.swf.gz"
    _swf(path, [(1, 0, 100, 1, -1, -1), (2, 5, 10, 1, 1, 30), (3, 6, 10, 1, 2, 0),
                (4, 7, 10, 1, 99, 5)])  # fmt: skip
    w = read_swf(path)
    free = simulate(w, Cluster(4), "fcfs")
    assert free.jobs.set_index("job_id").start.to_dict() == {1: 0, 2: 5, 3: 6, 4: 7}
    r = simulate(w, Cluster(4), "easy", dependencies=True)
    s = r.jobs.set_index("job_id")
    assert s.start.to_dict() == {1: 0, 2: 130, 3: 140, 4: 7}
    assert s.deps.to_dict() == {1: "", 2: "1", 3: "2", 4: ""}
    assert s.think.to_dict() == {1: 0, 2: 30, 3: 0, 4: 0}
    assert r.options["ignored_dependencies"] == 1
    assert r.validate() == []
    # the validator checks it from the table: move job 2 before its parent's end + think
    bad = r.jobs.copy()
    bad.loc[bad.job_id == 2, ["start", "end"]] = [120.0, 130.0]
    errors = validate_jobs(bad, r.cluster)
    assert len(errors) == 1 and "job 2" in errors[0] and "dependency 1" in errors[0]


@pytest.mark.parametrize(
    "spec, guarantees",
    [
        ("easy", ("head", "reservations")),
        ("easy:depth=5,interval=30", ("head", "reservations")),
        ("easy:order=sjf", ()),
        ("backfill", ("head", "reservations")),
        ("backfill:reservations=3", ("head", "reservations-exact")),
        ("conservative", ("head", "reservations-exact")),
        ("conservative:compress=true", ("reservations",)),
        ("fcfs", ()),
        ("sjf", ()),
        ("easy-coloc", ()),
    ],
)
def test_schedulers_declare_their_guarantees(spec, guarantees):
    assert tuple(get_scheduler(spec).guarantees) == guarantees


def test_guarantees_are_written_to_metrics_json(tmp_path):
    r = simulate(secret_workload(), Cluster(4), "conservative")
    r.save(tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert meta["guarantees"] == ["head", "reservations-exact"]
    from coschedlab import Result

    assert Result.load(tmp_path / "run").guarantees == ("head", "reservations-exact")


@pytest.mark.parametrize(
    "spec",
    ["easy", "easy:depth=5", "easy:extra=false,interval=30", "conservative:compress=true",
     "backfill:reservations=all", "backfill:reservations=3,order=sjf", "sjf", "sjf:order=fcfs",
     "easy-coloc:placement=compact,fallback=true", "filler:depth=100"],
)  # fmt: skip
def test_describe_round_trips_through_the_constructor_signature(spec):
    s = get_scheduler(spec)
    assert s.describe() == spec
    assert get_scheduler(s.describe()).describe() == spec


def test_user_policy_options_are_described_without_writing_params():
    class Tuned(Scheduler):
        name = "tuned"

        def __init__(self, alpha: float = 0.5, order: str = "fcfs") -> None:
            super().__init__(order)
            self.alpha = alpha

        def schedule(self, view):
            return []

    assert Tuned().describe() == "tuned"
    assert Tuned(alpha=2).describe() == "tuned:alpha=2"


def test_an_option_equal_to_its_default_by_value_is_not_in_the_label():
    """``half_life=86400`` given for the default 86400.0 labelled the run
    ``fair-share:half_life=86400`` (the types were compared); numbers compare by value, a bool
    only with a bool (the lead's decision: True is not 1)."""
    from hypothesis import given
    from hypothesis import strategies as st

    from coschedlab.schedulers.base import same_value

    class Knobs(Scheduler):
        name = "knobs"

        def __init__(self, half_life: float = 86400.0, k: int = 1, on: bool = True) -> None:
            super().__init__()
            self.half_life, self.k, self.on = half_life, k, on

        def schedule(self, view):
            return []

    assert Knobs(half_life=86400).describe() == "knobs"
    assert Knobs(k=1.0).describe() == "knobs"
    assert Knobs(k=True).describe() == "knobs:k=true"  # a bool is not the number 1
    assert Knobs(on=1).describe() == "knobs:on=1"  # nor 1 the bool True
    assert Knobs(half_life=3600).describe() == "knobs:half_life=3600"

    numbers = st.one_of(st.integers(-(2**60), 2**60), st.floats(allow_nan=False))

    @given(numbers, numbers)
    def numbers_by_value(a, b):
        assert same_value(a, b) == (a == b)

    @given(st.booleans(), st.one_of(numbers, st.booleans(), st.text(max_size=3)))
    def bools_apart(a, b):
        assert same_value(a, b) == (isinstance(b, bool) and a == b)
        assert same_value(b, a) == same_value(a, b)

    @given(st.one_of(numbers, st.text(max_size=3), st.none()))
    def a_value_is_its_own_default(a):
        assert same_value(a, a)
        assert Knobs(half_life=a).describe() == "knobs" or a != 86400.0

    numbers_by_value()
    bools_apart()
    a_value_is_its_own_default()


def test_easy_only_options_are_refused_elsewhere():
    with pytest.raises(InputError, match="depth is EASY's"):
        get_scheduler("backfill:reservations=2,depth=3")
    with pytest.raises(InputError, match="extra is EASY's"):
        get_scheduler("backfill:compress=true,extra=false")
    assert EASY(depth=3).depth == 3


def test_joined_lists_each_job_once_when_it_joins_the_queue():
    """``view.joined``: arrivals and dependants released by a completion, once each, at the
    pass of the instant they join; read only."""
    seen: list[tuple[float, tuple[int, ...]]] = []

    class Recorder(Scheduler):
        name = "recorder"

        def schedule(self, view):
            with pytest.raises(ReadOnlyError):
                view.joined.append(0)
            if view.joined:
                seen.append((view.now, tuple(view.ids[j] for j in view.joined)))
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    w = workload((1, 0, 10, 10, 1), (2, 0, 5, 5, 1), (3, 3, 5, 5, 1))
    w.deps[3] = (1,)  # job 3 waits for job 1
    simulate(w, Cluster(1), Recorder())
    assert seen == [(0.0, (1, 2)), (10.0, (3,))]


def test_only_a_declared_clairvoyant_policy_reads_remaining_times():
    got: dict[str, list] = {"blind": [], "seer": []}

    class Blind(Scheduler):
        name = "blind"

        def schedule(self, view):
            got["blind"].append(view.remaining)
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    class Seer(Blind):
        name = "seer"
        clairvoyant = True

        def schedule(self, view):
            running = [j for _, j in view.est_sorted]
            got["seer"] += [(view.now, j, view.remaining(j)) for j in running]
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    simulate(secret_workload(), Cluster(4), Blind())
    assert got["blind"] and all(r is None for r in got["blind"])
    r = simulate(secret_workload(), Cluster(4), Seer())
    ends = dict(zip(range(3), r.jobs.sort_values("submit").end, strict=True))
    assert got["seer"] and all(left == ends[j] - now for now, j, left in got["seer"])
    assert r.options.get("clairvoyant") is True


def test_the_colocation_inputs_hold_no_run_time():
    from coloc._coloc_data import pool_ab

    seen: list = []

    class Peek(Scheduler):
        name = "peek"

        def schedule(self, view):
            assert view.coloc is not None and view.coloc.pair(0, 1) is not None
            for name, v in _values(view.coloc):
                seen.append(name)
                items = list(v) if isinstance(v, tuple | list) else [v]
                flat = [x for it in items for x in (it if isinstance(it, tuple) else (it,))]
                assert not set(RUNS) & {x for x in flat if isinstance(x, int | float)}, name
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    w = secret_workload()
    w.columns["app"][:] = [0, 1, 0]  # the pool's applications A and B
    simulate(w, Cluster(4, 2, 2), Peek(), pool=pool_ab())
    assert {"_app", "_rows", "_alone"} <= set(seen)


def test_a_job_preceding_itself_or_a_negative_think_time_is_refused(tmp_path):
    from coschedlab.workload.swf import read_swf

    path = tmp_path / "w.swf.gz"
    _swf(path, [(1, 0, 100, 1, -1, -1), (2, 5, 10, 1, 2, 0)])  # job 2 waits for itself
    w = read_swf(path)
    assert len(simulate(w, Cluster(4), "fcfs").jobs) == 2  # the field is read on request only
    with pytest.raises(InputError, match="job 2 waits for itself"):
        simulate(w, Cluster(4), "fcfs", dependencies=True)
    _swf(path, [(1, 0, 100, 1, -1, -1), (2, 5, 10, 1, 1, 30)])
    w = read_swf(path)
    think = w.columns["think_time"].copy()
    think[1] = -50.0  # a workload made in Python, not read from SWF (which refuses it)
    w.columns["think_time"] = think
    with pytest.raises(InputError, match="think time of -50 s"):
        simulate(w, Cluster(4), "fcfs", dependencies=True)


def test_a_run_whose_durations_a_policy_changed_fails_validation():
    """Issue 31: a policy reached the kernel through a view callable (``start_now.__self__``)
    and set every duration to 1 s; the validator said the run was valid. The view is now a
    compiled class whose link to the kernel is a C field: no attribute or action leads there.
    Python cannot seal one process (docs/semantics.md: ``gc`` still finds the kernel); the
    validator compares each job's run time with the input as read before the first pass, so
    such a run fails."""
    import gc

    from coschedlab.engine.kernel import Simulation

    class Tamper(Scheduler):
        name = "tamper"

        def schedule(self, view):
            actions = (view.start_now, view.wake_at, view.record_reservation, view.speedup)
            assert all(a.__self__ is view for a in actions)
            assert not hasattr(view, "_kernel") and not hasattr(view.machine, "_acct")
            reachable = [v for _, v in _values(view)] + [view.machine]
            assert not any(isinstance(v, Simulation) for v in reachable)
            (kernel,) = [o for o in gc.get_referrers(view) if isinstance(o, Simulation)]
            for j in range(len(kernel.duration)):
                kernel.duration[j] = 1.0
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    r = simulate(secret_workload(), Cluster(4), Tamper())
    bad = r.validate()
    assert bad and all("its run time was changed during the run" in b for b in bad)
    assert f"but the input says {RUNS[0]:g} s" in bad[0]
    honest = simulate(secret_workload(), Cluster(4), "fcfs")
    assert honest.validate() == []
    over = workload((1, 0, 50.0, 20.0, 1), (2, 1, 10.0, 30.0, 1))  # job 1 runs past its limit
    for kill in (True, "next-event"):
        killed = simulate(over, Cluster(4), "fcfs", kill_at_walltime=kill)
        assert killed.jobs["killed"].tolist() == [True, False] and killed.validate() == []


def test_a_compiled_pass_shows_python_the_kernels_c_queue_as_read_only_sequences():
    """Under a built-in's compiled pass the kernel keeps the queue and the running jobs in C
    arrays; the view shows them as read-only sequences (read at progress reports here) that
    agree with the per-job tables and lead nowhere."""
    import math

    from coschedlab.engine.kernel import Simulation

    seen = []

    class Spy(EASY):
        name = "spy"

        def setup(self, view):
            super().setup(view)
            self.view = view

    spy = Spy()

    def look(done, total):
        v = spy.view
        q, est = list(v.queue), list(v.est_sorted)
        assert len(q) == len(v.queue) and len(est) == len(v.est_sorted)
        assert q == sorted(q) and all(v.queued[j] and math.isnan(v.start[j]) for j in q)
        assert est == sorted((v.start[j] + v.req[j], j) for _, j in est)
        if q:
            assert v.queue[0] == q[0] and v.queue[-1] == q[-1] and v.queue[1:] == q[1:]
        seen.append((len(q), len(est)))

    rows = [(i, i // 3, 50.0 + 7 * (i % 5), 60.0 + 9 * (i % 4), 1 + i % 3) for i in range(300)]
    r = simulate(workload(*rows), Cluster(4), spy, progress=look)
    assert spy.compiled_pass is not None and r.validate() == []
    assert any(q and est for q, est in seen)  # jobs waited and ran at some report
    for seq in (spy.view.queue, spy.view.est_sorted):
        assert not hasattr(seq, "_sim") and not hasattr(seq, "append")
        assert not any(isinstance(getattr(seq, a, None), Simulation) for a in dir(seq))
        with pytest.raises((AttributeError, TypeError)):
            seq[0] = 1


def test_slurms_running_jobs_are_shown_sorted_though_the_kernel_keeps_no_list_for_its_pass():
    """Slurm's compiled pass keeps its own release list (``own_running``): the kernel then keeps
    no sorted running list as jobs start and end, and ``view.est_sorted`` is made when read.
    Read at progress reports, it is every job started and not ended by then, sorted."""
    import math

    from coschedlab.schedulers import Slurm

    class Spy(Slurm):
        name = "slurm-spy"

        def setup(self, view):
            super().setup(view)
            self.view = view

    spy = Spy()
    seen = []

    def look(done, total):
        v = spy.view
        est = list(v.est_sorted)
        assert len(est) == len(v.est_sorted) and est == sorted(est)
        if est:
            assert v.est_sorted[0] == est[0] and v.est_sorted[-1] == est[-1]
        started = [j for j in range(v.n) if not math.isnan(v.start[j])]
        seen.append((done, est, started, v.est_sorted[: len(est) // 2]))

    rows = [(i, 7 * i, 50.0 + 7 * (i % 5), 600.0 + 9 * (i % 4), 1 + i % 3) for i in range(400)]
    r = simulate(workload(*rows), Cluster(4), spy, progress=look)
    assert spy.compiled_pass is not None and spy.compiled_pass.own_running
    assert r.validate() == []
    jobs = r.jobs.sort_values("job_id")  # ids 0, 1, ... in submit order: the view's indices
    start, end = jobs["start"].to_numpy(), jobs["end"].to_numpy()
    req = jobs["requested_time"].to_numpy()
    # completions are processed in (end, index) order: the first ``done`` of them had ended
    by_end = sorted(range(len(end)), key=lambda k: (end[k], k))
    assert any(est for _, est, _, _ in seen)  # jobs ran at some report
    for done, est, started, half in seen:
        running = set(started) - set(by_end[:done])
        assert est == sorted((start[k] + req[k], k) for k in running)
        assert half == est[: len(est) // 2]


def _write_back(owner):
    return lambda: owner.__setitem__(0, owner[0])


def _hostile_routes(view):
    """Every ordinary route from the view to the kernel's state found in the hostile pass of
    2026-11-28 (audit15): each must fail (an exception) or lead to no kernel object."""
    import numpy as np

    queued = view.queue[0]
    running = view.est_sorted[0][1] if view.est_sorted else None
    routes = {  # name: a call that succeeds only if the route is open
        # a read-only memoryview's .obj was the kernel's own writable table (written here
        # with the value it holds: the run goes on when the route is open)
        **{
            f"{name}.obj written": _write_back(getattr(view, name).obj)
            for name in ("submit", "req", "nodes", "procs", "ids", "queued", "start")
        },
        "np.asarray(req) made writable": lambda: np.asarray(view.req).setflags(write=True),
        "memoryview(req.obj) written": lambda: memoryview(view.req.obj).__setitem__(0, 0.0),
        # Cython's generated pickling handed out the C fields (the kernel, the accounting)
        "view.__reduce_ex__": lambda: view.__reduce_ex__(2),
        "view.__reduce__": lambda: view.__reduce__(),
        "machine.__reduce_ex__": lambda: view.machine.__reduce_ex__(2),
        "copy.copy(view)": lambda: __import__("copy").copy(view),
        # a method on every view that answered a blind policy with actual remaining times
        "view._remaining(j)": lambda: view._remaining(running if running is not None else queued),
        # a method that returned the shared nodes' accounting (claim, place, release)
        "machine._shared()": lambda: view.machine._shared(),
    }
    opened = []
    for name, route in routes.items():
        try:
            got = route()
        except (TypeError, AttributeError, ValueError, BufferError):
            continue
        opened.append((name, got))
    return opened


@pytest.mark.parametrize("shared", [False, True], ids=["whole-nodes", "shared-nodes"])
def test_no_ordinary_route_from_the_view_reaches_kernel_state(shared):
    opened: list = []

    class Hostile(Scheduler):
        name = "hostile"

        def schedule(self, view):
            opened.extend(_hostile_routes(view))
            return [j for j in view.queue[:1] if view.nodes[j] <= view.free]

    w = secret_workload()
    if shared:
        from coloc._coloc_data import pool_ab

        w.columns["app"][:] = [0, 1, 0]
        r = simulate(w, Cluster(4, 2, 2), Hostile(), pool=pool_ab())
    else:
        r = simulate(w, Cluster(4), Hostile())
    assert opened == []
    assert r.validate() == []


def test_a_compiled_pass_sequences_cannot_be_reduced_to_the_kernel():
    class Spy(EASY):
        name = "spy"

        def setup(self, view):
            super().setup(view)
            self.view = view

    spy, opened = Spy(), []

    def look(done, total):
        for seq in (spy.view.queue, spy.view.est_sorted):
            for route in (seq.__reduce_ex__, seq.__reduce__):
                try:
                    opened.append(route(2) if route.__name__ == "__reduce_ex__" else route())
                except TypeError:
                    continue

    rows = [(i, i // 3, 50.0 + 7 * (i % 5), 60.0 + 9 * (i % 4), 1 + i % 3) for i in range(40)]
    simulate(workload(*rows), Cluster(4), spy, progress=look)
    assert spy.compiled_pass is not None and opened == []


def test_the_view_tables_read_as_before():
    """The sealed tables still read as read-only arrays of Python numbers (indexing, slices,
    tolist, NumPy without a copy)."""
    import numpy as np

    seen = {}

    class Look(Scheduler):
        name = "look"

        def schedule(self, view):
            for name in ("submit", "req", "nodes", "procs", "ids", "queued", "start"):
                t = getattr(view, name)
                a = np.asarray(t)
                seen[name] = (t.readonly, len(t), t.tolist(), a.flags.writeable, type(t[0]))
            return [j for j in view.queue if view.nodes[j] <= view.free][:1]

    simulate(secret_workload(), Cluster(4), Look())
    assert seen["req"] == (True, 3, [2000.0, 3000.0, 100.0], False, float)
    assert seen["nodes"] == (True, 3, [2, 2, 1], False, int)
    assert all(v[0] and not v[3] for v in seen.values())


def test_a_subclass_with_its_own_queue_order_promises_no_fcfs_head():
    """A subclass of EASY whose ``ordered_queue`` puts the widest job first runs EASY's
    compiled pass in that order: its head is not the FCFS head the validator checks, so it
    promises no head (as ``order=`` other than fcfs); it promised EASY's and failed."""

    class Widest(EASY):
        name = "widest"

        def ordered_queue(self, view):
            return sorted(view.queue, key=lambda j: -view.nodes[j])

    rows = [(i, 7 * i, 60.0 + 9 * (i % 5), 80.0 + 9 * (i % 4), 1 + (i * 7) % 4) for i in range(60)]
    r = simulate(workload(*rows), Cluster(4), Widest())
    assert Widest().guarantees == () and EASY().guarantees == ("head", "reservations")
    assert r.validate() == []


def test_a_policy_that_forces_the_frozen_cluster_changes_only_its_own_copy():
    """``object.__setattr__`` goes round the frozen ``Cluster``: on the run's own object it
    made the result a 1,000-node machine (utilization 0.25% instead of 95%), and the
    validator, which reads the result's cluster, passed it. The view holds a copy."""

    class Forcer(Scheduler):
        name = "forcer"

        def setup(self, view):
            object.__setattr__(view.cluster, "nodes", 1000)

        def schedule(self, view):
            return [j for j in view.queue[:1] if view.nodes[j] <= view.free]

    r = simulate(secret_workload(), Cluster(4), Forcer())
    assert r.cluster == Cluster(4)
    assert r.validate() == []
