"""The WoAS metrics (issue 28): only workflows submitted in the analysis window count, the
utilization counts whole allocated nodes (ScSF's allocated CPUs), WoAS needs priorities, and
the size priorities of group A's chained and WoAS jobs at Edison scale."""

from __future__ import annotations

import math

import pytest
from _regular_jobs import regular
from hypothesis import given
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.platform import Cluster
from coschedlab.schedulers import Multifactor, Slurm
from coschedlab.workflows import (
    MODES,
    WorkflowWorkload,
    builtin,
    completed_in_all,
    expand,
    simulate_mode,
)
from coschedlab.workflows.model import Workflow
from coschedlab.workflows.simulate import DRAIN, check_woas

_regular = regular


#: two 24-core tasks in a chain, 100 s each (limits 120 s)
PAIR = Workflow.build("pair", [("S0", 24, 100, 120, ()), ("S1", 24, 100, 120, ("S0",))])


def warmup_and_window() -> WorkflowWorkload:
    """Two nodes of 24 cores, the window [1000, 100000). A regular job holds the machine
    from 0 to 500: the workflow submitted at 10 (warm-up) waits 490 s, the one submitted at
    2000 (in the window) none."""
    regular = _regular((1, 0, 500, 600, 48))
    return WorkflowWorkload(regular, [PAIR], [(10.0, 0), (2000.0, 0)],
                            Cluster.from_cores(2, 24), (1000.0, 100000.0))  # fmt: skip


def test_warm_up_workflows_are_shown_but_not_counted():
    runs = {m: simulate_mode(warmup_and_window(), m) for m in MODES}
    mask = completed_in_all({m: r.workflows for m, r in runs.items()})
    assert mask.tolist() == [False, True]
    for m, r in runs.items():
        s = r.summary()
        assert s["median_wait"] == 0.0, m  # not the median of 490 and 0
        assert s["median_turnaround"] == pytest.approx(200.0, abs=1), m
        assert s["workflows_compared"] == 1, m
        assert s["workflows_submitted"] == 1 and s["workflows_warmup"] == 1, m
        wf = r.workflows
        assert wf["wait"].tolist() == [490.0, 0.0], m  # the table shows both
        assert wf["completed"].tolist() == [True, True], m
        assert wf["in_window"].tolist() == [False, True], m


def test_window_workflows_and_jobs_count_when_they_end_in_the_drain():
    """ScSF ran its simulator 6 h past the workload's end and analysed the window's workflows
    that completed: a workflow submitted at 900 in the window [0, 1000) ends at 1100, in the
    drain, and counts; so does a regular job submitted at 950 that ends at 1150. With no drain
    neither would; the utilization stays over the window."""
    regular = _regular((1, 950, 200, 300, 24))
    ww = WorkflowWorkload(regular, [PAIR], [(900.0, 0)], Cluster.from_cores(2, 24),
                          (0.0, 1000.0))  # fmt: skip
    for m in MODES:
        r = simulate_mode(ww, m)
        assert r.stop == 1000.0 + DRAIN == 1000.0 + 6 * 3600, m
        s = r.summary()
        assert s["workflows_compared"] == 1, m
        assert s["median_turnaround"] == pytest.approx(200.0, abs=1), m
        assert s["jobs_small"] == 1, m
        assert s["utilization"] == pytest.approx((24 * 50 + 24 * 100) / (48 * 1000.0)), m
        cut = simulate_mode(ww, m, drain=0).summary()
        assert cut["workflows_compared"] == 0 and cut["jobs_small"] == 0, m
    late = simulate_mode(ww, "chained", drain=150)  # stops at 1150: S1 ends at 1100
    assert late.workflows["completed"].tolist() == [True]
    assert simulate_mode(ww, "chained", drain=None).stop == math.inf
    for bad in (-1, math.nan, math.inf):
        with pytest.raises(InputError, match="drain must be a time >= 0"):
            simulate_mode(ww, "chained", drain=bad)


def _row(mode: str, wait: list[float], in_window: list[bool]) -> dict:
    """A stored run of the sweep (workflows.sweep.run_one's shape)."""
    n = len(wait)
    return {
        "config": {
            "workflow_name": "pair",
            "kind": "share",
            "value": 0.1,
            "seed": 0,
            "mode": mode,
        },  # fmt: skip
        "summary": {
            "mode": mode,
            "actual_utilization": 0.5,
            "utilization": 0.5,
            "requested_core_utilization": 0.4,
            "waste_core_h": 0.0,
        },  # fmt: skip
        "workflows": {
            "submit": [10.0 * k for k in range(n)],
            "wait": wait,
            "runtime": [200.0] * n,
            "turnaround": [200.0 + w for w in wait],
            "gaps": [0.0] * n,
            "completed": [True] * n,
            "in_window": in_window,
        },  # fmt: skip
        "slowdowns": {"small": [], "medium": [], "large": []},
    }


def test_a_sweep_pools_window_workflows_only():
    from coschedlab.workflows.sweep import aggregate

    # group A32's case: the early workflows (warm-up) waited 0, the window's 3600 s
    waits = [0.0, 0.0, 0.0, 3600.0, 3600.0]
    inside = [False, False, False, True, True]
    df = aggregate([_row(m, waits, inside) for m in ("chained", "woas")])
    assert df["compared"].tolist() == [2, 2]
    assert df["median_wait_h"].tolist() == [1.0, 1.0]


def test_utilization_counts_whole_allocated_nodes():
    """A 1-core job holds a 24-core node: ScSF counts Slurm's allocated CPUs (24)."""
    regular = _regular((1, 0, 1000, 1000, 1))
    ww = WorkflowWorkload(regular, [], [], Cluster.from_cores(4, 24), (0.0, 1000.0))
    s = simulate_mode(ww, "chained").summary()
    assert s["utilization"] == pytest.approx(24 / 96)
    assert s["actual_utilization"] == pytest.approx(24 / 96)
    assert s["requested_core_utilization"] == pytest.approx(1 / 96)


def test_pilot_idle_is_its_nodes_minus_the_nodes_its_tasks_would_hold():
    """A 48-core task then a 1-core task (100 s each): the pilot holds 2 nodes for 200 s; its
    1-core task would hold one node as a job of its own, so one node idles for 100 s. The
    useful work counts the same in every mode (the tasks' allocated node-cores)."""
    wf = Workflow.build("wide-thin", [("S0", 48, 100, 100, ()), ("S1", 1, 100, 100, ("S0",))])
    ww = WorkflowWorkload(_regular(), [wf], [(0.0, 0)], Cluster.from_cores(4, 24),
                          (0.0, 1000.0))  # fmt: skip
    cap = 96 * 1000.0
    s = {m: simulate_mode(ww, m).summary() for m in MODES}
    assert s["pilot"]["utilization"] == pytest.approx(48 * 200 / cap)
    assert s["pilot"]["waste_core_h"] * 3600 == pytest.approx(24 * 100)
    for m in MODES:
        assert s[m]["actual_utilization"] == pytest.approx((48 * 100 + 24 * 100) / cap), m
        assert s[m]["requested_core_utilization"] == pytest.approx((48 + 1) * 100 / cap), m
    table = simulate_mode(ww, "pilot").workflows
    assert table["waste_core_s"].tolist() == pytest.approx([24 * 100])


def test_woas_refuses_a_slurm_without_priorities():
    """Under FIFO priority the inherited factors are never read: woas would be chained."""
    check_woas("slurm")  # multifactor: fine
    for spec in ("slurm:priority=fifo",
                 "slurm:priority_weight_age=0,priority_weight_job_size=0"):  # fmt: skip
        with pytest.raises(InputError, match="mode woas needs"):
            check_woas(spec)
        with pytest.raises(InputError, match="mode woas needs"):
            simulate_mode(warmup_and_window(), "woas", spec)


# -- group A32's size priorities at Edison scale -------------------------------------------------
#: Slurm's job-size term (priority_multifactor.c, PriorityFlags=SMALL_RELATIVE_TO_TIME,
#: PriorityFavorSmall=YES): 6e8 x (1 - max(nodes x 24, cpus) / limit_minutes / 133,824), age 0.
#: Chained first task, 240 cores (10 nodes) x 60 min: 6e8 x (1 - 4 / 133824) = 599,982,065.85;
#: the WoAS job, 240 cores x 1,920 min (32 x 1 h): 6e8 x (1 - 0.125 / 133824) = 599,999,439.56.
CHAINED_A32 = 599_982_065
WOAS_A32 = 599_999_439


def test_a32_size_priorities_known_answer():
    edison = Cluster.from_cores(5576, 24)
    f = Multifactor(total_cpus=edison.total_cores, cores_per_node=24)
    a32 = builtin("A32")
    first = a32.tasks[0]
    chained = f.priority(0.0, f.size(10, first.cores, first.limit), 0.0)
    woas = f.priority(0.0, f.size(10, a32.max_cores, a32.critical_path_limit), 0.0)
    assert (chained, woas) == (CHAINED_A32, WOAS_A32)
    assert woas - chained == 17_374  # the WoAS job is the better one, by 17,374 points

    # the scheduler gives the submitted jobs those priorities (WoAS: inherited geometry)
    from coschedlab.engine.kernel import Simulation

    ww = WorkflowWorkload(_regular(), [a32], [(0.0, 0)], edison, (0.0, 3600.0))
    got = {}
    for mode in ("chained", "woas"):
        ex = expand(ww, mode)
        sched = Slurm(inherit=ex.inherit if mode == "woas" else None)
        Simulation(ex.workload, edison, sched, until=1.0).run()
        got[mode] = sched.priority_of(0, 0.0)  # view index 0: the first task
    assert got == {"chained": CHAINED_A32, "woas": WOAS_A32}


@given(st.lists(st.one_of(st.floats(-1e9, 1e9), st.just(math.nan)), max_size=40))
def test_the_summary_median_is_pandas_median(values):
    """A summary's medians come from arrays (:func:`.metrics.median`): the same figures as
    pandas' ``Series.median`` over the table's column (NaN skipped; NaN when none is left)."""
    import numpy as np
    import pandas as pd

    from coschedlab.workflows.metrics import median

    want = pd.Series(values, dtype=np.float64).median()
    got = median(np.asarray(values, dtype=np.float64))
    assert (math.isnan(got) and math.isnan(want)) or got == want


def test_a_summary_is_the_tables_medians():
    """The summary reads the columns of the workflow and slowdown tables without making them:
    its figures are those of the tables (pandas) it would have read."""
    ww = warmup_and_window()
    for m in MODES:
        r = simulate_mode(ww, m)
        s = r.summary(only=[True, True])  # ``only`` keeps to the window: the second one
        wf, sd = r.workflows, r.slowdowns
        inside = wf["in_window"].to_numpy(bool)
        sel = wf[inside]
        for col in ("wait", "runtime", "turnaround", "stretch", "gaps"):
            assert s[f"median_{col}"] == float(sel[col].median()), (m, col)
        for name in ("small", "medium", "large"):
            g = sd["slowdown"][sd["group"] == name]
            assert s[f"jobs_{name}"] == len(g), m
            assert math.isnan(s[f"median_slowdown_{name}"]) == (len(g) == 0), m


def test_a_workflow_run_and_its_summary_import_no_pandas():
    """The WoAS experiment (generate, simulate a mode, summarise) reads arrays only: pandas
    (a third of a second to import) is loaded only when a table is asked for, and numpy.ma
    (np.unique's and np.median's, ~10 ms at their first call) never."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from coschedlab.workflows import builtin, generate, simulate_mode\n"
        "from coschedlab.workflows.workload import machine_of\n"
        "ww = generate(builtin('cybershake'), cluster=machine_of('64x24'), share=0.2, seed=1,"
        " warmup=3600.0, window=4 * 3600.0, target_wait=600.0)\n"
        "s = simulate_mode(ww, 'woas').summary()\n"
        "assert simulate_mode(ww, 'pilot').summary()['workflows_submitted'] > 0\n"
        "assert s['workflows_submitted'] > 0, s\n"
        "print('pandas' in sys.modules, 'numpy.ma' in sys.modules)\n"
        "run = simulate_mode(ww, 'chained')\n"
        "print(len(run.workflows) == s['workflows_submitted'] + s['workflows_warmup'])\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "True"]


def test_a_partial_sweep_names_the_gains_in_the_order_its_groups_ran_them():
    """summary.csv's gain columns come in the order the first group having each pair names
    them: a share whose pilot run is missing gives speedup_over_chained first."""
    from coschedlab.workflows.sweep import aggregate

    rows = []
    for value, modes in ((0.1, ("chained", "woas")), (0.2, ("chained", "pilot", "woas"))):
        for m in modes:
            rows.append(_row(m, [100.0 * (1 + (m == "woas"))], [True]))
            rows[-1]["config"]["value"] = value
            rows[-1]["summary"]["actual_utilization"] = 0.5 + 0.1 * (m == "woas")
    df = aggregate(rows)
    gains = ["speedup_over_chained", "speedup_over_pilot", "utilization_gain_over_pilot"]
    assert [c for c in df.columns if "over" in c] == gains
    woas = df[df["mode"] == "woas"]
    assert woas["speedup_over_chained"].tolist() == [0.75, 0.75]  # 300 s / 400 s
    assert math.isnan(woas["speedup_over_pilot"].iloc[0])
    assert woas["utilization_gain_over_pilot"].iloc[1] == pytest.approx(10.0)
    assert df[df["mode"] != "woas"][gains].isna().all().all()
