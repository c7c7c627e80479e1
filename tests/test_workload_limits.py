"""A Workload made through the API keeps the SWF reader's sane ranges: a time beyond
``MAX_TIME`` or a processor count beyond ``MAX_PROCS`` is one clear InputError naming the job
(1e18 as a submit time would erase every run time in float arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest

from coschedlab import InputError, Workload
from coschedlab.jobs import MAX_PROCS, MAX_TIME


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
    ],
)  # fmt: skip
def test_a_value_beyond_the_sane_range_is_refused(column, value, said):
    with pytest.raises(InputError) as err:
        _workload(**{column: value})
    assert said in str(err.value) and "\n" not in str(err.value)


def test_values_at_the_limits_are_kept():
    w = _workload(submit=MAX_TIME, run=MAX_TIME, requested_time=-1.0, procs=MAX_PROCS)
    assert w.columns["submit"][1] == MAX_TIME and w.columns["procs"][1] == MAX_PROCS


def test_the_swf_reader_and_the_workload_share_the_limits():
    from coschedlab.workload import swf

    assert swf.MAX_TIME is MAX_TIME and swf.MAX_PROCS is MAX_PROCS
