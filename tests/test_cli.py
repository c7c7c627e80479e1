"""The command line as a user meets it: outputs, one-line errors with exit code 2 (a fresh
process for the first tests, the entry point in this process for the others)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from _cli import cli, cli_here

ROOT = Path(__file__).resolve().parents[1]
KTH = ROOT / "src" / "coschedlab" / "data" / "KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    path = tmp_path / "small.swf"
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    lines += [
        f"{i} {10 * i} -1 {50 + i} 2 -1 -1 2 {100 + i} -1 1 1 1 -1 -1 -1 -1 -1" for i in range(1, 9)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_simulate_writes_every_output(small_trace, tmp_path):
    out = tmp_path / "out"
    p = cli("simulate", str(small_trace), "--scheduler", "easy", "--out", str(out))
    assert p.returncode == 0, p.stderr
    for name in ("jobs.parquet", "jobs.csv", "result.swf", "metrics.json"):
        assert (out / name).stat().st_size > 0
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(jobs) == 8 and jobs.start.notna().all()
    meta = json.loads((out / "metrics.json").read_text())
    assert meta["scheduler"] == "easy" and meta["metrics"]["n_jobs"] == 8
    csv = pd.read_csv(out / "jobs.csv")
    assert list(csv.waiting_time) == list(jobs.wait)
    p = cli("validate", str(out))
    assert p.returncode == 0 and "all invariants hold" in p.stdout


def test_user_scheduler_file_works_through_the_cli(small_trace, tmp_path):
    example = ROOT / "examples" / "smallest_first_backfill.py"
    p = cli_here("simulate", str(small_trace), "-s", str(example), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "smallest-first" in p.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "missing.swf"], "missing.swf: No such file or directory"),
        (["simulate", "{trace}", "-s", "nope"], "unknown scheduler 'nope'"),
        (["simulate", "{trace}", "-s", "easy:depth=0"], "option depth must be a positive"),
        (["simulate", "{trace}", "-s", "easy:bogus=1"], "has no option 'bogus'"),
        (["simulate", "{bad}"], "bad.swf:3: field 4 (run time)"),
        (["simulate", "{trace}", "--nodes", "1"], "8 larger than the machine"),
        (["simulate", "{trace}", "--nodes", "0"], "--nodes must be positive"),
        (["validate", "{tmp}"], "no metrics.json"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(small_trace, tmp_path, args, message):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxNodes: 4\n1 0 -1 5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
                   "2 0 -1 abc 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n")  # fmt: skip
    args = [a.format(trace=small_trace, bad=bad, tmp=tmp_path) for a in args]
    p = cli_here(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_schedulers_lists_the_builtins():
    p = cli("schedulers")
    assert p.returncode == 0
    for name in ("fcfs", "sjf", "easy", "conservative", "backfill"):
        assert name in p.stdout


def test_usage_error_exits_2_without_traceback(small_trace):
    p = cli("simulate", str(small_trace), "--bogus")
    assert p.returncode == 2
    assert "No such option: --bogus" in p.stderr and "Traceback" not in p.stderr


POOL = ROOT.parent / "shared" / "data" / "coloc" / "lm-remake-g5k.nancy.grvingt-NAS.json"


def generate_and_simulate(tmp_path, jobs, arrival, nodes, *schedulers):
    """`coschedlab generate` from POOL, then `simulate --pool` on a 2 x 16-core machine."""
    w = tmp_path / "w.swf"
    p = cli_here("generate", "--pool", str(POOL), "--jobs", str(jobs), "--arrival", arrival,
                 "--seed", "4", "--out", str(w))  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "; Applications: 0=" in w.read_text()
    out = tmp_path / "sim"
    args = [a for s in schedulers for a in ("-s", s)]
    p = cli_here("simulate", str(w), "--pool", str(POOL), "--nodes", str(nodes), "--sockets", "2",
                 "--cores-per-node", "32", "--kill-at-walltime", *args,
                 "--out", str(out))  # fmt: skip
    return p, out


@pytest.mark.slow  # the README's co-location commands run in tests/coloc; 11 s
@pytest.mark.skipif(not POOL.is_file(), reason="shared data not present")
def test_generate_simulate_with_pool_and_report(tmp_path):
    p, out = generate_and_simulate(tmp_path, 60, "poisson:30", 32, "easy", "easy-coloc")
    assert p.returncode == 0, p.stderr
    assert "gain %" in p.stdout and "speedup" in p.stdout
    jobs = pd.read_parquet(out / "easy-coloc" / "jobs.parquet")
    assert set(jobs.placement) <= {"spread", "compact"} and jobs.speedup.notna().any()
    p = cli_here(
        "report", str(out / "easy"), str(out / "easy-coloc"), "--out", str(tmp_path / "rep")
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "rep" / "report.html").stat().st_size > 100_000
    assert (tmp_path / "rep" / "easy-coloc_gantt.png").stat().st_size > 10_000


@pytest.mark.skipif(not POOL.is_file(), reason="shared data not present")
def test_user_co_scheduler_file_works_through_the_cli(tmp_path):
    example = str(ROOT / "examples" / "best_fit_coloc.py")
    p, out = generate_and_simulate(tmp_path, 80, "poisson:5", 16, example)
    assert p.returncode == 0, p.stderr
    assert "best-fit" in p.stdout
    p = cli_here("validate", str(out))
    assert p.returncode == 0 and "all invariants hold" in p.stdout


def test_generate_bad_arrival_is_one_line(tmp_path):
    if not POOL.is_file():
        pytest.skip("shared data not present")
    p = cli_here(
        "generate", "--pool", str(POOL), "--arrival", "sometimes", "--out", str(tmp_path / "w")
    )
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "arrival" in p.stderr


def _trace(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "t.swf"
    path.write_text("; MaxNodes: 4\n; MaxProcs: 4\n" + "\n".join(rows) + "\n")
    return path


def test_jobs_that_cannot_run_are_dropped_and_counted_or_refused_with_strict(tmp_path):
    trace = _trace(
        tmp_path,
        [
            "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "2 5 -1 10 8 -1 -1 8 20 -1 1 1 1 -1 -1 -1 -1 -1",  # 8 procs on a 4-node machine
            "3 6 -1 -1 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",  # unknown run time
        ],
    )
    p = cli_here("simulate", str(trace), "--out", str(tmp_path / "a"))
    assert p.returncode == 0, p.stderr
    said = " ".join(p.stdout.split())  # the summary line wraps where tmp_path is long
    assert "2 dropped" in said and "1 larger than the machine" in said
    p = cli_here("simulate", str(trace), "--strict", "--out", str(tmp_path / "b"))
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        f"error: {trace}:4: job 2 cannot run: larger than the machine (2 job(s) cannot; "
        "without --strict they are dropped and counted)"
    ]


def test_strict_names_a_job_larger_than_a_machine_given_by_option(tmp_path):
    trace = _trace(tmp_path, ["1 0 -1 10 3 -1 -1 3 20 -1 1 1 1 -1 -1 -1 -1 -1"])
    p = cli_here("simulate", str(trace), "--nodes", "2", "--strict", "--out", str(tmp_path / "o"))
    assert p.returncode == 2, p.stdout
    assert p.stderr.startswith(f"error: {trace}:3: job 1 cannot run: larger than the machine")


def test_dependencies_option_enforces_preceding_job_and_think_time(tmp_path):
    trace = _trace(
        tmp_path,
        [
            "1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1",
            "2 5 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 1 30",  # after job 1, 30 s think time
        ],
    )
    for flag, expected in (([], 5.0), (["--dependencies"], 130.0)):
        out = tmp_path / ("dep" if flag else "free")
        p = cli_here("simulate", str(trace), "-s", "easy", *flag, "--out", str(out))
        assert p.returncode == 0, p.stderr
        jobs = pd.read_parquet(out / "jobs.parquet").set_index("job_id")
        assert jobs.start[2] == expected
    p = cli_here("validate", str(tmp_path / "dep"))
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_policy_declaring_an_unknown_guarantee_is_refused_before_the_run(tmp_path, small_trace):
    policy = tmp_path / "p.py"
    policy.write_text(
        "from coschedlab.schedulers import Scheduler, start_in_order\n"
        "class P(Scheduler):\n"
        "    name = 'p'\n"
        "    guarantees = ('heads',)\n"
        "    def schedule(self, view):\n"
        "        return start_in_order(view, view.queue, view.free)\n"
    )
    p = cli_here("simulate", str(small_trace), "-s", str(policy), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "error: scheduler p declares unknown guarantee 'heads'; known guarantees: head, "
        "reservations, reservations-exact"
    )
    assert not (tmp_path / "o").exists()


def test_a_dependency_cycle_is_one_line_exit_2(tmp_path):
    trace = _trace(
        tmp_path,
        [
            "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 2 0",
            "2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 1 0",
        ],
    )
    p = cli_here("simulate", str(trace), "--dependencies", "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "jobs 1 -> 2 -> 1 wait for each other (a dependency cycle)" in p.stderr
    assert str(trace) in p.stderr
