"""The WoAS experiment's set-up and hand-offs written for speed, against their plain versions:
the vectorised expansion of a workload into one mode's jobs (oracle: the per-task loop it
replaced), the compiled pass's inherited priority factors (oracle: :class:`Multifactor`),
and the kernel's release of dependent jobs (the order they join the queue)."""

from __future__ import annotations

import numpy as np
from _regular_jobs import regular
from conftest import workflow_dags
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.engine.kernel import Simulation
from coschedlab.jobs import Workload
from coschedlab.platform import Cluster
from coschedlab.schedulers import Multifactor, Scheduler, Slurm
from coschedlab.schedulers.priority import limit_minutes
from coschedlab.workflows import MODES, WorkflowWorkload, expand


def expand_oracle(ww: WorkflowWorkload, mode: str) -> tuple:
    """The per-task loop :func:`expand` replaced: columns, deps, job_wf, job_task, inherit."""
    reg = ww.regular.columns
    first = int(reg["id"].max()) + 1 if len(ww.regular) else 1
    sub, run, req, procs, ids, job_wf, job_task = [], [], [], [], [], [], []
    deps: dict[int, tuple[int, ...]] = {}
    inherit: dict[int, tuple[float, int, float]] = {}
    nid = first
    for w, (t, k) in enumerate(ww.submits):
        wf = ww.workflows[k]
        if mode == "pilot":
            ids.append(nid)
            sub.append(t)
            run.append(wf.pilot_runtime)
            req.append(max(wf.critical_path_limit, wf.pilot_runtime))
            procs.append(wf.max_cores)
            job_wf.append(w)
            job_task.append("")
            nid += 1
            continue
        task_id = {}
        for task in wf.tasks:
            task_id[task.id] = nid
            nid += 1
        for task in wf.tasks:
            j = task_id[task.id]
            ids.append(j)
            sub.append(t)
            run.append(task.runtime)
            req.append(task.limit)
            procs.append(task.cores)
            job_wf.append(w)
            job_task.append(task.id)
            if task.deps:
                deps[j] = tuple(task_id[d] for d in task.deps)
            if mode == "woas":
                inherit[j] = (t, wf.max_cores, wf.critical_path_limit)
    cols = {
        "id": np.concatenate([reg["id"], np.asarray(ids, np.int64)]),
        "submit": np.concatenate([reg["submit"], np.asarray(sub, np.float64)]),
        "run": np.concatenate([reg["run"], np.asarray(run, np.float64)]),
        "requested_time": np.concatenate([reg["requested_time"], np.asarray(req, np.float64)]),
        "procs": np.concatenate([reg["procs"], np.asarray(procs, np.int64)]),
    }
    return cols, deps, job_wf, job_task, inherit


@settings(max_examples=40, deadline=None)
@given(
    dags=st.lists(workflow_dags(max_tasks=8), max_size=3),
    picks=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 2)), max_size=6),
    mode=st.sampled_from(MODES),
)
def test_expand_gives_the_per_task_loops_jobs(dags, picks, mode):
    submits = [(float(t), k % len(dags)) for t, k in sorted(picks)] if dags else []
    ww = WorkflowWorkload(
        regular((1, 0, 50, 60, 4), (2, 3, 10, 20, 8)), dags, submits, Cluster.from_cores(64, 4),
        (0.0, 1e6),
    )  # fmt: skip
    ex = expand(ww, mode)
    cols, deps, job_wf, job_task, inherit = expand_oracle(ww, mode)
    for name, col in cols.items():
        got = ex.workload.columns[name]
        assert got.dtype == col.dtype and np.array_equal(got, col), name
    assert list(ex.workload.deps.items()) == list(deps.items())  # same order too
    assert ex.job_wf.tolist() == job_wf and ex.job_task == job_task
    assert list(ex.inherit.items()) == list(inherit.items())
    assert [type(v) for x in ex.inherit.values() for v in x] == [
        type(v) for x in inherit.values() for v in x
    ]


@settings(max_examples=25, deadline=None)
@given(dag=workflow_dags(max_tasks=8, cores=(1, 40)), cpn=st.sampled_from([1, 3, 24]))
def test_compiled_inherited_sizes_are_multifactors(dag, cpn):
    """Each job's size factor in the compiled pass: its own geometry's, or (WoAS) its
    workflow job's, whose cpus need not fill whole nodes."""
    machine = Cluster.from_cores(400, cpn)
    ww = WorkflowWorkload(
        regular((1, 0, 50, 60, cpn), (2, 3, 10, 20, 2 * cpn)), [dag], [(1.0, 0), (7.0, 0)],
        machine, (0.0, 1e6),
    )  # fmt: skip
    ex = expand(ww, "woas")
    sched = Slurm(inherit=ex.inherit)
    sim = Simulation(ex.workload, machine, sched)
    sim.run()
    cp = sched.compiled_pass
    assert cp is not None
    f = Multifactor(total_cpus=machine.total_cores, cores_per_node=cpn)
    view = sim.view
    index = {jid: j for j, jid in enumerate(view.ids)}
    for j in range(view.n):
        jid = view.ids[j]
        if jid in ex.inherit:
            origin, cpus, limit = ex.inherit[jid]
            want = f.size(machine.nodes_for(cpus), cpus, limit_minutes(limit) * 60.0)
            assert cp.age_origin(j) == origin
        else:
            want = f.size(view.nodes[j], view.procs[j], limit_minutes(view.req[j]) * 60.0)
        assert cp.size_factor(j) == want, (jid, index[jid])


class _Joined(Scheduler):
    """FCFS in Python that logs ``view.joined`` at each pass."""

    def __init__(self) -> None:
        super().__init__("fcfs")
        self.log: list[tuple[float, list[int]]] = []

    def schedule(self, view):
        self.log.append((view.now, list(view.joined)))
        out, free = [], view.free
        for j in view.queue:
            if view.nodes[j] > free:
                break
            out.append(j)
            free -= view.nodes[j]
        return out


def test_dependents_join_in_the_order_their_dependencies_were_given():
    # job 1 ends at 10; jobs 4, 2 and 3 wait for it (given in that order), 3 also for 5
    cols = {
        "id": np.array([1, 2, 3, 4, 5]),
        "submit": np.array([0.0, 1, 1, 1, 1]),
        "run": np.array([10.0, 1, 1, 1, 30]),
        "procs": np.array([1, 1, 1, 1, 1]),
    }
    w = Workload(cols, deps={4: (1,), 2: (1,), 3: (5, 1)})
    pol = _Joined()
    sim = Simulation(w, Cluster(nodes=8), pol)
    sim.run()
    ids = list(sim.ids)
    at = {t: [ids[j] for j in joined] for t, joined in pol.log}
    assert at[10.0] == [4, 2]  # 3 still waits for 5
    assert at[31.0] == [3]
    assert sim.parents == {ids.index(4): (0,), ids.index(2): (0,), ids.index(3): (0, 4)}
    assert sim.dependency_texts()[0].tolist() == ["", "1", "1 5", "1", ""]


def test_inheritance_as_arrays_is_read_as_the_mapping():
    """Slurm's ``inherit`` as arrays (:class:`Inheritance`, what :func:`expand` hands over)
    gives the compiled pass the same jobs and factors as the mapping it reads as (ids not in
    the run left out, in the mapping's order); rows that do not fit are refused."""
    import pytest

    from coschedlab.errors import InputError
    from coschedlab.schedulers.slurm import Inheritance, _inherited

    jobs = np.array([9, 4, 77, 1], np.int64)  # 77 is not a job of the run
    arrays = Inheritance(jobs, [5.0, 1.5, 2.0, 0.0], [48, 7, 3, 24], [600.0, 60.0, 1.0, 3e3])
    mapping = dict(arrays.items())
    assert list(mapping) == [9, 4, 77, 1] and mapping[4] == (1.5, 7, 60.0)
    assert 77 in arrays and 5 not in arrays and len(arrays) == 4
    w = Workload({"id": np.arange(1, 11), "submit": np.zeros(10), "run": np.ones(10),
                  "procs": np.ones(10, np.int64)})  # fmt: skip
    view = Simulation(w, Cluster.from_cores(4, 24), Slurm()).view
    got, want = _inherited(arrays, view), _inherited(mapping, view)
    assert [a.dtype for a in got] == [a.dtype for a in want]
    assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
    assert got[0].tolist() == [8, 3, 0]  # view indices of ids 9, 4, 1
    with pytest.raises(InputError, match="inherit: "):
        Inheritance(jobs, [1.0], [1], [1.0])
    with pytest.raises(InputError, match="more than once"):
        Inheritance([3, 3], [1.0, 1.0], [1, 1], [1.0, 1.0])
