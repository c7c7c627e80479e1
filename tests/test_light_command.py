"""``coschedlab simulate`` without --pool imports only what it uses (issue 31 item 7): no
pandas, no co-location package, no plotting or cluster libraries; the outputs it writes
without pandas read back as the same table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: modules a plain ``simulate`` must not import (each one costs tens to hundreds of ms)
HEAVY = (
    "pandas",
    "pyarrow.compute",
    "coschedlab.coloc",
    "matplotlib",
    "plotly",
    "dask",
    "distributed",
    "scipy",
    "yaml",
    "multiprocessing",  # only a sweep's workers need it
    "pydantic",  # typer's coercion of plain option values is done without it
    "numpy.ma",  # np.unique, np.median and np.percentile import it
    "importlib.metadata",  # reads every installed distribution
    "rich.progress",  # the progress bar, on a terminal only
    "typer",  # a plain command line is parsed without it (cli.main.plain_simulate)
    "pyarrow.parquet",  # jobs.parquet is written by pyarrow's writer itself, and so
    "pyarrow.fs",  # without the file systems pyarrow.parquet imports,
    "ssl",  # and with them ssl
    "cloudpickle",  # pyarrow imports it, then binds the standard pickle (import_pyarrow)
    # the other commands' modules: the command line registers the command it runs alone
    "coschedlab.cli.sweeps",
    "coschedlab.cli.coupled",
    "coschedlab.cli.data",
    "coschedlab.cli.elise",
    "coschedlab.cli.gui",
    "coschedlab.cli.insitu",
    "coschedlab.cli.study",
    "coschedlab.cli.validate",
    "coschedlab.cli.workflows",
)

RUNNER = """
import json, sys
sys.argv = ["coschedlab", *sys.argv[1:]]
from coschedlab.cli.main import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _simulate(args: list[str]) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "simulate", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def _heavy(modules: set[str]) -> list[str]:
    return [h for h in HEAVY if h in modules or any(m.startswith(h + ".") for m in modules)]


PICKLE_PROBE = """
import sys
{hide}
import pyarrow.lib
import cloudpickle  # still importable afterwards
print(pyarrow.lib.pickle.__name__, cloudpickle.__name__)
"""


@pytest.mark.parametrize(
    "hide", ["", "from coschedlab.outputs import import_pyarrow; import_pyarrow()"]
)
def test_pyarrow_keeps_the_standard_pickle_with_or_without_cloudpickle(hide):
    # import_pyarrow hides cloudpickle while pyarrow loads because pyarrow.lib ends up with
    # the standard pickle anyway: a pyarrow that kept cloudpickle would fail here
    done = subprocess.run(
        [sys.executable, "-c", PICKLE_PROBE.format(hide=hide)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["pickle", "cloudpickle"]


@pytest.mark.parametrize("scheduler", ["easy", "fcfs"])
def test_simulate_imports_no_heavy_module(tmp_path, scheduler):
    trace = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
    code, modules = _simulate([trace, "-s", scheduler, "--out", str(tmp_path / "o")])
    assert code == 0
    assert (tmp_path / "o" / "jobs.parquet").is_file()
    assert _heavy(modules) == []


def test_simulate_with_a_pool_still_imports_the_coloc_package(tmp_path):
    """The runner sees the imports (the test above is not vacuous)."""
    trace = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
    pool = "coschedlab:pools/lm-aris.compute-NAS.json"
    args = [trace, "-s", "easy-coloc", "--pool", pool, "--nodes", "100",
            "--cores-per-node", "20", "--sockets", "2", "--out", str(tmp_path / "o")]  # fmt: skip
    code, modules = _simulate(args)
    assert code == 0
    assert "coschedlab.coloc" in modules


def _same_parquet(ours, theirs) -> None:
    """Two Parquet files hold the same schema (names, types, nullability, metadata: Arrow's
    and Parquet's) and the same values, read by pyarrow and by pandas."""
    import pandas as pd
    import pyarrow.parquet as pq

    assert pq.read_schema(ours).equals(pq.read_schema(theirs), check_metadata=True)
    assert pq.ParquetFile(ours).schema.equals(pq.ParquetFile(theirs).schema)
    assert pq.read_table(ours).equals(pq.read_table(theirs), check_metadata=True)
    pd.testing.assert_frame_equal(pd.read_parquet(ours), pd.read_parquet(theirs))


def test_files_written_without_pandas_read_back_as_the_table(tmp_path, monkeypatch):
    """jobs.parquet (pyarrow with pandas' metadata, in row groups) and jobs.csv (pyarrow from
    NumPy) of a result that never made its DataFrame hold what those written from the
    DataFrame hold: jobs.parquet the same schema and values as pandas' file (and the same
    bytes as write_parquet of the DataFrame), jobs.csv the same bytes."""
    import pandas as pd
    import pyarrow.parquet as pq

    from coschedlab import outputs, simulate
    from coschedlab.bundled import bundled
    from coschedlab.workload.swf import cluster_from_header, read_swf

    monkeypatch.setattr(outputs, "ROW_GROUP_ROWS", 10_000)  # KTH's 28k jobs: three groups
    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    r = simulate(w.drop_oversized(cluster.total_cores), cluster, "easy")
    assert r.__dict__.get("jobs") is None  # the DataFrame was never made
    r.write(tmp_path)
    assert pq.ParquetFile(tmp_path / "jobs.parquet").metadata.num_row_groups == 3
    frame = r.jobs  # made now, from the same columns
    # the workload's 32-bit labels are int64 in the file, as before they were 32-bit
    wide = [c for c in outputs.INT64_COLUMNS if c in frame]
    assert wide and all(frame[c].dtype == "int32" for c in wide)
    as_before = frame.astype({c: "int64" for c in wide})
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "jobs.parquet"), as_before)
    (tmp_path / "df").mkdir()
    as_before.to_parquet(tmp_path / "df" / "jobs.parquet", index=False)
    _same_parquet(tmp_path / "jobs.parquet", tmp_path / "df" / "jobs.parquet")
    # the result's DataFrame, once made, is written as its columns were: the same file
    outputs.write_parquet(tmp_path / "df" / "frame.parquet", frame)
    frame_bytes = (tmp_path / "df" / "frame.parquet").read_bytes()
    assert frame_bytes == (tmp_path / "jobs.parquet").read_bytes()
    from coschedlab.workload.batsim import write_jobs_csv

    write_jobs_csv(tmp_path / "df" / "jobs.csv", frame, cores_per_node=cluster.cores_per_node)
    assert (tmp_path / "df" / "jobs.csv").read_bytes() == (tmp_path / "jobs.csv").read_bytes()


@pytest.mark.parametrize("scheduler", ["easy", "fcfs", "conservative"])
def test_a_finished_run_leaves_no_reference_cycle(scheduler):
    """The kernel, its view and their sequences are freed when the result is made, not at the
    next garbage collection (a million jobs: hundreds of MB held meanwhile)."""
    import gc

    from coschedlab import simulate
    from coschedlab.bundled import bundled
    from coschedlab.workload.swf import cluster_from_header, read_swf

    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    gc.collect()
    gc.disable()
    try:
        r = simulate(w, cluster, scheduler)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert r.n_jobs == len(w)


def test_a_result_shares_the_workloads_columns_read_only():
    """A trace in queue order, its workload frozen (as the command does): the result's label
    columns are the workload's, not copies, and cannot be written (changing one would change
    the other)."""
    import numpy as np

    from coschedlab import simulate
    from coschedlab.bundled import bundled
    from coschedlab.workload.swf import cluster_from_header, read_swf

    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores).freeze()
    r = simulate(w, cluster, "easy")
    user = r.columns["user"]
    assert np.shares_memory(user, w.columns["user"])
    with pytest.raises(ValueError):
        user[0] = 1
    with pytest.raises(ValueError):
        w.columns["user"][0] = 1


def test_a_workload_edited_after_a_run_leaves_the_result_as_it_was():
    """A workload not frozen (the API's) may be edited in place between runs: the earlier
    result keeps its own columns (a result shared them read-only, and showed every edit)."""
    import numpy as np

    from coschedlab import Cluster, Workload, simulate

    w = Workload.from_records([(1, 0, 50, 100, 2), (2, 10, 60, 100, 2), (3, 20, 70, 100, 4)])
    w.columns["user"][:] = [1, 2, 1]
    w.extra["trace_wait"] = np.array([5.0, -1.0, 0.0])
    first = simulate(w, Cluster(4), "easy")
    w.columns["user"][:] = 77
    w.columns["run"][0] = 5
    w.extra["trace_wait"][:] = 9.0
    second = simulate(w, Cluster(4), "easy")
    assert first.columns["user"].tolist() == [1, 2, 1]
    assert first.columns["trace_wait"].tolist() == [5.0, -1.0, 0.0]
    assert first.jobs["user"].tolist() == [1, 2, 1]
    assert first.validate() == []
    assert second.columns["user"].tolist() == [77, 77, 77]
    assert second.columns["end"][0] - second.columns["start"][0] == 5


@pytest.mark.parametrize("n", [0, 1, 2_500])
def test_the_parquet_writer_holds_pandas_schema_and_values(tmp_path, monkeypatch, n):
    """``outputs.write_parquet`` of NumPy columns (pyarrow alone, in row groups, its own
    encodings per column) writes the schema and the values that ``DataFrame.to_parquet``
    writes: whole numbers, floats with NaN (null), booleans, texts, allocations; no row, one
    row, several row groups."""
    import numpy as np
    import pandas as pd
    import pyarrow.parquet as pq

    from coschedlab import outputs
    from coschedlab.intervals import AllocColumn

    monkeypatch.setattr(outputs, "ROW_GROUP_ROWS", 1_000)
    k = np.arange(n)
    held = [[(0, 1), (j % 50 + 2, j % 50 + 4)][: j % 3] for j in k]  # 0, 1 or 2 intervals
    columns = {
        "job_id": k.astype(np.int64),
        "x": np.where(k % 7 == 0, np.nan, k / 3),
        "user": (k % 5).astype(np.int64),
        "status": (k % 3 - 1).astype(np.int32),  # a 32-bit label: int64 in the file
        "req_procs": (k % 9).astype(np.int32),
        "flag": k % 3 == 0,
        "text": np.array([f"node{j % 97}" for j in k], dtype=object),
        "alloc": AllocColumn.from_intervals(held),
    }
    outputs.write_parquet(tmp_path / "ours.parquet", columns)
    if n == 0:  # (pandas writes an empty column of objects as nulls, not as texts)
        t = pq.read_table(tmp_path / "ours.parquet")
        assert t.num_rows == 0 and t.column_names == list(columns)
        assert str(t.schema.field("alloc").type) == "large_string"
        return
    frame = pd.DataFrame({c: np.asarray(v) for c, v in columns.items()})
    frame = frame.astype({"status": "int64", "req_procs": "int64"})
    frame.to_parquet(tmp_path / "pandas.parquet", index=False)
    _same_parquet(tmp_path / "ours.parquet", tmp_path / "pandas.parquet")
    groups = pq.ParquetFile(tmp_path / "ours.parquet").metadata.num_row_groups
    assert groups == max(1, -(-n // 1_000))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ours.parquet"), frame)


@pytest.mark.parametrize("until", [None, 2e6])
def test_job_metrics_made_after_the_kernel_are_the_same_columns(until):
    """``from_simulation(..., metrics_later=True)`` then ``fill_job_metrics()`` (the simulate
    path: the per-job metrics made once the kernel is gone) gives the columns, their order and
    their values that ``from_simulation`` gives at once; a run stopped at a time too."""
    import numpy as np

    from coschedlab.bundled import bundled
    from coschedlab.engine.kernel import Simulation
    from coschedlab.engine.result import Result
    from coschedlab.schedulers import get_scheduler
    from coschedlab.workload.swf import cluster_from_header, read_swf

    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    w = w.drop_oversized(cluster.total_cores)
    sim = Simulation(w, cluster, get_scheduler("easy"), until=until)
    sim.run()
    now = Result.from_simulation(sim)
    later = Result.from_simulation(sim, metrics_later=True)
    assert later.columns["wait"] is None
    later.fill_job_metrics()
    assert list(later.columns) == list(now.columns)
    for name, values in now.columns.items():
        a, b = np.asarray(later.columns[name]), np.asarray(values)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert later.metrics == pytest.approx(now.metrics, nan_ok=True)
    if until is not None:
        assert np.isnan(now.columns["wait"]).any()  # some jobs never started


@pytest.mark.parametrize("kind", ["plain", "named columns", "attrs", "nullable", "filtered"])
def test_a_frame_is_written_as_pandas_writes_it(tmp_path, kind):
    """``outputs.write_parquet`` of a DataFrame (pyarrow alone for plain columns, pandas'
    own writer for what pandas records otherwise) holds pandas' schema, metadata and
    values."""
    import pandas as pd

    from coschedlab import outputs

    frame = pd.DataFrame({"a": [1, 2, 3], "x": [0.5, float("nan"), 2.0], "s": ["p", "q", "r"]})
    if kind == "named columns":
        frame = frame.rename_axis("cols", axis=1)
    elif kind == "attrs":
        frame.attrs["note"] = "kept"
    elif kind == "nullable":
        frame["a"] = pd.array([1, None, 3], dtype="Int64")
    elif kind == "filtered":
        frame = frame.iloc[[0, 2]]
    outputs.write_parquet(tmp_path / "ours.parquet", frame)
    frame.to_parquet(tmp_path / "pandas.parquet", index=False)
    _same_parquet(tmp_path / "ours.parquet", tmp_path / "pandas.parquet")


def test_counts_are_32_bit_only_when_they_fit():
    """A run's ``nodes`` and ``start_pass`` are int32 (the values as they were); a column with
    a value beyond 32 bits stays int64 and unchanged."""
    import numpy as np

    from coschedlab import simulate
    from coschedlab.bundled import bundled
    from coschedlab.workload.swf import cluster_from_header, read_swf

    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    r = simulate(w.drop_oversized(cluster.total_cores), cluster, "easy")
    assert r.columns["nodes"].dtype == np.int32 and r.columns["start_pass"].dtype == np.int32
    procs = r.columns["procs"]
    assert (r.columns["nodes"] == -(-procs // cluster.cores_per_node)).all()
    big = r.columns["start_pass"].astype(np.int64)
    big[-1] = 2**31
    r.columns["start_pass"] = big
    r.narrow_counts()
    assert r.columns["start_pass"] is big
