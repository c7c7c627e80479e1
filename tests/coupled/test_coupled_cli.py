"""``coschedlab coupled simulate|compare`` and the pairing rules, as a user meets them."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from _cli import cli, cli_here

from coschedlab.coupled import pair_by_vicinity, pair_every, parse_pairing, read_pairs
from coschedlab.errors import InputError
from coschedlab.jobs import Workload


def W(*rows):
    return Workload.from_records(
        [{"id": i, "submit": s, "run": 10, "requested_time": 10, "procs": 1} for i, s in rows]
    )


def swf(path, nodes, rows):
    lines = [f"; MaxNodes: {nodes}", f"; MaxProcs: {nodes}"]
    for i, (s, run, n) in enumerate(rows, 1):
        lines.append(f"{i} {s} -1 {run} {n} -1 -1 {n} {run + 10} -1 1 -1 -1 -1 -1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


# -- pairing -------------------------------------------------------------------------------------
def test_vicinity_pairs_the_latest_earlier_job_one_to_one_and_the_later_claimant_wins():
    first = W((1, 0), (2, 100), (3, 400))
    second = W((10, 50), (11, 110), (12, 150), (13, 1000))
    p = pair_by_vicinity(first, second, 60)
    # 10 (t=50) -> 1 (t=0, 50 s before); 11 (110) and 12 (150) both find 2 (100): 12 keeps it
    # (Cobalt keeps the later claimant); 13 (1000) finds 3 (400), too far
    assert p.table() == [(0, 1, 1, 10), (0, 2, 1, 12)]
    assert p.of(1) == {10: (0, 1), 12: (0, 2)}
    # at most v seconds before: exactly v pairs
    assert len(pair_by_vicinity(W((1, 0)), W((2, 60)), 60)) == 1
    assert len(pair_by_vicinity(W((1, 0)), W((2, 61)), 60)) == 0
    # a job submitted after the second system's job never pairs with it
    assert len(pair_by_vicinity(W((1, 10)), W((2, 5)), 60)) == 0


def test_every_kth_job_gives_the_proportion():
    a = W(*[(i, i) for i in range(1, 101)])
    b = W(*[(i, i) for i in range(1, 81)])
    p = pair_every(a, b, 10)
    assert len(p) == 8
    assert p.table()[0] == (0, 1, 1, 1)
    assert parse_pairing("proportion:0.33") == ("every", 3)
    assert parse_pairing("proportion:0.025") == ("every", 40)


@pytest.mark.parametrize(
    "text, says",
    [
        ("vicinity:-1", "a finite number of seconds >= 0"),
        ("vicinity:inf", "a finite number of seconds >= 0"),
        ("every:0", "a whole number >= 1"),
        ("every:1.5", "a whole number >= 1"),
        ("proportion:0", "a fraction in (0, 1]"),
        ("proportion:2", "a fraction in (0, 1]"),
        ("nearby:3", "unknown pairing"),
    ],
)
def test_bad_pairings(text, says):
    with pytest.raises(InputError, match=None) as e:
        parse_pairing(text)
    assert says in str(e.value)


def test_pairs_file(tmp_path):
    a, b = W((1, 0), (2, 5)), W((7, 0), (8, 5))
    f = tmp_path / "p.csv"
    f.write_text("system,job,system,job\n1,1,2,7\n# a comment\n\n2,8,1,2\n")
    assert read_pairs(f, [a, b]).table() == [(0, 1, 1, 7), (0, 2, 1, 8)]
    f.write_text("1,7\n")
    assert read_pairs(f, [a, b]).table() == [(0, 1, 1, 7)]
    for body, says in (
        ("1,1,2,7\n1,1,2,8\n", "p.csv:2"),  # job 1 of system 1 paired twice
        ("1,1,1,2\n", "same system"),
        ("1,9,2,7\n", "system 1 has no job 9"),
        ("1,1,3,7\n", "no system 3"),
        ("1,x,2,7\n1,1\n", "p.csv:1"),
        ("1,1,2\n", "expected system,job,system,job"),
    ):
        f.write_text(body)
        with pytest.raises(InputError) as e:
            read_pairs(f, [a, b])
        assert says in str(e.value) or says in (e.value.where or ""), (body, str(e.value))


# -- the commands ---------------------------------------------------------------------------------
@pytest.fixture()
def traces(tmp_path):
    a = swf(tmp_path / "big.swf", 8, [(0, 100, 4), (5, 50, 8), (30, 40, 2), (60, 100, 6)])
    b = swf(tmp_path / "small.swf", 4, [(2, 60, 2), (6, 30, 4), (40, 20, 1), (61, 10, 4)])
    return a, b


def test_simulate_writes_both_systems_and_the_baseline(traces, tmp_path):
    a, b = traces
    out = tmp_path / "run"
    done = cli_here(
        "coupled", "simulate", "--system", f"{a}:scheme=hold,name=big",
        "--system", f"{b}:scheme=yield,name=small", "--pairs", "vicinity:10", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "big" in done.stdout and "sync min" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    meta = json.loads((out / "coupled.json").read_text())
    assert meta["systems"] == ["big", "small"]
    assert meta["baseline"]["big"]["jobs"] == 4
    pairs = pd.read_csv(out / "pairs.csv")
    assert len(pairs) == 4  # small at 2, 6, 40, 61 -> big at 0, 5, 30, 60 (<= 10 s before)
    jobs = {
        n: pd.read_parquet(out / n / "jobs.parquet").set_index("job_id") for n in ("big", "small")
    }
    for p in pairs.itertuples():
        assert (
            jobs[p.system].loc[p.job_id, "start"] == jobs[p.mate_system].loc[p.mate_job_id, "start"]
        )
    # the written per-system result validates with the core command
    assert cli_here("validate", str(out / "big")).returncode == 0
    # an earlier result is never replaced silently
    again = cli_here(
        "coupled", "simulate", "--system", str(a), "--system", str(b), "--out", str(out)
    )
    assert again.returncode == 2 and "--force" in again.stderr


@pytest.mark.slow  # the Sweep resume is also tested in tests/experiments; 14 s
def test_compare_sweeps_resumes_and_refuses_another_sweeps_directory(traces, tmp_path):
    a, b = traces
    spec = tmp_path / "s.yaml"
    spec.write_text(
        f"large: {a}\nlarge_nodes: 8\nsmall: {b}\nsmall_nodes: 4\nschemes: [HH, YY]\n"
        "loads: [0.5]\nvicinity: 30\nproportions: [0.5]\nseeds: 2\nrelease: 300\n"
        f"output: {tmp_path / 'sweep'}\n"
    )
    done = cli("coupled", "compare", str(spec), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "sweep"
    runs = sorted(p.name for p in (out / "runs").glob("*.json"))
    assert len(runs) == 2 * (3 + 1 + 2)  # per seed: load none/HH/YY, proportion none, HH, YY
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["combo"]) == {"HH", "YY"} and set(summary["system"]) == {"large", "small"}
    assert (out / "proportion_sync.png").is_file()
    again = cli("coupled", "compare", str(spec), "--jobs", "1")
    assert again.returncode == 0 and "12 of 12 runs already stored" in again.stderr
    spec.write_text(spec.read_text().replace("release: 300", "release: 600"))
    other = cli("coupled", "compare", str(spec), "--jobs", "1")
    assert other.returncode == 2 and "holds runs of another sweep" in other.stderr
