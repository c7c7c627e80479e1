"""The validator finds each kind of broken schedule (and accepts the real ones)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import workload
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster, InputError, Workload, simulate, validate_jobs
from coschedlab.validator import GUARANTEES, check_jobs


def micro(spec="easy"):
    w = workload((1, 10, 100, 100, 3), (2, 11, 100, 100, 4), (3, 12, 1000, 1000, 1))
    return simulate(w, Cluster(4), spec)


def test_real_schedules_are_valid():
    for spec in ("fcfs", "easy", "conservative"):
        assert micro(spec).validate() == []


def test_a_delayed_easy_head_is_caught():
    r = micro()
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [150.0, 250.0]
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [250.0, 1250.0]
    errors = validate_jobs(jobs, r.cluster, guarantees=("head", "reservations"))
    assert any("EASY delayed head job 2" in e and "shadow time 110" in e for e in errors)
    # the same table is fine for FCFS, which makes no promise
    assert validate_jobs(jobs, r.cluster, guarantees=()) == []


def test_over_allocation_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [50.0, 150.0]  # overlaps job 1's nodes
    errors = validate_jobs(jobs, r.cluster)
    assert any("nodes in use" in e for e in errors)


def test_wrong_node_count_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 1, "alloc"] = "0-1"
    errors = validate_jobs(jobs, r.cluster)
    assert any("holds 2 nodes" in e for e in errors)


def test_unfinished_job_is_caught():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 3, "end"] = float("nan")
    assert any("never started or never ended" in e for e in validate_jobs(jobs, r.cluster))


# -- dependencies, read from the table ---------------------------------------------------------


def chain():
    """Job 2 follows job 1 (30 s think time), job 3 follows job 2."""
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs["deps"] = ["", "1", "2"]
    jobs["think"] = [0.0, 30.0, 0.0]
    jobs["start"] = [10.0, 140.0, 240.0]
    jobs["end"] = jobs["start"] + [100.0, 100.0, 1000.0]
    return jobs, r.cluster


def test_dependencies_from_the_table_are_kept():
    jobs, cluster = chain()
    rep = check_jobs(jobs, cluster)
    assert rep.ok and "dependencies" in rep.checked


def test_a_job_started_before_its_parent_ends_is_caught():
    jobs, cluster = chain()
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [200.0, 1200.0]  # job 2 ends at 240
    assert validate_jobs(jobs, cluster) == [
        "job 3 starts at 200.0 before its dependency 2 ends at 240.0"
    ]


def test_the_think_time_counts():
    jobs, cluster = chain()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [120.0, 220.0]  # parent ends at 110, + 30
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [220.0, 1220.0]
    errors = validate_jobs(jobs, cluster)
    assert errors == ["job 2 starts at 120.0 before its dependency 1 ends at 110.0 (+ think 30)"]


def test_a_parent_missing_from_the_table_is_reported():
    jobs, cluster = chain()
    jobs.loc[jobs.job_id == 3, "deps"] = "2 99"
    errors = validate_jobs(jobs, cluster)
    assert errors == ["job 3 depends on job 99, which is not in the table"]


def test_dependencies_given_as_a_mapping():
    r = micro("fcfs")  # job 1 starts at 10, job 2 ends at 210
    assert validate_jobs(r.jobs, r.cluster, deps={3: (2,)}) == []
    assert validate_jobs(r.jobs, r.cluster, deps={1: (2,)}) == [
        "job 1 starts at 10.0 before its dependency 2 ends at 210.0"
    ]
    with pytest.raises(InputError, match="job 7, which is not in the table"):
        validate_jobs(r.jobs, r.cluster, deps={7: (1,)})


def test_result_validate_checks_dependencies_of_a_simulated_run():
    w = workload((1, 0, 100, 100, 1), (2, 5, 10, 10, 1))
    w = Workload(w.columns, {2: (1,)})
    r = simulate(w, Cluster(4), "easy")
    assert r.jobs.deps.tolist() == ["", "1"] and r.validate() == []
    r.jobs.loc[r.jobs.job_id == 2, ["start", "end"]] = [50.0, 60.0]
    assert any("before its dependency 1" in e for e in r.validate())


def test_the_orders_by_start_and_end_are_sorted_once_for_the_validator_and_the_summary():
    """validate() keeps its orders of the rows for the metrics' sweep, which takes them: the
    same metrics as a result never validated; a wrong order given is refused, not a verdict."""
    rng = np.random.default_rng(3)
    rows = [(k, float(rng.integers(0, 500)), float(rng.integers(0, 300)), 400.0,
             int(rng.integers(1, 5))) for k in range(1, 200)]  # fmt: skip
    a, b = (simulate(workload(*rows), Cluster(4), "easy") for _ in range(2))
    assert a.validate() == []
    assert "_orders" in a.__dict__
    m = a.metrics
    assert "_orders" not in a.__dict__  # (taken: not kept while writing)
    timing = ("wall_time_s", "jobs_per_s", "days_per_hour")
    assert {k: v for k, v in m.items() if k not in timing} == {
        k: v for k, v in b.metrics.items() if k not in timing
    }
    assert a.validate() == [] and "_orders" not in a.__dict__  # (metrics made: not kept)
    orders = a._time_orders()
    bad = orders["start"].copy()
    bad[[0, -1]] = bad[[-1, 0]]
    with pytest.raises(ValueError, match="not a stable order"):
        a.validate(orders={**orders, "start": bad})


# -- guarantees decide which checks run --------------------------------------------------------


def delayed_head():
    r = micro()
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [150.0, 250.0]
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [250.0, 1250.0]
    return jobs, r.cluster


def test_the_head_check_runs_only_when_guaranteed():
    jobs, cluster = delayed_head()
    rep = check_jobs(jobs, cluster, guarantees=["head"])
    assert rep.checked == ["times", "capacity", "per-node overlap", "head"]
    assert len(rep.violations) == 1 and "EASY delayed head job 2" in rep.violations[0]
    # the scheduler's name no longer decides anything
    rep = check_jobs(jobs, cluster, scheduler="easy")
    assert rep.ok and "head" not in rep.checked


def test_reservations_against_reservations_exact():
    r = micro()  # every job ends exactly at its estimate
    jobs = r.jobs.copy()
    jobs["reservation"] = [float("nan"), 10.0, float("nan")]  # job 2 started at 110
    for g in ("reservations", "reservations-exact"):
        rep = check_jobs(jobs, r.cluster, guarantees=[g])
        assert rep.violations == ["job 2 started at 110.0, after its reservation at 10.0"]
        assert g in rep.checked
    # a job ending before its estimate: only "reservations" still promises
    jobs.loc[jobs.job_id == 3, "requested_time"] = 2000.0
    rep = check_jobs(jobs, r.cluster, guarantees=["reservations-exact"])
    assert rep.ok and any("ended early" in n for n in rep.not_checked)
    assert not check_jobs(jobs, r.cluster, guarantees=["reservations"]).ok
    # a job overrunning its estimate: no reservation is promised
    jobs.loc[jobs.job_id == 3, "requested_time"] = 10.0
    rep = check_jobs(jobs, r.cluster, guarantees=["reservations"])
    assert rep.ok and any("ran past its requested time" in n for n in rep.not_checked)


def test_a_guarantee_that_cannot_be_checked_says_why():
    jobs, cluster = delayed_head()
    rep = check_jobs(jobs.drop(columns="reservation"), cluster, guarantees=["reservations"])
    assert rep.ok and rep.not_checked == ["reservations (no reservation column)"]


def test_unknown_guarantee_lists_the_known_ones():
    r = micro()
    with pytest.raises(InputError, match="unknown guarantee 'easy'.*head, reservations, "):
        validate_jobs(r.jobs, r.cluster, guarantees=["easy"])
    assert set(GUARANTEES) == {"head", "reservations", "reservations-exact"}


def test_the_simulated_guarantees_are_checked():
    r = micro("easy")
    assert r.guarantees == ("head", "reservations")
    r.jobs.loc[r.jobs.job_id == 2, ["start", "end"]] = [150.0, 250.0]
    r.jobs.loc[r.jobs.job_id == 3, ["start", "end"]] = [250.0, 1250.0]
    assert any("EASY delayed head job 2" in e for e in r.validate())


# -- allocations -------------------------------------------------------------------------------


def test_two_jobs_on_one_node_are_named():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 1, "alloc"] = "0-2"  # job 1 [10, 110) on 3 nodes
    jobs.loc[jobs.job_id == 2, "alloc"] = "2-5"  # job 2 on 4 nodes, moved to [100, 200)
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [100.0, 200.0]
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [200.0, 1200.0]
    errors = validate_jobs(jobs, Cluster(8))
    assert errors == ["node 2 is given to job 1 [10.0, 110.0) and to job 2 [100.0, 200.0) at once"]


def test_a_bad_allocation_text_names_the_job():
    r = micro("fcfs")
    jobs = r.jobs.copy()
    jobs.loc[jobs.job_id == 2, "alloc"] = "0-x"
    with pytest.raises(InputError, match="job 2: bad node list '0-x'"):
        validate_jobs(jobs, r.cluster)


def test_a_missing_column_is_an_input_error():
    r = micro("fcfs")
    with pytest.raises(InputError, match="no column.*start"):
        validate_jobs(r.jobs.drop(columns="start"), r.cluster)


def _capacity_textbook(start, end, nodes, capacity, ids):
    """_check_capacity's oracle: every end (its nodes given back) before every start at one
    instant, each kind in job order; the first instant the running sum exceeds the machine."""
    events = sorted(
        [(float(e), 0, j, -int(nodes[j])) for j, e in enumerate(end)]
        + [(float(s), 1, j, int(nodes[j])) for j, s in enumerate(start)]
    )
    used = 0
    for t, _, j, change in events:
        used += change
        if used > capacity:
            return [f"{used} nodes in use at t={t} on a machine of {capacity} nodes "
                    f"(when job {ids[j]} starts)"]  # fmt: skip
    return []


@settings(max_examples=200, deadline=None)
@given(
    jobs=st.lists(
        st.tuples(
            st.sampled_from([0.0, 1.0, 2.5, 4.0]),
            st.sampled_from([0.0, 1.0, 1.5]),
            st.integers(1, 4),
        ),  # fmt: skip
        max_size=12,
    ),
    capacity=st.integers(1, 8),
)
def test_capacity_sweep_is_the_textbook_sweep(jobs, capacity):
    """The capacity check (a stable sort of the ends then the starts, each event's nodes
    negated in place) finds the textbook sweep's first violation: its count, time and job."""
    from coschedlab.validator import _check_capacity

    start = np.array([j[0] for j in jobs], dtype=float)
    end = start + np.array([j[1] for j in jobs], dtype=float)
    nodes = np.array([j[2] for j in jobs], dtype=np.int64)
    ids = np.arange(100, 100 + len(jobs))
    assert _check_capacity(start, end, nodes, capacity, ids) == _capacity_textbook(
        start, end, nodes, capacity, ids
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0, float("nan")]), st.integers(0, 3)),
                max_size=12))  # fmt: skip
def test_queue_order_is_the_lexsort_whether_or_not_the_rows_are_in_order(rows):
    """The rows' queue order (submit, id, row): its shortcut for rows already in that order
    gives the same as the sort, ties, equal ids and NaN submits included."""
    from coschedlab.validator import _queue_order

    submit = np.array([r[0] for r in rows], dtype=float)
    ids = np.array([r[1] for r in rows], dtype=np.int64)
    want = np.lexsort((np.arange(len(ids)), ids, submit))
    assert _queue_order(None, ids, submit).tolist() == want.tolist()
    key = np.lexsort((ids, submit))  # the same rows sorted: the shortcut's case
    assert _queue_order(None, ids[key], submit[key]).tolist() == list(range(len(ids)))


_ID_KINDS = ["int", "float", "text", "huge"]


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(_ID_KINDS),
    base=st.lists(st.integers(0, 40), max_size=25),
    data=st.data(),
)
def test_the_dependency_lookup_matches_its_python_oracle(kind, base, data):
    """``validator._parents`` finds parents in NumPy (bound23; was a Python dict of every
    job's id text, most of a workflow run's validation): the same edges, think times and
    unknown parents as the dict, for ids of every kind, odd separators, repeated ids, names
    that are not an id's own text ("012", "+3", "1.0", beyond int64) and the ``deps`` map."""
    import pandas as pd
    from validator_oracle import parents

    from coschedlab.validator import _parents

    ids = {
        "int": np.asarray(base, dtype=np.int64),
        "float": np.asarray(base, dtype=float),
        "text": np.asarray([f"j{b}" for b in base], dtype=object),
        "huge": np.asarray([10**20 + b for b in base], dtype=object),
    }[kind]
    own = {"int": str, "float": lambda b: str(float(b)), "text": "j{}".format,
           "huge": lambda b: str(10**20 + b)}[kind]  # fmt: skip
    odd = st.sampled_from(["012", "+3", "1.0", "3 ", str(2**70), "x", "-1", ""])
    name = st.one_of(st.integers(0, 45).map(own), odd)
    text = st.one_of(
        st.just(""), st.just(None), st.just(float("nan")),
        st.tuples(st.lists(name, min_size=1, max_size=4), st.sampled_from([" ", ",", " , "]))
        .map(lambda t: t[1].join(t[0])),
    )  # fmt: skip
    cols = {"job_id": ids, "deps": np.asarray([data.draw(text) for _ in base], dtype=object)}
    if data.draw(st.booleans()):
        cols["think"] = np.asarray([data.draw(st.sampled_from([0.0, 5.0, np.nan])) for _ in base])
    table = pd.DataFrame(cols) if data.draw(st.booleans()) else cols
    deps = None
    if base and data.draw(st.booleans()):
        deps = {ids[data.draw(st.integers(0, len(base) - 1))]: data.draw(st.lists(name))}
    want, got = parents(table, ids, deps), _parents(table, ids, deps)
    assert (want is None) == (got is None)
    if want is not None:
        for a, b in zip(want[:3], got[:3], strict=True):
            assert np.array_equal(a, b)
        assert [(str(j), p) for j, p in want[3]] == [(str(j), p) for j, p in got[3]]


@pytest.mark.parametrize(
    "ids, texts",
    [
        ([3, 12, 12, 7], ["012 +3", "12", "3,7", "-1 7"]),  # integers: their own texts only
        ([3, 12, 7], ["3 1.0", "12 x 0x7", str(2**70)]),  # names that are no integer
        (["a", "b", "a"], ["a b", "c", "b,a"]),
    ],
)
def test_the_dependency_lookup_takes_only_an_ids_own_text(ids, texts):
    """ "012" and "+3" name no job 12 or 3 (the dict looked up the text ``str(id)``); a
    repeated id is its first row."""
    from validator_oracle import parents

    from coschedlab.validator import _parents

    ids = np.asarray(ids)
    table = {"job_id": ids, "deps": np.asarray(texts, dtype=object)}
    want, got = parents(table, ids, None), _parents(table, ids, None)
    for a, b in zip(want[:3], got[:3], strict=True):
        assert np.array_equal(a, b)
    assert [(str(j), p) for j, p in want[3]] == [(str(j), p) for j, p in got[3]]
