"""Shared helpers: tiny workloads from tuples, and Hypothesis strategies of random workloads."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from coschedlab import Workload

# derandomize: the same examples on every run, so that the suite's time and outcome do not
# depend on the draw (a run that once drew many slow cases took minutes more); the "ci"
# profile, HYPOTHESIS_PROFILE=ci, draws fresh random examples, three times as many
settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("ci", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def workload(*rows: tuple) -> Workload:
    """Jobs as (id, submit, run, requested_time, procs) tuples."""
    return Workload.from_records(rows)


@st.composite
def workloads(draw, max_jobs: int = 25, max_procs: int = 8, estimates: str = "any", min_req=0):
    """Random workloads; ``estimates``: "exact" (run == requested), "early" (run <= requested)
    or "any" (some jobs overrun their request)."""
    n = draw(st.integers(1, max_jobs))
    rows = []
    t = 0
    for i in range(n):
        t += draw(st.integers(0, 30))
        run = draw(st.integers(0, 100))
        if estimates == "exact":
            req = run
        elif estimates == "early":
            req = run + draw(st.integers(0, 60))
        else:
            req = max(0, run + draw(st.integers(-40, 60)))
        req = max(req, min_req)
        procs = draw(st.integers(1, max_procs))
        rows.append((i + 1, t, run, req, procs))
    return workload(*rows)


@st.composite
def workflow_dags(draw, max_tasks: int = 12, max_deps: int = 3, cores=(1, 16), runs=(0, 100),
                  slack=(1, 50), prefix: str = "t", core_unit: int = 1):  # fmt: skip
    """Random workflows: task k depends on up to ``max_deps`` earlier tasks; cores are
    ``core_unit`` x an integer in ``cores``; limit = run + an integer in ``slack``."""
    from coschedlab.workflows import Workflow

    n = draw(st.integers(1, max_tasks))
    rows = []
    for k in range(n):
        deps = draw(st.lists(st.integers(0, k - 1), max_size=max_deps, unique=True)) if k else []
        run = draw(st.integers(*runs))
        cores_k = core_unit * draw(st.integers(*cores))
        limit = float(run + draw(st.integers(*slack)))
        rows.append(
            (f"{prefix}{k}", cores_k, float(run), limit, tuple(f"{prefix}{d}" for d in deps))
        )
    return Workflow.build("random", rows)
