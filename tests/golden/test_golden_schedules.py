"""Golden schedules: every built-in scheduler's jobs.csv, byte for byte, as the code of the
commit in data/source.json wrote it (issue 31, item 3: a compiled kernel or a refactored
scheduler must change no schedule).

The cases (tests/golden/_cases.py): every scheduler that ``coschedlab schedulers`` lists, and
non-default options of each family, on the first 1,000 job lines of the bundled KTH-SP2 and
Theta 2022 traces and of the shared SDSC-SP2 (the co-schedulers with the bundled ARIS NPB pool
on 4-core nodes); the README's co-location workload and a grvingt one (``--pool
--kill-at-walltime``); ELiSE's ``smoke`` experiment (tests/coloc/elise) without and with
``--compat all``; the workflow CLI test's workload and CyberShake in every mode; the Cobalt
Qsim golden inputs (tests/coupled) in the four hold/yield combinations, our rules and Cobalt's;
``coupled simulate``'s default and the coupled CLI test's traces. Under ``-m slow``: the whole
traces (sha256 only). Each is run as the command line runs it and its jobs.csv (the file
``coschedlab simulate --out DIR`` writes; nothing in it varies between runs) hashed with
sha256 against data/golden.csv. A difference prints the first differing rows (job id, start,
finish, allocation) against the stored copy (data/rows/) and the metrics, stored and now.

THE RULE: a difference is a failure, unless the commit that changes the golden says which bug
it fixes (and why the new schedule is the right one). Regenerate after committing the fix:

    .venv/bin/python tests/golden/make_goldens.py           # every case (the whole traces too)
    .venv/bin/python tests/golden/make_goldens.py --fast    # only the default run's cases
    .venv/bin/python tests/golden/make_goldens.py --only trace/kth   # cases whose name has it

It runs the code of a commit (``--tree``, default HEAD, exported with git archive), never a
working tree others are editing. Then ``git diff tests/golden/data/golden.csv`` shows which
cases moved and their metrics.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _cases import (  # noqa: E402
    KEY_COLUMNS,
    METRICS,
    PREFIX,
    SHARED_SWF,
    TRACES,
    Case,
    all_cases,
    first_differences,
    key_rows,
    metric_cells,
    prefix_swf,
    read_golden,
    read_rows,
    sha256,
)
from _cli import cli  # noqa: E402

GOLDEN = read_golden()
FAST = all_cases(False)
SLOW = all_cases(True)


def mismatch(label: str, data: bytes, metrics: dict) -> str | None:
    """None when ``data`` (a jobs.csv) is the golden of ``label``; else what differs: the
    hashes, the metrics stored and now, the first differing rows of the stored copy."""
    want = GOLDEN.get(label)
    if want is None:
        return f"{label}: no golden (a new case? run tests/golden/make_goldens.py --only {label})"
    got = sha256(data)
    if got == want["sha256"]:
        return None
    n = data.count(b"\n") - 1
    lines = [f"{label}: jobs.csv is not the golden one (sha256 {got[:16]}, golden "
             f"{want['sha256'][:16]}; {n} rows, golden {want['rows']})"]  # fmt: skip
    now = metric_cells(metrics)
    lines.append("  metrics golden: " + ", ".join(f"{m} {want[m]}" for m in METRICS))
    lines.append("  metrics now:    " + ", ".join(f"{m} {now[m]}" for m in METRICS))
    stored = read_rows(want["sha256"])
    if stored is None:
        lines.append("  (no stored copy of the rows: a slow case; rerun its prefix to see them)")
    else:
        lines.append(first_differences(stored, key_rows(data)))
    return "\n".join(lines)


def check(case: Case, tmp_path: Path) -> None:
    """Run ``case`` and fail with every output that is not its golden one."""
    if "/sdsc-" in case.name and not SHARED_SWF.is_dir():
        pytest.skip(f"needs {SHARED_SWF}")
    problems, seen = [], set()
    for label, data, metrics in case.run(tmp_path):
        seen.add(label)
        problem = mismatch(label, data, metrics)
        if problem:
            problems.append(problem)
    expected = {k for k in GOLDEN if k == case.name or k.startswith(case.name + "/")}
    for label in sorted(expected - seen):
        problems.append(f"{label}: in golden.csv but the run no longer writes it")
    assert not problems, "\n".join(problems) + RULE


RULE = (
    "\n(tests/golden/test_golden_schedules.py: a changed schedule is a failure unless the "
    "commit that regenerates the golden says which bug it fixes)"
)


@pytest.mark.parametrize("case", FAST, ids=[c.name for c in FAST])
def test_golden(case: Case, tmp_path: Path) -> None:
    check(case, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[c.name for c in SLOW])
def test_golden_whole_trace(case: Case, tmp_path: Path) -> None:
    check(case, tmp_path)


def test_every_builtin_scheduler_has_a_case() -> None:
    """A scheduler added to the registry gets a golden (a case in _cases.py) before the kernel
    changes under it."""
    from coschedlab.schedulers import available

    specs = {c.name.split("/")[-1].split(":")[0] for c in FAST if c.name.startswith("trace/")}
    assert set(available()) <= specs, sorted(set(available()) - specs)


def test_every_golden_row_has_a_case_and_the_fast_ones_a_stored_copy() -> None:
    names = [c.name for c in FAST + SLOW]
    for label, row in GOLDEN.items():
        assert any(label == n or label.startswith(n + "/") for n in names), label
        if row["scope"] == "fast":
            assert read_rows(row["sha256"]) is not None, label


@pytest.mark.parametrize(
    "spec, extra",
    [("easy", []), ("filler", ["--nodes", "25", "--cores-per-node", "4", "--sockets", "2",
                               "--pool", "coschedlab:lm-aris.compute-NAS.json"])],
)  # fmt: skip
def test_the_command_line_writes_the_golden_jobs_csv(spec, extra, tmp_path) -> None:
    """The in-process runs are the command's: ``coschedlab simulate PREFIX.swf -s SPEC --out
    DIR`` in a new process writes the very jobs.csv of the golden."""
    trace = prefix_swf(TRACES["kth"][0], PREFIX, tmp_path / "kth.swf")
    done = cli("simulate", str(trace), "-s", spec, *extra, "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "r" / "jobs.csv").read_bytes()
    assert sha256(data) == GOLDEN[f"trace/kth-first{PREFIX}/{spec}"]["sha256"]


def test_a_changed_row_is_reported_with_its_neighbours_untouched() -> None:
    """The comparison can fail: one start time moved in a golden jobs.csv is reported as that
    job's row, stored against now, and nothing else."""
    label = f"trace/kth-first{PREFIX}/easy"
    want = GOLDEN[label]
    stored = read_rows(want["sha256"])
    assert stored is not None and stored[0] == list(KEY_COLUMNS)
    # rebuild a jobs.csv of the key columns only: its hash differs from the golden, and the
    # comparison must single out row 7, where the start moved by one second
    rows = [list(r) for r in stored]
    start = KEY_COLUMNS.index("starting_time")
    rows[7][start] = str(float(rows[7][start]) + 1)
    data = ("\n".join(",".join(r) for r in rows) + "\n").encode()
    message = mismatch(label, data, {m: float(want[m]) for m in METRICS})
    assert message is not None
    assert f"row 7 stored: {','.join(stored[7])}" in message
    assert f"row 7    now: {','.join(rows[7])}" in message
    assert "row 6 " not in message and "row 8 " not in message
    # and the stored copy itself passes the row comparison: only the hash can tell then
    same = ("\n".join(",".join(r) for r in stored) + "\n").encode()
    assert "the key columns agree" in mismatch(label, same, {})
