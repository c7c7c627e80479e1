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
    # the other commands' modules: the command line registers the command it runs alone
    "coschedlab.cli.compare",
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


def test_files_written_without_pandas_read_back_as_the_table(tmp_path):
    """jobs.parquet (pyarrow with pandas' metadata) and jobs.csv (pyarrow from NumPy) of a
    result that never made its DataFrame equal those written from the DataFrame."""
    import pandas as pd

    from coschedlab import simulate
    from coschedlab.bundled import bundled
    from coschedlab.workload.swf import cluster_from_header, read_swf

    w = read_swf(bundled("KTH-SP2-1996-2.1-cln.swf.gz"))
    cluster = cluster_from_header(w.header)
    r = simulate(w.drop_oversized(cluster.total_cores), cluster, "easy")
    assert r.__dict__.get("jobs") is None  # the DataFrame was never made
    r.write(tmp_path)
    frame = r.jobs  # made now, from the same columns
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "jobs.parquet"), frame)
    (tmp_path / "df").mkdir()
    frame.to_parquet(tmp_path / "df" / "jobs.parquet", index=False)
    assert (tmp_path / "df" / "jobs.parquet").read_bytes() == (
        tmp_path / "jobs.parquet"
    ).read_bytes()
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


def test_the_parquet_writer_writes_pyarrow_parquets_bytes(tmp_path):
    """``outputs.write_arrow_table`` (pyarrow's writer without ``pyarrow.parquet``) writes
    what ``pyarrow.parquet.write_table(..., compression="snappy")`` writes: numbers, nulls,
    booleans, texts, several row groups' worth of rows, and no row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from coschedlab.outputs import write_arrow_table

    n = 70_000
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "x": pa.array([None if k % 7 == 0 else k / 3 for k in range(n)], pa.float64()),
            "flag": pa.array([k % 3 == 0 for k in range(n)]),
            "text": pa.array([f"node{k % 97}" for k in range(n)], pa.large_string()),
        },
        metadata={"pandas": "{}"},
    )
    for name, t in (("some", table), ("none", table.slice(0, 0))):
        write_arrow_table(t, tmp_path / f"{name}.parquet")
        pq.write_table(t, tmp_path / f"{name}-pq.parquet", compression="snappy")
        ours = (tmp_path / f"{name}.parquet").read_bytes()
        assert ours == (tmp_path / f"{name}-pq.parquet").read_bytes()
    assert pq.read_table(tmp_path / "some.parquet").equals(table)
