"""What compiling the kernel's own Python source would buy: the same modules built with Cython.

Usage::

    .venv/bin/python benchmarks/bench_compiled.py [--repeat 5] [--cases easy,fcfs,synth,coloc]

The question behind it (the issue "One kernel contract ...", part C): is the gap to the
textbook EASY loop (``textbook_easy.py``) a matter of Python's interpreter, so that compiling
the one implementation we have would close it, or of the work the kernel does per job (node
ids, checked decisions, reservation and pass records, the policy view), so that only a kernel
written for a compiled language would?

1. ``/tmp/coschedlab-cython-venv`` is created once (``python -m venv`` and ``pip install
   cython==3.3.1 setuptools``; never installed into the project's ``.venv``);
2. ``src/`` is copied to a temporary folder and the hot modules (:data:`MODULES`) are compiled
   there in place, unchanged (Cython 3, ``language_level=3``, ``binding=True``);
3. every case runs in a fresh interpreter (the project's ``.venv`` Python), interpreted
   (``PYTHONPATH=src``) and compiled (``PYTHONPATH=<copy>``) alternately, best of
   ``--repeat``; the textbook loop runs in the same rounds as the baseline. A case prints the
   event loop's time (``Result.wall_time``), the whole ``simulate()`` call, and a hash of every
   job's start, end and nodes: compiled and interpreted must give the same schedule.

Cases: ``easy`` and ``fcfs`` on SDSC-SP2 (the bench_core trace), ``synth`` (200,000 synthetic
jobs on 100,000 nodes, EASY, as bench_scaling), ``coloc`` (bench_coloc's 10,000 ARIS NAS jobs,
poisson:6, ``easy-coloc`` with the pool against plain ``easy``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _bench_common import machine_line

ROOT = Path(__file__).resolve().parents[1]
VENV = Path("/tmp/coschedlab-cython-venv")
CYTHON = "cython==3.3.1"
SDSC = ROOT.parent / "shared" / "data" / "swf" / "SDSC-SP2-1998-4.2-cln.swf.gz"
POOL = ROOT.parent / "shared" / "data" / "coloc" / "lm-aris.compute-NAS.json"
#: the modules a profile of EASY, FCFS and easy-coloc runs spends its time in
MODULES = [
    "coschedlab/engine/kernel.py", "coschedlab/engine/nodepool.py",
    "coschedlab/engine/accounting.py", "coschedlab/engine/view.py",
    "coschedlab/engine/speed.py", "coschedlab/engine/segments.py",
    "coschedlab/engine/placement.py", "coschedlab/schedulers/backfill.py",
    "coschedlab/schedulers/easy.py", "coschedlab/schedulers/strict.py",
    "coschedlab/schedulers/base.py", "coschedlab/intervals.py",
    "coschedlab/coloc/schedulers.py", "coschedlab/coloc/speed.py",
]  # fmt: skip

BUILD = """
import sys
from setuptools import Extension, setup
from Cython.Build import cythonize
mods = sys.argv[1:]
exts = [Extension(m[:-3].replace("/", "."), [m]) for m in mods]
setup(ext_modules=cythonize(exts, language_level=3, compiler_directives={"binding": True},
      nthreads=2, quiet=True), script_args=["build_ext", "--inplace", "-q"])
"""

# One case in a fresh interpreter: argv = case, trace, pool; prints one JSON line.
RUN = """
import hashlib, json, sys, time
import numpy as np
import coschedlab
import coschedlab.engine.kernel as kernel
case, trace, pool_path = sys.argv[1:4]
if case in ("easy", "fcfs"):
    from coschedlab.workload.swf import cluster_from_header, read_swf
    w = read_swf(trace)
    c = cluster_from_header(w.header)
    t = time.perf_counter(); r = coschedlab.simulate(w, c, case)
elif case == "synth":
    from coschedlab.platform import Cluster
    from coschedlab.workload.synthetic import synthetic_workload
    w = synthetic_workload(200_000, 100_000, seed=0, load=0.9)
    t = time.perf_counter(); r = coschedlab.simulate(w, Cluster(100_000), "easy")
else:  # coloc-easy-coloc / coloc-easy
    from coschedlab.coloc import load_pool
    from coschedlab.generate import generate_workload
    pool = load_pool(pool_path)
    c = coschedlab.Cluster(1280, 2, 10)
    w = generate_workload(pool.app_frame(), 10_000, arrival="poisson:6", seed=0)
    t = time.perf_counter()
    if case == "coloc-easy":
        r = coschedlab.simulate(w, c, "easy")
    else:
        r = coschedlab.simulate(w, c, "easy-coloc", pool=pool, kill_at_walltime=True)
total = time.perf_counter() - t
j = r.jobs
key = (j["start"].to_numpy(float).tobytes() + j["end"].to_numpy(float).tobytes()
       + "|".join(map(str, j["alloc"])).encode())
print(json.dumps({"compiled": kernel.__file__.endswith(".so"), "loop": r.wall_time,
                  "simulate": total, "hash": hashlib.sha1(key).hexdigest()[:12]}))
"""

TEXTBOOK = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
from textbook_easy import easy_starts, read
jobs, total = read(sys.argv[1])
jobs = [x for x in jobs if x[4] <= total]
cols = [[x[k] for x in jobs] for k in (0, 2, 3, 4)]
t = time.perf_counter(); easy_starts(*cols, total)
print(json.dumps({"loop": time.perf_counter() - t}))
"""


def cython_python() -> Path:
    """The Python of a venv with Cython (created on the first run)."""
    py = VENV / "bin" / "python"
    if not py.exists():
        print(f"# creating {VENV} (pip install {CYTHON} setuptools; once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", CYTHON, "setuptools"], check=True)
    return py


def build(dest: Path) -> None:
    """A copy of ``src/`` with :data:`MODULES` compiled in place."""
    shutil.copytree(ROOT / "src", dest, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    cy = cython_python()
    out = subprocess.run([str(cy), "-c", BUILD, *MODULES], cwd=dest, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"bench_compiled: the Cython build failed:\n{out.stderr[-2000:]}")
    built = sorted(str(p.relative_to(dest)).split(".")[0] for p in dest.glob("coschedlab/**/*.so"))
    print(f"# compiled {len(built)} modules with {CYTHON}: {', '.join(built)}", flush=True)


def run(code: str, *args: str, path: Path | None = None) -> dict:
    env = {"PYTHONPATH": str(path)} if path else {}
    cmd = [sys.executable, "-c", code, *args]
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(cmd, capture_output=True, text=True, env={**base, **env})
    if out.returncode:
        sys.exit(f"bench_compiled: {args[0]} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", default="easy,fcfs,synth,coloc")
    args = ap.parse_args()
    cases = []
    for c in args.cases.split(","):
        cases += ["coloc-easy-coloc", "coloc-easy"] if c == "coloc" else [c]
    print(f"# bench_compiled\n# {machine_line()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="coschedlab-cython-") as tmp:
        copy = Path(tmp) / "src"
        build(copy)
        best: dict[tuple[str, str], dict] = {}
        hashes: dict[tuple[str, str], set] = {}
        textbook = float("inf")
        for rnd in range(args.repeat):
            for case in cases:
                order = ("interpreted", "compiled") if rnd % 2 else ("compiled", "interpreted")
                for mode in order:
                    path = copy if mode == "compiled" else ROOT / "src"
                    r = run(RUN, case, str(SDSC), str(POOL), path=path)
                    if r["compiled"] != (mode == "compiled"):
                        sys.exit(f"bench_compiled: {mode} run loaded the wrong kernel")
                    b = best.setdefault((case, mode), r)
                    for k in ("loop", "simulate"):
                        b[k] = min(b[k], r[k])
                    hashes.setdefault((case, "any"), set()).add(r["hash"])
                if case == "easy":
                    tb = run(TEXTBOOK, str(SDSC), str(ROOT / "benchmarks"))
                    textbook = min(textbook, tb["loop"])
            print(f"# round {rnd + 1}/{args.repeat} done", flush=True)
    print(f"\n{'case':18s} {'measure':9s} {'interpreted':>11s} {'compiled':>9s} {'gain':>6s}")
    for case in cases:
        for k in ("loop", "simulate"):
            i, c = best[(case, "interpreted")][k], best[(case, "compiled")][k]
            print(f"{case:18s} {k:9s} {i:10.3f}s {c:8.3f}s {i / c:5.2f}x")
    same = all(len(h) == 1 for h in hashes.values())
    print(f"\nschedules compiled == interpreted (start, end, nodes of every job): {same}")
    if "easy" in cases:
        i, c = best[("easy", "interpreted")]["loop"], best[("easy", "compiled")]["loop"]
        print(
            f"textbook EASY loop (same rounds, best of {args.repeat}): {textbook:.3f} s; "
            f"coschedlab EASY takes {i / textbook:.2f}x its time interpreted, "
            f"{c / textbook:.2f}x compiled (target <= 1)"
        )
    if "coloc-easy" in cases:
        for mode in ("interpreted", "compiled"):
            r = best[("coloc-easy-coloc", mode)]["loop"] / best[("coloc-easy", mode)]["loop"]
            print(f"easy-coloc / easy, {mode}: {r:.2f}x (target <= 2)")
    if not same:
        sys.exit("bench_compiled: compiled and interpreted schedules differ")


if __name__ == "__main__":
    main()
