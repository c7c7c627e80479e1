"""The moldable plume code: identical results for every nprocs, checkpoints, resume after a real
kill, warm starts, bad inputs, and no leaked shared memory or processes."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from coschedlab.errors import InputError
from coschedlab.studies import pareto_front

HEAT = Path(__file__).resolve().parents[2] / "examples" / "heat.py"  # the real study's code
sys.path.insert(0, str(HEAT.parent))
from heat import (  # noqa: E402
    SHM_PREFIX,
    Interrupted,
    load_checkpoint,
    main,
    measured_profile,
    objectives,
    solve,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs fork, /proc and /dev/shm")

P = {"diffusivity": 1.5, "velocity": 1.5}
KEYS = {"objectives", "steps", "steps_run", "start_step", "mode", "converged", "nprocs", "seconds"}


@pytest.fixture
def heat():
    """Start the command line as its own process group; whatever is left of the group when the
    test ends (a failing test, a broken clean-up) is killed."""
    started: list[subprocess.Popen] = []

    def start(*args: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, str(HEAT), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HEAT), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def segments(pid: int) -> list[str]:
    """The shared-memory segments of the run of process ``pid``."""
    return [n for n in os.listdir("/dev/shm") if n.startswith(f"{SHM_PREFIX}{pid}_")]


def processes_with(text: str) -> list[int]:
    """The processes whose command line mentions ``text`` (a run's unique checkpoint path)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmd:
                out.append(int(d.name))
    return out


def heat_children(pid: int, text: str) -> list[int]:
    """The worker processes of the run of process ``pid``."""
    return sorted(set(children_of(pid)) & set(processes_with(text)))


def children_of(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def wait_for(pred, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def wait_file(path: Path, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, f"the run ended first: {proc.communicate()}"
        assert time.monotonic() < end, "no checkpoint appeared"
        time.sleep(0.002)


def test_every_nprocs_gives_bitwise_the_same_result(tmp_path):
    results, fields = [], []
    for grid, n in [(24, 1), (24, 2), (24, 3), (25, 1), (25, 3)]:
        out = tmp_path / f"g{grid}n{n}.npz"
        r = solve(P, nprocs=n, grid=grid, checkpoint_out=out)
        assert r["converged"] and r["mode"] == "scratch" and r["nprocs"] == n
        assert set(r) == KEYS
        ckpt = load_checkpoint(out)
        assert ckpt.final and ckpt.converged and ckpt.step == r["steps"] == r["steps_run"]
        results.append((grid, r))
        fields.append((grid, ckpt.field))
    for grid in (24, 25):
        rs = [r for g, r in results if g == grid]
        fs = [f for g, f in fields if g == grid]
        assert all(r["objectives"] == rs[0]["objectives"] for r in rs)
        assert all(r["steps"] == rs[0]["steps"] for r in rs)
        assert all(np.array_equal(f, fs[0]) for f in fs)
        assert objectives(fs[0]) == rs[0]["objectives"]
    assert not segments(os.getpid())


def test_field_is_a_plume(tmp_path):
    out = tmp_path / "a.npz"
    solve({"diffusivity": 0.5, "velocity": 3.0}, grid=32, checkpoint_out=out)
    u = load_checkpoint(out).field
    assert u.min() >= 0.0 and u.max() <= 1.0
    centre, edge = u[:, 16], u[:, 2]
    assert np.all(centre[:20] > edge[:20])  # the plume is in the middle
    assert np.all(np.diff(centre) < 0)  # and decays upward
    # objectives of an empty field: the norms of the measured profiles
    h = 1 / 33
    x = np.arange(1, 33) * h
    expect = [np.sqrt(h * np.sum(measured_profile(x, y) ** 2)) for y in (0.2, 0.4)]
    assert objectives(np.zeros((32, 32))) == pytest.approx(expect, rel=1e-12)


def test_stop_hook_then_resume_with_other_nprocs(tmp_path):
    ref = solve(P, grid=32, checkpoint_out=tmp_path / "ref.npz")
    out = tmp_path / "run.npz"
    with pytest.raises(Interrupted) as info:
        solve(P, nprocs=2, grid=32, checkpoint_out=out, checkpoint_every=100, stop_after=250)
    assert info.value.step == 250
    assert not segments(os.getpid())
    ckpt = load_checkpoint(out)
    assert ckpt.step == 250 and not ckpt.final
    for n in (3, 1):
        r = solve(P, nprocs=n, grid=32, checkpoint_in=out, checkpoint_out=tmp_path / f"r{n}.npz")
        assert r["mode"] == "resume" and r["start_step"] == 250
        assert r["steps_run"] + 250 == r["steps"] == ref["steps"]
        assert r["objectives"] == ref["objectives"]
        assert np.array_equal(
            load_checkpoint(tmp_path / f"r{n}.npz").field,
            load_checkpoint(tmp_path / "ref.npz").field,
        )
    # a final checkpoint resumes to itself in no step
    again = solve(P, grid=32, checkpoint_in=tmp_path / "ref.npz")
    assert again["mode"] == "resume" and again["steps_run"] == 0
    assert again["steps"] == ref["steps"] and again["objectives"] == ref["objectives"]


@pytest.mark.parametrize("group", [True, False], ids=["group", "parent"])
def test_sigterm_keeps_the_checkpoint_and_the_run_resumes_identically(
    tmp_path, heat, capsys, group
):
    d = {"diffusivity": 3.0, "velocity": 0.5}
    common = ["--grid", "48", "--tol", "1e-7", "--checkpoint-every", "100"]
    out = tmp_path / "killed.npz"
    # the study executor runs a process group and signals the whole group; `kill PID` the parent
    proc = heat(
        "--params",
        "diffusivity=3.0,velocity=0.5",
        "--nprocs",
        "2",
        *common,
        "--checkpoint-out",
        str(out),
    )
    wait_file(out, proc)
    assert wait_for(lambda: len(processes_with(str(out))) == 2)  # the parent and one child
    t = time.monotonic()
    if group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    assert time.monotonic() - t < 0.5, "no prompt exit on SIGTERM"
    stdout, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 143 and stdout == "" and stderr == ""
    assert not segments(proc.pid) and not processes_with(str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["killed.npz"]  # no temporary file left
    ckpt = load_checkpoint(out)
    assert not ckpt.final and ckpt.step > 0 and ckpt.step % 100 == 0

    ref = solve(d, grid=48, tol=1e-7, checkpoint_out=tmp_path / "ref.npz")
    assert ref["steps"] > ckpt.step
    # resume through the command line (in-process: quicker), on another number of processes
    res = tmp_path / "res.json"
    n = 3 if group else 1
    args = ["--param", "diffusivity=3.0", "--param", "velocity=0.5", "--nprocs", str(n), *common]
    code = main(
        [*args, "--checkpoint-in", str(out), "--checkpoint-out", str(out), "--result", str(res)]
    )
    stdout, stderr = capsys.readouterr()
    assert code == 0 and stderr == "" and len(stdout.splitlines()) == 1
    r = json.loads(stdout)
    assert r == json.loads(res.read_text())
    assert set(r) == KEYS
    assert r["mode"] == "resume" and r["start_step"] == ckpt.step and r["nprocs"] == n
    assert r["steps_run"] + ckpt.step == r["steps"] == ref["steps"]
    assert r["objectives"] == ref["objectives"] and r["converged"]
    assert np.array_equal(load_checkpoint(out).field, load_checkpoint(tmp_path / "ref.npz").field)


@pytest.mark.parametrize("group", [False, True], ids=["parent", "group"])
def test_sigkill_leaves_no_process_and_no_shared_memory(tmp_path, heat, group):
    out = tmp_path / "killed.npz"
    proc = heat(
        "--params",
        "diffusivity=3.0,velocity=0.5",
        "--nprocs",
        "3",
        "--grid",
        "48",
        "--tol",
        "1e-7",
        "--checkpoint-every",
        "50",
        "--checkpoint-out",
        str(out),
    )
    wait_file(out, proc)
    assert wait_for(lambda: len(processes_with(str(out))) == 3)
    assert not segments(proc.pid)  # unlinked as soon as created: the children map it already
    if group:  # the whole process group (the study executor's last resort)
        os.killpg(proc.pid, signal.SIGKILL)
    else:  # the parent only: its children must notice and go
        proc.kill()
    _, stderr = proc.communicate(timeout=10)
    assert "leaked" not in stderr, stderr  # multiprocessing's resource tracker had nothing left
    assert wait_for(lambda: not processes_with(str(out))), "children outlived their parent"
    assert not segments(proc.pid)
    ckpt = load_checkpoint(out)  # the last complete checkpoint is intact
    assert ckpt.step > 0 and ckpt.step % 50 == 0


def test_a_dead_worker_stops_the_run(tmp_path, heat):
    out = tmp_path / "run.npz"
    proc = heat(
        "--params",
        "diffusivity=3.0,velocity=0.5",
        "--nprocs",
        "2",
        "--grid",
        "48",
        "--tol",
        "1e-7",
        "--checkpoint-out",
        str(out),
    )
    wait_file(out, proc)
    assert wait_for(lambda: heat_children(proc.pid, str(out)))
    os.kill(heat_children(proc.pid, str(out))[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 1 and stdout == ""
    assert stderr.startswith("heat: worker process 1 died") and len(stderr.splitlines()) == 1
    assert not segments(proc.pid) and not processes_with(str(out))


@pytest.mark.parametrize("nprocs", [1, 2])
def test_warm_start_from_a_neighbour(tmp_path, nprocs):
    v = 1.0
    solve({"diffusivity": 2.0, "velocity": v}, grid=32, checkpoint_out=tmp_path / "nb.npz")
    scratch = solve({"diffusivity": 2.5, "velocity": v}, grid=32, nprocs=nprocs)
    warm = solve(
        {"diffusivity": 2.5, "velocity": v},
        grid=32,
        nprocs=nprocs,
        checkpoint_in=tmp_path / "nb.npz",
        checkpoint_out=tmp_path / "w.npz",
    )
    assert warm["mode"] == "warm" and warm["start_step"] == 0 and warm["converged"]
    assert warm["steps"] == warm["steps_run"] < 0.8 * scratch["steps"]
    assert warm["objectives"] == pytest.approx(scratch["objectives"], abs=1e-3)
    ckpt = load_checkpoint(tmp_path / "w.npz")
    assert ckpt.params == {"diffusivity": 2.5, "velocity": v} and ckpt.step == warm["steps"]


def test_cli_result_matches_the_api(tmp_path, capsys):
    res = tmp_path / "r.json"
    done = run(
        "--params",
        "diffusivity=1.5,velocity=1.5",
        "--grid",
        "24",
        "--nprocs",
        "2",
        "--checkpoint-out",
        str(tmp_path / "c.npz"),
        "--result",
        str(res),
    )
    assert done.returncode == 0 and done.stderr == ""
    r = json.loads(done.stdout)
    assert r == json.loads(res.read_text()) and set(r) == KEYS
    api = solve(P, grid=24)
    assert (r["objectives"], r["steps"], r["mode"]) == (api["objectives"], api["steps"], "scratch")
    # the max-steps limit: a result, not converged
    assert (
        main(["--params", "diffusivity=1.5,velocity=1.5", "--grid", "24", "--max-steps", "10"]) == 0
    )
    capped = json.loads(capsys.readouterr().out)
    assert capped["converged"] is False and capped["steps"] == 10


def test_bad_inputs_exit_2_with_one_line(tmp_path, capsys):
    good = tmp_path / "g16.npz"
    solve(P, grid=16, checkpoint_out=good)
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    junk = tmp_path / "junk.npz"
    junk.write_text("not a checkpoint\n")
    base = ["--params", "diffusivity=1,velocity=1"]
    cases = [
        ["--params", "diffusivity=1,velocity=1,viscosity=2"],
        ["--param", "diffusivity=1", "--param", "velocity=fast"],
        ["--param", "diffusivity=1"],
        [*base, "--nprocs", "0"],
        [*base, "--checkpoint-in", str(tmp_path / "missing.npz")],
        [*base, "--checkpoint-in", str(corrupt)],
        [*base, "--checkpoint-in", str(junk)],
        [*base, "--checkpoint-in", str(good), "--grid", "24"],
    ]
    for args in cases:  # in-process, quick
        assert main(args) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and err.startswith("heat: "), args
    for args in (cases[0], cases[5]):  # and as a real process: no traceback
        done = run(*args)
        assert done.returncode == 2, args
        assert done.stdout == "" and "Traceback" not in done.stderr, args
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("heat: "), args
    with pytest.raises(InputError, match="unknown parameter"):
        solve({"diffusivity": 1, "velocity": 1, "x": 0})
    with pytest.raises(InputError, match="grid"):
        solve(P, grid=24, checkpoint_in=good)
    with pytest.raises(InputError, match="nprocs"):
        solve(P, grid=4, nprocs=5)


def test_pareto_front_is_not_a_point():
    vals = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    results = {
        (i, j): solve({"diffusivity": vals[i], "velocity": vals[j]}, grid=16)["objectives"]
        for i, j in itertools.product(range(6), range(6))
    }
    assert len(pareto_front(results)) >= 3


@pytest.mark.slow
def test_pareto_front_default_grid():
    vals = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    results = {
        (i, j): solve({"diffusivity": vals[i], "velocity": vals[j]})["objectives"]
        for i, j in itertools.product(range(6), range(6))
    }
    assert len(pareto_front(results)) >= 3


@pytest.mark.parametrize("grid", [32, 80])
def test_a_warm_start_lands_within_tol_of_the_scratch_answer(tmp_path, grid):
    """``tol`` bounds the distance to the steady state (max norm), whatever the start: a run
    warm-started from a far neighbour (another diffusivity) and the run from scratch agree to
    2 tol in their objectives (L2 profiles, each within tol of the exact discrete answer)."""
    tol = 1e-4
    far = tmp_path / "far.npz"
    solve({"diffusivity": 0.5, "velocity": 2.0}, grid=grid, tol=tol, checkpoint_out=far,
               checkpoint_every=0)  # fmt: skip
    design = {"diffusivity": 3.0, "velocity": 2.0}
    warm = solve(design, grid=grid, tol=tol, checkpoint_in=far, checkpoint_every=0)
    cold = solve(design, grid=grid, tol=tol, checkpoint_every=0)
    assert warm["mode"] == "warm" and warm["converged"] and cold["converged"]
    diff = max(abs(a - b) for a, b in zip(warm["objectives"], cold["objectives"], strict=True))
    assert diff <= 2 * tol
