"""Batsim jobs.csv: the writer's columns and values, the reader that turns a jobs.csv from any
simulator into the validator's table, and evalys (when installed) as an independent reader."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedlab import Cluster, Workload, simulate, validate_jobs
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.core_ids import assign_core_ids, core_ids_to_nodes
from coschedlab.errors import InputError
from coschedlab.intervals import parse_intervals
from coschedlab.workload.batsim import (
    BATSIM_COLUMNS,
    CORE_COLUMNS,
    interval_set,
    read_jobs_csv,
    write_jobs_csv,
)

HEADER = ",".join(BATSIM_COLUMNS)

# As Batsim 4 writes it: one line per job as it completes (not in submission order), times
# with 6 decimals, empty times and allocation for a rejected job, the metadata quoted. Job 2
# (submitted at 5, on resources 3-4 from 50 to 110) overlaps job 1 (0-3, from 0 to 100) on 3.
BATSIM4_OVERLAP = f"""{HEADER}
4,w0,delay30,10.000000,1,50.000000,0,COMPLETED_KILLED,10.000000,30.000000,40.000000,0.000000,30.000000,1.000000,7,-1.000000,""
1,w0,delay100,0.000000,4,100.000000,1,COMPLETED_SUCCESSFULLY,0.000000,100.000000,100.000000,0.000000,100.000000,1.000000,0-3,-1.000000,""
3,w0,delay100,6.000000,64,100.000000,0,REJECTED,,,,,,,,,""
2,w0,delay60,5.000000,2,100.000000,1,COMPLETED_SUCCESSFULLY,50.000000,60.000000,110.000000,45.000000,105.000000,1.750000,3-4,-1.000000,"a, b"
"""  # noqa: E501
BATSIM4_VALID = BATSIM4_OVERLAP.replace(",3-4,", ",4-5,")

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


# -- reading ------------------------------------------------------------------------------------


def test_read_jobs_csv_gives_the_validator_table(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text(BATSIM4_OVERLAP)
    table, notes = read_jobs_csv(path)
    assert table["job_id"].tolist() == [1, 2, 4]  # queue order; the rejected job left out
    assert table["submit"].tolist() == [0.0, 5.0, 10.0]
    assert table["start"].tolist() == [0.0, 50.0, 10.0]
    assert table["end"].tolist() == [100.0, 110.0, 40.0]
    assert table["nodes"].tolist() == [4, 2, 1]
    assert table["alloc"].tolist() == ["0-3", "3-4", "7"]
    assert table["requested_time"].tolist() == [100.0, 100.0, 50.0]
    assert table["line"].tolist() == [3, 5, 2]
    assert table["final_state"].tolist()[2] == "COMPLETED_KILLED"
    assert notes == ["1 rejected job(s) left out (they never ran)"]
    assert validate_jobs(table, Cluster(8)) == [
        "node 3 is given to job 1 [0.0, 100.0) and to job 2 [50.0, 110.0) at once"
    ]
    path.write_text(BATSIM4_VALID)
    assert validate_jobs(read_jobs_csv(path)[0], Cluster(8)) == []


def test_our_own_jobs_csv_reads_back(tmp_path):
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, RESULT)
    table, notes = read_jobs_csv(path)
    assert notes == []
    assert table["job_id"].tolist() == [1, 2, 3]
    assert table["start"].tolist() == RESULT["start"].tolist()
    assert table["end"].tolist() == RESULT["end"].tolist()
    assert table["alloc"].tolist() == ["0-3", "4 6", "7"]


def test_text_ids_are_kept_and_made_unique_across_workloads(tmp_path):
    path = tmp_path / "jobs.csv"
    lines = BATSIM4_VALID.splitlines()
    lines[1] = lines[1].replace("4,w0,", "1,w1,", 1)  # a second workload's job 1
    path.write_text("\n".join(lines) + "\n")
    table, _ = read_jobs_csv(path)
    assert table["job_id"].tolist() == ["w0!1", "w0!2", "w1!1"]
    path.write_text(BATSIM4_VALID.replace("\n1,w0,", "\nw0!1,w0,"))
    assert read_jobs_csv(path)[0]["job_id"].tolist() == ["w0!1", "2", "4"]


def test_a_job_that_did_not_complete_is_reported(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text(BATSIM4_VALID.replace("COMPLETED_KILLED", "RUNNING"))
    table, notes = read_jobs_csv(path)
    assert notes[-1] == "1 job(s) did not complete (first: line 2, RUNNING)"
    assert validate_jobs(table, Cluster(8)) == ["job 4 never started or never ended"]
    # a completed job without a start time is as incomplete
    path.write_text(BATSIM4_VALID.replace("COMPLETED_KILLED,10.000000", "COMPLETED_KILLED,"))
    assert validate_jobs(read_jobs_csv(path)[0], Cluster(8)) == [
        "job 4 never started or never ended"
    ]


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        (lambda t: t.replace("finish_time,", "end_time,"), 1, "no column(s) finish_time"),
        (lambda t: t.replace(",50.000000,60", ",5O.0,60"), 5, "starting_time is not a number"),
        (lambda t: t.replace(",3-4,", ",3-,"), 5, "bad node list '3-'"),
        (lambda t: t.replace(",3-4,", ",4-3,"), 5, "range 4-3 runs backwards"),
        (lambda t: t.replace(",0-3,-1", ",0-3,7,-1"), 3, "18 fields where the header has 17"),
        (lambda t: t.replace("COMPLETED_KILLED", "DONE"), 2, "unknown final_state 'DONE'"),
        (lambda t: t.replace(",0.000000,4,", ",0.000000,4.5,"), 3, "not a whole number"),
        (lambda t: t.replace(",5.000000,2,", ",,2,"), 5, "submission_time is empty"),
        (lambda t: t.replace("\n2,w0", "\n1,w0"), 5, "job_id '1' appears twice (also line 3)"),
        (lambda t: "", 1, "empty file"),
    ],
)
def test_a_malformed_jobs_csv_names_file_and_line(tmp_path, edit, where, message):
    path = tmp_path / "jobs.csv"
    path.write_text(edit(BATSIM4_OVERLAP))
    with pytest.raises(InputError) as exc:
        read_jobs_csv(path)
    assert str(exc.value).startswith(f"{path}:{where}: ")
    assert message in str(exc.value)


def test_a_quoted_value_over_two_lines_keeps_line_numbers(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text(BATSIM4_VALID.replace('"a, b"', '"a\nb"').replace(",4-5,", ",4-x,"))
    with pytest.raises(InputError, match=r"jobs.csv:5: allocated_resources"):
        read_jobs_csv(path)
    # jobs 4 and 1 with their metadata over two lines: the lines after them follow
    path.write_text(BATSIM4_VALID.replace('0,""', '0,"x\ny"'))
    table, _ = read_jobs_csv(path)
    assert table["line"].tolist() == [4, 7, 2]  # jobs 1, 2, 4; the rejected job 3 on 6


def test_evalys_reads_the_same_schedule(tmp_path):
    # an independent reader (evalys parses the interval sets with procset) sees the same jobs,
    # times and resources, and the same two jobs on resource 3 at once
    jobset = pytest.importorskip("evalys.jobset")
    path = tmp_path / "jobs.csv"
    path.write_text(BATSIM4_OVERLAP)
    ours = read_jobs_csv(path)[0].set_index("job_id")
    theirs = jobset.JobSet.from_csv(str(path)).df
    theirs = theirs[theirs.final_state != "REJECTED"]
    theirs = theirs.set_index(theirs.jobID.astype(int))
    for jid, row in theirs.iterrows():
        assert (ours.start[jid], ours.end[jid]) == (row.starting_time, row.finish_time)
        assert set(row.allocated_resources) == {
            n for a, b in _ranges(ours.alloc[jid]) for n in range(a, b)
        }
    on_3 = [(r.starting_time, r.finish_time) for _, r in theirs.iterrows()
            if 3 in r.allocated_resources]  # fmt: skip
    (s1, e1), (s2, e2) = sorted(on_3)
    assert s2 < e1  # evalys too sees them overlap


def _ranges(text):
    return parse_intervals(text)


# -- shared nodes: the resources are cores -------------------------------------------------------

POOL = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], [[1, 2], [0.5, 1]]))


def coloc_result():
    """12 jobs of 2 processes on 2 nodes of 4 cores, most of them spread beside another."""
    rows = [{"id": i, "submit": 3 * i, "run": 60 + 7 * i, "requested_time": 200, "procs": 2,
             "app": i % 2} for i in range(1, 13)]  # fmt: skip
    return simulate(Workload.from_records(rows), Cluster(2, 2, 2), "easy-coloc", pool=POOL)


def test_core_ids_known_answer():
    # 3 nodes of 4 cores. A (nodes 0-1, 2 cores) [0, 10); B (node 1) [5, 15) beside A; at 10
    # A ends before C (nodes 0-1) and the zero-length D (node 0) start; E holds node 2 whole
    start = np.array([0.0, 5.0, 10.0, 10.0, 0.0])
    end = np.array([10.0, 15.0, 20.0, 10.0, 5.0])
    alloc = ["0-1", "1", "0-1", "0", "2"]
    cores = np.array([2, 2, 2, 2, 4])
    texts = assign_core_ids(start, end, alloc, cores, 4)
    assert texts == ["0-1 4-5", "6-7", "0-1 4-5", "2-3", "8-11"]
    nodes, count, fewest, most = core_ids_to_nodes(texts, 4)
    assert nodes == alloc
    assert count.tolist() == [2, 1, 2, 1, 1]
    assert fewest.tolist() == most.tolist() == cores.tolist()
    # no allocation or no times: no cores
    assert assign_core_ids(np.array([0.0, np.nan]), np.array([1.0, 2.0]), ["", "0"],
                           np.array([1, 1]), 4) == ["", ""]  # fmt: skip
    nodes, count, fewest, most = core_ids_to_nodes(["0-2 5", "", "4-7 12-15"], 4)
    assert (nodes, count.tolist()) == (["0-1", "", "1 3"], [2, 0, 2])
    assert (fewest.tolist(), most.tolist()) == ([1, 0, 4], [3, 0, 4])


def _core_boxes(path):
    """(job, core, start, end) of every core each job of a written jobs.csv holds."""
    df = pd.read_csv(path, keep_default_na=False, dtype={"allocated_resources": str})
    out = []
    for row in df.itertuples():
        for a, b in parse_intervals(row.allocated_resources):
            out += [(row.job_id, c, row.starting_time, row.finish_time) for c in range(a, b)]
    return df, pd.DataFrame(out, columns=["job", "core", "start", "end"])


def _assert_disjoint(boxes):
    """No two jobs hold one core at once (a job may start where another ends)."""
    b = boxes.sort_values(["core", "start", "end"]).reset_index(drop=True)
    same = b.core.to_numpy()[1:] == b.core.to_numpy()[:-1]
    clash = same & (b.start.to_numpy()[1:] < b.end.to_numpy()[:-1])
    assert not clash.any(), b.iloc[np.flatnonzero(clash)[0] : np.flatnonzero(clash)[0] + 2]


def _assert_cores_match(result, df, boxes, cpn):
    """The written cores are each job's nodes (from the result) x its cores on each node."""
    jobs = result.jobs.set_index("job_id")
    assert df.resource_unit.eq("core").all() and df.cores_per_node.eq(cpn).all()
    for jid, held in boxes.groupby("job"):
        per_node = (held.core // cpn).value_counts()
        nodes = {n for a, b in parse_intervals(jobs.alloc[jid]) for n in range(a, b)}
        assert set(per_node.index) == nodes
        assert per_node.eq(jobs.node_cores[jid]).all()
    assert (df.set_index("job_id").requested_number_of_resources == jobs.cores).all()


def test_a_co_location_run_writes_disjoint_core_ids(tmp_path):
    r = coloc_result()
    assert (r.jobs.placement == "spread").sum() >= 2  # jobs do share nodes
    path = tmp_path / "jobs.csv"
    r.to_batsim_csv(path)
    assert path.read_text().splitlines()[0] == ",".join(BATSIM_COLUMNS + CORE_COLUMNS)
    df, boxes = _core_boxes(path)
    _assert_disjoint(boxes)
    _assert_cores_match(r, df, boxes, 4)
    # the node ids alone draw two jobs on one node at once: what the core ids avoid
    write_jobs_csv(path, r.jobs)
    _, node_boxes = _core_boxes(path)
    with pytest.raises(AssertionError):
        _assert_disjoint(node_boxes)


@given(
    rows=st.lists(
        st.tuples(st.integers(0, 40), st.integers(1, 200), st.sampled_from([1, 2, 4, 6]),
                  st.integers(0, 1)),
        min_size=1, max_size=15,
    ),
    nodes=st.integers(3, 5),
    cores_per_socket=st.integers(2, 3),
    spec=st.sampled_from(["easy-coloc", "filler", "best-pair"]),
)  # fmt: skip
def test_core_ids_never_overlap_and_read_back(tmp_path_factory, rows, nodes, cores_per_socket,
                                              spec):  # fmt: skip
    t, recs = 0, []
    for i, (gap, run, procs, app) in enumerate(rows):
        t += gap
        recs.append({"id": i + 1, "submit": t, "run": run, "requested_time": 1.4 * run,
                     "procs": procs, "app": app})  # fmt: skip
    cluster = Cluster(nodes, 2, cores_per_socket)
    r = simulate(Workload.from_records(recs), cluster, spec, pool=POOL)
    path = tmp_path_factory.mktemp("cores") / "jobs.csv"
    r.to_batsim_csv(path)
    df, boxes = _core_boxes(path)
    _assert_disjoint(boxes)
    _assert_cores_match(r, df, boxes, cluster.cores_per_node)
    assert boxes.core.max() < cluster.total_cores
    table, notes = read_jobs_csv(path)
    jobs = r.jobs.set_index("job_id").loc[table.job_id]
    assert table.alloc.tolist() == jobs.alloc.tolist()
    assert table.nodes.tolist() == jobs.nodes.tolist()
    assert table.node_cores.tolist() == jobs.node_cores.tolist()
    assert table.attrs["cores_per_node"] == cluster.cores_per_node
    assert "core ids" in notes[0]
    assert validate_jobs(table, cluster) == []


def test_a_whole_node_run_keeps_node_ids(tmp_path):
    r = simulate(Workload.from_records([(1, 0, 10, 10, 6)]),
                 Cluster(2, 2, 2), "easy")  # fmt: skip
    path = tmp_path / "jobs.csv"
    r.to_batsim_csv(path)
    assert path.read_text().splitlines()[0] == ",".join(BATSIM_COLUMNS)
    assert pd.read_csv(path).allocated_resources.tolist() == ["0-1"]


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        (lambda t: t.replace('"core"', "cores", 1), 2, "resource_unit is 'cores'"),
        (lambda t: t.replace('"core"', "node", 1), 2, "resource_unit is 'node' in a file"),
        (lambda t: t.rstrip("4\n") + "3\n", 3, "'3' differs from the first"),
        (lambda t: t.replace('"core",4', "core,0"), 2, "'0' is not a positive integer"),
        (lambda t: t.replace(",cores_per_node", ",cpn"), 2, "there is no cores_per_node"),
        (lambda t: t.replace("0-1 4-5", "0-1 4"), 2, "holds 1 to 2 cores on its nodes"),
        (lambda t: t.replace("0-1 4-5", "0-3 4-7"), 2, "is 4 but allocated_resources"),
    ],
)
def test_a_bad_core_file_names_file_and_line(tmp_path, edit, where, message):
    path = tmp_path / "jobs.csv"
    frame = pd.DataFrame({"job_id": [1, 2], "submit": [0.0, 1.0], "start": [0.0, 1.0],
                          "end": [10.0, 5.0], "procs": [4, 2], "nodes": [2, 1],
                          "alloc": ["0-1", "1"], "node_cores": [2, 2]})  # fmt: skip
    write_jobs_csv(path, frame, cores_per_node=4)
    text = path.read_text()
    assert read_jobs_csv(path)[0].alloc.tolist() == ["0-1", "1"]
    path.write_text(edit(text))
    with pytest.raises(InputError) as exc:
        read_jobs_csv(path)
    assert str(exc.value).startswith(f"{path}:{where}: ")
    assert message in str(exc.value)


def test_evalys_draws_shared_nodes_as_disjoint_cores(tmp_path):
    jobset = pytest.importorskip("evalys.jobset")
    r = coloc_result()
    path = tmp_path / "jobs.csv"
    r.to_batsim_csv(path)
    js = jobset.JobSet.from_csv(str(path))
    assert js.MaxProcs == r.cluster.total_cores  # one row per core
    held = dict(zip(js.df.jobID.astype(int), js.df.allocated_resources, strict=True))
    jobs = r.jobs.set_index("job_id")
    for jid, cores in held.items():
        assert len(cores) == jobs.cores[jid]
    running = js.df.set_index(js.df.jobID.astype(int))
    for a in held:  # evalys sees no core held by two running jobs at once
        for b in held:
            if a < b and len(held[a] & held[b]):
                ra, rb = running.loc[a], running.loc[b]
                assert ra.finish_time <= rb.starting_time or rb.finish_time <= ra.starting_time
