"""A hostile user's attacks on the policy boundary and the validator (issue 31, item 4; seal22,
2026-11-29): every value a policy hands to compiled code is checked before that code reads C
arrays at it, every query of the view refuses an index out of range, a policy's failure at
set-up is one line, and every capability's validator compares run times with the input.

Each attack was a crash (a segmentation fault, heap corruption, a hang), another job's memory
read, an internal error (exit 3), a result column changed, or a tampered run that passed;
docs/semantics.md ("What is guaranteed about a policy's reach") lists what one process cannot
isolate."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from conftest import workload

from coschedlab import Cluster, InputError, Scheduler, simulate
from coschedlab.coloc.schedulers import CoScheduler
from coschedlab.engine.kernel import SchedulerError, Simulation
from coschedlab.schedulers import EASY

ROWS = [(i, i // 3, 50.0 + 7 * (i % 5), 60.0 + 9 * (i % 4), 1 + i % 3) for i in range(30)]


def _fifo(view):
    return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]


def _coloc_workload():
    w = workload(*[(i, 7 * i, 40.0 + 9 * (i % 5), 80.0, 2) for i in range(12)])
    w.columns["app"][:] = [i % 2 for i in range(12)]
    return w


def _pool():
    from coloc._coloc_data import pool_ab

    return pool_ab()


# -- job orders a compiled pass takes from Python ----------------------------------------------
#: what a hook returned (``q``: the queue) -> what the error says; each crashed the process
#: (a job index out of range), read another job's memory, or was an internal error (a text,
#: 2**63) or a misleading one (a repeat, a float taken as its integer part)
BAD_ORDERS = {
    "out of range": ("[10**6] + q", "returned 1000000, which is not a queued job's index"),
    "negative": ("[-3] + q", "returned -3, which is not a queued job's index"),
    "beyond C long": ("[2**63] + q", "returned 9223372036854775808, which is not a queued"),
    "twice": ("q + q", "returned 0 twice"),
    "a float": ("[0.5] + q", "returned 0.5 where a queued job's index belongs"),
    "a bool": ("[True] + q", "returned True where a queued job's index belongs"),
    "a text": ("'abc'", "returned 'abc', not a sequence of queued jobs"),
    "None": ("None", "returned None, not a sequence of queued jobs"),
    "not yet submitted": ("[29] + q", "returned 29, which is not a queued job's index"),
}


def _hooked(base: type, hook: str, code: str) -> type:
    """A subclass of ``base`` whose ``hook(view)`` returns ``code`` evaluated on the queue."""

    def order(self, view):
        return eval(code, {}, {"q": list(view.queue)})

    return type("Bad", (base,), {"name": "bad-" + hook, hook: order})


@pytest.mark.parametrize("case", list(BAD_ORDERS))
def test_an_ordered_queue_hook_is_checked_before_the_compiled_pass_reads_it(case):
    code, said = BAD_ORDERS[case]
    Bad = _hooked(EASY, "ordered_queue", code)
    with pytest.raises(SchedulerError, match="ordered_queue\\(\\) " + said.replace("(", ".")):
        simulate(workload(*ROWS), Cluster(4), Bad())
    try:
        simulate(workload(*ROWS), Cluster(4), Bad())
    except SchedulerError as exc:  # the hook's own file and line
        assert exc.where and exc.where.startswith(__file__)


@pytest.mark.parametrize("case", ["out of range", "negative", "twice", "a text"])
def test_a_co_schedulers_deploy_order_hook_is_checked_too(case):
    code, said = BAD_ORDERS[case]
    Bad = _hooked(CoScheduler, "deploy_order", code)
    with pytest.raises(SchedulerError, match="deploy_order\\(\\) " + said.replace("(", ".")):
        simulate(_coloc_workload(), Cluster(4, 2, 2), Bad(), pool=_pool())


def test_a_hook_that_returns_a_subset_in_its_own_order_still_runs():
    class Reversed(EASY):
        name = "reversed"

        def ordered_queue(self, view):
            return np.asarray(view.queue[::-1][:5], dtype=np.int64)  # NumPy ints, a subset

    r = simulate(workload(*ROWS), Cluster(4), Reversed())
    assert r.validate() == []


# -- queries of the machine ---------------------------------------------------------------------
WHOLE_QUERIES = ["allocation(10**6)", "allocation(-1)", "cores_of(10**6)", "cores_of(-1)"]
SHARED_QUERIES = WHOLE_QUERIES + [
    "free_cores(10**6)",
    "free_cores(-1)",
    "occupants(10**6)",
    "occupants(-1)",
]


@pytest.mark.parametrize("shared", [False, True], ids=["whole-nodes", "shared-nodes"])
def test_machine_queries_refuse_a_job_or_node_out_of_range(shared):
    """Each query read the accounting's C arrays at the index unchecked: a crash
    (allocation, free_cores, occupants) or another array's memory (cores_of(10**6) gave
    8029744912681885486; free_cores(-1) 1190)."""
    refused, answers = [], {}

    class Probe(Scheduler):
        name = "probe"

        def schedule(self, view):
            m = view.machine
            for q in SHARED_QUERIES if shared else WHOLE_QUERIES:
                with pytest.raises(IndexError, match="out of range"):
                    eval("m." + q)
                refused.append(q)
            if view.est_sorted:
                j = view.est_sorted[0][1]
                answers[j] = (m.allocation(j), m.cores_of(j))
            return _fifo(view)

    if shared:
        r = simulate(_coloc_workload(), Cluster(4, 2, 2), Probe(), pool=_pool())
    else:
        r = simulate(workload(*ROWS), Cluster(4), Probe())
    assert len(refused) >= len(WHOLE_QUERIES) and answers  # in range: as before
    assert all(iv and c >= 1 for iv, c in answers.values())
    assert r.validate() == []


def test_a_policys_projection_refuses_nodes_outside_the_machine():
    """``view.machine.projection(c)`` is the policy's scratch copy, but its ``add`` and
    ``loss`` walked C arrays over any interval given (out of range: a hang, or a write into
    other memory); its size is read only."""
    seen = []

    class Look(CoScheduler):
        name = "look"

        def schedule(self, view):
            p = view.machine.projection(1)
            for bad in ([(10**6, 10**6 + 100)], [(-5, 2)], [(3, 2)], [(0, 5)]):
                for method in (p.add, p.loss):
                    with pytest.raises(ValueError, match="not within the 4 nodes"):
                        method(bad, 1)
            with pytest.raises(AttributeError):
                p.n = 10**9
            seen.append(p.loss([(0, 4)], 1))
            return super().schedule(view)

    r = simulate(_coloc_workload(), Cluster(4, 2, 2), Look(), pool=_pool())
    assert seen and r.validate() == []


# -- what the view hands out cannot be changed in place -----------------------------------
#: ``list``'s own methods called on the view's lists (past FrozenList's refusals: it was a list
#: underneath), and ``release()`` on its tables: each changed the kernel's state (an IndexError
#: in kernel.pyx, exit code 3; jobs left waiting; the queue reordered for the kernel) or
#: released the kernel's own table (exit code 3 at the result). Now each is a TypeError in the
#: policy's own frame, or harmless: it touches the policy's own object (bound23, 2026-11-29)
REFUSED = [
    "list.clear(view.est_sorted)",
    "list.insert(view.est_sorted, 0, (0.0, 0))",
    "list.clear(view.queue)",
    "list.sort(view.queue, reverse=True)",
    "list.__setitem__(view.queue, 0, 5)",
    "list.__delitem__(view.queue, 0)",
    "list.append(view.joined, 0)",
    "list.clear(view.ordered())",
    "list.reverse(view.ordered(None))",
]
HARMLESS = [
    "view.req.release()",
    "view.submit.release()",
    "view.nodes.release()",
    "view.procs.release()",
    "view.ids.release()",
    "view.start.release()",
    "view.queued.release()",
    "view.machine.allocation(view.est_sorted[0][1]).clear()",
    "list(view.queue).clear()",
    "view.queue.copy().clear()",
    "view.queue[:].clear()",
    "view.est_sorted[0:5].sort(reverse=True)",
]
SHARED_HARMLESS = [
    "view.machine.partly_free(1).clear()",
    "view.machine.partly_free(1, 2).clear()",
    "view.machine.room().clear()",
    "view.machine.free_runs(1).clear()",
    "view.machine.idle_intervals(1).clear()",
    "view.machine.occupants(0).clear()",
]


def _mutating(base: type, code: str) -> type:
    """``base`` that runs ``code`` at its third pass (jobs are running and waiting then)."""

    def schedule(self, view):
        self.passes = getattr(self, "passes", 0) + 1
        if self.passes == 3:
            exec(code)
        return base.schedule(self, view) if base is CoScheduler else _fifo(view)

    return type("Mutates", (base,), {"name": "mutates", "schedule": schedule})


def _starts(shared: bool, policy) -> list:
    if shared:
        r = simulate(_coloc_workload(), Cluster(4, 2, 2), policy, pool=_pool())
    else:
        r = simulate(workload(*ROWS), Cluster(4), policy)
    assert r.validate() == []
    return r.columns["start"].tolist()


@pytest.mark.parametrize("code", REFUSED)
@pytest.mark.parametrize("shared", [False, True], ids=["whole-nodes", "shared-nodes"])
def test_changing_the_views_lists_in_place_fails_in_the_policys_frame(code, shared):
    base = CoScheduler if shared else Scheduler
    with pytest.raises(SchedulerError, match="failed at t=.*: TypeError: descriptor") as e:
        _starts(shared, _mutating(base, code)())
    assert e.value.where.startswith(__file__)


@pytest.mark.parametrize("code", HARMLESS + SHARED_HARMLESS)
@pytest.mark.parametrize("shared", [False, True], ids=["whole-nodes", "shared-nodes"])
def test_changing_what_the_view_handed_out_changes_nothing_else(code, shared):
    if code in SHARED_HARMLESS and not shared:
        pytest.skip("a query of shared nodes")
    base = CoScheduler if shared else Scheduler
    honest = _starts(shared, _mutating(base, "pass")())
    try:
        assert _starts(shared, _mutating(base, code)()) == honest
    except SchedulerError as e:  # the policy read the table it released: its own failure
        assert ".release()" in code and "released memoryview" in str(e), e
        assert e.where.startswith(__file__)


def test_the_views_lists_read_as_lists():
    """What policies do with ``view.queue`` and ``view.est_sorted``: index, slice (a list of
    their own), iterate, bisect, compare, add, copy."""
    import bisect
    import copy

    seen = []

    class Reads(Scheduler):
        name = "reads"

        def schedule(self, view):
            q, est = view.queue, view.est_sorted
            if len(q) > 1 and est:
                assert q[:] == list(q) == [*q] and q[0] == list(q)[0] and q[-1] in q
                assert q == list(q) and q != [] and q != 5 and q.count(q[0]) == 1
                assert q + [7] == list(q) + [7] and [7] + q == [7, *q]
                assert type(q[:]) is list and type(copy.copy(q)) is list
                assert copy.deepcopy(est) == list(est) and q.index(q[-1]) == len(q) - 1
                assert bisect.bisect_right(est, (est[0][0], 10**9)) >= 1
                assert list(reversed(q)) == list(q)[::-1] and sorted(q) == sorted(list(q))
                with pytest.raises(TypeError):
                    hash(q)
                seen.append(len(q))
            return _fifo(view)

    r = simulate(workload(*ROWS), Cluster(4), Reads())
    assert seen and r.validate() == []


# -- a policy's wake-ups --------------------------------------------------------------------------
def _waking(step: float | str) -> type:
    """FCFS (one job at a time) that asks for a pass at ``now + step`` at every pass."""

    def schedule(self, view):
        view.wake_at(view.now + step if not isinstance(step, str) else eval(step))
        return _fifo(view)

    return type("Wakes", (Scheduler,), {"name": "wakes", "schedule": schedule})


#: a node busy for a week while a two-node job waits: only the policy's wake-ups in between
WEEK = [(0, 0, 7 * 86400.0, 8 * 86400.0, 1), (1, 10, 100.0, 200.0, 2)]


@pytest.mark.parametrize(
    "step, said",
    [(-1.0, r"view.wake_at\(-1.0\) asks for a pass in the past \(now is t=0.0\)"),
     ("math.nan", r"view.wake_at\(nan\) asks for a pass at no time \(NaN\)")],
)  # fmt: skip
def test_a_wake_up_in_the_past_or_at_nan_is_refused_in_the_policys_frame(step, said):
    """Both were dropped without a word (a policy's clock that never rang)."""
    with pytest.raises(SchedulerError, match="failed at t=0: ValueError: " + said) as e:
        simulate(workload(*WEEK), Cluster(2), _waking(step)())
    assert e.value.where.startswith(__file__)


@pytest.mark.parametrize("step", [0.0, "math.inf"])
def test_a_wake_up_now_or_never_asks_for_no_pass(step):
    r = simulate(workload(*WEEK), Cluster(2), _waking(step)())
    assert r.validate() == [] and r.options.get("passes", 3) <= 3


def test_a_policy_waking_itself_every_nanosecond_stops_with_one_line():
    """It ran forever (a pass every 1e-9 s through a week): now 10^6 such passes in a row,
    less than 1 ms apart on average, are a livelock naming the option that raises the limit."""
    said = (
        "scheduler wakes: 1,000,000 passes in a row from t=10 to t=10.001, each woken by the "
        "policy alone (view.wake_at) and starting nothing, less than 0.001 s apart on average: "
        "a livelock; fix the policy or raise the limit with --wake-limit N (0: no limit)"
    )
    with pytest.raises(SchedulerError, match="1,000 passes in a row from t=10 to t=10.0000"):
        simulate(workload(*WEEK), Cluster(2), _waking(1e-9)(), wake_limit=1000)
    with pytest.raises(SchedulerError, match=re.escape(said)):  # (main: hangs; see above)
        simulate(workload(*WEEK), Cluster(2), _waking(1e-9)())
    short = [(0, 0, 10.0, 20.0, 1), (1, 1, 10.0, 20.0, 2)]  # 10^5 passes 1e-4 s apart
    with pytest.raises(SchedulerError, match="livelock"):
        simulate(workload(*short), Cluster(2), _waking(1e-4)(), wake_limit=1000)
    r = simulate(workload(*short), Cluster(2), _waking(1e-4)(), wake_limit=0)  # no limit
    assert r.validate() == []


def test_a_policy_waking_every_second_through_an_idle_week_runs_to_the_end():
    """604,800 passes in a row with nothing to do, but a second apart: legitimate (a policy's
    clock), never a livelock; nor are passes half a second apart beyond the limit (a mean step
    of 1 ms or more), nor passes 1e-9 s apart that start a job each."""
    r = simulate(workload(*WEEK), Cluster(2), _waking(1.0)())
    assert r.validate() == [] and r.jobs.start.tolist()[1] == 7 * 86400.0
    day = [(0, 0, 86400.0, 90000.0, 1), (1, 10, 100.0, 200.0, 2)]
    r = simulate(workload(*day), Cluster(2), _waking(0.5)(), wake_limit=10_000)
    assert r.validate() == []
    many = [(i, 0, 50.0, 60.0, 1) for i in range(1, 3000)]  # one starts per 1e-9-s pass
    r = simulate(workload((0, 0, 100.0, 100.0, 1), *many), Cluster(3000), _waking(1e-9)(),
                 wake_limit=1000)  # fmt: skip
    assert r.validate() == []


# -- a co-scheduler's cores per node --------------------------------------------------------------
@pytest.mark.parametrize("cores", [0, -2, 10**6, math.nan, 2.5, True, "2"])
def test_cores_for_must_give_whole_cores_of_a_node(cores):
    """NaN was an internal error (exit 3), 0 a division by zero and a misleading 'left jobs
    waiting'; the compiled pass read the others unchecked."""

    class Bad(CoScheduler):
        name = "bad-cores"

        def cores_for(self, view, j):
            return cores

    with pytest.raises(InputError, match="cores_for\\(view, 0\\) returned .*from 1 to 4") as e:
        simulate(_coloc_workload(), Cluster(4, 2, 2), Bad(), pool=_pool())
    assert e.value.where.startswith(__file__)


# -- the co-location inputs ---------------------------------------------------------------------
def test_the_colocation_inputs_cannot_be_written_into_the_result():
    """``view.coloc._app_in`` was the speed model's own array, which becomes the result's
    ``in_pool`` column: a policy that wrote it turned unknown applications into pool ones."""
    tried = []

    class Writer(CoScheduler):
        name = "writer"

        def setup(self, view):
            a = view.coloc._app_in
            for attempt in (
                lambda: a.__setitem__(slice(None), -1),
                lambda: a.setflags(write=True),
                lambda: np.frombuffer(a.base, dtype=np.int64).__setitem__(0, -1),
            ):
                with pytest.raises((ValueError, TypeError)):
                    attempt()
                tried.append(attempt)
            super().setup(view)

    r = simulate(_coloc_workload(), Cluster(4, 2, 2), Writer(), pool=_pool())
    honest = simulate(_coloc_workload(), Cluster(4, 2, 2), "easy-coloc", pool=_pool())
    assert len(tried) == 3
    assert r.columns["in_pool"].tolist() == honest.columns["in_pool"].tolist() == [True] * 12


# -- a policy's set-up ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body, said",
    [
        ("raise RuntimeError('no')", "failed at set-up: RuntimeError: no"),
        ("raise SystemExit(3)", "failed at set-up: exit(3) called"),
        ("raise type('Odd', (BaseException,), {})('odd')", "failed at set-up: Odd: odd"),
    ],
)
def test_a_policy_that_fails_at_set_up_is_one_line_naming_its_file(body, said):
    """The policy's ``setup`` is its code as ``schedule`` is: it was an internal error
    ("please report it", exit code 3)."""

    class Fails(Scheduler):
        name = "fails"

        def setup(self, view):
            exec(body)

        def schedule(self, view):
            return _fifo(view)

    with pytest.raises(SchedulerError, match=re.escape(said)) as e:
        simulate(workload(*ROWS), Cluster(4), Fails())
    assert __file__ in e.value.where


# -- the validators of the capabilities ----------------------------------------------------------
#: FCFS that reaches the kernel as Python cannot prevent (``gc``) and makes every job 1 s long
#: (the attack of issue 31); a policy file for the commands, and the class made from it
TAMPER_FILE = """
import gc
from coschedlab.engine.kernel import Simulation
from coschedlab.schedulers import Scheduler


class Tamper(Scheduler):
    name = "tamper"

    def schedule(self, view):
        if not getattr(self, "done", False):
            self.done = True
            for o in gc.get_referrers(view):
                if isinstance(o, Simulation):
                    for j in range(len(o.duration)):
                        o.duration[j] = 1.0
        return [j for j in list(view.queue)[:1] if view.nodes[j] <= view.free]
"""
_made: dict = {}
exec(TAMPER_FILE, _made)
Tamper = _made["Tamper"]


def test_a_coupled_run_whose_durations_a_policy_changed_fails_validation():
    """CoupledResult.validate checked each system's capacity, holds and pairs, not its run
    times: the tampered run passed."""
    from coschedlab.coupled import CoupledSimulation, System, pair_every
    from coschedlab.coupled.result import CoupledResult
    from coschedlab.jobs import Workload

    def w(shift):
        return Workload.from_records(
            [
                {
                    "id": i,
                    "submit": 7 * i + shift,
                    "run": 40.0 + i,
                    "requested_time": 90.0,
                    "procs": 1 + i % 3,
                }  # fmt: skip
                for i in range(12)
            ]
        )

    def systems(policy):
        return [
            System("a", w(0), Cluster(4), scheduler=policy(), scheme="hold"),
            System("b", w(2), Cluster(4), scheduler=policy(), scheme="yield"),
        ]

    for policy, tampered in ((Tamper, True), (lambda: EASY(), False)):
        s = systems(policy)
        c = CoupledSimulation(s, pair_every(s[0].workload, s[1].workload, 3)).run()
        bad = CoupledResult.from_simulation(c).validate()
        if tampered:
            assert bad and all("run time was changed" in b for b in bad)
        else:
            assert bad == []


def test_a_workflow_run_is_validated_and_a_tampered_one_fails(tmp_path):
    """``workflows simulate`` (and its sweep) never ran the validator: a policy that made
    every job 1 s long passed, exit code 0. Its runs are cut off after the drain, and run
    times were not checked in a run cut off at a time: the started jobs now are."""
    from coschedlab.workflows import MODES, simulate_mode

    sys_path_workflows()
    from test_workflow_metrics import warmup_and_window

    for m in MODES[:2]:
        assert simulate_mode(warmup_and_window(), m).validate() == []
        bad = simulate_mode(warmup_and_window(), m, scheduler=Tamper()).validate()
        assert bad and "its run time was changed during the run" in bad[0], m
    from coschedlab.engine.result import Result
    from coschedlab.schedulers import get_scheduler

    for policy, tampered in ((Tamper(), True), (get_scheduler("fcfs"), False)):
        sim = Simulation(workload(*ROWS), Cluster(4), policy, until=5.0)
        cut = Result.from_simulation(sim.run())
        assert cut.options["truncated"]
        assert bool(cut.validate()) is tampered


def sys_path_workflows() -> None:
    import sys
    from pathlib import Path

    here = str(Path(__file__).resolve().parent / "workflows")
    if here not in sys.path:
        sys.path.insert(0, here)


def test_workflows_simulate_says_a_tampered_run_is_invalid(tmp_path):
    """The command printed its table and exited 0; now each mode's violations are printed
    (after the results are written) and the exit code is 1, as for ``simulate``."""
    from _cli import cli_here

    (tmp_path / "tamper.py").write_text(TAMPER_FILE)
    gen = cli_here("workflows", "generate", "-w", "B4", "--share", "0.3", "--machine", "80x24",
                   "--window", "21600", "--warmup", "3600", "--target-wait", "1800",
                   "--out", str(tmp_path / "wl"))  # fmt: skip
    assert gen.returncode == 0, gen.stderr
    args = ["workflows", "simulate", str(tmp_path / "wl"), "--mode", "chained"]
    honest = cli_here(*args, "-s", "fcfs", "--out", str(tmp_path / "a"))
    assert honest.returncode == 0, honest.stderr
    bad = cli_here(*args, "-s", str(tmp_path / "tamper.py"), "--out", str(tmp_path / "b"))
    assert bad.returncode == 1
    assert "chained: job " in bad.stderr and "its run time was changed during the run" in bad.stderr
    assert (tmp_path / "b" / "chained" / "jobs.csv").is_file()


def test_coupled_simulate_says_a_tampered_run_is_invalid(tmp_path):
    """Once its validator checked run times, the tampered coupled run stopped as an internal
    error ("please report it", exit code 3); it is a broken invariant: exit code 1, each
    violation said, as for ``simulate``."""
    from _cli import cli_here

    (tmp_path / "tamper.py").write_text(TAMPER_FILE)
    for name, nodes, shift in (("big", 8, 0), ("small", 4, 2)):
        rows = [(7 * i + shift, 40 + (i * 37) % 100, 1 + (i * 5) % nodes) for i in range(12)]
        (tmp_path / f"{name}.swf").write_text(
            f"; MaxNodes: {nodes}\n; MaxProcs: {nodes}\n"
            + "".join(
                f"{i} {s} -1 {r} {n} -1 -1 {n} {r + 10} -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                for i, (s, r, n) in enumerate(rows, 1)
            )
        )
    args = ["coupled", "simulate", "--system", str(tmp_path / "big.swf"), "--system",
            str(tmp_path / "small.swf"), "--pairs", "every:2"]  # fmt: skip
    assert cli_here(*args, "--scheduler", "easy", "--out", str(tmp_path / "a")).returncode == 0
    bad = cli_here(*args, "--scheduler", str(tmp_path / "tamper.py"), "--out", str(tmp_path / "b"))
    assert bad.returncode == 1, bad.stderr
    assert "big: job 1 ran 1 s but the input says" in bad.stderr and "Traceback" not in bad.stderr
