"""jobs.parquet's row groups: the columns of one value that the writer would make anew (a
32-bit label widened, a field broadcast from one value) share one Arrow array per value;
the file holds the values (bit for bit) and the bytes it held with each column made on its
own."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("n", [1, 2_500])
def test_columns_of_one_value_are_written_as_they_are(tmp_path, monkeypatch, n):
    import pyarrow.parquet as pq

    from coschedlab import outputs

    monkeypatch.setattr(outputs, "ROW_GROUP_ROWS", 1_000)  # the last group shorter
    k = np.arange(n)
    columns = {
        "job_id": k.astype(np.int64),
        "queue": np.full(n, -1, dtype=np.int32),  # widened: int64 in the file
        "partition": np.full(n, -1, dtype=np.int32),  # the same value: the same array
        "status": np.where(k < 1_500, 1, 0).astype(np.int32),  # one value in some groups
        "user": (k % 5).astype(np.int32),
        "avg_cpu": np.broadcast_to(-1.0, n),  # a reader's field of one value
        "used_mem": np.broadcast_to(-0.0, n),  # -0.0 is not 0.0
        "req_mem": np.broadcast_to(0.0, n),
        "unknown": np.broadcast_to(np.nan, n),  # null in the file
        "signs": np.where(k % 2 == 0, 0.0, -0.0),  # equal values, not the same bits
    }
    outputs.write_parquet(tmp_path / "ours.parquet", columns)
    # each column made on its own (contiguous arrays of the file's types): the same bytes
    own = {name: np.array(a) for name, a in columns.items()}
    for name in ("queue", "partition", "status", "user"):
        own[name] = own[name].astype(np.int64)
    monkeypatch.setattr(outputs, "INT64_COLUMNS", frozenset())
    outputs.write_parquet(tmp_path / "own.parquet", own)
    assert (tmp_path / "ours.parquet").read_bytes() == (tmp_path / "own.parquet").read_bytes()
    t = pq.read_table(tmp_path / "ours.parquet")
    for name, a in own.items():
        got = t.column(name).to_numpy()
        assert got.dtype == a.dtype, name
        if a.dtype.kind == "f":
            assert np.array_equal(np.isnan(got), np.isnan(a)), name
            assert np.signbit(got[~np.isnan(got)]).tolist() == np.signbit(a[~np.isnan(a)]).tolist()
            assert np.array_equal(got, a, equal_nan=True), name
        else:
            assert got.tolist() == a.tolist(), name
