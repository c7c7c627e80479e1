"""Profile-guided build of the compiled core's hot modules (gcc's PGO), run by scripts/setup.sh.

``setup.py`` lists the trained modules (:data:`TRAINED` there). This script builds them three
times in place: instrumented (``-fprofile-generate``), then it runs the training set
(:func:`train`: bundled data only, fixed seeds, ~10-20 s), then it builds them again with
the profiles (``-fprofile-use``). The rest of the modules are built plain, by pip (set-up)
or ``python setup.py build_ext --inplace`` (a developer's rebuild, always plain).

It never leaves a broken or instrumented build: with ``COSCHEDLAB_PGO=0``, a compiler that is
not gcc, or a failure of any step (the instrumented build, the training, a module without a
profile, the final build), it says so in one line and builds the trained modules plain.

    .venv/bin/python scripts/pgo_build.py            # the trained modules, profile-guided
    .venv/bin/python scripts/pgo_build.py --train    # the training set alone (PYTHONPATH=src)
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where the instrumented modules write their profiles (one ``.gcda`` per object file)
PROFILES = ROOT / "build" / "pgo"
#: the training set's limit (it takes ~10-20 s; a hang must not stop the set-up)
TRAIN_TIMEOUT_S = 600.0


class PgoFailed(Exception):
    """A step of the profile-guided build failed (the message says which and why)."""


def trained_modules() -> list[str]:
    """The modules built with profiles: ``TRAINED`` of setup.py (read, not imported: importing
    setup.py runs the build)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "TRAINED"
        ]:
            return list(ast.literal_eval(node.value))
    raise PgoFailed("setup.py names no TRAINED modules")


def not_gcc() -> str | None:
    """Why the compilers setuptools will call (``CC``/``CXX`` or Python's own) are not gcc /
    g++, or None when both are."""
    for var in ("CC", "CXX"):
        cmd = os.environ.get(var) or sysconfig.get_config_var(var) or var.lower()
        try:
            out = subprocess.run([*cmd.split(), "--version"], capture_output=True, text=True,
                                 timeout=60, check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{var} '{cmd}' did not run ({exc})"
        text = out.stdout.lower()
        if "clang" in text or "free software foundation" not in text:
            return f"{var} '{cmd}' is not gcc"
    return None


def build(stage: str) -> None:
    """Build the trained modules in place at ``stage`` (generate, use or plain): setup.py
    reads the stage and the profiles' folder from the environment."""
    env = dict(os.environ, COSCHEDLAB_PGO_STAGE=stage, COSCHEDLAB_PGO_DIR=str(PROFILES))
    cmd = [sys.executable, "setup.py", "-q", "build_ext", "--inplace", "--force"]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise PgoFailed(f"the {stage} build failed: {tail}")


def run_training() -> None:
    """Run :func:`train` in a fresh process on the instrumented modules; every trained module
    must have written its profile."""
    shutil.rmtree(PROFILES, ignore_errors=True)
    PROFILES.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PYTHONHASHSEED="0",
               OPENBLAS_NUM_THREADS="1")  # fmt: skip
    try:
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--train"],
                             cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=TRAIN_TIMEOUT_S, check=False)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise PgoFailed(f"the training took over {TRAIN_TIMEOUT_S:.0f} s") from exc
    if out.returncode:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise PgoFailed(f"the training failed (exit code {out.returncode}): {tail}")
    found = {p.name.rsplit("#", 1)[-1] for p in PROFILES.glob("*.gcda")}
    missing = [m for m in trained_modules() if m.rsplit(".", 1)[-1] + ".gcda" not in found]
    if missing:
        raise PgoFailed(f"no profile written for {', '.join(missing)}")


def pgo_build(
    build: Callable[[str], None] = build,
    run_training: Callable[[], None] = run_training,
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
) -> str:
    """Build the trained modules profile-guided, or plain with one line saying why; returns
    the stage they were last built at ("use" or "plain")."""
    if os.environ.get("COSCHEDLAB_PGO", "1") == "0":
        build("plain")
        return "plain"
    why = not_gcc()
    if why is not None:
        say(f"setup: no profile-guided build ({why}): the compiled core built plain")
        build("plain")
        return "plain"
    try:
        build("generate")
        run_training()
        build("use")
        return "use"
    except PgoFailed as exc:
        say(f"setup: profile-guided build skipped ({exc}): the compiled core built plain")
        build("plain")
        return "plain"
    finally:
        shutil.rmtree(PROFILES, ignore_errors=True)


def train() -> None:
    """The training set: what the benchmarks of issue 31 run, on bundled data, fixed seeds."""
    import coschedlab
    from coschedlab.cli.main import main as cli_main
    from coschedlab.coloc import load_pool
    from coschedlab.generate import generate_workload
    from coschedlab.workflows import builtin, generate, simulate_mode
    from coschedlab.workload.swf import write_workload_swf
    from coschedlab.workload.synthetic import synthetic_workload

    def command(*args: str) -> None:
        sys.argv = ["coschedlab", *args]
        try:
            cli_main()  # (without exit_process: the profiles are written at the exit)
        except SystemExit as exc:
            if exc.code:
                raise
        print(f"trained: coschedlab {' '.join(args[:2])} ...", flush=True)

    with tempfile.TemporaryDirectory(prefix="coschedlab_pgo_") as tmp:
        kth = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
        command("simulate", kth, "-s", "easy", "-s", "conservative", "-s", "slurm",
                "--out", f"{tmp}/kth")  # fmt: skip
        swf = Path(tmp) / "synthetic.swf"
        write_workload_swf(swf, synthetic_workload(200_000, 100_000, seed=0, load=0.9))
        command("simulate", str(swf), "-s", "easy", "--out", f"{tmp}/synthetic")
    pool = load_pool("coschedlab:lm-aris.compute-NAS.json")
    cluster = coschedlab.Cluster(1280, 2, 10)
    for arrival in ("poisson:6", "poisson:20"):
        w = generate_workload(pool.app_frame(), 10_000, arrival=arrival, seed=0)
        coschedlab.simulate(w, cluster, "easy")
        coschedlab.simulate(w, cluster, "easy-coloc", pool=pool, kill_at_walltime=True)
    print("trained: easy-coloc", flush=True)
    ww = generate(builtin("cybershake"), share=0.1, seed=0)
    for mode in ("chained", "pilot", "woas"):
        simulate_mode(ww, mode, "slurm").summary()
    print("trained: workflows", flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--train"]:
        train()
    else:
        pgo_build()
