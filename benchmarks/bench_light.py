"""The whole ``simulate`` command against the whole textbook program, in the same run.

Usage::

    .venv/bin/python benchmarks/bench_light.py [TRACE] [--repeat 5] [--no-breakdown]

Runs, alternately and each as a fresh process, ``coschedlab simulate TRACE -s easy --out DIR``
and ``benchmarks/textbook_easy.py TRACE`` (standard library only: reads the .swf.gz, simulates
EASY, prints), and prints for each the best wall time and the best CPU time (user + system of
the process) of ``--repeat`` runs, and the ratio command / textbook (issue 31's target:
<= 0.75). Then, unless ``--no-breakdown``, one more run of the command in a fresh interpreter
with CPU timers around its phases (imports, reading, simulation, validation, each output
file) and the modules that took longest to import. TRACE defaults to SDSC-SP2-1998 (59,715 jobs).
``--before SRC`` also runs the command with ``PYTHONPATH=SRC`` (another tree's ``src``, e.g.
main's), alternately with the others, so that before and after come from the same run.

Each round runs every program once, in an order rotated from round to round (no program
always follows the same one). Besides the best of each (best / best), the median of the
per-round ratios (the command's run / the textbook run of the same round: the two saw about
the same load) with their range, each program's median user and system CPU and its median
page faults (minor). On Linux with tick-based CPU accounting (``CONFIG_TICK_CPU_ACCOUNTING``,
this machine's), a process's user + system CPU is its exact run time, but its split between
the two is sampled at each timer tick (4 ms here): read the split as an estimate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench_common import byte_compile, machine_line

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / ".venv" / "bin" / "python"
EXE = ROOT / ".venv" / "bin" / "coschedlab"
DEFAULT_TRACE = Path("/work/shared/data/swf/SDSC-SP2-1998-4.2-cln.swf.gz")
TARGET = 0.75


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, float, float, int]:
    """(wall, CPU, user, system, minor page faults) of one fresh process running ``cmd``
    (CPU = user + system of that process alone, from ``wait4``)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    user, system = usage.ru_utime, usage.ru_stime
    return wall, user + system, user, system, usage.ru_minflt


BREAKDOWN = r"""
import contextlib, functools, io, sys, time
t0 = time.process_time()
import coschedlab.cli.main
import_s = time.process_time() - t0
main_mod = sys.modules["coschedlab.cli.main"]
from coschedlab import outputs
from coschedlab.cli import batch as core
from coschedlab.engine.result import Result
from coschedlab.workload import batsim, swf
timings, order = {}, []
def wrap(obj, name, label):
    order.append(label)
    f = getattr(obj, name)
    @functools.wraps(f)
    def g(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            timings[label] = timings.get(label, 0.0) + time.process_time() - t
    setattr(obj, name, g)
wrap(core, "load_trace", "read the trace (read_swf + drop_oversized)")
wrap(core, "_progress_run", "simulate() (set-up, run, result columns)")
# the compiled kernel's methods cannot be wrapped: its loop time is the result's wall_time
# (wall-clock, the one figure here that is not CPU time)
order.append("  of which the event loop (= wall_time)")
_validate = Result.validate
def _validate_and_note(self, *a, **k):
    timings["  of which the event loop (= wall_time)"] = self.wall_time
    return _validate(self, *a, **k)
Result.validate = _validate_and_note
wrap(Result, "validate", "validate")
wrap(Result, "write", "write the four files")
wrap(outputs, "write_parquet", "  of which jobs.parquet")
wrap(batsim, "write_jobs_csv", "  of which jobs.csv")
wrap(swf, "write_swf", "  of which result.swf")
sys.argv = ["coschedlab", "simulate", sys.argv[1], "-s", "easy", "--out", sys.argv[2]]
t1 = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main_mod.main()
    except SystemExit:
        pass
total = time.process_time() - t1
print(f"  {'import coschedlab.cli.main':<46}{import_s:8.3f} s")
print(f"  {'main() (everything after that import)':<46}{total:8.3f} s")
for k in order:
    if k in timings:
        print(f"  {k:<46}{timings[k]:8.3f} s")
print("  pandas imported:", "pandas" in sys.modules)
"""


def breakdown(trace: Path) -> None:
    """Phases of one command run, and its slowest imports (``-X importtime``)."""
    # as the coschedlab program runs a plain simulate (cli.main.main): BLAS on one thread
    env = {"OPENBLAS_NUM_THREADS": "1", **os.environ}
    with tempfile.TemporaryDirectory(prefix="bench_light_") as tmp:
        subprocess.run([str(PY), "-c", BREAKDOWN, str(trace), f"{tmp}/a"], check=True, env=env)
        done = subprocess.run(
            [str(PY), "-X", "importtime", "-m", "coschedlab.cli", "simulate", str(trace),
             "-s", "easy", "--out", f"{tmp}/b"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            self_us, cum_us, name = line.removeprefix("import time:").split("|")
            if self_us.strip().isdigit():
                rows.append((int(cum_us), int(self_us), name.rstrip()))
    total = sum(r[1] for r in rows) / 1e6
    print(f"  imports in the command: {total:.3f} s in all (self times, -X importtime);")
    top = [r for r in rows if not r[2].startswith("  ")]  # top-level imports
    for cum, _, name in sorted(top, reverse=True)[:8]:
        print(f"    {name.strip():<40}{cum / 1e6:8.3f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="?", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-breakdown", action="store_true")
    ap.add_argument("--before", type=Path, default=None, help="another tree's src, same run")
    args = ap.parse_args(argv)
    print(f"# bench_light: {args.trace.name}")
    print(f"# {machine_line()}")
    textbook = [str(PY), str(Path(__file__).with_name("textbook_easy.py")), str(args.trace)]
    for src in [ROOT / "src"] + ([args.before] if args.before is not None else []):
        byte_compile(src)
    runs = [("command", None), ("textbook", None)]
    if args.before is not None:
        runs.append(("command (before)", {**os.environ, "PYTHONPATH": str(args.before)}))
    got: dict[str, list[tuple[float, float, float, float, int]]] = {name: [] for name, _ in runs}
    with tempfile.TemporaryDirectory(prefix="bench_light_") as tmp:
        command = [str(EXE), "simulate", str(args.trace), "-s", "easy", "--out", tmp, "--force"]
        for i in range(args.repeat):  # alternately, so that all see the same load
            for name, env in runs[i % len(runs) :] + runs[: i % len(runs)]:  # order rotated
                got[name].append(timed(textbook if name == "textbook" else command, env))
    best = {name: (min(r[0] for r in v), min(r[1] for r in v)) for name, v in got.items()}
    (cw, cc), (tw, tc) = best["command"], best["textbook"]
    print(f"whole command `coschedlab simulate {args.trace.name} -s easy --out DIR`: "
          f"{cw:.3f} s wall, {cc:.3f} s CPU (best of {args.repeat})")  # fmt: skip
    print(f"whole textbook program `textbook_easy.py`:  {tw:.3f} s wall, {tc:.3f} s CPU")
    if args.before is not None:
        bw, bc = best["command (before)"]
        print(f"the command with {args.before} (before): {bw:.3f} s wall, {bc:.3f} s CPU "
              f"({bc / tc:.2f}x the textbook program by CPU)")  # fmt: skip
    for what, ratio in (("wall", cw / tw), ("CPU", cc / tc)):
        verdict = "MET" if ratio <= TARGET else "MISSED"
        print(f"  command / textbook by {what} time: {ratio:.2f}x (target <= {TARGET}: {verdict})")
    for name, v in got.items():
        if name == "textbook":
            continue
        pairs = [r[1] / t[1] for r, t in zip(v, got["textbook"], strict=True)]
        verdict = "MET" if statistics.median(pairs) <= TARGET else "MISSED"
        print(f"  {name} / textbook by CPU, per round: median {statistics.median(pairs):.2f}x "
              f"(range {min(pairs):.2f}-{max(pairs):.2f}x, {len(pairs)} rounds; target <= "
              f"{TARGET}: {verdict})")  # fmt: skip
    if args.before is not None:
        pairs = [a[1] / b[1] for a, b in zip(got["command"], got["command (before)"], strict=True)]
        med = statistics.median(pairs)
        print(f"  command / command (before) by CPU, per round: median {med:.3f} "
              f"(range {min(pairs):.2f}-{max(pairs):.2f})")  # fmt: skip
    print("median per program (the user/system split sampled by the kernel's timer ticks):")
    for name, v in got.items():
        med = [statistics.median(r[k] for r in v) for k in (1, 2, 3, 4)]
        print(f"  {name:<18} CPU {med[0]:.3f} s = user {med[1]:.3f} + system {med[2]:.3f} s; "
              f"{med[3]:,.0f} page faults")  # fmt: skip
    if not args.no_breakdown:
        print("phases of one command run (CPU time of the process, fresh interpreter):")
        breakdown(args.trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
