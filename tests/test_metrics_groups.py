"""Per-user, group, queue and partition metrics: known answers, the same definitions as the
run summary, metrics.json storage and the text table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster, InputError, Result, Workload, simulate
from coschedlab.metrics import (
    GROUP_METRICS,
    by_group,
    group_frame,
    group_metrics,
    group_table,
    summary,
)

DATA = Path("/work/shared/data/swf")


def known_frame() -> pd.DataFrame:
    # user 5: waits 10 and 0, 2 x 100 s + 4 x 5 s = 220 core-seconds; user -1 (unknown): one
    # 3600-s job killed at its walltime; users 3 and 9: zero-length jobs (ties, by number)
    return pd.DataFrame(
        {
            "job_id": [1, 2, 3, 4, 5],
            "submit": [0.0, 0.0, 0.0, 10.0, 10.0],
            "start": [10.0, 0.0, 20.0, 10.0, 12.0],
            "end": [110.0, 5.0, 3620.0, 10.0, 12.0],
            "procs": [2, 4, 1, 8, 1],
            "user": [5, 5, -1, 9, 3],
            "killed": [False, False, True, False, False],
        }
    )


def test_known_answers_per_user():
    t = by_group(known_frame(), "user")
    assert t.index.name == "user"
    assert list(t.columns) == list(GROUP_METRICS)
    assert list(t.index) == [-1, 5, 3, 9]  # core-hours descending, ties by number
    assert t.jobs.tolist() == [1, 2, 1, 1]
    assert t.core_hours.tolist() == pytest.approx([1.0, 220 / 3600, 0.0, 0.0])
    assert t.core_share.tolist() == pytest.approx([3600 / 3820, 220 / 3820, 0.0, 0.0])
    assert t.wait_mean.tolist() == pytest.approx([20.0, 5.0, 2.0, 0.0])
    assert t.loc[5, "wait_p95"] == pytest.approx(9.5)  # linear between 0 and 10
    assert t.loc[5, "bounded_slowdown_mean"] == pytest.approx((1.1 + 1.0) / 2)
    assert t.loc[-1, "bounded_slowdown_mean"] == pytest.approx(3620 / 3600)
    assert t.response_mean.tolist() == pytest.approx([3620.0, 57.5, 2.0, 0.0])
    assert t.killed.tolist() == [1, 0, 0, 0]


def test_cores_really_used_count_when_nodes_are_shared():
    f = known_frame().assign(cores=[4, 4, 1, 8, 2])
    t = by_group(f, "user")
    assert t.loc[5, "core_hours"] == pytest.approx((4 * 100 + 4 * 5) / 3600)


def test_a_frame_without_killed_has_no_killed_column_and_all_zero_work_has_no_share():
    f = known_frame().drop(columns="killed")
    f = f[f.user.isin([3, 9])]
    t = by_group(f, "user")
    assert "killed" not in t and t.core_share.isna().all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="user"), "no column 'user'"),
        (lambda f: f.assign(user=[1.5, 1, 1, 1, 1]), "whole numbers"),
        (lambda f: f.assign(user=[np.nan, 1, 1, 1, 1]), "whole numbers"),
        (lambda f: f.assign(start=[np.nan, 0, 0, 0, 0]), "no finite start"),
    ],
)
def test_bad_frames_are_input_errors(change, message):
    with pytest.raises(InputError, match=message):
        by_group(change(known_frame()), "user")


@st.composite
def frames(draw):
    n = draw(st.integers(1, 30))
    ints = st.integers(0, 1000)
    submit = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    wait = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    run = np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=float)
    users = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    return pd.DataFrame(
        {"submit": submit, "start": submit + wait, "end": submit + wait + run,
         "procs": procs, "user": users}
    )  # fmt: skip


@settings(max_examples=60)  # each example runs a summary per user
@given(frames())
def test_each_row_is_the_run_summary_of_that_users_jobs(f):
    t = by_group(f, "user")
    assert t.jobs.sum() == len(f)
    total = f.procs.to_numpy() @ (f.end - f.start).to_numpy()
    if total > 0:
        assert t.core_share.sum() == pytest.approx(1.0)
        # core-hours over the machine's core-hours in the makespan is the utilization
        m = summary(f, 8)
        assert t.core_hours.sum() * 3600 / (8 * m["makespan"]) == pytest.approx(m["utilization"])
    assert (np.diff(t.core_hours.to_numpy()) <= 0).all()
    for user, row in t.iterrows():
        m = summary(f[f.user == user], 8)
        assert row.jobs == m["n_jobs"]
        for key in ("wait_mean", "wait_p95", "bounded_slowdown_mean", "response_mean"):
            assert row[key] == pytest.approx(m[key], rel=1e-12, abs=1e-9), key


def _no_nan(text: str):
    raise AssertionError(f"metrics.json holds {text}")


def test_metrics_json_stores_every_grouping_and_load_reads_them_back(tmp_path):
    rows = [
        dict(id=1, submit=0, run=100, requested_time=100, procs=2, user=5, group=1, queue=2),
        dict(id=2, submit=0, run=0, requested_time=10, procs=1, user=-1, group=1, queue=2),
        dict(id=3, submit=5, run=60, requested_time=60, procs=4, user=7, group=2, queue=-1),
    ]
    r = simulate(Workload.from_records(rows), Cluster(4), "easy")
    r.save(tmp_path / "run")
    text = (tmp_path / "run" / "metrics.json").read_text()
    meta = json.loads(text, parse_constant=_no_nan)
    assert {"by_user", "by_group", "by_queue", "by_partition"} <= set(meta)
    assert meta["by_user"]["user"] == [7, 5, -1]  # 4 x 60 > 2 x 100 > 1 x 0 core-seconds
    assert meta["by_user"]["jobs"] == [1, 1, 1]
    assert meta["by_partition"]["partition"] == [-1] and meta["by_partition"]["jobs"] == [3]
    assert meta["by_queue"]["queue"] == [-1, 2]  # 4 x 60 > 2 x 100 + 0
    loaded = Result.load(tmp_path / "run")
    for col in ("user", "group", "queue", "partition"):
        pd.testing.assert_frame_equal(loaded.groups(col), r.groups(col), check_exact=False)
    # a loaded result shows what the file holds, and saving it again keeps it
    meta["by_user"]["jobs"] = [9, 9, 9]
    (tmp_path / "run" / "metrics.json").write_text(json.dumps(meta))
    again = Result.load(tmp_path / "run")
    assert again.groups("user").jobs.tolist() == [9, 9, 9]
    again.save(tmp_path / "copy")
    assert (
        json.loads((tmp_path / "copy" / "metrics.json").read_text())["by_user"] == meta["by_user"]
    )


def test_undefined_shares_are_null_in_metrics_json(tmp_path):
    w = Workload.from_records([(1, 0, 0, 10, 1), (2, 1, 0, 10, 1)])
    r = simulate(w, Cluster(2), "fcfs")
    r.save(tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "metrics.json").read_text(), parse_constant=_no_nan)
    assert meta["by_user"]["core_share"] == [None]
    assert np.isnan(group_frame(meta["by_user"], "user").core_share.iloc[0])


def test_group_metrics_skips_absent_columns():
    assert set(group_metrics(known_frame())) == {"by_user"}


def test_the_top_table_labels_unknown_and_sums_the_rest():
    t = by_group(known_frame(), "user")
    top = group_table(t, 2)
    assert top.user.tolist() == ["unknown", "5", "others (2)"]
    assert top.jobs.tolist() == [1, 2, 2]
    assert top["share_%"].sum() == pytest.approx(100.0)
    assert top.wait_h.iloc[2] == pytest.approx(1.0 / 3600)  # waits 2 and 0
    assert np.isnan(top.wait_p95_h.iloc[2])
    assert top.columns.tolist() == ["user", "jobs", "core_h", "share_%", "wait_h", "wait_p95_h",
                                    "bsld", "killed"]  # fmt: skip
    with pytest.raises(InputError, match="at least 1"):
        group_table(t, 0)


@pytest.mark.slow
@pytest.mark.skipif(not DATA.is_dir(), reason="shared data not present")
def test_metrics_json_stays_small_on_a_trace_with_hundreds_of_users(tmp_path):
    from coschedlab.workload.swf import cluster_from_header, read_swf

    path = DATA / "CTC-SP2-1996-3.1-cln.swf.gz"
    cluster = cluster_from_header(read_swf(path).header)
    w = read_swf(path, cluster=cluster)
    r = simulate(w, cluster, "easy")
    r.save(tmp_path / "run")
    size = (tmp_path / "run" / "metrics.json").stat().st_size
    meta = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert len(meta["by_user"]["user"]) == len(np.unique(w.columns["user"])) > 600
    assert size < 150_000, size  # all 679 users, about 150 bytes each (120 kB)


def test_report_shows_the_stored_users_table(tmp_path):
    """The HTML report lists the largest users of core-hours, as metrics.json stores them."""
    from coschedlab import Cluster, simulate
    from coschedlab.engine.result import Result
    from coschedlab.jobs import Workload
    from coschedlab.report import write_report

    rows = [(i + 1, 10.0 * i, 100.0, 150.0, 1 + i % 2) for i in range(6)]
    w = Workload.from_records(rows)
    w.columns["user"][:] = [7, 7, 7, 7, 9, 9]
    simulate(w, Cluster(2), "easy").save(tmp_path / "r")
    loaded = Result.load(tmp_path / "r")
    write_report({"easy": loaded}, tmp_path / "rep")
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "Users by core-hours" in html
    table = html.split("Users by core-hours", 1)[1].split("</table>", 1)[0]
    assert table.count("<tr") == 3  # header + users 7 and 9
    assert "33.33" in table  # user 9: 2 of 6 equal jobs, a third of the core-hours


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-1, max_value=10**9), min_size=1, max_size=300),
       st.integers(min_value=1, max_value=10**6))  # fmt: skip
def test_unique_inverse_is_numpys(values, span):
    """The counted unique of small ranges (and NumPy's beyond) against ``np.unique``."""
    from coschedlab.metrics import _unique_inverse

    small = np.array(values, dtype=np.int64) % span - 1
    for key in (np.array(values, dtype=np.int64), small, small.astype(np.int32)):
        got, inverse = _unique_inverse(key)
        assert got.dtype == np.int64
        want, want_inverse = np.unique(key, return_inverse=True)
        assert got.tolist() == want.tolist() and inverse.tolist() == want_inverse.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(*[st.integers(-1, 2)] * 4), min_size=1, max_size=12),
    st.data(),
)
def test_a_grouping_shared_by_columns_gives_each_its_own_table(keys, data):
    """group_metrics reuses the sums of a column whose jobs fall into the same groups as an
    earlier column's (equal labels): every column's entry is the one it gets alone."""
    n = len(keys)
    user, group, queue, partition = (list(k) for k in zip(*keys, strict=True))
    # often the same groups under other numbers, or the same column again
    if data.draw(st.booleans()):
        group = [2 * u + 1 for u in user]
    if data.draw(st.booleans()):
        partition = list(queue)
    start = data.draw(st.lists(st.integers(0, 50), min_size=n, max_size=n))
    run = data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    f = pd.DataFrame(
        {
            "job_id": range(n),
            "submit": [0.0] * n,
            "start": [float(s) for s in start],
            "end": [float(s + r) for s, r in zip(start, run, strict=True)],
            "procs": data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)),
            "user": user,
            "group": group,
            "queue": queue,
            "partition": partition,
        }
    )
    together = group_metrics(f)
    for col in ("user", "group", "queue", "partition"):
        assert json.dumps(together[f"by_{col}"]) == json.dumps(
            group_metrics(f, (col,))[f"by_{col}"]
        )
