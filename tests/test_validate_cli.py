"""``coschedlab validate``: result directories, jobs.parquet files and Batsim jobs.csv files from
any simulator; exit 0 (valid), 1 (an invariant broken, each printed), 2 (malformed input, one
line ``error: FILE:LINE: what``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import workload
from test_batsim import BATSIM4_OVERLAP, BATSIM4_VALID

from coschedlab import Cluster, Workload, simulate
from coschedlab.cli.main import main
from coschedlab.coloc import App, Heatmap, Pool
from coschedlab.workload.batsim import write_jobs_csv


@pytest.fixture
def run(capsys, monkeypatch):
    """Run the command line in this process: (exit code, stdout, stderr)."""

    def go(*args):
        monkeypatch.setattr(sys, "argv", ["coschedlab", "validate", *map(str, args)])
        with pytest.raises(SystemExit) as exc:
            main()
        out = capsys.readouterr()
        return exc.value.code, out.out, out.err

    return go


def one_error_line(code, err):
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def saved_run(tmp_path, spec="easy", w=None, **kw) -> Path:
    w = w or workload((1, 10, 100, 100, 3), (2, 11, 100, 100, 4), (3, 12, 1000, 1000, 1),
                      (4, 13, 50, 80, 1))  # fmt: skip
    out = tmp_path / spec.replace(":", "_")
    simulate(w, Cluster(4), spec, **kw).save(out)
    return out


# -- a Batsim jobs.csv from another simulator --------------------------------------------------


def test_batsim_jobs_csv_with_two_jobs_on_node_3_fails(tmp_path, run):
    path = tmp_path / "out_jobs.csv"  # Batsim's own name: prefix + _jobs.csv
    path.write_text(BATSIM4_OVERLAP)
    code, out, err = run(path, "--nodes", "8")
    assert code == 1, err
    lines = out.splitlines()
    assert (
        f"{path}: node 3 is given to job 1 [0.0, 100.0) and to job 2 [50.0, 110.0) at once" in lines
    )
    assert f"{path}: note: 1 rejected job(s) left out (they never ran)" in lines


def test_a_valid_batsim_jobs_csv_passes(tmp_path, run):
    path = tmp_path / "out_jobs.csv"
    path.write_text(BATSIM4_VALID)
    code, out, err = run(path, "--nodes", "8")
    assert code == 0, err
    assert out.splitlines()[0] == (
        f"{path}: 3 jobs, all invariants hold (checked: times, capacity, per-node overlap)"
    )


def test_the_machine_size_is_read_from_the_allocations_or_given(tmp_path, run):
    path = tmp_path / "out_jobs.csv"
    path.write_text(BATSIM4_VALID)
    code, out, err = run(path)  # no --nodes, no metrics.json: the highest node id tells it
    assert code == 0, err
    assert out.splitlines() == [
        f"{path}: 3 jobs, all invariants hold (checked: times, capacity, per-node overlap)",
        f"{path}: note: 1 rejected job(s) left out (they never ran)",
        f"{path}: note: no machine size given (--nodes, or a metrics.json beside the file): "
        "8 nodes, from the highest allocated node id (7)",
    ]
    overlap = tmp_path / "overlap_jobs.csv"
    overlap.write_text(BATSIM4_OVERLAP)  # the overlap is found without the size too
    code, out, _ = run(overlap)
    assert code == 1 and "node 3 is given to job 1 [0.0, 100.0) and to job 2" in out
    code, out, _ = run(path, "--nodes", "6")  # job 4 runs on resource 7
    assert code == 1 and "job 4 holds a node outside 0..5 ('7')" in out


def test_the_machine_size_is_needed_when_allocations_are_missing(tmp_path, run):
    path = tmp_path / "out_jobs.csv"
    text = BATSIM4_VALID.replace(",0-3,", ",,")  # job 1 ran, its allocation is not recorded
    assert text != BATSIM4_VALID
    path.write_text(text)
    line = one_error_line(*run(path)[::2])
    assert line.startswith(f"error: {path}: the machine size is needed: give --nodes N")


def test_guarantees_can_be_asked_for_a_batsim_file(tmp_path, run):
    path = tmp_path / "out_jobs.csv"
    path.write_text(BATSIM4_VALID)
    assert run(path, "--nodes", "8")[0] == 0  # no promise asked: a valid schedule
    # but not an EASY one: job 2 (2 resources) waited from 5 to 50 with 4 resources idle
    code, out, _ = run(path, "--nodes", "8", "--guarantee", "head", "-g", "reservations")
    assert code == 1
    assert (
        f"{path}: EASY delayed head job 2: head at t=5.0, shadow time 5.0, started at 50.0" in out
    )
    assert "checked: times, capacity, per-node overlap, head)" in out
    assert f"{path}: not checked: reservations (no reservation column)" in out


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (lambda t: t.replace("allocated_resources,", "resources,"), 1,
         "not a Batsim jobs.csv: no column(s) allocated_resources in the header"),
        (lambda t: t.replace(",50.000000,60", ",fifty,60"), 5,
         "starting_time is not a number: 'fifty'"),
        (lambda t: t.replace(",3-4,", ",3..4,"), 5,
         "allocated_resources: bad node list '3..4': expected ranges like '0-3 7'"),
        (lambda t: t.replace(",0-3,-1", ",0-3,,-1"), 3, "18 fields where the header has 17"),
    ],
)  # fmt: skip
def test_a_malformed_jobs_csv_is_one_line_with_file_and_line(tmp_path, run, edit, line, message):
    path = tmp_path / "jobs.csv"
    path.write_text(edit(BATSIM4_OVERLAP))
    assert one_error_line(*run(path, "--nodes", "8")[::2]) == f"error: {path}:{line}: {message}"


def test_malformed_input_through_the_installed_command(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text(BATSIM4_OVERLAP.replace(",50.000000,60", ",x,60"))
    p = subprocess.run(
        [sys.executable, "-m", "coschedlab.cli", "validate", str(path), "--nodes", "8"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert one_error_line(p.returncode, p.stderr) == (
        f"error: {path}:5: starting_time is not a number: 'x'"
    )


# -- a result directory: jobs.parquet and jobs.csv, each on its own ----------------------------


def test_a_result_directory_checks_both_files(tmp_path, run):
    out = saved_run(tmp_path)
    code, text, err = run(out)
    assert code == 0, err
    lines = text.splitlines()
    assert f"{out}/jobs.parquet: 4 jobs, all invariants hold (checked: times, capacity, " \
        "per-node overlap, head, reservations)" in lines  # fmt: skip
    assert f"{out}/jobs.csv: 4 jobs, all invariants hold (checked: times, capacity, " \
        "per-node overlap, head)" in lines  # fmt: skip
    assert f"{out}/jobs.csv: not checked: reservations (no reservation column)" in lines


def test_an_edited_jobs_csv_no_longer_passes(tmp_path, run):
    out = saved_run(tmp_path, "fcfs")
    csv = pd.read_csv(out / "jobs.csv", keep_default_na=False)
    parquet = pd.read_parquet(out / "jobs.parquet")
    # job 4 (1 node) moved under job 1 (3 nodes) on job 1's first node
    first = int(csv.loc[csv.job_id == 1, "allocated_resources"].iloc[0].split("-")[0])
    csv.loc[csv.job_id == 4, ["starting_time", "finish_time", "allocated_resources"]] = [
        20.0, 70.0, str(first)
    ]  # fmt: skip
    csv.to_csv(out / "jobs.csv", index=False)
    code, text, _ = run(out)
    assert code == 1
    lines = text.splitlines()
    assert any(
        line.startswith(f"{out}/jobs.csv: node {first} is given to job 1 ")
        and "and to job 4 [20.0, 70.0) at once" in line
        for line in lines
    ), text
    # the parquet file is checked on its own, and still holds
    assert f"{out}/jobs.parquet: {len(parquet):,} jobs, all invariants hold" in text
    # and the csv alone, with the machine from metrics.json beside it
    code, text, _ = run(out / "jobs.csv")
    assert code == 1 and f"node {first} is given to job 1" in text


def test_our_own_jobs_csv_of_a_co_location_run_passes(tmp_path, run):
    # shared nodes: jobs.csv holds core ids (resource_unit core), read back as nodes and the
    # cores held on each; a jobs.csv of node ids (written before) takes them from jobs.parquet
    pool = Pool((App("A", 2, 100.0), App("B", 2, 100.0)), Heatmap(["A", "B"], [[1, 2], [0.5, 1]]))
    rows = [{"id": i, "submit": 3 * i, "run": 60 + 7 * i, "requested_time": 200, "procs": 2,
             "app": i % 2} for i in range(1, 13)]  # fmt: skip
    out = tmp_path / "coloc"
    r = simulate(Workload.from_records(rows), Cluster(2, 2, 2), "easy-coloc", pool=pool)
    r.save(out)
    assert "node_cores" in r.jobs and r.validate() == []
    code, text, err = run(out)
    assert code == 0, (text, err)
    assert f"{out}/jobs.csv: note: allocated_resources are core ids (4 cores per node)" in text
    assert "from jobs.parquet" not in text
    assert "per-node cores" in text
    # the csv alone, without metrics.json: its cores_per_node column tells the machine
    alone = tmp_path / "other" / "jobs.csv"
    alone.parent.mkdir()
    alone.write_bytes((out / "jobs.csv").read_bytes())
    code, text, err = run(alone, "--nodes", "2")
    assert code == 0 and f"{alone}: 12 jobs, all invariants hold" in text, (text, err)
    line = one_error_line(*run(alone, "--nodes", "2", "--cores-per-node", "8")[::2])
    assert "cores_per_node is 4 in the file, but the machine has 8 cores per node" in line
    # two jobs on one core at once: the cores of node 0 overfilled
    csv = pd.read_csv(out / "jobs.csv", keep_default_na=False)
    first = csv.iloc[0]
    times = ["submission_time", "starting_time", "finish_time"]
    csv.loc[1:4, times] = first[times].tolist()
    csv.loc[1:4, "allocated_resources"] = ["0", "1", "2", "3"]
    csv.loc[1:4, "requested_number_of_resources"] = 1
    csv.to_csv(alone, index=False)
    code, text, _ = run(alone, "--nodes", "2")
    assert code == 1 and "node 0 has 5 cores in use at t=3.0 (4 cores;" in text, text
    # the node-id form: cores per node from jobs.parquet
    write_jobs_csv(out / "jobs.csv", r.jobs)
    code, text, err = run(out)
    assert code == 0, (text, err)
    assert f"{out}/jobs.csv: note: cores per node of each job from jobs.parquet" in text
    assert "per-node cores" in text


def test_the_stored_guarantees_decide(tmp_path, run):
    out = saved_run(tmp_path)
    jobs = pd.read_parquet(out / "jobs.parquet")
    jobs.loc[jobs.job_id == 2, ["start", "end"]] = [150.0, 250.0]  # head job 2 delayed
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [250.0, 1250.0]
    jobs.to_parquet(out / "jobs.parquet")
    (out / "jobs.csv").unlink()
    code, text, _ = run(out)
    assert code == 1 and "EASY delayed head job 2: head at t=11.0, shadow time 110.0" in text
    meta = json.loads((out / "metrics.json").read_text())
    meta["guarantees"] = []
    (out / "metrics.json").write_text(json.dumps(meta))
    assert run(out)[0] == 0
    code, text, _ = run(out, "--guarantee", "head")
    assert code == 1 and "EASY delayed head job 2" in text
    del meta["guarantees"]  # a result written before guarantees were recorded
    (out / "metrics.json").write_text(json.dumps(meta))
    code, text, _ = run(out)
    assert code == 0 and "lists no guarantees" in text and "give --guarantee" in text


def test_an_unknown_guarantee_lists_the_known_ones(tmp_path, run):
    out = saved_run(tmp_path)
    line = one_error_line(*run(out, "-g", "fifo")[::2])
    assert (
        "unknown guarantee 'fifo'; known guarantees: head, reservations, reservations-exact" in line
    )


def test_a_dependency_violation_in_the_result_is_caught(tmp_path, run):
    w = workload((1, 0, 100, 100, 1), (2, 5, 10, 10, 1), (3, 6, 10, 10, 1))
    out = saved_run(tmp_path, "easy", Workload(w.columns, {2: (1,), 3: (2,)}))
    code, text, _ = run(out)
    assert code == 0, text
    # jobs.csv has no place for dependencies: they come from jobs.parquet beside it
    assert f"{out}/jobs.csv: note: dependencies, think times of each job from jobs.parquet" in text
    csv = pd.read_csv(out / "jobs.csv", keep_default_na=False)
    csv.loc[csv.job_id == 3, ["starting_time", "finish_time"]] = [50.0, 60.0]
    csv.to_csv(out / "jobs.csv", index=False)
    code, text, _ = run(out)
    assert code == 1
    assert f"{out}/jobs.csv: job 3 starts at 50.0 before its dependency 2 ends at 110.0" in text
    jobs = pd.read_parquet(out / "jobs.parquet")
    jobs.loc[jobs.job_id == 3, ["start", "end"]] = [50.0, 60.0]  # before job 2 ends at 110
    jobs.to_parquet(out / "jobs.parquet")
    code, text, _ = run(out / "jobs.parquet")
    assert code == 1
    assert f"{out}/jobs.parquet: job 3 starts at 50.0 before its dependency 2 ends at 110.0" in text


def test_a_bad_allocation_in_a_parquet_file_is_malformed_input(tmp_path, run):
    out = saved_run(tmp_path, "fcfs")
    jobs = pd.read_parquet(out / "jobs.parquet")
    jobs.loc[jobs.job_id == 2, "alloc"] = "0-3-5"
    jobs.to_parquet(out / "jobs.parquet")
    line = one_error_line(*run(out / "jobs.parquet")[::2])
    assert line == f"error: {out}/jobs.parquet: job 2: bad node list '0-3-5': expected ranges " \
        "like '0-3 7'"  # fmt: skip


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nothing", "no such file or directory"),
        ("trace.swf", "not a jobs.parquet or a Batsim jobs.csv"),
        ("empty_dir", "no jobs.parquet or jobs.csv here (and no metrics.json)"),
        ("broken.parquet", "not a readable parquet file"),
    ],
)
def test_paths_that_are_not_schedules(tmp_path, run, name, message):
    (tmp_path / "trace.swf").write_text("1 0 -1 5 1\n")
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "broken.parquet").write_text("not parquet")
    line = one_error_line(*run(tmp_path / name, "--nodes", "4")[::2])
    assert line.startswith(f"error: {tmp_path / name}: {message}")


def test_trace_checks_each_jobs_run_time_against_the_input(run, tmp_path):
    """A result on disk holds no input to compare with: a run shortened by hand in jobs.csv or
    jobs.parquet passed every check (seal22). ``--trace`` gives the input; killed jobs may end
    at their requested time; shared nodes are not checked (co-location changes run times)."""
    from coschedlab.workload.swf import read_swf

    trace = tmp_path / "t.swf"
    rows = [(1, 0, 50, 2, 100), (2, 10, 300, 2, 200), (3, 20, 70, 4, 100)]  # job 2 is killed
    trace.write_text(
        "; MaxNodes: 4\n; MaxProcs: 4\n"
        + "".join(
            f"{i} {s} -1 {r} {n} -1 -1 {n} {q} -1 1 1 1 -1 -1 -1 -1 -1\n" for i, s, r, n, q in rows
        )
    )
    r = simulate(read_swf(str(trace)), Cluster(4), "fcfs", kill_at_walltime=True)
    assert r.jobs["killed"].tolist() == [False, True, False]
    r.save(tmp_path / "res")
    code, out, _ = run(tmp_path / "res", "--trace", trace)
    assert code == 0 and out.count("run times)") == 2, out
    csv = tmp_path / "res" / "jobs.csv"
    text = csv.read_text().splitlines()
    f = text[1].split(",")  # job 1: 50 s -> 1 s (execution_time, finish_time)
    f[9], f[10] = "1", str(float(f[8]) + 1)
    csv.write_text("\n".join([text[0], ",".join(f), *text[2:]]) + "\n")
    code, out, _ = run(tmp_path / "res")  # without the input: nothing to compare with
    assert code == 0, out
    code, out, _ = run(tmp_path / "res", "--trace", trace)
    assert code == 1
    assert "jobs.csv: job 1 ran 1 s but the input says 50 s: its run time was changed" in out
    assert "jobs.parquet: 3 jobs, all invariants hold" in out
    other = tmp_path / "other.swf"
    other.write_text(trace.read_text().replace("\n3 20", "\n9 20"))
    code, out, _ = run(tmp_path / "res", "--trace", other)
    assert code == 1 and "job 3 is not in" in out
    code, _, err = run(tmp_path / "res", "--trace", tmp_path / "none.swf")
    one_error_line(code, err)


def test_trace_checks_run_times_on_shared_nodes_too(run, tmp_path, capsys):
    """``validate --trace`` said "not checked" for a co-location run: a jobs.csv of an
    easy-coloc run shortened by hand passed (bound23). A job on whole nodes runs at speedup 1
    (checked exactly); a spread one between its work at the fastest and at the slowest speedup
    the pool allows it (``--pool``); with --kill-at-walltime none runs past its limit."""
    pool = "coschedlab:lm-aris.compute-NAS.json"
    trace = tmp_path / "w.swf"

    def cli(*args):
        sys.argv = ["coschedlab", *map(str, args)]
        with pytest.raises(SystemExit) as exc:
            main()
        capsys.readouterr()
        assert exc.value.code == 0

    cli("generate", "--pool", pool, "--jobs", "40", "--arrival", "poisson:15", "--seed", "1",
        "--nodes", "100", "--cores-per-node", "48", "--sockets", "2", "--out", trace)  # fmt: skip
    for s in ("easy-coloc", "easy"):
        cli("simulate", trace, "--pool", pool, "--kill-at-walltime", "-s", s, "--out",
            tmp_path / s)  # fmt: skip
        code, out, _ = run(tmp_path / s, "--trace", trace, "--pool", pool)
        assert code == 0 and out.count("run times)") == 2, out

    def edit(name, k, ran):
        """Job row ``k`` of ``name``'s jobs.csv made to run ``ran(its run)`` s (only the csv)."""
        (tmp_path / name / "jobs.parquet").unlink(missing_ok=True)
        csv = tmp_path / name / "jobs.csv"
        d = pd.read_csv(csv)
        d.loc[k, "execution_time"] = ran(d.loc[k, "execution_time"])
        d.loc[k, "finish_time"] = d.loc[k, "starting_time"] + d.loc[k, "execution_time"]
        d.to_csv(csv, index=False)
        return d.loc[k, "job_id"]

    j = edit("easy-coloc", 3, lambda r: r / 2)  # a spread job, halved
    code, out, _ = run(tmp_path / "easy-coloc", "--trace", trace)
    assert code == 0 and "spread jobs' run times not bounded (their speedups depend" in out
    code, out, _ = run(tmp_path / "easy-coloc", "--trace", trace, "--pool", pool)
    assert code == 1, out
    assert f"job {j} ran " in out and "s of work, " in out and "at the speedups it may" in out
    j = edit("easy", 2, lambda r: 1.0)  # on whole nodes: speedup 1, exact without the pool
    code, out, _ = run(tmp_path / "easy", "--trace", trace)
    assert code == 1 and f"job {j} ran 1 s but the input says " in out, out
    code, _, err = run(tmp_path / "easy", "--pool", pool)
    assert "--pool goes with --trace" in one_error_line(code, err)


def test_run_times_within_the_speedups_and_never_past_the_limit_when_killed_there():
    """The one run-time check's bounds (bound23): ``speeds`` (slowest, fastest) widen the
    exact check; ``capped`` (kill_at_walltime) refuses a run past its requested time even
    where the speedups would allow it."""
    from coschedlab.validator import run_time_violations

    def check(ran, speeds=None, capped=False, killed=False):
        return run_time_violations([7], [0.0], [ran], [100.0], [killed], [120.0], "here",
                                   speeds, capped)  # fmt: skip

    assert check(120.0) == [] and check(119.0) and check(121.0)
    wide = ([0.5], [2.0])  # 60 to 240 s
    assert check(60.0, wide) == [] and check(240.0, wide) == []
    assert "input says 120 s of work, 60 to 240 s at the speedups" in check(59.0, wide)[0]
    assert check(241.0, wide) and check(110.0, wide) == []
    said = check(110.0, wide, capped=True)
    assert said and "ran 110 s, past its requested 100 s, though jobs are killed" in said[0]
    assert check(100.0, killed=True) == [] and check(100.0, wide, True, True) == []
    assert check(50.0, wide, killed=True)  # less than both its limit and its fastest run
