"""Shared helpers: tiny workloads from tuples, and Hypothesis strategies of random workloads."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from coschedlab import Workload

settings.register_profile(
    "default", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
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
