"""SWF reader/writer: known answers on tiny files, real archive traces, errors with locations."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.jobs import COLUMNS, Workload
from coschedlab.platform import Cluster
from coschedlab.workload.swf import (
    cluster_from_header,
    integer_times,
    read_swf,
    write_swf,
    write_workload_swf,
)

DATA = Path("/work/shared/data/swf")
SDSC = DATA / "SDSC-SP2-1998-4.2-cln.swf.gz"
needs_data = pytest.mark.skipif(not SDSC.exists(), reason="shared SWF traces not present")

HEADER = """\
; Version: 2.2
; Computer: Test machine
;Installation: Lab
;      MaxNodes: 4  ( 2,  2)
; MaxProcs: 16
; Note: first note
;       continued here
;
; Note: second note
"""
# id submit wait run alloc cpu mem req_procs req_time req_mem status user group app queue part
# prec think
JOBS = """\
1 0 5 100 4 -1 -1 4 200 -1 1 7 2 3 1 1 -1 -1
2 10 0 50.5 2 -1 -1 -1 -1 -1 1 8 2 4 1 1 -1 -1
3 20.25 1 30 8.0 -1 -1 16 60 -1 0 9 2 5 1 1 1 12.5
4 30 1 -1 4 -1 -1 4 60 -1 5 9 2 5 1 1 -1 -1
5 40 1 10 -1 -1 -1 -1 60 -1 1 9 2 5 1 1 -1 -1
6 -1 1 10 2 -1 -1 2 60 -1 1 9 2 5 1 1 -1 -1
7 50 1 10 2 -1 -1 32 60 -1 1 9 2 5 1 1 -1 -1
"""


def write(tmp_path: Path, text: str, name: str = "t.swf", newline: str = "\n") -> Path:
    path = tmp_path / name
    data = text.replace("\n", newline).encode()
    if name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


# -- reading: known answers -----------------------------------------------------------------
def test_read_small_file_known_values(tmp_path):
    w = read_swf(write(tmp_path, HEADER + JOBS))
    assert w.id.tolist() == [1, 2, 3, 7]
    assert w.submit.tolist() == [0.0, 10.0, 20.25, 50.0]  # not shifted
    assert w.run.tolist() == [100.0, 50.5, 30.0, 10.0]
    # procs: field 8, else field 5; requested time: field 9, else run time
    assert w.procs.tolist() == [4, 2, 16, 32]
    assert w.requested_time.tolist() == [200.0, 50.5, 60.0, 60.0]
    assert w.status.tolist() == [1, 1, 0, 1]
    assert w.user.tolist() == [7, 8, 9, 9]
    assert w.app.tolist() == [3, 4, 5, 5]
    assert w.preceding.tolist() == [-1, -1, 1, -1]
    assert w.think_time.tolist() == [-1.0, -1.0, 12.5, -1.0]
    assert w.extra["alloc_procs"].tolist() == [4, 2, 8, 2]
    assert w.extra["req_procs"].tolist() == [4, -1, 16, 32]
    assert w.extra["trace_wait"].tolist() == [5.0, 0.0, 1.0, 1.0]
    assert w.extra["alloc_procs"].dtype == np.int32  # processor counts fit 32 bits
    assert w.user.dtype == w.columns["status"].dtype == np.int32  # the labels too
    assert w.dropped == {"unknown run time": 1, "no processors": 1, "unknown submit time": 1}
    assert w.source.endswith("t.swf")


def test_header_keys_repeats_and_continuations(tmp_path):
    w = read_swf(write(tmp_path, HEADER + JOBS))
    h = w.header
    assert h["Version"] == "2.2"
    assert h["Computer"] == "Test machine"
    assert h["Installation"] == "Lab"
    assert h["MaxNodes"] == "4  ( 2,  2)"
    assert h["Note"] == "first note\ncontinued here\nsecond note"
    assert cluster_from_header(h) == Cluster(4, 1, 4)


def test_drop_larger_than_machine(tmp_path):
    path = write(tmp_path, HEADER + JOBS)
    w = read_swf(path, max_procs=16)
    assert w.id.tolist() == [1, 2, 3]
    assert w.dropped["larger than the machine"] == 1
    w = read_swf(path, cluster=Cluster(2, 1, 4))  # 8 cores: drops 16 and 32
    assert w.id.tolist() == [1, 2]
    assert w.dropped["larger than the machine"] == 2
    # max_procs wins over the cluster
    assert len(read_swf(path, max_procs=100, cluster=Cluster(1, 1, 1))) == 4


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("name", ["t.swf", "t.swf.gz", "gzipped-without-suffix.swf"])
def test_plain_gzip_and_line_endings(tmp_path, name, newline):
    text = HEADER + JOBS
    path = tmp_path / name
    data = text.replace("\n", newline).encode()
    if "gz" in name:
        data = gzip.compress(data)
    path.write_bytes(data)
    w = read_swf(path)
    assert w.id.tolist() == [1, 2, 3, 7]
    assert w.header["Note"] == "first note\ncontinued here\nsecond note"


def test_blank_lines_leading_spaces_tabs_and_trailing_comment(tmp_path):
    text = "\n   \n  ; Version: 2.2\n\t1\t0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1 ; ok\n\n"
    w = read_swf(write(tmp_path, text))
    assert w.id.tolist() == [1]
    assert w.header == {"Version": "2.2"}


def test_integer_fields_written_as_floats(tmp_path):
    w = read_swf(write(tmp_path, "1.0 0 1 10 4.0 -1 -1 4.00 10 -1 1.0 2 3 4 5 6 -1 -1\n"))
    assert w.id.tolist() == [1] and w.procs.tolist() == [4] and w.user.tolist() == [2]


# -- reading: errors ---------------------------------------------------------------------------
GOOD = "1 0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n"


@pytest.mark.parametrize(
    "bad_line, message",
    [
        (
            "2 0 1 abc 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1",
            "field 4 (run time) is 'abc', not a number",
        ),
        ("2 0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1", "has 17 fields, SWF needs 18"),
        ("2 0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1 7", "has 19 fields, SWF needs 18"),
        (  # a newcomer's comment: '#' is not SWF's
            "# 2 0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1",
            "has 19 fields, SWF needs 18 (a comment? SWF comment lines start with ';')",
        ),
        (
            "2,0,1,10,1,-1,-1,1,10,-1,1,1,1,1,1,1,-1,-1",
            "has 1 field, SWF needs 18 (SWF separates its fields by spaces, not commas)",
        ),
        ("2 0 1 nan 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1", "field 4 (run time) is 'nan'"),
        ("2 inf 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1", "field 2 (submit time) is 'inf'"),
        (
            "2 0 1 10 4.5 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1",
            "field 5 (allocated processors) is '4.5', not an integer",
        ),
        ("2 0 1 1_0 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1", "field 4 (run time) is '1_0'"),
        ("2 0 1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 0x1", "field 18 (think time) is '0x1'"),
    ],
)
def test_bad_line_reports_file_and_line(tmp_path, bad_line, message):
    # header (9 lines) + blank + 2 good lines -> the bad line is physical line 13
    text = HEADER + "\n" + GOOD + GOOD.replace("1", "3", 1) + bad_line + "\n" + GOOD
    path = write(tmp_path, text, "bad.swf.gz")
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert err.value.where == f"{path}:13"
    assert message in err.value.what
    assert str(err.value).startswith(f"{path}:13: ")


def test_bad_line_crlf_line_number(tmp_path):
    text = "; Version: 2.2\r\n" + GOOD.replace("\n", "\r\n") + "2 0 x\r\n"
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert err.value.where == f"{path}:3"
    assert err.value.what == "has 3 fields, SWF needs 18"


def test_fields_hint_on_the_line_after_lone_and_crlf_breaks(tmp_path):
    # the hint reads the line the parser counted: lone CR and CR LF both end a line
    text = "; Version: 2.2\r" + GOOD.replace("\n", "\r\n") + "\r\n1 2 3\r# 4 5\n"
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert err.value.where == f"{path}:4"
    assert err.value.what == "has 3 fields, SWF needs 18"
    with pytest.raises(InputError) as err:
        read_swf(write(tmp_path, text.replace("1 2 3", GOOD.replace("1", "2", 1).strip()), "b.swf"))
    assert err.value.where == f"{tmp_path / 'b.swf'}:5"
    assert (
        err.value.what == "has 3 fields, SWF needs 18 (a comment? SWF comment lines start with ';')"
    )


def test_duplicate_job_number(tmp_path):
    path = write(tmp_path, "; x\n" + GOOD + GOOD)
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert err.value.where == f"{path}:3"
    assert "job number 1 appears again (first on line 2)" in err.value.what


@pytest.mark.parametrize("text", ["", "  \n\n", "; Version: 2.2\n;\n"])
def test_empty_or_header_only_file(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(InputError, match="empty|no job lines"):
        read_swf(path)


def test_all_jobs_dropped_is_an_error(tmp_path):
    path = write(tmp_path, "1 0 1 -1 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n")
    with pytest.raises(InputError, match="all 1 were dropped.*1 unknown run time"):
        read_swf(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        read_swf("/nonexistent/trace.swf")


# -- cluster_from_header -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "header, expected",
    [
        ({"MaxNodes": "184  ( 6,  171,   7)", "MaxProcs": "1664 (72, 1368, 224)"}, Cluster(1664)),
        ({"MaxNodes": "338 (batch partition; 512 total)", "MaxProcs": "338"}, Cluster(338)),
        ({"MaxNodes": "144", "MaxProcs": "1152"}, Cluster(144, 1, 8)),
        ({"MaxProcs": "93312"}, Cluster(93312)),
        ({"MaxNodes": "256"}, Cluster(256)),
        ({"MaxNodes": "junk", "MaxProcs": "-1"}, None),
        ({}, None),
    ],
)
def test_cluster_from_header(header, expected):
    assert cluster_from_header(header) == expected


# -- real archive traces -------------------------------------------------------------------------
@needs_data
def test_sdsc_sp2_counts_and_header():
    w = read_swf(SDSC)
    # 59,715 job lines; 5,671 have run time -1 (cancelled before starting)
    assert len(w) + sum(w.dropped.values()) == 59_715
    assert dict(w.dropped) == {"unknown run time": 5_671}
    assert len(w) == 54_044
    assert w.header["MaxProcs"] == "128"
    assert w.header["Queue"].splitlines()[1].split() == ["1", "express"]
    assert cluster_from_header(w.header) == Cluster(128)
    assert w.id[0] == 11 and w.submit[0] == 566129 and w.run[0] == 28826
    assert w.procs.max() <= 128
    assert len(read_swf(SDSC, max_procs=64)) < len(w)


@needs_data
@pytest.mark.parametrize(
    "name, n_kept, dropped",
    [
        ("HPC2N-2002-2.2-cln.swf.gz", 202_871, {}),
        ("KTH-SP2-1996-2.1-cln.swf.gz", 28_475, {"no processors": 1}),
        ("SDSC-DS-2004-2.1-cln.swf.gz", 85_045, {"unknown run time": 11_024}),
    ],
)
def test_other_archive_traces(name, n_kept, dropped):
    w = read_swf(DATA / name)
    assert len(w) == n_kept
    assert dict(w.dropped) == dropped


@needs_data
def test_archive_trace_round_trip(tmp_path):
    w = read_swf(DATA / "HPC2N-2002-2.2-cln.swf.gz").head(5000)  # float CPU times
    out = tmp_path / "hpc2n.swf"
    write_workload_swf(out, w)
    back = read_swf(out)
    for name in COLUMNS:
        np.testing.assert_array_equal(back.columns[name], w.columns[name], err_msg=name)
    for name in w.extra:
        np.testing.assert_array_equal(back.extra[name], w.extra[name], err_msg=name)
    assert back.header["MaxProcs"] == "240"
    assert back.header["MaxJobs"] == "5000"


# -- writing ------------------------------------------------------------------------------------
def test_write_simulated_result(tmp_path):
    frame = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit": [0.0, 10.0],
            "start": [5.0, 10.5],
            "end": [105.0, 20.0],
            "run": [100.0, 9.5],
            "wait": [5.0, 0.5],
            "procs": [4, 2],
            "requested_time": [200.0, 60.0],
            "status": [1, 1],
            "user": [3, 4],
        }
    )
    path = tmp_path / "out.swf"
    write_swf(path, frame, header={"MaxProcs": "8", "Scheduler": "easy", "Computer": "toy"})
    lines = path.read_text().splitlines()
    assert lines[0] == "; Version: 2.2"
    assert "; Computer: toy" in lines and "; MaxProcs: 8" in lines and "; MaxJobs: 2" in lines
    assert any(
        line.startswith("; Note:") and "coschedlab" in line and "easy" in line for line in lines
    )
    jobs = [" ".join(line.split()) for line in lines if not line.startswith(";")]
    assert jobs[0] == "1 0 5 100 4 -1 -1 4 200 -1 1 3 -1 -1 -1 -1 -1 -1"
    assert jobs[1] == "2 10 0.5 9.5 2 -1 -1 2 60 -1 1 4 -1 -1 -1 -1 -1 -1"
    w = read_swf(path)
    assert w.run.tolist() == [100.0, 9.5]
    assert w.extra["trace_wait"].tolist() == [5.0, 0.5]


def test_write_float_formatting_and_gzip(tmp_path):
    frame = pd.DataFrame(
        {"id": [1, 2], "submit": [0.1234567, 1e7 + 0.25], "run": [1.0, 2.000001], "procs": [1, 1]}
    )
    path = tmp_path / "out.swf.gz"
    write_swf(path, frame)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    jobs = [
        line.split()
        for line in gzip.decompress(raw).decode().splitlines()
        if not line.startswith(";")
    ]
    assert jobs[0][:4] == ["1", "0.123457", "-1", "1"]
    assert jobs[1][:4] == ["2", "10000000.25", "-1", "2.000001"]
    # deterministic bytes (gzip mtime fixed)
    write_swf(tmp_path / "again.swf.gz", frame)
    assert (tmp_path / "again.swf.gz").read_bytes() == raw


def _job_tokens(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines() if ln and not ln.startswith(";")]


def test_integer_swf_known_answer(tmp_path):
    # job 1: submit 0.4, start 10.6, end 20.4 -> 0, 11, 20: wait 11, run 9 (not rint(9.8) = 10);
    # requested 9.8 >= run 9.8 -> rint 10 stays; job 2: start 5.5 -> 6 (halves to even),
    # end 15.2 -> 15, run 9, requested 9.5 -> rint 10 >= 9; job 3: run 2.6 of a request of 2.7:
    # rint(2.7) = 3 >= written run 3; job 4 exceeds its request (killed late): request not raised
    frame = pd.DataFrame(
        {
            "job_id": [1, 2, 3, 4],
            "submit": [0.4, 5.5, 7.0, 8.0],
            "start": [10.6, 5.5, 7.2, 8.0],
            "end": [20.4, 15.2, 9.8, 9.6],
            "procs": [4, 2, 1, 1],
            "requested_time": [9.8, 9.5, 2.7, 1.4],
            "avg_cpu": [3.7, np.nan, 1.5, 2.5],
            "think_time": [0.5, -1.0, 1.5, 2.5],
        }
    )
    path = tmp_path / "int.swf"
    write_swf(path, frame, integers=True)
    rows = _job_tokens(path)
    assert [r[:6] for r in rows] == [
        ["1", "0", "11", "9", "4", "4"],
        ["2", "6", "0", "9", "2", "-1"],
        ["3", "7", "0", "3", "1", "2"],
        ["4", "8", "0", "2", "1", "2"],
    ]
    assert [r[8] for r in rows] == ["10", "10", "3", "1"]
    assert [r[17] for r in rows] == ["0", "-1", "2", "2"]  # halves to even


@st.composite
def result_frames(draw):
    """Simulated results with fractional times: start >= submit, end >= start."""
    n = draw(st.integers(1, 25))
    t = st.floats(0, 1e6, allow_nan=False)
    submit = np.array(draw(st.lists(t, min_size=n, max_size=n)))
    start = submit + np.array(draw(st.lists(t, min_size=n, max_size=n)))
    end = start + np.array(draw(st.lists(t, min_size=n, max_size=n)))
    over = np.array(draw(st.lists(st.floats(-50, 50), min_size=n, max_size=n)))
    return pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit": submit,
            "start": start,
            "end": end,
            "procs": draw(st.lists(st.integers(1, 64), min_size=n, max_size=n)),
            "requested_time": np.maximum(end - start + over, 0.0),
            "status": 1,
        }
    )


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=result_frames())
def test_integer_swf_property(tmp_path, frame):
    path = tmp_path / "int.swf"
    write_swf(path, frame, integers=True)
    rows = _job_tokens(path)
    assert all(len(r) == 18 for r in rows)
    values = np.array([[int(tok) for tok in r] for r in rows])  # integers only, or ValueError
    submit, wait, run, req = values[:, 1], values[:, 2], values[:, 3], values[:, 8]
    end = np.rint(frame["end"].to_numpy())
    assert (wait >= 0).all() and (run >= 0).all()  # start >= submit, end >= start
    assert (submit + wait + run == end).all()
    np.testing.assert_array_equal(submit, np.rint(frame["submit"]))
    np.testing.assert_array_equal(submit + wait, np.rint(frame["start"]))
    ran_within = frame["end"] - frame["start"] <= frame["requested_time"]
    assert (req[ran_within] >= run[ran_within]).all()
    assert (np.abs(req - frame["requested_time"].to_numpy()) <= np.maximum(1, run - req)).all()
    back = read_swf(path)  # reads back as the same jobs
    assert back.id.tolist() == frame["job_id"].tolist()
    assert back.procs.tolist() == frame["procs"].tolist()
    np.testing.assert_array_equal(back.submit, submit)
    np.testing.assert_array_equal(back.run, run)
    np.testing.assert_array_equal(back.extra["trace_wait"], wait)
    assert (back.requested_time == np.where(req > 0, req, run)).all()


def test_integer_times_of_a_workload_and_unknowns():
    # an unknown wait rounds the run alone; unknown values stay -1
    sub, wait, run, req = integer_times(
        np.array([0.5, 1.5, -1.0]), np.array([-1.0, 2.2, 3.0]),
        np.array([2.5, 1.4, 4.0]), np.array([-1.0, 0.2, np.nan]),
    )  # fmt: skip
    assert sub.tolist() == [0.0, 2.0, -1.0]
    assert wait.tolist() == [-1.0, 2.0, -1.0]  # start rint(3.7) = 4
    assert run.tolist() == [2.0, 1.0, 4.0]  # end rint(5.1) = 5
    assert req.tolist() == [-1.0, 0.0, -1.0]  # 0.2 < run 1.4: the job overran, not raised


def test_result_to_swf_integers(tmp_path):
    from coschedlab import Cluster, simulate

    w = Workload.from_records([(1, 0.3, 10.6, 12.0, 2), (2, 0.7, 5.2, 5.2, 2)])
    r = simulate(w, Cluster(2), "easy")
    r.to_swf(tmp_path / "float.swf")
    r.to_swf(tmp_path / "int.swf", integers=True)
    assert any("." in tok for row in _job_tokens(tmp_path / "float.swf") for tok in row)
    rows = _job_tokens(tmp_path / "int.swf")
    assert [r[:4] for r in rows] == [["1", "0", "0", "11"], ["2", "1", "10", "5"]]
    # job 2 waits for job 1 (0.3 + 10.6 = 10.9 -> 11): start 11 = 1 + 10; end 16.1 -> 16


def test_evalys_swf_reader_and_the_documented_workaround(tmp_path):
    # docs/semantics.md: evalys's own SWF reader fails under pandas 3 (it passes the removed
    # delim_whitespace argument); reading result.swf with a whitespace separator and handing
    # the frame to evalys works. If evalys's reader starts working, update the docs.
    workload = pytest.importorskip("evalys.workload")
    from coschedlab import Cluster, simulate

    w = Workload.from_records([(1, 0.3, 10.6, 12.0, 2), (2, 0.7, 5.2, 5.2, 2), (3, 1, 4, 4, 1)])
    path = tmp_path / "result.swf"
    simulate(w, Cluster(2), "easy").to_swf(path)
    if int(pd.__version__.split(".")[0]) >= 3:
        with pytest.raises(TypeError, match="delim_whitespace"):
            workload.Workload.from_csv(str(path))
    names = ["jobID", "submission_time", "waiting_time", "execution_time", "proc_alloc",
             "cpu_used", "mem_used", "proc_req", "user_est", "mem_req", "status", "uid",
             "gid", "exe_num", "queue", "partition", "prev_jobs", "think_time"]  # fmt: skip
    df = pd.read_csv(path, comment=";", sep=r"\s+", header=None, names=names)
    ev = workload.Workload(df, MaxProcs="2")
    assert ev.df.jobID.tolist() == [1, 2, 3] and ev.MaxProcs == 2
    np.testing.assert_allclose(ev.df.execution_time, [10.6, 5.2, 4.0])


def test_write_keeps_unknown_requested_procs(tmp_path):
    w = read_swf(write(tmp_path, HEADER + JOBS))
    write_workload_swf(tmp_path / "rt.swf", w)
    line2 = [ln for ln in (tmp_path / "rt.swf").read_text().splitlines() if ln.split()[0] == "2"]
    assert line2[0].split()[7] == "-1"  # field 8 still "unknown", procs come from field 5


# -- round-trip property -----------------------------------------------------------------------
times = st.one_of(
    st.integers(0, 10**8).map(float),
    st.floats(0, 1e8, allow_nan=False).map(lambda x: round(x, 6)),
)


@st.composite
def workloads(draw):
    n = draw(st.integers(1, 30))
    ids = draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n, unique=True))
    run = draw(st.lists(times, min_size=n, max_size=n))
    cols = {
        "id": np.array(ids),
        "submit": np.array(draw(st.lists(times, min_size=n, max_size=n))),
        "run": np.array(run),
        "requested_time": np.round(
            np.array(run) + np.array(draw(st.lists(times, min_size=n, max_size=n))), 6
        ),
        "procs": np.array(draw(st.lists(st.integers(1, 4096), min_size=n, max_size=n))),
        "user": np.array(draw(st.lists(st.integers(-1, 500), min_size=n, max_size=n))),
        "status": np.array(draw(st.lists(st.sampled_from([0, 1, 5]), min_size=n, max_size=n))),
        "think_time": np.array(draw(st.lists(times, min_size=n, max_size=n))),
    }
    return Workload(columns=cols, header={"MaxProcs": "4096"})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(w=workloads(), gz=st.booleans())
def test_round_trip_property(tmp_path, w, gz):
    first = tmp_path / ("a.swf.gz" if gz else "a.swf")
    write_workload_swf(first, w)
    r1 = read_swf(first)
    for name in COLUMNS:
        np.testing.assert_array_equal(r1.columns[name], w.columns[name], err_msg=name)
    second = tmp_path / "b.swf"
    write_workload_swf(second, r1)
    r2 = read_swf(second)
    for name in COLUMNS:
        np.testing.assert_array_equal(r2.columns[name], r1.columns[name], err_msg=name)
    for name in r1.extra:
        np.testing.assert_array_equal(r2.extra[name], r1.extra[name], err_msg=name)
    assert r2.header["MaxProcs"] == "4096"


def test_indented_comment_lines_inside_the_jobs(tmp_path):
    text = GOOD + "   ; a comment between jobs\n\t;Note: indented\n" + GOOD.replace("1", "2", 1)
    w = read_swf(write(tmp_path, text))
    assert w.id.tolist() == [1, 2]
    assert w.header == {"Note": "indented"}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e12, 1e12, allow_nan=False),
            st.integers(-(10**12), 10**12).map(float),
            st.sampled_from([0.0, -0.0, 0.5, -0.25, 1e-7, -1e-7, 0.9999999, 2e15]),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_vectorised_number_text_matches_python(values):
    from swf_oracle import _format_python, _number_cells

    a = np.array(values)
    fast = [row.tobytes().decode() for row in _number_cells(a)]
    slow = [row.tobytes().decode() for row in _format_python(a)]
    assert [s.strip() for s in fast] == [s.strip() for s in slow]
    for text, v in zip(fast, values, strict=True):
        assert abs(float(text) - v) <= 5e-7 * max(1.0, abs(v) * 1e-9)


_cells = st.one_of(
    st.floats(-1e13, 1e13),
    st.sampled_from([np.nan, np.inf, -np.inf]),
    st.integers(-(10**12), 10**12).map(float),
    st.integers(-(10**7), 10**7).map(lambda k: k / 64),
    st.sampled_from([0.0, -0.0, 0.5, -0.25, 1e-7, -1e-7, 0.9999999, 0.0000005, 2.5e-6, 9e12]),
)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda k: st.lists(
    st.lists(_cells, min_size=k, max_size=k), min_size=1, max_size=25)))  # fmt: skip
def test_compiled_job_lines_are_the_vectorised_ones(table):
    """The compiled rows (write_fixed_width, with write_swf's choice of cells) against the
    vectorised NumPy lines they replaced (tests/swf_oracle.py), byte for byte."""
    import io

    from swf_oracle import _fixed_width_lines

    from coschedlab._core.textrows import write_fixed_width
    from coschedlab.workload.swf import _fixed_width_columns

    columns = [np.array(c) for c in zip(*table, strict=True)]
    buf = io.BytesIO()
    write_fixed_width(buf.write, len(table), _fixed_width_columns(columns))
    assert buf.getvalue() == _fixed_width_lines(columns)


def test_gzip_output_is_the_one_of_the_whole_text(tmp_path):
    """result.swf.gz written in chunks is the same file as the whole text compressed once."""
    import gzip

    frame = {"job_id": np.arange(1, 30001), "submit": np.arange(30000) * 1.5,
             "start": np.arange(30000) * 2.0, "end": np.arange(30000) * 2.0 + 7,
             "procs": np.ones(30000)}  # fmt: skip
    write_swf(tmp_path / "a.swf", frame)
    write_swf(tmp_path / "a.swf.gz", frame)
    text = (tmp_path / "a.swf").read_bytes()
    with (
        open(tmp_path / "b.swf.gz", "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz,
    ):
        gz.write(text)
    assert (tmp_path / "a.swf.gz").read_bytes() == (tmp_path / "b.swf.gz").read_bytes()


@pytest.mark.slow
def test_million_lines_read_in_a_few_seconds(tmp_path):

    n = 1_000_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "submit": np.sort(rng.uniform(0, 1e8, n)),
            "run": rng.integers(0, 10**5, n).astype(float),
            "procs": rng.integers(1, 1024, n),
        }
    )
    path = tmp_path / "big.swf.gz"
    write_swf(path, frame)
    w = read_swf(path)  # its speed is a benchmark figure (benchmarks/bench_swf_read.py)
    assert len(w) == n
    np.testing.assert_allclose(w.submit, frame["submit"], atol=5e-7)


@pytest.mark.slow
@needs_data
def test_sdsc_reads_fast():
    read_swf(SDSC)  # warm up imports and caches
    best = min(_timed(lambda: read_swf(SDSC)) for _ in range(3))
    assert best < 0.3, f"SDSC-SP2 took {best:.3f} s"


def _timed(fn) -> float:
    import time

    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_latin1_header_and_quote_in_job_line(tmp_path):
    path = tmp_path / "l1.swf"
    path.write_bytes(
        b"; Installation: Caf\xe9\n" + GOOD.encode() + b'2 0 1 "10' + GOOD[8:].encode()
    )
    with pytest.raises(InputError) as err:
        read_swf(path)
    assert err.value.where == f"{path}:3"
    assert err.value.what == "field 4 (run time) is '\"10', not a number"
    path.write_bytes(b"; Installation: Caf\xe9\n" + GOOD.encode())
    assert read_swf(path).header["Installation"] == "Café"


# -- the compiled parse loop against a plain-Python reference ----------------------------------
# The reference is the line-by-line parser the package had before its parse loop was compiled
# (coschedlab._core.swf_parse), kept here only as an oracle: the same values (bit for bit), the
# same line numbers and, at the first bad line, the same InputError.
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INT_FIELDS = (0, 4, 7, 10, 11, 12, 13, 14, 15, 16)


def reference_parse(data: bytes, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Job lines as an (n, 18) array and their line numbers, in plain Python."""
    from coschedlab.workload.swf import FIELD_NAMES, N_FIELDS, _text, fields_message

    rows: list[list[float]] = []
    linenos: list[int] = []
    for lineno, raw in enumerate(data.splitlines(), start=1):
        tokens = raw.split(b";", 1)[0].split()
        if not tokens:
            continue
        loc = f"{where}:{lineno}"
        if len(tokens) != N_FIELDS:
            raise InputError(fields_message(tokens), where=loc)
        row = []
        for i, tok in enumerate(tokens):
            shown = f"field {i + 1} ({FIELD_NAMES[i]}) is {_text(tok)!r}"
            if not _NUMBER.fullmatch(tok):
                raise InputError(f"{shown}, not a number", where=loc)
            value = float(tok)
            if not np.isfinite(value):
                raise InputError(f"{shown}, not a finite number", where=loc)
            if i in _INT_FIELDS and value != round(value):
                raise InputError(f"{shown}, not an integer", where=loc)
            row.append(value)
        rows.append(row)
        linenos.append(lineno)
    return np.array(rows, dtype=np.float64).reshape(-1, N_FIELDS), np.array(linenos)


def assert_same_parse(data: bytes) -> None:
    """The compiled parse of ``data`` and the reference agree (values bitwise, or the error)."""
    from coschedlab.workload.swf import _parse_jobs

    try:
        expected = reference_parse(data, "t.swf")
    except InputError as exc:
        with pytest.raises(InputError) as err:
            _parse_jobs(data, "t.swf")
        assert (err.value.what, err.value.where) == (exc.what, exc.where)
        return
    fields, linenos = _parse_jobs(data, "t.swf")
    assert len(fields) == 18 and all(len(f) == len(linenos) for f in fields)
    values = np.column_stack(fields)  # (n, 18), as the reference gives
    assert values.shape == expected[0].shape
    assert np.ascontiguousarray(values).tobytes() == expected[0].tobytes()  # -0.0 included
    assert linenos.tolist() == expected[1].tolist()


BUNDLED = Path(__file__).resolve().parents[1] / "src" / "coschedlab" / "data"


@pytest.mark.parametrize("path", sorted(BUNDLED.glob("*.swf.gz")), ids=lambda p: p.name)
def test_compiled_parse_matches_reference_on_bundled_traces(path):
    assert_same_parse(gzip.decompress(path.read_bytes()))


@pytest.mark.slow
@needs_data
@pytest.mark.parametrize("path", sorted(DATA.glob("*.swf.gz")), ids=lambda p: p.name)
def test_compiled_parse_matches_reference_on_every_shared_trace(path):
    assert_same_parse(gzip.decompress(path.read_bytes()))


def _number_texts(x: float) -> list[str]:
    return [repr(x), f"{x:.17g}", f"{x:e}", f"{x:.3f}", f"{x:E}".replace("E+", "E")]


# numbers written in every way SWF writers do (and some no writer should), and non-numbers
NUMBER_TOKENS = [
    "-1", "0", "-0", "+0", "-0.0", "007", "1.", ".5", "-.5", "+3", "1e5", "1E-5", "1e+22", "1e23",
    "1e-22", "1e-23", "123456789012345e22", "1234567890123456", "0.1", "2.5e-3",
    "9007199254740993", "1e400", "-1e400", "1e-400", "4.0", "4.5", "1e0000000000000000001",
    "0e999", "1.0000000000000000000001", "99999999999999999999999999999.5",
]  # fmt: skip
BAD_TOKENS = [
    "nan", "inf", "-inf", "abc", "1_0", "0x1", "1e", "e5", ".", "-", "+", "1.2.3", "1e5.0", "--1",
    '"10', "1,5", "\u00e9", "\u00a0", "\x00", "1\x85",
]  # fmt: skip
tokens = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).flatmap(
        lambda x: st.sampled_from(_number_texts(x))
    ),
    st.sampled_from(NUMBER_TOKENS),
    st.sampled_from(BAD_TOKENS),
)
blanks = st.sampled_from([" ", "  ", "\t", " \t ", "\x0b", "\x0c"])


@st.composite
def swf_texts(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["job"] * 6 + ["comment", "blank", "indented comment"]))
        if kind == "job":
            n = draw(st.sampled_from([18] * 8 + [0, 1, 17, 19]))
            toks = draw(st.lists(tokens, min_size=n, max_size=n))
            sep = draw(blanks)
            line = draw(st.sampled_from(["", " ", "\t"])) + sep.join(toks)
            line += draw(st.sampled_from(["", " ", " ; note", ";x y", "\t;"]))
        elif kind == "comment":
            line = "; Note: " + draw(st.text(max_size=10)).replace("\n", " ").replace("\r", " ")
        elif kind == "blank":
            line = draw(st.sampled_from(["", "   ", "\t"]))
        else:
            line = "   ; indented"
        lines.append(line)
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines),
                         max_size=len(lines)))  # fmt: skip
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    if lines and draw(st.booleans()):
        text = text.rstrip("\r\n")  # no line end after the last line
    return text.encode(draw(st.sampled_from(["utf-8", "latin-1"])), errors="replace")


@settings(max_examples=100, deadline=None)
@given(swf_texts())
def test_compiled_parse_matches_reference_on_generated_text(data):
    assert_same_parse(data)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 4))
def test_compiled_number_conversion_is_float(x, how):
    text = _number_texts(x)[how]
    line = " ".join(["1", text, *["-1"] * 16]).encode()
    assert_same_parse(line)


def _first_range_error_row_major(values: np.ndarray) -> tuple[int, int, str] | None:
    """The textbook scan of the range check: cell by cell in file order (line, then field),
    the first value beyond its field's limit or negative other than -1 where -1 is unknown."""
    from coschedlab.jobs import MAX_LABEL, MAX_PROCS, MAX_TIME
    from coschedlab.workload import swf

    for row in range(len(values)):
        for field in range(18):
            x = values[row, field]
            limit = swf.MAX_ANY
            if field in swf._TIME_FIELDS:
                limit = MAX_TIME
            elif field in swf._PROC_FIELDS:
                limit = MAX_PROCS
            elif field in swf._LABEL_FIELDS:
                limit = MAX_LABEL
            if field in swf._MINUS_ONE_FIELDS and x < 0 and x != -1:
                return row, field, "negative"
            if abs(x) > limit:
                return row, field, "range"
    return None


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_range_check_reports_the_first_bad_value_in_file_order(data):
    """The range check (a field at a time) names the same line, field and kind as the
    cell-by-cell scan in file order, whatever bad values the lines hold."""
    from coschedlab.workload.swf import _check_ranges

    n = data.draw(st.integers(1, 6))
    values = np.ones((n, 18))
    bad_values = st.sampled_from([-5.0, -1.0, -2e15, 3e9, 2e10, 5e15, 0.0])
    for _ in range(data.draw(st.integers(0, 4))):
        row, field = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, 17))
        values[row, field] = data.draw(bad_values)
    linenos = np.arange(n, dtype=np.int64) + 10
    want = _first_range_error_row_major(values)
    fields = [np.ascontiguousarray(values[:, f]) for f in range(18)]
    if want is None:
        _check_ranges(fields, linenos, "t.swf")
        return
    row, field, kind = want
    with pytest.raises(InputError) as err:
        _check_ranges(fields, linenos, "t.swf")
    assert err.value.where == f"t.swf:{row + 10}"
    assert err.value.what.startswith(f"field {field + 1} (")
    assert ("SWF writes -1 for unknown" in err.value.what) == (kind == "negative")
