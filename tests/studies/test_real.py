"""The real executor (SimX Sections 3-4 in wall time): studies of the heat solver, resuming a
killed study, preemption with a bitwise-identical resume, and failures without orphans."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from coschedlab.errors import InputError
from coschedlab.outputs import MARKER, mark, written
from coschedlab.studies.batching import ScalingTable
from coschedlab.studies.manager import CONFIGS, Config
from coschedlab.studies.real import CommandTemplate, RunFailed, run_real_study
from coschedlab.studies.sampling import DesignSpace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
import heat  # noqa: E402  (examples/heat.py: the real study's code)

PY = sys.executable
HEAT = (
    f"{PY} {EXAMPLES / 'heat.py'} {{params}} --nprocs {{nprocs}} --grid {{grid}} "
    "--checkpoint-out {checkpoint_out} --checkpoint-in={checkpoint_in} "
    "--checkpoint-every {checkpoint_every} --result {result}"
)

# A fake moldable code: ``--steps`` timesteps of ``--dt / nprocs`` seconds, a deterministic
# state (so a resumed run ends as an uninterrupted one), a JSON checkpoint every
# ``--checkpoint-every`` steps, one log line per invocation; ``--fail-a A`` makes design a=A
# start a child and exit 3, ``--hang-a A`` makes it sleep, ``--garbage-a A`` print no JSON.
FAKE = textwrap.dedent(
    """
    import json, os, subprocess, sys, time
    args, opt, i = sys.argv[1:], {}, 0
    while i < len(args):
        if "=" in args[i] and args[i].startswith("--"):
            k, v = args[i].split("=", 1)
            opt[k] = v
            i += 1
        else:
            opt[args[i]] = args[i + 1]
            i += 2
    text = opt["--params"]
    params = dict(kv.split("=") for kv in text.split(","))
    a, b = float(params["a"]), float(params["b"])
    n = int(opt["--nprocs"])
    out = opt["--checkpoint-out"]
    every = int(opt["--checkpoint-every"])
    total, step, state, mode = int(opt["--steps"]), 0, b, "scratch"
    if "--checkpoint-in" in opt:
        with open(opt["--checkpoint-in"]) as f:
            ck = json.load(f)
        if ck["params"] == text:
            step, state, mode = ck["step"], ck["state"], "resume"
        else:
            state, mode, total = ck["state"], "warm", total // 2
    log = {"pid": os.getpid(), "params": text, "mode": mode, "nprocs": n, "step": step}
    if opt.get("--fail-a") == params["a"]:
        child = subprocess.Popen(["sleep", "30"])
        log["child"] = child.pid
    with open(opt["--log"], "a") as f:
        f.write(json.dumps(log) + "\\n")
    if "child" in log:  # with --others K: once K other runs logged and one of them ended
        deadline = time.monotonic() + 20  # (on a loaded machine they start late)
        while "--others" in opt and time.monotonic() < deadline:
            with open(opt["--log"]) as f:
                started = len(f.readlines())
            if started > int(opt["--others"]) and os.path.exists(opt["--log"] + ".done"):
                break
            time.sleep(0.02)
        time.sleep(0.3)
        print("fake: starting", file=sys.stderr)
        print("fake: boom on purpose", file=sys.stderr)
        sys.exit(3)
    if opt.get("--hang-a") == params["a"]:
        time.sleep(30)

    def save(final):
        tmp = f"{out}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({"params": text, "step": step, "state": state, "final": final}, f)
        os.replace(tmp, out)

    while step < total:
        time.sleep(float(opt["--dt"]) / n)
        state = (state * 1.37 + a + 0.5 * step) % 97.0
        step += 1
        if step % every == 0 and step < total:
            save(False)
    save(True)
    if opt.get("--garbage-a") == params["a"]:
        print("all done, no JSON here")
        sys.exit(0)
    res = {"objectives": [a * b, state], "steps": step, "mode": mode, "nprocs": n}
    with open(opt["--result"], "w") as f:
        f.write(json.dumps(res))
    with open(opt["--log"] + ".done", "a") as f:
        f.write(text + "\\n")
    print(json.dumps(res))
    """
)

GRID9 = DesignSpace.of({"a": [1, 2, 3], "b": [1, 2, 3]})


@pytest.fixture
def fake(tmp_path: Path):
    """A command template of the fake code (extra options appended) and its log file."""
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    log = tmp_path / "log.jsonl"

    def command(extra: str = "", steps: int = 4, dt: float = 0.06) -> str:
        return (
            f"{PY} {script} {{params}} --nprocs {{nprocs}} --checkpoint-out {{checkpoint_out}} "
            f"--checkpoint-in {{checkpoint_in}} --checkpoint-every {{checkpoint_every}} "
            f"--result {{result}} --steps {steps} --dt {dt} --log {log} {extra}"
        )

    return command, log


def _log(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _wait_gone(pids: list[int], timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.02)
    return [p for p in pids if _alive(p)]


def _kill_matching(text: str, quiet: float = 0.3) -> list[int]:
    """SIGKILL every process whose command line holds ``text`` until none shows up for
    ``quiet`` seconds; the pids still alive after that (none expected)."""
    last_seen = time.monotonic()
    seen: set[int] = set()
    while time.monotonic() - last_seen < quiet:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in cmdline and _alive(int(entry.name)):
                seen.add(int(entry.name))
                last_seen = time.monotonic()
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(entry.name), signal.SIGKILL)
        time.sleep(0.02)
    return _wait_gone(sorted(seen))


def _stored(out: Path) -> dict[tuple, dict]:
    path = out / "store.sqlite"
    if not path.exists():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT design, record FROM runs").fetchall()
    except sqlite3.OperationalError:  # not created yet
        rows = []
    finally:
        db.close()
    return {tuple(json.loads(d)): json.loads(r) for d, r in rows}


def _no_overlap(result) -> None:
    by_worker: dict[int, list] = {}
    for s in result.segments:
        assert s.end >= s.start
        by_worker.setdefault(s.worker, []).append((s.start, s.end))
    for bars in by_worker.values():
        bars.sort()
        for (_, e1), (s2, _) in zip(bars, bars[1:], strict=False):
            assert s2 >= e1 - 1e-9


# -- the command template ---------------------------------------------------------------------
def test_placeholder_rules():
    vals = {"params": "a=1,b=2.5", "nprocs": "2", "workers": "0,1", "checkpoint_out": "o.npz",
            "checkpoint_every": "5", "result": "r.json"}  # fmt: skip
    t = CommandTemplate.parse(
        "prog {params} -n {nprocs} --in {checkpoint_in} --x={checkpoint_in} "
        "--out={checkpoint_out} 'lit {x}' --every {checkpoint_every}"
    )
    assert t.argv(vals, "s.npz") == ["prog", "--params", "a=1,b=2.5", "-n", "2", "--in",
                                     "s.npz", "--x=s.npz", "--out=o.npz", "lit {x}", "--every",
                                     "5"]  # fmt: skip
    assert t.argv(vals, None) == ["prog", "--params", "a=1,b=2.5", "-n", "2", "--out=o.npz",
                                  "lit {x}", "--every", "5"]  # fmt: skip
    # after an option word {params} is the value alone
    assert CommandTemplate.parse("p --params {params}").argv(vals, None) == [
        "p", "--params", "a=1,b=2.5"]  # fmt: skip
    assert CommandTemplate.parse("p --design={params} {result}").argv(vals, None) == [
        "p", "--design=a=1,b=2.5", "r.json"]  # fmt: skip
    for bad in ("", "prog --nprocs {nprocs}", "prog 'unclosed {params}"):
        with pytest.raises(InputError):
            CommandTemplate.parse(bad)


def test_bad_inputs(tmp_path, fake):
    command, _ = fake
    with pytest.raises(InputError, match=r"needs \{checkpoint_in\} and \{checkpoint_out\}"):
        run_real_study(GRID9, CONFIGS["B"], 2, 1, "prog {params}", tmp_path / "x", reuse=("b",))
    out = tmp_path / "locked"
    out.mkdir()
    with (out / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(InputError, match="another study is running"):
            run_real_study(GRID9, CONFIGS["O"], 2, 1, command(), out)
    with pytest.raises(RunFailed, match=r"run 0 \(design \[0, 0\]: a=1,b=1\): cannot start"):
        run_real_study(GRID9, CONFIGS["O"], 1, 1, "/nonexistent/prog {params}", tmp_path / "y")


# -- studies of the heat solver ---------------------------------------------------------------
HEAT_SPACE = DesignSpace.of({"diffusivity": [0.5, 1.5, 3.0], "velocity": [0.5, 1.5, 3.0]})
HEAT_GRID = 32


def _scratch(space: DesignSpace, d: tuple) -> dict:
    return heat.solve(space.params(d), grid=HEAT_GRID, checkpoint_every=0)


def _check_study(res, space: DesignSpace, procs: int) -> None:
    designs = [tuple(r["design"]) for r in res.records]
    assert len(designs) == len(set(designs))  # every design once
    m = res.metrics
    assert m["runs"] == len(designs)
    assert 0 < m["utilization"] <= 1 + 1e-9
    assert max(r["end"] - r["start"] for r in res.records) <= m["total_time"] + 1e-9
    assert 0 < m["mean_run_time"] <= m["total_time"]
    assert m["preemptions"] == 0 and m["lost_steps"] == 0
    assert m["reused"] == sum(r["source"] is not None for r in res.records)
    assert m["front"] and {tuple(d) for d in m["front"]} <= set(designs)
    assert {s.worker for s in res.segments} <= set(range(procs))
    _no_overlap(res)
    for r in res.records:  # sorted by end: finishing order
        assert r["first_procs"] == r["last_procs"] == 1


def test_heat_study_brute_force(tmp_path):
    """Configuration O: every design of the 3x3 grid once, from scratch, with the solver's own
    (nprocs-independent) objectives and timesteps."""
    cmd = HEAT.replace("{grid}", str(HEAT_GRID))
    done: list[tuple[int, int]] = []
    res = run_real_study(HEAT_SPACE, CONFIGS["O"], 2, 1, cmd, tmp_path / "o", checkpoint_every=400,
                         on_finish=lambda d, i: done.append((d, i)))  # fmt: skip
    _check_study(res, HEAT_SPACE, 2)
    assert sorted(tuple(r["design"]) for r in res.records) == HEAT_SPACE.designs()
    assert done[-1] == (9, 9) and [d for d, _ in done] == list(range(1, 10))
    assert res.metrics["reused"] == 0 and res.metrics["utilization"] > 0.5
    for r in res.records[:3]:
        want = _scratch(HEAT_SPACE, tuple(r["design"]))
        assert r["mode"] == "scratch" and r["source"] is None
        assert r["objectives"] == want["objectives"] and r["steps"] == want["steps"]
    assert len(list((tmp_path / "o" / "checkpoints").glob("*.npz"))) == 9


def test_heat_study_with_reuse(tmp_path):
    """Configuration B (active sampler, reuse by velocity): a run with a source warm-starts
    from the source's final state and needs fewer timesteps than from scratch."""
    cmd = HEAT.replace("{grid}", str(HEAT_GRID))
    res = run_real_study(HEAT_SPACE, CONFIGS["B"], 2, 1, cmd, tmp_path / "b", reuse=("velocity",),
                         checkpoint_every=400)  # fmt: skip
    _check_study(res, HEAT_SPACE, 2)
    reused = [r for r in res.records if r["source"] is not None]
    assert reused and res.metrics["reused"] == len(reused)
    for r in reused:
        assert r["mode"] == "warm"
        assert r["source"][1] == r["design"][1]  # the same reuse class (velocity)
        assert r["steps"] < _scratch(HEAT_SPACE, tuple(r["design"]))["steps"]
    for r in res.records:
        if r["source"] is None:
            assert r["mode"] == "scratch"
    # the store persisted every run, with its record
    stored = _stored(tmp_path / "b")
    assert set(stored) == {tuple(r["design"]) for r in res.records}


def test_preemption_resumes_bitwise(tmp_path):
    """Preemption on, a long and a short run on one worker each: when the short one ends its
    worker enters the idle-process database (the seed, Section 4.4), the long run moves to
    two workers after a checkpoint and resumes from it; its objectives equal an
    uninterrupted run's exactly."""
    space = DesignSpace.of({"diffusivity": [3.0, 0.5], "velocity": [0.5]})  # 10091, 3616 steps
    cmd = HEAT.replace("{grid}", "64")
    res = run_real_study(space, Config("P", preempt=True), 2, 1, cmd, tmp_path / "p",
                         checkpoint_every=500, scaling=ScalingTable.of({1: 1.0, 2: 0.5}),
                         poll=0.01)  # fmt: skip
    runs = {tuple(r["design"]): r for r in res.records}
    r, short = runs[(0, 0)], runs[(1, 0)]
    want = heat.solve(space.params((0, 0)), checkpoint_every=0, grid=64)
    assert r["preemptions"] == 1 and r["first_procs"] == 1 and r["last_procs"] == 2
    assert short["preemptions"] == 0
    assert r["mode"] == "resume"
    assert r["objectives"] == want["objectives"] and r["steps"] == want["steps"]
    assert 0 <= r["lost_steps"] < 500
    bars = sorted((s.worker, s.start, s.end) for s in res.segments if s.run == r["run"])
    assert [w for w, _, _ in bars] == [0, 0, 1]
    assert bars[0][2] == bars[1][1] == bars[2][1]  # the move: one instant for both workers
    assert bars[2][1] >= short["end"]  # only once the short run's worker is idle
    assert res.metrics["preemptions"] == 1
    out = json.loads((tmp_path / "p" / "runs" / "d0-0.out").read_text())
    assert out["start_step"] > 0 and out["start_step"] % 500 == 0 and out["nprocs"] == 2


def test_preemption_of_the_tail_with_the_fake(tmp_path, fake):
    """Preemption on, 9 runs on 2 workers: a run moves only when the queue is empty (the
    tail), and moved runs end with the objectives of an unpreempted study."""
    command, log = fake
    cmd = command(steps=8, dt=0.04)
    res = run_real_study(GRID9, Config("P", preempt=True), 2, 1, cmd, tmp_path / "f",
                         checkpoint_every=1, scaling=ScalingTable.of({1: 1.0, 2: 0.5}),
                         poll=0.005)  # fmt: skip
    assert sorted(tuple(r["design"]) for r in res.records) == GRID9.designs()
    plain = run_real_study(GRID9, CONFIGS["O"], 2, 1, cmd, tmp_path / "g", checkpoint_every=1)
    want = {tuple(r["design"]): r["objectives"] for r in plain.records}
    assert {tuple(r["design"]): r["objectives"] for r in res.records} == want
    moved = [r for r in res.records if r["preemptions"]]
    assert moved and res.metrics["preemptions"] == len(moved)
    last_start = max(r["start"] for r in res.records)
    for r in moved:
        assert r["last_procs"] == 2 and 0 <= r["lost_steps"] < 1
        first_move = min(s.end for s in res.segments if s.run == r["run"])
        assert first_move >= last_start - 1e-9  # the queue was empty
    resumed = [x for x in _log(log) if x["mode"] == "resume"]
    assert len(resumed) == len(moved) and all(x["nprocs"] == 2 and x["step"] > 0
                                              for x in resumed)  # fmt: skip
    _no_overlap(res)


# -- resuming a killed study ------------------------------------------------------------------
STUDY = textwrap.dedent(
    """
    import sys
    from coschedlab.studies.manager import CONFIGS
    from coschedlab.studies.real import run_real_study
    from coschedlab.studies.sampling import DesignSpace
    space = DesignSpace.of({"a": [1, 2, 3], "b": [1, 2, 3]})
    run_real_study(space, CONFIGS["O"], 2, 1, sys.argv[1], sys.argv[2], checkpoint_every=1,
                   poll=0.01)
    """
)


def test_resume_after_kill(tmp_path, fake):
    """A study killed (SIGKILL) after k runs are stored, started again on the same folder:
    every design once in the result, no stored run redone, stored records kept."""
    command, log = fake
    cmd = command(steps=4, dt=0.08)
    out = tmp_path / "study"
    script = tmp_path / "study.py"
    script.write_text(STUDY)
    proc = subprocess.Popen([PY, str(script), cmd, str(out)])
    try:
        deadline = time.monotonic() + 30
        while len(_stored(out)) < 3:
            assert proc.poll() is None, "the study ended before it was killed"
            assert time.monotonic() < deadline, "no run was stored"
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.wait()
    # the killed executor's runs are orphans now (some may not have logged yet): stop them
    assert _kill_matching(str(tmp_path / "fake.py")) == []
    before = _stored(out)
    assert 3 <= len(before) < 9
    leftover = {d for d in GRID9.designs() if d not in before
                and (out / "checkpoints" / f"d{d[0]}-{d[1]}.npz").exists()}  # fmt: skip
    n_before = len(_log(log))

    res = run_real_study(GRID9, CONFIGS["O"], 2, 1, cmd, out, checkpoint_every=1)
    designs = [tuple(r["design"]) for r in res.records]
    assert sorted(designs) == GRID9.designs()  # each design exactly once
    new = _log(log)[n_before:]
    redone = {x["params"] for x in new} & {f"a={d[0] + 1},b={d[1] + 1}" for d in before}
    assert not redone
    assert len(new) == 9 - len(before)
    by_params = {x["params"]: x for x in new}
    for d in leftover:
        assert by_params[f"a={d[0] + 1},b={d[1] + 1}"]["mode"] == "resume"
    for d, rec in before.items():  # the stored records are the result's, bars apart
        got = next(r for r in res.records if tuple(r["design"]) == d)
        assert got == {k: v for k, v in rec.items() if k != "segments"}
    runs = [r["run"] for r in res.records]
    assert len(set(runs)) == 9
    assert min(r["start"] for r in res.records if tuple(r["design"]) not in before) >= max(
        r["end"] for r in before.values()
    )
    assert res.metrics["runs"] == 9 and res.info["resumed"] == len(before)
    # once more: nothing to do, nothing run
    again = run_real_study(GRID9, CONFIGS["O"], 2, 1, cmd, out, checkpoint_every=1)
    assert len(_log(log)) == n_before + len(new) and len(again.records) == 9


def test_a_resumed_study_lists_its_files_once(tmp_path, fake):
    """A study started again on its folder (resumed: nothing left to run) lists its own files
    (its lock, its store) in the folder's manifest once, not once per start."""
    command, _log = fake
    out = mark(tmp_path / "study")
    for _ in range(2):
        run_real_study(GRID9, CONFIGS["O"], 2, 1, command(steps=1, dt=0.0), out,
                       checkpoint_every=1)  # fmt: skip
        lines = (out / MARKER).read_text().splitlines()[2:]
        assert len(lines) == len(set(lines)) and {".lock", "store.sqlite"} <= written(out)


# -- failures ---------------------------------------------------------------------------------
def test_failing_command_stops_the_study_without_orphans(tmp_path, fake):
    """Design a=2 exits 3 (leaving a child behind) while a=1 hangs and a=3 finishes: one
    one-line error naming the run, the design, the last stderr line and the command; no
    process left; the finished run stays stored. (a=2 fails once the others started and a=3
    ended: it failed 0.3 s after it started, before they had, under make test at load 16.)"""
    command, log = fake
    space = DesignSpace.of({"a": [1, 2, 3], "b": [1]})
    out = tmp_path / "fail"
    t0 = time.monotonic()
    with pytest.raises(RunFailed) as info:
        run_real_study(space, CONFIGS["O"], 3, 1,
                       command("--fail-a 2 --hang-a 1 --others 2", dt=0.01), out,
                       checkpoint_every=1)  # fmt: skip
    assert time.monotonic() - t0 < 10
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("run 1 (design [1, 0]: a=2,b=1): failed with exit code 3")
    assert "last stderr line: 'fake: boom on purpose'" in msg
    assert f"command: {PY} " in msg and "--params a=2,b=1" in msg
    pids = [x["pid"] for x in _log(log)] + [x["child"] for x in _log(log) if "child" in x]
    assert len(pids) == 4
    assert not _wait_gone(pids, timeout=3.0)
    assert set(_stored(out)) == {(2, 0)}


def test_unparsable_output_is_an_error(tmp_path, fake):
    command, _ = fake
    space = DesignSpace.of({"a": [1], "b": [1]})
    cmd = command("--garbage-a 1").replace("--result {result}", "")
    with pytest.raises(RunFailed, match=r"its last output line is not JSON: 'all done"):
        run_real_study(space, CONFIGS["O"], 1, 1, cmd, tmp_path / "g")
    assert not _stored(tmp_path / "g")
    with pytest.raises(RunFailed, match=r"its result file has 2 objectives, expected 3"):
        run_real_study(space, CONFIGS["O"], 1, 1, command(), tmp_path / "h", objectives_count=3)


def test_interrupt_kills_every_group(tmp_path, fake):
    """Ctrl-C (a KeyboardInterrupt, here from the progress callback) kills the running
    groups and re-raises; the run that finished is stored."""
    command, log = fake

    def stop(done: int, issued: int) -> None:
        raise KeyboardInterrupt

    space = DesignSpace.of({"a": [1, 2], "b": [1]})
    with pytest.raises(KeyboardInterrupt):
        run_real_study(space, CONFIGS["O"], 2, 1, command("--hang-a 1", dt=0.01),
                       tmp_path / "i", on_finish=stop)  # fmt: skip
    assert not _wait_gone([x["pid"] for x in _log(log)], timeout=3.0)
    assert set(_stored(tmp_path / "i")) == {(1, 0)}
