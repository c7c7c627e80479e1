"""Metrics: hand-computed known answers and properties."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.metrics import (
    SPEEDUP_TOLERANCE,
    busy_cores,
    colocation_summary,
    improvement,
    job_metrics,
    queue_size,
    running_jobs,
    simulator_speed,
    summary,
    throughput,
    utilization,
)

# Three jobs on 4 cores (the textbook EASY micro trace, as EASY runs it):
# J1 submit 10 start 10 end 110, 3 cores; J2 11/110/210, 4 cores; J3 12/210/1210, 1 core.
EASY = pd.DataFrame(
    {
        "job_id": [1, 2, 3],
        "submit": [10.0, 11.0, 12.0],
        "start": [10.0, 110.0, 210.0],
        "end": [110.0, 210.0, 1210.0],
        "procs": [3, 4, 1],
    }
)


def test_job_metrics_known_values():
    m = job_metrics(EASY)
    assert m["wait"].tolist() == [0.0, 99.0, 198.0]
    assert m["response"].tolist() == [100.0, 199.0, 1198.0]
    assert m["run"].tolist() == [100.0, 100.0, 1000.0]
    assert m["slowdown"].tolist() == pytest.approx([1.0, 1.99, 1.198])
    assert m["bounded_slowdown"].tolist() == pytest.approx([1.0, 1.99, 1.198])
    assert "wait" not in EASY.columns  # input untouched


def test_zero_and_short_runs():
    frame = pd.DataFrame(
        {
            "submit": [0.0, 0.0, 0.0],
            "start": [5.0, 0.0, 20.0],
            "end": [5.0, 2.0, 24.0],
            "procs": [1, 1, 1],
        }
    )
    m = job_metrics(frame)
    assert np.isnan(m["slowdown"][0])  # run 0: undefined
    assert m["slowdown"].tolist()[1:] == [1.0, 6.0]
    # max(1, response / max(run, 10)): 5/10 -> 1, 2/10 -> 1, 24/10 = 2.4
    assert m["bounded_slowdown"].tolist() == [1.0, 1.0, 2.4]
    assert job_metrics(frame, tau=1.0)["bounded_slowdown"].tolist() == [5.0, 1.0, 6.0]
    s = summary(frame, 4)
    assert s["slowdown_undefined"] == 1
    assert s["slowdown_mean"] == pytest.approx(3.5)
    assert s["bounded_slowdown_max"] == pytest.approx(2.4)


def test_summary_known_values():
    s = summary(EASY, total_cores=4)
    assert s["n_jobs"] == 3
    assert s["first_submit"] == 10.0 and s["last_end"] == 1210.0
    assert s["makespan"] == 1200.0
    # (3*100 + 4*100 + 1*1000) / (4 * 1200)
    assert s["utilization"] == pytest.approx(1700 / 4800)
    assert s["throughput_jobs_per_hour"] == pytest.approx(3 / (1200 / 3600))
    assert s["wait_mean"] == pytest.approx(99.0)
    assert s["wait_median"] == 99.0
    assert s["wait_max"] == 198.0
    # linear interpolation: p90 of [0, 99, 198] = 99 + 0.8 * 99
    assert s["wait_p90"] == pytest.approx(178.2)
    assert s["wait_p95"] == pytest.approx(188.1)
    assert s["wait_p99"] == pytest.approx(196.02)
    assert s["response_mean"] == pytest.approx((100 + 199 + 1198) / 3)
    assert s["slowdown_max"] == pytest.approx(1.99)
    assert s["bounded_slowdown_median"] == pytest.approx(1.198)
    assert s["slowdown_undefined"] == 0


def test_utilization_until_queue_empty():
    # EASY: queue empty from the last start (210); busy 3 cores on [10, 110), 4 on [110, 210)
    s = summary(EASY, total_cores=4)
    assert s["utilization_until_queue_empty"] == pytest.approx((3 * 100 + 4 * 100) / (4 * 200))
    # J1 4 cores [0,10), J2 2 cores [2,6), J3 8 cores [10,20) submitted at 3: 48 core-s by 10
    frame = pd.DataFrame(
        {
            "submit": [0.0, 2.0, 3.0],
            "start": [0.0, 2.0, 10.0],
            "end": [10.0, 6.0, 20.0],
            "procs": [4, 2, 8],
        }
    )
    s = summary(frame, 8)
    assert s["utilization"] == pytest.approx(128 / (8 * 20))
    assert s["utilization_until_queue_empty"] == pytest.approx(48 / (8 * 10))
    # everything starts at the first submit: the whole-run utilization
    one = summary(pd.DataFrame({"submit": [0.0], "start": [0.0], "end": [5.0], "procs": [2]}), 4)
    assert one["utilization_until_queue_empty"] == one["utilization"] == 0.5


def test_summary_tau_is_a_parameter():
    frame = pd.DataFrame({"submit": [0.0], "start": [8.0], "end": [10.0], "procs": [1]})
    assert summary(frame, 1)["bounded_slowdown_mean"] == pytest.approx(10 / 10)
    assert summary(frame, 1, tau=1.0)["bounded_slowdown_mean"] == pytest.approx(10 / 2)


def test_colocation_summary_one_tolerance():
    # compact jobs have speedup 1 up to float rounding (1 - 1e-13): not slower; 0.99 is slower
    speedups = [1.0, 1.0 - 1e-13, 0.99, 1.25, np.nan]  # NaN: a job of run time 0, left out
    frame = {
        "speedup": np.array(speedups),
        "killed": np.array([False, False, True, False, False]),
        "placement": np.array(["compact", "compact", "spread", "spread", "compact"]),
    }
    m = colocation_summary(frame)
    assert m["slower_than_compact"] == pytest.approx(1 / 4)
    assert m["speedup_mean"] == pytest.approx((2 - 1e-13 + 0.99 + 1.25) / 4)
    assert m["speedup_median"] == pytest.approx(1.0)
    assert m["killed_share"] == pytest.approx(1 / 5)
    assert m["spread_share"] == pytest.approx(2 / 5)
    # the tolerance's edge: just inside counts as 1, just outside as slower
    inside = colocation_summary({"speedup": np.array([1 - 0.5 * SPEEDUP_TOLERANCE])})
    outside = colocation_summary({"speedup": np.array([1 - 2 * SPEEDUP_TOLERANCE])})
    assert inside["slower_than_compact"] == 0.0 and outside["slower_than_compact"] == 1.0
    assert colocation_summary(EASY) == {}  # no co-location columns: no co-location numbers


def test_improvement_known_values():
    faster = EASY.assign(start=[10.0, 110.0, 110.0], end=[110.0, 210.0, 1110.0])
    imp = improvement(faster, EASY)
    assert imp["makespan_improvement"] == pytest.approx(100 * 100 / 1200)
    assert imp["wait_improvement"] == pytest.approx(100 * 100 / 297)
    assert imp["turnaround_improvement"] == pytest.approx(100 * 100 / 1497)
    assert improvement(EASY, EASY) == {
        "makespan_improvement": 0.0,
        "turnaround_improvement": 0.0,
        "wait_improvement": 0.0,
    }


def test_summary_uses_cores_column():
    frame = EASY.assign(cores=[4, 4, 4])  # e.g. whole-node allocation
    assert summary(frame, 4)["utilization"] == pytest.approx(4 * 1200 / 4800)


def test_summary_one_job():
    frame = pd.DataFrame({"submit": [5.0], "start": [7.0], "end": [17.0], "procs": [2]})
    s = summary(frame, 8)
    assert s["n_jobs"] == 1
    assert s["makespan"] == 12.0
    assert s["utilization"] == pytest.approx(20 / 96)
    assert s["wait_mean"] == s["wait_p99"] == s["wait_max"] == 2.0
    assert s["bounded_slowdown_mean"] == pytest.approx(1.2)


def test_summary_zero_makespan():
    frame = pd.DataFrame({"submit": [3.0], "start": [3.0], "end": [3.0], "procs": [2]})
    s = summary(frame, 8)
    assert s["makespan"] == 0.0 and s["utilization"] == 0.0
    assert np.isnan(s["throughput_jobs_per_hour"])
    assert np.isnan(s["slowdown_mean"]) and s["bounded_slowdown_mean"] == 1.0


@pytest.mark.parametrize(
    "frame, match",
    [
        (EASY.iloc[0:0], "empty"),
        (EASY.drop(columns="start"), "missing column"),
        (EASY.assign(start=[10.0, np.nan, 210.0]), "job 2 has no finite start"),
        (EASY.assign(start=[9.0, 110.0, 210.0]), "job 1 starts before it is submitted"),
        (EASY.assign(end=[110.0, 100.0, 1210.0]), "job 2 ends before it starts"),
    ],
)
def test_summary_bad_input(frame, match):
    with pytest.raises(InputError, match=match):
        summary(frame, 4)


def test_summary_bad_arguments():
    with pytest.raises(InputError, match="total_cores"):
        summary(EASY, 0)
    with pytest.raises(InputError, match="tau"):
        summary(EASY, 4, tau=0)


def test_series_known_values():
    q = queue_size(EASY)
    assert q.t.tolist() == [10.0, 11.0, 12.0, 110.0, 210.0]
    assert q.v.tolist() == [0, 1, 2, 1, 0]
    r = running_jobs(EASY)
    assert r.t.tolist() == [10.0, 110.0, 210.0, 1210.0]
    assert r.v.tolist() == [1, 1, 1, 0]
    assert busy_cores(EASY).v.tolist() == [3, 4, 1, 0]
    assert utilization(EASY, 4).v.tolist() == [0.75, 1.0, 0.25, 0.0]
    t = throughput(EASY)
    assert t.t.tolist() == [110.0, 210.0, 1210.0]
    assert t.v.tolist() == [1, 2, 3]


def test_series_simultaneous_events():
    frame = pd.DataFrame(
        {
            "submit": [0.0, 0.0, 0.0],
            "start": [0.0, 5.0, 5.0],
            "end": [5.0, 5.0, 9.0],
            "procs": [2, 1, 1],
        }
    )
    assert queue_size(frame).v.tolist() == [2, 0]
    u = busy_cores(frame)
    assert u.t.tolist() == [0.0, 5.0, 9.0]
    assert u.v.tolist() == [2, 1, 0]
    assert throughput(frame).v.tolist() == [2, 3]


def test_simulator_speed():
    s = simulator_speed(makespan_s=86400 * 10, wall_s=1800, n_jobs=9000)
    assert s == {"days_per_hour": 20.0, "jobs_per_s": 5.0}
    with pytest.raises(InputError):
        simulator_speed(1.0, 0.0, 1)


@pytest.mark.slow
def test_million_jobs_fast():
    n = 1_000_000
    rng = np.random.default_rng(0)
    submit = rng.uniform(0, 1e7, n)
    start = submit + rng.exponential(100, n)
    frame = pd.DataFrame(
        {
            "submit": submit,
            "start": start,
            "end": start + rng.exponential(1000, n),
            "procs": rng.integers(1, 64, n),
        }
    )
    t0 = time.perf_counter()
    summary(frame, 4096)
    queue_size(frame)
    utilization(frame, 4096)
    throughput(frame)
    elapsed = time.perf_counter() - t0
    assert elapsed < 3.0  # about 0.5 s here; generous for a loaded machine


# -- properties ---------------------------------------------------------------------------
@st.composite
def schedules(draw, n_cores=8):
    """Random valid schedules on ``n_cores`` cores, built by a greedy list scheduler."""
    n = draw(st.integers(1, 25))
    jobs = []
    t = 0.0
    for _ in range(n):
        t += draw(st.sampled_from([0.0, 0.5, 1.0, 7.0, 100.0]))
        run = draw(st.sampled_from([0.0, 1.0, 3.5, 10.0, 60.0]))
        procs = draw(st.integers(1, n_cores))
        jobs.append((t, run, procs))
    # place each job at the earliest time >= submit (and >= previous start) where it fits
    placed: list[tuple[float, float, int]] = []
    last_start = 0.0
    for submit, run, procs in jobs:
        candidates = sorted({max(submit, last_start)} | {e for _, e, _ in placed if e > submit})
        for c in candidates:
            if c < max(submit, last_start):
                continue
            points = {c} | {s for s, _, _ in placed if c < s < c + run}
            if all(sum(p for s, e, p in placed if s <= x < e) + procs <= n_cores for x in points):
                placed.append((c, c + run, procs))
                last_start = c
                break
    frame = pd.DataFrame(
        {
            "submit": [j[0] for j in jobs],
            "start": [p[0] for p in placed],
            "end": [p[1] for p in placed],
            "procs": [p[2] for p in placed],
        }
    )
    return frame


@settings(max_examples=150, deadline=None)
@given(frame=schedules())
def test_properties(frame):
    s = summary(frame, 8)
    assert 0.0 <= s["utilization"] <= 1.0 + 1e-12
    m = job_metrics(frame)
    assert (m["bounded_slowdown"] >= 1.0).all()
    assert (m["wait"] >= 0).all()
    sd = m["slowdown"].dropna()
    assert (sd >= 1.0 - 1e-12).all()
    q = queue_size(frame)
    assert (q.v >= 0).all() and q.v[-1] == 0
    assert (np.diff(q.t) > 0).all()
    u = busy_cores(frame)
    assert (u.v >= 0).all() and (u.v <= 8).all()
    assert u.v[-1] == 0
    # area under the busy-cores step function = total work
    area = float(np.sum(u.v[:-1] * np.diff(u.t)))
    assert area == pytest.approx(float((frame["procs"] * (frame["end"] - frame["start"])).sum()))
    thr = throughput(frame)
    assert thr.v[-1] == len(frame)
    assert (np.diff(thr.v) >= 0).all()
    r = running_jobs(frame)
    assert (r.v >= 0).all() and r.v[-1] == 0


# -- the order statistics of summary() without np.median / np.percentile (no numpy.ma) ------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), min_size=1, max_size=200),
    st.lists(st.floats(min_value=0, max_value=100), min_size=1, max_size=4),
)
def test_percentiles_are_numpys_median_and_percentiles(values, qs):
    """The same floats as ``np.median`` and ``np.percentile`` (linear), the oracle."""
    import numpy as np

    from coschedlab.metrics import percentiles

    a = np.array(values, dtype=np.float64)
    median, got = percentiles(a.copy(), tuple(qs))
    assert median == float(np.median(a))
    assert got == [float(x) for x in np.percentile(a, qs)]


def test_summary_does_not_import_numpy_ma():
    """metrics.json's order statistics do not load ``numpy.ma`` (np.unique would)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from coschedlab.metrics import summary\n"
        "t = {'submit': np.arange(9.0), 'start': np.arange(9.0) + 3, 'end': np.arange(9.0) * 2 + 9,"
        " 'procs': np.ones(9)}\n"
        "m = summary(t, 4)\n"
        "assert m['wait_median'] == 3.0, m\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def _step_sum_textbook(starts, ends, weights):
    """step_sum's oracle: every event (a start adds its weight, an end takes it away), in
    time order (starts before ends at one instant, each in job order), summed one by one in
    Python floats; the level after the last event of each instant; unknown times left out."""
    events = [(s, w) for s, w in zip(starts, weights, strict=True)]
    events += [(e, -w) for e, w in zip(ends, weights, strict=True)]
    events = sorted((ev for ev in events if math.isfinite(ev[0])), key=lambda ev: ev[0])
    times, levels, level = [], [], 0.0
    for k, (t, w) in enumerate(events):
        level += w
        if k + 1 == len(events) or events[k + 1][0] != t:
            times.append(t)
            levels.append(level)
    big = max([abs(float(w)) for w in weights], default=0.0)
    levels = [0.0 if abs(v) < 1e-9 * max(1.0, big) else v for v in levels]
    return times, levels


@settings(max_examples=200, deadline=None)
@given(
    jobs=st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.25, math.nan]),
            st.sampled_from([0.0, 0.5, 2.0, 10.0]),
            st.one_of(st.integers(1, 64).map(float), st.floats(0.01, 100.0)),
        ),
        max_size=30,
    ),
    scalar=st.booleans(),
)
def test_step_sum_is_the_textbook_sweep(jobs, scalar):
    """step_sum's sweep (the ends' weights negated in place, no array of every event's
    weight) gives the textbook sweep's instants and levels, bit for bit."""
    from coschedlab.metrics import step_sum

    starts = np.array([j[0] for j in jobs], dtype=float)
    ends = starts + np.array([j[1] for j in jobs], dtype=float)
    weights = 1.5 if scalar else np.array([j[2] for j in jobs], dtype=float)
    s = step_sum(starts, ends, weights)
    t, v = _step_sum_textbook(starts, ends, [weights] * len(jobs) if scalar else weights)
    assert s.t.tolist() == t
    assert s.v.tolist() == v


def _integral_by_mask(series, t0, t1):
    """Series.integral's oracle: the instants inside (t0, t1) by a mask, the level at each
    edge by ``at``, the products summed by NumPy."""
    if t1 <= t0 or not len(series.t):
        return 0.0
    edges = np.concatenate(([t0], series.t[(series.t > t0) & (series.t < t1)], [t1]))
    return float((np.diff(edges) * series.at(edges[:-1])).sum())


@settings(max_examples=200, deadline=None)
@given(
    t=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, 8.0, 100.0]), max_size=25),
    v=st.lists(st.floats(-50, 50), min_size=25, max_size=25),
    t0=st.sampled_from([-1.0, 0.0, 0.7, 2.0, 9.0]),
    span=st.sampled_from([0.0, 0.3, 1.0, 5.0, 200.0]),
    unique=st.booleans(),
)
def test_series_integral_is_the_masked_sum(t, v, t0, span, unique):
    """The integral of a step function (its slice of instants, its own values when no instant
    repeats; else ``at`` of each edge) is the masked textbook sum, bit for bit."""
    from coschedlab.metrics import Series

    times = np.array(sorted(set(t)) if unique else sorted(t), dtype=float)
    s = Series(times, np.array(v[: len(times)], dtype=float))
    assert s.integral(t0, t0 + span) == _integral_by_mask(s, t0, t0 + span)
