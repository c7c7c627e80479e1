"""Batsim jobs.csv writer: known columns and values; read back by evalys when it is installed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from coschedlab.errors import InputError
from coschedlab.workload.batsim import BATSIM_COLUMNS, interval_set, write_jobs_csv

RESULT = pd.DataFrame(
    {
        "job_id": [1, 2, 3],
        "submit": [0.0, 5.0, 6.0],
        "start": [0.0, 10.0, 20.0],
        "end": [100.0, 10.0, 50.5],
        "procs": [4, 2, 1],
        "nodes": [1, 1, 1],
        "requested_time": [120.0, 60.0, 30.0],
        "status": [1, 5, 0],
        "killed": [False, False, False],
        "app": [7, 8, -1],
        "alloc": ["0-3", "4 6", [7]],
    }
)


def test_interval_set():
    assert interval_set([7, 0, 1, 2, 3]) == "0-3 7"
    assert interval_set([5]) == "5"
    assert interval_set([]) == ""
    assert interval_set([1, 3, 4, 6, 7, 8]) == "1 3-4 6-8"


def test_write_jobs_csv_values(tmp_path):
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, RESULT)
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(BATSIM_COLUMNS)
    df = pd.read_csv(path, keep_default_na=False)
    assert df["job_id"].tolist() == [1, 2, 3]
    assert df["workload_name"].tolist() == ["w0"] * 3
    assert df["profile"].astype(str).tolist() == ["7", "8", ""]
    assert df["requested_number_of_resources"].tolist() == [1, 1, 1]  # nodes, not procs
    assert df["requested_time"].tolist() == [120.0, 60.0, 30.0]
    assert df["success"].tolist() == [1, 0, 0]
    assert df["final_state"].tolist() == [
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_KILLED",
        "COMPLETED_FAILED",
    ]
    assert df["execution_time"].tolist() == [100.0, 0.0, 30.5]
    assert df["waiting_time"].tolist() == [0.0, 5.0, 14.0]
    assert df["turnaround_time"].tolist() == [100.0, 5.0, 44.5]
    assert df["stretch"].tolist()[0] == 1.0
    assert math.isinf(float(df["stretch"][1]))
    assert float(df["stretch"][2]) == pytest.approx(44.5 / 30.5)
    assert df["allocated_resources"].tolist() == ["0-3", "4 6", "7"]
    assert df["consumed_energy"].tolist() == [-1.0] * 3
    assert "inf" in lines[2]


def test_defaults_without_optional_columns(tmp_path):
    frame = RESULT[["job_id", "submit", "start", "end", "procs"]]
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, frame, workload_name="sdsc")
    df = pd.read_csv(path, keep_default_na=False)
    assert df["requested_number_of_resources"].tolist() == [4, 2, 1]
    assert df["success"].tolist() == [1, 1, 1]
    assert df["allocated_resources"].tolist() == ["", "", ""]
    assert df["workload_name"].tolist() == ["sdsc"] * 3


def test_killed_jobs_reached_walltime(tmp_path):
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, RESULT.assign(killed=[False, False, True], status=[1, 1, 1]))
    df = pd.read_csv(path, keep_default_na=False)
    assert df["success"].tolist() == [1, 1, 0]
    assert df["final_state"].tolist()[2] == "COMPLETED_WALLTIME_REACHED"


def test_missing_columns(tmp_path):
    with pytest.raises(InputError, match="missing column"):
        write_jobs_csv(tmp_path / "jobs.csv", RESULT.drop(columns="end"))


def test_evalys_reads_the_file(tmp_path):
    jobset = pytest.importorskip("evalys.jobset")
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, RESULT)
    js = jobset.JobSet.from_csv(str(path))
    assert js.MaxProcs == 8  # resources 0..7 from allocated_resources
    assert js.df["jobID"].tolist() == ["1", "2", "3"]
    assert js.df["proc_alloc"].tolist() == [4, 2, 1]
    np.testing.assert_allclose(js.df["finish_time"], [100.0, 10.0, 50.5])
    # without allocations evalys needs the resource bounds
    write_jobs_csv(path, RESULT.drop(columns="alloc"))
    js = jobset.JobSet.from_csv(str(path), resource_bounds=(0, 7))
    assert js.MaxProcs == 8
