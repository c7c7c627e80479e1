"""Whether co-location could act: jobs spread, jobs that met, and why not (metrics and CLI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _cli import cli_here
from _coloc_data import TINY_LOADS, jobs, pool_ab, write_pool
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster, simulate
from coschedlab.cli.batch import coloc_notice
from coschedlab.metrics import colocation_summary
from coschedlab.platform import spread_cores, too_large_to_spread
from coschedlab.workload.swf import cluster_from_header, read_swf


def test_spread_rule():
    c = Cluster(64, 2, 10)
    assert spread_cores(c) == 10  # 640 procs: 64 half nodes, 641: 65 (more than the 64 nodes)
    assert too_large_to_spread(np.array([640, 641, 1024]), c).tolist() == [False, True, True]
    assert spread_cores(Cluster(4, 2, 1)) == 0
    assert too_large_to_spread(np.array([1]), Cluster(4, 2, 1)).tolist() == [True]


def test_reasons_known_answer():
    # 2 nodes x 2 sockets x 2 cores (spread: 2 cores on a node). J1 (A) and J2 (B) pair on
    # node 0; J3 comes after both ended and runs spread alone; J4's application (index 7) is
    # not in the pool; J5 (6 procs) would need 3 half nodes: compact on 2 whole nodes.
    w = jobs(
        (1, 0, 100, 2, 0),
        (2, 0, 100, 2, 1),
        (3, 1000, 100, 2, 0),
        (4, 2000, 100, 2, 7),
        (5, 3000, 100, 6, 0),
    )
    r = simulate(w, Cluster(2, 2, 2), "easy-coloc", pool=pool_ab(), kill_at_walltime=True)
    j = r.jobs.set_index("job_id")
    assert j.neighbours.to_dict() == {1: 1, 2: 1, 3: 0, 4: 0, 5: 0}
    assert j.in_pool.to_dict() == {1: True, 2: True, 3: True, 4: False, 5: True}
    assert j.placement[5] == "compact" and j.speedup[4] == 1.0
    m = r.metrics
    assert m["spread_share"] == pytest.approx(0.8)
    assert m["shared_share"] == pytest.approx(0.4)
    assert (m["too_large_to_spread"], m["compact_by_choice"]) == (1, 0)
    assert (m["spread_alone"], m["unknown_app"]) == (2, 1)
    assert r.validate() == []


def test_compact_scheduler_counts_compact_by_choice():
    w = jobs((1, 0, 100, 2, 0), (2, 0, 100, 2, 1), (3, 0, 100, 6, 0))
    r = simulate(w, Cluster(2, 2, 2), "easy", pool=pool_ab())
    m = r.metrics
    assert m["spread_share"] == 0 and m["shared_share"] == 0
    assert (m["too_large_to_spread"], m["compact_by_choice"]) == (1, 2)


def test_summary_without_cluster_keeps_the_rest():
    frame = {"placement": np.array(["spread", "compact"]), "neighbours": np.array([1, 0])}
    m = colocation_summary(frame)
    assert m == {"spread_share": 0.5, "shared_share": 0.5, "spread_alone": 0}


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 300), st.integers(1, 200), st.integers(1, 8), st.integers(0, 2)),
        min_size=1,
        max_size=25,
    ),
    sched=st.sampled_from(["easy", "easy-coloc", "best-pair", "easy-coloc:fallback=true"]),
)
def test_reasons_partition_the_jobs(rows, sched):
    """Every compact job has exactly one reason; a job met someone iff its neighbours say so,
    and meeting is symmetric (the total count is even)."""
    w = jobs(*[(i + 1, s, r, p, a) for i, (s, r, p, a) in enumerate(rows)])
    r = simulate(w, Cluster(3, 2, 2), sched, pool=pool_ab())
    m, j = r.metrics, r.jobs
    n = len(j)
    compact = int((j.placement == "compact").sum())
    assert m["too_large_to_spread"] + m["compact_by_choice"] == compact
    assert m["spread_share"] == pytest.approx((n - compact) / n)
    assert m["spread_alone"] + round(m["shared_share"] * n) == n - compact
    assert int(j.neighbours.sum()) % 2 == 0
    assert m["unknown_app"] == int((j.app == 2).sum())


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        (
            {"n_jobs": 50, "spread_share": 0.0, "too_large_to_spread": 50, "compact_by_choice": 0},
            "note: easy-coloc spread no job: 50 too large to spread on 64 nodes "
            "(at most 640 processors at 10 cores per node)",
        ),
        (
            {"n_jobs": 9, "spread_share": 0.0, "too_large_to_spread": 4, "compact_by_choice": 5},
            "note: easy-coloc spread no job: 4 too large to spread on 64 nodes (at most 640 "
            "processors at 10 cores per node); 5 placed compact when nothing was free to "
            "spread them",
        ),
        (
            {"n_jobs": 9, "spread_share": 1.0, "shared_share": 0.0},
            "note: easy-coloc spread 100% of the jobs but no two ever shared a node",
        ),
        (
            {"n_jobs": 9, "spread_share": 1.0, "shared_share": 0.5, "unknown_app": 9},
            "note: easy-coloc: no job's application is in the pool",
        ),
        ({"n_jobs": 9, "spread_share": 0.2, "shared_share": 0.1, "unknown_app": 3}, None),
    ],
)
def test_notice(metrics, expected):
    text = coloc_notice("easy-coloc", metrics, Cluster(64, 2, 10))
    if expected is None:
        assert text is None
    else:
        assert text.startswith(expected)


# -- through the command line -----------------------------------------------------------------


@pytest.fixture
def tiny_pool(tmp_path: Path) -> Path:
    return write_pool(tmp_path / "tiny.json", TINY_LOADS)  # machine "tiny": not a known one


def test_generate_then_simulate_runs_on_the_generators_machine(tiny_pool, tmp_path):
    w = tmp_path / "w.swf"
    p = cli_here("generate", "--pool", str(tiny_pool), "--jobs", "12", "--arrival", "poisson:3",
                 "--nodes", "7", "--cores-per-node", "12", "--sockets", "3",
                 "--out", str(w))  # fmt: skip
    assert p.returncode == 0, p.stderr
    machine = Cluster(7, 3, 4)
    assert cluster_from_header(read_swf(w).header) == machine
    out = tmp_path / "o"
    p = cli_here(
        "simulate", str(w), "--pool", str(tiny_pool), "-s", "easy-coloc", "--out", str(out)
    )
    assert p.returncode == 0, p.stderr
    assert f"on {machine}" in " ".join(p.stdout.split())
    assert "spread %" in " ".join(p.stdout.split())
    assert cluster_from_header(read_swf(out / "result.swf").header) == machine
    # options override the header, and the result says what it ran on
    p = cli_here("simulate", str(w), "--pool", str(tiny_pool), "--cores-per-node", "8",
                 "-s", "easy-coloc", "--out", str(out / "o8"))  # fmt: skip
    assert p.returncode == 0, p.stderr
    ran = Cluster(7, 1, 8)  # 3 sockets do not divide 8 cores: one socket
    assert f"on {ran}" in " ".join(p.stdout.split())
    assert cluster_from_header(read_swf(out / "o8" / "result.swf").header) == ran


def test_co_scheduler_that_spreads_nothing_says_why(tiny_pool, tmp_path):
    # B has 8 processes: on 2 nodes x 2 sockets x 2 cores it needs 4 half nodes, never spread
    w = tmp_path / "w.swf"
    p = cli_here("generate", "--pool", str(tiny_pool), "--jobs", "6", "--procs", "8",
                 "--nodes", "2", "--cores-per-node", "4", "--sockets", "2",
                 "--out", str(w))  # fmt: skip
    assert p.returncode == 0, p.stderr
    p = cli_here("simulate", str(w), "--pool", str(tiny_pool), "-s", "easy", "-s", "easy-coloc",
                 "--out", str(tmp_path / "o"))  # fmt: skip
    assert p.returncode == 0, p.stderr
    notes = [x for x in p.stdout.splitlines() if x.startswith("note:")]
    assert notes == [
        "note: easy-coloc spread no job: 6 too large to spread on 2 nodes "
        "(at most 4 processors at 2 cores per node)"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "0"], "error: --jobs: must be at least 1, got 0"),
        (["--jobs", "-3"], "error: --jobs: must be at least 1, got -3"),
        (
            ["--procs", "abc", "--nodes", "4", "--cores-per-node", "8"],
            "error: --procs takes whole numbers",
        ),
        ([], "error: --nodes: the pool's machine 'tiny' is not a known one"),
        (["--nodes", "4"], "error: --nodes: the pool's machine 'tiny' is not a known one"),
        (["--nodes", "4", "--cores-per-node", "0"], "--cores-per-node must be positive"),
        (["--nodes", "1", "--cores-per-node", "4"], "'B' needs 8 processors, more than"),
        (["--nodes", "4", "--cores-per-node", "6", "--sockets", "4"], "does not split into 4"),
    ],
)
def test_generate_bad_input_is_one_line(tiny_pool, tmp_path, args, message):
    out = tmp_path / "w.swf"
    p = cli_here("generate", "--pool", str(tiny_pool), "--names", "A,B", *args, "--out", str(out))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not out.exists()
