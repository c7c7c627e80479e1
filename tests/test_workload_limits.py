"""A Workload made through the API keeps the SWF reader's sane ranges: a time beyond
``MAX_TIME`` or a processor count beyond ``MAX_PROCS`` is one clear InputError naming the job
(1e18 as a submit time would erase every run time in float arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedlab import InputError, Workload
from coschedlab.jobs import MAX_LABEL, MAX_PROCS, MAX_TIME, Dependencies


def _workload(**col):
    cols = {"id": np.array([1, 2]), "submit": np.array([0.0, 5.0]),
            "run": np.array([10.0, 10.0]), "procs": np.array([1, 1])}  # fmt: skip
    for name, value in col.items():
        cols[name] = np.array([cols.get(name, np.zeros(2))[0], value])
    return Workload(cols)


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("submit", 1e18, "job 2: submit is 1e+18, beyond the sane range (|value| <= "
                         "10,000,000,000 s)"),
        ("submit", -1e18, "job 2: submit is -1e+18"),
        ("run", 2e10, "job 2: run is 2e+10"),
        ("requested_time", 1e300, "job 2: requested_time is 1e+300"),
        ("think_time", 1e11, "job 2: think_time is 1e+11"),
        ("procs", 2**40, "job 2: procs is 1099511627776, beyond the sane range (|value| <= "
                         "2,147,483,647)"),
        ("user", 2**31, "job 2: user is 2147483648, beyond the range of a label (|value| <= "
                        "2,147,483,647)"),
        ("status", -(2**31), "job 2: status is -2147483648"),
        ("queue", 3e9, "job 2: queue is 3000000000"),
        ("group", -2.5e9 - 0.5, "job 2: group is -2.5e+09"),
        ("app", float("nan"), "job 2: app is nan"),
    ],
)  # fmt: skip
def test_a_value_beyond_the_sane_range_is_refused(column, value, said):
    with pytest.raises(InputError) as err:
        _workload(**{column: value})
    assert said in str(err.value) and "\n" not in str(err.value)


def test_values_at_the_limits_are_kept():
    w = _workload(submit=MAX_TIME, run=MAX_TIME, requested_time=-1.0, procs=MAX_PROCS)
    assert w.columns["submit"][1] == MAX_TIME and w.columns["procs"][1] == MAX_PROCS


@given(
    st.lists(st.integers(-(2**31) + 1, 2**31 - 1), min_size=2, max_size=2),
    st.sampled_from(["user", "group", "app", "queue", "partition", "status"]),
)
def test_labels_are_32_bit_with_the_values_given(values, column):
    w = Workload({"id": np.array([1, 2]), "submit": np.array([0.0, 5.0]),
                  "run": np.array([10.0, 10.0]), "procs": np.array([1, 1]),
                  column: np.array(values, dtype=np.int64)})  # fmt: skip
    assert w.columns[column].dtype == np.int32
    assert w.columns[column].tolist() == values


def test_the_swf_reader_and_the_workload_share_the_limits():
    from coschedlab.workload import swf

    assert swf.MAX_TIME is MAX_TIME and swf.MAX_PROCS is MAX_PROCS
    assert swf.MAX_LABEL is MAX_LABEL


def _scan(deps, ids):
    """The dependency check as a plain scan (the oracle): the first unknown job, a job's own
    id before its parents'."""
    known = set(ids)
    for jid, parents in deps.items():
        if jid not in known:
            return f"dependencies given for unknown job {jid}"
        for d in parents:
            if d not in known:
                return f"job {jid} depends on unknown job {d}"
    return None


@given(
    st.dictionaries(
        st.one_of(st.integers(-3, 12), st.sampled_from([2.0, 3.5, True, 2**70])),
        st.lists(st.one_of(st.integers(-3, 12), st.sampled_from([4.0, False])), max_size=4),
        max_size=8,
    ),
    st.sets(st.integers(0, 9), max_size=10),
)
def test_dependencies_on_unknown_jobs_are_refused_as_a_scan_finds_them(deps, ids):
    """``Workload`` checks the ids ``deps`` names at once (NumPy) when they are all ints: the
    same first refusal as a scan of ``deps``, for any keys (floats, bools, huge ints: scanned)."""
    ids = sorted(ids)
    cols = {"id": np.array(ids, np.int64), "submit": np.zeros(len(ids)),
            "run": np.ones(len(ids)), "procs": np.ones(len(ids), np.int64)}  # fmt: skip
    deps = {k: tuple(v) for k, v in deps.items()}
    want = _scan(deps, ids)
    if want is None:
        assert len(Workload(cols, deps=deps)) == len(ids)
    else:
        with pytest.raises(InputError) as info:
            Workload(cols, deps=deps)
        assert str(info.value) == want


@given(
    st.dictionaries(st.integers(-3, 12), st.lists(st.integers(-3, 12), max_size=4), max_size=8),
    st.sets(st.integers(0, 9), max_size=10),
)
def test_dependencies_as_arrays_read_and_are_refused_as_the_mapping(deps, ids):
    """:class:`Dependencies` (the same dependencies as arrays) reads as the mapping it holds,
    and a workload refuses the same first unknown job as a scan of it."""
    ids = sorted(ids)
    cols = {"id": np.array(ids, np.int64), "submit": np.zeros(len(ids)),
            "run": np.ones(len(ids)), "procs": np.ones(len(ids), np.int64)}  # fmt: skip
    deps = {k: tuple(v) for k, v in deps.items()}
    lens = [len(v) for v in deps.values()]
    arrays = Dependencies(
        np.array(list(deps), np.int64),
        np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
        np.array([d for v in deps.values() for d in v], np.int64),
    )
    assert list(arrays.items()) == list(deps.items()) and arrays == deps
    assert all(type(d) is int for v in arrays.values() for d in v)
    assert (12 in arrays) == (12 in deps) and len(arrays) == len(deps)
    want = _scan(deps, ids)
    if want is None:
        assert Workload(cols, deps=arrays).deps is arrays
    else:
        with pytest.raises(InputError) as info:
            Workload(cols, deps=arrays)
        assert str(info.value) == want


@pytest.mark.parametrize(
    "child, ptr, parents",
    [
        ([1, 2], [0, 1], [1]),
        ([1], [0, 2], [1]),
        ([1, 2], [0, 2, 1], [1, 1]),
        ([2, 2], [0, 1, 2], [1, 1]),
    ],
)
def test_dependencies_as_arrays_that_do_not_fit_are_refused(child, ptr, parents):
    with pytest.raises(InputError, match="dependencies: "):
        Dependencies(np.array(child), np.array(ptr), np.array(parents))


@given(st.lists(st.integers(0, 40), min_size=1, max_size=30))
def test_a_repeated_job_id_is_refused_in_any_order(ids):
    """Ids given in increasing order skip the sort; any other order is sorted: a repeated id
    is refused either way, distinct ids pass either way."""
    n = len(ids)
    cols = {"id": np.array(ids), "submit": np.zeros(n), "run": np.ones(n),
            "procs": np.ones(n, dtype=np.int64)}  # fmt: skip
    if len(set(ids)) < n:
        first = min(i for i in set(ids) if ids.count(i) > 1)
        with pytest.raises(InputError, match=f"job id {first} appears more than once"):
            Workload(cols)
    else:
        assert len(Workload(cols)) == n
