"""Report time series and Gantt geometry on hand-made schedules with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _frames import finish

from coschedlab.errors import InputError
from coschedlab.platform import Cluster
from coschedlab.report import series as S
from coschedlab.report.figures import gantt_rectangles, time_unit

CLUSTER = Cluster(nodes=2, sockets_per_node=1, cores_per_socket=4)  # 8 cores


def tiny() -> pd.DataFrame:
    """J1 4 cores [0,10) node 0; J2 2 cores [2,6) node 1; J3 8 cores [10,20), waits 7 s."""
    return finish(
        pd.DataFrame(
            {
                "job_id": [1, 2, 3],
                "submit": [0.0, 2.0, 3.0],
                "start": [0.0, 2.0, 10.0],
                "end": [10.0, 6.0, 20.0],
                "procs": [4, 2, 8],
                "nodes": [1, 1, 2],
                "alloc": ["0", "1", "0-1"],
                "app": [0, 1, 0],
            }
        )
    )


def test_busy_cores_and_utilization():
    s = S.busy_cores(tiny())
    assert s.t.tolist() == [0, 2, 6, 10, 20]
    assert s.v.tolist() == [4, 6, 4, 8, 0]  # at 10, J1's end and J3's start collapse
    u = S.utilization(tiny(), CLUSTER)
    assert u.v.tolist() == [0.5, 0.75, 0.5, 1.0, 0.0]
    assert S.unused_cores(tiny(), CLUSTER).v.tolist() == [4, 2, 4, 0, 8]


def test_queue_throughput_running():
    q = S.queue_size(tiny())
    assert q.at(np.array([0, 2.5, 3, 9.99, 10, 30])).tolist() == [0, 0, 1, 1, 0, 0]
    th = S.throughput(tiny())
    assert th.t.tolist() == [6, 10, 20] and th.v.tolist() == [1, 2, 3]
    assert S.running_jobs(tiny()).at(np.array([1, 3, 7, 15])).tolist() == [1, 2, 1, 1]


def test_allocated_cores_with_spread():
    f = tiny()
    assert S.allocated_cores(f, CLUSTER).tolist() == [4, 4, 8]
    f["node_cores"] = [4, 2, 4]  # the second job holds half of its node (spread)
    assert S.allocated_cores(f, CLUSTER).tolist() == [4, 2, 8]
    f["cores"] = [4, 1, 8]
    assert S.used_cores(f).tolist() == [4, 1, 8]


def test_series_integral_and_mean():
    s = S.busy_cores(tiny())
    assert s.integral(0, 20) == 128.0
    assert s.integral(1, 3) == 4 + 6
    assert s.mean(0, 10) == 4.8
    assert s.at(-1.0) == 0.0


def test_step_sum_ignores_unfinished_and_weights():
    s = S.step_sum(np.array([0.0, 1.0]), np.array([2.0, np.nan]), np.array([3.0, 5.0]))
    assert s.t.tolist() == [0, 1, 2] and s.v.tolist() == [3, 8, 5]
    assert len(S.step_sum(np.zeros(0), np.zeros(0))) == 0


def test_gantt_rectangles_read_alloc_with_the_one_parser():
    f = tiny()
    f["alloc"] = ["0 1", None, ""]  # a job with two ranges, two without any recorded
    rows, start, _, y0, y1 = gantt_rectangles(f, CLUSTER)
    assert rows.tolist() == [0, 0] and start.tolist() == [0, 0]
    assert y0.tolist() == [0, 1] and y1.tolist() == [1, 2]
    f["alloc"] = ["0", "1", "1-0"]
    with pytest.raises(InputError, match="'1-0'.*backwards"):
        gantt_rectangles(f, CLUSTER)


def test_gantt_rectangles_whole_nodes():
    rows, start, end, y0, y1 = gantt_rectangles(tiny(), CLUSTER)
    assert rows.tolist() == [0, 1, 2]
    assert y0.tolist() == [0, 1, 0] and y1.tolist() == [1, 2, 2]
    assert start.tolist() == [0, 2, 10] and end.tolist() == [10, 6, 20]


def test_gantt_rectangles_spread_halves():
    f = pd.DataFrame(
        {
            "job_id": [1, 2, 3, 4],
            "submit": [0.0, 0, 0, 0],
            "start": [0.0, 5, 10, 0],
            "end": [10.0, 8, 12, 4],
            "procs": [4, 2, 2, 4],
            "alloc": ["2-3", "2", "2", "0-1"],
            "placement": ["spread", "spread", "spread", "compact"],
        }
    )
    rows, _, _, y0, y1 = gantt_rectangles(f, Cluster(4, 1, 4))
    got = sorted(zip(rows.tolist(), y0.tolist(), y1.tolist(), strict=True))
    # job 1 lower halves of nodes 2, 3; job 2 beside it in the upper half of node 2;
    # job 3 starts when job 1 has left: lower half again; job 4 compact on nodes 0-1
    assert got == [(0, 2, 2.5), (0, 3, 3.5), (1, 2.5, 3), (2, 2, 2.5), (3, 0, 2)]


def test_app_names_from_header():
    assert S.app_names_from_header("0=lu.E.2048 1=cg.D.64") == {0: "lu.E.2048", 1: "cg.D.64"}
    assert S.app_names_from_header(None) == {}


def test_time_unit():
    assert time_unit(100) == (1.0, "s")
    assert time_unit(600) == (60.0, "min")
    assert time_unit(5 * 3600) == (3600.0, "h")
    assert time_unit(10 * 86400) == (86400.0, "days")


def test_cores_by_group():
    t, labels, values = S.cores_by_group(tiny(), tiny()["app"].to_numpy())
    assert labels == [0, 1]  # app 0 has more core-seconds
    assert t.tolist() == [0, 2, 6, 10, 20]
    assert values.tolist() == [[4, 4, 4, 8, 0], [0, 2, 0, 0, 0]]
